package catalog

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
)

// Why the catalogs built from the generated tables (SGLang main @
// 382343f86) differ from the hand-copied ones they replaced
// (testdata/handcopied/, read at main commits 001067ff, dd458f32 and
// 0003215c, on another line of main).
const (
	newerHand   = "the hand list was read at a main commit on another line than the generated set"
	handDest    = "the hand list pointed a deprecated flag at a dest of its own; argparse stores into the dest= SGLang gives"
	genRepl     = "the generated row names the flag SGLang's new_flag= or help text points to"
	computed    = "the default is computed when ServerArgs is made; the source has no literal"
	runtimeList = "the choices are computed at run time ([m.name.lower() for m in RealKvHashMode]); no choice check"
	handNoList  = "the hand list did not spell the choices out; the generator resolves the named constant"
	setOrder    = "the choices are a Python set; the generated list is sorted"
	customType  = "parsed by parse_cuda_graph_config_arg, a custom callable: the catalog checks it as a string"
)

// catalogDifferences lists each known difference between the hand-copied
// and the generated flag catalogs, "field flag" -> why.
var catalogDifferences = map[string]string{
	"only --deepep-v2-mode": newerHand, "only --enable-dense-mlp-attn-tp": newerHand, "only --enable-shared-experts-attn-tp": newerHand,
	"only --gated-launch-port": newerHand, "only --speculative-dsa-topk-backend": newerHand,
	"choices --load-format": newerHand, "choices --speculative-draft-load-format": newerHand,
	"choices --attention-backend": newerHand, "choices --decode-attention-backend": newerHand, "choices --prefill-attention-backend": newerHand,
	"choices --moe-a2a-backend": newerHand, "choices --linear-attn-backend": newerHand, "choices --hicache-storage-backend": newerHand,
	"choices --reasoning-parser": newerHand, "choices --tool-call-parser": newerHand,
	"choices --sampling-backend": setOrder, "choices --kv-canary-real-data": runtimeList,
	"choices --speculative-moe-runner-backend": handNoList, "choices --speculative-moe-a2a-backend": handNoList,
	"choices --linear-attn-decode-backend": handNoList, "choices --linear-attn-prefill-backend": handNoList, "choices --linear-attn-verify-backend": handNoList,
	"dest --fp8-gemm-backend": handDest, "dest --fp4-gemm-backend": handDest, "dest --elastic-ep-join-mode": handDest,
	"dest --elastic-ep-join-rank-offset": handDest, "dest --stream-output": handDest, "dest --enable-breakable-cuda-graph": handDest,
	"dest --disable-piecewise-cuda-graph": handDest, "dest --enforce-piecewise-cuda-graph": handDest,
	"dest --enable-nsa-prefill-context-parallel": handDest, "dest --enable-gdn-replayssm-spec": handDest,
	"dest --dsa-prefill-cp-mode": handDest, "dest --nsa-prefill-cp-mode": handDest, "dest --prefill-cp-mode": handDest,
	"repl --elastic-ep-rejoin": genRepl, "repl --disable-fast-image-processor": genRepl, "repl --keep-mm-feature-on-device": genRepl,
	"repl --enable-expert-distribution-metrics":     genRepl,
	"default --uvicorn-access-log-exclude-prefixes": computed, "default --encoder-transfer-backend": computed,
	"type --cuda-graph-config": customType,
}

// TestCatalogAgainstHandCopied compares the flag catalog built from the
// newest generated tables with the hand-copied one it replaced, field by
// field (names, aliases, negations, dests, actions, types, nargs,
// defaults, choices, deprecation): a difference not listed in
// catalogDifferences fails, and so does a listed one that is gone.
func TestCatalogAgainstHandCopied(t *testing.T) {
	hand, err := handArgs()
	if err != nil {
		t.Fatal(err)
	}
	gen := SGLangArgs()
	got := map[string]bool{}
	for _, h := range hand.Flags {
		g, ok := gen.Lookup(h.Name)
		if !ok {
			got["only "+h.Name] = true
			continue
		}
		hd, gd := "<none>", "<none>"
		if h.Default != nil && !strings.HasPrefix(*h.Default, "None") {
			hd = *h.Default
		}
		if g.Default != nil {
			gd = *g.Default
		}
		for field, pair := range map[string][2]any{
			"aliases": {h.Aliases, g.Aliases}, "negation": {h.Negation, g.Negation}, "dest": {h.Dest, g.Dest},
			"action": {h.Action, g.Action}, "type": {h.Type, g.Type}, "nargs": {h.Nargs, g.Nargs},
			"required": {h.Required, g.Required}, "deprecated": {h.Deprecated, g.Deprecated}, "repl": {h.Replacement, g.Replacement},
			"removed": {h.Removed, g.Removed}, "default": {hd, gd}, "hidden": {h.HelpSuppressed, g.HelpSuppressed},
			"choices": {strings.Join(h.Choices, ","), strings.Join(g.Choices, ",")},
		} {
			if fmt.Sprint(pair[0]) != fmt.Sprint(pair[1]) {
				got[field+" "+h.Name] = true
				if _, ok := catalogDifferences[field+" "+h.Name]; !ok {
					t.Errorf("%s %s: hand-copied %v, generated %v", field, h.Name, pair[0], pair[1])
				}
			}
		}
	}
	for k := range got {
		if _, ok := catalogDifferences[k]; !ok && strings.HasPrefix(k, "only ") {
			t.Errorf("flag %s: in the hand-copied catalog only", strings.TrimPrefix(k, "only "))
		}
	}
	for k, why := range catalogDifferences {
		if !got[k] {
			t.Errorf("%s: listed as a difference (%s), which it no longer is", k, why)
		}
	}
	// The generated catalog's flags the hand list lacks: added on the
	// generated line of main, none unexplained.
	var extra []string
	for _, g := range gen.Flags {
		if _, ok := hand.Lookup(g.Name); !ok {
			extra = append(extra, g.Name)
		}
	}
	if len(extra) > 0 {
		t.Errorf("flags in the generated catalog only: %s", strings.Join(extra, " "))
	}
}

