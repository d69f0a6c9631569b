package plan

import (
	"strings"
	"testing"

	"github.com/sglaunch/sglaunch/internal/inputerr"
)

// TestStatusAddrLayers: status_addr comes from the profile, then
// SGLAUNCH_STATUS_ADDR, --set, and --status-addr last; a bare port or
// :PORT means loopback; it stays out of the fingerprint.
func TestStatusAddrLayers(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "p.yaml", "status_addr: 9400\nargs:\n  model-path: /m\n")
	tests := []struct {
		name    string
		req     Request
		addr    string
		from    string
		printed string
	}{
		{"profile, a bare port", Request{}, "127.0.0.1:9400", "profile", "status_addr 9400"},
		{"variable", Request{Config: Config{StatusAddr: ":9401"}}, "127.0.0.1:9401", "SGLAUNCH_STATUS_ADDR", "status_addr :9401"},
		{"--set over the variable", Request{Config: Config{StatusAddr: ":9401"}, Sets: []string{"status_addr=0.0.0.0:9402"}}, "0.0.0.0:9402", "--set", "status_addr 0.0.0.0:9402"},
		{"--status-addr last", Request{Sets: []string{"status_addr=9402"}, StatusAddr: "[::1]:9403"}, "[::1]:9403", "--status-addr", "status_addr [::1]:9403"},
		{"--unset turns it off", Request{Unsets: []string{"status_addr"}}, "", "--unset", "status_addr (off)"},
	}
	var fps []string
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.req.Profile, tt.req.Mode = load(t, []string{dir}, "p"), ModeServe
			p := resolve(t, tt.req)
			if p.StatusAddr != tt.addr || p.Provenance["status_addr"] != tt.from {
				t.Errorf("got %q from %q, want %q from %q", p.StatusAddr, p.Provenance["status_addr"], tt.addr, tt.from)
			}
			if text := strings.Join(strings.Fields(p.Text()), " "); !strings.Contains(text, tt.printed+" # "+tt.from) {
				t.Errorf("printed config lacks %q", tt.printed+" # "+tt.from)
			}
			fps = append(fps, p.Fingerprint)
		})
	}
	for _, fp := range fps {
		if fp != fps[0] {
			t.Errorf("status_addr changed the fingerprint: %v", fps)
			break
		}
	}
}

func TestStatusAddrBadValue(t *testing.T) {
	p := load(t, nil, "demo")
	for _, req := range []Request{
		{Profile: p, Mode: ModeServe, StatusAddr: "localhost"},
		{Profile: p, Mode: ModeServe, Config: Config{StatusAddr: "127.0.0.1:99999"}},
	} {
		req.LookPath, req.SimDir = fakePython, fakeSimDir
		_, err := Resolve(req)
		if err == nil || !inputerr.Is(err) || !strings.Contains(err.Error(), "want HOST:PORT, :PORT or PORT") {
			t.Errorf("%+v: got %v, want an input error saying what is right", req.StatusAddr+req.Config.StatusAddr, err)
		}
	}
}
