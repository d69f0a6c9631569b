package test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/sglaunch/sglaunch/internal/testkit"
)

type simRecord struct {
	Argv []string          `json:"argv"`
	Env  map[string]string `json:"env"`
	Pid  int               `json:"pid"`
}

func readRecord(t *testing.T, path string) simRecord {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r simRecord
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("sim record %s: %v", path, err)
	}
	return r
}

// TestServeRunsPlanExactly: the server gets exactly the plan's argv and
// the profile's NCCL values, never the operator's inherited ones.
func TestServeRunsPlanExactly(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	rec := filepath.Join(e.Dir, "sim-record.json")
	e.Profile("kimi-on-sim", fmt.Sprintf(`extends: kimi-k2.5-int4-eagle3
python: %s
env:
  PYTHONPATH: ${SGLAUNCH_SIM_DIR}
  SGLANG_SIM_RECORD: %s
  SGLANG_SIM_LOAD_SECONDS: 0.2
args:
  port: %d
`, testkit.RealPython(t), rec, testkit.FreePort(t)))
	e.Vars["NCCL_ALGO"] = "Tree"
	e.Vars["NCCL_DEBUG"] = "INFO"

	stdout, stderr, code := e.Run("config", "--profile", "kimi-on-sim", "--json")
	if code != 0 {
		t.Fatalf("config: exit %d\n%s", code, stderr)
	}
	var plan struct {
		Argv    []string          `json:"argv"`
		Env     map[string]string `json:"env"`
		Dropped []struct{ Name string }
	}
	if err := json.Unmarshal([]byte(stdout), &plan); err != nil {
		t.Fatalf("config --json: %v\n%s", err, stdout)
	}

	// The kimi model paths do not exist here: preflight would refuse.
	p := e.Start("serve", "--profile", "kimi-on-sim", "--skip-preflight")
	testkit.WaitFor(t, waitTimeout, "the sim's record of its argv and environment", func() bool {
		_, err := os.Stat(rec)
		return err == nil
	})
	got := readRecord(t, rec)
	if !slices.Equal(got.Argv, plan.Argv) {
		t.Errorf("argv:\n got %q\nwant %q", got.Argv, plan.Argv)
	}
	for name, want := range map[string]string{"NCCL_PROTO": "LL", "NCCL_ALGO": "Ring", "NCCL_P2P_LEVEL": "SYS", "NCCL_MAX_NCHANNELS": "16", "NCCL_BUFFSIZE": "16777216", "NCCL_NTHREADS": "512", "SGLANG_ENABLE_SPEC_V2": "True"} {
		if got.Env[name] != want {
			t.Errorf("env %s: got %q, want %q", name, got.Env[name], want)
		}
	}
	if v, ok := got.Env["NCCL_DEBUG"]; ok {
		t.Errorf("inherited NCCL_DEBUG=%s reached the server", v)
	}
	for k, v := range plan.Env {
		if got.Env[k] != v && k != "PYTHONPATH" {
			t.Errorf("env %s: got %q, plan says %q", k, got.Env[k], v)
		}
	}
	_ = syscall.Kill(p.Cmd.Process.Pid, syscall.SIGTERM)
	p.Wait(t, commandTimeout)
}

