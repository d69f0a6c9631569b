package loadgen

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func at(ms int) time.Time { return time.Unix(0, 0).Add(time.Duration(ms) * time.Millisecond) }

func TestGenerateStream(t *testing.T) {
	var s Sample
	tokens := 0
	st := &stream{s: &s, start: at(0), onToken: func(n int) { tokens += n }}
	chunks := []struct {
		data string
		at   int
	}{
		{`{"text":"","meta_info":{"completion_tokens":0,"prompt_tokens":7}}`, 50}, // no text: not the first token
		{`{"text":" a","meta_info":{"completion_tokens":1,"prompt_tokens":7}}`, 100},
		{`{"text":" a b","meta_info":{"completion_tokens":2,"prompt_tokens":7}}`, 110},
		{`{"text":" a b c d","meta_info":{"completion_tokens":4,"prompt_tokens":7}}`, 130}, // two tokens: 10 ms each
		{`{"text":" a b c d","meta_info":{"completion_tokens":4,"prompt_tokens":7}}`, 135}, // nothing new: ignored
		{`{"text":" a b c d e","meta_info":{"completion_tokens":5,"prompt_tokens":7}}`, 145},
	}
	for _, c := range chunks {
		if err := st.generateChunk([]byte(c.data), at(c.at)); err != nil {
			t.Fatalf("chunk %s: %v", c.data, err)
		}
	}
	if s.TTFT != 100*time.Millisecond {
		t.Errorf("TTFT: got %v, want 100ms", s.TTFT)
	}
	want := []time.Duration{10 * time.Millisecond, 10 * time.Millisecond, 10 * time.Millisecond, 15 * time.Millisecond}
	if !slices.Equal(s.ITL, want) {
		t.Errorf("ITL: got %v, want %v", s.ITL, want)
	}
	if s.OutputTokens != 5 || s.InputTokens != 7 || tokens != 5 {
		t.Errorf("got output %d, input %d, streamed %d; want 5, 7, 5", s.OutputTokens, s.InputTokens, tokens)
	}
}

func TestChatStream(t *testing.T) {
	var s Sample
	st := &stream{s: &s, start: at(0), onToken: func(int) {}}
	chunks := []struct {
		data string
		at   int
	}{
		{`{"choices":[{"delta":{"role":"assistant","content":""}}],"usage":null}`, 90},
		{`{"choices":[{"delta":{"content":" a"}}],"usage":null}`, 100},
		{`{"choices":[{"delta":{"reasoning_content":" b"}}],"usage":null}`, 110},
		{`{"choices":[{"delta":{"content":" c"}}],"usage":null}`, 125},
		{`{"choices":[{"delta":{"content":null},"finish_reason":"length"}],"usage":null}`, 126},
		{`{"choices":[],"usage":{"prompt_tokens":9,"completion_tokens":3}}`, 127},
	}
	for _, c := range chunks {
		if err := st.chatChunk([]byte(c.data), at(c.at)); err != nil {
			t.Fatalf("chunk %s: %v", c.data, err)
		}
	}
	if s.TTFT != 100*time.Millisecond || !slices.Equal(s.ITL, []time.Duration{10 * time.Millisecond, 15 * time.Millisecond}) {
		t.Errorf("got TTFT %v ITL %v, want 100ms [10ms 15ms]", s.TTFT, s.ITL)
	}
	if s.OutputTokens != 3 || s.InputTokens != 9 {
		t.Errorf("got output %d input %d, want 3 and 9 from usage", s.OutputTokens, s.InputTokens)
	}
}

func TestChatStreamContinuousUsage(t *testing.T) {
	var s Sample
	st := &stream{s: &s, start: at(0), onToken: func(int) {}}
	for _, c := range []struct {
		data string
		at   int
	}{
		{`{"choices":[{"delta":{"content":" a"}}],"usage":{"prompt_tokens":4,"completion_tokens":2}}`, 100},
		{`{"choices":[{"delta":{"content":" b c d"}}],"usage":{"prompt_tokens":4,"completion_tokens":5}}`, 130},
	} {
		if err := st.chatChunk([]byte(c.data), at(c.at)); err != nil {
			t.Fatal(err)
		}
	}
	want := []time.Duration{10 * time.Millisecond, 10 * time.Millisecond, 10 * time.Millisecond}
	if !slices.Equal(s.ITL, want) || s.OutputTokens != 5 {
		t.Errorf("got ITL %v output %d, want %v and 5", s.ITL, s.OutputTokens, want)
	}
}

func TestStreamErrors(t *testing.T) {
	tests := []struct {
		name string
		chat bool
		data string
		want string
	}{
		{"native error object", false, `{"error":{"message":"context length exceeded"}}`, "context length exceeded"},
		{"native error string", false, `{"error":"aborted"}`, "aborted"},
		{"native garbage", false, `{"text":`, "bad event"},
		{"openai error", true, `{"object":"error","message":"bad model","code":400}`, "bad model"},
		{"openai error field", true, `{"error":{"message":"overloaded"}}`, "overloaded"},
		{"openai garbage", true, `not json`, "bad event"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s Sample
			st := &stream{s: &s, onToken: func(int) {}}
			var err error
			if tt.chat {
				err = st.chatChunk([]byte(tt.data), at(1))
			} else {
				err = st.generateChunk([]byte(tt.data), at(1))
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestBodies(t *testing.T) {
	rngA, rngB := newRand(3, 1), newRand(3, 1)
	a, b := body(Generate, "", Prompt{InputLen: 5}, 7, rngA), body(Generate, "", Prompt{InputLen: 5}, 7, rngB)
	if string(a) != string(b) {
		t.Errorf("same seed, different bodies:\n%s\n%s", a, b)
	}
	s := string(a)
	for _, want := range []string{`"input_ids":[`, `"max_new_tokens":7`, `"ignore_eos":true`, `"temperature":0`, `"stream":true`} {
		if !strings.Contains(s, want) {
			t.Errorf("generate body %s lacks %s", s, want)
		}
	}
	if n := strings.Count(s[:strings.Index(s, "]")], ",") + 1; n != 5 {
		t.Errorf("got %d input ids, want 5: %s", n, s)
	}
	c := string(body(Chat, "m1", Prompt{InputLen: 4}, 9, newRand(1, 1)))
	for _, want := range []string{`"model":"m1"`, `"messages":[{"role":"user","content":"`, `"max_tokens":9`, `"stream_options":{"include_usage":true,"continuous_usage_stats":true}`, `"ignore_eos":true`} {
		if !strings.Contains(c, want) {
			t.Errorf("chat body %s lacks %s", c, want)
		}
	}
}

// TestStreamNotesChunksOfOneRead: two chunks with tokens and one stamp
// came in one read: the stream says so (the reactor shortens its pause).
func TestStreamNotesChunksOfOneRead(t *testing.T) {
	var s Sample
	merges := 0
	st := &stream{s: &s, start: at(0), onToken: func(int) {}, onMerge: func() { merges++ }}
	st.tokens(at(50), 1)
	st.tokens(at(60), 2)
	st.tokens(at(60), 3)
	st.tokens(at(60), 3) // no new token: no chunk of its own
	if merges != 1 {
		t.Errorf("%d merges noted, want 1", merges)
	}
}
