package test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/internal/proc"
	"github.com/sglaunch/sglaunch/internal/testkit"
)

// benchBound: how long a small benchmark run on the simulator may take on
// a loaded 2-core machine (the runs below take a few seconds).
const benchBound = 2 * time.Minute

// benchRecord is the part of a record the tests read.
type benchRecord struct {
	ID          string          `json:"id"`
	Status      string          `json:"status"`
	Error       string          `json:"error"`
	URL         string          `json:"url"`
	Launched    bool            `json:"launched"`
	Profile     string          `json:"profile"`
	Fingerprint string          `json:"fingerprint"`
	Plan        json.RawMessage `json:"plan"`
	PlanNote    string          `json:"plan_note"`
	Observed    *struct {
		ServerPID int      `json:"server_pid"`
		Argv      []string `json:"argv"`
	} `json:"observed"`
	SGLang     string `json:"sglang_version"`
	SGLangFrom string `json:"sglang_version_from"`
	Host       struct {
		Hostname string `json:"hostname"`
		CPUs     int    `json:"cpus"`
	} `json:"host"`
	Server *struct {
		PID      int     `json:"pid"`
		LoadTime float64 `json:"load_time_s"`
		Phases   []struct {
			Name string  `json:"name"`
			At   float64 `json:"at_s"`
		} `json:"phases"`
		Stop string `json:"stop"`
		Log  string `json:"log"`
	} `json:"server"`
	Workloads []struct {
		Workload struct {
			Name string `json:"name"`
		} `json:"workload"`
		Status string `json:"status"`
		Error  string `json:"error"`
		Levels []struct {
			Concurrency int                `json:"concurrency"`
			Metrics     map[string]float64 `json:"metrics"`
		} `json:"levels"`
		External *struct {
			ExitCode int                `json:"exit_code"`
			Output   string             `json:"output"`
			Metrics  map[string]float64 `json:"metrics"`
		} `json:"external"`
	} `json:"workloads"`
}

// records reads every record the run left in the test's state directory.
func records(t *testing.T, e *testEnv) []benchRecord {
	t.Helper()
	dir := filepath.Join(e.Vars["SGLAUNCH_STATE_DIR"], "records")
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	var out []benchRecord
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var r benchRecord
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatalf("record %s: %v", f, err)
		}
		out = append(out, r)
	}
	return out
}

func onlyRecord(t *testing.T, e *testEnv) benchRecord {
	t.Helper()
	rs := records(t, e)
	if len(rs) != 1 {
		t.Fatalf("got %d records, want 1", len(rs))
	}
	return rs[0]
}

// smallWorkloads are quick loads on a simulator with TTFT 50 ms, ITL 5 ms.
const smallWorkloads = `
  - name: gen
    input_len: 64
    output_len: 8
    concurrency: [1, 2]
    requests: 3
  - name: chat
    api: chat
    input_len: 16
    output_len: 4
    request_rate: 20
    max_concurrency: 2
    requests: 4
  - name: ext
    command: "echo url={{.URL}} model={{.Model}}; echo '{\"completed\": 5, \"median_ttft_ms\": 51.5}' > {{.ResultFile}}"
`

var fastSim = map[string]string{"SGLANG_SIM_TTFT_MS": "50", "SGLANG_SIM_ITL_MS": "5", "SGLANG_SIM_LOAD_SECONDS": "0.5", "SGLANG_SIM_WARMUP_SECONDS": "0.1"}

