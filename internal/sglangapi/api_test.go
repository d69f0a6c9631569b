package sglangapi

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// routes serves path → (status, body); anything else is 404 as FastAPI's.
func routes(t *testing.T, m map[string][2]string, hits *atomic.Int32) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		rt, ok := m[r.URL.Path]
		if !ok {
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte(`{"detail":"Not Found"}`))
			return
		}
		code := map[string]int{"200": 200, "401": 401, "404": 404, "500": 500}[rt[0]]
		w.WriteHeader(code)
		w.Write([]byte(rt[1]))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestInfoFallbackOn404(t *testing.T) {
	type getter func(context.Context, *Client) (map[string]any, string, error)
	serverInfo := func(ctx context.Context, c *Client) (map[string]any, string, error) { return c.ServerInfo(ctx) }
	modelInfo := func(ctx context.Context, c *Client) (map[string]any, string, error) { return c.ModelInfo(ctx) }
	tests := []struct {
		name     string
		get      getter
		routes   map[string][2]string
		wantPath string
		wantCode int // of the error; 0: none
		wantHits int32
	}{
		{"server_info current", serverInfo, map[string][2]string{"/server_info": {"200", `{"v":1}`}, "/get_server_info": {"200", `{"v":2}`}}, "/server_info", 0, 1},
		{"server_info older SGLang", serverInfo, map[string][2]string{"/get_server_info": {"200", `{"v":2}`}}, "/get_server_info", 0, 2},
		{"server_info 401 is final", serverInfo, map[string][2]string{"/server_info": {"401", `{"error":"Unauthorized"}`}, "/get_server_info": {"200", `{"v":2}`}}, "", 401, 1},
		{"server_info 500 is final", serverInfo, map[string][2]string{"/server_info": {"500", `oops`}, "/get_server_info": {"200", `{"v":2}`}}, "", 500, 1},
		{"server_info neither", serverInfo, map[string][2]string{}, "", 404, 2},
		{"model_info current", modelInfo, map[string][2]string{"/model_info": {"200", `{"v":1}`}}, "/model_info", 0, 1},
		{"model_info older SGLang", modelInfo, map[string][2]string{"/get_model_info": {"200", `{"v":2}`}}, "/get_model_info", 0, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var hits atomic.Int32
			c := New(routes(t, tt.routes, &hits), Options{})
			info, path, err := tt.get(t.Context(), c)
			if got := StatusCode(err); got != tt.wantCode {
				t.Fatalf("got error %v (status %d), want status %d", err, got, tt.wantCode)
			}
			if path != tt.wantPath {
				t.Errorf("got path %q, want %q", path, tt.wantPath)
			}
			if tt.wantCode == 0 && info["v"] == nil {
				t.Errorf("got info %v, want the body decoded", info)
			}
			if n := hits.Load(); n != tt.wantHits {
				t.Errorf("got %d requests, want %d", n, tt.wantHits)
			}
		})
	}
}

func TestStatusErrorMessage(t *testing.T) {
	tests := []struct {
		name, status, body, want string
	}{
		{"sglang 401", "401", `{"error":"Unauthorized"}`, "GET URL/server_info: 401 Unauthorized"},
		{"openai error", "500", `{"object":"error","message":"boom","code":500}`, "GET URL/server_info: 500 Internal Server Error: boom"},
		{"nested error", "500", `{"error":{"message":"bad input"}}`, "GET URL/server_info: 500 Internal Server Error: bad input"},
		{"fastapi detail", "404", `{"detail":"Not Found"}`, "GET URL/get_server_info: 404 Not Found"},
		{"text", "500", "Cache not flushed.\nsee the log\n", "GET URL/server_info: 500 Internal Server Error: Cache not flushed."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var hits atomic.Int32
			m := map[string][2]string{"/server_info": {tt.status, tt.body}}
			if tt.status == "404" {
				m = map[string][2]string{}
			}
			base := routes(t, m, &hits)
			_, _, err := New(base, Options{}).ServerInfo(t.Context())
			want := strings.ReplaceAll(tt.want, "URL", base)
			if err == nil || err.Error() != want {
				t.Errorf("got %v, want %q", err, want)
			}
		})
	}
}

