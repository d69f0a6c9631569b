"""A simulated scheduler process: one per TP rank, started by the server with
``python -m sglang.srt.scheduler`` (a fresh exec, so /proc/PID/environ is its
own).

Like SGLang's schedulers it titles itself as configure_scheduler_process does
(``sglang::scheduler`` at tp 1, ``sglang::scheduler_TP<rank>``,
``sglang::scheduler_PP0_TP1_EP1``...; with the setproctitle package when it is
importable, see utils.set_process_title), installs no SIGTERM handler (a SIGTERM
kills it at once), sets a parent-death SIGKILL, plays the model load (weights, KV cache, CUDA graphs) with
SGLang's log lines, reports ready to the parent over a pipe, and then waits
until the parent goes away or sends "shutdown" (SGLang's ShutdownReq after a
drain), and exits 0. The same entry point runs the escaped worker of
SGLANG_SIM_SETSID_WORKER (``--role escaped``) and the double-forked daemon
of SGLANG_SIM_DAEMON (``--role daemon``). The escaped worker calls setsid(), sets no
parent-death signal, and lives until something kills it.

The parent passes everything on the command line, so that the worker's
environment is exactly what the parent exec'd it with.
"""

import argparse
import os
import signal
import sys
import time

from sglang.srt import dist
from sglang.srt.dist import sigquit_parent
from sglang.srt.utils import kill_itself_when_parent_died, kv_cache_gb, logger, set_process_title

# Fractions of SGLANG_SIM_LOAD_SECONDS at which each phase starts.
T_DIST_BEGIN = 0.00
T_DIST_END = 0.04
T_WEIGHTS_BEGIN = 0.05
T_WEIGHTS_END = 0.60
T_DRAFT_WEIGHTS = 0.55  # under speculative decoding, the draft model loads after the target
T_KV = 0.62
T_GRAPH_BEGIN = 0.65
T_PREFILL_END = 0.74  # current: prefill capture, then decode; v0.5.10: decode, then piecewise
T_DECODE_END = 0.88
T_DRAFT_DECODE_END = 0.93
T_PREFILL_END_SPEC = 0.95
T_GRAPH_END = 0.98
T_READY = 1.00

GPU_TOTAL_GB = 79.19


def _parse(argv):
    p = argparse.ArgumentParser(prog="sglang.srt.scheduler")
    p.add_argument("--role", default="scheduler", choices=["scheduler", "escaped", "daemon"])
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
    p.add_argument("--cuda-graph-max-bs", type=int, default=0)
    p.add_argument("--no-cuda-graph", action="store_true")
    p.add_argument("--prefill-graph-backend", default="breakable")
    p.add_argument("--prefill-graph-bs", default="")
    p.add_argument("--decode-graph-backend", default="full")
    p.add_argument("--log-format", default="current")
    p.add_argument("--spec", default="")
    p.add_argument("--spec-topk", type=int, default=1)
    p.add_argument("--spec-draft-tokens", type=int, default=4)
    p.add_argument("--spec-steps", type=int, default=3)
    # Multi-node (--nnodes > 1): this rank's place in the world and rank 0's store.
    p.add_argument("--world-size", type=int, default=1)
    p.add_argument("--global-rank", type=int, default=0)
    p.add_argument("--store", default="")
    p.add_argument("--dist-timeout", type=float, default=0.0)
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
    return _format_traceback(frames, exc)


def _format_traceback(frames, exc):
    """A Python traceback as the interpreter prints it: the frames (path,
    line, function, source line), innermost last, then the exception."""
    lines = ["Traceback (most recent call last):"]
    for path, line, func, code in frames:
        lines.append(f'  File "{path}", line {line}, in {func}')
        lines.append(f"    {code}")
    lines.append(exc)
    return "\n".join(lines)


def _crash(args, frac):
    pkg = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    _die(args, _traceback_for(frac, pkg))


def _die(args, traceback):
    logger.error(f"Scheduler hit an exception: {traceback}")
    # SGLang's scheduler tells its parent it failed with SIGQUIT.
    sigquit_parent(args.parent)
    os._exit(1)


