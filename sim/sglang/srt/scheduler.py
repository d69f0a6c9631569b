"""A simulated scheduler process: one per TP rank, started by the server with
``python -m sglang.srt.scheduler`` (a fresh exec, so /proc/PID/environ is its
own).

Like SGLang's schedulers it names itself ``sglang::scheduler_TP<rank>``, sets a
parent-death SIGKILL, plays the model load (weights, KV cache, CUDA graphs) with
SGLang's log lines, reports ready to the parent over a pipe, and then waits
until the parent goes away. The same entry point runs the escaped worker of
SGLANG_SIM_SETSID_WORKER (``--role escaped``): it calls setsid(), sets no
parent-death signal, and lives until something kills it.

The parent passes everything on the command line, so that the worker's
environment is exactly what the parent exec'd it with.
"""

import argparse
import os
import signal
import sys
import time

from sglang.srt.utils import kill_itself_when_parent_died, kv_cache_gb, logger, set_process_title

# Fractions of SGLANG_SIM_LOAD_SECONDS at which each phase starts.
T_DIST_BEGIN = 0.00
T_DIST_END = 0.04
T_WEIGHTS_BEGIN = 0.05
T_WEIGHTS_END = 0.60
T_KV = 0.62
T_GRAPH_BEGIN = 0.65
T_GRAPH_END = 0.98
T_READY = 1.00

GPU_TOTAL_GB = 79.19


def _parse(argv):
    p = argparse.ArgumentParser(prog="sglang.srt.scheduler")
    p.add_argument("--role", default="scheduler", choices=["scheduler", "escaped"])
    p.add_argument("--title", required=True)
    p.add_argument("--prefix", default="")
    p.add_argument("--parent", type=int, required=True)
    p.add_argument("--tp-rank", type=int, default=0)
    p.add_argument("--pp-rank", type=int, default=0)
    p.add_argument("--ready-fd", type=int, default=-1)
    p.add_argument("--ctl-fd", type=int, default=-1)
    p.add_argument("--t0", type=float, default=0.0)
    p.add_argument("--load-seconds", type=float, default=1.0)
    p.add_argument("--crash-at", type=float, default=None)
    p.add_argument("--log-fd", type=int, default=2)
    p.add_argument("--log-level", default="info")
    p.add_argument("--arch", default="LlamaForCausalLM")
    p.add_argument("--dtype", default="torch.bfloat16")
    p.add_argument("--kv-tokens", type=int, default=413154)
    p.add_argument("--context-len", type=int, default=32768)
    p.add_argument("--chunked-prefill-size", type=int, default=8192)
    p.add_argument("--max-prefill-tokens", type=int, default=16384)
    p.add_argument("--max-running-requests", type=int, default=4096)
    p.add_argument("--cuda-graph-bs", default="")
    p.add_argument("--no-cuda-graph", action="store_true")
    return p.parse_args(argv)


class Timeline:
    def __init__(self, t0, load_seconds):
        self.t0 = t0
        self.load = load_seconds

    def at(self, frac):
        return self.t0 + frac * self.load

    def sleep_until(self, frac):
        delay = self.at(frac) - time.monotonic()
        if delay > 0:
            time.sleep(delay)


def _fmt_elapsed(seconds):
    seconds = max(0, int(seconds))
    return f"{seconds // 60:02d}:{seconds % 60:02d}"


class ProgressBar:
    """A tqdm-like bar: redrawn in place with \\r on a terminal, one plain
    line when the log is a pipe or a file."""

    def __init__(self, fd, total, render):
        self.fd = fd
        self.total = total
        self.render = render
        self.start = time.monotonic()
        try:
            self.tty = os.isatty(fd)
        except OSError:
            self.tty = False

    def update(self, n):
        if self.tty:
            logger.raw("\r" + self.render(n, self.total, time.monotonic() - self.start))

    def close(self):
        text = self.render(self.total, self.total, time.monotonic() - self.start)
        logger.raw(("\r" + text + "\n") if self.tty else (text + "\n"))


def _rate(n, elapsed):
    return f"{n / elapsed:5.2f}it/s" if elapsed > 0 else "?it/s"


