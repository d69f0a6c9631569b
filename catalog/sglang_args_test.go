package catalog

import (
	"errors"
	"slices"
	"testing"
)

func TestSGLangArgsCatalog(t *testing.T) {
	a := SGLangArgs()
	// The server_args rows of the newest table set (main @ 382343f86).
	if got := len(a.Flags); got != 492 {
		t.Errorf("flags: got %d, want 492", got)
	}
	tests := []struct {
		opt, name, dest, action, typ, nargs string
		deprecated                          bool
		replacement                         string
	}{
		{"--tp", "--tp-size", "tp_size", "store", "int", "", false, ""},
		{"--tensor-parallel-size", "--tp-size", "tp_size", "store", "int", "", false, ""},
		{"--model", "--model-path", "model_path", "store", "str", "", false, ""},
		{"--trust-remote-code", "--trust-remote-code", "trust_remote_code", "store_true", "str", "", false, ""},
		{"--cuda-graph-max-bs", "--cuda-graph-max-bs", "cuda_graph_max_bs_decode", "store", "int", "", true, "--cuda-graph-max-bs-decode"},
		{"--cuda-graph-bs", "--cuda-graph-bs", "cuda_graph_bs_decode", "store", "int", "+", true, "--cuda-graph-bs-decode"},
		{"--enable-flashinfer-allreduce-fusion", "--enable-flashinfer-allreduce-fusion", "enable_flashinfer_allreduce_fusion", "store_true", "str", "", true, "--flashinfer-allreduce-fusion-backend=auto"},
		{"--mem-fraction-static", "--mem-fraction-static", "mem_fraction_static", "store", "float", "", false, ""},
		{"--ep", "--ep-size", "ep_size", "store", "int", "", false, ""},
		{"--no-lora-strict-loading", "--lora-strict-loading", "lora_strict_loading", "boolean_optional", "str", "", false, ""},
		{"--lora-paths", "--lora-paths", "lora_paths", "store", "str", "*", false, ""},
		{"--speculative-eagle-topk", "--speculative-eagle-topk", "speculative_eagle_topk", "store", "int", "", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.opt, func(t *testing.T) {
			f, _, err := a.Resolve(tt.opt)
			if err != nil {
				t.Fatalf("resolve: %v", err)
			}
			got := []any{f.Name, f.Dest, f.Action, f.Type, f.Nargs, f.Deprecated, f.Replacement}
			want := []any{tt.name, tt.dest, tt.action, tt.typ, tt.nargs, tt.deprecated, tt.replacement}
			if !slices.Equal(got, want) {
				t.Errorf("got %v, want %v", got, want)
			}
		})
	}
}

// TestStoreConstFromTables: a deprecated store-const flag stores the
// value its table row spells out (Backend.BREAKABLE is "breakable") into
// the dest of the flag that replaced it.
func TestStoreConstFromTables(t *testing.T) {
	f, ok := SGLangArgs().Lookup("--enable-breakable-cuda-graph")
	if !ok || f.Action != "store_const" || f.Const != "breakable" || f.Dest != "cuda_graph_backend_prefill" || f.Replacement != "--cuda-graph-backend-prefill=breakable" {
		t.Errorf("--enable-breakable-cuda-graph: got %+v", f)
	}
}

func TestResolveErrors(t *testing.T) {
	a := SGLangArgs()
	_, _, err := a.Resolve("--speculative-eagle-top-k")
	var unk *UnknownError
	if !errors.As(err, &unk) || len(unk.Suggestions) == 0 || unk.Suggestions[0] != "--speculative-eagle-topk" {
		t.Errorf("got %v, want unknown with suggestion --speculative-eagle-topk", err)
	}
	_, _, err = a.Resolve("--enable-")
	var amb *AmbiguousError
	if !errors.As(err, &amb) {
		t.Errorf("got %v, want ambiguous", err)
	}
}

