package sim

import (
	"bufio"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/internal/testkit"
)

// The tests of this file run several nodes of one multi-node server on
// 127.0.0.1: each node its own HTTP port, all one dist-init port. The
// fidelity rows in sim/README.md ("Multi-node") name the SGLang source.

const (
	hangProbe   = 2 * time.Second // a /health that has not answered by then is hung
	missingHold = 3 * time.Second // how long a lone rank 0 must stay loading
)

// fastNode: the sim's waits scaled down (watchdog, /health step).
var fastNode = []string{"SGLANG_SIM_WATCHDOG_SECONDS=0.1", "SGLANG_SIM_HEALTH_POLL_SECONDS=0.1"}

// startNode starts node rank of an nnodes-node server with tp ranks in all.
func startNode(t *testing.T, python string, rank, nnodes, tp, distPort int, env []string, args ...string) *simProc {
	t.Helper()
	args = append([]string{
		"--tp", strconv.Itoa(tp), "--nnodes", strconv.Itoa(nnodes), "--node-rank", strconv.Itoa(rank),
		"--dist-init-addr", fmt.Sprintf("127.0.0.1:%d", distPort),
	}, args...)
	return startSimWith(t, python, append(append([]string{}, fastNode...), env...), args...)
}

// waitDummy waits for a node of rank >= 1 to serve its dummy health server.
func (p *simProc) waitDummy() {
	p.t.Helper()
	line := fmt.Sprintf("Dummy health check server started in background thread at 127.0.0.1:%d", p.port)
	if !p.stderr.waitFor(line, startTimeout) {
		p.t.Fatalf("no %q within %v", line, startTimeout)
	}
}

// startCluster starts every node, node 0 first, and waits until all serve.
func startCluster(t *testing.T, python string, nnodes, tp int, env map[int][]string) []*simProc {
	t.Helper()
	distPort := testkit.FreePort(t)
	nodes := make([]*simProc, nnodes)
	for r := range nnodes {
		nodes[r] = startNode(t, python, r, nnodes, tp, distPort, env[r])
	}
	nodes[0].waitReady()
	for _, p := range nodes[1:] {
		p.waitDummy()
	}
	return nodes
}

func killGroup(t *testing.T, p *simProc) {
	t.Helper()
	if err := syscall.Kill(-p.pid(), syscall.SIGKILL); err != nil {
		t.Fatalf("kill group %d: %v", p.pid(), err)
	}
}

func wantSIGKILL(t *testing.T, p *simProc, what string) {
	t.Helper()
	ws := p.waitExit()
	if !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Errorf("%s: exit %v, want killed by SIGKILL (137)", what, ws)
	}
}

// countStream starts a long stream on rank 0 and counts its SSE lines.
func countStream(t *testing.T, p *simProc) *atomic.Int64 {
	t.Helper()
	resp := postJSON(t, p.url("/generate"), map[string]any{
		"input_ids": []int{1, 2, 3}, "sampling_params": map[string]any{"max_new_tokens": 2000}, "stream": true,
	})
	t.Cleanup(func() { resp.Body.Close() })
	var n atomic.Int64
	r := bufio.NewReader(resp.Body)
	if _, err := r.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	n.Add(1)
	go func() {
		for {
			if _, err := r.ReadString('\n'); err != nil {
				return
			}
			n.Add(1)
		}
	}()
	return &n
}

// healthHangs reports whether GET /health is still unanswered after hangProbe.
func healthHangs(p *simProc) bool {
	c := *client
	c.Timeout = hangProbe
	resp, err := c.Get(p.url("/health"))
	if err != nil {
		return true
	}
	resp.Body.Close()
	return false
}

