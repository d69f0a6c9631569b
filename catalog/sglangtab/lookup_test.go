package sglangtab

import (
	"strings"
	"testing"
)

// TestEmbeddedTablesHaveProvenance: every row of every embedded table
// names the SGLang file and line it came from, and every set its version
// and commit; a row without one fails here.
func TestEmbeddedTablesHaveProvenance(t *testing.T) {
	all, err := All()
	if err != nil {
		t.Fatal(err)
	}
	if len(all) < 2 {
		t.Fatalf("got %d table sets, want a release and main", len(all))
	}
	for _, ts := range all {
		if err := Check(ts); err != nil {
			t.Errorf("SGLang %s: %v", ts.Meta.Version, err)
		}
		if len(ts.EnvWrites) == 0 || len(ts.ServerArgs) == 0 || len(ts.EnvReads) == 0 || len(ts.Metrics) == 0 || len(ts.Endpoints) == 0 || len(ts.LogFormats) == 0 {
			t.Errorf("SGLang %s: an empty table", ts.Meta.Version)
		}
	}
}

func TestCheckRejectsRowWithoutSource(t *testing.T) {
	ts := &Tables{Meta: Meta{Version: "0.5.4", Commit: strings.Repeat("a", 40)}}
	ts.EnvWrites = []EnvWrite{{Name: "X", Source: "python/sglang/srt/a.py:3"}, {Name: "Y"}}
	if err := Check(ts); err == nil || !strings.Contains(err.Error(), "env_writes row 1") {
		t.Errorf("got %v, want env_writes row 1 rejected", err)
	}
	ts.EnvWrites = ts.EnvWrites[:1]
	ts.Metrics = []Metric{{Name: "m", Source: "python/sglang/srt/a.py"}}
	if err := Check(ts); err == nil || !strings.Contains(err.Error(), "metrics row 0") {
		t.Errorf("got %v, want a source without a line rejected", err)
	}
	ts.Metrics = nil
	if err := Check(ts); err != nil {
		t.Errorf("got %v for a set with provenance", err)
	}
	ts.Meta.Commit = "abc"
	if err := Check(ts); err == nil {
		t.Error("a set with a short commit passed")
	}
}

func TestPick(t *testing.T) {
	set := func(v string) *Tables { return &Tables{Meta: Meta{Version: v}} }
	all := []*Tables{set("0.5.4.post3"), set("0.5.10"), set("0.5.19.dev0")}
	tests := []struct {
		asked, want string
		exact       bool
		warn        string
	}{
		{"0.5.10", "0.5.10", true, ""},
		{"0.5.10+sim", "0.5.10", true, ""},
		{"0.5.4.post3", "0.5.4.post3", true, ""},
		{"0.5.9", "0.5.4.post3", false, "nearest older"},
		{"0.5.4.post4", "0.5.4.post3", false, "nearest older"},
		{"0.5.18", "0.5.10", false, "nearest older"},
		{"0.5.19", "0.5.19.dev0", false, "nearest older"},
		{"0.5.19rc1", "0.5.19.dev0", false, "nearest older"},
		{"0.5.4", "0.5.4.post3", false, "or older; using the oldest"},
		{"", "0.5.19.dev0", false, "version unknown"},
		{"banana", "0.5.19.dev0", false, "not understood"},
	}
	for _, tt := range tests {
		t.Run(tt.asked, func(t *testing.T) {
			c := pick(all, tt.asked)
			if c.Meta.Version != tt.want || c.Exact != tt.exact || (tt.warn == "") != (c.Warn == "") || !strings.Contains(c.Warn, tt.warn) {
				t.Errorf("pick(%q) = %s exact=%v warn=%q, want %s exact=%v warn ~%q", tt.asked, c.Meta.Version, c.Exact, c.Warn, tt.want, tt.exact, tt.warn)
			}
		})
	}
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	ts := &Tables{Meta: Meta{Version: "1.2.3", Ref: "v1.2.3", Commit: strings.Repeat("b", 40), Date: "2026-01-02"}}
	ts.EnvWrites = []EnvWrite{{Name: "A", How: "assign", Function: "f", When: []string{"x"}, Requires: [][]string{{"d"}}, Source: "python/sglang/a.py:1"}}
	ts.Endpoints = []Endpoint{{Path: "/health", Methods: []string{"GET"}, Function: "health", Source: "python/sglang/a.py:2"}}
	files, err := Encode(ts)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Decode(files)
	if err != nil {
		t.Fatal(err)
	}
	if back.Meta != ts.Meta || len(back.EnvWrites) != 1 || back.EnvWrites[0].Requires[0][0] != "d" || back.Endpoints[0].Path != "/health" {
		t.Errorf("round trip: got %+v", back)
	}
	files["metrics.json"] = []byte(strings.Replace(string(files["metrics.json"]), "1.2.3", "9.9.9", 1))
	if _, err := Decode(files); err == nil || !strings.Contains(err.Error(), "metrics.json") {
		t.Errorf("a table from another tree: got %v", err)
	}
}

// TestStartupLinesInEveryVersion: the start-up lines health's phase
// tracker matches (health/phase.go) are in the source of every SGLang
// version with tables; a regeneration that loses one fails here.
func TestStartupLinesInEveryVersion(t *testing.T) {
	all, err := All()
	if err != nil {
		t.Fatal(err)
	}
	for _, ts := range all {
		seen := map[string]bool{}
		for _, f := range ts.LogFormats {
			seen[f.Marker] = true
		}
		for _, m := range []string{"Load weight begin", "Load weight end", "KV Cache is allocated", "Capture ", "The server is fired up and ready to roll!"} {
			if !seen[m] {
				t.Errorf("SGLang %s: no log line with %q", ts.Meta.Version, m)
			}
		}
	}
}