// handEnvDefault is a hand-copied default without its remark ("-1 (s)",
// "None  (base port hint ...)") and quotes, spaces dropped.
func handEnvDefault(d string) string {
	if i := strings.Index(d, " ("); i >= 0 {
		d = d[:i]
	}
	if i := strings.Index(d, "  "); i >= 0 {
		d = d[:i]
	}
	return strings.ReplaceAll(strings.Trim(d, `"`), " ", "")
}

// envDifferences: the names in one environment catalog only, and the
// defaults the hand list wrote as their value rather than SGLang's
// expression.
var envDifferences = map[string]string{}

func init() {
	// Registry names in the hand list only: it was read at a commit on
	// another line of main.
	for _, n := range []string{
		"SGLANG_AITER_HONOR_EXPLICIT_MEM_FRACTION", "SGLANG_AITER_MLA_GLUON", "SGLANG_AITER_UNIFIED_DRAFT_EXTEND", "SGLANG_CRASH_ON_JIT_COMPILE",
		"SGLANG_CUTE_AOT_CACHE_DIR", "SGLANG_DEBUG_SLOW_SCHEDULER_PASS_MS", "SGLANG_DEEPEP_V2_FORCE_MAX_LEN", "SGLANG_DEEPEP_V2_NUM_MAX_DISPATCH_TOKENS_PER_RANK",
		"SGLANG_DEEPEP_V2_NUM_SMS", "SGLANG_DEEPEP_V2_TRACE_CONTIG", "SGLANG_DEEPEP_V2_TRACE_MASKED", "SGLANG_DIAG_BYPASS_HEALTH_GENERATE",
		"SGLANG_DISABLE_LEAN_ATTENTION", "SGLANG_DISAGGREGATION_ENGINE_INIT_TIMEOUT", "SGLANG_DSPARK_OPT_FUSED_GREEDY_MARKOV", "SGLANG_ENABLE_BF16_SPLITK_GEMM",
		"SGLANG_ENABLE_GDN_DECODE_FUSED_PROJ_CONV", "SGLANG_ENABLE_GRAPH_POOL_PRECARVE", "SGLANG_ENABLE_METADATA_GLUE_GRAPH", "SGLANG_ENABLE_TREE_CACHE_SANITY_CHECK",
		"SGLANG_ENCODER_MM_LOAD_WORKERS", "SGLANG_EXPOSE_OWN_ENV_VARS", "SGLANG_FLASHINFER_CUTEDSL_NVFP4_W4A16", "SGLANG_FLASHINFER_MNNVL_CUTEDSL_AR_FUSION",
		"SGLANG_FLASHINFER_MNNVL_CUTEDSL_AR_FUSION_MAX_INSTANCES", "SGLANG_FORCE_LEAN_GRID_CU_MULT", "SGLANG_GDN_DECODE_FUSION_LOG_LAYER_HITS", "SGLANG_GDN_DECODE_FUSION_VERIFY_REAL_TENSORS",
		"SGLANG_HICACHE_HOST_REGISTER_CHUNK_GB", "SGLANG_K3_RADIX4_TOPK", "SGLANG_MINICPM_DENSE_AS_SPARSE", "SGLANG_MINICPM_FORCE_DENSE",
		"SGLANG_MINICPM_FUSE_TOPK", "SGLANG_OPT_DEEPGEMM_MEGA_MOE_RESERVED_SMS", "SGLANG_OPT_DG_COMPACT_EAGER", "SGLANG_OPT_FP8_WO_A_FUSED_INVROPE",
		"SGLANG_OPT_FUSED_KDA_VERIFY", "SGLANG_PROFILE_BY_STAGE_DECODE_MIN_BS", "SGLANG_QWEN35_NATIVE_FINAL_NORM", "SGLANG_ROCM_K3_FUSE_KDA_INPROJ",
		"SGLANG_ROCM_K3_FUSE_KDA_INPROJ_MAX_TOKENS", "SGLANG_SPEC_TP_SYNC", "SGLANG_TEST_METRICS_FILE", "SGLANG_TRACE_LOGITS_E2E",
		"SGLANG_TRACE_LOGITS_E2E_SYNC", "SGLANG_TRACE_QWEN35_FINAL_NORM", "SGLANG_TRACE_QWEN_MOE_DEEPEP_E2E", "SGLANG_TRACE_SAMPLER_E2E",
		"SGLANG_VALIDATE_MAMBA_REPLAY_STATE_INDICES", "SGLANG_WEIGHT_CACHE_READY_TEMPLATE", "SGLANG_WEIGHT_CACHE_SOCKET_TEMPLATE",
	} {
		envDifferences["hand "+n] = newerHand
	}
	// In the generated registry only: added on its line of main after
	// the hand list's commit, or retired on the hand list's line.
	for _, n := range []string{"SGLANG_ENABLE_CP_V2", "SGLANG_ENABLE_HICACHE_BUFFER_ANCHOR_LOCK", "SGLANG_K3_DENSE_MLP_ATTN_TP", "SGLANG_K3_SHARED_EXPERTS_ATTN_TP", "SGLANG_SORT_FREE_LIST_AFTER_MERGE"} {
		envDifferences["gen "+n] = newerHand
	}
	// Retired on the hand list's line of main only.
	envDifferences["retired SGLANG_FLASHINFER_PR4266_SOURCE"] = newerHand
	for _, n := range []string{"SGLANG_DISABLED_MODEL_ARCHS", "SGLANG_LOG_REQUEST_HEADERS", "SGLANG_DSPARK_DEBUG_DUMP", "SGLANG_OPT_GATE_GEMV_MODE",
		"SGLANG_INVARIANT_CHECK", "SGLANG_DSPARK_FOLDED_SAMPLING", "SGLANG_TOOL_STRICT_LEVEL", "SGLANG_DP_USE_REDUCE_SCATTER", "SGLANG_DG_CACHE_DIR", "SGLANG_CACHE_DIR"} {
		envDifferences["default "+n] = "the hand list wrote the value the default expression gives (tuple(), 2 ** 31, an enum member, a computed path)"
	}
}