def _running_traceback(where, exc):
    """The traceback of a rank that fails after the load: in its
    per-iteration request broadcast (a peer's link closed: gloo's error) or
    in a forward (SGLANG_SIM_CRASH_AFTER_READY: a CUDA error)."""
    pkg = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    frames = [
        (f"{pkg}/srt/managers/scheduler.py", 3215, "run_scheduler_process", "scheduler.run_event_loop()"),
        (f"{pkg}/srt/managers/scheduler.py", 1561, "run_event_loop", "dispatch_event_loop(self)"),
        (f"{pkg}/srt/managers/scheduler.py", 1180, "event_loop_overlap", "recv_reqs = self.recv_requests()"
         if where == "broadcast" else "batch_result = self.run_batch(batch)"),
    ]
    if where == "broadcast":
        frames += [
            (f"{pkg}/srt/managers/scheduler.py", 1402, "recv_requests", "recv_reqs = broadcast_pyobj("),
            (f"{pkg}/srt/utils/common.py", 1455, "broadcast_pyobj", "dist.broadcast(tensor_size, src=src, group=dist_group)"),
            ("/usr/local/lib/python3.12/dist-packages/torch/distributed/distributed_c10d.py", 2974, "broadcast",
             "work.wait()"),
        ]
    else:
        frames.append((f"{pkg}/srt/managers/scheduler.py", 2650, "run_batch",
                       "batch_result = self.model_worker.forward_batch_generation("))
        exc = ("RuntimeError: CUDA error: an illegal memory access was encountered\n"
               "CUDA kernel errors might be asynchronously reported at some other API call, so the "
               "stacktrace below might be incorrect.")
    return _format_traceback(frames, exc)


def _dist_traceback(exc):
    """A rank that fails in torch.distributed's rendezvous or in a gloo
    collective during the load."""
    pkg = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    frames = [
        (f"{pkg}/srt/managers/scheduler.py", 3209, "run_scheduler_process", "scheduler = Scheduler("),
        (f"{pkg}/srt/managers/scheduler.py", 346, "__init__", "self.tp_worker = TpModelWorker("),
        (f"{pkg}/srt/model_executor/model_runner.py", 325, "__init__", "min_per_gpu_memory = self.init_torch_distributed()"),
        (f"{pkg}/srt/distributed/bootstrap.py", 120, "init_torch_distributed", "_init_parallel_groups("),
        (f"{pkg}/srt/distributed/parallel_state.py", 1429, "init_distributed_environment",
         "torch.distributed.init_process_group("),
    ]
    return _format_traceback(frames, exc)


def _ready_then_pause(args):
    """A process outside the engine's watch (the daemon, the escaped
    worker): take its title, say ready, and wait for a signal forever."""
    set_process_title(args.title)
    if args.ready_fd >= 0:
        os.write(args.ready_fd, b"ready\n")
        os.close(args.ready_fd)
    while True:
        signal.pause()


def _bs_list(args):
    if args.cuda_graph_bs:
        return [int(x) for x in args.cuda_graph_bs.split(",") if x]
    bs = [1, 2, 4, 8] + list(range(16, 257, 8))
    if args.cuda_graph_max_bs:
        bs = [b for b in bs if b <= args.cuda_graph_max_bs] or [args.cuda_graph_max_bs]
    return bs


def _prefill_tokens(args):
    if args.prefill_graph_bs:
        return [int(x) for x in args.prefill_graph_bs.split(",") if x]
    return [4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192]


class Mem:
    """The avail mem figures the load reports, falling as it allocates."""

    def __init__(self):
        self.avail = GPU_TOTAL_GB - 0.51

    def use(self, gb):
        before = self.avail
        self.avail = max(0.5, self.avail - gb)
        return before, before - self.avail, self.avail


