package sim

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Speculative decoding as SGLang streams it: one chunk per verify step,
// so with SGLANG_SIM_ACCEPT_LENGTH=2 the first chunk (prefill) carries one
// token and each later one two, sent at their last token's time;
// avg_spec_accept_length counts since start or the last /flush_cache,
// which an idle server honours and a busy one refuses with 400.
func TestSpeculativeChunks(t *testing.T) {
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

	t.Run("native", func(t *testing.T) {
		start := time.Now()
		resp := postJSON(t, p.url("/generate"), map[string]any{
			"input_ids": []int{1, 2, 3}, "sampling_params": map[string]any{"max_new_tokens": 8}, "stream": true,
		})
		defer resp.Body.Close()
		events := sseEvents(t, resp.Body)
		elapsed := time.Since(start)
		var counts []int
		for _, e := range events {
			if e == "[DONE]" {
				continue
			}
			var c struct {
				Meta struct {
					Completion int `json:"completion_tokens"`
				} `json:"meta_info"`
			}
			if err := json.Unmarshal([]byte(e), &c); err != nil {
				t.Fatal(err)
			}
			counts = append(counts, c.Meta.Completion)
		}
		// 1 from prefill, then steps of 2; the last step is cut at 8.
		if got := jsonText(counts); got != "[1,3,5,7,8]" {
			t.Errorf("completion_tokens per chunk: got %s, want [1,3,5,7,8]", got)
		}
		// The last token is due at TTFT + 7 ITL = 90 ms.
		if elapsed < 90*time.Millisecond {
			t.Errorf("stream took %v, want at least 90ms", elapsed)
		}
		if got := acceptLength(); got != 2.0 {
			t.Errorf("avg_spec_accept_length: got %v, want 2", got)
		}
	})

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
