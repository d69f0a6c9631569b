package preflight

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sglaunch/sglaunch/internal/testkit"
)

// modelDir makes a local model directory SGLang could load.
func modelDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "model")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestMistakes has one fixture per class of mistake the issue names: each
// asserts the exact finding and its suggestion, then that the suggested
// spelling passes.
func TestMistakes(t *testing.T) {
	const catalogFlags = "the embedded catalog (SGLang 0.5.19.dev0 @ 382343f860c7)"
	tests := []struct {
		name           string
		env, args      string // profile lines
		check, subject string
		status         Status
		reason, fix    string
		// fixedEnv/fixedArgs apply the fix; fixedSubject then passes.
		fixedEnv, fixedArgs, fixedSubject string
	}{
		{
			name: "unknown NCCL name", env: yamlEnv("NCCL_MAX_NCHANNEL", "16"),
			check: CheckNCCL, subject: "NCCL_MAX_NCHANNEL", status: Fail,
			reason:   "not a variable NCCL 2.30.7 reads: NCCL ignores unknown names silently, so this setting does nothing",
			fix:      "did you mean NCCL_MAX_NCHANNELS?",
			fixedEnv: yamlEnv("NCCL_MAX_NCHANNELS", "16"), fixedSubject: "NCCL_MAX_NCHANNELS",
		},
		{
			name: "integer with a unit", env: yamlEnv("NCCL_BUFFSIZE", "16M"),
			check: CheckNCCL, subject: "NCCL_BUFFSIZE", status: Fail,
			reason:   `"16M" is not a plain integer: NCCL parses it with strtoll(v, NULL, 0), which keeps only the numeric prefix, so it silently uses 16`,
			fix:      "write NCCL_BUFFSIZE=16777216 (16 MiB)",
			fixedEnv: yamlEnv("NCCL_BUFFSIZE", "16777216"),
		},
		{
			name: "lower-case level", env: yamlEnv("NCCL_P2P_LEVEL", "sys"),
			check: CheckNCCL, subject: "NCCL_P2P_LEVEL", status: Fail,
			reason:   `"sys" is not SYS: NCCL compares level names exactly (strcmp) and silently treats anything else as unset (auto)`,
			fix:      "write NCCL_P2P_LEVEL=SYS",
			fixedEnv: yamlEnv("NCCL_P2P_LEVEL", "SYS"),
		},
		{
			name: "misspelt algorithm", env: yamlEnv("NCCL_ALGO", "ring,tre"),
			check: CheckNCCL, subject: "NCCL_ALGO", status: Fail,
			reason:   `"ring,tre": unknown algorithm "tre"; NCCL rejects the whole value ('Unrecognized element token') and communicator init fails after the model has loaded`,
			fix:      "write NCCL_ALGO=ring,Tree",
			fixedEnv: yamlEnv("NCCL_ALGO", "ring,Tree"),
		},
		{
			name: "space in a protocol list", env: yamlEnv("NCCL_PROTO", `"LL, Simple"`),
			check: CheckNCCL, subject: "NCCL_PROTO", status: Fail,
			reason:   `"LL, Simple": " Simple" has white space (NCCL allows none); NCCL rejects the whole value ('Unrecognized element token') and communicator init fails after the model has loaded`,
			fix:      "write NCCL_PROTO=LL,Simple",
			fixedEnv: yamlEnv("NCCL_PROTO", "LL,Simple"),
		},
		{
			name: "unknown flag", args: "  speculative-eagle-top-k: 1\n",
			check: CheckFlags, subject: "--speculative-eagle-top-k", status: Fail,
			reason:    "unknown to " + catalogFlags + ": SGLang (argparse) exits with 'unrecognized arguments' after its imports, before anything loads",
			fix:       "did you mean --speculative-eagle-topk?",
			fixedArgs: "  speculative-eagle-topk: 1\n", fixedSubject: "--speculative-eagle-topk",
		},
		{
			name: "ambiguous prefix", args: "  cuda-graph-max: 128\n",
			check: CheckFlags, subject: "--cuda-graph-max", status: Fail,
			reason:    "ambiguous: it is a prefix of --cuda-graph-max-bs, --cuda-graph-max-bs-decode or --cuda-graph-max-bs-prefill, so SGLang (argparse) exits with 'ambiguous option'",
			fix:       "write the full name, e.g. --cuda-graph-max-bs",
			fixedArgs: "  cuda-graph-max-bs-decode: 128\n", fixedSubject: "--cuda-graph-max-bs-decode",
		},
		{
			name: "word for a number", args: "  tp: eight\n",
			check: CheckFlags, subject: "--tp", status: Fail,
			reason:    `"eight" is not an integer: SGLang (argparse) exits with 'argument --tp-size: invalid int value: 'eight''`,
			fix:       "write --tp 8",
			fixedArgs: "  tp: 8\n",
		},
		{
			name: "misspelt choice", args: "  attention-backend: flashinfr\n",
			check: CheckFlags, subject: "--attention-backend", status: Fail,
			reason:    `"flashinfr" is not one of its choices: SGLang (argparse) exits with 'argument --attention-backend: invalid choice: 'flashinfr''`,
			fix:       "did you mean flashinfer?",
			fixedArgs: "  attention-backend: flashinfer\n",
		},
		{
			name: "value for a switch", args: "  trust-remote-code: yes\n",
			check: CheckFlags, subject: "--trust-remote-code", status: Fail,
			reason:    `is a switch and takes no value, so "yes" is left over: SGLang (argparse) exits with 'unrecognized arguments: yes'`,
			fix:       "write --trust-remote-code alone (in a profile: trust-remote-code: true; to leave it off, trust-remote-code: false)",
			fixedArgs: "  trust-remote-code: true\n",
		},
		{
			// SGLang still warns about a name in its _DEPRECATED_ENVS
			// (generated tables, main 382343f86).
			name: "removed SGLang variable", env: yamlEnv("SGLANG_MASKED_GEMM_FAST_ACT", "1"),
			check: CheckSGLEnv, subject: "SGLANG_MASKED_GEMM_FAST_ACT", status: Warn,
			reason:   `removed from SGLang (removed from the registry): it has no effect, but SGLang logs a warning at start-up when it is set: "Environment variable SGLANG_MASKED_GEMM_FAST_ACT is deprecated."`,
			fix:      "remove it",
			fixedEnv: yamlEnv("SGLANG_ENABLE_TORCH_INFERENCE_MODE", "1"), fixedSubject: "SGLANG_ENABLE_TORCH_INFERENCE_MODE",
		},
	}
	model := modelDir(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			port := testkit.FreePort(t)
			profile := func(env, args string) string {
				return fmt.Sprintf("name: test\npython: python3\nenv:\n%s  X_PLACEHOLDER: x\nargs:\n  model-path: %s\n  port: %d\n%s", env, model, port, args)
			}
			r := run(t, resolve(t, profile(tt.env, tt.args), ""), Options{Catalog: true})
			f := only(t, r, tt.check, tt.subject)
			if f.Status != tt.status || f.Reason != tt.reason || f.Fix != tt.fix {
				t.Errorf("got %v %q fix %q\nwant %v %q fix %q", f.Status, f.Reason, f.Fix, tt.status, tt.reason, tt.fix)
			}
			if !strings.Contains(f.Where, "test.yaml") {
				t.Errorf("where: got %q, want the profile it came from", f.Where)
			}

			fixedSubject := tt.subject
			if tt.fixedSubject != "" {
				fixedSubject = tt.fixedSubject
			}
			r = run(t, resolve(t, profile(tt.fixedEnv, tt.fixedArgs), ""), Options{Catalog: true})
			if f := only(t, r, tt.check, fixedSubject); f.Status != Pass {
				t.Errorf("after the fix: got %v %q, want PASS", f.Status, f.Reason)
			}
		})
	}
}

