package report

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/sglaunch/sglaunch/bench/benchtest"
)

// benchServingKeys are the keys of bench_serving's result dict, in its
// order (sglang/benchmark/serving.py, benchmark()).
var benchServingKeys = strings.Fields(`tag backend dataset_name request_rate max_concurrency sharegpt_output_len
	random_input_len random_output_len random_range_ratio server_info duration completed total_input_tokens
	total_input_text_tokens total_input_vision_tokens total_output_tokens total_output_tokens_retokenized
	request_throughput input_throughput output_throughput total_throughput
	mean_e2e_latency_ms median_e2e_latency_ms std_e2e_latency_ms p90_e2e_latency_ms p95_e2e_latency_ms p99_e2e_latency_ms
	mean_ttft_ms median_ttft_ms std_ttft_ms p90_ttft_ms p95_ttft_ms p99_ttft_ms
	mean_tpot_ms median_tpot_ms std_tpot_ms p90_tpot_ms p95_tpot_ms p99_tpot_ms
	mean_itl_ms median_itl_ms std_itl_ms p90_itl_ms p95_itl_ms p99_itl_ms
	concurrency accept_length max_output_tokens_per_s max_concurrent_requests`)

func TestWriteBenchServing(t *testing.T) {
	r := benchtest.Record("aaaa0001", 82.5, 410, benchtest.Argv(), nil)
	var out bytes.Buffer
	if err := WriteBenchServing(&out, r); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("got %d lines, want one per level:\n%s", len(lines), out.String())
	}
	if !strings.Contains(lines[0], `"request_rate": Infinity, "max_concurrency": 1`) {
		t.Errorf("a closed loop is not written as bench_serving writes it: %s", lines[0])
	}
	for i, line := range lines {
		dec := json.NewDecoder(bytes.NewReader(pythonJSON(line)))
		var keys []string
		tok, _ := dec.Token()
		for dec.More() && tok != nil {
			k, _ := dec.Token()
			keys = append(keys, k.(string))
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				t.Fatalf("line %d: %v", i, err)
			}
		}
		if !reflect.DeepEqual(keys, benchServingKeys) {
			t.Errorf("line %d keys:\ngot  %v\nwant %v", i, keys, benchServingKeys)
		}
	}
	var first map[string]any
	json.Unmarshal(pythonJSON(lines[0]), &first)
	if first["completed"] != 5.0 || first["median_ttft_ms"] != 410.0 || first["accept_length"] != 2.85 || first["backend"] != "sglang" || first["tag"] != "sglaunch aaaa0001 decode-1 c=1" {
		t.Errorf("values: %v", first)
	}
}

// pythonJSON makes JSON of a line as Python's json writes it: the closed
// loop's request rate is the bare word Infinity.
func pythonJSON(line string) []byte {
	return []byte(strings.ReplaceAll(line, ": Infinity", `: "Infinity"`))
}
