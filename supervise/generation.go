package supervise

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/sglaunch/sglaunch/health"
	"github.com/sglaunch/sglaunch/internal/sglangapi"
)

// generationTimeout bounds the one-token /generate that proves
// readiness; the health gate probes again after it.
const generationTimeout = 30 * time.Second

// healthBypasses are the settings of the server's environment under
// which its /health answers 200 without generating.
func (s *Session) healthBypasses() []health.Bypass {
	env := map[string]string{}
	for _, kv := range s.plan.Environ {
		if name, val, ok := strings.Cut(kv, "="); ok {
			env[name] = val
		}
	}
	for _, e := range s.plan.Env {
		env[e.Name] = e.Value
	}
	return health.Bypasses(func(n string) (string, bool) { v, ok := env[n]; return v, ok })
}

// confirmReady accepts a 200 from /health once it came from this
// server (confirmPort), once /ready agrees where the installed SGLang has
// it (newer SGLang: no generation, 503 while paused or draining), and,
// when a setting lets /health answer without generating, once a
// one-token /generate of sglaunch's own returned a token: a bypassed
// /health proves nothing.
func (s *Session) confirmReady() error {
	if err := s.confirmPort(); err != nil {
		return err
	}
	timeout := s.plan.Health.RequestTimeout
	if timeout <= 0 || timeout > generationTimeout {
		timeout = generationTimeout
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := readyEndpoint(ctx, s.plan.BaseURL()); err != nil {
		return err
	}
	by := s.healthBypasses()
	if len(by) == 0 {
		return nil
	}
	if err := generateOne(ctx, s.plan.BaseURL(), s.plan.APIKey()); err != nil {
		return fmt.Errorf("%w: under %s=%s /health proves no generation, and a one-token /generate failed: %v", health.ErrNotYet, by[0].Name, by[0].Value, err)
	}
	return nil
}

// generateOne sends SGLang's native /generate for one token (as its own
// /health_generate does: input_ids [0], max_new_tokens 1, temperature 0)
// and wants a token back.
func generateOne(ctx context.Context, baseURL, apiKey string) error {
	c := sglangapi.New(baseURL, sglangapi.Options{APIKey: apiKey})
	defer c.Close()
	body := `{"input_ids":[0],"sampling_params":{"max_new_tokens":1,"temperature":0}}`
	req, err := c.NewRequest(ctx, http.MethodPost, "/generate", strings.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if err := sglangapi.CheckResponse(resp); err != nil {
		return err
	}
	var out struct {
		Meta struct {
			CompletionTokens int `json:"completion_tokens"`
		} `json:"meta_info"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&out); err != nil {
		return fmt.Errorf("reading the answer: %w", err)
	}
	if out.Meta.CompletionTokens < 1 {
		return fmt.Errorf("no token generated")
	}
	return nil
}

// readyEndpoint asks /ready, which SGLang exempts from auth: nil when it
// answers 200 or the server has no /ready (404, 405: an older SGLang);
// ErrNotYet when it says 503 (starting, paused or draining) or does not
// answer.
func readyEndpoint(ctx context.Context, baseURL string) error {
	c := sglangapi.New(baseURL, sglangapi.Options{})
	defer c.Close()
	req, err := c.NewRequest(ctx, http.MethodGet, "/ready", nil)
	if err != nil {
		return err
	}
	resp, err := c.Do(req)
	if err != nil {
		return fmt.Errorf("%w: /ready: %v", health.ErrNotYet, err)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
	resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK, http.StatusNotFound, http.StatusMethodNotAllowed:
		return nil
	}
	return fmt.Errorf("%w: /health answered 200 but /ready answers %d (starting, paused or draining)", health.ErrNotYet, resp.StatusCode)
}