func TestBodySizeCap(t *testing.T) {
	const limit = 1 << 10
	tests := []struct {
		name string
		size int
		ok   bool
	}{
		{"at the limit", limit, true},
		{"over the limit", limit + 1, false},
		{"far over", 64 * limit, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// {"x":"aaa...a"} of exactly tt.size bytes.
			body := `{"x":"` + strings.Repeat("a", tt.size-8) + `"}`
			var hits atomic.Int32
			c := New(routes(t, map[string][2]string{"/server_info": {"200", body}}, &hits), Options{MaxBodyBytes: limit})
			_, _, err := c.ServerInfo(t.Context())
			if tt.ok && err != nil {
				t.Errorf("ServerInfo of %d bytes: %v", tt.size, err)
			}
			if !tt.ok && !errors.Is(err, ErrBodyTooLarge) {
				t.Errorf("ServerInfo of %d bytes: got %v, want ErrBodyTooLarge", tt.size, err)
			}
		})
	}
}

func TestModels(t *testing.T) {
	var hits atomic.Int32
	base := routes(t, map[string][2]string{"/v1/models": {"200", `{"object":"list","data":[{"id":"kimi","root":"kimi","max_model_len":262144}]}`}}, &hits)
	c := New(base, Options{})
	models, err := c.Models(t.Context())
	if err != nil || len(models) != 1 || models[0] != (Model{ID: "kimi", Root: "kimi", MaxModelLen: 262144}) {
		t.Fatalf("got %+v, %v", models, err)
	}
	if id, err := c.FirstModel(t.Context()); id != "kimi" || err != nil {
		t.Errorf("FirstModel: got %q, %v", id, err)
	}
	empty := New(routes(t, map[string][2]string{"/v1/models": {"200", `{"data":[]}`}}, &hits), Options{})
	if _, err := empty.FirstModel(t.Context()); !errors.Is(err, ErrNoModels) {
		t.Errorf("FirstModel of an empty list: got %v, want ErrNoModels", err)
	}
}

// SGLang answers /flush_cache 400 with a text body while requests run.
func TestFlushCacheRefused(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte("Flush cache failed.\n"))
	}))
	defer srv.Close()
	err := New(srv.URL, Options{}).FlushCache(t.Context())
	want := "POST " + srv.URL + "/flush_cache: 400 Bad Request: Flush cache failed."
	if err == nil || err.Error() != want || StatusCode(err) != http.StatusBadRequest {
		t.Errorf("got %v, want %q", err, want)
	}
}

// TestUpAsksNothingThatGenerates: Up asks /ready where the server has it,
// /v1/models where it does not, and never /health.
func TestUpAsksNothingThatGenerates(t *testing.T) {
	tests := []struct {
		name     string
		routes   map[string][2]string
		wantPath string
		wantCode int // 0: nil error
		wantHits int32
	}{
		{"ready", map[string][2]string{"/ready": {"200", ""}, "/v1/models": {"200", "{}"}}, "/ready", 0, 1},
		{"no /ready: /v1/models", map[string][2]string{"/v1/models": {"200", `{"data":[]}`}}, "/v1/models", 0, 2},
		{"a keyed /v1/models answers 401", map[string][2]string{"/v1/models": {"401", ""}}, "/v1/models", 401, 2},
		{"/ready fails otherwise: no fallback", map[string][2]string{"/ready": {"500", ""}}, "/ready", 500, 1},
		{"only /health", map[string][2]string{"/health": {"200", ""}}, "/v1/models", 404, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var hits atomic.Int32
			c := New(routes(t, tt.routes, &hits), Options{})
			defer c.Close()
			path, err := c.Up(t.Context())
			if path != tt.wantPath || StatusCode(err) != tt.wantCode || (tt.wantCode == 0) != (err == nil) {
				t.Errorf("got %s, %v; want %s with status %d", path, err, tt.wantPath, tt.wantCode)
			}
			if hits.Load() != tt.wantHits {
				t.Errorf("got %d requests, want %d", hits.Load(), tt.wantHits)
			}
		})
	}
}
