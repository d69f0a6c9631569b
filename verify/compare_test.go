package verify

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sglaunch/sglaunch/internal/hostprobe"
	"github.com/sglaunch/sglaunch/plan"
)

func expected() Expected {
	return Expected{
		Label: "test plan",
		Argv:  []string{"/usr/bin/python3", "-m", "sglang.launch_server", "--model-path", "/m", "--tp", "2", "--trust-remote-code", "--mem-fraction-static", "0.88"},
		Env:   map[string]string{"NCCL_ALGO": "Ring", "NCCL_PROTO": "LL"}, EnvOrder: []string{"NCCL_ALGO", "NCCL_PROTO"},
		Managed: []string{"NCCL_", "SGLANG_", "CUDA_"},
	}
}

func serverArgv(extra ...string) []string {
	return append([]string{"/usr/bin/python3", "-m", "sglang.launch_server", "--model-path", "/m", "--tp-size", "2", "--trust-remote-code", "--mem-fraction-static", "0.880"}, extra...)
}

func obs(procs ...Process) *Observation {
	return &Observation{ServerPID: procs[0].PID, Procs: procs}
}

func env(kv ...string) map[string]string {
	m := map[string]string{}
	for _, s := range kv {
		k, v, _ := strings.Cut(s, "=")
		m[k] = v
	}
	return m
}

func rowsText(r *Report) string {
	var out []string
	for _, row := range r.Rows {
		if row.Status == plan.Match {
			continue
		}
		out = append(out, fmt.Sprintf("%s %s %s->%s @%s", row.Status, row.Setting, row.A, row.B, row.Where))
	}
	return strings.Join(out, "\n")
}

func TestCompare(t *testing.T) {
	worker := func(pid int, e map[string]string) Process {
		return Process{PID: pid, PPID: 100, Argv: []string{"python3", "-m", "sglang.srt.scheduler"}, Env: e}
	}
	tests := []struct {
		name  string
		o     *Observation
		drift int
		want  string
	}{
		{
			name: "match, with --tp written as --tp-size and 0.880 as 0.88",
			o:    obs(Process{PID: 100, Argv: serverArgv(), Env: env("NCCL_ALGO=Ring", "NCCL_PROTO=LL", "PATH=/bin")}, worker(101, env("NCCL_ALGO=Ring", "NCCL_PROTO=LL"))),
		},
		{
			name:  "hand-written unit without the NCCL variables",
			o:     obs(Process{PID: 100, Argv: serverArgv(), Env: env("PATH=/bin")}, worker(101, env())),
			drift: 2,
			want:  "MISSING NCCL_ALGO Ring-> @env of pids 100, 101\nMISSING NCCL_PROTO LL-> @env of pids 100, 101",
		},
		{
			name:  "a flag differs, a perf flag is extra, a neutral flag is extra",
			o:     obs(Process{PID: 100, Argv: []string{"python3", "-m", "sglang.launch_server", "--model-path", "/m", "--tp", "4", "--trust-remote-code", "--mem-fraction-static", "0.88", "--disable-radix-cache", "--port", "31000"}, Env: env("NCCL_ALGO=Ring", "NCCL_PROTO=LL")}),
			drift: 2,
			want:  "DIFFERENT --tp-size 2->4 @argv of pid 100\nEXTRA --disable-radix-cache ->(set) @argv of pid 100\nEXTRA --port ->31000 @argv of pid 100",
		},
		{
			name:  "a worker whose environment differs from its parent's",
			o:     obs(Process{PID: 100, Argv: serverArgv(), Env: env("NCCL_ALGO=Ring", "NCCL_PROTO=LL")}, worker(101, env("NCCL_ALGO=Ring", "NCCL_PROTO=LL")), worker(102, env("NCCL_ALGO=Tree", "NCCL_PROTO=LL"))),
			drift: 1,
			want:  "DIFFERENT NCCL_ALGO Ring->Tree @env of pid 102",
		},
		{
			name:  "a site hook overrides the environment",
			o:     &Observation{ServerPID: 100, Procs: []Process{{PID: 100, Argv: serverArgv(), Env: env("NCCL_ALGO=Ring", "NCCL_PROTO=LL")}}, Site: []hostprobe.SiteChange{{Name: "NCCL_ALGO", Before: "Ring", After: "Tree", File: "/venv/sitecustomize.py", Line: 3}}},
			drift: 1,
			want:  "DIFFERENT NCCL_ALGO Ring->Tree @site hook /venv/sitecustomize.py:3",
		},
		{
			name:  "nccl.conf fills an unset variable: extra; the environment wins over it: no drift",
			o:     obs(Process{PID: 100, Argv: serverArgv(), Env: env("NCCL_ALGO=Ring", "NCCL_PROTO=LL"), NCCLConf: []hostprobe.ConfEntry{{Name: "NCCL_DEBUG", Value: "INFO", File: "/etc/nccl.conf"}}}),
			drift: 1,
			want:  "EXTRA NCCL_DEBUG ->INFO @nccl.conf /etc/nccl.conf",
		},
		{
			name: "SGLang's own worker variables are not drift",
			o:    obs(Process{PID: 100, Argv: serverArgv(), Env: env("NCCL_ALGO=Ring", "NCCL_PROTO=LL")}, worker(101, env("NCCL_ALGO=Ring", "NCCL_PROTO=LL", "NCCL_CUMEM_ENABLE=0"))),
			want: "EXTRA NCCL_CUMEM_ENABLE ->0 @env of pid 101",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Compare(expected(), tt.o)
			if got := rowsText(r); got != tt.want {
				t.Errorf("rows:\n%s\nwant:\n%s", got, tt.want)
			}
			if r.Drift != tt.drift {
				t.Errorf("drift: got %d, want %d", r.Drift, tt.drift)
			}
		})
	}
}

