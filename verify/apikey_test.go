package verify

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sglaunch/sglaunch/internal/redact"
)

// keyedServer stands in for SGLang under --api-key KEY: every path but
// /health* and /ready* wants "Authorization: Bearer KEY" and answers 401 otherwise,
// as sglang/srt/utils/auth.py does.
func keyedServer(t *testing.T, key string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/health") && !strings.HasPrefix(r.URL.Path, "/ready") && r.Header.Get("Authorization") != "Bearer "+key {
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte(`{"error":"Unauthorized"}`))
			return
		}
		switch r.URL.Path {
		case "/health":
		case "/server_info":
			w.Write([]byte(`{"version":"0.5.10+sim","tp_size":2,"api_key":"` + key + `"}`))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func planArgv(extra ...string) []string {
	return append([]string{"python3", "-m", "sglang.launch_server", "--model-path", "m", "--tp-size", "2"}, extra...)
}

// TestVerifyAPIKeyServerReadsServerInfo pins a bug: verify asked
// /server_info with http.DefaultClient and no token, so against a server
// started with --api-key it printed "server_info unavailable: ... 401
// Unauthorized" and compared nothing the server reports about itself.
func TestVerifyAPIKeyServerReadsServerInfo(t *testing.T) {
	const key = "K-secret"
	tests := []struct {
		name    string
		exp     Expected
		envKey  string // Target.APIKey: OPENAI_API_KEY
		wantErr string // "": server_info read
	}{
		{"profile plan's key", Expected{Argv: planArgv("--api-key", key)}, "", ""},
		{"profile plan's key, --api-key=", Expected{Argv: planArgv("--api-key=" + key)}, "", ""},
		{"the plan's key wins over the environment's", Expected{Argv: planArgv("--api-key", key)}, "stale", ""},
		{"record (redacted) with OPENAI_API_KEY", Expected{Argv: redact.Argv(planArgv("--api-key", key)), Redacted: true}, key, ""},
		{"record (redacted) without a key", Expected{Argv: redact.Argv(planArgv("--api-key", key)), Redacted: true}, "", "/server_info: 401 Unauthorized"},
		{"plan without a key, --url with OPENAI_API_KEY", Expected{Argv: planArgv()}, key, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url := keyedServer(t, key)
			l := &Located{URL: url, How: "url " + url}
			d, err := ReadLocated(t.Context(), Target{URL: url, APIKey: tt.envKey}, &tt.exp, l)
			if err != nil {
				t.Fatalf("verify: %v", err)
			}
			o := d.Observed
			if tt.wantErr != "" {
				if !strings.Contains(o.ServerInfoErr, url+tt.wantErr) {
					t.Errorf("got server_info error %q, want it to name %s%s", o.ServerInfoErr, url, tt.wantErr)
				}
				return
			}
			if o.ServerInfoErr != "" || o.ServerInfoAt != "/server_info" || o.Version != "0.5.10+sim" {
				t.Errorf("got server_info from %q (version %q, error %q), want it read from /server_info", o.ServerInfoAt, o.Version, o.ServerInfoErr)
			}
		})
	}
}

func TestArgvAPIKey(t *testing.T) {
	tests := []struct {
		name string
		argv []string
		want string
	}{
		{"none", planArgv(), ""},
		{"spaced", planArgv("--api-key", "k1"), "k1"},
		{"equals", planArgv("--api-key=k2"), "k2"},
		{"last wins", planArgv("--api-key", "k1", "--api-key", "k3"), "k3"},
		{"masked", redact.Argv(planArgv("--api-key", "k1")), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := argvAPIKey(tt.argv); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestCheckReadyTellsLoadingFromGone(t *testing.T) {
	tests := []struct {
		name    string
		code    int
		wantErr error
	}{
		{"ready", http.StatusOK, nil},
		{"loading", http.StatusServiceUnavailable, ErrLoading},
		{"answers otherwise", http.StatusUnauthorized, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(tt.code) }))
			defer srv.Close()
			err := CheckReady(t.Context(), &Located{URL: srv.URL})
			if (tt.wantErr == nil) != (err == nil) || (tt.wantErr != nil && !errors.Is(err, tt.wantErr)) {
				t.Errorf("got %v, want %v", err, tt.wantErr)
			}
		})
	}
	// Nothing listens and no pid is known: gone.
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	if err := CheckReady(t.Context(), &Located{URL: url}); !errors.Is(err, ErrGone) {
		t.Errorf("refused: got %v, want ErrGone", err)
	}
}

// verify --json printed the plan's and the processes' --api-key and
// secret variables in clear, where the text report masks them.
func TestReportJSONMasksSecrets(t *testing.T) {
	exp := Expected{Argv: planArgv("--api-key", "K-plan"), Env: map[string]string{"HF_TOKEN": "hf-plan", "NCCL_ALGO": "Ring"}}
	o := &Observation{Procs: []Process{{PID: 1, Argv: planArgv("--api-key=K-live"), Env: map[string]string{"HF_TOKEN": "hf-live"}}}}
	var b strings.Builder
	if err := Compare(exp, o).WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"K-plan", "K-live", "hf-plan", "hf-live"} {
		if strings.Contains(b.String(), secret) {
			t.Errorf("the JSON report shows %q:\n%s", secret, b.String())
		}
	}
	if !strings.Contains(b.String(), `"Ring"`) {
		t.Errorf("the JSON report lost a plain value:\n%s", b.String())
	}
	// Marshalling must not change the values verify compares.
	if exp.Argv[len(exp.Argv)-1] != "K-plan" || o.Procs[0].Env["HF_TOKEN"] != "hf-live" {
		t.Errorf("MarshalJSON changed its receiver: %q %q", exp.Argv, o.Procs[0].Env)
	}
}
