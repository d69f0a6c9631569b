package supervise

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/sglaunch/sglaunch/health"
)

// TestReadyEndpointAndGeneration: /ready agrees (or is absent, on an
// older SGLang) before a 200 from /health counts; a one-token /generate
// must bring a token.
func TestReadyEndpointAndGeneration(t *testing.T) {
	tests := []struct {
		name      string
		ready     int
		gen       string
		readyOK   bool
		generated bool
	}{
		{"ready, token", 200, `{"text":"a","meta_info":{"completion_tokens":1}}`, true, true},
		{"no /ready (older SGLang)", 404, `{"text":"a","meta_info":{"completion_tokens":1}}`, true, true},
		{"draining", 503, `{"meta_info":{"completion_tokens":0}}`, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				switch r.URL.Path {
				case "/ready":
					w.WriteHeader(tt.ready)
				case "/generate":
					w.Write([]byte(tt.gen))
				default:
					w.WriteHeader(http.StatusNotFound)
				}
			}))
			defer srv.Close()
			err := readyEndpoint(t.Context(), srv.URL)
			if (err == nil) != tt.readyOK || (err != nil && !errors.Is(err, health.ErrNotYet)) {
				t.Errorf("readyEndpoint: %v, want ok %v (else ErrNotYet)", err, tt.readyOK)
			}
			if err := generateOne(t.Context(), srv.URL, ""); (err == nil) != tt.generated {
				t.Errorf("generateOne: %v, want ok %v", err, tt.generated)
			}
		})
	}
}
