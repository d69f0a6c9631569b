"""SGLang's own start-up timings, as srt/observability/startup_time.py
builds them: seconds per phase, the critical path over the ranks
(aggregate_scheduler_startup_times takes each phase's maximum), with
cuda_graph keyed by the capture sets of model_executor/graph_memory_usage.py
(every key present, 0.0 for a set not captured). The engine sets them on the
tokenizer manager once every rank has loaded (entrypoints/engine.py
_set_startup_time, which also logs "Engine startup timings (s): ..."); they
appear as /server_info's "startup_time" and, under --enable-metrics, as the
sglang:startup_time_seconds{phase} and
sglang:startup_cuda_graph_time_seconds{phase} gauges
(observability/metrics_collector.py emit_startup_time).

The sim's phases are fractions of SGLANG_SIM_LOAD_SECONDS (scheduler.py's
T_* marks), so the durations are those fractions of it; scheduler_e2e and
tokenizer_e2e are measured.
"""

from sglang.srt import scheduler as s

GRAPH_KEYS = ("prefill", "decode", "target_verify", "draft_prefill", "draft_decode", "draft_extend")
PHASES = ("load_weight", "kv_cache_allocation", "scheduler_e2e", "tokenizer_e2e")


def build(args, cfg, scheduler_e2e, tokenizer_e2e, prefill_backend, graphs_disabled):
    load = cfg.load_seconds
    graph = dict.fromkeys(GRAPH_KEYS, 0.0)
    if not graphs_disabled:
        if prefill_backend != "disabled":
            graph["prefill"] = (s.T_PREFILL_END - s.T_GRAPH_BEGIN) * load
        if args.get("speculative_algorithm"):
            graph["target_verify"] = (s.T_DECODE_END - s.T_PREFILL_END) * load
            if int(args.get("speculative_num_steps") or 3) > 1:
                graph["draft_decode"] = (s.T_DRAFT_DECODE_END - s.T_DECODE_END) * load
            graph["draft_extend"] = (s.T_GRAPH_END - s.T_DRAFT_DECODE_END) * load
        else:
            graph["decode"] = (s.T_GRAPH_END - s.T_PREFILL_END) * load
    return {
        "load_weight": (s.T_WEIGHTS_END - s.T_WEIGHTS_BEGIN) * load,
        "kv_cache_allocation": (s.T_KV - s.T_WEIGHTS_END) * load,
        "scheduler_e2e": scheduler_e2e,
        "cuda_graph": graph,
        "tokenizer_e2e": tokenizer_e2e,
    }


def log_line(st):
    graphs = ", ".join(f"{k}={v:.2f}" for k, v in st["cuda_graph"].items())
    return (
        f"Engine startup timings (s): load_weight={st['load_weight']:.2f}, "
        f"kv_cache_allocation={st['kv_cache_allocation']:.2f}, scheduler_e2e={st['scheduler_e2e']:.2f}, "
        f"cuda_graph={{{graphs}}}, tokenizer_e2e={st['tokenizer_e2e']:.2f}"
    )


def gauges(st, labels):
    """The two gauges in prometheus_client's text format."""
    lines = [
        "# HELP sglang:startup_time_seconds Engine startup duration by phase in seconds.",
        "# TYPE sglang:startup_time_seconds gauge",
    ]
    for phase in PHASES:
        lines.append(f'sglang:startup_time_seconds{{{labels},phase="{phase}"}} {float(st[phase])!r}')
    lines += [
        "# HELP sglang:startup_cuda_graph_time_seconds CUDA graph capture duration by phase in seconds.",
        "# TYPE sglang:startup_cuda_graph_time_seconds gauge",
    ]
    for phase, v in st["cuda_graph"].items():
        lines.append(f'sglang:startup_cuda_graph_time_seconds{{{labels},phase="{phase}"}} {float(v)!r}')
    return lines
