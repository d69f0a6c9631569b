package perf

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/internal/proc"
	"github.com/sglaunch/sglaunch/internal/testkit"
	"github.com/sglaunch/sglaunch/test/perf/perfenv"
)

// BenchmarkReadiness measures readiness detection: from the moment the
// sim's /health turns 200 (its SGLANG_SIM_EVENTS "ready" stamp) to the
// arrival of READY=1 on a real unixgram NOTIFY_SOCKET. The profile keeps
// the default poll interval (500ms); the ready log line makes sglaunch
// probe at once.
//
// Each iteration runs the launch twice, without and with the status
// endpoint (--status-addr, scraped every 100 ms as a Prometheus would,
// /metrics and /readyz), in alternating order so that the machine's load
// weighs on both alike; status-ratio is the median with over the median
// without.
func BenchmarkReadiness(b *testing.B) {
	var off, on []time.Duration
	for i := range b.N {
		runOff := func() { off = append(off, readinessOnce(b, false)) }
		runOn := func() { on = append(on, readinessOnce(b, true)) }
		if i%2 == 0 {
			runOff()
			runOn()
		} else {
			runOn()
			runOff()
		}
	}
	stats(b, "ready", off)
	stats(b, "ready-status", on)
	if len(off) > 0 {
		b.ReportMetric(float64(median(on))/float64(median(off)), "status-ratio")
	}
}

// readinessOnce launches the sim once and returns the time from its
// /health turning 200 to READY=1; withStatus adds the status endpoint and
// a scraper of it.
func readinessOnce(b *testing.B, withStatus bool) time.Duration {
	dir := b.TempDir()
	ev := filepath.Join(dir, "events")
	e := perfenv.New(b, map[string]string{
		"SGLANG_SIM_LOAD_SECONDS":      "0.3",
		"SGLANG_SIM_WARMUP_SECONDS":    "0.2",
		"SGLANG_SIM_TTFT_MS":           "5",
		"SGLANG_SIM_EVENTS":            ev,
		"SGLANG_SIM_SIGTERM_EXIT_CODE": "0",
	}, "")
	sockDir, err := os.MkdirTemp("", "notify")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(sockDir)
	sock := filepath.Join(sockDir, "sock")
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: sock, Net: "unixgram"})
	if err != nil {
		b.Fatal(err)
	}
	readyAt := make(chan time.Time, 1)
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := conn.Read(buf)
			if err != nil {
				return
			}
			if strings.Contains(string(buf[:n]), "READY=1") {
				readyAt <- time.Now()
			}
		}
	}()
	args := []string{"serve", "--profile", "perf"}
	stopScrape := make(chan struct{})
	scraped := make(chan struct{})
	if withStatus {
		addr := fmt.Sprintf("127.0.0.1:%d", testkit.FreePort(b))
		args = append(args, "--status-addr", addr)
		go scrape("http://"+addr, stopScrape, scraped)
	} else {
		close(scraped)
	}
	cmd := e.Command(b, args...)
	cmd.Env = append(cmd.Env, "NOTIFY_SOCKET="+sock)
	stderr := &testkit.SyncBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	var arrived time.Time
	select {
	case arrived = <-readyAt:
	case <-time.After(runTimeout):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		b.Fatalf("no READY=1:\n%s", stderr)
	}
	close(stopScrape)
	<-scraped
	_ = cmd.Process.Signal(syscall.SIGTERM)
	_ = cmd.Wait()
	conn.Close()
	return arrived.Sub(events(b, ev)["ready"])
}

// scrape reads /metrics and /readyz every 100 ms until stop.
func scrape(base string, stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	c := http.Client{Timeout: 2 * time.Second}
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		for _, path := range []string{"/metrics", "/readyz"} {
			if resp, err := c.Get(base + path); err == nil {
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}
		select {
		case <-stop:
			return
		case <-t.C:
		}
	}
}

// BenchmarkCrashDetection measures crash detection: from the sim's exit
// during the load (its "crash_exit" stamp, written just before it exits)
// to sglaunch's own exit, as its parent sees it.
func BenchmarkCrashDetection(b *testing.B) {
	var samples []time.Duration
	for range b.N {
		ev := filepath.Join(b.TempDir(), "events")
		e := perfenv.New(b, map[string]string{
			"SGLANG_SIM_LOAD_SECONDS":      "1",
			"SGLANG_SIM_CRASH_DURING_LOAD": "0.3",
			"SGLANG_SIM_EVENTS":            ev,
		}, "")
		cmd := e.Command(b, "serve", "--profile", "perf")
		stderr := &testkit.SyncBuffer{}
		cmd.Stderr = stderr
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		_ = cmd.Wait()
		exited := time.Now()
		if code := cmd.ProcessState.ExitCode(); code != 1 {
			b.Fatalf("exit status %d, want the crash's 1:\n%s", code, stderr)
		}
		samples = append(samples, exited.Sub(events(b, ev)["crash_exit"]))
	}
	stats(b, "crash", samples)
}

