package test

import (
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/internal/proc"
	"github.com/sglaunch/sglaunch/internal/testkit"
	"github.com/sglaunch/sglaunch/loadgen/loadgentest"
)

// serveHealthy starts serve of profile and waits until it says healthy;
// it returns sglaunch and its server's pid.
func serveHealthy(t *testing.T, e *testEnv, profile string, port int) (*Proc, int) {
	t.Helper()
	p := e.Start("serve", "--profile", profile)
	waitServeHealthy(t, p)
	pid, err := proc.ListeningPID(port)
	if err != nil || pid == 0 {
		t.Fatalf("nothing listens on port %d: %v", port, err)
	}
	return p, pid
}

// TestSecondServeHealthyWhileLoading pins issue 12, defect 1 (serve) and
// defect 8 (runtime state): a second serve of a running profile logged
// "healthy after 0.2s" while its own server was still loading, the
// moment READY=1 would go to systemd, and its runtime state replaced the
// first launch's. The second launch must fail at once, naming who holds
// the port; the first stays visible to verify, also by the profile's
// path.
func TestSecondServeHealthyWhileLoading(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	port := simProfile(t, e, "busy", map[string]string{"SGLANG_SIM_LOAD_SECONDS": "0.3"}, "")
	first, holder := serveHealthy(t, e, "busy", port)

	// preflight would refuse the busy port; the race it cannot close is
	// what the gate must catch.
	started := time.Now()
	second := e.Start("serve", "--profile", "busy", "--skip-preflight", "--set", "env.SGLANG_SIM_LOAD_SECONDS=5")
	testkit.WaitFor(t, waitTimeout, "the second launch's runtime state", func() bool {
		files, _ := filepath.Glob(filepath.Join(e.Vars["SGLAUNCH_RUNTIME_DIR"], "*.json"))
		return len(files) == 2 || isDone(second)
	})
	code := second.Wait(t, commandTimeout)
	stderr := second.Stderr()
	if code != 1 || !strings.Contains(stderr, fmt.Sprintf("port %d is held by pid %d (", port, holder)) {
		t.Errorf("second serve: exit %d, want 1 naming pid %d on port %d\n%s", code, holder, port, stderr)
	}
	if strings.Contains(stderr, "healthy after") {
		t.Errorf("the second serve took the first server's answer for its own:\n%s", stderr)
	}
	// Its own load takes 5 s; the foreign answer is seen before.
	if took := time.Since(started); took > 4*time.Second {
		t.Logf("second serve took %v to fail (a loaded host?)", took)
	}

	// The first launch is still found: by name and by its file's path.
	path := filepath.Join(e.Dir, "config", "sglaunch", "profiles", "busy.yaml")
	rel, _ := filepath.Rel(e.Dir, path)
	for _, ref := range []string{"busy", path, "./" + rel} {
		stdout, stderr, code := e.Run("verify", "--profile", ref)
		if code != 0 || !strings.Contains(stdout, "MATCH") {
			t.Errorf("verify --profile %s: exit %d\n%s%s", ref, code, stdout, stderr)
		}
	}
	_ = first.Cmd.Process.Signal(syscall.SIGTERM)
	first.Wait(t, commandTimeout)
}

// TestTwoBenchesOnOnePort pins issue 12, defect 1 (bench): of two
// benchmarks on one port, the one with the slower load exited after 6 s
// "healthy" and recorded the other server's TTFT and ITL under its own
// plan and fingerprint. It must fail clearly, with no numbers recorded.
func TestTwoBenchesOnOnePort(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	port := simProfile(t, e, "shared", fastSim, "bench:\n  workloads:\n    - name: tiny\n      input_len: 8\n      output_len: 4\n      requests: 2\n")
	first, holder := serveHealthy(t, e, "shared", port)
	defer func() { _ = first.Cmd.Process.Signal(syscall.SIGTERM); first.Wait(t, commandTimeout) }()

	p := e.Start("bench", "--profile", "shared", "--skip-preflight")
	if code := p.Wait(t, benchBound); code != 1 {
		t.Fatalf("bench: exit %d, want 1\n%s", code, p.Stderr())
	}
	r := onlyRecord(t, e)
	if r.Status != "failed" || !strings.Contains(r.Error, "is held by pid "+strconv.Itoa(holder)) || len(r.Workloads) != 0 {
		t.Errorf("record %s %q with %d workloads, want failed naming pid %d and no results", r.Status, r.Error, len(r.Workloads), holder)
	}
}