func TestCompareServerInfo(t *testing.T) {
	e := expected()
	o := &Observation{ServerInfo: map[string]any{"model_path": "/m", "tp_size": float64(2), "trust_remote_code": true, "mem_fraction_static": 0.8}, ServerInfoAt: "/server_info", URL: "http://x"}
	r := Compare(e, o)
	got := rowsText(r)
	want := "DIFFERENT --mem-fraction-static 0.88->0.8 @server_info mem_fraction_static"
	if got != want {
		t.Errorf("rows:\n%s\nwant:\n%s", got, want)
	}
	var sb strings.Builder
	if err := r.WriteText(&sb); err != nil || !strings.Contains(sb.String(), "DRIFT: 1 perf-relevant") {
		t.Errorf("text report:\n%s", sb.String())
	}
}

// TestExpectedOfDeployment: diff of two deployments takes the first's
// server as the expected side and judges every process of the second.
func TestExpectedOfDeployment(t *testing.T) {
	a := obs(Process{PID: 100, Argv: serverArgv(), Env: env("NCCL_ALGO=Ring", "NCCL_PROTO=LL", "HOME=/root")})
	exp := ExpectedOf(a, "deployment pid 100")
	if exp.Env["NCCL_PROTO"] != "LL" || exp.Env["HOME"] != "" || len(exp.EnvOrder) != 2 {
		t.Fatalf("expected side %+v: want the managed variables only", exp)
	}
	if rows := Compare(exp, a).Differences(); len(rows) != 0 {
		t.Errorf("a deployment differs from itself: %+v", rows)
	}
	worker := Process{PID: 201, PPID: 200, Argv: []string{"sglang::scheduler_TP1"}, Env: env("NCCL_ALGO=Ring", "NCCL_PROTO=Simple")}
	b := obs(Process{PID: 200, Argv: serverArgv(), Env: env("NCCL_ALGO=Ring", "NCCL_PROTO=LL")}, worker)
	if got := rowsText(Compare(exp, b)); got != "DIFFERENT NCCL_PROTO LL->Simple @env of pid 201" {
		t.Errorf("got rows:\n%s\nwant the worker's NCCL_PROTO", got)
	}
}

// TestWriteDiff: a diff against a deployment shows verify's columns
// (status and where), one table per group; a diff of plans only the
// values, "-" where a side lacks the setting.
func TestWriteDiff(t *testing.T) {
	rows := []plan.Row{
		plan.Row{Group: plan.Perf, Kind: "env", Setting: "NCCL_PROTO", A: "LL", B: "Simple", Where: "env of pid 102"}.WithStatus(plan.Different),
		plan.Row{Group: plan.Neutral, Kind: "flag", Setting: "--port", A: "30000", Where: "argv of pid 100"}.WithStatus(plan.Missing),
	}
	var b strings.Builder
	if err := WriteDiff(&b, Heading{Label: "profile p", Fingerprint: "0123456789abcdef"}, Heading{Label: "deployment pid 100"}, rows); err != nil {
		t.Fatal(err)
	}
	want := `A: profile p (fingerprint 0123456789ab)
B: deployment pid 100

perf-relevant
STATUS     SETTING     A   B       WHERE
DIFFERENT  NCCL_PROTO  LL  Simple  env of pid 102

perf-neutral
STATUS   SETTING  A      B  WHERE
MISSING  --port   30000  -  argv of pid 100
`
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
	for i := range rows {
		rows[i].Where = ""
	}
	b.Reset()
	if err := WriteDiff(&b, Heading{Label: "a"}, Heading{Label: "b"}, rows); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "SETTING     A   B\nNCCL_PROTO  LL  Simple\n") || strings.Contains(b.String(), "STATUS") {
		t.Errorf("a diff of plans:\n%s", b.String())
	}
}
