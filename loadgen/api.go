package loadgen

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
)

// API is the endpoint a load is sent to.
type API string

const (
	// Generate is SGLang's native POST /generate with input_ids.
	Generate API = "generate"
	// Chat is the OpenAI-compatible POST /v1/chat/completions.
	Chat API = "chat"
)

// APIs lists the known APIs.
var APIs = []API{Generate, Chat}

// Path is the endpoint's path.
func (a API) Path() string {
	if a == Chat {
		return "/v1/chat/completions"
	}
	return "/generate"
}

// Valid reports whether a is a known API.
func (a API) Valid() bool { return a == Generate || a == Chat }

// Random input token ids are drawn from [tokenLow, tokenHigh): clear of
// the special tokens at the start of common vocabularies and inside every
// vocabulary of 32k or more.
const (
	tokenLow  = 1000
	tokenHigh = 30000
)

// words make chat prompts: each is four bytes with its leading space,
// about one token for a BPE tokenizer and exactly one for the simulated
// server's count. The server's own count (usage.prompt_tokens) is what the
// metrics use.
var words = strings.Fields("the and for are but not you all any can had her was one our out day get has him his how man new now old see two way who boy did its let put say she too use")

// Prompt is one request's input: a text, sent as /generate's text or as
// the chat message, or (Text empty) InputLen random tokens.
type Prompt struct {
	Text string
	// InputLen is the prompt's length in tokens: exact for random
	// tokens, an estimate for a text (the server's count is what the
	// metrics use).
	InputLen  int
	OutputLen int
}

// body builds the request body for one request. Chat asks for usage on
// every chunk (continuous_usage_stats, which SGLang honours), so that a
// chunk carrying several tokens is counted as such, and for SGLang's
// per-request speculative decoding figures (return_spec_tokens_details;
// a server without them ignores the field).
func body(api API, model string, p Prompt, outputLen int, rng *rand.Rand) []byte {
	b := make([]byte, 0, 64+max(p.InputLen*6, len(p.Text)+len(p.Text)/8))
	if api == Chat {
		b = append(b, `{`...)
		if model != "" {
			m, _ := json.Marshal(model)
			b = append(b, `"model":`...)
			b = append(b, m...)
			b = append(b, ',')
		}
		b = append(b, `"messages":[{"role":"user","content":`...)
		if p.Text != "" {
			b = appendJSONString(b, p.Text)
		} else {
			b = append(b, '"')
			for range p.InputLen {
				b = append(b, ' ')
				b = append(b, words[rng.IntN(len(words))]...)
			}
			b = append(b, '"')
		}
		b = append(b, `}],"max_tokens":`...)
		b = strconv.AppendInt(b, int64(outputLen), 10)
		b = append(b, `,"temperature":0,"ignore_eos":true,"stream":true,"stream_options":{"include_usage":true,"continuous_usage_stats":true},"return_spec_tokens_details":true}`...)
		return b
	}
	if p.Text != "" {
		b = append(b, `{"text":`...)
		b = appendJSONString(b, p.Text)
		b = append(b, `,"sampling_params":{"max_new_tokens":`...)
		b = strconv.AppendInt(b, int64(outputLen), 10)
		b = append(b, `,"ignore_eos":true,"temperature":0},"stream":true}`...)
		return b
	}
	b = append(b, `{"input_ids":[`...)
	for i := range p.InputLen {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(tokenLow+rng.IntN(tokenHigh-tokenLow)), 10)
	}
	b = append(b, `],"sampling_params":{"max_new_tokens":`...)
	b = strconv.AppendInt(b, int64(outputLen), 10)
	b = append(b, `,"ignore_eos":true,"temperature":0},"stream":true}`...)
	return b
}

// appendJSONString appends s as a JSON string.
func appendJSONString(b []byte, s string) []byte {
	q, _ := json.Marshal(s)
	return append(b, q...)
}