// TestMultiNodeComesUp: rank 0 serves the real API and logs the ready line;
// every other node serves only launch_dummy_health_check_server's routes,
// 200 with an empty body, and logs no ready line.
func TestMultiNodeComesUp(t *testing.T) {
	t.Parallel()
	for _, nnodes := range []int{2, 3} {
		t.Run(fmt.Sprintf("%d nodes", nnodes), func(t *testing.T) {
			t.Parallel()
			nodes := startCluster(t, "python3", nnodes, nnodes, nil)
			if code, _ := get(t, nodes[0].url("/health")); code != 200 {
				t.Errorf("rank 0 /health: got %d, want 200", code)
			}
			if code, body := get(t, nodes[0].url("/server_info")); code != 200 || !strings.Contains(string(body), fmt.Sprintf(`"nnodes":%d`, nnodes)) {
				t.Errorf("rank 0 /server_info: got %d %.80s, want 200 with nnodes %d", code, body, nnodes)
			}
			for r, p := range nodes[1:] {
				for _, path := range []string{"/health", "/health_generate", "/ping"} {
					if code, body := get(t, p.url(path)); code != 200 || len(body) != 0 {
						t.Errorf("rank %d %s: got %d %q, want 200 and no body", r+1, path, code, body)
					}
				}
				for _, path := range []string{"/server_info", "/model_info", "/v1/models", "/metrics"} {
					if code, _ := get(t, p.url(path)); code != 404 {
						t.Errorf("rank %d %s: got %d, want 404", r+1, path, code)
					}
				}
				if strings.Contains(p.stderr.String(), "ready to roll") || strings.Contains(p.stderr.String(), "Uvicorn running") {
					t.Errorf("rank %d logs rank 0's lines", r+1)
				}
			}
		})
	}
}

// TestMultiNodeRankTitles: tp 4 over 2 nodes puts TP2 and TP3 on node 1
// (engine.py _calculate_rank_ranges), with their titles and prefixes, and
// no detokenizer there.
func TestMultiNodeRankTitles(t *testing.T) {
	t.Parallel()
	py := testkit.PythonWithSetproctitle(t)
	nodes := startCluster(t, py, 2, 4, nil)
	for r, want := range [][]string{{"sglang::scheduler_TP0", "sglang::scheduler_TP1", "sglang::detokenizer"},
		{"sglang::scheduler_TP2", "sglang::scheduler_TP3"}} {
		w := workers(t, nodes[r])
		if len(w) != len(want) {
			t.Errorf("node %d workers: got %v, want %v", r, slices.Sorted(mapsKeys(w)), want)
		}
		for _, title := range want {
			if _, ok := w[title]; !ok {
				t.Errorf("node %d: no worker titled %s among %v", r, title, slices.Sorted(mapsKeys(w)))
			}
		}
	}
	log1 := nodes[1].stderr.String()
	for _, pre := range []string{" TP2] Load weight begin.", " TP3] Init torch distributed begin."} {
		if !strings.Contains(log1, pre) {
			t.Errorf("node 1 log lacks %q", pre)
		}
	}
	if strings.Contains(log1, " TP0]") || strings.Contains(log1, "Loading safetensors") {
		t.Errorf("node 1 logs rank 0's lines")
	}
}

// TestMultiNodeMissingRank: rank 0 waits at "Init torch distributed begin."
// for the other nodes (the port stays unbound) until --dist-timeout, when
// torch's store raises and the server dies as on any rank failure.
func TestMultiNodeMissingRank(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want string // "" : still loading after missingHold
	}{
		{"no timeout: hangs", nil, ""},
		{"dist-timeout 2", []string{"--dist-timeout", "2"}, "DistStoreError: Timed out after 2 seconds waiting for clients. 1/2 clients joined."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := startNode(t, "python3", 0, 2, 2, testkit.FreePort(t), nil, tt.args...)
			if !p.stderr.waitFor("TP0] Init torch distributed begin.", startTimeout) {
				t.Fatal("no Init torch distributed begin")
			}
			if tt.want != "" {
				wantSIGKILL(t, p, "rank 0 after --dist-timeout")
				if !strings.Contains(p.stderr.String(), tt.want) {
					t.Errorf("log lacks %q", tt.want)
				}
				return
			}
			time.Sleep(missingHold)
			if c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", p.port), time.Second); err == nil {
				c.Close()
				t.Errorf("port %d bound with a node missing", p.port)
			}
			if strings.Contains(p.stderr.String(), "Load weight begin") || !alive(p.pid()) {
				t.Errorf("rank 0 went on without node 1 (alive %v)", alive(p.pid()))
			}
		})
	}
}

