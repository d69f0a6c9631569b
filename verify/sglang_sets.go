package verify

import (
	"slices"

	"github.com/sglaunch/sglaunch/plan"
)

// sglangSet is a variable SGLang sets in its own environment, which its
// workers inherit: not drift when a worker shows it.
type sglangSet struct {
	Name string
	// When says under which condition SGLang sets it, as an operator
	// reads it; Source is the SGLang file (python/sglang/...) that does.
	When, Source string
	// Overwrites reports, for a plan's flags, whether SGLang replaces a
	// value the plan gave (nil: it only fills the variable in when unset).
	Overwrites func(flags map[string][]string) bool
}

// sglangSets lists what SGLang sets for itself, checked against SGLang
// main of late 2026 (srt/entrypoints/engine.py _set_envs_and_config,
// srt/environ.py redirect_third_party_caches).
var sglangSets = []sglangSet{
	{Name: "SGLANG_RUN_ID", When: "always, before the workers start", Source: "srt/entrypoints/engine.py (_set_envs_and_config)",
		Overwrites: func(map[string][]string) bool { return true }},
	{Name: "CUDA_DEVICE_MAX_CONNECTIONS", When: "always, to 8", Source: "srt/entrypoints/engine.py (_set_envs_and_config)",
		Overwrites: func(map[string][]string) bool { return true }},
	{Name: "CUDA_MODULE_LOADING", When: "always, to AUTO", Source: "srt/entrypoints/engine.py (_set_envs_and_config)",
		Overwrites: func(map[string][]string) bool { return true }},
	{Name: "PROMETHEUS_MULTIPROC_DIR", When: "under --enable-metrics, when unset", Source: "srt/entrypoints/engine.py (_set_envs_and_config)"},
	{Name: "NCCL_CUMEM_ENABLE", When: "when unset (0), and to 1 under --enable-symm-mem; defaulted to 1 on multi-node MNNVL fabric", Source: "srt/entrypoints/engine.py (_set_envs_and_config)",
		Overwrites: hasFlag("--enable-symm-mem")},
	{Name: "NCCL_NVLS_ENABLE", When: "when unset, and under --enable-nccl-nvls or --enable-symm-mem", Source: "srt/entrypoints/engine.py (_set_envs_and_config)",
		Overwrites: hasFlag("--enable-nccl-nvls", "--enable-symm-mem")},
	{Name: "NCCL_MNNVL_ENABLE", When: "when unset, on multi-node MNNVL fabric (GB200/GB300)", Source: "srt/entrypoints/engine.py (_set_envs_and_config)"},
	{Name: "NCCL_GRAPH_MIXING_SUPPORT", When: "to 0 with decode context parallelism (dcp size > 1), when unset or under --enable-symm-mem", Source: "srt/entrypoints/engine.py (_set_envs_and_config)",
		Overwrites: hasFlag("--enable-symm-mem")},
	{Name: "NCCL_ALGO", When: "under --enable-deterministic-inference with tp > 1", Source: "srt/server_args.py (deterministic inference)",
		Overwrites: deterministicTP},
	{Name: "NCCL_MIN_NCHANNELS", When: "under --enable-deterministic-inference with tp > 1", Source: "srt/server_args.py (deterministic inference)",
		Overwrites: deterministicTP},
	{Name: "NCCL_MAX_NCHANNELS", When: "under --enable-deterministic-inference with tp > 1", Source: "srt/server_args.py (deterministic inference)",
		Overwrites: deterministicTP},
	{Name: "CUDA_CACHE_PATH", When: "when unset, on import sglang, under SGLANG_CACHE_DIR", Source: "srt/environ.py (redirect_third_party_caches)"},
	{Name: "TRITON_CACHE_DIR", When: "when unset, on import sglang, under SGLANG_CACHE_DIR", Source: "srt/environ.py (redirect_third_party_caches)"},
	{Name: "TORCHINDUCTOR_CACHE_DIR", When: "when unset, on import sglang, under SGLANG_CACHE_DIR", Source: "srt/environ.py (redirect_third_party_caches)"},
	{Name: "TILELANG_CACHE_DIR", When: "when unset, on import sglang, under SGLANG_CACHE_DIR", Source: "srt/environ.py (redirect_third_party_caches)"},
	{Name: "FLASHINFER_WORKSPACE_BASE", When: "when unset, on import sglang, to SGLANG_CACHE_DIR", Source: "srt/environ.py (redirect_third_party_caches)"},
	{Name: "TRTLLM_ENABLE_PDL", When: "to 1 unless it is 0", Source: "srt/entrypoints/engine.py (_set_envs_and_config)"},
	{Name: "CUTE_DSL_LOG_LEVEL", When: "when unset, to 30", Source: "srt/entrypoints/engine.py (_set_envs_and_config)"},
	{Name: "CUTE_DSL_LOG_TO_CONSOLE", When: "when unset, to 1", Source: "srt/entrypoints/engine.py (_set_envs_and_config)"},
}

// setBySGLang finds name in sglangSets.
func setBySGLang(name string) (sglangSet, bool) {
	i := slices.IndexFunc(sglangSets, func(s sglangSet) bool { return s.Name == name })
	if i < 0 {
		return sglangSet{}, false
	}
	return sglangSets[i], true
}

// note is the row note for a variable SGLang set.
func (s sglangSet) note() string { return "set by SGLang " + s.When + " (" + s.Source + ")" }

func hasFlag(names ...string) func(map[string][]string) bool {
	return func(flags map[string][]string) bool {
		for _, n := range names {
			if _, ok := flags[n]; ok {
				return true
			}
		}
		return false
	}
}

// deterministicTP: --enable-deterministic-inference with a tp size above 1.
func deterministicTP(flags map[string][]string) bool {
	if _, ok := flags["--enable-deterministic-inference"]; !ok {
		return false
	}
	tp := flags["--tp-size"] // canonical: "08" is "8"
	return len(tp) > 0 && tp[0] != "1" && tp[0] != "0"
}

// overwrittenBySGLang reports whether SGLang replaces name's planned
// value under the expected plan's flags, and how.
func overwrittenBySGLang(exp Expected, name string) (sglangSet, bool) {
	s, ok := setBySGLang(name)
	if !ok || s.Overwrites == nil {
		return s, false
	}
	return s, s.Overwrites(plan.FlagMap(plan.ArgvTail(exp.Argv), true))
}