def _shards_bar(n, total, elapsed):
    pct = int(100 * n / total) if total else 100
    remaining = elapsed / n * (total - n) if n else 0
    return (
        f"Loading safetensors checkpoint shards: {pct:3d}% Completed | {n}/{total} "
        f"[{_fmt_elapsed(elapsed)}<{_fmt_elapsed(remaining)}, {_rate(n, elapsed)}]"
    )


def _capture_bar(bs_list):
    def render(n, total, elapsed):
        pct = int(100 * n / total) if total else 100
        width = 10
        filled = int(width * n / total) if total else width
        bar = "\u2588" * filled + " " * (width - filled)
        # Graphs are captured from the largest batch size down.
        bs = bs_list[max(0, total - n)]
        remaining = elapsed / n * (total - n) if n else 0
        return (
            f"Capturing batches (bs={bs} avail_mem=11.31 GB): {pct:3d}%|{bar}| {n}/{total} "
            f"[{_fmt_elapsed(elapsed)}<{_fmt_elapsed(remaining)}, {_rate(n, elapsed)}]"
        )

    return render


def _traceback_for(frac, pkg):
    """A Python traceback tail like the one SGLang prints when a rank fails in
    the given load phase."""
    frames = [
        (f"{pkg}/srt/managers/scheduler.py", 2950, "run_scheduler_process", "scheduler = Scheduler("),
        (f"{pkg}/srt/managers/scheduler.py", 346, "__init__", "self.tp_worker = TpModelWorker("),
        (f"{pkg}/srt/managers/tp_worker.py", 237, "__init__", "self.model_runner = ModelRunner("),
        (f"{pkg}/srt/model_executor/model_runner.py", 325, "__init__", "self.initialize(min_per_gpu_memory)"),
    ]
    if frac < T_WEIGHTS_END:
        frames.append((f"{pkg}/srt/model_executor/model_runner.py", 464, "initialize", "self.load_model()"))
        frames.append((f"{pkg}/srt/model_loader/loader.py", 591, "load_model", "model = _initialize_model("))
        exc = (
            "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.75 GiB. GPU 0 has a total "
            "capacity of 79.19 GiB of which 1.02 GiB is free. Including non-PyTorch memory, this process "
            "has 78.16 GiB memory in use."
        )
    elif frac < T_GRAPH_BEGIN:
        frames.append((f"{pkg}/srt/model_executor/model_runner.py", 502, "initialize", "self.init_memory_pool("))
        frames.append((f"{pkg}/srt/model_executor/model_runner.py", 1388, "init_memory_pool", "raise RuntimeError("))
        exc = "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static."
    else:
        frames.append((f"{pkg}/srt/model_executor/model_runner.py", 531, "initialize", "self.init_device_graphs()"))
        frames.append((f"{pkg}/srt/model_executor/cuda_graph_runner.py", 402, "__init__", "raise Exception("))
        exc = (
            "Exception: Capture cuda graph failed: CUDA out of memory. Tried to allocate 512.00 MiB.\n"
            "Possible solutions:\n"
            "1. set --mem-fraction-static to a smaller value (e.g., 0.8 or 0.7)\n"
            "2. set --cuda-graph-max-bs to a smaller value (e.g., 16)\n"
            "3. disable torch compile by not using --enable-torch-compile\n"
            "4. disable CUDA graph by --disable-cuda-graph. (Not recommended. Huge performance loss)"
        )
    lines = ["Traceback (most recent call last):"]
    for path, line, func, code in frames:
        lines.append(f'  File "{path}", line {line}, in {func}')
        lines.append(f"    {code}")
    lines.append(exc)
    return "\n".join(lines)


def _crash(args, frac):
    pkg = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    logger.error(f"Scheduler hit an exception: {_traceback_for(frac, pkg)}")
    # SGLang's scheduler tells its parent it failed with SIGQUIT.
    try:
        os.kill(args.parent, signal.SIGQUIT)
    except OSError:
        pass
    os._exit(1)


def _bs_list(args):
    if args.cuda_graph_bs:
        return [int(x) for x in args.cuda_graph_bs.split(",") if x]
    return [1, 2, 4, 8] + list(range(16, 257, 8))


