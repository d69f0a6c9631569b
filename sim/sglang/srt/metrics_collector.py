"""SGLang's /metrics series, after srt/observability/metrics_collector.py
(where SGLang #17862 moved srt/metrics/collector.py): the names, help texts,
types and label sets of the series the sim models, in prometheus_client's
classic text format as its multiprocess collector renders them.

SchedulerMetricsCollector (one per scheduler that logs stats): labels
model_name (--served-model-name), engine_type ("unified" unless
disaggregated), tp_rank, pp_rank, moe_ep_rank, and dp_rank when dp_size > 1
(SchedulerMetricsCollector.init_new). A scheduler logs when its attention-TP
rank is 0, or every scheduler under --enable-metrics-for-all-schedulers
(the sim reads dp_rank as under --enable-dp-attention); the HTTP server
reads the multiprocess directory of its own node, so node 0's schedulers
only. Gauges are multiprocess_mode="mostrecent": one series per label set.
moe_ep_rank is engine.py's _compute_parallelism_ranks.

TokenizerMetricsCollector: labels model_name and engine_type; the token and
request counters add is_streaming ("true"/"false"), counted once per
finished request (observe_one_finished_request), so a counter has no series
before its first request.
"""

SCHEDULER_GAUGES = (
    ("sglang:num_running_reqs", "The number of running requests."),
    ("sglang:gen_throughput", "The generation throughput (token/s)."),
    ("sglang:max_total_num_tokens", "Maximum total number of tokens in the KV cache pool."),
)

TOKENIZER_COUNTERS = (
    ("sglang:prompt_tokens_total", "Number of prefill tokens processed."),
    ("sglang:generation_tokens_total", "Number of generation tokens processed."),
    ("sglang:num_requests_total", "Number of requests processed."),
)


def _int(args, name, default=1):
    return max(1, int(args.get(name, default) or default))


def engine_type(args):
    """DisaggregationMode.to_engine_type: unified, prefill or decode."""
    mode = args.get("disaggregation_mode") or "null"
    return "unified" if mode == "null" else str(mode)


def model_name(args):
    """served_model_name, which ServerArgs defaults to the model path."""
    return str(args.get("served_model_name") or args.get("model_path"))


def tokenizer_labels(args):
    """tokenizer_manager.py's collector labels, in their order."""
    return {"model_name": model_name(args), "engine_type": engine_type(args)}


def scheduler_label_sets(args, pp_range, tp_range):
    """The label set of every scheduler of this node that logs stats, in
    launch order (pp outer, tp inner)."""
    tp, dp = _int(args, "tp_size"), _int(args, "dp_size")
    attn_dp = dp if args.get("enable_dp_attention") else 1
    attn_tp = max(1, tp // attn_dp // _int(args, "attn_cp_size"))
    moe_dp = _int(args, "moe_dp_size")
    ep = _int(args, "ep_size")
    per_moe_dp = max(1, tp // moe_dp)
    every = bool(args.get("enable_metrics_for_all_schedulers"))
    out = []
    for pp_rank in pp_range:
        for tp_rank in tp_range:
            if not every and tp_rank % attn_tp != 0:
                continue
            labels = {
                "model_name": model_name(args),
                "engine_type": engine_type(args),
                "tp_rank": str(tp_rank),
                "pp_rank": str(pp_rank),
                "moe_ep_rank": str(tp_rank % per_moe_dp // max(1, per_moe_dp // ep)),
            }
            if dp > 1:
                labels["dp_rank"] = str(tp_rank // max(1, tp // dp))
            out.append(labels)
    return out


class TokenizerMetrics:
    """The tokenizer manager's counters, by is_streaming."""

    def __init__(self):
        # is_streaming -> [prompt tokens, generation tokens, requests]
        self.by_stream = {}

    def observe_finished(self, prompt_tokens, generation_tokens, stream):
        c = self.by_stream.setdefault("true" if stream else "false", [0, 0, 0])
        c[0] += prompt_tokens
        c[1] += generation_tokens
        c[2] += 1


def _labels(d):
    return ",".join(f'{k}="{v}"' for k, v in d.items())


def _value(v):
    """prometheus_client's floatToGoString: Go's exponent from 1e6 up."""
    d = float(v)
    s = repr(d)
    dot = s.find(".")
    if d > 0 and dot > 6:
        mantissa = f"{s[0]}.{s[1:dot]}{s[dot + 1:]}".rstrip("0.")
        return f"{mantissa}e+0{dot - 1}"
    return s


def exposition(args, pp_range, tp_range, gauges, counters):
    """The text lines of the series: gauges maps a scheduler gauge's name
    to its value (one per scheduler), counters is the TokenizerMetrics."""
    lines = []
    sets = scheduler_label_sets(args, pp_range, tp_range)
    for name, doc in SCHEDULER_GAUGES:
        lines += [f"# HELP {name} {doc}", f"# TYPE {name} gauge"]
        lines += [f"{name}{{{_labels(s)}}} {_value(gauges[name])}" for s in sets]
    base = tokenizer_labels(args)
    for i, (name, doc) in enumerate(TOKENIZER_COUNTERS):
        lines += [f"# HELP {name} {doc}", f"# TYPE {name} counter"]
        for stream in sorted(counters.by_stream):
            labels = dict(base, is_streaming=stream)
            lines.append(f"{name}{{{_labels(labels)}}} {_value(counters.by_stream[stream][i])}")
    return lines