func TestChoices(t *testing.T) {
	a := SGLangArgs()
	tests := []struct {
		opt, want string
		n         int
	}{
		{"--attention-backend", "flashinfer", 23},
		{"--decode-attention-backend", "flashinfer", 23},
		{"--tool-call-parser", "kimi_k2", 0},
		{"--reasoning-parser", "kimi_k2", 0},
		{"--speculative-ngram-match-type", "BFS", 2},
		{"--quantization", "awq", 0},
		{"--speculative-draft-model-quantization", "fp8", 0},
		// SUPPORTED_LORA_TARGET_MODULES + all, from utils/common.py (generated table, main 382343f86).
		{"--lora-target-modules", "all", 21},
	}
	for _, tt := range tests {
		f, _, _ := a.Resolve(tt.opt)
		if !slices.Contains(f.Choices, tt.want) || (tt.n > 0 && len(f.Choices) != tt.n) {
			t.Errorf("%s: choices %v, want %d holding %q", tt.opt, f.Choices, tt.n, tt.want)
		}
	}
	if f, _, _ := a.Resolve("--quantization"); f.Choices[0] != "awq" {
		t.Errorf("--quantization: first choice %q, want awq (no label)", f.Choices[0])
	}
	// Computed at run time ([m.name.lower() for m in RealKvHashMode]):
	// no choice check rather than a wrong one.
	if f, _, _ := a.Resolve("--kv-canary-real-data"); f.Choices != nil {
		t.Errorf("--kv-canary-real-data: got choices %v, want none", f.Choices)
	}
	// A module constant of server_args.py (LINEAR_ATTN_KERNEL_BACKEND_CHOICES).
	for _, opt := range []string{"--linear-attn-verify-backend", "--linear-attn-decode-backend"} {
		if f, _, _ := a.Resolve(opt); !slices.Contains(f.Choices, "triton") {
			t.Errorf("%s: got choices %v, want the named list", opt, f.Choices)
		}
	}
	if f, _, _ := a.Resolve("--enable-multimodal"); f.Choices != nil {
		t.Errorf("--enable-multimodal: got choices %v, want none", f.Choices)
	}
}

// TestSGLangArgsHelp: the help texts are SGLang's own, attached to the
// flags they belong to; SUPPRESSed flags are marked hidden.
func TestSGLangArgsHelp(t *testing.T) {
	a := SGLangArgs()
	with := 0
	for _, f := range a.Flags {
		if f.Help != "" {
			with++
		}
	}
	if with != 489 {
		t.Errorf("flags with a help text: got %d, want 489", with)
	}
	for opt, want := range map[string]string{
		"--cuda-graph-max-bs":  "Deprecated alias for --cuda-graph-max-bs-decode.",
		"--disable-cuda-graph": "Deprecated. Use --cuda-graph-backend-{decode,prefill}=disabled instead.",
		"--smg-grpc-mode":      "Use the legacy SMG gRPC server (smg-grpc-servicer) instead of the HTTP server. Replaces the deprecated --grpc-mode.",
		"--tp-size":            "The tensor parallelism size.",
	} {
		f, _ := a.Lookup(opt)
		if f.Help != want {
			t.Errorf("%s: got %q, want %q", opt, f.Help, want)
		}
	}
	if f, _ := a.Lookup("--speculative-dflash-draft-window-size"); !f.HelpSuppressed || f.Help != "" {
		t.Errorf("--speculative-dflash-draft-window-size: got %q suppressed=%v, want hidden", f.Help, f.HelpSuppressed)
	}
	if f, _ := a.Lookup("--reasoning-parser"); !slices.Contains(f.Choices, "muse") {
		t.Errorf("--reasoning-parser choices lack muse: %v", f.Choices)
	}
	if f, _ := a.Lookup("--grpc-mode"); !f.Deprecated || f.Replacement != "--smg-grpc-mode" {
		t.Errorf("--grpc-mode: deprecated=%v replacement=%q, want --smg-grpc-mode", f.Deprecated, f.Replacement)
	}
}