def run_load(args, links=None):
    """Play the model load with the lines SGLang's ranks log, in its order.

    Every rank logs with its prefix (none at tp 1): the torch distributed
    init (distributed/bootstrap.py), the weights (model_executor/
    model_runner.py), the KV pool (mem_cache/memory_pool.py, "Memory pool
    end" from kv_cache_configurator.py), and the CUDA graph captures. Only
    rank 0 draws the progress bars and, under speculative decoding, logs the
    draft captures (log_info_on_rank0 in speculative/eagle_worker_v2.py).

    --log-format picks the capture lines of a release:
      current  main 2026-08-16 and v0.5.16+ (model_runner_components/
               cuda_graph_setup.py): "Capture target prefill CUDA graph
               begin. backend=..., num_tokens=[...]", then "Capture target
               decode (or verify) CUDA graph begin. backend=...,
               num_tokens_per_req=N, bs=[...]", "... end. elapsed=...".
      v0.5.15  the same lines (PR #28937) with num_tokens_per_bs=N.
      v0.5.10  "Capture cuda graph begin. This can take up to several
               minutes." / "Capture cuda graph end. Time elapsed: ...", then
               the piecewise (prefill) capture, and a KV line without dtype.
    """
    tl = Timeline(args.t0, args.load_seconds)
    rank0 = args.tp_rank == 0 and args.pp_rank == 0
    crash = args.crash_at  # the parent passes it to its node's first rank only
    crash_frac = None
    if crash is not None:
        crash_frac = crash / args.load_seconds if args.load_seconds > 0 else 0.0
        crash_frac = min(crash_frac, T_READY)
    legacy = args.log_format == "v0.5.10"
    spec = bool(args.spec)
    mem = Mem()

    def step(frac):
        """Sleep to frac of the load, crashing on the way if asked."""
        if crash_frac is not None and crash_frac <= frac:
            tl.sleep_until(crash_frac)
            _crash(args, crash_frac)
        tl.sleep_until(frac)

    def elapsed_since(frac):
        return max(0.0, time.monotonic() - tl.at(frac))

    step(T_DIST_BEGIN)
    logger.info("Init torch distributed begin.")
    if args.world_size > 1 and args.store:
        # Every rank waits here until the whole world has joined rank 0's
        # store; the rest of the load starts from then.
        before = time.monotonic()
        links.extend(_rendezvous(args))
        tl.t0 += time.monotonic() - before
    step(T_DIST_END)
    logger.info(f"Init torch distributed ends. elapsed={elapsed_since(T_DIST_BEGIN):.2f} s, mem usage=0.51 GB")

    def load_weights(begin, end, arch, gb, shards):
        step(begin)
        logger.info(f"Load weight begin. avail mem={mem.avail:.2f} GB")
        if rank0 and shards:
            bar = ProgressBar(logger.fd, shards, _shards_bar)
            for i in range(1, shards + 1):
                step(begin + (end - begin) * i / shards * 0.99)
                bar.update(i)
            bar.close()
        step(end)
        _, used, avail = mem.use(gb)
        logger.info(
            f"Load weight end. elapsed={elapsed_since(begin):.2f} s, type={arch}, "
            f"avail mem={avail:.2f} GB, mem usage={used:.2f} GB."
        )

    if spec:
        load_weights(T_WEIGHTS_BEGIN, T_DRAFT_WEIGHTS, args.arch, 15.02, 4)
        load_weights(T_DRAFT_WEIGHTS, T_WEIGHTS_END, args.arch.replace("ForCausalLM", "ForCausalLMEagle3"), 0.81, 0)
    else:
        load_weights(T_WEIGHTS_BEGIN, T_WEIGHTS_END, args.arch, 15.02, 4)

    step(T_KV)
    if links:
        # init_memory_pool's distributed memory check is a gloo all-reduce
        # over every rank: a peer that died since meets us here.
        gone = dist.dead_link(links)
        if gone is not None:
            _die(args, _dist_traceback(dist.gloo_closed(gone.peer)))
    pools = [(args.kv_tokens, kv_cache_gb(args.kv_tokens))]
    if spec:
        pools.append((args.kv_tokens, kv_cache_gb(args.kv_tokens) / 32))
    for tokens, kv_gb in pools:
        mem.use(2 * kv_gb)
        if legacy:
            logger.info(f"KV Cache is allocated. #tokens: {tokens}, K size: {kv_gb:.2f} GB, V size: {kv_gb:.2f} GB")
        else:
            logger.info(
                f"KV Cache is allocated. dtype: torch.bfloat16, #tokens: {tokens}, "
                f"K size: {kv_gb:.2f} GB, V size: {kv_gb:.2f} GB"
            )
    logger.info(f"Memory pool end. avail mem={mem.avail:.2f} GB")

    if not args.no_cuda_graph:
        bs = _bs_list(args)
        if legacy:
            _capture_legacy(args, step, mem, bs, rank0, spec)
        else:
            _capture_current(args, step, mem, bs, rank0, spec)
    step(T_READY)
    if rank0:
        logger.info(
            f"max_total_num_tokens={args.kv_tokens}, chunked_prefill_size={args.chunked_prefill_size}, "
            f"max_prefill_tokens={args.max_prefill_tokens}, max_running_requests={args.max_running_requests}, "
            f"context_len={args.context_len}, available_gpu_mem={mem.avail:.2f} GB"
        )


