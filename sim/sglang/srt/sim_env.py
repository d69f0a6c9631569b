"""Configuration of the simulated SGLang server, read from SGLANG_SIM_* variables.

This module is the only reader of the sim's own knobs. The load and token timings
default to test-sized values (the start-up takes about a second and a half);
SGLang's own waits (drain, /health, watchdog) default to SGLang's values and
have knobs to scale them.

Timing
  SGLANG_SIM_LOAD_SECONDS      Model load time, split across the phases (weights
                               60 %, KV cache 5 %, CUDA graphs 33 %). Default 1.0.
  SGLANG_SIM_WARMUP_SECONDS    Duration of the warm-up /generate after the port is
                               bound; /health answers 503 meanwhile. Default 0.3.
  SGLANG_SIM_TTFT_MS           Time to first token, from the request's arrival.
                               Default 50.
  SGLANG_SIM_ITL_MS            Inter-token latency. Token i of a request is sent at
                               arrival + TTFT + i * ITL. Default 10.
  SGLANG_SIM_PERF_MODEL        1: TTFT, ITL and the accept length follow a model of
                               NCCL variables and flags (perf_model.py, which
                               reads its own SGLANG_SIM_PERF_* knobs).

Failure modes
  SGLANG_SIM_CRASH_DURING_LOAD Seconds into the load at which the node's first rank
                               (rank 0 on one node) crashes with a traceback; the
                               server exits before binding the port.
  SGLANG_SIM_CRASH_EXIT_CODE   If set, the server exits with this status after that
                               crash. Unset (default): as SGLang, the rank's SIGQUIT
                               makes the server kill its tree and itself (137).
  SGLANG_SIM_CRASH_AFTER_READY Seconds after ready (on nodes >= 1: after the dummy
                               health server started) at which the node's first
                               rank fails in a forward: it logs its traceback and
                               SIGQUITs the server, which kills its tree (137).
  SGLANG_SIM_HANG_AFTER_READY  Seconds after ready at which the ranks hang, as in a
                               stuck NCCL collective: /health is accepted and not
                               answered (for SGLANG_HEALTH_CHECK_TIMEOUT seconds,
                               then 503), token streams stop, the process lives on.
  SGLANG_SIM_IGNORE_SIGTERM    1: every process of the server ignores SIGTERM.
  SGLANG_SIM_SETSID_WORKER     1: start one extra worker that calls setsid(), sets no
                               parent-death signal, and outlives the server until
                               something kills it.
  SGLANG_SIM_DAEMON            1: start one extra process that double-forks a daemon
                               (fork, setsid, fork, the middle exits, then the
                               process itself exits) which lives until killed.
  SGLANG_SIM_LOG_FLOOD_BYTES   Right at start, write this many bytes of ~120-byte log
                               lines to stdout, in large writes.
  SGLANG_SIM_EXIT_AFTER_FLOOD  1: exit 0 right after the flood.
  SGLANG_SIM_WORKER_ENV        "NAME=VALUE,NAME2=VALUE2": extra variables in the
                               environment of one TP worker only.
  SGLANG_SIM_WORKER_ENV_RANK   The TP rank that gets them. Default 1.
  SGLANG_SIM_SIGTERM_EXIT_CODE If set, exit with this status after a SIGTERM drain
                               instead of SIGKILLing itself as SGLang does.

SGLang's own waits, scaled for tests (defaults are SGLang's)
  SGLANG_SIM_DRAIN_POLL_SECONDS    The SIGTERM drain's step: the first check of the
                                   remaining requests comes at the next tick of a
                                   loop started with the server, then one check per
                                   step. Default 5 (tokenizer_manager.py).
  SGLANG_SIM_SHUTDOWN_WAIT_SECONDS How long the drained server waits for its
                                   schedulers to exit before it kills its tree.
                                   Default 15 (tokenizer_manager.py).
  SGLANG_SIM_HEALTH_POLL_SECONDS   /health's sleep before each check of the one-token
                                   generation. Default 1 (http_server.py).
  SGLANG_SIM_WATCHDOG_SECONDS      How often the main process checks that its
                                   workers live. Default 1 (utils/watchdog.py).
  SGLANG_SIM_WARMUP_SLEEP_SECONDS  The warm-up's sleep after the port is bound,
                                   before its /model_info and /generate (the first
                                   request through the tokenizer manager, which
                                   installs SGLang's SIGTERM handler). Default
                                   min(1, SGLANG_SIM_WARMUP_SECONDS / 2); SGLang's is 1.
  SGLANG_SIM_WARMUP_GIVE_UP_SECONDS How long the warm-up retries /model_info before it
                                   logs "Initialization failed" and kills the tree
                                   (137). Default 120 (http_server.py).

Log lines and speculative decoding
  SGLANG_SIM_LOG_FORMAT        Whose start-up lines: "current" (default; main
                               2026-08-16 and v0.5.16+: "Capture target decode
                               CUDA graph begin. backend=..., num_tokens_per_req=1,
                               ..."), "v0.5.15" (the same lines of PR #28937 with
                               num_tokens_per_bs=) or "v0.5.10" ("Capture cuda
                               graph begin. ...", then the piecewise capture; a KV
                               line without dtype).
  SGLANG_SIM_ACCEPT_LENGTH     Tokens per decode step (and per SSE chunk) under
                               --speculative-algorithm: the accept length, a number
                               >= 1. Default 2 with speculative decoding; always 1
                               without.

Observation
  SGLANG_SIM_RECORD            Path: write {"argv", "env", "pid"} there as JSON at
                               start (atomically: temp file, then rename).
  SGLANG_SIM_EVENTS            Path: append "NAME UNIX_NANOS" lines for moments a
                               supervisor's latency is measured from: flood_begin,
                               flood_end, ready (/health turns 200), crash_exit (the
                               server's exit during the load, just before it).
  SGLANG_SIM_LOG_STREAM        "stderr" (default, as SGLang's logging does) or
                               "stdout": where the server's log lines go. uvicorn's
                               access lines always go to stdout.
"""

