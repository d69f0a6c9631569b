package loadgen

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
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
	// TokensEstimated is set when the server did not count the tokens of
	// each chunk (chat without per-chunk usage) and the final count was
	// spread evenly over the chunks.
	TokensEstimated bool
	// Index numbers the request within its level, warm-up excluded.
	Index int
}

// Client sends load to one server.
type Client struct {
	api *sglangapi.Client
}

// NewClient returns a client for the server at baseURL (http://host:port).
// apiKey, when set, is sent as a bearer token, as the server's --api-key
// requires. maxConns sizes the idle connection pool: the highest
// concurrency the client will run.
func NewClient(baseURL, apiKey string, maxConns int) *Client {
	return &Client{api: sglangapi.New(baseURL, sglangapi.Options{APIKey: apiKey, MaxConns: maxConns})}
}

// API is the SGLang API client the load runs on, for the calls beside the
// load (/server_info between levels) on the same connections and token.
func (c *Client) API() *sglangapi.Client { return c.api }

// BaseURL is the server address the client talks to.
func (c *Client) BaseURL() string { return c.api.BaseURL() }

// Close drops the client's idle connections.
func (c *Client) Close() { c.api.Close() }

// do sends one streamed request and follows it to its end.
func (c *Client) do(ctx context.Context, api API, payload []byte, inputLen int, onToken func(int)) Sample {
	s := Sample{InputTokens: inputLen}
	req, err := c.api.NewRequest(ctx, http.MethodPost, api.Path(), bytes.NewReader(payload))
	if err != nil {
		s.Err = err.Error()
		return s
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	st := &stream{s: &s, onToken: onToken}
	st.start = timeNow()
	s.Start = st.start
	resp, err := c.api.Do(req)
	if err != nil {
		s.refused = errors.Is(err, syscall.ECONNREFUSED)
		s.Err = requestError(err)
		return s
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 2048))
		s.Err = fmt.Sprintf("HTTP %d: %s", resp.StatusCode, strings.TrimSpace(errorMessage(bytes.TrimSpace(msg))))
		return s
	}
	er := newEventReader(resp.Body)
	var last time.Time
	done := false
	for {
		ev, err := er.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			s.Err = "reading the stream: " + requestError(err)
			return s
		}
		last = ev.at
		if string(ev.data) == "[DONE]" {
			done = true
			continue
		}
		if done {
			continue
		}
		if api == Chat {
			err = st.chatChunk(ev.data, ev.at)
		} else {
			err = st.generateChunk(ev.data, ev.at)
		}
		if err != nil {
			s.Err = err.Error()
			return s
		}
	}
	if !st.started {
		s.Err = "the stream ended without any text"
		return s
	}
	if api == Chat {
		st.settle()
	}
	s.Latency = last.Sub(st.start)
	s.OK = true
	return s
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
