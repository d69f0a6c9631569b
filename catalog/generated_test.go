package catalog

import (
	"slices"
	"strings"
	"testing"

	"github.com/sglaunch/sglaunch/catalog/sglangtab"
)

// TestHandCatalogAgainstGeneratedTables keeps the hand-copied SGLang lists
// (data/sglang-server-args.txt, data/sglang-envs.txt) from drifting
// silently from the tables generated from SGLang's source: every flag and
// Envs name of the newest generated set is in the hand lists, and the hand
// lists hold nothing else, but for the names listed here (the hand lists
// were read at SGLang commits on another line of main than the generated
// set). A regeneration that finds a new name, or
// catches up with one of these, fails here: then move that list to the
// generated table.
func TestHandCatalogAgainstGeneratedTables(t *testing.T) {
	all, err := sglangtab.All()
	if err != nil {
		t.Fatal(err)
	}
	newest := all[len(all)-1]

	var genFlags []string
	for _, a := range newest.ServerArgs {
		genFlags = append(genFlags, a.Flags...)
	}
	var handFlags []string
	for _, o := range SGLangArgs().Options() {
		// argparse makes --no-X for BooleanOptionalAction at run time;
		// "--tp" is argparse's unique-prefix abbreviation of --tp-size.
		if !strings.HasPrefix(o, "--no-") && o != "--tp" {
			handFlags = append(handFlags, o)
		}
	}
	onlyHandFlags := []string{"--deepep-v2-mode", "--enable-dense-mlp-attn-tp", "--enable-shared-experts-attn-tp", "--gated-launch-port", "--speculative-dsa-topk-backend"}
	compareNames(t, "flag", newest.Meta.Version, genFlags, handFlags, onlyHandFlags, nil)

	var genEnvs []string
	for _, r := range newest.EnvReads {
		if r.How == "Envs" && strings.HasPrefix(r.Name, "SGLANG_") {
			genEnvs = append(genEnvs, r.Name)
		}
	}
	// The registry's names as written (the text's non-comment lines).
	var handEnvs []string
	for _, line := range strings.Split(sglangEnvsTxt, "\n") {
		if strings.HasPrefix(line, "SGLANG_") {
			handEnvs = append(handEnvs, strings.Fields(line)[0])
		}
	}
	// In the generated main only (added there after the hand list's commit).
	onlyGenEnvs := []string{"SGLANG_ENABLE_CP_V2", "SGLANG_ENABLE_HICACHE_BUFFER_ANCHOR_LOCK", "SGLANG_K3_DENSE_MLP_ATTN_TP", "SGLANG_K3_SHARED_EXPERTS_ATTN_TP", "SGLANG_SORT_FREE_LIST_AFTER_MERGE"}
	// In the hand list only (its commit is on another line of main).
	onlyHandEnvs := []string{
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
	}
	compareNames(t, "env name", newest.Meta.Version, genEnvs, handEnvs, onlyHandEnvs, onlyGenEnvs)
}

// compareNames fails on a name in one list only that is not listed as
// such (known: hand-only, knownGen: generated-only), and on a listed name
// that is no longer in one list only.
func compareNames(t *testing.T, what, version string, generated, hand, known, knownGen []string) {
	t.Helper()
	for _, n := range generated {
		if !slices.Contains(hand, n) && !slices.Contains(knownGen, n) {
			t.Errorf("%s %s: in SGLang %s's generated tables, not in the hand-copied catalog", what, n, version)
		}
	}
	for _, n := range knownGen {
		if slices.Contains(hand, n) || !slices.Contains(generated, n) {
			t.Errorf("%s %s: listed as in the generated tables only, which it no longer is", what, n)
		}
	}
	var extra []string
	for _, n := range hand {
		if !slices.Contains(generated, n) && !slices.Contains(known, n) {
			extra = append(extra, n)
		}
	}
	if len(extra) > 0 {
		t.Errorf("%ss in the hand-copied catalog only, not in SGLang %s's generated tables: %s", what, version, strings.Join(extra, " "))
	}
	for _, n := range known {
		if slices.Contains(generated, n) {
			t.Errorf("%s %s: listed as hand-only, but SGLang %s's generated tables have it", what, n, version)
		}
	}
}
