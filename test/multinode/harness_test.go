//go:build linux

package multinode

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/internal/testkit"
	"github.com/sglaunch/sglaunch/internal/testkit/netns"
)

// Generous bounds, for a loaded 2-core machine.
const (
	readyTimeout = 90 * time.Second
	exitTimeout  = 60 * time.Second
	// The profiles' heartbeat: a rank silent for 1.5 s is lost.
	heartbeat = 500 * time.Millisecond
	missed    = 3
	// serverPort is every node's SGLang port: each node has its own
	// network namespace.
	serverPort = 30000
	// groupSecret is every rank's group secret, as the orchestrator
	// gives it.
	groupSecret = "multinode-test-secret-0123456789abcdef"
)

var (
	sglaunchBin string
	sharedCache string
)

func TestMain(m *testing.M) { os.Exit(testMain(m)) }

func testMain(m *testing.M) int {
	if os.Geteuid() != 0 {
		fmt.Fprintln(os.Stderr, "test/multinode makes network namespaces: run it as root")
		return 1
	}
	return testkit.RunWithWorkspace(m, "sglaunch-multinode-", func(w *testkit.Workspace) error {
		sglaunchBin, sharedCache = w.Bin, w.Cache
		return nil
	})
}

// group is one test's nodes and the profile every rank runs.
type group struct {
	t       *testing.T
	c       *netns.Cluster
	profile string
	python  string
	ranks   []*rank
	// prepare, when set, readies rank i's home directory before it starts.
	prepare func(i int, home string)
	// env, when set, changes rank i's environment.
	env func(i int, env []string) []string
}

// rank is one sglaunch serve in its node.
type rank struct {
	i      int
	node   *netns.Node
	dir    string
	env    []string // what its sglaunch runs with
	stderr *testkit.SyncBuffer
	pid    int
	done   chan struct{}
	code   int
	endAt  time.Time
}

// newGroup makes n nodes and a profile for them: the demo with fast
// simulator timings, n nodes, a fast heartbeat, and extra YAML.
func newGroup(t *testing.T, n int, extra string) *group {
	t.Helper()
	g := &group{t: t, c: netns.New(t, n), python: testkit.PythonWithSetproctitle(t)}
	dir := t.TempDir()
	g.profile = filepath.Join(dir, "mn.yaml")
	yaml := fmt.Sprintf(`name: mn
extends: demo
python: %s
env:
  SGLANG_SIM_LOAD_SECONDS: "0.5"
  SGLANG_SIM_WARMUP_SECONDS: "0.1"
  SGLANG_SIM_TTFT_MS: "20"
  SGLANG_SIM_HEALTH_POLL_SECONDS: "0.05"
  SGLANG_SIM_DRAIN_POLL_SECONDS: "0.2"
  SGLANG_SIM_SHUTDOWN_WAIT_SECONDS: "1"
  SGLANG_SIM_WATCHDOG_SECONDS: "0.2"
args:
  port: %d
  tp: %d # one rank per node: SGLang wants tp divisible by the nodes
health:
  poll_interval: 100ms
  interval: 1s
stop_timeout: 10s
multinode:
  nodes: %d
  heartbeat: {interval: %s, threshold: %d}
%s`, g.python, serverPort, n, n, heartbeat, missed, extra)
	if err := os.WriteFile(g.profile, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return g
}

// lwsEnv places rank i as a LeaderWorkerSet pod does.
func (g *group) lwsEnv(i int) []string {
	return []string{"LWS_LEADER_ADDRESS=" + g.c.Nodes[0].IP, "LWS_GROUP_SIZE=" + strconv.Itoa(len(g.c.Nodes)), "LWS_WORKER_INDEX=" + strconv.Itoa(i)}
}

// skypilotEnv places rank i as SkyPilot does.
func (g *group) skypilotEnv(i int) []string {
	var ips []string
	for _, n := range g.c.Nodes {
		ips = append(ips, n.IP)
	}
	return []string{"SKYPILOT_NODE_RANK=" + strconv.Itoa(i), "SKYPILOT_NUM_NODES=" + strconv.Itoa(len(ips)),
		"SKYPILOT_NODE_IPS=" + strings.Join(ips, "\n") + "\n", "SKYPILOT_TASK_ID=t-" + strconv.Itoa(os.Getpid())}
}

// start runs `sglaunch serve` for rank i in its node, each rank with
// its own state and runtime directories (as separate hosts have).
func (g *group) start(i int, place []string, args ...string) *rank {
	g.t.Helper()
	node := g.c.Nodes[i]
	dir := g.t.TempDir()
	if g.prepare != nil {
		g.prepare(i, dir)
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "LANG=C.UTF-8",
		"XDG_CONFIG_HOME=" + filepath.Join(dir, "config"), "XDG_CACHE_HOME=" + sharedCache,
		"SGLAUNCH_STATE_DIR=" + filepath.Join(dir, "state"), "SGLAUNCH_RUNTIME_DIR=" + filepath.Join(dir, "run"),
		"SGLAUNCH_GROUP_SECRET=" + groupSecret}
	cmd := node.Command(context.Background(), sglaunchBin, append([]string{"serve", "--profile", g.profile}, args...)...)
	cmd.Env = append(env, place...)
	if g.env != nil {
		cmd.Env = g.env(i, cmd.Env)
	}
	r := &rank{i: i, node: node, dir: dir, env: cmd.Env, stderr: &testkit.SyncBuffer{}, done: make(chan struct{})}
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = r.stderr, r.stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		g.t.Fatalf("start rank %d: %v", i, err)
	}
	r.pid = cmd.Process.Pid
	go func() {
		_ = cmd.Wait()
		r.endAt = time.Now()
		r.code = cmd.ProcessState.ExitCode()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			r.code = 128 + int(ws.Signal())
		}
		close(r.done)
	}()
	g.t.Cleanup(func() {
		select {
		case <-r.done:
		default:
			_ = syscall.Kill(-r.pid, syscall.SIGKILL)
			<-r.done
		}
		if g.t.Failed() {
			g.t.Logf("rank %d output:\n%s", i, r.stderr.String())
		}
	})
	g.ranks = append(g.ranks, r)
	return r
}

