package verify

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// generatingPaths are the requests that make SGLang generate: /health
// (and /health_generate) run a one-token generation on the GPUs.
var generatingPaths = map[string]bool{"/health": true, "/health_generate": true, "/generate": true, "/v1/completions": true, "/v1/chat/completions": true}

// countingServer stands in for SGLang and counts every request by path.
func countingServer(t *testing.T) (string, func() map[string]int) {
	t.Helper()
	var mu sync.Mutex
	seen := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.URL.Path]++
		mu.Unlock()
		switch r.URL.Path {
		case "/health", "/health_generate", "/generate", "/v1/completions", "/v1/chat/completions":
		case "/server_info":
			w.Write([]byte(`{"version":"0.5.10+sim","tp_size":2}`))
		case "/v1/models":
			w.Write([]byte(`{"data":[{"id":"m"}]}`))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL, func() map[string]int {
		mu.Lock()
		defer mu.Unlock()
		out := map[string]int{}
		for k, v := range seen {
			out[k] = v
		}
		return out
	}
}

// TestVerifyMakesNoGenerationRequest pins issue 23's "verify perturbs the
// server it checks": verify asked /health before reading, which on SGLang
// is a one-token generation on the GPUs of the deployment it checks,
// queued behind real traffic. A reading asks only endpoints that do not
// generate: /ready (or /v1/models where there is none) and /server_info.
func TestVerifyMakesNoGenerationRequest(t *testing.T) {
	url, seen := countingServer(t)
	exp := Expected{Label: "plan", Argv: planArgv()}
	d, err := ReadLocated(t.Context(), Target{URL: url}, &exp, &Located{URL: url, How: "url " + url})
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	d.Judge(t.Context(), exp)
	got := seen()
	generating := 0
	for p, n := range got {
		if generatingPaths[p] {
			generating += n
		}
	}
	if generating != 0 {
		t.Errorf("%d generation request(s) during verify (%v), want 0", generating, got)
	}
	if got["/server_info"] != 1 || got["/v1/models"] != 1 {
		t.Errorf("requests %v, want /ready, then /v1/models and /server_info once each", got)
	}
	if d.Observed.Version != "0.5.10+sim" {
		t.Errorf("server_info not read: %+v", d.Observed)
	}
}