// TestMissingModelPath: a local path that does not exist fails; a hub id
// is left to SGLang; a directory without config.json fails and points at
// the snapshot below it that has one.
func TestMissingModelPath(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "kimi-k2.5-int4")
	hub := filepath.Join(t.TempDir(), "hub")
	snapshot := filepath.Join(hub, "snapshots", "0123abc")
	if err := os.MkdirAll(snapshot, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(snapshot, "config.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path  string
		status      Status
		reason, fix string
	}{
		{"missing", missing, Fail,
			missing + " does not exist on this host: SGLang would fail after its imports, before loading anything",
			"copy or mount the model there, or point --model-path at where it is"},
		{"hub id", "moonshotai/Kimi-K2.5", Pass,
			"moonshotai/Kimi-K2.5 is a Hugging Face hub id, not a local path: SGLang downloads it (not checked here)", ""},
		{"no config.json", hub, Fail,
			hub + " holds no config.json, so it is not a model directory SGLang can load",
			"did you mean " + snapshot + "? It holds a config.json"},
		{"tilde", "~/models/kimi", Fail,
			"~/models/kimi starts with ~, which SGLang does not expand (only a shell does)", "write the full path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan := resolve(t, fmt.Sprintf("name: test\npython: python3\nargs:\n  model-path: %s\n  port: %d\n", tt.path, testkit.FreePort(t)), "")
			f := only(t, run(t, plan, Options{Catalog: true}), CheckModel, "--model-path")
			if f.Status != tt.status || f.Reason != tt.reason || f.Fix != tt.fix {
				t.Errorf("got %v %q fix %q\nwant %v %q fix %q", f.Status, f.Reason, f.Fix, tt.status, tt.reason, tt.fix)
			}
		})
	}
}