// startAll starts every rank with place's variables.
func (g *group) startAll(place func(int) []string) {
	for i := range g.c.Nodes {
		g.start(i, place(i))
	}
}

// waitReady waits until every rank has logged its healthy line, which
// comes only once the whole group is ready.
func (g *group) waitReady() {
	g.t.Helper()
	for _, r := range g.ranks {
		testkit.WaitFor(g.t, readyTimeout, fmt.Sprintf("rank %d to be healthy", r.i), func() bool {
			select {
			case <-r.done:
				g.t.Fatalf("rank %d exited %d before the group was ready:\n%s", r.i, r.code, r.stderr.String())
			default:
			}
			return strings.Contains(r.stderr.String(), "sglaunch: healthy after")
		})
	}
}

// wait waits for the rank to exit and returns its status.
func (r *rank) wait(t *testing.T) int {
	t.Helper()
	select {
	case <-r.done:
		return r.code
	case <-time.After(exitTimeout):
		t.Fatalf("rank %d did not exit within %s:\n%s", r.i, exitTimeout, r.stderr.String())
	}
	return -1
}

// serverPID finds the rank's SGLang main process in its node.
func (r *rank) serverPID(t *testing.T) int {
	t.Helper()
	pids, err := r.node.Find("sglang.launch_server")
	if err != nil {
		t.Fatal(err)
	}
	if len(pids) == 0 {
		t.Fatalf("rank %d: no SGLang process in node %s", r.i, r.node.Name)
	}
	return pids[0]
}

// noneLeft asserts that no process is left in any node.
func (g *group) noneLeft() {
	g.t.Helper()
	for _, n := range g.c.Nodes {
		testkit.WaitFor(g.t, exitTimeout, "node "+n.Name+" to have no process left", func() bool {
			pids, err := n.Pids()
			return err == nil && len(pids) == 0
		})
	}
}

// httpClient reaches addresses from inside node n.
func httpClient(n *netns.Node) *http.Client {
	return &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) { return n.Dial(ctx, network, addr) },
	}}
}

// run runs another sglaunch command in rank r's node with its
// environment and returns its exit status and output.
func (r *rank) run(t *testing.T, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), exitTimeout)
	defer cancel()
	cmd := r.node.Command(ctx, sglaunchBin, args...)
	cmd.Env, cmd.Dir = r.env, r.dir
	out, err := cmd.CombinedOutput()
	if err != nil && cmd.ProcessState == nil {
		t.Fatalf("sglaunch %v: %v", args, err)
	}
	return cmd.ProcessState.ExitCode(), string(out)
}
