package workload

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/internal/inputerr"
	"github.com/sglaunch/sglaunch/loadgen"
	"github.com/sglaunch/sglaunch/profiles"
)

func TestParseWorkloads(t *testing.T) {
	decode1, _ := Builtin("decode-1")
	tests := []struct {
		name string
		yaml string
		want []Workload
	}{
		{
			name: "a list with defaults applied",
			yaml: "- name: chat-sweep\n  api: chat\n  concurrency: [1, 8]\n  requests: 16\n",
			want: []Workload{{Name: "chat-sweep", Source: "w.yaml:1:3", API: loadgen.Chat, InputLen: 1024, OutputLen: 512,
				Concurrency: []int{1, 8}, Requests: 16, Warmup: 1, Seed: 1, RequestTimeout: Duration(10 * time.Minute)}},
		},
		{
			name: "open loop with a cap and a duration",
			yaml: "workloads:\n  - name: poisson\n    request_rate: [0.5, 2]\n    max_concurrency: 64\n    duration: 2m\n    input_len: 128\n    output_len: 64\n    warmup: 0\n    seed: 9\n    request_timeout: 30s\n",
			want: []Workload{{Name: "poisson", Source: "w.yaml:2:5", API: loadgen.Generate, InputLen: 128, OutputLen: 64,
				RequestRate: []float64{0.5, 2}, MaxConcurrency: 64, Duration: Duration(2 * time.Minute), Warmup: 0, Seed: 9,
				RequestTimeout: Duration(30 * time.Second)}},
		},
		{
			name: "one workload; its name from the file",
			yaml: "concurrency: 4\n",
			want: []Workload{{Name: "w", Source: "w.yaml:1:1", API: loadgen.Generate, InputLen: 1024, OutputLen: 512,
				Concurrency: []int{4}, Rounds: DefaultRounds, Warmup: 1, Seed: 1, RequestTimeout: Duration(10 * time.Minute)}},
		},
		{
			name: "a built-in by name",
			yaml: "- decode-1\n",
			want: []Workload{decode1},
		},
		{
			name: "a command as one line and as a list",
			yaml: "- name: serving\n  command: \"{{.Python}} -m sglang.bench_serving --base-url {{.URL}} --output-file {{.ResultFile}}\"\n  timeout: 1h\n" +
				"- name: argv\n  command: [\"{{.Python}}\", \"-c\", \"print(1)\"]\n",
			want: []Workload{
				{Name: "serving", Source: "w.yaml:1:3", Command: []string{"{{.Python}} -m sglang.bench_serving --base-url {{.URL}} --output-file {{.ResultFile}}"}, Shell: true, Timeout: Duration(time.Hour)},
				{Name: "argv", Source: "w.yaml:4:3", Command: []string{"{{.Python}}", "-c", "print(1)"}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse("w.yaml", []byte(tt.yaml))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// TestParseWorkloadErrors pins each mistake to its file:line:col and key,
// with what would be right.
func TestParseWorkloadErrors(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want string
	}{
		{"unknown key with a suggestion", "- name: a\n  concurency: 4\n", `w.yaml:2:3: [0].concurency: unknown key; did you mean "concurrency"?`},
		{"zero requests", "- name: a\n  requests: 0\n", "w.yaml:2:13: [0].requests: want at least 1, got 0"},
		{"zero concurrency in a list", "- name: a\n  concurrency: [1, 0]\n", "w.yaml:2:20: [0].concurrency[1]: want at least 1, got 0"},
		{"empty level list", "- name: a\n  concurrency: []\n", "w.yaml:2:16: [0].concurrency: empty list"},
		{"a word for a number", "- name: a\n  input_len: lots\n", `w.yaml:2:14: [0].input_len: want a whole number, got "lots"`},
		{"a fraction for a count", "- name: a\n  output_len: 1.5\n", `[0].output_len: want a whole number, got "1.5"`},
		{"unknown api", "- name: a\n  api: grpc\n", `w.yaml:2:8: [0].api: want generate (SGLang's native /generate) or chat (/v1/chat/completions), got "grpc"`},
		{"closed and open loop at once", "- name: a\n  concurrency: 1\n  request_rate: 2\n", "w.yaml:3:3: [0].request_rate: give concurrency (closed loop) or request_rate (open loop), not both"},
		{"a cap without a rate", "- name: a\n  max_concurrency: 8\n", "[0].max_concurrency: max_concurrency caps an open loop"},
		{"two counts", "- name: a\n  requests: 4\n  duration: 1m\n", "w.yaml:3:3: [0].duration: give requests or duration per round, not requests and duration"},
		{"rounds alone in an open loop", "- name: a\n  request_rate: 2\n  rounds: 2\n", "[0].rounds: a round of an open loop needs requests or duration"},
		{"an open loop without a count", "- name: a\n  request_rate: 2\n", "w.yaml:2:3: [0].request_rate: an open loop needs requests or duration per round"},
		{"too many rounds", "- name: a\n  rounds: 5000\n", "w.yaml:2:11: [0].rounds: want at most 1000, got 5000"},
		{"an unknown dataset", "- name: a\n  dataset: {name: sharegtp}\n", `w.yaml:2:19: [0].dataset.name: unknown dataset "sharegtp"; want one of random, sharegpt, generated-shared-prefix, jsonl`},
		{"a dataset without a name", "- name: a\n  dataset: {range_ratio: 0.5}\n", "w.yaml:2:3: [0].dataset: a dataset needs a name"},
		{"a key of another dataset", "- name: a\n  dataset: {name: random, path: x}\n", `w.yaml:2:27: [0].dataset.path: a random dataset takes only name, range_ratio; path is for sharegpt and jsonl`},
		{"a ratio over 1", "- name: a\n  dataset: {name: random, range_ratio: 1.5}\n", `w.yaml:2:40: [0].dataset.range_ratio: want a ratio from 0 to 1`},
		{"a dataset file missing", "- name: a\n  dataset: {name: sharegpt, path: nope.json}\n", `[0].dataset.path: dataset file `},
		{"sharegpt without a path", "- name: a\n  dataset: {name: sharegpt}\n", `[0].dataset: a sharegpt dataset needs path`},
		{"gsp incomplete", "- name: a\n  dataset: {name: generated-shared-prefix, num_groups: 2}\n", `[0].dataset: a generated-shared-prefix dataset needs prompts_per_group, system_prompt_len and question_len`},
		{"gsp too large", "- name: a\n  dataset: {name: generated-shared-prefix, num_groups: 4096, prompts_per_group: 64, system_prompt_len: 10, question_len: 10}\n", `is 262144 prompts; the most is 65536`},
		{"input_len with own prompts", "- name: a\n  input_len: 8\n  dataset: {name: generated-shared-prefix, num_groups: 1, prompts_per_group: 1, system_prompt_len: 1, question_len: 1}\n", `w.yaml:2:3: [0].input_len: a generated-shared-prefix dataset brings its own prompts`},
		{"an empty slo", "- name: a\n  slo: {}\n", "[0].slo: give at least one of ttft_ms, tpot_ms, e2e_latency_ms"},
		{"a bad slo", "- name: a\n  slo: {ttft_ms: fast}\n", `w.yaml:2:18: [0].slo.ttft_ms: want a bound in milliseconds above 0`},
		{"an unknown slo", "- name: a\n  slo: {itl_ms: 5}\n", `[0].slo.itl_ms: unknown key`},
		{"flush_cache not a bool", "- name: a\n  flush_cache: no-thanks\n", `w.yaml:2:16: [0].flush_cache: want true or false, got "no-thanks"`},
		{"a dataset on a command", "- name: a\n  command: x\n  dataset: {name: random}\n", "[0].dataset: a command workload takes only"},
		{"a zero rate", "- name: a\n  request_rate: 0\n", `w.yaml:2:17: [0].request_rate: want a request rate above 0`},
		{"a bad duration", "- name: a\n  duration: 10\n", `w.yaml:2:13: [0].duration: want a duration above 0 like 30s`},
		{"no name", "- concurrency: 1\n", "w.yaml:1:3: [0]: a workload needs a name"},
		{"a bad name", "- name: my workload\n", `[0].name: want a name of letters`},
		{"a name twice", "- name: a\n- name: a\n", `w.yaml:2:3: [1]: workload "a" is defined twice (first at w.yaml:1:3)`},
		{"an unknown built-in", "- decode1\n", `w.yaml:1:3: [0]: no built-in workload "decode1"; did you mean "decode-1"?`},
		{"a mapping where a list belongs", "workloads:\n  a: 1\n", "w.yaml:2:4: workloads: want a list of workloads"},
		{"load keys on a command", "- name: a\n  command: x\n  concurrency: 2\n", "w.yaml:3:3: [0].concurrency: a command workload takes only name, description, command, timeout"},
		{"timeout without a command", "- name: a\n  timeout: 5m\n", "[0].timeout: timeout bounds a command workload; for generator requests use request_timeout"},
		{"a template that does not parse", "- name: a\n  command: \"run {{.URL\"\n", `w.yaml:2:12: [0].command: bad template: command:1: unclosed action`},
		{"a template with an unknown field", "- name: a\n  command: [run, \"{{.Url}}\"]\n", `w.yaml:2:18: [0].command[1]: bad template: command:1:2: executing "command" at <.Url>: can't evaluate field Url`},
		{"an empty command", "- name: a\n  command: \"  \"\n", "[0].command: empty command"},
		{"yaml syntax", "- name: [a\n", "w.yaml:1:9: yaml syntax:"},
		{"two documents", "- name: a\n---\n- name: b\n", "more than one YAML document"},
		{"empty file", "# nothing\n", "w.yaml: empty workload file"},
		{"an alias", "- &x {name: a}\n- *x\n", "w.yaml:2:3: [1]: YAML aliases (*name) are not supported"},
	}
	tests = append(tests, ceilingCases...)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("w.yaml", []byte(tt.yaml))
			if err == nil {
				t.Fatalf("got no error, want %q", tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got  %q\nwant %q", err, tt.want)
			}
			if !inputerr.Is(err) {
				t.Errorf("%v is not an input error (exit status 2)", err)
			}
		})
	}
}

// ceilingCases pin issue 12 defect 9: requests: 9223372036854775807 was
// an internal error, requests: 200000000 allocated 22 GB and
// input_len: 400000000 ran out of memory. Each number has a ceiling, an
// input error at its position.
var ceilingCases = []struct{ name, yaml, want string }{
	{"requests overflow an int", "- name: a\n  requests: 9223372036854775807999\n", "w.yaml:2:13: [0].requests: want at most 1000000, got 9223372036854775807999"},
	{"requests at MaxInt64", "- name: a\n  requests: 9223372036854775807\n", "w.yaml:2:13: [0].requests: want at most 1000000, got 9223372036854775807"},
	{"requests past the ceiling", "- name: a\n  requests: 200000000\n", "w.yaml:2:13: [0].requests: want at most 1000000, got 200000000"},
	{"input_len past the ceiling", "- name: a\n  input_len: 400000000\n", "w.yaml:2:14: [0].input_len: want at most 1048576, got 400000000"},
	{"concurrency past the ceiling", "- name: a\n  concurrency: [1, 100000]\n", "w.yaml:2:20: [0].concurrency[1]: want at most 10000"},
	{"prompts in flight", "- name: a\n  concurrency: 10000\n  input_len: 1000000\n", "w.yaml:3:3: [0].input_len: 10000 streams of 1000000 input tokens are 10000000000 tokens in flight; at most 268435456"},
	{"samples of a level", "- name: a\n  requests: 1000000\n  output_len: 1000\n", "w.yaml:3:3: [0].output_len: 1000000 requests of 1000 output tokens"},
	{"rounds times streams", "- name: a\n  concurrency: 10000\n  rounds: 1000\n  output_len: 1\n", "w.yaml:3:3: [0].rounds: 1000 rounds of 10000 streams are 10000000 requests in a level; at most 1000000"},
	{"an open loop's requests", "- name: a\n  request_rate: 1000\n  duration: 24h\n  output_len: 1\n", "w.yaml:3:3: [0].duration: 1000 requests/s for 24h0m0s are 86400000 requests"},
	{"a duration past a day", "- name: a\n  duration: 25h\n", "w.yaml:2:13: [0].duration: want at most 24h0m0s, got 25h"},
	{"a rate past the ceiling", "- name: a\n  request_rate: 1000000.5\n", "[0].request_rate: want at most 100000 requests/s"},
	{"too many levels", "- name: a\n  concurrency: [" + strings.Repeat("1, ", 300) + "1]\n", "[0].concurrency: more than 256 levels"},
}

func TestLoadFileMissing(t *testing.T) {
	_, err := LoadFile(filepath.Join(t.TempDir(), "nope.yaml"))
	if err == nil || !inputerr.Is(err) || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("got %v, want an input error saying no such file", err)
	}
}

func writeProfile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name+".yaml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestProfileWorkloads(t *testing.T) {
	dir := t.TempDir()
	base := writeProfile(t, dir, "base", "args:\n  model-path: m\nbench:\n  workloads:\n    - name: mine\n      concurrency: [2]\n      requests: 0\n")
	writeProfile(t, dir, "child", "extends: base\nargs:\n  tp: 2\n")
	own := writeProfile(t, dir, "own", "extends: base\nbench:\n  workloads:\n    - sweep\n    - name: x\n      requests: 3\n")
	f := &profiles.Finder{Dirs: []string{dir}}

	// The child inherits the base's workloads: the error names the base's file.
	p, err := f.Load("child")
	if err != nil {
		t.Fatal(err)
	}
	_, err = ProfileWorkloads(p)
	if want := base + ":7:17: bench.workloads[0].requests: want at least 1, got 0"; err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}

	p, err = f.Load("own")
	if err != nil {
		t.Fatal(err)
	}
	ws, err := ProfileWorkloads(p)
	if err != nil {
		t.Fatalf("ProfileWorkloads: %v", err)
	}
	if len(ws) != 2 || ws[0].Name != "sweep" || ws[1].Name != "x" || ws[1].Source != own+":5:7" {
		t.Errorf("got %+v, want sweep and x from %s", ws, own)
	}

	p, err = f.Load("demo")
	if err != nil {
		t.Fatal(err)
	}
	if ws, err := ProfileWorkloads(p); err != nil || ws != nil {
		t.Errorf("a profile without workloads: got %v, %v; want none", ws, err)
	}
}

