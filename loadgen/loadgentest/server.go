package loadgentest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Server answers like SGLang's streaming endpoints.
type Server struct {
	TTFT time.Duration
	ITL  time.Duration
	// TokensPerChunk > 1 sends that many tokens per event, as SGLang's
	// --stream-interval and speculative decoding do; a chat chunk then
	// says its count only under stream_options.continuous_usage_stats.
	TokensPerChunk int
	// FailAfter, when > 0, makes every request's stream end abruptly
	// after that many tokens (the connection is dropped).
	FailAfter int
	// Status, when set, answers every request with this HTTP status
	// (every StatusEvery-th request when StatusEvery > 1, the others
	// stream as usual: a server shedding part of the load with 429).
	Status      int
	StatusEvery int
	// CutAfter, when > 0, ends every stream cleanly after that many
	// tokens without [DONE]: a close-delimited stream cut short, which
	// looks complete but for the terminator.
	CutAfter int
	// ShortAfter, when > 0, sends [DONE] after that many tokens, fewer
	// than asked for although ignore_eos was sent.
	ShortAfter int
	// ZeroTokens answers every generation request, after TTFT, with no
	// token: an empty first chunk and a count of 0, then [DONE], as a
	// server does for a chat request that ends before its first token.
	ZeroTokens bool
	// Hostile selects a broken or hostile answer, one of HostileModes.
	Hostile string
	// HugeLine is the size of the data: line Hostile "huge-line" sends
	// (default 256 MiB).
	HugeLine int64
	// APIKey, when set, is required as a bearer token on every path but
	// /health, as SGLang's --api-key does.
	APIKey string
	// Arrival, when set, gives a request's arrival (the kernel's receive
	// stamp of its first bytes); the schedule then runs from it rather
	// than from the handler's start, so that the server's own accept and
	// parse queue under a wave of requests is not added to the TTFT it
	// serves. A zero time: the handler's start.
	Arrival func(*http.Request) time.Time

	requests atomic.Int64
	inFlight atomic.Int64
	mu       sync.Mutex
	maxIn    int64
	arrivals []time.Time
	served   []time.Duration
}

// Requests is how many generation requests arrived.
func (s *Server) Requests() int64 { return s.requests.Load() }

// MaxInFlight is the most generation requests served at once.
func (s *Server) MaxInFlight() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.maxIn
}

// Arrivals are the arrival times of the requests, in order.
func (s *Server) Arrivals() []time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Time(nil), s.arrivals...)
}

