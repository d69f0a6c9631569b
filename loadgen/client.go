package loadgen

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"
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
	ITL     []time.Duration
}

// Client sends load to one server.
type Client struct {
	base   string
	apiKey string
	http   *http.Client
}

// NewClient returns a client for the server at baseURL (http://host:port).
// apiKey, when set, is sent as a bearer token, as the server's --api-key
// requires. maxConns sizes the idle connection pool: the highest
// concurrency the client will run.
func NewClient(baseURL, apiKey string, maxConns int) *Client {
	tr := &http.Transport{
		// A benchmark measures the server, never a proxy in between.
		Proxy: nil,
		DialContext: (&net.Dialer{
			Timeout:   10 * time.Second,
			KeepAlive: 30 * time.Second,
		}).DialContext,
		MaxIdleConns:        0,
		MaxIdleConnsPerHost: max(maxConns, 2) + 4,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
		ReadBufferSize:      32 << 10,
		WriteBufferSize:     32 << 10,
	}
	return &Client{base: strings.TrimRight(baseURL, "/"), apiKey: apiKey, http: &http.Client{Transport: tr}}
}

// BaseURL is the server address the client talks to.
func (c *Client) BaseURL() string { return c.base }

// Close drops the client's idle connections.
func (c *Client) Close() { c.http.CloseIdleConnections() }

// do sends one streamed request and follows it to its end.
func (c *Client) do(ctx context.Context, api API, payload []byte, inputLen int, onToken func(int)) Sample {
	s := Sample{InputTokens: inputLen}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+api.Path(), bytes.NewReader(payload))
	if err != nil {
		s.Err = err.Error()
		return s
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	if c.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.apiKey)
	}
	st := &stream{s: &s, onToken: onToken}
	st.start = timeNow()
	s.Start = st.start
	resp, err := c.http.Do(req)
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
	s.Latency = last.Sub(st.start)
	s.OK = true
	return s
}

// reqError keeps the cause of a shortened message for errors.Is.
type reqError struct {
	msg string
	err error
}

func (e *reqError) Error() string { return e.msg }
func (e *reqError) Unwrap() error { return e.err }

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

// Get fetches path (like /server_info) and decodes its JSON into v.
func (c *Client) Get(ctx context.Context, path string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+path, nil)
	if err != nil {
		return err
	}
	if c.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.apiKey)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return &reqError{msg: "GET " + path + ": " + requestError(err), err: err}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
		return fmt.Errorf("GET %s: HTTP %d", path, resp.StatusCode)
	}
	if v == nil {
		_, err = io.Copy(io.Discard, resp.Body)
		return err
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		return fmt.Errorf("GET %s: %w", path, err)
	}
	return nil
}

// Model returns the first model the server lists at /v1/models, the name
// chat requests carry.
func (c *Client) Model(ctx context.Context) (string, error) {
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := c.Get(ctx, "/v1/models", &list); err != nil {
		return "", err
	}
	if len(list.Data) == 0 {
		return "", errors.New("GET /v1/models: no models listed")
	}
	return list.Data[0].ID, nil
}
