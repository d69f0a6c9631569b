package systemd

import (
	"strings"
	"testing"

	"github.com/sglaunch/sglaunch/plan"
	"github.com/sglaunch/sglaunch/profiles"
)

func TestUnitStatusAddr(t *testing.T) {
	for _, tt := range []struct{ addr, want string }{
		{"", "ExecStart=/usr/local/bin/sglaunch serve --profile kimi\n"},
		{"9400", "ExecStart=/usr/local/bin/sglaunch serve --profile kimi --status-addr 127.0.0.1:9400\n"},
		{"0.0.0.0:9400", "ExecStart=/usr/local/bin/sglaunch serve --profile kimi --status-addr 0.0.0.0:9400\n"},
	} {
		settings := plan.DefaultSettings()
		settings["status_addr"] = profiles.Value{Text: tt.addr}
		pl := &plan.Plan{Profile: "kimi", Source: profiles.BuiltinSource, Fingerprint: strings.Repeat("0", 64)}
		pl.ApplySettings(settings)
		u, err := Unit(pl, UnitOptions{Exe: "/usr/local/bin/sglaunch"})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(u, tt.want) {
			t.Errorf("status_addr %q: unit lacks %q:\n%s", tt.addr, tt.want, u)
		}
	}
}
