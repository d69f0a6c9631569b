"""A performance model for tuning tests: TTFT, ITL and the accept length as a
function of NCCL variables and server flags. Off unless SGLANG_SIM_PERF_MODEL=1.

This is a model made up so that a tuner has something to find: a deterministic
surface with a known optimum, plus seeded noise per round. It is not how SGLang
or NCCL behave; the numbers mean nothing on real hardware.

Knobs
  SGLANG_SIM_PERF_MODEL   1: turn the model on. The base timings are
                          SGLANG_SIM_TTFT_MS and SGLANG_SIM_ITL_MS.
  SGLANG_SIM_PERF_NOISE   Relative noise (standard deviation) of each round's
                          TTFT and ITL; a new draw after every successful
                          /flush_cache (bench starts every round with one).
                          Default 0.01.
  SGLANG_SIM_PERF_SEED    Seed of the noise (default 0). The draws are also
                          seeded by the settings below, so each point has its
                          own, and a point measured twice sees the same.
  SGLANG_SIM_PERF_CRASH   Comma-separated NAME=VALUE settings that crash rank 0
                          during CUDA-graph capture (70 % into the load), as
                          NCCL_ALGO=Tree did on the reference deployment.
                          Default "NCCL_ALGO=Tree". NAME is a variable, or a
                          flag as --flag-name.

The surface (every factor is 1 at its optimum; ITL and TTFT are the base times
the product of the factors)
  NCCL_PROTO              Simple 1.00, LL 0.96, LL128 0.92 (ITL and TTFT);
                          unset 1.00.
  NCCL_ALGO               Ring 1.00, NVLS 0.98; unset 1.00 (Tree crashes).
  NCCL_MIN_NCHANNELS      1 + 0.03 * |log2(n / 16)| (ITL); unset: 16 / 2.
  NCCL_BUFFSIZE           1 + 0.01 * |log2(bytes / 8 MiB)| (ITL); unset 4 MiB.
  NCCL_NTHREADS           1 + 0.01 * |log2(n / 256)| (ITL); unset 512.
  --cuda-graph-max-bs-decode (or its alias --cuda-graph-max-bs)
                          1 + 0.04 * |log2(bs / 128)| (ITL); unset 512.
  --speculative-num-steps S and --speculative-eagle-topk K (with
                          --speculative-algorithm): each draft token is
                          accepted with p = min(0.9, 0.7 + 0.05 (K - 1)), the
                          accept length is 1 + p + p^2 + ... + p^S, a decode
                          step costs 1 + 0.15 S + 0.1 S (K - 1) times the base
                          ITL, and the ITL per token is that cost over the
                          accept length (S defaults to 3, K to 1; the optimum
                          is S = 3, K = 1). SGLANG_SIM_ACCEPT_LENGTH, when
                          set, still wins.
Other variables and flags have no effect: a space over them differs only by
the noise.
"""

import math
import os
import random

_PROTO = {"Simple": 1.00, "LL": 0.96, "LL128": 0.92}
_ALGO = {"Ring": 1.00, "NVLS": 0.98}
_ENV = ("NCCL_PROTO", "NCCL_ALGO", "NCCL_MIN_NCHANNELS", "NCCL_BUFFSIZE", "NCCL_NTHREADS")
_FLAGS = ("cuda_graph_max_bs_decode", "speculative_num_steps", "speculative_eagle_topk")

_state = None


def enabled():
    return os.environ.get("SGLANG_SIM_PERF_MODEL", "").strip().lower() in ("1", "true", "yes", "on")


def _num(name, raw, default):
    if raw is None or str(raw).strip() == "":
        return default
    try:
        return float(raw)
    except ValueError:
        raise SystemExit(f"{name}={raw!r}: want a number (SGLANG_SIM_PERF_MODEL)") from None


def _log_factor(weight, value, best):
    if value <= 0:
        return 1 + weight * 8
    return 1 + weight * abs(math.log2(value / best))


def _crashes(server_args):
    raw = os.environ.get("SGLANG_SIM_PERF_CRASH", "NCCL_ALGO=Tree")
    for item in raw.split(","):
        name, sep, value = item.strip().partition("=")
        if not sep:
            continue
        if name.startswith("--"):
            have = server_args.get(name[2:].replace("-", "_"))
        else:
            have = os.environ.get(name)
        if have is not None and str(have) == value:
            return item.strip()
    return None


class _State:
    def __init__(self, cfg, server_args):
        env = os.environ
        itl = _PROTO.get(env.get("NCCL_PROTO", ""), 1.0) * _ALGO.get(env.get("NCCL_ALGO", ""), 1.0)
        ttft = itl
        itl *= _log_factor(0.03, _num("NCCL_MIN_NCHANNELS", env.get("NCCL_MIN_NCHANNELS"), 8), 16)
        itl *= _log_factor(0.01, _num("NCCL_BUFFSIZE", env.get("NCCL_BUFFSIZE"), 4 << 20), 8 << 20)
        itl *= _log_factor(0.01, _num("NCCL_NTHREADS", env.get("NCCL_NTHREADS"), 512), 256)
        # --cuda-graph-max-bs is a deprecated alias of --cuda-graph-max-bs-decode.
        bs = server_args.get("cuda_graph_max_bs_decode")
        itl *= _log_factor(0.04, _num("--cuda-graph-max-bs-decode", bs, 512), 128)
        accept = None
        if server_args.get("speculative_algorithm"):
            steps = max(1, int(_num("--speculative-num-steps", server_args.get("speculative_num_steps"), 3)))
            topk = max(1, int(_num("--speculative-eagle-topk", server_args.get("speculative_eagle_topk"), 1)))
            p = min(0.9, 0.7 + 0.05 * (topk - 1))
            accept = 1 + sum(p**i for i in range(1, steps + 1))
            if cfg.accept_length is not None:
                accept = cfg.accept_length
            itl *= (1 + 0.15 * steps + 0.1 * steps * (topk - 1)) / accept
        self.base_itl = cfg.itl * itl
        self.base_ttft = cfg.ttft * ttft
        self.accept = accept
        self.noise = max(0.0, _num("SGLANG_SIM_PERF_NOISE", env.get("SGLANG_SIM_PERF_NOISE"), 0.01))
        key = [env.get("SGLANG_SIM_PERF_SEED", "0")]
        key += [f"{n}={env.get(n, '')}" for n in _ENV]
        key += [f"{f}={server_args.get(f)}" for f in _FLAGS]
        self.rng = random.Random("|".join(key))
        self.crash = _crashes(server_args)

    def draw(self):
        """This round's (ttft, itl): the surface's, times seeded noise."""
        f = max(0.5, 1 + self.rng.gauss(0, self.noise))
        g = max(0.5, 1 + self.rng.gauss(0, self.noise))
        return self.base_ttft * g, self.base_itl * f


def apply(cfg, server_args):
    """Set the sim's timings from the settings, before anything starts: the
    first round's TTFT and ITL, the accept length, and a crash during CUDA-graph
    capture for a setting in SGLANG_SIM_PERF_CRASH."""
    global _state
    if not enabled():
        return
    _state = _State(cfg, server_args)
    cfg.ttft, cfg.itl = _state.draw()
    if _state.accept is not None:
        cfg.accept_length = _state.accept
    if _state.crash is not None:
        cfg.crash_during_load = 0.7 * cfg.load_seconds


def on_flush(tm):
    """After a successful /flush_cache: the next round's draw."""
    if _state is None:
        return
    tm.ttft, tm.itl = _state.draw()