// TestMultiNodeWorkerDies: a node dying inside a forward hangs rank 0's
// collectives: streams stop and /health never answers, the process lives
// on. Dying while rank 0 is idle, its link closes under rank 0's
// per-iteration gloo broadcast: rank 0 crashes and its tree dies (137).
func TestMultiNodeWorkerDies(t *testing.T) {
	t.Parallel()
	for _, busy := range []bool{true, false} {
		t.Run(fmt.Sprintf("busy=%v", busy), func(t *testing.T) {
			t.Parallel()
			nodes := startCluster(t, "python3", 2, 2, map[int][]string{0: {"SGLANG_HEALTH_CHECK_TIMEOUT=1000"}})
			var n *atomic.Int64
			if busy {
				n = countStream(t, nodes[0])
			}
			killGroup(t, nodes[1])
			if !busy {
				wantSIGKILL(t, nodes[0], "rank 0 after node 1 died idle")
				if !strings.Contains(nodes[0].stderr.String(), "Connection closed by peer") {
					t.Errorf("rank 0 log lacks gloo's Connection closed by peer")
				}
				return
			}
			time.Sleep(500 * time.Millisecond)
			before := n.Load()
			if !healthHangs(nodes[0]) {
				t.Errorf("rank 0 /health answered with node 1 dead mid-forward")
			}
			if after := n.Load(); after != before {
				t.Errorf("stream went on: %d lines, then %d", before, after)
			}
			if !alive(nodes[0].pid()) {
				t.Errorf("rank 0 died; under a hung collective it lives on")
			}
		})
	}
}

// TestMultiNodeRankZeroDies: the same on the workers. Rank 0 dying while
// idle crashes them (137); dying inside a forward leaves them hung, and
// their dummy /health still answers 200.
func TestMultiNodeRankZeroDies(t *testing.T) {
	t.Parallel()
	for _, busy := range []bool{true, false} {
		t.Run(fmt.Sprintf("busy=%v", busy), func(t *testing.T) {
			t.Parallel()
			nodes := startCluster(t, "python3", 3, 3, nil)
			if busy {
				countStream(t, nodes[0])
				time.Sleep(200 * time.Millisecond)
			}
			killGroup(t, nodes[0])
			for r, p := range nodes[1:] {
				if !busy {
					wantSIGKILL(t, p, fmt.Sprintf("rank %d after rank 0 died idle", r+1))
					continue
				}
				time.Sleep(500 * time.Millisecond)
				if code, _ := get(t, p.url("/health")); code != 200 || !alive(p.pid()) {
					t.Errorf("rank %d: /health %d, alive %v; want 200 from a live, hung node", r+1, code, alive(p.pid()))
				}
			}
		})
	}
}

// TestMultiNodeWorkerCrash: SGLANG_SIM_CRASH_DURING_LOAD and
// SGLANG_SIM_CRASH_AFTER_READY on node 1: its first rank fails with a
// traceback and SIGQUITs the server, which kills its tree (137); rank 0,
// idle, then fails on the closed link too.
func TestMultiNodeWorkerCrash(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, env, want string
	}{
		{"during load", "SGLANG_SIM_CRASH_DURING_LOAD=0.1", "CUDA out of memory"},
		{"after ready", "SGLANG_SIM_CRASH_AFTER_READY=0.3", "an illegal memory access was encountered"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			distPort := testkit.FreePort(t)
			n0 := startNode(t, "python3", 0, 2, 2, distPort, nil)
			n1 := startNode(t, "python3", 1, 2, 2, distPort, []string{tt.env})
			wantSIGKILL(t, n1, "node 1")
			log1 := n1.stderr.String()
			for _, s := range []string{"TP1] Scheduler hit an exception", tt.want, "Received sigquit from a child process"} {
				if !strings.Contains(log1, s) {
					t.Errorf("node 1 log lacks %q", s)
				}
			}
			wantSIGKILL(t, n0, "rank 0")
			if !strings.Contains(n0.stderr.String(), "Connection closed by peer") {
				t.Errorf("rank 0 log lacks gloo's Connection closed by peer")
			}
		})
	}
}

// TestMultiNodeTPNotDivisible: check_server_args asserts that the ranks
// split evenly over the nodes.
func TestMultiNodeTPNotDivisible(t *testing.T) {
	t.Parallel()
	code, _, stderr := runOnce(t, nil, "--model-path", testModel, "--tp", "3", "--nnodes", "2",
		"--dist-init-addr", "127.0.0.1:1", "--port", strconv.Itoa(testkit.FreePort(t)))
	if want := "AssertionError: tp_size must be divisible by number of nodes"; code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("got exit %d, stderr tail %q; want 1 and %q", code, tail(stderr, 3), want)
	}
}
