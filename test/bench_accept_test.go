package test

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBenchAcceptLengthFromRequests pins issue 20's second defect: bench
// read the accept length from /server_info's avg_spec_accept_length,
// which SGLang refreshes only every --decode-log-interval (40) decode
// batches and has none of before the first refresh: a round shorter than
// 40 decode batches recorded nothing, a longer one lost its last
// batches. The accept length now comes from each request's meta_info
// (chat: sglext.spec_tokens_details), exact: with 3 tokens per verify
// step, a 31-token request takes 10 steps (3.1, the prefill's token
// counted as SGLang counts it) and a 301-token one 100 (3.01), where the
// server's average would say 3.0 or nothing.
func TestBenchAcceptLengthFromRequests(t *testing.T) {
	t.Parallel() // its own dirs and port; accept lengths are counts, not timings
	e := newEnv(t)
	sim := map[string]string{"SGLANG_SIM_TTFT_MS": "20", "SGLANG_SIM_ITL_MS": "1", "SGLANG_SIM_LOAD_SECONDS": "0.3",
		"SGLANG_SIM_WARMUP_SECONDS": "0.1", "SGLANG_SIM_ACCEPT_LENGTH": "3"}
	simProfile(t, e, "spec", sim, `  speculative-algorithm: EAGLE
bench:
  workloads:
    - {name: short, input_len: 16, output_len: 31, concurrency: 1, requests: 3}
    - {name: long, input_len: 16, output_len: 301, concurrency: 1, requests: 2, rounds: 2}
    - {name: chat, api: chat, input_len: 16, output_len: 31, concurrency: 2, requests: 2}
`)
	p := e.Start("bench", "--profile", "spec")
	if code := p.Wait(t, benchBound); code != 0 {
		t.Fatalf("bench: exit %d\n%s\n%s", code, p.Stdout(), p.Stderr())
	}
	files, _ := filepath.Glob(filepath.Join(e.Vars["SGLAUNCH_STATE_DIR"], "records", "*.json"))
	if len(files) != 1 {
		t.Fatalf("got %d records, want 1", len(files))
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Workloads []struct {
			Levels []struct {
				AcceptLength   float64 `json:"accept_length"`
				AcceptSource   string  `json:"accept_length_source"`
				AcceptRequests int     `json:"accept_length_requests"`
				Rounds         []struct {
					AcceptLength float64 `json:"accept_length"`
				} `json:"rounds"`
			} `json:"levels"`
		} `json:"workloads"`
	}
	if err := json.Unmarshal(data, &rec); err != nil || len(rec.Workloads) != 3 {
		t.Fatalf("record: %v, %d workloads", err, len(rec.Workloads))
	}
	for i, want := range []struct {
		name     string
		accept   float64
		requests int
	}{
		{"short (30 decode batches)", 3.1, 3},
		{"long (200 decode batches per round)", 3.01, 4},
		{"chat", 3.1, 2},
	} {
		if len(rec.Workloads[i].Levels) != 1 {
			t.Fatalf("%s: %d levels", want.name, len(rec.Workloads[i].Levels))
		}
		l := rec.Workloads[i].Levels[0]
		if math.Abs(l.AcceptLength-want.accept) > 1e-9 || l.AcceptSource != "meta_info" || l.AcceptRequests != want.requests {
			t.Errorf("%s: accept length %v from %q over %d requests; want %v from meta_info over %d",
				want.name, l.AcceptLength, l.AcceptSource, l.AcceptRequests, want.accept, want.requests)
		}
		for j, r := range l.Rounds {
			if math.Abs(r.AcceptLength-want.accept) > 1e-9 {
				t.Errorf("%s round %d: accept length %v, want %v", want.name, j, r.AcceptLength, want.accept)
			}
		}
	}
}

// TestBenchPhasesFromStartupTime: the load's phase durations come from
// SGLang's own startup_time (/server_info) when the server gives it, and
// bench show says so; the log's phases stay beside them, in time order
// (issue 20, item 8).
func TestBenchPhasesFromStartupTime(t *testing.T) {
	t.Parallel() // its own dirs and port; the phases are the sim's fixed shares of its load
	e := newEnv(t)
	simProfile(t, e, "phases", fastSim, `bench:
  workloads:
    - {name: gen, input_len: 8, output_len: 4, concurrency: 1, requests: 1}
`)
	p := e.Start("bench", "--profile", "phases")
	if code := p.Wait(t, benchBound); code != 0 {
		t.Fatalf("bench: exit %d\n%s\n%s", code, p.Stdout(), p.Stderr())
	}
	files, _ := filepath.Glob(filepath.Join(e.Vars["SGLAUNCH_STATE_DIR"], "records", "*.json"))
	if len(files) != 1 {
		t.Fatalf("got %d records, want 1", len(files))
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		ID     string `json:"id"`
		Server struct {
			Phases []struct {
				At float64 `json:"at_s"`
			} `json:"phases"`
			StartupTime *struct {
				From       string             `json:"from"`
				LoadWeight float64            `json:"load_weight_s"`
				KV         float64            `json:"kv_cache_allocation_s"`
				CUDAGraph  map[string]float64 `json:"cuda_graph_s"`
			} `json:"startup_time"`
		} `json:"server"`
	}
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	st := rec.Server.StartupTime
	// The sim's load (0.5 s) puts 55 % in the weights, 2 % in the KV
	// cache, 9 % and 24 % in the prefill and decode captures.
	if st == nil || st.From != "/server_info" || math.Abs(st.LoadWeight-0.275) > 1e-9 || math.Abs(st.KV-0.01) > 1e-9 ||
		math.Abs(st.CUDAGraph["prefill"]-0.045) > 1e-9 || math.Abs(st.CUDAGraph["decode"]-0.12) > 1e-9 {
		t.Errorf("startup_time: %+v", st)
	}
	for i := 1; i < len(rec.Server.Phases); i++ {
		if rec.Server.Phases[i].At < rec.Server.Phases[i-1].At {
			t.Errorf("phases out of time order: %+v", rec.Server.Phases)
		}
	}
	stdout, stderr, code := e.Run("bench", "show", rec.ID)
	if code != 0 || !strings.Contains(stdout, "load phases") || !strings.Contains(stdout, "from SGLang's startup_time (/server_info)") ||
		!strings.Contains(stdout, "drained and ended by itself") {
		t.Errorf("bench show: exit %d\n%s%s", code, stdout, stderr)
	}
}
