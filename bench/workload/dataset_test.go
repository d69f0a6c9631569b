package workload

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sglaunch/sglaunch/internal/inputerr"
	"github.com/sglaunch/sglaunch/loadgen"
)

// parseOne parses a one-workload file written into dir.
func parseOne(t *testing.T, dir, yaml string) Workload {
	t.Helper()
	file := filepath.Join(dir, "w.yaml")
	if err := os.WriteFile(file, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := LoadFile(file)
	if err != nil {
		t.Fatalf("LoadFile: %v", err)
	}
	return ws[0]
}

func prepared(t *testing.T, w Workload) []loadgen.Prompt {
	t.Helper()
	ws := []Workload{w}
	if err := Prepare(ws); err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	return ws[0].prompts
}

func testdataPath(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRandomDataset: lengths uniform in [L*r, L] as bench_serving draws
// them; bench_serving's default ratio 0.0 is stated in the record;
// the same seed gives the same prompts.
func TestRandomDataset(t *testing.T) {
	dir := t.TempDir()
	w := parseOne(t, dir, "name: r\ninput_len: 100\noutput_len: 40\nrequests: 500\ndataset: {name: random, range_ratio: 0.5}\n")
	ps := prepared(t, w)
	if len(ps) != 500 {
		t.Fatalf("got %d prompts, want one per request", len(ps))
	}
	minIn, maxIn, minOut, maxOut := 1<<30, 0, 1<<30, 0
	for _, p := range ps {
		if p.Text != "" {
			t.Fatalf("random prompt with text %q; want random tokens", p.Text)
		}
		minIn, maxIn = min(minIn, p.InputLen), max(maxIn, p.InputLen)
		minOut, maxOut = min(minOut, p.OutputLen), max(maxOut, p.OutputLen)
	}
	if minIn < 50 || maxIn > 100 || minOut < 20 || maxOut > 40 || maxIn-minIn < 40 || maxOut-minOut < 15 {
		t.Errorf("lengths in [%d, %d] and [%d, %d], want spread over [50, 100] and [20, 40]", minIn, maxIn, minOut, maxOut)
	}
	if again := prepared(t, parseOne(t, dir, "name: r\ninput_len: 100\noutput_len: 40\nrequests: 500\ndataset: {name: random, range_ratio: 0.5}\n")); !reflect.DeepEqual(again, ps) {
		t.Errorf("the same seed gave other prompts")
	}
	def := parseOne(t, dir, "name: r\ndataset: {name: random}\n")
	if def.Dataset.RangeRatio == nil || *def.Dataset.RangeRatio != DefaultRandomRangeRatio || !strings.Contains(def.Summary(), "range ratio 0") {
		t.Errorf("default range ratio: got %v (%s), want bench_serving's 0", def.Dataset.RangeRatio, def.Summary())
	}
}

func TestShareGPTDataset(t *testing.T) {
	dir := t.TempDir()
	data := testdataPath(t, "sharegpt-sample.json")
	w := parseOne(t, dir, "name: s\napi: chat\nrequests: 20\ndataset: {name: sharegpt, path: "+data+"}\n")
	ps := prepared(t, w)
	// 10 entries: one of a single turn and one with a 1-token answer are
	// left out, as bench_serving leaves them out.
	if len(ps) != 8 || w.Dataset.Offered != 8 || w.Dataset.Prompts != 8 || len(w.Dataset.SHA256) != 64 {
		t.Fatalf("got %d prompts, dataset %+v; want 8 with the file's digest", len(ps), w.Dataset)
	}
	for _, p := range ps {
		if p.Text == "" || p.OutputLen < 2 || p.InputLen != approxTokens(p.Text) {
			t.Errorf("prompt %+v: want a text with its completion's length", p)
		}
	}
	// output_len fixes the output, as --sharegpt-output-len does; the
	// workload file's directory anchors a relative path.
	if err := os.WriteFile(filepath.Join(dir, "sg.json"), mustRead(t, data), 0o644); err != nil {
		t.Fatal(err)
	}
	fixed := parseOne(t, dir, "name: s\noutput_len: 16\nrequests: 3\ndataset: {name: sharegpt, path: sg.json}\n")
	if fixed.Dataset.Path != filepath.Join(dir, "sg.json") {
		t.Errorf("path %s, want it beside the workload file", fixed.Dataset.Path)
	}
	fps := prepared(t, fixed)
	if len(fps) != 3 {
		t.Fatalf("got %d prompts, want the 3 requests need", len(fps))
	}
	for _, p := range fps {
		if p.OutputLen != 16 {
			t.Errorf("output %d, want the fixed 16", p.OutputLen)
		}
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestJSONLDataset(t *testing.T) {
	dir := t.TempDir()
	w := parseOne(t, dir, "name: j\nrequests: 10\ndataset: {name: jsonl, path: "+testdataPath(t, "prompts.jsonl")+"}\n")
	ps := prepared(t, w)
	outs := map[string]int{}
	for _, p := range ps {
		outs[p.Text] = p.OutputLen
	}
	want := map[string]int{
		"Describe a sunrise over the sea in one paragraph.":                  DefaultOutputLen,
		"Write a short poem about prefix caching.":                           24,
		"What does TTFT stand for, and why does it matter for chat?":         40,
		"Name two sorting algorithms and their complexity.":                  approxTokens("Merge sort runs in O(n log n) time in every case; quicksort averages O(n log n) but can degrade to O(n^2)."),
		"Explain speculative decoding to a new engineer in three sentences.": 64,
	}
	if !reflect.DeepEqual(outs, want) {
		t.Errorf("got %v\nwant %v", outs, want)
	}

	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte("\"fine prompt here\"\n{\"promt\": \"typo\"}\n"), 0o644)
	err := Prepare([]Workload{parseOne(t, dir, "name: j\nrequests: 2\ndataset: {name: jsonl, path: bad.jsonl}\n")})
	if err == nil || !inputerr.Is(err) || !strings.Contains(err.Error(), "bad.jsonl: line 2: want a JSON string") {
		t.Errorf("got %v, want an input error naming line 2", err)
	}
}

// TestGeneratedSharedPrefixDataset: G groups of P prompts, each the
// group's system prompt, "\n\n" and its own question, shuffled.
func TestGeneratedSharedPrefixDataset(t *testing.T) {
	w := parseOne(t, t.TempDir(), "name: g\noutput_len: 8\nrequests: 12\ndataset: {name: generated-shared-prefix, num_groups: 3, prompts_per_group: 4, system_prompt_len: 50, question_len: 10}\n")
	ps := prepared(t, w)
	if len(ps) != 12 {
		t.Fatalf("got %d prompts, want 3 x 4", len(ps))
	}
	groups := map[string]int{}
	order := ""
	for _, p := range ps {
		sys, q, ok := strings.Cut(p.Text, "\n\n")
		if !ok || len(strings.Fields(sys)) != 50 || len(strings.Fields(q)) != 10 || p.OutputLen != 8 {
			t.Fatalf("prompt %q (out %d): want 50 words, a blank line, 10 words, 8 out", p.Text, p.OutputLen)
		}
		if _, seen := groups[sys]; !seen {
			groups[sys] = len(groups)
		}
		order += string(rune('a' + groups[sys]))
	}
	if len(groups) != 3 {
		t.Errorf("got %d system prompts, want 3", len(groups))
	}
	if order == "aaaabbbbcccc" {
		t.Errorf("prompts in group order %s, want them shuffled as bench_serving does", order)
	}
}
