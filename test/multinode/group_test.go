//go:build linux

package multinode

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"
)

// bound is the goal for a failure to end every rank: the
// heartbeat's interval × threshold plus 1 s. Tests allow more on a
// loaded machine and log what they measured.
var bound = heartbeat*missed + time.Second

func TestLWSGroupServesAndStops(t *testing.T) {
	g := newGroup(t, 2, "")
	g.startAll(g.lwsEnv)
	g.waitReady()
	for _, r := range g.ranks {
		if !strings.Contains(r.stderr.String(), "LWS_WORKER_INDEX (lws)") {
			t.Errorf("rank %d: the config does not say where the rank came from", r.i)
		}
	}
	// Rank 0 serves the API; a worker only SGLang's dummy /health.
	resp, err := httpClient(g.c.Nodes[0]).Post(fmt.Sprintf("http://127.0.0.1:%d/generate", serverPort), "application/json",
		strings.NewReader(`{"text":"hi","sampling_params":{"max_new_tokens":4}}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("rank 0 /generate: %d %s", resp.StatusCode, b)
	}
	if resp, err := httpClient(g.c.Nodes[1]).Get(fmt.Sprintf("http://127.0.0.1:%d/server_info", serverPort)); err == nil {
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			t.Error("the worker answered /server_info: not SGLang's dummy server")
		}
	}
	// The orchestrator stops every pod: the group stops as one, drained,
	// and every rank exits 0 (issue 22: a requested, drained stop is 0
	// on every rank, whichever got the signal).
	for _, r := range g.ranks {
		syscall.Kill(r.pid, syscall.SIGTERM)
	}
	for _, r := range g.ranks {
		if code := r.wait(t); code != 0 {
			t.Errorf("rank %d exited %d after SIGTERM, want 0", r.i, code)
		}
	}
	g.noneLeft()
}

func TestSkyPilotThreeNodes(t *testing.T) {
	g := newGroup(t, 3, "")
	g.startAll(g.skypilotEnv)
	g.waitReady()
	if !strings.Contains(g.ranks[0].stderr.String(), "group preflight passed: 3 ranks") {
		t.Errorf("rank 0 did not hold the group preflight:\n%s", g.ranks[0].stderr.String())
	}
	for _, r := range g.ranks {
		syscall.Kill(r.pid, syscall.SIGINT)
	}
	for _, r := range g.ranks {
		r.wait(t)
	}
	g.noneLeft()
}

// TestDriftedRankRefusedBeforeLoad: one rank's NCCL variable differs;
// rank 0 refuses the group with a table naming the rank and the
// setting, and no rank starts its server.
func TestDriftedRankRefusedBeforeLoad(t *testing.T) {
	g := newGroup(t, 2, "")
	r0 := g.start(0, g.lwsEnv(0))
	r1 := g.start(1, g.lwsEnv(1), "--set", "env.NCCL_PROTO=Simple")
	for _, r := range []*rank{r0, r1} {
		if code := r.wait(t); code != 2 {
			t.Errorf("rank %d exited %d, want 2 (a configuration error)", r.i, code)
		}
		out := r.stderr.String()
		if strings.Contains(out, "server started") {
			t.Errorf("rank %d started its server despite the drift", r.i)
		}
		if !strings.Contains(out, "NCCL_PROTO") || !strings.Contains(out, "rank 1 on ") {
			t.Errorf("rank %d does not name the rank and the setting:\n%s", r.i, out)
		}
	}
}

// failure runs one way of losing a rank and checks that every rank
// ends with status 1 within the heartbeat bound, the first failure named
// on every rank.
func failure(t *testing.T, name string, act func(g *group) *rank, want string) {
	g := newGroup(t, 3, "")
	g.startAll(g.lwsEnv)
	g.waitReady()
	at := time.Now()
	victim := act(g)
	var last time.Time
	for _, r := range g.ranks {
		code := r.wait(t)
		if r == victim {
			// Its own sglaunch was killed, or saw its own server end.
			if code != 1 && code != 128+int(syscall.SIGKILL) {
				t.Errorf("rank %d (the one that failed) exited %d", r.i, code)
			}
			continue
		}
		if code != 1 {
			t.Errorf("rank %d exited %d, want 1 (so that the orchestrator restarts the group)", r.i, code)
		}
		if !strings.Contains(r.stderr.String(), want) {
			t.Errorf("rank %d does not name the failure %q:\n%s", r.i, want, r.stderr.String())
		}
		if r.endAt.After(last) {
			last = r.endAt
		}
	}
	took := last.Sub(at)
	t.Logf("%s: every rank exited %s after the failure (goal %s)", name, took.Round(time.Millisecond), bound)
	if took > bound+5*time.Second {
		t.Errorf("%s: the group took %s to end, want about %s", name, took, bound)
	}
	g.noneLeft()
}

func TestWorkerCrashEndsGroup(t *testing.T) {
	failure(t, "worker crash", func(g *group) *rank {
		syscall.Kill(g.ranks[1].serverPID(t), syscall.SIGKILL)
		return g.ranks[1] // its own sglaunch says its server ended, and exits 1
	}, "rank 1 on node")
}

func TestRankZeroKilledEndsGroup(t *testing.T) {
	failure(t, "rank 0 killed", func(g *group) *rank {
		syscall.Kill(-g.ranks[0].pid, syscall.SIGKILL)
		return g.ranks[0]
	}, "lost rank 0")
}

func TestPartitionEndsGroup(t *testing.T) {
	failure(t, "partition", func(g *group) *rank {
		if err := g.c.Partition(2); err != nil {
			t.Fatal(err)
		}
		return nil
	}, "no heartbeat")
}