func TestBenchURL(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	port := simProfile(t, e, "hand", fastSim, "")
	argv, planEnv := planOf(t, e, "--profile", "hand")
	env := handEnv(planEnv["PYTHONPATH"])
	for k, v := range fastSim {
		env[k] = v
	}
	startByHand(t, argv, env)
	waitHealthy(t, port)
	file := filepath.Join(e.Dir, "small.yaml")
	if err := os.WriteFile(file, []byte("workloads:"+smallWorkloads), 0o644); err != nil {
		t.Fatal(err)
	}
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	p := e.Start("bench", "--url", url, "--workload", file)
	if code := p.Wait(t, benchBound); code != 0 {
		t.Fatalf("bench: exit %d\n%s\n%s", code, p.Stdout(), p.Stderr())
	}
	out := p.Stdout()
	for _, want := range []string{"gen  [ok]", "c=1 ", "c=2 ", "chat  [ok]", "rate=20/s max=2", "ext  [ok]", "median_ttft_ms 51.50"} {
		if !strings.Contains(out, want) {
			t.Errorf("result tables lack %q:\n%s", want, out)
		}
	}
	r := onlyRecord(t, e)
	if r.Status != "ok" || r.Launched || string(r.Plan) != "null" || !strings.HasPrefix(r.PlanNote, "unknown") || r.URL != url {
		t.Errorf("got record %+v, want ok with the plan unknown", r)
	}
	if r.Observed == nil || len(r.Observed.Argv) < 3 || r.Observed.Argv[2] != "sglang.launch_server" {
		t.Errorf("the hand-started server was not observed: %+v", r.Observed)
	}
	if r.SGLang != "0.5.19.dev0+sim" || r.SGLangFrom != "/server_info" || r.Host.CPUs < 1 {
		t.Errorf("got version %q from %q, host %+v", r.SGLang, r.SGLangFrom, r.Host)
	}
	gen := r.Workloads[0]
	if len(gen.Levels) != 2 || gen.Levels[0].Metrics["completed"] != 3 || gen.Levels[1].Concurrency != 2 {
		t.Fatalf("gen levels: %+v", gen.Levels)
	}
	m := gen.Levels[0].Metrics
	// The simulator sends the first token 50 ms after the request arrives.
	if m["median_ttft_ms"] < 45 || m["median_ttft_ms"] > 50+1000 || m["decode_tok_s"] <= 0 || m["total_output_tokens"] != 24 {
		t.Errorf("gen c=1 metrics: %v", m)
	}
	if x := r.Workloads[2].External; x == nil || x.ExitCode != 0 || !strings.Contains(x.Output, "url="+url+" model=sim/model") || x.Metrics["completed"] != 5 {
		t.Errorf("ext: %+v", x)
	}

	// list, show and the JSON forms read it back.
	stdout, stderr, code := e.Run("bench", "list")
	if code != 0 || !strings.Contains(stdout, r.ID) || !strings.Contains(stdout, "gen,chat,ext") {
		t.Errorf("bench list: exit %d\n%s%s", code, stdout, stderr)
	}
	stdout, stderr, code = e.Run("bench", "show", r.ID[:4])
	if code != 0 || !regexp.MustCompile(`record +`+r.ID+`  OK`).MatchString(stdout) || !strings.Contains(stdout, "already running") {
		t.Errorf("bench show: exit %d\n%s%s", code, stdout, stderr)
	}
	stdout, _, code = e.Run("bench", "show", "--json", "latest")
	var back benchRecord
	if code != 0 || json.Unmarshal([]byte(stdout), &back) != nil || back.ID != r.ID {
		t.Errorf("bench show --json latest: exit %d\n%s", code, stdout)
	}
}

// TestBenchLaunch: bench resolves the plan in bench mode, starts the
// server as serve does, runs the profile's workloads, records the plan
// with the results, and stops the server with nothing left behind.
func TestBenchLaunch(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	port := simProfile(t, e, "fast", fastSim, "bench:\n  workloads:"+strings.ReplaceAll(smallWorkloads, "\n  ", "\n    "))
	p := e.Start("bench", "--profile", "fast")
	var serverPID int
	testkit.WaitFor(t, waitTimeout, "the server to listen", func() bool {
		serverPID, _ = proc.ListeningPID(port)
		return serverPID > 0 || isDone(p)
	})
	descendants := descendantsOf(t, p.Cmd.Process.Pid)
	if code := p.Wait(t, benchBound); code != 0 {
		t.Fatalf("bench: exit %d\n%s\n%s", code, p.Stdout(), p.Stderr())
	}
	allGone(t, append(descendants, serverPID))
	if healthStatus(port) != 0 {
		t.Errorf("port %d still answers after bench", port)
	}
	if !strings.Contains(p.Stderr(), "# mode         bench") {
		t.Errorf("the effective config was not printed:\n%s", p.Stderr())
	}
	r := onlyRecord(t, e)
	var plan struct {
		Fingerprint string   `json:"fingerprint"`
		Argv        []string `json:"argv"`
	}
	if err := json.Unmarshal(r.Plan, &plan); err != nil {
		t.Fatal(err)
	}
	stdout, _, _ := e.Run("config", "--json", "--mode", "bench", "--profile", "fast")
	var want struct {
		Fingerprint string `json:"fingerprint"`
	}
	json.Unmarshal([]byte(stdout), &want)
	if r.Status != "ok" || !r.Launched || r.Fingerprint != want.Fingerprint || plan.Fingerprint != want.Fingerprint || r.Profile != "fast" {
		t.Errorf("got %+v (plan fingerprint %s), want ok with fingerprint %s", r, plan.Fingerprint, want.Fingerprint)
	}
	if r.SGLang != "0.5.19.dev0+sim" || !strings.HasPrefix(r.SGLangFrom, "importlib.metadata via ") {
		t.Errorf("got version %q from %q, want it from the plan's interpreter", r.SGLang, r.SGLangFrom)
	}
	if r.Server == nil || r.Server.LoadTime <= 0 || len(r.Server.Phases) == 0 || r.Server.PID != serverPID || !strings.HasPrefix(r.Server.Stop, "stopped by sglaunch") {
		t.Fatalf("server facts: %+v", r.Server)
	}
	log, err := os.ReadFile(r.Server.Log)
	if err != nil || !strings.Contains(string(log), "The server is fired up and ready to roll!") {
		t.Errorf("server log %s: %v\n%s", r.Server.Log, err, log)
	}
	// Issue 12 defect 3: records and server logs were 0644 in 0755 directories.
	for _, f := range []string{r.Server.Log, filepath.Dir(r.Server.Log)} {
		if fi, err := os.Stat(f); err != nil || fi.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s: %v, mode %v; want no access for group and others", f, err, fi.Mode())
		}
	}
	if len(r.Workloads) != 3 || r.Workloads[1].Status != "ok" || !strings.Contains(r.Workloads[2].External.Output, fmt.Sprintf("url=http://127.0.0.1:%d", port)) {
		t.Errorf("workloads: %+v", r.Workloads)
	}
}