// stream follows one streamed response and fills its sample.
type stream struct {
	s       *Sample
	start   time.Time
	last    time.Time // arrival of the last chunk that added tokens
	prev    int       // output tokens so far
	started bool      // a chunk with text has arrived
	counted bool      // the server has said a count of output tokens
	// uncounted is the number of chat chunks whose token count the
	// server did not say (no usage on the chunk): each was taken as one.
	uncounted int
	onToken   func(n int)
	// onMerge, when set, is told when a chunk with tokens carries the
	// same arrival stamp as the one before it: one read brought both.
	onMerge func()
	// want is the number of tokens asked for: a count above it is a
	// protocol error (0: no bound); maxPrompt bounds the prompt count
	// the server reports (0: none).
	want, maxPrompt int
}

// errProtocol: the server's stream breaks the protocol's promises (a
// token or prompt count it cannot have).
var errProtocol = errors.New("protocol error")

// checkCounts rejects token counts the server cannot have produced:
// negative ones, more output than was asked for, a prompt far longer
// than the one sent.
func (st *stream) checkCounts(completion, prompt int) error {
	switch {
	case completion < 0 || prompt < 0:
		return fmt.Errorf("%w: negative token count (completion %d, prompt %d)", errProtocol, completion, prompt)
	case st.want > 0 && completion > st.want:
		return fmt.Errorf("%w: the server claims %d completion tokens, %d were asked for", errProtocol, completion, st.want)
	case st.maxPrompt > 0 && prompt > st.maxPrompt:
		return fmt.Errorf("%w: the server claims %d prompt tokens, far more than were sent", errProtocol, prompt)
	}
	return nil
}

// tokens accounts for a chunk that brought the output to total tokens,
// the way bench_serving does: the first such chunk sets TTFT; each later
// one adds its gap to ITL once per new token, split evenly among them
// (a chunk of several tokens, as under speculative decoding, gives
// several equal samples), and the gap itself to the chunk gaps.
func (st *stream) tokens(at time.Time, total int) {
	if !st.started {
		st.started = true
		st.s.TTFT = at.Sub(st.start)
		st.last, st.prev = at, total
		st.s.ChunkTokens = append(st.s.ChunkTokens, total)
		st.onToken(total)
		return
	}
	n := total - st.prev
	if n <= 0 {
		return
	}
	gap := at.Sub(st.last)
	if gap == 0 && st.onMerge != nil {
		st.onMerge()
	}
	st.s.ChunkGaps = append(st.s.ChunkGaps, gap)
	st.s.ChunkTokens = append(st.s.ChunkTokens, n)
	per := gap / time.Duration(n)
	for range n {
		st.s.ITL = append(st.s.ITL, per)
	}
	st.last, st.prev = at, total
	st.onToken(n)
}

// settle reconciles a chat stream whose chunks carried no token counts
// (a server without continuous_usage_stats) with the final usage: when
// that counts more tokens than chunks, the tokens after the first chunk
// are spread evenly over the later chunks and the ITL samples rebuilt
// from the chunk gaps, and the sample is marked as estimated.
func (st *stream) settle() {
	s := st.s
	g := len(s.ChunkGaps)
	if st.uncounted == 0 || g == 0 || st.uncounted != len(s.ChunkTokens) || s.OutputTokens <= st.prev {
		return
	}
	extra := s.OutputTokens - s.ChunkTokens[0]
	s.ITL = s.ITL[:0]
	for j, gap := range s.ChunkGaps {
		n := (j+1)*extra/g - j*extra/g
		s.ChunkTokens[j+1] = n
		for range n {
			s.ITL = append(s.ITL, gap/time.Duration(n))
		}
	}
	s.TokensEstimated = true
}

