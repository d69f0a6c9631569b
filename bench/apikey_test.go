package bench

import (
	"bufio"
	"context"
	"log/slog"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/bench/workload"
	"github.com/sglaunch/sglaunch/loadgen"
	"github.com/sglaunch/sglaunch/loadgen/loadgentest"
)

// TestURLRunTakesTheLocatedKey pins that bench --url asks a server it
// located on this host with the key Locate chose (verify's rule: the
// server's own --api-key first), not with OPENAI_API_KEY alone: with a
// stale OPENAI_API_KEY every request got 401.
func TestURLRunTakesTheLocatedKey(t *testing.T) {
	srv := httptest.NewServer(&loadgentest.Server{APIKey: "K-server"})
	defer srv.Close()
	w := workload.Workload{Name: "w", API: loadgen.Generate, InputLen: 4, OutputLen: 4, Concurrency: []int{1}, Requests: 2}
	tests := []struct {
		name    string
		located *Located // nil: not found on this host
		urlKey  string
		wantErr bool
	}{
		{"located: its key wins over a stale outside key", &Located{APIKey: "K-server"}, "stale", false},
		{"not located: the outside key", nil, "K-server", false},
		{"not located, stale outside key: refused", nil, "stale", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := &Store{Dir: t.TempDir()}
			rec, err := Run(t.Context(), RunSpec{URL: srv.URL, URLKey: tt.urlKey, Workloads: []workload.Workload{w}, Store: store,
				Record: NewRecord(time.Now()), Log: slog.New(slog.DiscardHandler),
				Locate: func(context.Context, string) *Located { return tt.located }}, nil)
			if tt.wantErr {
				if err == nil || rec.FailedRequests == 0 {
					t.Fatalf("got %v (%d failed), want the run refused with 401s", err, rec.FailedRequests)
				}
				return
			}
			if err != nil || rec.Status != StatusOK {
				t.Fatalf("got %v, status %s; want the run ok", err, rec.Status)
			}
		})
	}
}

// TestLocatorKeyRule pins that Locator chooses the key as verify does: the
// --api-key on the command line of the process that holds the URL's port,
// else the one given from outside.
func TestLocatorKeyRule(t *testing.T) {
	// A stand-in server whose command line carries --api-key, as SGLang's
	// does: python3 listens and prints its port.
	const serve = "import http.server,sys\n" +
		"s=http.server.HTTPServer(('127.0.0.1',0),http.server.BaseHTTPRequestHandler)\n" +
		"print(s.server_port,flush=True)\ns.serve_forever()"
	cmd := exec.Command("python3", "-c", serve, "-m", "sglang.launch_server", "--api-key", "K-argv")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Skipf("no python3: %v", err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	port, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("the stand-in server printed no port: %v", err)
	}
	// This test process listens too, with no --api-key on its command line.
	own := httptest.NewServer(&loadgentest.Server{})
	defer own.Close()
	tests := []struct {
		name, url, want string
	}{
		{"the server's own --api-key", "http://127.0.0.1:" + strings.TrimSpace(port), "K-argv"},
		{"none on the command line: the outside key", own.URL, "K-outside"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := Locator(t.TempDir(), "K-outside")(t.Context(), tt.url)
			if l == nil {
				t.Fatalf("%s not located", tt.url)
			}
			if l.APIKey != tt.want {
				t.Errorf("got key %q, want %q", l.APIKey, tt.want)
			}
		})
	}
}

// TestURLRunDefaultPython: a URL run's command workloads get python3 as
// {{.Python}} when no interpreter is given (SGLAUNCH_PYTHON unset).
func TestURLRunDefaultPython(t *testing.T) {
	srv := httptest.NewServer(&loadgentest.Server{})
	defer srv.Close()
	w := workload.Workload{Name: "py", Shell: true, Command: []string{`echo "python={{.Python}}"`}}
	rec, err := Run(t.Context(), RunSpec{URL: srv.URL, Workloads: []workload.Workload{w}, Store: &Store{Dir: t.TempDir()},
		Record: NewRecord(time.Now()), Log: slog.New(slog.DiscardHandler)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if x := rec.Results[0].External; x == nil || !strings.Contains(x.Output, "python=python3") {
		t.Errorf("got %+v, want the command run with python3", x)
	}
}
