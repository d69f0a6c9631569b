package test

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/sglaunch/sglaunch/internal/testkit"
)

// normalizePreflight replaces what differs between machines and runs:
// the interpreter, the simulator's directory, the port, the duration.
func normalizePreflight(out string, port int) string {
	for _, r := range []struct{ re, with string }{
		{`python \S+, sglang`, "python PYTHON, sglang"},
		{`Python \d+\.\d+\.\d+ runs \(\S+\)`, "Python X.Y.Z runs (EXECUTABLE)"},
		{`\S*/sim-[0-9a-f]{12}`, "SIMDIR"},
		{`in \d+\.\d\ds`, "in N.NNs"},
	} {
		out = regexp.MustCompile(r.re).ReplaceAllString(out, r.with)
	}
	out = strings.ReplaceAll(out, ":"+strconv.Itoa(port), ":PORT")
	// Column widths follow the longest subject, which the port can change.
	return regexp.MustCompile(` +`).ReplaceAllString(out, " ")
}

// TestPreflightDemo: the demo profile against the simulator through the
// real binary and python3: flags from the sim's argparse --help, the
// three expected warnings, exit 0; the second run uses the cached flag
// list.
func TestPreflightDemo(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	port := testkit.FreePort(t)
	set := "args.port=" + strconv.Itoa(port)
	stdout, stderr, code := e.Run("preflight", "--profile", "demo", "--set", set)
	if code != 0 {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "sglang 0.5.19.dev0+sim, flags from --help, SGLang tables 0.5.19.dev0\n") {
		t.Errorf("first run: header does not say the flags came from --help:\n%s", stdout)
	}
	testkit.Golden(t, t.Name(), normalizePreflight(stdout, port), *testkit.Update)

	stdout, _, code = e.Run("preflight", "--profile", "demo", "--set", set)
	if code != 0 || !strings.Contains(stdout, "flags from --help (cached), SGLang tables 0.5.19.dev0\n") {
		t.Errorf("second run: exit %d, want 0 with the cached flag list:\n%s", code, stdout)
	}
	files, _ := filepath.Glob(filepath.Join(e.Vars["SGLAUNCH_STATE_DIR"], "preflight", "sglang-*-0.5.19.dev0+sim.json"))
	if len(files) != 1 {
		t.Errorf("cache files: got %v, want one for 0.5.19.dev0+sim in the state directory", files)
	}

	// --json for scripts.
	stdout, _, code = e.Run("preflight", "--profile", "demo", "--set", set, "--json", "--mode", "bench")
	var rep struct {
		Mode   string `json:"mode"`
		SGLang struct {
			Version string `json:"version"`
			Flags   string `json:"flags"`
		} `json:"sglang"`
		Findings []struct {
			Check, Status, Subject, Reason, Fix string
		} `json:"findings"`
		Summary struct{ Pass, Warn, Fail int } `json:"summary"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("--json: %v\n%s", err, stdout)
	}
	if code != 0 || rep.Mode != "bench" || rep.SGLang.Version != "0.5.19.dev0+sim" || rep.Summary.Warn != 3 || rep.Summary.Fail != 0 {
		t.Errorf("--json: exit %d, got mode %q sglang %+v summary %+v", code, rep.Mode, rep.SGLang, rep.Summary)
	}
}

// TestPreflightMistakes: a profile holding one mistake of each kind fails
// with exit 1, each named with its fix; nothing was launched.
func TestPreflightMistakes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	port := busy.Addr().(*net.TCPAddr).Port
	model := filepath.Join(e.Dir, "models", "missing")
	e.Profile("mistakes", fmt.Sprintf(`python: python3
env:
  PYTHONPATH: ${SGLAUNCH_SIM_DIR}
  NCCL_MAX_NCHANNEL: 16
  NCCL_BUFFSIZE: 16M
  NCCL_P2P_LEVEL: sys
  NCCL_ALGO: ring,tre
  NCCL_PROTO: LL, Simple
  SGLANG_MASKED_GEMM_FAST_ACT: 1
args:
  model-path: %s
  host: 127.0.0.1
  port: %d
  speculative-eagle-top-k: 1
  tp: eight
  attention-backend: flashinfr
  trust-remote-code: yes
`, model, port))
	stdout, stderr, code := e.Run("preflight", "--profile", "mistakes")
	if code != 1 {
		t.Fatalf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, want := range [][]string{
		{"FAIL", "NCCL_MAX_NCHANNEL", "fix: did you mean NCCL_MAX_NCHANNELS?"},
		{"FAIL", "NCCL_BUFFSIZE", "fix: write NCCL_BUFFSIZE=16777216 (16 MiB)"},
		{"FAIL", "NCCL_P2P_LEVEL", "fix: write NCCL_P2P_LEVEL=SYS"},
		{"FAIL", "NCCL_ALGO", "fix: write NCCL_ALGO=ring,Tree"},
		{"FAIL", "NCCL_PROTO", "fix: write NCCL_PROTO=LL,Simple"},
		{"WARN", "SGLANG_MASKED_GEMM_FAST_ACT", "fix: remove it"}, // retired in _DEPRECATED_ENVS (main 382343f86)
		{"FAIL", "--speculative-eagle-top-k", "fix: did you mean --speculative-eagle-topk?"},
		{"FAIL", "--tp ", "fix: write --tp 8"},
		{"FAIL", "--attention-backend", "fix: did you mean flashinfer?"},
		{"FAIL", "--trust-remote-code", "fix: write --trust-remote-code alone"},
		{"FAIL", "--model-path", "does not exist on this host"},
		{"FAIL", "127.0.0.1:" + strconv.Itoa(port), fmt.Sprintf("is in use by pid %d", os.Getpid())},
	} {
		if !findingLine(stdout, want[0], want[1], want[2]) {
			t.Errorf("no %s %s with %q in:\n%s", want[0], want[1], want[2], stdout)
		}
	}
	if !strings.Contains(stderr, "sglaunch: preflight: 11 check(s) failed") {
		t.Errorf("stderr: got %q, want the failure count", stderr)
	}
}

// findingLine reports whether out has a finding line starting with status
// and holding subject, followed (on it or the next lines) by text.
func findingLine(out, status, subject, text string) bool {
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if !strings.HasPrefix(strings.TrimSpace(l), status) || !strings.Contains(l, subject) {
			continue
		}
		for j := i; j < len(lines) && j <= i+3; j++ {
			if strings.Contains(lines[j], text) {
				return true
			}
		}
	}
	return false
}

// TestPreflightKimi: the reference profile on a machine without its model
// exits 1, with only the expected warnings among its flags and variables.
func TestPreflightKimi(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	stdout, stderr, code := e.Run("preflight", "--profile", "kimi-k2.5-int4-eagle3", "--catalog", "--set", "args.port="+strconv.Itoa(testkit.FreePort(t)))
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "flags from the embedded catalog") {
		t.Errorf("header does not name the embedded catalog:\n%s", stdout)
	}
	if _, err := os.Stat("/shared/kimi-k2.5-int4"); err != nil && !findingLine(stdout, "FAIL", "--model-path", "/shared/kimi-k2.5-int4 does not exist on this host") {
		t.Errorf("no clear missing-model failure:\n%s", stdout)
	}
	var warns []string
	for _, l := range strings.Split(stdout, "\n") {
		if f := strings.Fields(l); len(f) > 1 && f[0] == "WARN" {
			warns = append(warns, f[1])
		}
	}
	if got := strings.Join(warns, " "); got != "--cuda-graph-max-bs --enable-flashinfer-allreduce-fusion SGLANG_ENABLE_SPEC_V2" {
		t.Errorf("warnings: got %q, want the two deprecated flags and SGLANG_ENABLE_SPEC_V2", got)
	}
}

// TestPreflightBadInput: input errors exit 2 and name what is wrong.
func TestPreflightBadInput(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"preflight", "--profile", "demo", "--mode", "deploy"}, `--mode "deploy": want serve or bench`},
		{[]string{"preflight", "--profile", "no-such-profile"}, "no-such-profile"},
		{[]string{"preflight"}, "no profile given"},
		{[]string{"preflight", "--profile", "demo", "--set", "args.tp"}, "want KEY=VALUE"},
	} {
		_, stderr, code := e.Run(tt.args...)
		if code != 2 || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: exit %d stderr %q, want 2 and %q", tt.args, code, stderr, tt.want)
		}
	}
}