// generateChunk reads one /generate event: text is cumulative, and
// meta_info.completion_tokens counts the tokens so far.
func (st *stream) generateChunk(data []byte, at time.Time) error {
	hasText, completion, prompt := false, -1, -1
	var errRaw []byte
	var inner error
	err := eachMember(data, func(k, v []byte) bool {
		switch string(k) {
		case "text":
			hasText = len(v) > 2 && v[0] == '"'
		case "meta_info":
			// The walk's own error and a count's are kept apart: a count
			// that stops the walk must not be overwritten by its nil.
			var bad error
			walk := eachMember(v, func(k, v []byte) bool {
				switch string(k) {
				case "completion_tokens":
					completion, bad = scanInt(v)
				case "prompt_tokens":
					prompt, bad = scanInt(v)
				default:
					bad = st.specMember(k, v)
				}
				return bad == nil
			})
			inner = cmp.Or(bad, walk)
		case "error":
			errRaw = v
		}
		return inner == nil
	})
	if err == nil {
		err = inner
	}
	if err != nil {
		return fmt.Errorf("bad event %.120q: %w", data, err)
	}
	if errRaw != nil {
		return fmt.Errorf("server error: %s", errorMessage(errRaw))
	}
	if hasText && completion < 0 {
		completion = st.prev + 1
	}
	if err := st.checkCounts(max(completion, 0), max(prompt, 0)); err != nil {
		return err
	}
	st.counted = st.counted || completion >= 0
	if prompt >= 0 {
		st.s.InputTokens = prompt
	}
	if hasText {
		st.tokens(at, completion)
		st.s.OutputTokens = completion
	}
	return nil
}

type chatChunk struct {
	Object  string `json:"object"`
	Message string `json:"message"`
	Error   json.RawMessage
	Choices []struct {
		Delta struct {
			Content          *string `json:"content"`
			ReasoningContent *string `json:"reasoning_content"`
		} `json:"delta"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
	Sglext *struct {
		SpecTokensDetails json.RawMessage `json:"spec_tokens_details"`
	} `json:"sglext"`
}

// chatChunk reads one /v1/chat/completions event. A chunk with content
// (or reasoning content) is one token unless it carries its own usage;
// the final usage chunk gives the exact counts.
func (st *stream) chatChunk(data []byte, at time.Time) error {
	var c chatChunk
	if err := json.Unmarshal(data, &c); err != nil {
		return fmt.Errorf("bad event %.120q: %w", data, err)
	}
	if len(c.Error) > 0 && string(c.Error) != "null" {
		return fmt.Errorf("server error: %s", errorMessage(c.Error))
	}
	if c.Object == "error" {
		return fmt.Errorf("server error: %s", c.Message)
	}
	if c.Usage != nil {
		if err := st.checkCounts(c.Usage.CompletionTokens, c.Usage.PromptTokens); err != nil {
			return err
		}
		st.counted = true
	}
	text := false
	for _, ch := range c.Choices {
		d := ch.Delta
		if (d.Content != nil && *d.Content != "") || (d.ReasoningContent != nil && *d.ReasoningContent != "") {
			text = true
		}
	}
	if text {
		total := st.prev + 1
		if c.Usage != nil && c.Usage.CompletionTokens > st.prev {
			total = c.Usage.CompletionTokens
		} else if c.Usage == nil {
			st.uncounted++
		}
		if err := st.checkCounts(total, 0); err != nil {
			return err
		}
		st.tokens(at, total)
		st.s.OutputTokens = total
	}
	if c.Sglext != nil {
		st.chatSpec(c.Sglext.SpecTokensDetails)
	}
	if c.Usage != nil && len(c.Choices) == 0 {
		st.s.OutputTokens = c.Usage.CompletionTokens
		st.s.InputTokens = c.Usage.PromptTokens
	}
	return nil
}

// errorMessage digs the message out of an error value: a string, or an
// object with a message.
func errorMessage(raw []byte) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	switch t := v.(type) {
	case string:
		return t
	case map[string]any:
		if m, ok := t["message"].(string); ok {
			return m
		}
		if d, ok := t["detail"].(string); ok {
			return d
		}
	}
	return string(raw)
}

// RandomText is n words of the vocabulary chat prompts are made of, each
// with its leading space: about one token each for a BPE tokenizer, and
// exactly one in the simulated server's count.
func RandomText(rng *rand.Rand, n int) string {
	var b strings.Builder
	b.Grow(n * 4)
	for range n {
		b.WriteByte(' ')
		b.WriteString(words[rng.IntN(len(words))])
	}
	return b.String()
}
