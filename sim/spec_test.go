package sim

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// Beyond TestSpeculativeChunksAndAcceptLength (fidelity_test.go): chat
// under speculative decoding with stream_options.continuous_usage_stats
// puts a usage on every content chunk, as SGLang's serving_chat.py does,
// so a client counts each verify step's tokens; and /flush_cache, which an
// idle server honours, is refused with 400 while a request runs.
func TestSpeculativeChatUsageAndBusyFlush(t *testing.T) {
	t.Parallel()
	p := startSim(t, []string{"SGLANG_SIM_ACCEPT_LENGTH=2", "SGLANG_SIM_TTFT_MS=20", "SGLANG_SIM_ITL_MS=10"},
		"--speculative-algorithm", "EAGLE")
	p.waitReady()

	acceptLength := func() any {
		t.Helper()
		_, body := get(t, p.url("/server_info"))
		var info struct {
			States []map[string]any `json:"internal_states"`
		}
		if err := json.Unmarshal(body, &info); err != nil || len(info.States) == 0 {
			t.Fatalf("server_info: %v %s", err, body)
		}
		return info.States[0]["avg_spec_accept_length"]
	}

	t.Run("chat with continuous usage", func(t *testing.T) {
		resp := postJSON(t, p.url("/v1/chat/completions"), map[string]any{
			"messages": []map[string]string{{"role": "user", "content": "hello"}}, "max_tokens": 5, "stream": true,
			"stream_options": map[string]any{"include_usage": true, "continuous_usage_stats": true},
		})
		defer resp.Body.Close()
		var counts []int
		var words []int
		for _, e := range sseEvents(t, resp.Body) {
			var c struct {
				Choices []struct {
					Delta struct {
						Content *string `json:"content"`
					} `json:"delta"`
				} `json:"choices"`
				Usage *struct {
					Completion int `json:"completion_tokens"`
				} `json:"usage"`
			}
			if e == "[DONE]" || json.Unmarshal([]byte(e), &c) != nil || len(c.Choices) == 0 {
				continue
			}
			if d := c.Choices[0].Delta.Content; d != nil && *d != "" {
				if c.Usage == nil {
					t.Fatalf("content chunk without usage under continuous_usage_stats: %s", e)
				}
				counts = append(counts, c.Usage.Completion)
				words = append(words, len(strings.Fields(*d)))
			}
		}
		if got := jsonText(counts); got != "[1,3,5]" {
			t.Errorf("usage.completion_tokens per content chunk: got %s, want [1,3,5]", got)
		}
		if got := jsonText(words); got != "[1,2,2]" {
			t.Errorf("tokens (words) per content chunk: got %s, want [1,2,2]", got)
		}
	})

	t.Run("flush_cache", func(t *testing.T) {
		// Busy: a long stream is running, the flush is refused.
		resp := postJSON(t, p.url("/generate"), map[string]any{
			"input_ids": []int{1}, "sampling_params": map[string]any{"max_new_tokens": 100}, "stream": true,
		})
		defer resp.Body.Close()
		busy, err := http.Post(p.url("/flush_cache"), "", nil)
		if err != nil {
			t.Fatal(err)
		}
		busy.Body.Close()
		if busy.StatusCode != http.StatusBadRequest {
			t.Errorf("flush while a request runs: got %d, want 400", busy.StatusCode)
		}
		sseEvents(t, resp.Body)
		idle, err := http.Post(p.url("/flush_cache"), "", nil)
		if err != nil {
			t.Fatal(err)
		}
		idle.Body.Close()
		if idle.StatusCode != http.StatusOK {
			t.Errorf("flush when idle: got %d, want 200", idle.StatusCode)
		}
		if got := acceptLength(); got != nil {
			t.Errorf("avg_spec_accept_length after a flush: got %v, want null", got)
		}
	})
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestAcceptLengthRefreshedEveryDecodeLogInterval pins issue 20's second
// defect in the sim: SGLang moves its accept counters into the totals
// behind /server_info's avg_spec_accept_length only every
// --decode-log-interval (40) decode batches, and has none before the
// first; the sim refreshed it on every step, so no test saw a short round
// record nothing. Each request's meta_info is exact all along.
func TestAcceptLengthRefreshedEveryDecodeLogInterval(t *testing.T) {
	t.Parallel()
	p := startSim(t, []string{"SGLANG_SIM_ACCEPT_LENGTH=2", "SGLANG_SIM_TTFT_MS=5", "SGLANG_SIM_ITL_MS=1"},
		"--speculative-algorithm", "EAGLE")
	p.waitReady()
	avg := func() any {
		t.Helper()
		_, body := get(t, p.url("/server_info"))
		var info struct {
			States []map[string]any `json:"internal_states"`
		}
		if err := json.Unmarshal(body, &info); err != nil || len(info.States) == 0 {
			t.Fatalf("server_info: %v %s", err, body)
		}
		return info.States[0]["avg_spec_accept_length"]
	}
	stream := func(tokens int) map[string]any {
		t.Helper()
		resp := postJSON(t, p.url("/generate"), map[string]any{
			"input_ids": []int{1}, "sampling_params": map[string]any{"max_new_tokens": tokens}, "stream": true,
		})
		defer resp.Body.Close()
		events := sseEvents(t, resp.Body)
		var ev struct {
			Meta map[string]any `json:"meta_info"`
		}
		if err := json.Unmarshal([]byte(events[len(events)-2]), &ev); err != nil {
			t.Fatal(err)
		}
		return ev.Meta
	}
	// 61 tokens: the prefill's, then 30 verify steps of 2 (30 batches < 40).
	meta := stream(61)
	if meta["spec_verify_ct"] != 30.0 || meta["spec_accept_length"] != 61.0/30 {
		t.Errorf("short request's meta_info: verify_ct %v, accept_length %v; want 30 and 61/30", meta["spec_verify_ct"], meta["spec_accept_length"])
	}
	if got := avg(); got != nil {
		t.Errorf("avg_spec_accept_length after 30 decode batches: got %v, want none (first refresh at 40)", got)
	}
	// 20 more steps: batch 40 rolls the counters over, 10 are left out.
	stream(41)
	if got := avg(); got != 2.0 {
		t.Errorf("avg_spec_accept_length after 50 decode batches: got %v, want 2 (refreshed at the 40th)", got)
	}
}