import os

PREFIX = "SGLANG_SIM_"


def _float(name, default):
    raw = os.environ.get(name, "")
    if raw.strip() == "":
        return default
    try:
        return float(raw)
    except ValueError:
        raise SystemExit(f"{name}={raw!r}: want a number") from None


def _int(name, default):
    raw = os.environ.get(name, "")
    if raw.strip() == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise SystemExit(f"{name}={raw!r}: want an integer") from None


def _bool(name):
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "y", "on")


def _opt_float(name):
    raw = os.environ.get(name, "")
    return None if raw.strip() == "" else _float(name, 0.0)


def _opt_int(name):
    raw = os.environ.get(name, "")
    return None if raw.strip() == "" else _int(name, 0)


class SimConfig:
    def __init__(self):
        self.load_seconds = max(0.0, _float("SGLANG_SIM_LOAD_SECONDS", 1.0))
        self.warmup_seconds = max(0.0, _float("SGLANG_SIM_WARMUP_SECONDS", 0.3))
        # The warm-up thread's sleep before its first /model_info (SGLang's
        # 1 s; by default scaled to the sim's short warm-up) and how long it
        # retries before it gives up and kills the tree (120 x 1 s).
        self.warmup_sleep = _opt_float("SGLANG_SIM_WARMUP_SLEEP_SECONDS")
        if self.warmup_sleep is None:
            self.warmup_sleep = min(1.0, self.warmup_seconds / 2)
        self.warmup_sleep = min(max(0.0, self.warmup_sleep), self.warmup_seconds)
        self.warmup_give_up = max(0.0, _float("SGLANG_SIM_WARMUP_GIVE_UP_SECONDS", 120.0))
        self.ttft = max(0.0, _float("SGLANG_SIM_TTFT_MS", 50.0)) / 1000.0
        self.itl = max(0.0, _float("SGLANG_SIM_ITL_MS", 10.0)) / 1000.0
        self.crash_during_load = _opt_float("SGLANG_SIM_CRASH_DURING_LOAD")
        self.crash_exit_code = _opt_int("SGLANG_SIM_CRASH_EXIT_CODE")
        self.hang_after_ready = _opt_float("SGLANG_SIM_HANG_AFTER_READY")
        self.crash_after_ready = _opt_float("SGLANG_SIM_CRASH_AFTER_READY")
        self.ignore_sigterm = _bool("SGLANG_SIM_IGNORE_SIGTERM")
        self.setsid_worker = _bool("SGLANG_SIM_SETSID_WORKER")
        self.daemon = _bool("SGLANG_SIM_DAEMON")
        self.log_flood_bytes = max(0, _int("SGLANG_SIM_LOG_FLOOD_BYTES", 0))
        self.exit_after_flood = _bool("SGLANG_SIM_EXIT_AFTER_FLOOD")
        self.worker_env = parse_worker_env(os.environ.get("SGLANG_SIM_WORKER_ENV", ""))
        self.worker_env_rank = _int("SGLANG_SIM_WORKER_ENV_RANK", 1)
        self.sigterm_exit_code = _opt_int("SGLANG_SIM_SIGTERM_EXIT_CODE")
        self.drain_poll = max(0.001, _float("SGLANG_SIM_DRAIN_POLL_SECONDS", 5.0))
        self.shutdown_wait = max(0.0, _float("SGLANG_SIM_SHUTDOWN_WAIT_SECONDS", 15.0))
        self.health_poll = max(0.001, _float("SGLANG_SIM_HEALTH_POLL_SECONDS", 1.0))
        self.watchdog_interval = max(0.01, _float("SGLANG_SIM_WATCHDOG_SECONDS", 1.0))
        fmt = os.environ.get("SGLANG_SIM_LOG_FORMAT", "").strip() or "current"
        if fmt not in ("current", "v0.5.15", "v0.5.10"):
            raise SystemExit(f"SGLANG_SIM_LOG_FORMAT={fmt!r}: want current, v0.5.15 or v0.5.10")
        self.log_format = fmt
        self.accept_length = _opt_float("SGLANG_SIM_ACCEPT_LENGTH")
        if self.accept_length is not None and self.accept_length < 1:
            raise SystemExit(f"SGLANG_SIM_ACCEPT_LENGTH={self.accept_length}: want a number >= 1")
        self.record = os.environ.get("SGLANG_SIM_RECORD", "")
        self.events = os.environ.get("SGLANG_SIM_EVENTS", "")
        stream = os.environ.get("SGLANG_SIM_LOG_STREAM", "stderr").strip().lower()
        self.log_fd = 1 if stream == "stdout" else 2


def parse_worker_env(raw):
    """"A=1,B=two" -> {"A": "1", "B": "two"}. A value may not hold a comma."""
    out = {}
    for item in raw.split(","):
        item = item.strip()
        if not item:
            continue
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise SystemExit(f"SGLANG_SIM_WORKER_ENV: {item!r}: want NAME=VALUE")
        out[name.strip()] = value
    return out


_config = None


def config():
    global _config
    if _config is None:
        _config = SimConfig()
    return _config
