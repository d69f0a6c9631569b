package catalog

import (
	"strings"
	"testing"
)

func TestSGLangEnvCatalog(t *testing.T) {
	c := SGLangEnvCatalog()
	// The Envs rows of the newest table set (main @ 382343f86).
	if got := len(c.Vars); got != 552 {
		t.Errorf("registry variables: got %d, want 552", got)
	}
	if v, ok := c.Lookup("SGLANG_USE_MODELSCOPE"); !ok || v.Type != "EnvBool" || v.Default != "False" {
		t.Errorf("SGLANG_USE_MODELSCOPE: got %+v, want EnvBool False", v)
	}
	if v, ok := c.Lookup("EXA_API_KEY"); !ok || !v.Secret || v.Type != "EnvStr" {
		t.Errorf("EXA_API_KEY: got %+v, want a secret EnvStr", v)
	}
	for _, name := range []string{"SGLANG_HEALTH_CHECK_TIMEOUT", "SGLANG_DP_RANK", "SGL_FORCE_SHUTDOWN"} {
		if !c.Reads(name) {
			t.Errorf("%s: not read, want read directly", name)
		}
	}
	if c.Reads("SGLANG_ENABLE_SPEC_V2") {
		t.Errorf("SGLANG_ENABLE_SPEC_V2: read, want removed")
	}
	if !strings.HasPrefix(c.Source, "SGLang 0.5.19.dev0 python/sglang/srt/environ.py @ 382343f860c7") {
		t.Errorf("source: got %q", c.Source)
	}

	tests := []struct {
		name, repl string
		removed    bool
		note       string
	}{
		{"SGLANG_ENABLE_SPEC_V2", "", true, `removed by PR #27964 "Retire Spec V1", 2026-06-11`},
		{"SGLANG_GC_LOG", "SGLANG_LOG_GC", false, "deprecated; SGLang forwards it to SGLANG_LOG_GC"},
		{"SGLANG_QUEUED_TIMEOUT_MS", "SGLANG_REQ_WAITING_TIMEOUT", false, "deprecated; SGLang forwards it to SGLANG_REQ_WAITING_TIMEOUT (ms->s)"},
		{"SGLANG_DISABLE_TP_MEMORY_INBALANCE_CHECK", "SGLANG_ENABLE_TP_MEMORY_INBALANCE_CHECK", false, "deprecated; SGLang forwards it to SGLANG_ENABLE_TP_MEMORY_INBALANCE_CHECK (inverted)"},
		{"SGLANG_PER_TOKEN_GROUP_QUANT_8BIT_V2", "", true, "removed from the registry"},
		{"SGLANG_MASKED_GEMM_FAST_ACT", "", true, "removed from the registry"},
		{"SGLANG_ENABLE_GRPC", "--grpc-port", true, "replaced by --grpc-port"},
		{"SGLANG_PREFILL_DELAYER_MAX_DELAY_PASSES", "--prefill-delayer-max-delay-passes", true, "replaced by --prefill-delayer-max-delay-passes"},
		{"SGLANG_CUTLASS_MOE", "--moe-runner-backend=cutlass", true, "replaced by --moe-runner-backend=cutlass"},
		{"SGLANG_OPT_DEEPGEMM_MEGA_MOE_USE_FP4_ACTS", "--enable-w4a4-mxfp4-megamoe", true, "replaced by --enable-w4a4-mxfp4-megamoe"},
		{"SGLANG_OPT_DEEPGEMM_MEGA_MOE_USE_MXF4_KIND", "--enable-w4a4-mxfp4-megamoe", true, "replaced by --enable-w4a4-mxfp4-megamoe"},
		{"SGLANG_ENABLE_UNIFIED_RADIX_TREE", "", true, "The unified radix tree is the default tree cache now; unset this env. The field is still defined for legacy call sites."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, ok := c.LookupRetired(tt.name)
			if !ok {
				t.Fatalf("not retired, want retired")
			}
			if r.Replacement != tt.repl || r.Removed != tt.removed || r.Note != tt.note {
				t.Errorf("got %q %v %q, want %q %v %q", r.Replacement, r.Removed, r.Note, tt.repl, tt.removed, tt.note)
			}
		})
	}
}

