package test

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/internal/testkit"
)

// generatingRequests counts the requests in a sim's access log that make
// SGLang generate: /health (a one-token generation on the GPUs),
// /generate and the completions endpoints.
func generatingRequests(log string) int {
	n := 0
	for _, line := range strings.Split(log, "\n") {
		for _, p := range []string{`"GET /health`, `"POST /generate`, `"PUT /generate`, `"POST /v1/completions`, `"POST /v1/chat/completions`} {
			if strings.Contains(line, p) {
				n++
			}
		}
	}
	return n
}

// accessLogUpTo returns the server's access log once it shows a marker
// request sent now: everything logged before it is in.
func accessLogUpTo(t *testing.T, logPath string, port int, marker string) string {
	t.Helper()
	resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/v1/models?%s", port, marker))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	var log string
	testkit.WaitFor(t, waitTimeout, "the marker in the access log", func() bool {
		b, _ := os.ReadFile(logPath)
		log = string(b)
		return strings.Contains(log, marker)
	})
	return log
}

// TestVerifyAsksNothingThatGenerates pins issue 23's "verify perturbs the
// server it checks" through the binary and the sim: verify (and diff of
// a running deployment) sent /health first, which on SGLang runs a
// one-token generation on the production deployment's GPUs. Counted in
// the server's own access log: no generation request, and verify still
// reads /server_info.
func TestVerifyAsksNothingThatGenerates(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	port := testkit.FreePort(t)
	e.Profile("kimi-on-sim", kimiOnSim(t, port))
	argv, planEnv := planOf(t, e, "--profile", "kimi-on-sim")
	env := handEnv(planEnv["PYTHONPATH"])
	for k, v := range planEnv {
		env[k] = v
	}
	logPath := filepath.Join(e.Dir, "server.log")
	srv := startByHandLogged(t, argv, env, logPath)
	waitHealthy(t, port)
	before := generatingRequests(accessLogUpTo(t, logPath, port, "before"))

	start := time.Now()
	stdout, stderr, code := e.Run("verify", "--profile", "kimi-on-sim", "--pid", strconv.Itoa(srv.Process.Pid))
	wall := time.Since(start)
	if code != 0 || !strings.Contains(stdout, "server_info from") {
		t.Fatalf("verify: exit %d, want 0 with server_info read\n%s%s", code, stdout, stderr)
	}
	if _, stderr, code := e.Run("diff", "profile:kimi-on-sim", "pid:"+strconv.Itoa(srv.Process.Pid)); code != 0 {
		t.Fatalf("diff: exit %d, want 0\n%s", code, stderr)
	}
	after := generatingRequests(accessLogUpTo(t, logPath, port, "after"))
	if n := after - before; n != 0 {
		t.Errorf("verify and diff made %d generation request(s) at the server, want 0", n)
	}
	t.Logf("verify wall time against the sim: %s", wall.Round(time.Millisecond))
}

// startByHandLogged is startByHand with the server's output in logPath.
func startByHandLogged(t *testing.T, argv []string, env map[string]string, logPath string) *exec.Cmd {
	t.Helper()
	f, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	cmd := exec.Command(argv[0], argv[1:]...)
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	return cmd
}
