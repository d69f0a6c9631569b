package sglangapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// drainBytes is how much of a body is read before a connection is reused
// or dropped: /health's is empty.
const drainBytes = 64 << 10

// Health asks /health once, within the health timeout. nil means 200. A
// server that answers otherwise gives a *StatusError (503: still loading,
// shutting down, or a rank that did not answer); one that does not answer
// gives net/http's error (errors.Is(err, syscall.ECONNREFUSED) while the
// port is not bound yet, a timeout while a rank hangs).
func (c *Client) Health(ctx context.Context) error {
	return c.call(ctx, c.health, http.MethodGet, "/health")
}

// Up asks whether the server is up without making it generate: /ready
// where the server has it, else (a 404) /v1/models, which SGLang answers
// from its tokenizer manager once its HTTP server listens. /health, by
// contrast, runs a one-token generation on the GPUs, queued behind real
// traffic. path is the endpoint asked last; nil means 200, and the
// errors are Health's (a *StatusError, or net/http's when nothing
// answers). Within the info timeout.
func (c *Client) Up(ctx context.Context) (path string, err error) {
	for _, path = range []string{"/ready", "/v1/models"} {
		if err = c.call(ctx, c.info, http.MethodGet, path); StatusCode(err) != http.StatusNotFound {
			break
		}
	}
	return path, err
}

// call sends one bodiless request within timeout and reads the answer to
// its end (so the connection can be reused); nil means 200.
func (c *Client) call(ctx context.Context, timeout time.Duration, method, path string) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	resp, err := c.send(ctx, method, path)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, io.LimitReader(resp.Body, drainBytes)); err != nil {
		return fmt.Errorf("%s %s: %w", method, resp.Request.URL, err)
	}
	return nil
}

// send sends one bodiless request; the response is 200 (else a
// *StatusError, the body closed) and the caller closes its body.
func (c *Client) send(ctx context.Context, method, path string) (*http.Response, error) {
	req, err := c.NewRequest(ctx, method, path, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, err
	}
	if err := CheckResponse(resp); err != nil {
		resp.Body.Close()
		return nil, err
	}
	return resp, nil
}

// GetJSON fetches path within the info timeout and decodes its JSON body,
// at most Options.MaxBodyBytes of it, into v.
func (c *Client) GetJSON(ctx context.Context, path string, v any) error {
	ctx, cancel := context.WithTimeout(ctx, c.info)
	defer cancel()
	resp, err := c.send(ctx, http.MethodGet, path)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	req := resp.Request
	body, err := io.ReadAll(io.LimitReader(resp.Body, c.maxBody+1))
	if err != nil {
		return fmt.Errorf("GET %s: %w", req.URL, err)
	}
	if int64(len(body)) > c.maxBody {
		return fmt.Errorf("GET %s: %w (%d bytes)", req.URL, ErrBodyTooLarge, c.maxBody)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("GET %s: %w", req.URL, err)
	}
	return nil
}

// getWithFallback reads the first of paths that the server has: a 404
// moves on to the next (an older SGLang's name), any other failure ends
// the search. It returns the path that answered.
func (c *Client) getWithFallback(ctx context.Context, paths ...string) (map[string]any, string, error) {
	var err error
	for _, p := range paths {
		var m map[string]any
		if err = c.GetJSON(ctx, p, &m); err == nil {
			return m, p, nil
		}
		if StatusCode(err) != http.StatusNotFound {
			break
		}
	}
	return nil, "", err
}

// ServerInfo returns the server's /server_info (/get_server_info on
// SGLang before the rename, asked on a 404): every server argument by
// field name (tp_size, api_key...), scheduler facts, internal_states and
// version. path is the endpoint that answered.
func (c *Client) ServerInfo(ctx context.Context) (info map[string]any, path string, err error) {
	return c.getWithFallback(ctx, "/server_info", "/get_server_info")
}

// ModelInfo returns the server's /model_info (/get_model_info on older
// SGLang, asked on a 404): model_path, is_generation, weight_version...
// path is the endpoint that answered.
func (c *Client) ModelInfo(ctx context.Context) (info map[string]any, path string, err error) {
	return c.getWithFallback(ctx, "/model_info", "/get_model_info")
}

// Model is one entry of /v1/models.
type Model struct {
	ID          string `json:"id"` // the name chat requests carry
	Root        string `json:"root,omitempty"`
	MaxModelLen int    `json:"max_model_len,omitempty"`
}

// Models lists the served models (/v1/models).
func (c *Client) Models(ctx context.Context) ([]Model, error) {
	var list struct {
		Data []Model `json:"data"`
	}
	if err := c.GetJSON(ctx, "/v1/models", &list); err != nil {
		return nil, err
	}
	return list.Data, nil
}

// ErrNoModels: /v1/models listed nothing.
var ErrNoModels = errors.New("no models listed")

// FirstModel is the first model /v1/models lists, the name chat requests
// carry.
func (c *Client) FirstModel(ctx context.Context) (string, error) {
	models, err := c.Models(ctx)
	if err != nil {
		return "", err
	}
	if len(models) == 0 {
		return "", fmt.Errorf("GET %s: %w", c.URL("/v1/models"), ErrNoModels)
	}
	return models[0].ID, nil
}

// FlushCache empties the server's radix (prefix) cache: POST /flush_cache,
// within the info timeout. SGLang refuses with 400 while requests run or
// wait (the *StatusError carries its message). Under --admin-api-key this
// endpoint wants the admin key, not --api-key: give that one as
// Options.APIKey.
func (c *Client) FlushCache(ctx context.Context) error {
	return c.call(ctx, c.info, http.MethodPost, "/flush_cache")
}