// BenchmarkLogRelay has the sim write 1 GiB of log lines three ways:
// straight to /dev/null (writes that cost nothing: no consumer can match
// it), into a pipe drained by cat(1) to /dev/null (what any log consumer
// costs: a pipe and a reader), and through `sglaunch serve` in pipe mode
// with its stdout on /dev/null. The flood's own duration, stamped by the
// sim (flood_begin/flood_end), is what each costs the server; sglaunch's
// peak RSS is read from /proc while it runs.
func BenchmarkLogRelay(b *testing.B) {
	const flood = 1 << 30
	var devnull, catPipe, relayed, relayedWall []time.Duration
	peak := 0
	for range b.N {
		ev := filepath.Join(b.TempDir(), "events")
		e := perfenv.New(b, map[string]string{
			"SGLANG_SIM_LOG_FLOOD_BYTES":  strconv.Itoa(flood),
			"SGLANG_SIM_EXIT_AFTER_FLOOD": "1",
			"SGLANG_SIM_EVENTS":           ev,
		}, "")
		floodTime := func() time.Duration {
			evs := events(b, ev)
			os.Remove(ev)
			return evs["flood_end"].Sub(evs["flood_begin"])
		}

		// The plan's argv and environment, run by hand.
		out, err := e.Command(b, "config", "--profile", "perf", "--json").Output()
		if err != nil {
			b.Fatalf("config: %v", err)
		}
		var plan struct {
			Argv []string          `json:"argv"`
			Env  map[string]string `json:"env"`
		}
		if err := json.Unmarshal(out, &plan); err != nil {
			b.Fatal(err)
		}
		direct := func() *exec.Cmd {
			cmd := exec.Command(plan.Argv[0], plan.Argv[1:]...)
			cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
			for k, v := range plan.Env {
				cmd.Env = append(cmd.Env, k+"="+v)
			}
			return cmd
		}

		// 1. Straight to /dev/null (os/exec's nil Stdout).
		if err := direct().Run(); err != nil {
			b.Fatalf("direct run: %v", err)
		}
		devnull = append(devnull, floodTime())

		// 2. Into a pipe drained by cat.
		cmd := direct()
		cat := exec.Command("cat")
		r, w, err := os.Pipe()
		if err != nil {
			b.Fatal(err)
		}
		cat.Stdin, cmd.Stdout = r, w
		if err := cat.Start(); err != nil {
			b.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		r.Close()
		w.Close()
		if err := cmd.Wait(); err != nil {
			b.Fatalf("direct run into cat: %v", err)
		}
		_ = cat.Wait()
		catPipe = append(catPipe, floodTime())

		// 3. Through sglaunch (pipe mode: its stdout is not a terminal).
		cmd = e.Command(b, "serve", "--profile", "perf")
		stderr := &testkit.SyncBuffer{}
		cmd.Stderr = stderr
		start := time.Now()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		done := make(chan struct{})
		go func() {
			_ = cmd.Wait()
			close(done)
		}()
		hwm := 0
	poll:
		for {
			if v := vmHWM(cmd.Process.Pid); v > hwm {
				hwm = v
			}
			select {
			case <-done:
				break poll
			case <-time.After(5 * time.Millisecond):
			}
		}
		relayedWall = append(relayedWall, time.Since(start))
		if code := cmd.ProcessState.ExitCode(); code != 0 {
			b.Fatalf("sglaunch: exit %d\n%s", code, stderr)
		}
		relayed = append(relayed, floodTime())
		peak = max(peak, hwm)
	}
	gib := float64(flood) / (1 << 30)
	rate := func(s []time.Duration) float64 { return gib / median(s).Seconds() }
	b.ReportMetric(rate(devnull), "devnull-GiB/s")
	b.ReportMetric(rate(catPipe), "cat-pipe-GiB/s")
	b.ReportMetric(rate(relayed), "sglaunch-GiB/s")
	b.ReportMetric(rate(relayed)/rate(devnull), "ratio-vs-devnull")
	b.ReportMetric(rate(relayed)/rate(catPipe), "ratio-vs-cat-pipe")
	b.ReportMetric(median(relayedWall).Seconds(), "sglaunch-wall-s")
	b.ReportMetric(float64(peak)/1024, "sglaunch-peak-RSS-MiB")
	b.ReportMetric(0, "ns/op")
}

func median(s []time.Duration) time.Duration {
	s = append([]time.Duration(nil), s...)
	slices.Sort(s)
	return s[len(s)/2]
}

// BenchmarkStartStop runs start/stop cycles with the sim's setsid worker
// (a process that leaves the server's session and sets no parent-death
// signal) and counts the processes left after each stop. Run it with
// -benchtime 100x for the 100 cycles; any survivor fails it.
func BenchmarkStartStop(b *testing.B) {
	survivors := 0
	var cycles []time.Duration
	e := perfenv.New(b, map[string]string{
		"SGLANG_SIM_LOAD_SECONDS":   "0.1",
		"SGLANG_SIM_WARMUP_SECONDS": "0.05",
		"SGLANG_SIM_SETSID_WORKER":  "1",
	}, "")
	for range b.N {
		start := time.Now()
		cmd := e.Command(b, "serve", "--profile", "perf")
		stderr := &testkit.SyncBuffer{}
		cmd.Stderr = stderr
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		deadline := time.Now().Add(runTimeout)
		for !strings.Contains(stderr.String(), "sglaunch: healthy after ") {
			if time.Now().After(deadline) {
				_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
				b.Fatalf("not healthy:\n%s", stderr)
			}
			time.Sleep(5 * time.Millisecond)
		}
		tree, err := proc.Descendants(cmd.Process.Pid)
		if err != nil {
			b.Fatal(err)
		}
		if len(tree) < 5 { // server, 2 schedulers, detokenizer, escaped worker
			b.Fatalf("want at least 5 processes in the tree, got %v", tree)
		}
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
		for _, pid := range tree {
			if proc.Alive(pid) {
				survivors++
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		cycles = append(cycles, time.Since(start))
	}
	b.ReportMetric(float64(survivors), "survivors")
	stats(b, "cycle", cycles)
	if survivors > 0 {
		b.Fatalf("%d processes survived %d cycles", survivors, b.N)
	}
}