func isDone(p *Proc) bool {
	select {
	case <-p.Done():
		return true
	default:
		return false
	}
}

// TestBenchCompare: two runs of one profile, the second with a slower
// decode and other NCCL and flag settings; compare shows both. It judges
// a measured decode rate, so it does not run in parallel with the others.
func TestBenchCompare(t *testing.T) {
	e := newEnv(t)
	simProfile(t, e, "cmp", fastSim, "bench:\n  workloads:\n    - name: one\n      input_len: 16\n      output_len: 30\n      requests: 2\n")
	for _, extra := range [][]string{nil, {"--set", "env.SGLANG_SIM_ITL_MS=10", "--set", "env.NCCL_PROTO=LL", "--", "--mem-fraction-static", "0.8"}} {
		args := append([]string{"bench", "--profile", "cmp"}, extra...)
		if _, stderr, code := e.Run(args...); code != 0 {
			t.Fatalf("bench %v: exit %d\n%s", extra, code, stderr)
		}
	}
	rs := records(t, e)
	if len(rs) != 2 {
		t.Fatalf("got %d records", len(rs))
	}
	a, b := rs[0], rs[1]
	stdout, stderr, code := e.Run("bench", "compare", a.ID, b.ID)
	if code != 0 {
		t.Fatalf("compare: exit %d\n%s", code, stderr)
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`plan: perf-relevant settings differ`),
		regexp.MustCompile(`env SGLANG_SIM_ITL_MS +5 +10`),
		regexp.MustCompile(`env NCCL_PROTO +\(unset\) +LL`),
		regexp.MustCompile(`--mem-fraction-static +\(unset\) +0.8`),
		regexp.MustCompile(`one +c=1 +decode_tok_s +\d+\.\d+ +\d+\.\d+ +-[3-6]\d\.\d%`),
	} {
		if !want.MatchString(stdout) {
			t.Errorf("compare output does not match %s:\n%s", want, stdout)
		}
	}
	stdout, _, code = e.Run("bench", "compare", "--json", a.ID, b.ID)
	var cmp struct {
		Comparison struct {
			SamePlan bool `json:"same_plan"`
			Metrics  []struct {
				Metric   string  `json:"metric"`
				DeltaPct float64 `json:"delta_pct"`
			} `json:"metrics"`
		} `json:"comparison"`
	}
	if code != 0 || json.Unmarshal([]byte(stdout), &cmp) != nil || cmp.Comparison.SamePlan || len(cmp.Comparison.Metrics) == 0 {
		t.Errorf("compare --json: exit %d\n%s", code, stdout)
	}
}

func TestBenchInputErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	simProfile(t, e, "ok", fastSim, "")
	badTemplate := e.Profile("badtpl", "extends: ok\nbench:\n  workloads:\n    - name: x\n      command: \"run {{.Nope}}\"\n")
	zero := filepath.Join(e.Dir, "zero.yaml")
	os.WriteFile(zero, []byte("name: z\nrequests: 0\n"), 0o644)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"bench", "--profile", "ok", "-w", "decode1"}, `unknown workload "decode1" (not found); did you mean "decode-1"?`},
		{[]string{"bench", "--profile", "badtpl"}, badTemplate + `:5:16: bench.workloads[0].command: bad template`},
		{[]string{"bench", "--profile", "ok", "-w", zero}, zero + ":2:11: requests: want at least 1, got 0"},
		{[]string{"bench", "--url", "localhost:30000"}, `--url "localhost:30000": want the server's base URL`},
		{[]string{"bench", "--url", "http://127.0.0.1:1", "--set", "args.tp=2"}, "--set, --unset and server arguments apply only when sglaunch launches the server"},
		{[]string{"bench", "--profile", "nope"}, `profile "nope"`},
		{[]string{"bench", "show", "ffff"}, `record "ffff": not found`},
		{[]string{"bench", "compare", "a"}, "want two record IDs"},
		{[]string{"bench", "--profile", "ok", "--log-format", "xml"}, "--log-format"},
	}
	for _, tt := range tests {
		_, stderr, code := e.Run(tt.args...)
		if code != 2 || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: exit %d, want 2 with %q; stderr:\n%s", tt.args, code, tt.want, stderr)
		}
	}
	if rs := records(t, e); len(rs) != 0 {
		t.Errorf("input errors left %d records", len(rs))
	}
}

// TestBenchUnreachableURL: bench --url to a server that is not there
// exits 1 saying so, and records nothing.
func TestBenchUnreachableURL(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	url := fmt.Sprintf("http://127.0.0.1:%d", testkit.FreePort(t))
	_, stderr, code := e.Run("bench", "--url", url)
	if code != 1 || !strings.Contains(stderr, "cannot reach the server at "+url) || !strings.Contains(stderr, "connection refused") {
		t.Fatalf("exit %d, want 1 saying the server cannot be reached:\n%s", code, stderr)
	}
	// Issue 24: a run that never reached its server left a failed record
	// in bench list; nothing was measured, so nothing is recorded.
	if rs := records(t, e); len(rs) != 0 {
		t.Errorf("got %d records, want none: %+v", len(rs), rs)
	}
}

// TestBenchServerDiesMidRun: the record keeps what completed, marked failed.
func TestBenchServerDiesMidRun(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	port := simProfile(t, e, "dies", fastSim, `bench:
  workloads:
    - name: quick
      input_len: 8
      output_len: 4
      requests: 2
    - name: long
      input_len: 8
      output_len: 100000
      requests: 1
    - name: never
      requests: 1
`)
	p := e.Start("bench", "--profile", "dies")
	testkit.WaitFor(t, waitTimeout, "the long workload", func() bool {
		return strings.Contains(p.Stderr(), "quick c=1: 2 ok") || isDone(p)
	})
	pid, err := proc.ListeningPID(port)
	if err != nil || pid == 0 {
		t.Fatalf("no server on port %d: %v\n%s", port, err, p.Stderr())
	}
	descendants := descendantsOf(t, p.Cmd.Process.Pid)
	time.Sleep(300 * time.Millisecond) // the long request is streaming
	syscall.Kill(pid, syscall.SIGKILL)
	if code := p.Wait(t, benchBound); code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, p.Stderr())
	}
	allGone(t, descendants)
	r := onlyRecord(t, e)
	if r.Status != "failed" || !strings.Contains(r.Error, "workload long") || !strings.Contains(r.Error, "the server ended mid-run: server exited with SIGKILL") {
		t.Errorf("record status %q error %q, want failed naming the workload", r.Status, r.Error)
	}
	var st []string
	for _, w := range r.Workloads {
		st = append(st, w.Workload.Name+"="+w.Status)
	}
	if got := strings.Join(st, " "); got != "quick=ok long=failed never=skipped" {
		t.Errorf("workloads: %s", got)
	}
	if len(r.Workloads[0].Levels) != 1 || r.Workloads[0].Levels[0].Metrics["completed"] != 2 {
		t.Errorf("the completed workload's results are missing: %+v", r.Workloads[0])
	}
	if !strings.Contains(p.Stderr(), "record "+r.ID+" (failed) saved") {
		t.Errorf("stderr does not say where the record is:\n%s", p.Stderr())
	}
}

