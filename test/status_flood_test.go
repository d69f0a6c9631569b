package test

import (
	"fmt"
	"net"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sglaunch/sglaunch/internal/proc"
	"github.com/sglaunch/sglaunch/internal/testkit"
)

// Status-flood sizes: the flood is several times sglaunch's descriptor
// limit, so an endpoint that took every connection (before issue 22) ran
// out of files and its liveness probes of the server failed.
const (
	floodConns   = 5000
	floodFiles   = 1024 // sglaunch's RLIMIT_NOFILE during the test, a common default
	floodHold    = 8 * time.Second
	floodMaxRSS  = 128 << 20 // peak resident set allowed: generous, far below a held-connection flood's
	floodMaxOpen = 200       // sglaunch's descriptors during the flood: 64 connections and its own
)

// TestStatusFloodThroughBinary pins issue 22, defect 9 through the real
// binary: a connection flood on --status-addr (no cap, idle connections
// held 2 minutes) used up sglaunch's descriptors, its liveness probes
// failed with "too many open files", and on_unhealthy: exit killed a
// healthy server. Here 5,000 connections (idle, and some keep-alive after
// one request) are held against a serve whose descriptor limit is 1,024,
// with liveness every 300 ms: no liveness probe fails, the server is not
// restarted, sglaunch's descriptors stay near the cap, /readyz answers
// once the flood goes, and the peak RSS stays bounded.
func TestStatusFloodThroughBinary(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	port := simProfile(t, e, "flooded", map[string]string{"SGLANG_SIM_LOAD_SECONDS": "0.3"},
		"health:\n  interval: 300ms\n  failure_threshold: 2\n  request_timeout: 5s\n  on_unhealthy: exit\nstop_timeout: 5s\n")
	addr := fmt.Sprintf("127.0.0.1:%d", testkit.FreePort(t))
	base := "http://" + addr
	p := e.Start("serve", "--profile", "flooded", "--status-addr", addr)
	pid := p.Cmd.Process.Pid
	lim := unix.Rlimit{Cur: floodFiles, Max: floodFiles}
	if err := unix.Prlimit(pid, unix.RLIMIT_NOFILE, &lim, nil); err != nil {
		t.Fatalf("prlimit sglaunch to %d files: %v", floodFiles, err)
	}
	waitServeHealthy(t, p)
	testkit.WaitFor(t, waitTimeout, "/readyz 200", func() bool {
		code, _ := getStatus(t, base+"/readyz")
		return code == 200
	})
	server, err := proc.ListeningPID(port)
	if err != nil || server == 0 {
		t.Fatalf("nothing listens on port %d: %v", port, err)
	}
	needFiles(t, floodConns+256)
	rssBefore := procStatusKB(t, pid, "VmRSS")

	// The flood: every tenth connection asks /livez and keeps the
	// connection open (a keep-alive), the rest say nothing.
	conns := make(chan net.Conn, floodConns)
	var failed atomic.Int32
	var wg sync.WaitGroup
	const dialers = 100
	for d := range dialers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := d; i < floodConns; i += dialers {
				c, err := net.DialTimeout("tcp", addr, 3*time.Second)
				if err != nil {
					failed.Add(1)
					continue
				}
				if i%10 == 0 {
					_, _ = c.Write([]byte("GET /livez HTTP/1.1\r\nHost: flood\r\n\r\n"))
				}
				conns <- c
			}
		}()
	}
	maxOpen := 0
	sample := func() {
		if n := openFilesOf(pid); n > maxOpen {
			maxOpen = n
		}
	}
	dialed := make(chan struct{})
	go func() { wg.Wait(); close(dialed) }()
	for waiting := true; waiting; {
		select {
		case <-dialed:
			waiting = false
		case <-time.After(100 * time.Millisecond):
			sample()
		}
	}
	close(conns)
	held := len(conns)
	for end := time.Now().Add(floodHold); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		sample()
		if isDone(p) {
			break
		}
	}
	peak := procStatusKB(t, pid, "VmHWM")
	for c := range conns {
		c.Close()
	}
	if held <= floodFiles {
		t.Fatalf("only %d of %d flood connections were made (%d failed), want more than sglaunch's %d files", held, floodConns, failed.Load(), floodFiles)
	}

	// After the flood: the endpoint answers, the server is the same.
	testkit.WaitFor(t, time.Minute, "/readyz 200 after the flood", func() bool {
		if isDone(p) {
			t.Fatalf("sglaunch exited during the flood:\n%s", p.Stderr())
		}
		code, _ := getStatus(t, base+"/readyz")
		return code == 200
	})
	if !proc.Alive(server) {
		t.Errorf("the server (pid %d) did not outlive the flood", server)
	}
	if now, _ := proc.ListeningPID(port); now != server {
		t.Errorf("port %d is held by pid %d after the flood, want the same server, pid %d (a restart?)", port, now, server)
	}
	_, metrics := getStatus(t, base+"/metrics")
	if n := metricValue(t, metrics, "sglaunch_liveness_failures_total"); n != 0 {
		t.Errorf("%v liveness probes failed during the flood, want 0", n)
	}
	for _, bad := range []string{"liveness probe failed", "server unhealthy", "too many open files"} {
		if strings.Contains(p.Stderr(), bad) {
			t.Errorf("sglaunch's log says %q during the flood:\n%s", bad, p.Stderr())
		}
	}
	if maxOpen > floodMaxOpen {
		t.Errorf("sglaunch held %d descriptors during the flood, want at most %d (the endpoint's cap is 64)", maxOpen, floodMaxOpen)
	}
	if peak*1024 > floodMaxRSS {
		t.Errorf("sglaunch's peak RSS %d KiB under the flood, want under %d MiB", peak, floodMaxRSS>>20)
	}
	t.Logf("status flood: %d of %d connections held %v against sglaunch (RLIMIT_NOFILE %d): sglaunch RSS %d KiB before, peak (VmHWM) %d KiB; at most %d descriptors open; 0 liveness failures, server pid %d kept",
		held, floodConns, floodHold, floodFiles, rssBefore, peak, maxOpen, server)

	_ = p.Cmd.Process.Signal(syscall.SIGTERM)
	// A drained stop ends sglaunch by the signal (TestServeExitStatus).
	if code := p.Wait(t, commandTimeout); code != 128+int(syscall.SIGTERM) {
		t.Errorf("serve stopped after the flood: exit %d, want %d\n%s", code, 128+int(syscall.SIGTERM), p.Stderr())
	}
}

