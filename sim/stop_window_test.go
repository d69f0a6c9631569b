package sim

import (
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMultiNodeWorkerExits3AfterDrain: after rank 0's drained shutdown
// the schedulers of node 1 exit 0, and its launch_server goes on to start
// uvicorn without a tokenizer manager, whose start-up fails: exit 3, as
// SGLang's nodes >= 1 end (engine.py, http_server.py). The sim exited 0.
func TestMultiNodeWorkerExits3AfterDrain(t *testing.T) {
	t.Parallel()
	env := []string{"SGLANG_SIM_DRAIN_POLL_SECONDS=0.1", "SGLANG_SIM_SHUTDOWN_WAIT_SECONDS=1"}
	nodes := startCluster(t, "python3", 2, 2, map[int][]string{0: env, 1: env})
	nodes[0].signal(syscall.SIGTERM)
	wantSIGKILL(t, nodes[0], "rank 0 after its drain")
	ws := nodes[1].waitExit()
	if ws.Signaled() || ws.ExitStatus() != 3 {
		t.Errorf("node 1 after rank 0's drained shutdown: exit %v, want status 3", ws)
	}
	if out := nodes[1].stderr.String(); !strings.Contains(out, "Application startup failed. Exiting.") || !strings.Contains(out, "terminated with 0") {
		t.Errorf("node 1's last lines are not SGLang's:\n%s", tail(out, 12))
	}
}

// TestSIGTERMBeforeFirstRequestIsUvicorns: SGLang installs its SIGTERM
// handler on the first request through the tokenizer manager (the
// warm-up's /generate, after its 1 s sleep). A SIGTERM before it is
// uvicorn's: the server stops accepting, and shutdown waits for the
// warm-up thread, which gives up on /model_info and kills the tree
// (137); no drain runs. After it, the drain runs as before.
func TestSIGTERMBeforeFirstRequestIsUvicorns(t *testing.T) {
	t.Parallel()
	p := startSim(t, []string{"SGLANG_SIM_WARMUP_SECONDS=30", "SGLANG_SIM_WARMUP_SLEEP_SECONDS=20",
		"SGLANG_SIM_WARMUP_GIVE_UP_SECONDS=2", "SGLANG_SIM_DRAIN_POLL_SECONDS=0.1"})
	if !p.stderr.waitFor("Uvicorn running on", startTimeout) {
		t.Fatal("the port was never bound")
	}
	start := time.Now()
	p.signal(syscall.SIGTERM)
	ws := p.waitExit()
	if !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Errorf("exit %v, want killed by SIGKILL (137) when the warm-up gives up", ws)
	}
	if took := time.Since(start); took < 1500*time.Millisecond {
		t.Errorf("ended %v after the SIGTERM, want after the warm-up gave up (2 s from its start)", took)
	}
	out := p.stderr.String()
	if strings.Contains(out, "Draining requests") || strings.Contains(out, "Gracefully exiting") {
		t.Errorf("SGLang's drain ran before its handler was installed:\n%s", tail(out, 12))
	}
	for _, want := range []string{"Shutting down", "Waiting for application shutdown.", "Initialization failed. warmup error"} {
		if !strings.Contains(out+p.stdout.String(), want) {
			t.Errorf("no %q:\n%s", want, tail(out, 12))
		}
	}
}

// TestReadyEndpoint: /ready (newer SGLang, PR #37488) generates nothing:
// 200 once up, 503 while starting or draining.
func TestReadyEndpoint(t *testing.T) {
	t.Parallel()
	p := startSim(t, []string{"SGLANG_SIM_DRAIN_POLL_SECONDS=30"})
	p.waitReady()
	if code, _ := get(t, p.url("/ready")); code != 200 {
		t.Errorf("/ready when up: got %d, want 200", code)
	}
	p.signal(syscall.SIGTERM)
	if !p.stderr.waitFor("Draining requests", startTimeout) {
		t.Fatal("no drain")
	}
	if code, _ := get(t, p.url("/ready")); code != 503 {
		t.Errorf("/ready while draining: got %d, want 503", code)
	}
}

// TestSIGINTBeforeWarmupWaitsForIt: uvicorn's SIGINT shutdown also joins
// the warm-up thread; before the warm-up's /generate that thread retries
// a refused /model_info until it gives up and kills the tree (137).
func TestSIGINTBeforeWarmupWaitsForIt(t *testing.T) {
	t.Parallel()
	p := startSim(t, []string{"SGLANG_SIM_WARMUP_SECONDS=30", "SGLANG_SIM_WARMUP_SLEEP_SECONDS=20",
		"SGLANG_SIM_WARMUP_GIVE_UP_SECONDS=1.5"})
	if !p.stderr.waitFor("Uvicorn running on", startTimeout) {
		t.Fatal("the port was never bound")
	}
	p.signal(syscall.SIGINT)
	if ws := p.waitExit(); !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Errorf("exit %v, want killed by SIGKILL (137) when the warm-up gives up", ws)
	}
	if !strings.Contains(p.stderr.String(), "Initialization failed. warmup error") {
		t.Errorf("the warm-up did not give up:\n%s", tail(p.stderr.String(), 8))
	}
}