func TestBenchLaunchFails(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	env := map[string]string{"SGLANG_SIM_CRASH_DURING_LOAD": "0.2"}
	for k, v := range fastSim {
		env[k] = v
	}
	simProfile(t, e, "crash", env, "")
	_, stderr, code := e.Run("bench", "--profile", "crash")
	if code != 1 || !strings.Contains(stderr, "launch: server exited") {
		t.Fatalf("exit %d, want 1 with the launch failure:\n%s", code, stderr)
	}
	if r := onlyRecord(t, e); r.Status != "failed" || !strings.HasPrefix(r.Error, "launch: ") || len(r.Workloads) != 0 {
		t.Errorf("record %+v, want failed at launch", r)
	}
}

func TestBenchInterrupted(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	port := simProfile(t, e, "intr", fastSim, "bench:\n  workloads:\n    - name: long\n      output_len: 100000\n      requests: 1\n")
	p := e.Start("bench", "--profile", "intr")
	testkit.WaitFor(t, waitTimeout, "the run to start", func() bool {
		return strings.Contains(p.Stderr(), "sglaunch: healthy after") || isDone(p)
	})
	descendants := descendantsOf(t, p.Cmd.Process.Pid)
	time.Sleep(300 * time.Millisecond)
	p.Cmd.Process.Signal(syscall.SIGINT)
	if code := p.Wait(t, benchBound); code != 130 {
		t.Fatalf("exit %d, want 130\n%s", code, p.Stderr())
	}
	allGone(t, descendants)
	if healthStatus(port) != 0 {
		t.Errorf("the server still answers")
	}
	if r := onlyRecord(t, e); r.Status != "failed" || !strings.Contains(r.Error, "interrupted") {
		t.Errorf("record status %q error %q, want failed: interrupted", r.Status, r.Error)
	}
}

func TestBenchKeepRunning(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	name := "keep"
	port := simProfile(t, e, name, fastSim, "bench:\n  workloads:\n    - name: q\n      input_len: 8\n      output_len: 4\n      requests: 1\n")
	p := e.Start("bench", "--profile", name, "--keep-running")
	// stdout and stderr are two pipes: the results may arrive a moment
	// after the "kept running" line.
	testkit.WaitFor(t, benchBound, "server kept running, results printed", func() bool {
		return strings.Contains(p.Stderr(), "server kept running at") && strings.Contains(p.Stdout(), "q  [ok]") || isDone(p)
	})
	if isDone(p) {
		t.Fatalf("bench exited:\n%s", p.Stderr())
	}
	if !strings.Contains(p.Stdout(), "q  [ok]") || healthStatus(port) != 200 {
		t.Errorf("results not printed or server not healthy while kept:\n%s", p.Stdout())
	}
	if r := onlyRecord(t, e); r.Status != "ok" {
		t.Errorf("record saved before the wait: %+v", r)
	}
	descendants := descendantsOf(t, p.Cmd.Process.Pid)

	// A --url run finds the launch's plan through its runtime state.
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	other := newEnv(t)
	other.Vars["SGLAUNCH_RUNTIME_DIR"] = e.Vars["SGLAUNCH_RUNTIME_DIR"]
	quick := filepath.Join(other.Dir, "quick.yaml")
	os.WriteFile(quick, []byte("name: q\ninput_len: 8\noutput_len: 4\nrequests: 1\n"), 0o644)
	if _, stderr, code := other.Run("bench", "--url", url, "-w", quick); code != 0 {
		t.Fatalf("bench --url: exit %d\n%s", code, stderr)
	}
	byURL := onlyRecord(t, other)
	if byURL.Profile != name || byURL.Fingerprint == "" || string(byURL.Plan) == "null" || !strings.HasPrefix(byURL.PlanNote, "from the runtime state") || byURL.Observed == nil || byURL.Observed.ServerPID == 0 {
		t.Errorf("--url record: profile %q fingerprint %q note %q observed %+v", byURL.Profile, byURL.Fingerprint, byURL.PlanNote, byURL.Observed)
	}
	p.Cmd.Process.Signal(syscall.SIGTERM)
	if code := p.Wait(t, benchBound); code != 0 {
		t.Fatalf("exit %d, want 0 (the run was ok)\n%s", code, p.Stderr())
	}
	allGone(t, descendants)
	if r := onlyRecord(t, e); r.Server == nil || !strings.HasPrefix(r.Server.Stop, "stopped by sglaunch") {
		t.Errorf("record after stop: %+v", r.Server)
	}
}