func TestSelect(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "extra.yaml")
	if err := os.WriteFile(file, []byte("- name: e1\n- name: e2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	profile := []Workload{{Name: "mine"}, {Name: "sweep", Description: "the profile's own sweep"}}
	names := func(ws []Workload) string {
		var n []string
		for _, w := range ws {
			n = append(n, w.Name)
		}
		return strings.Join(n, ",")
	}
	tests := []struct {
		name    string
		refs    []string
		profile []Workload
		want    string
		err     string
	}{
		{"none: the profile's", nil, profile, "mine,sweep", ""},
		{"none and no profile's: decode-1", nil, nil, "decode-1", ""},
		{"names in order", []string{"decode-1", "mine"}, profile, "decode-1,mine", ""},
		{"a file", []string{file, "mine"}, profile, "e1,e2,mine", ""},
		{"unknown", []string{"swep"}, profile, "", `unknown workload "swep" (not found); did you mean "sweep"? known: mine, sweep, decode-1, sweep`},
		{"twice", []string{"mine", "mine"}, profile, "", `--workload mine: workload "mine" is already selected`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Select(tt.refs, tt.profile)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || !inputerr.Is(err) {
					t.Fatalf("got %v, want an input error containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if names(got) != tt.want {
				t.Errorf("got %s, want %s", names(got), tt.want)
			}
		})
	}
	// The profile's workload of a built-in's name wins over the built-in.
	got, _ := Select([]string{"sweep"}, profile)
	if got[0].Description != "the profile's own sweep" {
		t.Errorf("got %+v, want the profile's sweep", got[0])
	}
	if _, err := Select([]string{"nope"}, nil); !errors.Is(err, ErrNotFound) {
		t.Errorf("got %v, want ErrNotFound", err)
	}
}

func TestBuiltins(t *testing.T) {
	d, ok := Builtin("decode-1")
	if !ok || d.InputLen != 1024 || d.OutputLen != 512 || !reflect.DeepEqual(d.Concurrency, []int{1}) {
		t.Errorf("decode-1: got %+v, want one stream, 1024 in / 512 out", d)
	}
	s, ok := Builtin("sweep")
	if !ok || !reflect.DeepEqual(s.Concurrency, []int{1, 8, 32, 128}) {
		t.Errorf("sweep: got %+v, want concurrency 1, 8, 32, 128", s)
	}
	if got := s.Load(loadgen.Level{Concurrency: 32}, "m").Requests; got != 32 || s.RoundCount() != DefaultRounds {
		t.Errorf("sweep at 32: got %d requests a round, %d rounds; want one wave of 32, %d rounds", got, s.RoundCount(), DefaultRounds)
	}
	if d.RoundCount() != 5 || d.Load(loadgen.Level{Concurrency: 1}, "m").Requests != 1 {
		t.Errorf("decode-1: got %d rounds of %d, want 5 rounds of one request", d.RoundCount(), d.Load(loadgen.Level{Concurrency: 1}, "m").Requests)
	}
}