// escapedWorker returns the pid of the sim's setsid worker under pid.
func escapedWorker(t *testing.T, pid int) int {
	t.Helper()
	for _, d := range descendantsOf(t, pid) {
		if st, err := proc.ReadStat(d); err == nil && strings.Contains(st.Comm, "escaped") {
			return d
		}
	}
	t.Fatalf("no escaped worker under pid %d", pid)
	return 0
}

// TestSetsidWorkerSurvivesKill9 pins issue 12, defect 7 (the server): a
// worker that called setsid() survived a kill -9 of sglaunch (23 of 23
// tries): the parent-death signal reaches the server's main process
// only, and sglaunch, its subreaper, was gone. It carries the launch id,
// and the next serve ends it, saying what it ended and why.
func TestSetsidWorkerSurvivesKill9(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	port := simProfile(t, e, "escape", map[string]string{"SGLANG_SIM_LOAD_SECONDS": "0.3", "SGLANG_SIM_SETSID_WORKER": "1"}, "")
	p, _ := serveHealthy(t, e, "escape", port)
	worker := escapedWorker(t, p.Cmd.Process.Pid)
	env, err := proc.Environ(worker)
	if err != nil || proc.EnvMap(env)["SGLAUNCH_LAUNCH_ID"] == "" {
		t.Fatalf("the escaped worker does not carry the launch id: %v", err)
	}
	_ = p.Cmd.Process.Signal(syscall.SIGKILL)
	p.Wait(t, commandTimeout)
	t.Cleanup(func() { _ = syscall.Kill(worker, syscall.SIGKILL) })
	testkit.WaitFor(t, goneBound, "the port to be free", func() bool { return healthStatus(port) == 0 })
	if !proc.Alive(worker) {
		t.Fatal("the escaped worker died with sglaunch: the scenario no longer reproduces")
	}

	next, _ := serveHealthy(t, e, "escape", port)
	if proc.Alive(worker) {
		t.Errorf("the escaped worker %d of the killed launch survived the next start", worker)
	}
	if want := fmt.Sprintf("pid %d sglang::escaped", worker); !strings.Contains(next.Stderr(), want) || !strings.Contains(next.Stderr(), "is gone") {
		t.Errorf("the next start does not say what it ended (%q) and why:\n%s", want, next.Stderr())
	}
	_ = next.Cmd.Process.Signal(syscall.SIGTERM)
	next.Wait(t, commandTimeout)
}