// needFiles raises this test binary's descriptor limit to at least n
// (as root the hard limit too), or fails saying why.
func needFiles(t *testing.T, n uint64) {
	t.Helper()
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	if lim.Cur >= n {
		return
	}
	lim.Cur = n
	lim.Max = max(lim.Max, n)
	if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatalf("raise RLIMIT_NOFILE to %d for the flood: %v (ulimit -n %d)", n, err, n)
	}
}

// procStatusKB reads one kB field (VmRSS, VmHWM) of /proc/PID/status.
func procStatusKB(t *testing.T, pid int, field string) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatalf("read pid %d's status: %v", pid, err)
	}
	m := regexp.MustCompile(`(?m)^` + field + `:\s+(\d+) kB$`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("no %s in pid %d's status", field, pid)
	}
	n, _ := strconv.ParseInt(string(m[1]), 10, 64)
	return n
}

// openFilesOf counts pid's open descriptors (0 once it is gone).
func openFilesOf(pid int) int {
	ents, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	return len(ents)
}

// metricValue is the value of an unlabelled-but-for-the-plan series in a
// /metrics text: the first line that starts with name{ or name .
func metricValue(t *testing.T, text, name string) float64 {
	t.Helper()
	for _, l := range strings.Split(text, "\n") {
		if !strings.HasPrefix(l, name+"{") && !strings.HasPrefix(l, name+" ") {
			continue
		}
		f := strings.Fields(l)
		v, err := strconv.ParseFloat(f[len(f)-1], 64)
		if err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		return v
	}
	t.Fatalf("/metrics has no %s:\n%s", name, text)
	return 0
}
