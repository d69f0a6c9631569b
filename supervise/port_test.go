package supervise

import (
	"errors"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestGateAcceptsAnyServerOnPort pins issue 12, defect 1: the readiness
// gate took any 200 on the plan's port for its own server's. A second
// serve of a running profile logged "healthy" (and would have sent
// READY=1) while its own server was still loading, and a benchmark
// recorded another server's numbers under its own plan. The socket
// listening on the port must belong to the server's tree; here the test
// process holds it, and the error names it.
func TestGateAcceptsAnyServerOnPort(t *testing.T) {
	f := newFake(t, map[string]string{"FAKE_NEVER_BIND": "1"}, nil)
	l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(f.plan.Port()))
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {})}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })

	start := time.Now()
	sess, err := launch(t, f, f.options(t))
	if err == nil {
		_, _ = sess.Stop(t.Context())
		t.Fatalf("the gate accepted the answer of another process on port %d", f.plan.Port())
	}
	if took := time.Since(start); took > promptly {
		t.Errorf("took %v to see the foreign listener", took)
	}
	t.Log(err)
	if !errors.Is(err, ErrPortTaken) {
		t.Errorf("got %v, want ErrPortTaken", err)
	}
	want := "is held by pid " + strconv.Itoa(os.Getpid()) + " ("
	if !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), ".test") {
		t.Errorf("error %q does not name the holder (%q and its command line)", err, want)
	}
	if strings.Contains(f.logs.String(), "healthy after") {
		t.Errorf("logged healthy for another process's answer:\n%s", f.logs)
	}
	noSurvivors(t)
}