// TestCommandWorkloadChildrenSurviveKill9 pins issue 12, defect 7 (bench):
// after a kill -9 of sglaunch, a command workload's children survived
// (3 of 3, with the plan's environment) and so did its scratch
// directory. The next bench ends them and removes it.
func TestCommandWorkloadChildrenSurviveKill9(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.Vars["TMPDIR"] = filepath.Join(e.Dir, "tmp")
	if err := os.MkdirAll(e.Vars["TMPDIR"], 0o700); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(&loadgentest.Server{})
	defer srv.Close()
	pidFile := filepath.Join(e.Dir, "child.pid")
	wl := filepath.Join(e.Dir, "cmd.yaml")
	yaml := fmt.Sprintf("workloads:\n  - name: bg\n    command: \"sleep 300 & echo $! > %s; wait\"\n  - name: quick\n    command: \"true\"\n", pidFile)
	if err := os.WriteFile(wl, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	p := e.Start("bench", "--url", srv.URL, "--workload", wl)
	var child int
	testkit.WaitFor(t, waitTimeout, "the workload's child", func() bool {
		b, _ := os.ReadFile(pidFile)
		child, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		return child > 0 || isDone(p)
	})
	_ = p.Cmd.Process.Signal(syscall.SIGKILL)
	p.Wait(t, commandTimeout)
	t.Cleanup(func() { _ = syscall.Kill(child, syscall.SIGKILL) })
	time.Sleep(200 * time.Millisecond)
	scratch, _ := filepath.Glob(filepath.Join(e.Vars["TMPDIR"], "sglaunch-bench-*"))
	if !proc.Alive(child) || len(scratch) != 1 {
		t.Fatalf("nothing left to sweep (child alive %v, scratch %v)", proc.Alive(child), scratch)
	}

	quick := filepath.Join(e.Dir, "quick.yaml")
	_ = os.WriteFile(quick, []byte("workloads:\n  - name: quick\n    command: \"true\"\n"), 0o600)
	_, stderr, code := e.Run("bench", "--url", srv.URL, "--workload", quick)
	if code != 0 {
		t.Fatalf("next bench: exit %d\n%s", code, stderr)
	}
	testkit.WaitFor(t, goneBound, "the leftover child to die", func() bool { return !proc.Alive(child) })
	if left, _ := filepath.Glob(filepath.Join(e.Vars["TMPDIR"], "sglaunch-bench-*")); len(left) != 0 {
		t.Errorf("scratch directories left: %v", left)
	}
	if !strings.Contains(stderr, fmt.Sprintf("pid %d sleep (sleep 300)", child)) || !strings.Contains(stderr, "scratch directory "+scratch[0]) {
		t.Errorf("the next bench does not say what it ended:\n%s", stderr)
	}
}

// TestBenchKill9LosesFinishedLevels pins issue 12, defect 6: the record
// was written only at the end, so a kill -9 of bench lost every finished
// level. It is saved after each level, status interrupted until the run
// ends: the killed run's record keeps what completed, and the server
// dies with sglaunch.
func TestBenchKill9LosesFinishedLevels(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	port := simProfile(t, e, "killed", fastSim, `bench:
  workloads:
    - name: quick
      input_len: 8
      output_len: 4
      concurrency: [1, 2]
      requests: 2
    - name: long
      input_len: 8
      output_len: 100000
      requests: 1
`)
	p := e.Start("bench", "--profile", "killed")
	testkit.WaitFor(t, waitTimeout, "the long workload", func() bool {
		return strings.Contains(p.Stderr(), "quick c=2: 2 ok") || isDone(p)
	})
	time.Sleep(300 * time.Millisecond) // the long request is streaming
	_ = p.Cmd.Process.Signal(syscall.SIGKILL)
	p.Wait(t, commandTimeout)
	r := onlyRecord(t, e)
	if r.Status != "interrupted" || len(r.Workloads) != 2 || r.Workloads[0].Status != "ok" || len(r.Workloads[0].Levels) != 2 || r.Workloads[1].Status != "interrupted" {
		t.Fatalf("record %s with workloads %+v; want interrupted keeping quick's 2 levels", r.Status, r.Workloads)
	}
	if m := r.Workloads[0].Levels[1].Metrics; m["completed"] != 2 || m["median_ttft_ms"] <= 0 {
		t.Errorf("quick c=2 metrics: %v", m)
	}
	testkit.WaitFor(t, goneBound, "the server to die with sglaunch", func() bool { return healthStatus(port) == 0 })
	stdout, _, _ := e.Run("bench", "list")
	if !strings.Contains(stdout, "interrupted") || !strings.Contains(stdout, "0/4") {
		t.Errorf("bench list does not show the interrupted run and its requests:\n%s", stdout)
	}
}