def run_load(args):
    tl = Timeline(args.t0, args.load_seconds)
    rank0 = args.tp_rank == 0 and args.pp_rank == 0
    crash = args.crash_at if rank0 else None
    crash_frac = None
    if crash is not None:
        crash_frac = crash / args.load_seconds if args.load_seconds > 0 else 0.0
        crash_frac = min(crash_frac, T_READY)

    def step(frac):
        """Sleep to frac of the load, crashing on the way if asked."""
        if crash_frac is not None and crash_frac <= frac:
            tl.sleep_until(crash_frac)
            _crash(args, crash_frac)
        tl.sleep_until(frac)

    step(T_DIST_BEGIN)
    logger.info("Init torch distributed begin.")
    step(T_DIST_END)
    logger.info("Init torch distributed ends. mem usage=0.00 GB")
    step(T_WEIGHTS_BEGIN)
    logger.info(f"Load weight begin. avail mem={GPU_TOTAL_GB - 0.51:.2f} GB")
    if rank0:
        shards = 4
        bar = ProgressBar(logger.fd, shards, _shards_bar)
        for i in range(1, shards + 1):
            step(T_WEIGHTS_BEGIN + (T_WEIGHTS_END - T_WEIGHTS_BEGIN) * i / shards * 0.99)
            bar.update(i)
        bar.close()
    step(T_WEIGHTS_END)
    logger.info(
        f"Load weight end. type={args.arch}, dtype={args.dtype}, avail mem=63.66 GB, mem usage=15.02 GB."
    )
    step(T_KV)
    kv_gb = kv_cache_gb(args.kv_tokens)
    logger.info("Using KV cache dtype: torch.bfloat16")
    logger.info(f"KV Cache is allocated. #tokens: {args.kv_tokens}, K size: {kv_gb:.2f} GB, V size: {kv_gb:.2f} GB")
    logger.info("Memory pool end. avail mem=11.98 GB")
    if not args.no_cuda_graph:
        step(T_GRAPH_BEGIN)
        bs = _bs_list(args)
        if rank0:
            logger.info("Capture cuda graph begin. This can take up to several minutes. avail mem=11.35 GB")
            logger.info(f"Capture cuda graph bs {bs}")
            bar = ProgressBar(logger.fd, len(bs), _capture_bar(bs))
            began = time.monotonic()
            for i in range(1, len(bs) + 1):
                step(T_GRAPH_BEGIN + (T_GRAPH_END - T_GRAPH_BEGIN) * i / len(bs) * 0.99)
                bar.update(i)
            bar.close()
            step(T_GRAPH_END)
            logger.info(
                f"Capture cuda graph end. Time elapsed: {time.monotonic() - began:.2f} s. "
                "mem usage=0.62 GB. avail mem=10.69 GB."
            )
    step(T_READY)
    if rank0:
        logger.info(
            f"max_total_num_tokens={args.kv_tokens}, chunked_prefill_size={args.chunked_prefill_size}, "
            f"max_prefill_tokens={args.max_prefill_tokens}, max_running_requests={args.max_running_requests}, "
            f"context_len={args.context_len}, available_gpu_mem=10.69 GB"
        )


def _idle_until_parent_exits(ctl_fd):
    # The parent holds the write end; EOF means it is gone or wants us gone.
    if ctl_fd < 0:
        while True:
            signal.pause()
    while True:
        try:
            if not os.read(ctl_fd, 64):
                os._exit(0)
        except InterruptedError:
            continue
        except OSError:
            os._exit(0)


def main(argv=None):
    args = _parse(sys.argv[1:] if argv is None else argv)
    logger.configure(prefix=args.prefix, level=args.log_level, fd=args.log_fd)
    if args.role == "escaped":
        # Leave the server's session and process group, and set no
        # parent-death signal: only a supervisor that looks for it (a
        # subreaper, a walk of /proc) will ever stop this process.
        os.setsid()
        set_process_title(args.title)
        if args.ready_fd >= 0:
            os.write(args.ready_fd, b"ready\n")
            os.close(args.ready_fd)
        while True:
            signal.pause()
    kill_itself_when_parent_died(args.parent)
    set_process_title(args.title)
    run_load(args)
    os.write(args.ready_fd, b"ready\n")
    os.close(args.ready_fd)
    _idle_until_parent_exits(args.ctl_fd)


if __name__ == "__main__":
    main()
