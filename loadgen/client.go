package loadgen

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/sglaunch/sglaunch/internal/sglangapi"
)

// Sample is the outcome of one request.
type Sample struct {
	OK  bool
	Err string
	// refused is set when the connection was refused: the server is gone.
	refused bool
	// InputTokens is the prompt length as the server counted it when it
	// says (meta_info.prompt_tokens, usage.prompt_tokens), else as sent.
	InputTokens  int
	OutputTokens int
	Start        time.Time
	TTFT         time.Duration
	// Latency runs from sending the request to the arrival of the last
	// event ([DONE]).
	Latency time.Duration
	// ITL holds one sample per output token after the first: each
	// chunk's gap divided evenly among the tokens it added.
	ITL []time.Duration
	// ChunkGaps are the gaps between the chunks that added tokens, one
	// per chunk after the first; ChunkTokens the tokens each chunk added,
	// the first chunk's included.
	ChunkGaps   []time.Duration
	ChunkTokens []int
	// ZeroTokens is set on a completed request the server answered with
	// no token at all (it ended the stream with [DONE] and a count of 0,
	// as a chat request can be answered): it counts as completed, with
	// no time to first token and no inter-token samples.
	ZeroTokens bool
	// TokensEstimated is set when the server did not count the tokens of
	// each chunk (chat without per-chunk usage) and the final count was
	// spread evenly over the chunks.
	TokensEstimated bool
	// Index numbers the request within its level, warm-up excluded.
	Index int
	// Spec is the server's speculative decoding figures for the request
	// (see spec.go); zero when it sent none.
	Spec Spec
}

// Client sends load to one server.
type Client struct {
	api *sglangapi.Client
	// h1, when set, carries the streamed requests (see h1.go); nil
	// sends them through net/http (a proxy or https between).
	h1 *h1Client
}

// NewClient returns a client for the server at baseURL (http://host:port).
// apiKey, when set, is sent as a bearer token, as the server's --api-key
// requires. maxConns sizes the idle connection pool: the highest
// concurrency the client will run.
func NewClient(baseURL, apiKey string, maxConns int) *Client {
	return &Client{
		api: sglangapi.New(baseURL, sglangapi.Options{APIKey: apiKey, MaxConns: maxConns, ConnBuffer: connBuffer}),
		h1:  newH1Client(baseURL, apiKey, maxConns),
	}
}

// API is the SGLang API client the load runs on, for the calls beside the
// load (/server_info between levels) on the same connections and token.
func (c *Client) API() *sglangapi.Client { return c.api }

// BaseURL is the server address the client talks to.
func (c *Client) BaseURL() string { return c.api.BaseURL() }

// Close drops the client's idle connections.
func (c *Client) Close() {
	c.api.Close()
	if c.h1 != nil {
		c.h1.closeIdle()
	}
}

// connBuffer is each connection's read and write buffer. The stream's
// own buffer (eventReader) holds its events, so the connection's need
// only carry a request's headers and a chunk's framing; a larger read is
// passed straight through to the stream's buffer.
const connBuffer = 2 << 10

// Bounds on what a server may send for one request. A hostile or broken
// server must not take the client's memory (one event claiming
// completion_tokens 20000000 took it to 890 MB; a 256 MiB line to
// 1.2 GB): whatever passes them fails the request.
const (
	// eventBase and eventPerToken bound one SSE line or event: /generate
	// repeats the whole text so far in every event, a token is a few
	// bytes (up to six per character when JSON-escaped), and the rest of
	// an event is well under a kilobyte.
	eventBase     = 1 << 20
	eventPerToken = 256
	eventCap      = 64 << 20
	// promptSlack is how far the server's prompt count may exceed what
	// was sent (chat templates add tokens; a word may be several).
	promptSlack = 65536
)

// maxEvent is the largest event accepted for a request of want tokens.
func maxEvent(want int) int { return min(eventBase+want*eventPerToken, eventCap) }

// do sends one streamed request of want output tokens (ignore_eos is
// set: the server owes exactly that many) and follows it to its end. A
// stream that ends without [DONE], or with fewer or more tokens than
// asked for, is a failed request.
//
// The sample is returned by pointer, as request and runner.one pass it
// on: a stream's goroutine blocks in a read at the bottom of this chain,
// and Samples by value in every frame of it took its stack from 4 KiB to
// 8 KiB (8 MiB at 1024 streams).
//
// A request's clock starts when the transport begins writing it to the
// connection, not when the stream decided to send it: with thousands of
// streams starting at once, the wait for the scheduler to run the
// connection's writer is the client's own delay, not the server's, and
// counted in TTFT it put the median 2-3 % over the truth at 2048 streams.
func (c *Client) do(ctx context.Context, api API, payload []byte, inputLen, want int, onToken func(int)) *Sample {
	if c.h1 != nil {
		return c.h1.do(ctx, api, payload, inputLen, want, onToken)
	}
	return c.doHTTP(ctx, api, payload, inputLen, want, onToken)
}