// TakeServed returns the TTFT each streamed request was served with
// since the last call, from its arrival to the moment its first token
// was handed to the kernel: the truth a client's TTFT is measured
// against, whatever the server's own lateness.
func (s *Server) TakeServed() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.served
	s.served = nil
	return out
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	t0 := time.Now()
	if s.Arrival != nil {
		if at := s.Arrival(r); !at.IsZero() {
			t0 = at
		}
	}
	if s.APIKey != "" && r.URL.Path != "/health" && r.Header.Get("Authorization") != "Bearer "+s.APIKey {
		http.Error(w, `{"error":"Unauthorized"}`, http.StatusUnauthorized)
		return
	}
	switch r.URL.Path {
	case "/health":
		w.WriteHeader(http.StatusOK)
		return
	case "/v1/models":
		fmt.Fprint(w, `{"object":"list","data":[{"id":"stub-model","object":"model"}]}`)
		return
	case "/server_info":
		fmt.Fprint(w, `{"version":"0.0.0+stub","internal_states":[{"avg_spec_accept_length":2.5}]}`)
		return
	case "/generate", "/v1/chat/completions":
	default:
		http.NotFound(w, r)
		return
	}
	s.requests.Add(1)
	n := s.inFlight.Add(1)
	defer s.inFlight.Add(-1)
	s.mu.Lock()
	s.maxIn = max(s.maxIn, n)
	s.arrivals = append(s.arrivals, t0)
	s.mu.Unlock()
	if s.Status != 0 && (s.StatusEvery <= 1 || s.requests.Load()%int64(s.StatusEvery) == 0) {
		http.Error(w, `{"object":"error","message":"stub failure"}`, s.Status)
		return
	}
	var req struct {
		InputIDs       []int `json:"input_ids"`
		SamplingParams struct {
			MaxNewTokens int `json:"max_new_tokens"`
		} `json:"sampling_params"`
		MaxTokens int `json:"max_tokens"`
		Messages  []struct {
			Content string `json:"content"`
		} `json:"messages"`
		StreamOptions struct {
			ContinuousUsage bool `json:"continuous_usage_stats"`
		} `json:"stream_options"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, `{"error":{"message":"bad json"}}`, http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	flusher := w.(http.Flusher)
	chat := r.URL.Path != "/generate"
	out, prompt := req.SamplingParams.MaxNewTokens, len(req.InputIDs)
	if chat {
		out, prompt = req.MaxTokens, 0
		for _, m := range req.Messages {
			prompt += len(m.Content) / 4
		}
	}
	if s.Hostile != "" {
		s.hostile(w, chat)
		return
	}
	if s.ZeroTokens {
		sleepUntil(t0.Add(s.TTFT))
		zeroTokens(w, chat, prompt)
		flusher.Flush()
		return
	}
	if s.CutAfter > 0 {
		out = min(out, s.CutAfter)
	}
	short := s.ShortAfter > 0 && s.ShortAfter < out
	if short {
		out = s.ShortAfter
	}
	per := max(s.TokensPerChunk, 1)
	text := make([]byte, 0, out*5)
	buf := make([]byte, 0, 4096)
	for i := 0; i < out; {
		k := min(per, out-i)
		i += k
		sleepUntil(t0.Add(s.TTFT + time.Duration(i-1)*s.ITL))
		if s.FailAfter > 0 && i > s.FailAfter {
			panic(http.ErrAbortHandler) // drops the connection mid-stream
		}
		buf = buf[:0]
		if chat {
			// One event per chunk, as SGLang streams a verify step's
			// tokens; with continuous_usage_stats it carries the count.
			buf = append(buf, `data: {"id":"x","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"`...)
			for range k {
				buf = append(buf, " tok"...)
			}
			buf = append(buf, `"},"finish_reason":null}],"usage":`...)
			if req.StreamOptions.ContinuousUsage {
				buf = append(buf, `{"prompt_tokens":`...)
				buf = strconv.AppendInt(buf, int64(prompt), 10)
				buf = append(buf, `,"completion_tokens":`...)
				buf = strconv.AppendInt(buf, int64(i), 10)
				buf = append(buf, '}')
			} else {
				buf = append(buf, "null"...)
			}
			buf = append(buf, "}\n\n"...)
		} else {
			for range k {
				text = append(text, " tok"...)
			}
			buf = append(buf, `data: {"text":"`...)
			buf = append(buf, text...)
			buf = append(buf, `","meta_info":{"id":"x","finish_reason":null,"prompt_tokens":`...)
			buf = strconv.AppendInt(buf, int64(prompt), 10)
			buf = append(buf, `,"completion_tokens":`...)
			buf = strconv.AppendInt(buf, int64(i), 10)
			buf = append(buf, "}}\n\n"...)
		}
		if i == out && !(s.CutAfter > 0 && !short) {
			if chat {
				buf = append(buf, `data: {"id":"x","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":`...)
				buf = strconv.AppendInt(buf, int64(prompt), 10)
				buf = append(buf, `,"completion_tokens":`...)
				buf = strconv.AppendInt(buf, int64(out), 10)
				buf = append(buf, "}}\n\n"...)
			}
			buf = append(buf, "data: [DONE]\n\n"...)
		}
		if _, err := w.Write(buf); err != nil {
			return
		}
		flusher.Flush()
		if i == k {
			served := time.Since(t0)
			s.mu.Lock()
			s.served = append(s.served, served)
			s.mu.Unlock()
		}
	}
	_, _ = io.Copy(io.Discard, r.Body)
}

// sleepUntil sleeps to an absolute time, so that a late wake-up delays one
// token and not the ones after it.
func sleepUntil(t time.Time) {
	if d := time.Until(t); d > 0 {
		time.Sleep(d)
	}
}

// zeroTokens writes a complete answer of no token.
func zeroTokens(w io.Writer, chat bool, prompt int) {
	if chat {
		fmt.Fprintf(w, "data: {\"id\":\"x\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":%d,\"completion_tokens\":0}}\n\n", prompt)
		fmt.Fprintf(w, "data: {\"id\":\"x\",\"object\":\"chat.completion.chunk\",\"choices\":[],\"usage\":{\"prompt_tokens\":%d,\"completion_tokens\":0}}\n\n", prompt)
	} else {
		fmt.Fprintf(w, "data: {\"text\":\"\",\"meta_info\":{\"id\":\"x\",\"finish_reason\":{\"type\":\"stop\"},\"prompt_tokens\":%d,\"completion_tokens\":0}}\n\n", prompt)
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}