def _capture(step, mem, begin, end, gb, rank0, bar_bs):
    """Run one capture from begin to end (load fractions); rank 0 draws the
    batch bar over bar_bs. Returns (elapsed, mem usage, avail after)."""
    step(begin)
    t = time.monotonic()
    if rank0 and bar_bs:
        bar = ProgressBar(logger.fd, len(bar_bs), _capture_bar(bar_bs))
        for i in range(1, len(bar_bs) + 1):
            step(begin + (end - begin) * i / len(bar_bs) * 0.99)
            bar.update(i)
        bar.close()
    step(end)
    _, used, avail = mem.use(gb)
    return time.monotonic() - t, used, avail


def _capture_current(args, step, mem, bs, rank0, spec):
    per = "num_tokens_per_bs" if args.log_format == "v0.5.15" else "num_tokens_per_req"

    def line(name, detail, begin, end, gb, everyone=True, bar_bs=None):
        say = everyone or rank0
        if say:
            logger.info(f"Capture {name} CUDA graph begin. {detail}, avail mem={mem.avail:.2f} GB")
        elapsed, used, avail = _capture(step, mem, begin, end, gb, rank0, bar_bs)
        if say:
            logger.info(
                f"Capture {name} CUDA graph end. elapsed={elapsed:.2f} s, "
                f"mem usage={used:.2f} GB, avail mem={avail:.2f} GB."
            )

    if args.prefill_graph_backend != "disabled":
        line("target prefill",
             f"backend={args.prefill_graph_backend}, num_tokens={_prefill_tokens(args)}",
             T_GRAPH_BEGIN, T_PREFILL_END, 0.31)
    if spec:
        line("target verify",
             f"backend={args.decode_graph_backend}, {per}={args.spec_draft_tokens}, bs={bs}",
             T_PREFILL_END, T_DECODE_END, 0.62, bar_bs=bs)
        if args.spec_steps > 1:
            line("draft decode",
                 f"backend={args.decode_graph_backend}, {per}={args.spec_topk}, bs={bs}",
                 T_DECODE_END, T_DRAFT_DECODE_END, 0.18, everyone=False)
        line("draft extend",
             f"backend={args.decode_graph_backend}, {per}={args.spec_draft_tokens}, bs={bs}",
             T_DRAFT_DECODE_END, T_GRAPH_END, 0.11, everyone=False)
    else:
        line("target decode",
             f"backend={args.decode_graph_backend}, {per}=1, bs={bs}",
             T_PREFILL_END, T_GRAPH_END, 0.62, bar_bs=bs)


