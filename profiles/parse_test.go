package profiles

import (
	"errors"
	"strings"
	"testing"

	"github.com/sglaunch/sglaunch/internal/inputerr"
)

func TestParseKeepsScalarsAsWritten(t *testing.T) {
	src := `env:
  NCCL_BUFFSIZE: 16777216
  SGLANG_ENABLE_SPEC_V2: True
  HEX: 0x10
  QUOTED: "0.50"
  GONE: ~
args:
  mem-fraction-static: 0.88
  trust-remote-code: true
  disable-x: false
  cuda-graph-bs: [1, 2, 4, 8]
  served-model-name: "true"
  big: 1e6
`
	p, err := Parse("p.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	for _, e := range p.Env {
		env[e.Name] = e.Value.Text
	}
	for name, want := range map[string]string{"NCCL_BUFFSIZE": "16777216", "SGLANG_ENABLE_SPEC_V2": "True", "HEX": "0x10", "QUOTED": "0.50"} {
		if env[name] != want {
			t.Errorf("env %s: got %q, want %q", name, env[name], want)
		}
	}
	tests := []struct {
		name string
		kind Kind
		text string
	}{
		{"mem-fraction-static", Scalar, "0.88"},
		{"trust-remote-code", Bool, "true"},
		{"disable-x", Bool, "false"},
		{"cuda-graph-bs", List, "1 2 4 8"},
		{"served-model-name", Scalar, "true"},
		{"big", Scalar, "1e6"},
	}
	for _, tt := range tests {
		e, ok := p.Args.Get(tt.name)
		if !ok || e.Value.Kind != tt.kind || e.Value.String() != tt.text {
			t.Errorf("args.%s: got kind %v %q, want kind %v %q", tt.name, e.Value.Kind, e.Value.String(), tt.kind, tt.text)
		}
	}
	if e, _ := p.Args.Get("mem-fraction-static"); e.Value.Pos.String() != "p.yaml:8:24" {
		t.Errorf("position: got %s, want p.yaml:8:24", e.Value.Pos)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"unknown top key", "name: x\nargz:\n  tp: 8\n", `p.yaml:2:1: argz: unknown key; did you mean "args"?`},
		{"unknown health key", "health:\n  start_timout: 10m\n", `p.yaml:2:3: health.start_timout: unknown key; did you mean "start_timeout"?`},
		{"unknown overlay key", "serve:\n  argv: {}\n", `p.yaml:2:3: serve.argv: unknown key; did you mean "args"?`},
		{"workloads only in bench", "serve:\n  workloads: []\n", `p.yaml:2:3: serve.workloads: unknown key`},
		{"syntax", "args:\n  tp: [8\n", "p.yaml:2:7: yaml syntax:"},
		{"tab", "args:\n\ttp: 8\n", "p.yaml:2:"},
		{"duplicate key", "args:\n  tp: 8\n  tp: 4\n", `p.yaml:3:3: yaml syntax: mapping key "tp" already defined at [2:3]`},
		{"args not a map", "args: [tp, 8]\n", "p.yaml:1:7: args: want a mapping"},
		{"nested arg", "args:\n  tp: {a: 1}\n", "p.yaml:2:7: args.tp: want a single value, got a mapping"},
		{"null arg", "args:\n  tp:\n", "p.yaml:2:3: args.tp: no value; write a value, true for a bare flag, or false to drop the flag"},
		{"empty list", "args:\n  cuda-graph-bs: []\n", "args.cuda-graph-bs: empty list"},
		{"dashed flag", "args:\n  --tp: 8\n", "p.yaml:2:3: args.--tp: write flag names without the leading dashes: tp"},
		{"empty flag name", "args:\n  \"\": 8\n", "args.: empty flag name"},
		{"bad env name", "env:\n  NCCL-ALGO: Ring\n", "p.yaml:2:3: env.NCCL-ALGO: not a valid environment variable name"},
		{"env list", "env:\n  NCCL_ALGO: [Ring]\n", "p.yaml:2:14: env.NCCL_ALGO: want a single value, got a list"},
		{"bad duration", "health:\n  start_timeout: ten minutes\n", `p.yaml:2:18: health.start_timeout: want a duration like 30s, 10m or 1h30m, got "ten minutes"`},
		{"bad threshold", "health:\n  failure_threshold: 0\n", "health.failure_threshold: want a whole number of at least 1"},
		{"bad enum", "health:\n  on_unhealthy: restart\n", "health.on_unhealthy: want one of exit, log"},
		{"empty", "", "p.yaml: empty profile"},
		// Issue 22: a profile holding only ~ was accepted as a profile
		// with nothing set.
		{"only null", "~\n", "p.yaml:1:1: empty profile (only null)"},
		{"only null spelled out", "null\n", "p.yaml:1:1: empty profile (only null)"},
		{"two docs", "args: {}\n---\nargs: {}\n", "more than one YAML document"},
		{"alias", "a: &x 1\nargs:\n  tp: *x\n", "p.yaml:1:1: a: unknown key"},
		{"alias in args", "args:\n  tp: &x 8\n  dp: *x\n", "args.dp: YAML aliases"},
		{"inherit_env scalar", "inherit_env: CUDA_VISIBLE_DEVICES\n", "inherit_env: want a list of variable names"},
		{"name with space", "name: my profile\n", `name: want a name of letters`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("p.yaml", []byte(tt.src))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error containing %q", err, tt.want)
			}
			if !inputerr.Is(err) {
				t.Errorf("error %v is not marked as an input error", err)
			}
			var pe *Error
			if !errors.As(err, &pe) {
				t.Errorf("error %v is not a *profiles.Error", err)
			}
		})
	}
}

func TestQuoteReadsBack(t *testing.T) {
	for _, s := range []string{"0.88", "True", "null", "a b", "x: y", "#c", "", "16777216", "kimi_k2", "- x", "[1]", "it's"} {
		q := Quote(s, Scalar)
		p, err := Parse("q", []byte("args:\n  x: "+q+"\n"))
		if err != nil {
			t.Fatalf("%q quoted as %s: %v", s, q, err)
		}
		e, _ := p.Args.Get("x")
		if s == "" {
			continue // an empty flag value has no plain form; the quoting still parses
		}
		if e.Value.Kind != Scalar || e.Value.Text != s {
			t.Errorf("%q quoted as %s reads back as kind %v %q", s, q, e.Value.Kind, e.Value.Text)
		}
	}
}

// FuzzParse: no input makes the parser panic, and every failure is an
// input error with a message.
func FuzzParse(f *testing.F) {
	for _, name := range builtinNames() {
		b, _ := builtinData(name)
		f.Add(b)
	}
	f.Add([]byte("args:\n  tp: [8\n"))
	f.Add([]byte("health: {start_timeout: 1m}\nserve: {args: {host: 0.0.0.0}}\n"))
	f.Add([]byte("a: &x 1\nb: *x\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse("fuzz.yaml", data)
		if err != nil {
			if !inputerr.Is(err) || err.Error() == "" {
				t.Fatalf("error %q is not an input error", err)
			}
			return
		}
		_ = p.YAML()
	})
}
