package cliflow

import (
	"fmt"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

func testApp() *cli.App {
	return &cli.App{Name: "sglaunch", Commands: []*cli.Command{
		{Name: "bench", Flags: []cli.Flag{&cli.BoolFlag{Name: "json"}, &cli.StringFlag{Name: "out", Aliases: []string{"o"}}},
			Subcommands: []*cli.Command{{Name: "show", ArgsUsage: "ID", Flags: []cli.Flag{&cli.BoolFlag{Name: "json"}}, Action: func(*cli.Context) error { return nil }}}},
		{Name: "serve", ArgsUsage: "[-- SERVER_ARGS...]", Flags: []cli.Flag{&cli.StringFlag{Name: "profile", Aliases: []string{"p"}}}},
		{Name: "list"},
	}}
}

func TestArrange(t *testing.T) {
	tests := []struct {
		name, args, want, err string
	}{
		{"options after arguments", "bench show ID --json", "bench show --json ID", ""},
		{"value of an option stays with it", "bench -o f.html show ID", "bench -o f.html show ID", ""},
		{"server arguments untouched", "serve -- --json x --profile", "serve -- --json x --profile", ""},
		{"help word", "help bench show", "bench show --help", ""},
		{"help anywhere", "bench show ID --help", "bench show --help", ""},
		{"unknown command", "bnech", "", `unknown command "bnech"; did you mean bench?`},
		{"unknown subcommand", "bench shwo", "", `unknown bench command "shwo"; did you mean show?`},
		{"unknown option", "serve --profil x", "", "unknown flag --profil; did you mean --profile?"},
		{"option before its command", "--profile x serve", "", "--profile is an option of the command, not of sglaunch: put it after serve"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Arrange(testApp(), append([]string{"sglaunch"}, strings.Fields(tt.args)...), nil)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("got error %v, want one with %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if g := strings.Join(got[1:], " "); g != tt.want {
				t.Errorf("got %q, want %q", g, tt.want)
			}
		})
	}
}

func TestOptionValues(t *testing.T) {
	opts := []string{"-w", "a,b", "--json", "--workload=c", "--set", "x=1", "-w"}
	if got := strings.Join(OptionValues(opts, "w", "workload"), " "); got != "a,b c" {
		t.Errorf("got %q, want %q", got, "a,b c")
	}
}

func TestArity(t *testing.T) {
	tests := []struct {
		spec     string
		min, max int
	}{{"A B", 2, 2}, {"ID [ID...]", 1, -1}, {"ID", 1, 1}, {"", 0, 0}}
	for _, tt := range tests {
		if min, max := arity(tt.spec); min != tt.min || max != tt.max {
			t.Errorf("arity(%q): got %d, %d, want %d, %d", tt.spec, min, max, tt.min, tt.max)
		}
	}
}

func TestArgumentAsOption(t *testing.T) {
	check := func(path []*cli.Command, opts, pos []string) error {
		return ArgumentAsOption(path, opts, pos, "profile")
	}
	tests := []struct{ args, err string }{
		{"serve demo", `serve: unexpected argument "demo"; a profile is named with --profile, like: sglaunch serve --profile demo`},
		{"serve -p demo x", ""},
		{"serve --profile demo", ""},
		{"list x", "list: unexpected argument \"x\"; it takes none\nusage: sglaunch list"},
		{"bench show ID", ""},
	}
	for _, tt := range tests {
		_, err := Arrange(testApp(), append([]string{"sglaunch"}, strings.Fields(tt.args)...), check)
		if got := fmt.Sprint(err); (tt.err == "" && err != nil) || (tt.err != "" && got != tt.err) {
			t.Errorf("%s: got %v, want %q", tt.args, err, tt.err)
		}
	}
}
