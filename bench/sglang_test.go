package bench

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestServerVersion(t *testing.T) {
	tests := []struct {
		name     string
		key      string // the server's --api-key
		sent     string // the key bench sends
		paths    map[string]string
		want     string
		wantFrom string // prefix
	}{
		{"current SGLang", "", "", map[string]string{"/server_info": `{"version":"0.5.15"}`}, "0.5.15", "/server_info"},
		{"older SGLang", "", "", map[string]string{"/get_server_info": `{"version":"0.4.6"}`}, "0.4.6", "/get_server_info"},
		{"--api-key, key sent", "K", "K", map[string]string{"/server_info": `{"version":"0.5.15"}`}, "0.5.15", "/server_info"},
		{"--api-key, no key", "K", "", map[string]string{"/server_info": `{"version":"0.5.15"}`}, "", "unknown: GET "},
		{"no version", "", "", map[string]string{"/server_info": `{}`}, "", "unknown: /server_info has no version"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tt.key != "" && r.Header.Get("Authorization") != "Bearer "+tt.key {
					http.Error(w, `{"error":"Unauthorized"}`, http.StatusUnauthorized)
					return
				}
				body, ok := tt.paths[r.URL.Path]
				if !ok {
					http.NotFound(w, r)
					return
				}
				w.Write([]byte(body))
			}))
			defer srv.Close()
			got, from := ServerVersion(t.Context(), srv.URL, tt.sent)
			if got != tt.want || !strings.HasPrefix(from, tt.wantFrom) {
				t.Errorf("got %q from %q, want %q from %q...", got, from, tt.want, tt.wantFrom)
			}
		})
	}
}