// TestEnvCatalogAgainstHandCopied compares the registry of the env
// catalog built from the newest generated tables with the hand-copied
// one: the same names but for envDifferences, and the same type and
// default for each name both have.
func TestEnvCatalogAgainstHandCopied(t *testing.T) {
	hand, err := ParseSGLangEnvs(sglangEnvsTxt)
	if err != nil {
		t.Fatal(err)
	}
	gen := SGLangEnvCatalog()
	got := map[string]bool{}
	for _, h := range hand.Vars {
		g, ok := gen.Lookup(h.Name)
		if !ok {
			got["hand "+h.Name] = true
			continue
		}
		if h.Type != g.Type || h.Secret != g.Secret {
			t.Errorf("%s: hand-copied %+v, generated %+v", h.Name, *h, *g)
		}
		hd, gd := handEnvDefault(h.Default), strings.ReplaceAll(g.Default, " ", "")
		if hd != gd {
			got["default "+h.Name] = true
			if _, ok := envDifferences["default "+h.Name]; !ok {
				t.Errorf("%s: default hand-copied %q, generated %q", h.Name, h.Default, g.Default)
			}
		}
	}
	for _, g := range gen.Vars {
		if _, ok := hand.Lookup(g.Name); !ok {
			got["gen "+g.Name] = true
		}
	}
	var keys []string
	for k := range got {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if _, ok := envDifferences[k]; !ok {
			t.Errorf("env name %s: in the %s catalog only", k[strings.Index(k, " ")+1:], map[bool]string{true: "hand-copied", false: "generated"}[strings.HasPrefix(k, "hand ")])
		}
	}
	for k := range envDifferences {
		if !got[k] && !strings.HasPrefix(k, "retired ") {
			t.Errorf("env name %s: listed as in one catalog only, which it no longer is", k)
		}
	}
	// Every retired name of the hand list is retired or an alias in the
	// generated catalog too, unless the generated registry still has it.
	for _, r := range hand.Retired {
		if _, ok := gen.LookupRetired(r.Name); !ok && !slices.Contains(gen.Names(), r.Name) && envDifferences["retired "+r.Name] == "" {
			t.Errorf("retired %s: unknown to the generated catalog", r.Name)
		}
	}
}
