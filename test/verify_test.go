package test

import (
	"encoding/json"
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

	"github.com/sglaunch/sglaunch/internal/proc"
	"github.com/sglaunch/sglaunch/internal/testkit"
)

// kimiOnSim is a profile that runs the simulator with the reference
// deployment's flags and NCCL environment.
func kimiOnSim(t *testing.T, port int, extraEnv ...string) string {
	t.Helper()
	s := fmt.Sprintf(`extends: kimi-k2.5-int4-eagle3
python: %s
env:
  PYTHONPATH: ${SGLAUNCH_SIM_DIR}
  SGLANG_SIM_LOAD_SECONDS: 0.3
  SGLANG_SIM_WARMUP_SECONDS: 0.1
`, testkit.RealPython(t))
	for _, kv := range extraEnv {
		k, v, _ := strings.Cut(kv, "=")
		s += fmt.Sprintf("  %s: %q\n", k, v)
	}
	return s + fmt.Sprintf("args:\n  tp: 2\n  port: %d\n", port)
}

// planOf returns a profile's resolved plan as config --json prints it.
func planOf(t *testing.T, e *testEnv, args ...string) (argv []string, env map[string]string) {
	t.Helper()
	stdout, stderr, code := e.Run(append([]string{"config", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("config: exit %d\n%s", code, stderr)
	}
	var plan struct {
		Argv []string          `json:"argv"`
		Env  map[string]string `json:"env"`
	}
	if err := json.Unmarshal([]byte(stdout), &plan); err != nil {
		t.Fatal(err)
	}
	return plan.Argv, plan.Env
}

// startByHand starts the server the way a hand-written unit would: the
// plan's argv with an environment of the test's choosing.
func startByHand(t *testing.T, argv []string, env map[string]string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
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

func waitHealthy(t *testing.T, port int) {
	t.Helper()
	testkit.WaitFor(t, waitTimeout, "/health 200", func() bool {
		resp, err := http.Get("http://127.0.0.1:" + strconv.Itoa(port) + "/health")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == 200
	})
}

// waitReadyState waits until the runtime state of profile's launch says
// it is ready, which serve records just after /health turns 200.
func waitReadyState(t *testing.T, e *testEnv, profile string) {
	t.Helper()
	testkit.WaitFor(t, waitTimeout, "the runtime state to say ready", func() bool {
		files, _ := filepath.Glob(filepath.Join(e.Vars["SGLAUNCH_RUNTIME_DIR"], "*.json"))
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err == nil && strings.Contains(string(b), `"profile": "`+profile+`"`) && strings.Contains(string(b), `"ready_at"`) {
				return true
			}
		}
		return false
	})
}

// handEnv is a minimal environment for a hand-started server.
func handEnv(simDir string, kv ...string) map[string]string {
	m := map[string]string{"PATH": os.Getenv("PATH"), "HOME": os.Getenv("HOME"), "PYTHONPATH": simDir, "SGLANG_SIM_LOAD_SECONDS": "0.3", "SGLANG_SIM_WARMUP_SECONDS": "0.1"}
	for _, s := range kv {
		k, v, _ := strings.Cut(s, "=")
		m[k] = v
	}
	return m
}

func TestVerifyHandStartedDeployment(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	port := testkit.FreePort(t)
	e.Profile("kimi-on-sim", kimiOnSim(t, port))
	argv, planEnv := planOf(t, e, "--profile", "kimi-on-sim")

	// Without the NCCL variables, as the hand-written unit had it.
	srv := startByHand(t, argv, handEnv(planEnv["PYTHONPATH"]))
	waitHealthy(t, port)
	stdout, stderr, code := e.Run("verify", "--profile", "kimi-on-sim", "--pid", strconv.Itoa(srv.Process.Pid))
	if code != 1 {
		t.Fatalf("verify: exit %d, want 1 (drift)\n%s%s", code, stdout, stderr)
	}
	for _, name := range []string{"NCCL_PROTO", "NCCL_ALGO", "NCCL_P2P_LEVEL", "NCCL_MAX_NCHANNELS", "NCCL_BUFFSIZE", "NCCL_NTHREADS"} {
		if !lineWith(stdout, "MISSING", name) {
			t.Errorf("verify does not report %s MISSING:\n%s", name, stdout)
		}
	}
	if !strings.Contains(stdout, "DRIFT") {
		t.Errorf("no DRIFT verdict:\n%s", stdout)
	}
}

func TestVerifyNCCLConfAndWorkerEnv(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	port := testkit.FreePort(t)
	e.Profile("kimi-on-sim", kimiOnSim(t, port))
	argv, planEnv := planOf(t, e, "--profile", "kimi-on-sim")
	conf := filepath.Join(e.Dir, "nccl.conf")
	// NCCL_DEBUG: unset by the plan, filled by the file → EXTRA.
	// NCCL_ALGO: set by the plan; the environment wins → no drift.
	if err := os.WriteFile(conf, []byte("NCCL_DEBUG=INFO\nNCCL_ALGO=Tree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := handEnv(planEnv["PYTHONPATH"], "NCCL_CONF_FILE="+conf, "SGLANG_SIM_WORKER_ENV=NCCL_PROTO=Simple", "SGLANG_SIM_WORKER_ENV_RANK=1")
	for k, v := range planEnv {
		env[k] = v
	}
	srv := startByHand(t, argv, env)
	waitHealthy(t, port)
	stdout, stderr, code := e.Run("verify", "--profile", "kimi-on-sim", "--port", strconv.Itoa(port), "--json")
	if code != 1 {
		t.Fatalf("verify: exit %d, want 1\n%s%s", code, stdout, stderr)
	}
	var report struct {
		Rows []struct{ Setting, Status, B, Where string }
	}
	if err := json.Unmarshal([]byte(stdout), &report); err != nil {
		t.Fatal(err)
	}
	var debug, algo, proto []string
	for _, r := range report.Rows {
		switch r.Setting {
		case "NCCL_DEBUG":
			debug = append(debug, r.Status+" "+r.Where)
		case "NCCL_ALGO":
			algo = append(algo, r.Status)
		case "NCCL_PROTO":
			if r.Status != "MATCH" {
				proto = append(proto, r.Status+" "+r.B+" "+r.Where)
			}
		}
	}
	if len(debug) == 0 || !strings.HasPrefix(debug[0], "EXTRA nccl.conf "+conf) {
		t.Errorf("NCCL_DEBUG rows %q, want EXTRA from nccl.conf %s", debug, conf)
	}
	if strings.Join(algo, ",") != "MATCH" {
		t.Errorf("NCCL_ALGO rows %q, want one MATCH (the environment wins over nccl.conf)", algo)
	}
	worker := rankPID(t, srv.Process.Pid, 1)
	if len(proto) != 1 || proto[0] != fmt.Sprintf("DIFFERENT Simple env of pid %d", worker) {
		t.Errorf("NCCL_PROTO rows %q, want DIFFERENT Simple for the TP1 worker pid %d", proto, worker)
	}
}

// rankPID finds the sim's scheduler process of a TP rank under pid.
func rankPID(t *testing.T, pid, rank int) int {
	t.Helper()
	var found int
	testkit.WaitFor(t, waitTimeout, fmt.Sprintf("the TP%d worker of %d", rank, pid), func() bool {
		all, _ := proc.All()
		for p, st := range all {
			argv, err := proc.Cmdline(p)
			if err != nil || len(argv) == 0 {
				continue
			}
			// Without setproctitle the worker keeps its argv.
			if strings.Contains(strings.Join(argv, "\x00"), "sglang.srt.scheduler") && argValue(argv, "--parent") == strconv.Itoa(pid) && argValue(argv, "--tp-rank") == strconv.Itoa(rank) {
				found = p
				return true
			}
			// With it the argv area holds SGLang's title,
			// sglang::scheduler_TP1 (the _TPn part only at tp > 1).
			if st.PPID == pid && strings.HasPrefix(argv[0], "sglang::scheduler") && strings.HasSuffix(strings.Fields(argv[0])[0], "_TP"+strconv.Itoa(rank)) {
				found = p
				return true
			}
		}
		return false
	})
	return found
}

func argValue(argv []string, flag string) string {
	for i := 0; i+1 < len(argv); i++ {
		if argv[i] == flag {
			return argv[i+1]
		}
	}
	return ""
}

// siteHook writes dir/hooks/sitecustomize.py, which sets NCCL_ALGO=Tree
// at the interpreter's start on line 2, and returns the directory to put
// on PYTHONPATH and the file.
func siteHook(t *testing.T, dir string) (hooks, site string) {
	t.Helper()
	hooks = filepath.Join(dir, "hooks")
	if err := os.MkdirAll(hooks, 0o755); err != nil {
		t.Fatal(err)
	}
	site = filepath.Join(hooks, "sitecustomize.py")
	if err := os.WriteFile(site, []byte("import os\nos.environ['NCCL_ALGO'] = 'Tree'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return hooks, site
}

func TestVerifySiteHook(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	port := testkit.FreePort(t)
	hooks, site := siteHook(t, e.Dir)
	e.Profile("kimi-on-sim", kimiOnSim(t, port))
	argv, planEnv := planOf(t, e, "--profile", "kimi-on-sim")
	env := handEnv(planEnv["PYTHONPATH"] + ":" + hooks)
	for k, v := range planEnv {
		if k != "PYTHONPATH" {
			env[k] = v
		}
	}
	srv := startByHand(t, argv, env)
	waitHealthy(t, port)
	stdout, stderr, code := e.Run("verify", "--profile", "kimi-on-sim", "--pid", strconv.Itoa(srv.Process.Pid))
	if code != 1 {
		t.Fatalf("verify: exit %d, want 1\n%s%s", code, stdout, stderr)
	}
	if !lineWith(stdout, "DIFFERENT", "NCCL_ALGO", "Tree", "site hook "+site+":2") {
		t.Errorf("verify does not report the site hook:\n%s", stdout)
	}
}

func TestVerifyLoadingOrGone(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	port := testkit.FreePort(t)
	e.Profile("kimi-on-sim", kimiOnSim(t, port))
	argv, planEnv := planOf(t, e, "--profile", "kimi-on-sim")
	env := handEnv(planEnv["PYTHONPATH"], "SGLANG_SIM_LOAD_SECONDS=60")
	srv := startByHand(t, argv, env)
	time.Sleep(300 * time.Millisecond)
	_, stderr, code := e.Run("verify", "--profile", "kimi-on-sim", "--pid", strconv.Itoa(srv.Process.Pid))
	if code != 2 || !strings.Contains(stderr, "still loading") {
		t.Errorf("loading: exit %d, want 2 with 'still loading'\n%s", code, stderr)
	}
	_ = syscall.Kill(-srv.Process.Pid, syscall.SIGKILL)
	_ = srv.Wait()
	_, stderr, code = e.Run("verify", "--profile", "kimi-on-sim", "--pid", strconv.Itoa(srv.Process.Pid))
	if code != 2 || !strings.Contains(stderr, "gone") {
		t.Errorf("gone: exit %d, want 2 with 'gone'\n%s", code, stderr)
	}
	_, stderr, code = e.Run("verify", "--profile", "kimi-on-sim")
	if code != 2 || !strings.Contains(stderr, "no running sglaunch launch") {
		t.Errorf("nothing running: exit %d, want 2\n%s", code, stderr)
	}
}

// benchKimiOnSim writes the kimi-on-sim profile with a tiny workload,
// benchmarks it (preflight skipped: the kimi model paths are not here)
// and returns the server's port and the record.
func benchKimiOnSim(t *testing.T, e *testEnv) (int, benchRecord) {
	t.Helper()
	port := testkit.FreePort(t)
	e.Profile("kimi-on-sim", kimiOnSim(t, port)+"bench:\n  workloads:\n    - name: tiny\n      input_len: 8\n      output_len: 4\n      requests: 1\n")
	if _, stderr, code := e.Run("bench", "--profile", "kimi-on-sim", "--skip-preflight"); code != 0 {
		t.Fatalf("bench: exit %d\n%s", code, stderr)
	}
	return port, onlyRecord(t, e)
}

// lineWith reports whether one line of out holds every word.
func lineWith(out string, words ...string) bool {
	for _, line := range strings.Split(out, "\n") {
		all := true
		for _, w := range words {
			if !strings.Contains(line, w) {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// TestVerifyReferenceScenario is the deployment this project comes from:
// the benchmark ran with the NCCL tuning; the hand-written unit did not
// have it. verify against the bench record names every missing NCCL
// variable; the same deployment started by sglaunch serve matches.
func TestVerifyReferenceScenario(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	port, rec := benchKimiOnSim(t, e)

	argv, planEnv := planOf(t, e, "--profile", "kimi-on-sim")
	srv := startByHand(t, argv, handEnv(planEnv["PYTHONPATH"]))
	waitHealthy(t, port)
	stdout, stderr, code := e.Run("verify", "--record", rec.ID, "--pid", strconv.Itoa(srv.Process.Pid))
	if code != 1 {
		t.Fatalf("verify of the hand-started deployment: exit %d, want 1\n%s%s", code, stdout, stderr)
	}
	for _, name := range []string{"NCCL_PROTO", "NCCL_ALGO", "NCCL_P2P_LEVEL", "NCCL_MAX_NCHANNELS", "NCCL_BUFFSIZE", "NCCL_NTHREADS"} {
		if !lineWith(stdout, "MISSING", name) {
			t.Errorf("verify does not list %s as MISSING:\n%s", name, stdout)
		}
	}
	_ = syscall.Kill(-srv.Process.Pid, syscall.SIGKILL)
	_ = srv.Wait()

	p := e.Start("serve", "--profile", "kimi-on-sim", "--skip-preflight")
	// /health turns 200 a moment before serve records ready_at; verify
	// says "still loading" until it has.
	waitReadyState(t, e, "kimi-on-sim")
	stdout, stderr, code = e.Run("verify", "--record", rec.ID, "--pid", strconv.Itoa(p.Cmd.Process.Pid))
	if code != 0 {
		t.Errorf("verify of sglaunch serve (via sglaunch's pid): exit %d, want 0\n%s%s", code, stdout, stderr)
	}
	// With no target, verify finds the launch through its runtime state.
	stdout, stderr, code = e.Run("verify", "--record", rec.ID)
	if code != 0 || !strings.Contains(stdout, "MATCH: every perf-relevant setting") {
		t.Errorf("verify through the runtime state: exit %d, want 0\n%s%s", code, stdout, stderr)
	}
	if !strings.Contains(p.Stderr(), "benchmarked: "+rec.ID) {
		t.Errorf("serve did not name the record it reproduces:\n%s", p.Stderr())
	}
	_ = syscall.Kill(p.Cmd.Process.Pid, syscall.SIGTERM)
	p.Wait(t, commandTimeout)
	if _, err := os.Stat(filepath.Join(e.Vars["SGLAUNCH_RUNTIME_DIR"], "kimi-on-sim.json")); !os.IsNotExist(err) {
		t.Errorf("runtime state left behind after serve ended: %v", err)
	}
}

// TestServeRefusesSiteOverride: a sitecustomize.py on the interpreter's
// path that sets NCCL_ALGO=Tree makes serve refuse to start, naming the
// variable and the file, before any load; --allow-site-overrides only warns.
func TestServeRefusesSiteOverride(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	port := testkit.FreePort(t)
	hooks, site := siteHook(t, e.Dir)
	e.Profile("hooked", strings.Replace(kimiOnSim(t, port), "PYTHONPATH: ${SGLAUNCH_SIM_DIR}", "PYTHONPATH: ${SGLAUNCH_SIM_DIR}:"+hooks, 1))
	_, stderr, code := e.Run("serve", "--profile", "hooked", "--skip-preflight")
	if code != 1 {
		t.Fatalf("serve: exit %d, want 1\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "NCCL_ALGO=Tree (the plan says Ring) by "+site+":2") {
		t.Errorf("refusal does not name the variable and the file:\n%s", stderr)
	}
	if strings.Contains(stderr, "Load weight begin") {
		t.Errorf("the server started loading:\n%s", stderr)
	}

	p := e.Start("serve", "--profile", "hooked", "--skip-preflight", "--allow-site-overrides")
	waitHealthy(t, port)
	// /health turns 200 a moment before serve has checked the port's
	// holder and recorded the launch as ready.
	waitReadyState(t, e, "hooked")
	if !strings.Contains(p.Stderr(), "warning: python start-up changes managed variables") {
		t.Errorf("no warning under --allow-site-overrides:\n%s", p.Stderr())
	}
	// verify reports the same hook on the running server.
	stdout, vstderr, code := e.Run("verify", "--profile", "hooked")
	if code != 1 || !lineWith(stdout, "DIFFERENT", "NCCL_ALGO", "site hook "+site+":2") {
		t.Errorf("verify: exit %d\n%s%s", code, stdout, vstderr)
	}
	_ = syscall.Kill(p.Cmd.Process.Pid, syscall.SIGTERM)
	p.Wait(t, commandTimeout)
}

// TestServeNamesNearestRecord: with no record of the plan's fingerprint,
// serve names the nearest record and the settings that differ.
func TestServeNamesNearestRecord(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	port, rec := benchKimiOnSim(t, e)
	p := e.Start("serve", "--profile", "kimi-on-sim", "--skip-preflight", "--set", "env.NCCL_ALGO=Tree")
	waitHealthy(t, port)
	want := "not benchmarked: no bench record has this plan's fingerprint"
	if !strings.Contains(p.Stderr(), want) || !strings.Contains(p.Stderr(), "nearest is "+rec.ID) || !strings.Contains(p.Stderr(), "NCCL_ALGO Tree (benchmarked Ring)") {
		t.Errorf("serve does not name the nearest record and the difference:\n%s", p.Stderr())
	}
	_ = syscall.Kill(p.Cmd.Process.Pid, syscall.SIGTERM)
	p.Wait(t, commandTimeout)
}

// TestPreflightRefusesSiteOverride pins issue 12's "preflight is green
// when serve is not": the site-hook check serve runs is a preflight
// check, so preflight fails on the hook serve would refuse.
func TestPreflightRefusesSiteOverride(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	port := testkit.FreePort(t)
	hooks, site := siteHook(t, e.Dir)
	e.Profile("hooked", strings.Replace(kimiOnSim(t, port), "PYTHONPATH: ${SGLAUNCH_SIM_DIR}", "PYTHONPATH: ${SGLAUNCH_SIM_DIR}:"+hooks, 1))
	stdout, stderr, code := e.Run("preflight", "--profile", "hooked")
	if code != 1 {
		t.Fatalf("preflight: exit %d, want 1\n%s\n%s", code, stdout, stderr)
	}
	if !lineWith(stdout, "FAIL", "python start-up", "NCCL_ALGO=Tree (the plan says Ring) by "+site+":2") {
		t.Errorf("preflight does not fail on the site hook:\n%s", stdout)
	}
}

// TestVerifyAPIKeyServerReadsServerInfo pins a bug: verify asked
// /server_info without the server's --api-key, so against a server
// started with one it printed "server_info unavailable: ... 401
// Unauthorized" and compared nothing the server says about itself.
// bench --url takes the key by the same rule: with a stale
// OPENAI_API_KEY it sent that, and every request got 401.
func TestVerifyAPIKeyServerReadsServerInfo(t *testing.T) {
	t.Parallel()
	const key = "sk-e2e-verify"
	e := newEnv(t)
	port := testkit.FreePort(t)
	e.Profile("kimi-on-sim", kimiOnSim(t, port)+"  api-key: "+key+"\n")
	// The kimi model paths do not exist here: preflight would refuse.
	p := e.Start("serve", "--profile", "kimi-on-sim", "--skip-preflight")
	waitReadyState(t, e, "kimi-on-sim")
	// The sim enforces the key as SGLang does.
	resp, err := http.Get("http://127.0.0.1:" + strconv.Itoa(port) + "/server_info")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("/server_info without the key: got %d, want 401", resp.StatusCode)
	}
	for _, target := range [][]string{
		nil, // the running launch, from its runtime state
		{"--pid", strconv.Itoa(p.Cmd.Process.Pid)},
		{"--url", "http://127.0.0.1:" + strconv.Itoa(port)},
	} {
		t.Run(strings.Join(target, "="), func(t *testing.T) {
			stdout, stderr, code := e.Run(append([]string{"verify", "--profile", "kimi-on-sim", "--json"}, target...)...)
			if code != 0 {
				t.Fatalf("verify: exit %d, want 0\n%s%s", code, stdout, stderr)
			}
			var report struct {
				Observed struct {
					Endpoint string `json:"server_info_endpoint"`
					Err      string `json:"server_info_error"`
					Version  string `json:"server_version"`
				} `json:"observed"`
			}
			if err := json.Unmarshal([]byte(stdout), &report); err != nil {
				t.Fatal(err)
			}
			if o := report.Observed; o.Endpoint != "/server_info" || o.Err != "" || o.Version == "" {
				t.Errorf("got server_info from %q (version %q, error %q), want it read from /server_info", o.Endpoint, o.Version, o.Err)
			}
			text, _, _ := e.Run(append([]string{"verify", "--profile", "kimi-on-sim"}, target...)...)
			if strings.Contains(stdout+text, key) {
				t.Errorf("the report shows the API key:\n%s\n%s", text, stdout)
			}
		})
	}
	t.Run("bench --url with a stale OPENAI_API_KEY", func(t *testing.T) {
		file := filepath.Join(e.Dir, "one.yaml")
		if err := os.WriteFile(file, []byte("workloads:\n  - {name: gen, input_len: 8, output_len: 4, concurrency: 1, requests: 2}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		e.Vars["OPENAI_API_KEY"] = "sk-stale"
		stdout, stderr, code := e.Run("bench", "--url", "http://127.0.0.1:"+strconv.Itoa(port), "--workload", file)
		if code != 0 || !strings.Contains(stdout, "gen  [ok]") {
			t.Errorf("bench --url: exit %d, want 0 with the server's own key\n%s%s", code, stdout, stderr)
		}
	})
	_ = syscall.Kill(p.Cmd.Process.Pid, syscall.SIGTERM)
	p.Wait(t, commandTimeout)
}

// TestVerifyRetitledWorkers pins issue 10's first defect through the real
// binary and the faithful sim, whose workers retitle themselves with the
// real setproctitle package as SGLang's do: without SPT_NOENV their
// /proc/PID/environ reads back as NUL bytes, and verify reported every
// variable MISSING in every worker, DRIFT on a correct deployment.
func TestVerifyRetitledWorkers(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	port := testkit.FreePort(t)
	py := testkit.PythonWithSetproctitle(t)
	e.Profile("kimi-on-sim", strings.Replace(kimiOnSim(t, port), "python: "+testkit.RealPython(t), "python: "+py, 1))

	t.Run("launched by sglaunch: every rank readable, MATCH", func(t *testing.T) {
		p := e.Start("serve", "--profile", "kimi-on-sim", "--skip-preflight")
		waitReadyState(t, e, "kimi-on-sim")
		stdout, stderr, code := e.Run("verify", "--profile", "kimi-on-sim")
		if code != 0 || strings.Contains(stdout, "unreadable") {
			t.Errorf("verify: exit %d, want 0 with every worker read\n%s%s", code, stdout, stderr)
		}
		_ = syscall.Kill(p.Cmd.Process.Pid, syscall.SIGTERM)
		p.Wait(t, commandTimeout)
	})

	t.Run("started by hand without SPT_NOENV: workers unreadable, not MISSING", func(t *testing.T) {
		argv, planEnv := planOf(t, e, "--profile", "kimi-on-sim")
		env := handEnv(planEnv["PYTHONPATH"])
		for k, v := range planEnv {
			if strings.HasPrefix(k, "NCCL_") || strings.HasPrefix(k, "SGLANG_ENABLE") {
				env[k] = v
			}
		}
		srv := startByHand(t, argv, env)
		waitHealthy(t, port)
		stdout, stderr, code := e.Run("verify", "--profile", "kimi-on-sim", "--pid", strconv.Itoa(srv.Process.Pid))
		if code != 0 {
			t.Errorf("verify: exit %d, want 0 (what could be read matches)\n%s%s", code, stdout, stderr)
		}
		if !strings.Contains(stdout, "environment unreadable") || !strings.Contains(stdout, "SPT_NOENV=1") {
			t.Errorf("verify does not say the workers' environments are unreadable:\n%s", stdout)
		}
		// SPT_NOENV itself is MISSING (perf-neutral: sglaunch's own); no
		// variable of the plan is.
		for _, name := range []string{"NCCL_PROTO", "NCCL_ALGO", "NCCL_NTHREADS", "SGLANG_ENABLE_SPEC_V2"} {
			if lineWith(stdout, "MISSING", name) {
				t.Errorf("%s MISSING in an unreadable worker:\n%s", name, stdout)
			}
		}
	})
}