// doHTTP is do through net/http. It is a function of its own so that its
// large frame is not on the stack of every stream that goes through h1.
func (c *Client) doHTTP(ctx context.Context, api API, payload []byte, inputLen, want int, onToken func(int)) *Sample {
	s := &Sample{InputTokens: inputLen}
	var wrote atomic.Pointer[time.Time] // set by the transport's writer
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{WroteHeaders: func() {
		now := timeNow()
		wrote.Store(&now)
	}})
	req, err := c.api.NewRequest(ctx, http.MethodPost, api.Path(), bytes.NewReader(payload))
	if err != nil {
		s.Err = err.Error()
		return s
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	st := &stream{s: s, onToken: onToken, want: want, maxPrompt: 16*inputLen + promptSlack}
	st.start = timeNow()
	s.Start = st.start
	resp, err := c.api.Do(req)
	if err != nil {
		s.refused = errors.Is(err, syscall.ECONNREFUSED)
		s.Err = requestError(err)
		return s
	}
	if t := wrote.Load(); t != nil {
		st.start = *t
		s.Start = st.start
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 2048))
		s.Err = fmt.Sprintf("HTTP %d: %s", resp.StatusCode, strings.TrimSpace(errorMessage(bytes.TrimSpace(msg))))
		return s
	}
	follow(st, api, resp.Body, want)
	return s
}

// follow reads a 200 response's event stream to its end into st's
// sample, which it leaves OK or with its error.
func follow(st *stream, api API, body io.Reader, want int) {
	newFollower(st, api, body, want).step()
}

// follower is follow's state between steps: a stream whose reads can
// find no data yet (errWouldBlock) is followed a step at a time, by
// whoever is told its data has come (the reactor, h1_raw_linux.go).
type follower struct {
	st   *stream
	api  API
	er   *eventReader
	want int
	last time.Time // the arrival of the last event
	done bool      // [DONE] has come
}

func newFollower(st *stream, api API, body io.Reader, want int) *follower {
	return &follower{st: st, api: api, er: newEventReader(body, maxEvent(want)), want: want}
}

// step handles the events the body holds until it has none yet (false)
// or the stream has ended (true), its sample complete.
func (f *follower) step() (ended bool) {
	st, s := f.st, f.st.s
	for {
		ev, err := f.er.next()
		if err == errWouldBlock {
			return false
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			s.Err = streamError(err)
			return true
		}
		f.last = ev.at
		if string(ev.data) == "[DONE]" {
			f.done = true
			continue
		}
		if f.done {
			continue
		}
		if f.api == Chat {
			err = st.chatChunk(ev.data, ev.at)
		} else {
			err = st.generateChunk(ev.data, ev.at)
		}
		if err != nil {
			s.Err = err.Error()
			return true
		}
	}
	st.end(f.api, f.done, f.last, f.want)
	return true
}

// streamError is the message of a stream cut by err. The error paths of
// follow and end are functions of their own: a stream's goroutine waits
// in a read below follow, and their frames there would double its stack.
func streamError(err error) string { return "reading the stream: " + requestError(err) }

// end judges a stream that ended (done: with [DONE]) and completes its
// sample: OK, or with the error that failed it.
func (st *stream) end(api API, done bool, last time.Time, want int) {
	s := st.s
	switch {
	case !st.started && done && st.counted && s.OutputTokens == 0:
		// A 0-token answer is what it is: a completion without a token,
		// not a short stream (bench_serving crashes on it).
		s.ZeroTokens = true
	case !st.started:
		s.Err = "the stream ended without any text"
		return
	case !done:
		// A close-delimited stream cut short looks like a complete one
		// but for the missing terminator.
		s.Err = fmt.Sprintf("the stream ended without [DONE] after %d of %d tokens", s.OutputTokens, want)
		return
	case want > 0 && s.OutputTokens < want:
		s.Err = fmt.Sprintf("short stream: %d of %d tokens (ignore_eos was sent)", s.OutputTokens, want)
		return
	}
	if api == Chat {
		st.settle()
	}
	s.Latency = last.Sub(st.start)
	s.OK = true
}

// requestError shortens net/http's errors to what a user can act on.
func requestError(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "request timed out"
	case errors.Is(err, context.Canceled):
		return "request cancelled"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset by the server"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "the server closed the connection mid-response"
	}
	return err.Error()
}

// Model returns the first model the server lists at /v1/models, the name
// chat requests carry.
func (c *Client) Model(ctx context.Context) (string, error) {
	return c.api.FirstModel(ctx)
}
