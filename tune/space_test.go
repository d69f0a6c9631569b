package tune

import (
	"slices"
	"strings"
	"testing"

	"github.com/sglaunch/sglaunch/internal/inputerr"
	"github.com/sglaunch/sglaunch/profiles"
)

func TestParseSpace(t *testing.T) {
	s, err := ParseSpace("s.yaml", []byte(`parameters:
  env.NCCL_PROTO: [LL, LL128]
  env.NCCL_MIN_NCHANNELS: {range: [8, 16], step: 4}
  args.cuda-graph-max-bs: {pow2: [64, 256]}
objective:
  workload: decode-1
  metric: output_throughput
constraints: ["p99_ttft_ms <= 500"]
strategy: random
count: 5
seed: 7
rounds: 4
budget: 90m
`))
	if err != nil {
		t.Fatal(err)
	}
	want := []Param{
		{Key: "env.NCCL_PROTO", Values: []string{"LL", "LL128"}},
		{Key: "env.NCCL_MIN_NCHANNELS", Values: []string{"8", "12", "16"}},
		{Key: "args.cuda-graph-max-bs", Values: []string{"64", "128", "256"}},
	}
	for i, p := range want {
		if s.Params[i].Key != p.Key || !slices.Equal(s.Params[i].Values, p.Values) {
			t.Errorf("param %d: got %+v, want %+v", i, s.Params[i], p)
		}
	}
	if s.Objective.Direction != 1 || s.Size() != 18 || s.Count != 5 || s.Seed != 7 || s.Rounds != 4 || s.Budget.Minutes() != 90 {
		t.Errorf("got %+v", s)
	}
	if c := s.Constraints; len(c) != 1 || !c[0].Holds(500) || c[0].Holds(501) {
		t.Errorf("constraints: got %+v", c)
	}
	if g := s.Grid(); len(g) != 18 || !slices.Equal(g[1], []string{"env.NCCL_PROTO=LL", "env.NCCL_MIN_NCHANNELS=8", "args.cuda-graph-max-bs=128"}) {
		t.Errorf("grid: got %d points, second %v", len(g), g[1])
	}
	a, b := s.Sample(5, 7), s.Sample(5, 7)
	if len(a) != 5 || !slices.EqualFunc(a, b, slices.Equal) {
		t.Errorf("a sample with one seed differs: %v vs %v", a, b)
	}
}

func TestParseSpaceErrors(t *testing.T) {
	const obj = "objective: {workload: w, metric: median_itl_ms}\n"
	tests := []struct{ name, text, want string }{
		{"unknown key", "parameters: {env.A: [1]}\n" + obj + "strategey: grid\n", `s.yaml:3:1: strategey: unknown key; did you mean "strategy"?`},
		{"bad param key", "parameters: {python: [a]}\n" + obj, "s.yaml:1:14: parameters.python: want a managed variable (env.NAME) or an SGLang flag (args.flag-name)"},
		{"value twice", "parameters:\n  env.A: [1, 1]\n" + obj, `s.yaml:2:14: parameters.env.A[1]: value "1" is listed twice`},
		{"bad pow2", "parameters:\n  args.x: {pow2: [3, 8]}\n" + obj, "s.yaml:2:12: parameters.args.x.pow2: want two powers of two, got 3 and 8"},
		{"reversed range", "parameters:\n  args.x: {range: [8, 3]}\n" + obj, "parameters.args.x.range: TO (3) is below FROM (8)"},
		{"unknown metric", "parameters: {env.A: [1]}\nobjective: {workload: w, metric: speed}\n", `s.yaml:2:34: objective.metric: unknown metric "speed"`},
		{"no direction", "parameters: {env.A: [1]}\nobjective: {workload: w, metric: completed}\n", "objective.direction: metric completed has no better direction; say maximize or minimize"},
		{"bad constraint", "parameters: {env.A: [1]}\n" + obj + "constraints: [\"p99_ttft_ms ~ 5\"]\n", `s.yaml:3:15: constraints[0]: want METRIC OP NUMBER (p99_ttft_ms <= 500), got "p99_ttft_ms ~ 5"`},
		{"random without count", "parameters: {env.A: [1]}\n" + obj + "strategy: random\n", "count: strategy random needs count:"},
		{"no objective", "parameters: {env.A: [1]}\n", "objective: missing"},
		{"bad budget", "parameters: {env.A: [1]}\n" + obj + "budget: soon\n", `s.yaml:3:9: budget: want a duration like 90m or 2h, got "soon"`},
		{"bad strategy", "parameters: {env.A: [1]}\n" + obj + "strategy: best\n", `s.yaml:3:11: strategy: want one of grid, random, adaptive, halving, got "best"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseSpace("s.yaml", []byte(tt.text))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error holding %q", err, tt.want)
			}
			if !inputerr.Is(err) {
				t.Errorf("%v is not an input error (exit 2)", err)
			}
		})
	}
}

func TestQuote(t *testing.T) {
	tests := []struct{ in, want string }{
		{"LL128", "LL128"}, {"8388608", "8388608"}, {"0,1", `"0,1"`}, {"yes", `"yes"`}, {"a b", `"a b"`}, {"", `""`}, {"#x", `"#x"`},
	}
	for _, tt := range tests {
		if got := quote(tt.in); got != tt.want {
			t.Errorf("quote(%q): got %s, want %s", tt.in, got, tt.want)
		}
	}
}

// TestProfileTuneSection: a profile's tune: section is a space, its
// errors placed in the profile file under tune.
func TestProfileTuneSection(t *testing.T) {
	p, err := profiles.Parse("p.yaml", []byte("args:\n  tp: 1\ntune:\n  parameters:\n    env.NCCL_PROTO: [LL, LL128]\n  objective: {workload: decode-1, metric: median_itl_ms}\n"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := DecodeSpace(p.TuneFile, p.Tune)
	if err != nil || len(s.Params) != 1 || s.Objective.Direction != -1 {
		t.Fatalf("got %+v, %v", s, err)
	}
	if !strings.Contains(p.YAML(), "tune:\n  parameters:\n    env.NCCL_PROTO: [LL, LL128]\n") {
		t.Errorf("the rendered profile lacks its tune section:\n%s", p.YAML())
	}
	p, err = profiles.Parse("p.yaml", []byte("args:\n  tp: 1\ntune:\n  parameters:\n    env.NCCL_PROTO: [LL, LL]\n  objective: {workload: decode-1, metric: median_itl_ms}\n"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = DecodeSpace(p.TuneFile, p.Tune)
	if want := `p.yaml:5:26: tune.parameters.env.NCCL_PROTO[1]: value "LL" is listed twice`; err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}