// TestBusyPort: a port another process listens on fails, naming it.
func TestBusyPort(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	comm, err := os.ReadFile("/proc/self/comm")
	if err != nil {
		t.Fatal(err)
	}
	plan := resolve(t, fmt.Sprintf("name: test\npython: python3\nargs:\n  model-path: %s\n  port: %d\n", modelDir(t), port), "")
	f := only(t, run(t, plan, Options{Catalog: true}), CheckPort, "127.0.0.1:"+strconv.Itoa(port))
	want := fmt.Sprintf("port %d is in use by pid %d (%s): the server would load the model and then fail to bind", port, os.Getpid(), strings.TrimSpace(string(comm)))
	if f.Status != Fail || f.Reason != want || f.Fix != "stop what listens there, or choose another port (--set args.port=N)" {
		t.Errorf("got %v %q fix %q, want FAIL %q", f.Status, f.Reason, f.Fix, want)
	}
	l.Close()
	if f := only(t, run(t, plan, Options{Catalog: true}), CheckPort, "127.0.0.1:"+strconv.Itoa(port)); f.Status != Pass {
		t.Errorf("after closing: got %v %q, want PASS", f.Status, f.Reason)
	}
}

// TestSecretsNotShown: a secret flag's stray value never appears in a
// finding.
func TestSecretsNotShown(t *testing.T) {
	plan := resolve(t, fmt.Sprintf("name: test\npython: python3\nargs:\n  model-path: %s\n  port: %d\n", modelDir(t), testkit.FreePort(t)), "", "--api-key", "sk-first", "sk-second", "--max-total-tokens", "128k")
	r := run(t, plan, Options{Catalog: true})
	f := only(t, r, CheckFlags, "--api-key")
	if f.Status != Fail || strings.Contains(f.Reason+f.Fix, "sk-") || !strings.Contains(f.Reason, "<redacted>") {
		t.Errorf("got %v %q fix %q, want a FAIL with the values redacted", f.Status, f.Reason, f.Fix)
	}
	if f.Where != "after -- on the command line" {
		t.Errorf("where: got %q", f.Where)
	}
	if f := only(t, r, CheckFlags, "--max-total-tokens"); f.Status != Pass {
		t.Errorf("--max-total-tokens 128k (human_readable_int): got %v %q, want PASS", f.Status, f.Reason)
	}
}