func TestParseSGLangEnvsErrors(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"empty", "# nothing\n", "no variables found"},
		{"bad row", "SGLANG_X | EnvBool\n", "line 1: want NAME | type | default"},
		{"no removed note", "SGLANG_X | EnvBool | False\n", "no 'NOT in this file:' note"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseSGLangEnvs(tt.text)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestHumanReadableInt(t *testing.T) {
	for name, want := range map[string]bool{"--context-length": true, "--max-total-tokens": true, "--max-prefill-tokens": true, "--tp-size": false} {
		if got := HumanReadableInt(name); got != want {
			t.Errorf("%s: got %v, want %v", name, got, want)
		}
	}
}

// TestSGLangEnvAliasRows: rows written "NAME (deprecated alias OLD)" are
// two names SGLang reads, not one unread name. Nine registry variables
// were called unread before.
func TestSGLangEnvAliasRows(t *testing.T) {
	c := SGLangEnvCatalog()
	aliases := 0
	for _, v := range c.Vars {
		if strings.ContainsAny(v.Name, " ()") {
			t.Errorf("registry name %q holds the alias note", v.Name)
		}
	}
	for _, r := range c.Retired {
		if strings.HasPrefix(r.Note, "deprecated alias of ") {
			aliases++
		}
	}
	if aliases != 9 {
		t.Errorf("deprecated aliases: got %d, want 9", aliases)
	}
	for _, name := range []string{"SGLANG_ENABLE_NVTX_SCHEDULER", "SGLANG_ENABLE_NVTX", "SGLANG_DSA_FUSE_TOPK", "SGLANG_NSA_FUSE_TOPK"} {
		if !c.Reads(name) {
			t.Errorf("%s: not read, want read", name)
		}
	}
	r, ok := c.LookupRetired("SGLANG_NSA_FUSE_TOPK")
	if !ok || r.Removed || r.Replacement != "SGLANG_DSA_FUSE_TOPK" {
		t.Errorf("SGLANG_NSA_FUSE_TOPK: got %+v, want a deprecated alias of SGLANG_DSA_FUSE_TOPK", r)
	}
}

// TestSGLangEnvDirectReads: names SGLang reads with os.getenv outside the
// registry (main 382343f86) are read, and SGLANG_ENABLE_SPEC_V2, removed,
// still makes SGLang log a warning.
func TestSGLangEnvDirectReads(t *testing.T) {
	c := SGLangEnvCatalog()
	// Direct reads (os.getenv, os.environ.get / [...], "in os.environ",
	// get_*_env_var) of SGLANG_* and SGL_* names anywhere under
	// python/sglang, but for names the notes retire.
	if got := len(c.Direct); got != 206 {
		t.Errorf("names read directly: got %d, want 206", got)
	}
	for _, name := range []string{"SGLANG_HOST_IP", "SGLANG_OLLAMA_CHAT_ROUTE", "SGLANG_NCCL_SO_PATH", "SGL_DG_USE_NVRTC", "SGLANG_TORCH_COMPILE_MODE"} {
		if !c.Reads(name) {
			t.Errorf("%s: not read, want read directly", name)
		}
	}
	r, _ := c.LookupRetired("SGLANG_ENABLE_SPEC_V2")
	if want := "SGLANG_ENABLE_SPEC_V2 has been removed: speculative decoding always runs the V2 worker. Use --disable-overlap-schedule to select the non-overlap (synchronous) path."; r == nil || r.Warning != want {
		t.Errorf("SGLANG_ENABLE_SPEC_V2 warning: got %+v, want %q", r, want)
	}
}
