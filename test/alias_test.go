package test

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sglaunch/sglaunch/internal/testkit"
)

// configOf returns a profile's fingerprint and server argv as config
// --json prints them.
func configOf(t *testing.T, e *testEnv, args ...string) (fingerprint string, argv []string) {
	t.Helper()
	stdout, stderr, code := e.Run(append([]string{"config", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("config %v: exit %d\n%s", args, code, stderr)
	}
	var p struct {
		Fingerprint string   `json:"fingerprint"`
		Argv        []string `json:"argv"`
	}
	if err := json.Unmarshal([]byte(stdout), &p); err != nil {
		t.Fatal(err)
	}
	return p.Fingerprint, p.Argv[3:]
}

// TestAdviceFollowedSameFingerprint pins issue 20's new-user defect
// through the binary: preflight says to write --cuda-graph-max-bs-decode
// instead of the deprecated --cuda-graph-max-bs; doing so changed the
// fingerprint and diff exited 1, although SGLang stores both into one
// field (cuda_graph_max_bs_decode). Now the advice followed is the same
// plan: one fingerprint, diff exit 0.
func TestAdviceFollowedSameFingerprint(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	head := fmt.Sprintf("python: python3\nargs:\n  model-path: /models/m\n  port: %d\n  tp: 2\n", testkit.FreePort(t))
	e.Profile("old", head+"  cuda-graph-max-bs: 16\n")
	stdout, stderr, _ := e.Run("preflight", "--profile", "old", "--catalog")
	m := regexp.MustCompile(`fix: write --(cuda-graph-max-bs-decode) (\S+) instead`).FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("preflight gives no advice for --cuda-graph-max-bs:\n%s%s", stdout, stderr)
	}
	e.Profile("new", head+"  "+m[1]+": "+m[2]+"\n")

	fpOld, _ := configOf(t, e, "--profile", "old")
	fpNew, _ := configOf(t, e, "--profile", "new")
	if fpOld != fpNew {
		t.Errorf("fingerprint: %s with --cuda-graph-max-bs, %s with the advice followed", fpOld, fpNew)
	}
	stdout, stderr, code := e.Run("diff", "old", "new")
	if code != 0 {
		t.Errorf("diff old new: exit %d, want 0\n%s%s", code, stdout, stderr)
	}
}

// TestChildAliasReplacesParentFlag pins issue 20's defect through the
// binary: a child's tp-size: 4 over its parent's tp: 2 gave
// "--tp 2 ... --tp-size 4" and preflight's "given again" warning. Now one
// --tp-size 4 at the parent's place, and no warning.
func TestChildAliasReplacesParentFlag(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.Profile("parent", fmt.Sprintf("python: python3\nargs:\n  model-path: /models/m\n  tp: 2\n  port: %d\n", testkit.FreePort(t)))
	e.Profile("child", "extends: parent\nargs:\n  tp-size: 4\n")
	_, argv := configOf(t, e, "--profile", "child")
	if got, want := strings.Join(argv, " "), "--model-path /models/m --tp-size 4 --port"; !strings.HasPrefix(got, want) || slices.Contains(argv, "--tp") {
		t.Errorf("argv: got %q, want %q ...", got, want)
	}
	stdout, _, _ := e.Run("preflight", "--profile", "child", "--catalog")
	if strings.Contains(stdout, "given again") {
		t.Errorf("preflight warns of a repeat:\n%s", stdout)
	}
}

// TestTwoSpellingsGivenAgain: one setting given twice in one layer
// through two spellings (two --set here) is passed once, and preflight
// and config say it was given again. Before, both flags reached the
// command line and --set gave no warning.
func TestTwoSpellingsGivenAgain(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.Profile("p", fmt.Sprintf("python: python3\nargs:\n  model-path: /models/m\n  cuda-graph-max-bs: 16\n  port: %d\n", testkit.FreePort(t)))
	sets := []string{"--set", "args.cuda-graph-max-bs-decode=8", "--set", "args.cuda-graph-max-bs=32"}
	_, argv := configOf(t, e, append([]string{"--profile", "p"}, sets...)...)
	if got, want := strings.Join(argv, " "), "--model-path /models/m --cuda-graph-max-bs 32 --port"; !strings.HasPrefix(got, want) || slices.Contains(argv, "--cuda-graph-max-bs-decode") {
		t.Errorf("argv: got %q, want %q ...", got, want)
	}
	stdout, _, _ := e.Run(append([]string{"preflight", "--profile", "p", "--catalog"}, sets...)...)
	if !regexp.MustCompile(`WARN +--cuda-graph-max-bs-decode +given again \(first as args.cuda-graph-max-bs-decode \(--set\)\)`).MatchString(stdout) {
		t.Errorf("preflight does not say the setting was given again:\n%s", stdout)
	}
	stdout, _, _ = e.Run(append([]string{"config", "--profile", "p"}, sets...)...)
	if !strings.Contains(stdout, "# --cuda-graph-max-bs-decode: args.cuda-graph-max-bs-decode (--set), then args.cuda-graph-max-bs (--set)") {
		t.Errorf("config does not show the repeat:\n%s", stdout)
	}
}

// TestVerifyAliasSpellingsMatch: verify and diff judge a deployment
// started with the deprecated --cuda-graph-max-bs against a profile that
// writes --cuda-graph-max-bs-decode as the same setting (MATCH, exit 0).
func TestVerifyAliasSpellingsMatch(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	port := testkit.FreePort(t)
	e.Profile("kimi-on-sim", kimiOnSim(t, port))
	// The built-in writes cuda-graph-max-bs: 128; the child its replacement.
	e.Profile("kimi-new", "extends: kimi-on-sim\nargs:\n  cuda-graph-max-bs-decode: 128\n")
	argv, planEnv := planOf(t, e, "--profile", "kimi-on-sim")
	if !slices.Contains(argv, "--cuda-graph-max-bs") {
		t.Fatalf("the deployment's argv has no --cuda-graph-max-bs: %q", argv)
	}
	env := handEnv(planEnv["PYTHONPATH"])
	for k, v := range planEnv {
		env[k] = v
	}
	srv := startByHand(t, argv, env)
	waitHealthy(t, port)
	pid := strconv.Itoa(srv.Process.Pid)
	stdout, stderr, code := e.Run("verify", "--profile", "kimi-new", "--pid", pid)
	if code != 0 || !lineWith(stdout, "MATCH", "--cuda-graph-max-bs-decode", "128") {
		t.Errorf("verify: exit %d, want 0 with --cuda-graph-max-bs-decode MATCH\n%s%s", code, stdout, stderr)
	}
	stdout, stderr, code = e.Run("diff", "profile:kimi-new", "pid:"+pid)
	if code != 0 {
		t.Errorf("diff: exit %d, want 0\n%s%s", code, stdout, stderr)
	}
}