func TestInputErrorsExit2(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.Profile("typo", "args:\n  model-path: /m\nhealth:\n  start_timout: 5m\n")
	e.Profile("loop-a", "extends: loop-b\n")
	e.Profile("loop-b", "extends: loop-a\n")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown profile", []string{"config", "--profile", "kimi"}, `did you mean kimi-k2.5-int4-eagle3`},
		{"unknown key", []string{"config", "--profile", "typo"}, `typo.yaml:4:3: health.start_timout: unknown key; did you mean "start_timeout"?`},
		{"cycle", []string{"config", "--profile", "loop-a"}, "extends: cycle"},
		{"set without =", []string{"config", "--profile", "demo", "--set", "args.tp"}, "want KEY=VALUE"},
		{"no profile", []string{"config"}, "no profile given"},
		{"python missing", []string{"config", "--profile", "demo", "--set", "python=python9.9"}, `interpreter "python9.9" not found`},
		{"unknown flag", []string{"config", "--profle", "demo"}, "unknown flag --profle"},
		{"stray argument", []string{"serve", "--profile", "demo", "extra"}, `unexpected argument "extra"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, stderr, code := e.Run(tt.args...)
			if code != 2 {
				t.Errorf("exit %d, want 2\n%s", code, stderr)
			}
			if !strings.Contains(stderr, tt.want) {
				t.Errorf("stderr lacks %q:\n%s", tt.want, stderr)
			}
			if strings.Contains(stderr, "goroutine ") || strings.Contains(stderr, "panic") {
				t.Errorf("stack trace reached the user:\n%s", stderr)
			}
		})
	}
}

func TestServeDryRun(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	stdout, stderr, code := e.Run("serve", "--profile", "kimi-k2.5-int4-eagle3", "--dry-run")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	out := stdout + stderr
	for _, want := range []string{"--speculative-algorithm EAGLE3", "NCCL_BUFFSIZE=16777216", "--host 0.0.0.0"} {
		if !strings.Contains(out, want) {
			t.Errorf("dry run lacks %q:\n%s", want, out)
		}
	}
}

// TestCudaVisibleDevicesDropWarned pins issue 12 defect 13 through the
// binary: a CUDA_VISIBLE_DEVICES exported in the shell is dropped, which
// serve says on a warning line of its own and preflight as a WARN, each
// with the fix.
func TestCudaVisibleDevicesDropWarned(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.Vars["CUDA_VISIBLE_DEVICES"] = "4,5,6,7"
	_, stderr, code := e.Run("serve", "--profile", "demo", "--dry-run")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var warned bool
	for _, line := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(line, "sglaunch: warning: CUDA_VISIBLE_DEVICES=4,5,6,7") && strings.Contains(line, "inherit_env: [CUDA_VISIBLE_DEVICES]") {
			warned = true
		}
	}
	if !warned {
		t.Errorf("no warning line for the drop:\n%s", stderr)
	}
	stdout, stderr, _ := e.Run("preflight", "--profile", "demo", "--catalog")
	if !regexp.MustCompile(`WARN +CUDA_VISIBLE_DEVICES`).MatchString(stdout) || !strings.Contains(stdout, "inherit_env: [CUDA_VISIBLE_DEVICES]") {
		t.Errorf("preflight does not warn:\n%s%s", stdout, stderr)
	}
}

// TestSecretsNeverPrinted: an API key and a token reach the server, but
// no printout or file of sglaunch's holds them: not the config, not the
// relayed server output (SGLang prints its parsed args, api_key included),
// not the log file, not the runtime state. The key is given as api-k, a
// prefix argparse accepts, and the token is short (issue 12 defect 3:
// neither was masked).
func TestSecretsNeverPrinted(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	port := testkit.FreePort(t)
	e.Profile("secret", kimiOnSim(t, port))
	const key, token = "sk-live-0123456789", "hf_x9"
	logFile := filepath.Join(e.Dir, "server.log")
	args := []string{"--profile", "secret", "--skip-preflight", "--set", "args.api-k=" + key, "--set", "env.HF_TOKEN=" + token, "--log-file", logFile}
	p := e.Start(append([]string{"serve"}, args...)...)
	waitServeHealthy(t, p)
	state, _ := os.ReadFile(filepath.Join(e.Vars["SGLAUNCH_RUNTIME_DIR"], "secret.json"))
	_ = syscall.Kill(p.Cmd.Process.Pid, syscall.SIGTERM)
	p.Wait(t, commandTimeout)
	logged, _ := os.ReadFile(logFile)
	if !strings.Contains(string(logged), "Load weight begin") {
		t.Fatalf("the log file lacks the server's output:\n%s", logged)
	}
	if fi, err := os.Stat(logFile); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("log file: %v, mode %v; want 0600", err, fi.Mode())
	}
	for what, out := range map[string]string{"stdout": p.Stdout(), "stderr": p.Stderr(), "log file": string(logged), "runtime state": string(state)} {
		for _, secret := range []string{key, token} {
			if strings.Contains(out, secret) {
				t.Errorf("%s holds the secret %q", what, secret)
			}
		}
	}
}