def _capture_legacy(args, step, mem, bs, rank0, spec):
    # model_runner.py @ v0.5.10: init_device_graphs (decode), then the
    # piecewise (prefill) graphs; the draft graphs (speculative/
    # eagle_worker_v2.py) come from every rank's logger.
    logger.info(f"Capture cuda graph begin. This can take up to several minutes. avail mem={mem.avail:.2f} GB")
    if rank0:
        logger.info(f"Capture cuda graph bs {bs}")
    elapsed, used, avail = _capture(step, mem, T_GRAPH_BEGIN, T_DECODE_END if spec else T_PREFILL_END, 0.62, rank0, bs)
    logger.info(
        f"Capture cuda graph end. Time elapsed: {elapsed:.2f} s. mem usage={used:.2f} GB. avail mem={avail:.2f} GB."
    )
    if spec:
        for name, begin, end, gb in (("draft", T_DECODE_END, T_DRAFT_DECODE_END, 0.18),
                                     ("draft extend", T_DRAFT_DECODE_END, T_PREFILL_END_SPEC, 0.11)):
            if name == "draft" and args.spec_steps <= 1:
                continue
            logger.info(
                f"Capture {name} cuda graph begin. This can take up to several minutes. avail mem={mem.avail:.2f} GB"
            )
            elapsed, used, avail = _capture(step, mem, begin, end, gb, False, None)
            logger.info(
                f"Capture {name} cuda graph end. Time elapsed: {elapsed:.2f} s. "
                f"mem usage={used:.2f} GB. avail mem={avail:.2f} GB."
            )
    if args.prefill_graph_backend != "disabled":
        logger.info(f"Capture piecewise CUDA graph begin. avail mem={mem.avail:.2f} GB")
        elapsed, used, avail = _capture(step, mem, T_PREFILL_END_SPEC if spec else T_PREFILL_END, T_GRAPH_END, 0.31, False, None)
        logger.info(
            f"Capture piecewise CUDA graph end. Time elapsed: {elapsed:.2f} s. "
            f"mem usage={used:.2f} GB. avail mem={avail:.2f} GB."
        )


def _rendezvous(args):
    host, port = dist.parse_addr(args.store)
    timeout = args.dist_timeout if args.dist_timeout > 0 else dist.DEFAULT_TIMEOUT
    try:
        if args.global_rank == 0:
            return dist.rendezvous_master(port, args.world_size, timeout)
        return [dist.rendezvous_client(host, port, args.global_rank, timeout)]
    except dist.DistError as e:
        _die(args, _dist_traceback(str(e)))


def _idle_until_parent_exits(args):
    # The parent holds the write end; EOF means it is gone or wants us gone.
    # "shutdown" is SGLang's ShutdownReq after a drain: the scheduler leaves
    # its event loop, releases its resources and exits 0. "crash" is
    # SGLANG_SIM_CRASH_AFTER_READY: a forward fails.
    ctl_fd = args.ctl_fd
    if ctl_fd < 0:
        while True:
            signal.pause()
    while True:
        try:
            data = os.read(ctl_fd, 64)
            if not data or data.startswith(b"shutdown"):
                os._exit(0)
            if data.startswith(b"crash"):
                _die(args, _running_traceback("forward", None))
        except InterruptedError:
            continue
        except OSError:
            os._exit(0)


def main(argv=None):
    args = _parse(sys.argv[1:] if argv is None else argv)
    logger.configure(prefix=args.prefix, level=args.log_level, fd=args.log_fd)
    if args.role == "daemon":
        # A double-forked daemon: fork, setsid, fork, the middle exits, and
        # so does this process once the daemon is up. The daemon leads no
        # session, its parent is gone, and no title or pid of it was ever
        # announced: only the launch id in its environment (or a subreaper
        # that adopted it) says whose it is.
        mid = os.fork()
        if mid == 0:
            os.setsid()
            if os.fork() == 0:
                _ready_then_pause(args)
            os._exit(0)
        os.waitpid(mid, 0)
        os._exit(0)
    if args.role == "escaped":
        # Leave the server's session and process group, and set no
        # parent-death signal: only a supervisor that looks for it (a
        # subreaper, a walk of /proc) will ever stop this process.
        os.setsid()
        _ready_then_pause(args)
    kill_itself_when_parent_died(args.parent)
    set_process_title(args.title)
    links = []
    run_load(args, links)
    os.write(args.ready_fd, b"ready\n")
    master = args.store != "" and args.global_rank == 0
    if not args.store:
        os.close(args.ready_fd)
        _idle_until_parent_exits(args)
    if not master:
        os.close(args.ready_fd)
        args.ready_fd = -1
    # Multi-node: rank 0 keeps its ready pipe to tell the server it hung.
    dist.serve_links(links, args.ctl_fd, args.ready_fd, master,
                     lambda where, exc: _die(args, _running_traceback(where, exc)))


if __name__ == "__main__":
    main()
