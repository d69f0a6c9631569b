"""Small process and logging helpers shared by the simulated server's processes.

Everything here is stdlib only. Linux-specific calls (prctl, timerfd) go
through ctypes and degrade to no-ops or slower fallbacks elsewhere.
"""

import ctypes
import ctypes.util
import os
import signal
import sys
import time

# ---------------------------------------------------------------------------
# Logging
# ---------------------------------------------------------------------------

LEVELS = {"debug": 10, "info": 20, "warning": 30, "error": 40, "critical": 50}


def write_all(fd, data):
    """Write every byte to fd; a closed reader (EPIPE) is ignored, as a dying
    log consumer must not take the server down."""
    view = memoryview(data)
    while view:
        try:
            n = os.write(fd, view)
        except BrokenPipeError:
            return
        except BlockingIOError:
            time.sleep(0.001)
            continue
        view = view[n:]


class Logger:
    """SGLang's log line format: ``[YYYY-mm-dd HH:MM:SS{prefix}] message``.

    SGLang configures the root logger with logging.basicConfig, which writes to
    stderr; uvicorn's access log goes to stdout. Each line is one write(2), so
    lines from several processes sharing a pipe do not interleave.
    """

    def __init__(self):
        self.prefix = ""
        self.level = LEVELS["info"]
        self.fd = 2

    def configure(self, prefix="", level="info", fd=2):
        self.prefix = prefix
        self.level = LEVELS.get(str(level).lower(), LEVELS["info"])
        self.fd = fd

    def stamp(self):
        return time.strftime("%Y-%m-%d %H:%M:%S")

    def line(self, msg):
        return f"[{self.stamp()}{self.prefix}] {msg}\n"

    def emit(self, msg, level=20):
        if level >= self.level:
            write_all(self.fd, self.line(msg).encode("utf-8", "replace"))

    def debug(self, msg):
        self.emit(msg, 10)

    def info(self, msg):
        self.emit(msg, 20)

    def warning(self, msg):
        self.emit(msg, 30)

    def error(self, msg):
        self.emit(msg, 40)

    def raw(self, text):
        """Write text as is (progress bars, tracebacks)."""
        write_all(self.fd, text.encode("utf-8", "replace"))


logger = Logger()

# The main process also speaks for rank 0's scheduler (batch lines), which
# SGLang logs from the scheduler process with its " TP0" prefix.
sched_logger = Logger()


def uvicorn_line(msg, level="INFO"):
    """uvicorn's default formatter as SGLang configures it:
    ``[ts] INFO:     message`` (the level name padded to 9 columns)."""
    return f"[{time.strftime('%Y-%m-%d %H:%M:%S')}] {(level + ':').ljust(9)} {msg}\n"


def kv_cache_gb(tokens):
    """Size of the K (or V) half of the KV cache the sim reports, in GB:
    16 KiB per token, about a Llama-3-8B's per-token half in bf16 / 4."""
    return tokens * 16384 / 1e9


# ---------------------------------------------------------------------------
# prctl
# ---------------------------------------------------------------------------

PR_SET_PDEATHSIG = 1
PR_SET_NAME = 15
PR_SET_TIMERSLACK = 29

_libc = None


def libc():
    global _libc
    if _libc is None:
        try:
            _libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
        except OSError:
            _libc = False
    return _libc or None


def prctl(option, arg2):
    lib = libc()
    if lib is None or not hasattr(lib, "prctl"):
        return -1
    return lib.prctl(ctypes.c_int(option), arg2, ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0))


def set_process_title(title):
    """Title the process as SGLang does, with the setproctitle package
    (srt/managers/scheduler.py, detokenizer_manager.py) when it is
    importable. setproctitle rewrites the argv area, so /proc/PID/cmdline
    reads the title; without SPT_NOENV in the environment it also takes
    over the environ area that follows it, so /proc/PID/environ reads
    back as NUL bytes (the process's os.environ is unaffected). It also
    sets comm, where the kernel keeps 15 bytes: ``sglang::schedul``.

    Without the package (it is a hard dependency of SGLang; Debian ships
    python3-setproctitle) only comm is set, with prctl(PR_SET_NAME).
    Returns "setproctitle" or "prctl"."""
    try:
        import setproctitle
    except ImportError:
        prctl(PR_SET_NAME, ctypes.c_char_p(title.encode()[:15]))
        return "prctl"
    setproctitle.setproctitle(title)
    return "setproctitle"


def scheduler_prefix(tp_rank, pp_rank, sizes, dp_rank=None):
    """The log prefix and title suffix of a scheduler, as SGLang's
    configure_scheduler_process builds them (srt/managers/scheduler.py):
    " DP{d}" when data parallel, then " PP{p}", " ATTN_CP{c}", " MOE_DP{m}",
    " TP{t}", " EP{e}", each only when its size is above 1. At tp 1 (and
    nothing else) the prefix is empty and the title plain
    ``sglang::scheduler``. The ranks are derived from the TP rank as
    engine.py's _compute_parallelism_ranks does (no DP attention)."""
    tp = max(1, sizes.get("tp", 1))
    attn_cp = max(1, sizes.get("attn_cp", 1))
    moe_dp = max(1, sizes.get("moe_dp", 1))
    ep = max(1, sizes.get("ep", 1))
    attn_tp = max(1, tp // attn_cp)
    attn_cp_rank = (tp_rank // attn_tp) % attn_cp
    per_moe_dp = max(1, tp // moe_dp)
    moe_dp_rank = tp_rank // per_moe_dp
    moe_ep_rank = tp_rank % per_moe_dp // max(1, per_moe_dp // ep)
    prefix = ""
    if dp_rank is not None:
        prefix += f" DP{dp_rank}"
    if sizes.get("pp", 1) > 1:
        prefix += f" PP{pp_rank}"
    if attn_cp > 1:
        prefix += f" ATTN_CP{attn_cp_rank}"
    if moe_dp > 1:
        prefix += f" MOE_DP{moe_dp_rank}"
    if tp > 1:
        prefix += f" TP{tp_rank}"
    if ep > 1:
        prefix += f" EP{moe_ep_rank}"
    return prefix, "sglang::scheduler" + prefix.replace(" ", "_")


def last_resort_warning(msg):
    """A module logger's warning before logging is configured: Python's
    last-resort handler prints the bare message to stderr."""
    sys.stderr.write(msg + "\n")
    sys.stderr.flush()


def kill_itself_when_parent_died(expected_parent):
    """PR_SET_PDEATHSIG(SIGKILL), as SGLang's children do. The signal fires
    when the thread that forked us exits; we were forked from the parent's
    main thread, which lives as long as the parent. If the parent died before
    the prctl took effect, exit now."""
    prctl(PR_SET_PDEATHSIG, ctypes.c_ulong(signal.SIGKILL))
    if os.getppid() != expected_parent:
        os._exit(0)


def tighten_timer_slack():
    """The default 50 us timer slack would add to every token deadline."""
    prctl(PR_SET_TIMERSLACK, ctypes.c_ulong(1))


# ---------------------------------------------------------------------------
# timerfd: microsecond-precise absolute deadlines inside an asyncio loop
# ---------------------------------------------------------------------------

CLOCK_MONOTONIC = 1
TFD_TIMER_ABSTIME = 1
TFD_NONBLOCK = 0o4000
TFD_CLOEXEC = 0o2000000


class _Timespec(ctypes.Structure):
    _fields_ = [("tv_sec", ctypes.c_long), ("tv_nsec", ctypes.c_long)]


class _Itimerspec(ctypes.Structure):
    _fields_ = [("it_interval", _Timespec), ("it_value", _Timespec)]


class TimerFD:
    """A CLOCK_MONOTONIC timerfd armed at absolute deadlines.

    time.monotonic() and asyncio's loop.time() read the same clock, so a
    deadline computed from either can be armed here. epoll's own timeout has
    1 ms granularity and rounds up; a timerfd fires within microseconds.
    """

    def __init__(self):
        lib = libc()
        if lib is None or not hasattr(lib, "timerfd_create"):
            raise OSError("timerfd not available")
        fd = lib.timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC)
        if fd < 0:
            raise OSError(ctypes.get_errno(), "timerfd_create")
        self.fd = fd
        self._lib = lib
        self._spec = _Itimerspec()

    def arm(self, deadline):
        sec = int(deadline)
        nsec = int((deadline - sec) * 1e9)
        if sec <= 0 and nsec <= 0:
            nsec = 1  # zero would disarm
        self._spec.it_value.tv_sec = sec
        self._spec.it_value.tv_nsec = min(nsec, 999999999)
        if self._lib.timerfd_settime(self.fd, TFD_TIMER_ABSTIME, ctypes.byref(self._spec), None) != 0:
            raise OSError(ctypes.get_errno(), "timerfd_settime")

    def drain(self):
        try:
            os.read(self.fd, 8)
        except BlockingIOError:
            pass

    def close(self):
        os.close(self.fd)


# ---------------------------------------------------------------------------
# Process tree
# ---------------------------------------------------------------------------


def _parent_map():
    parents = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        # The comm field may hold spaces and parentheses; fields resume
        # after the last ')'.
        rest = stat[stat.rfind(b")") + 2 :].split()
        if len(rest) >= 2:
            parents[int(name)] = int(rest[1])
    return parents


def descendants(pid):
    """Every live descendant of pid, found by walking /proc parent links."""
    try:
        parents = _parent_map()
    except OSError:
        return []
    children = {}
    for child, parent in parents.items():
        children.setdefault(parent, []).append(child)
    out, stack = [], [pid]
    while stack:
        for c in children.get(stack.pop(), []):
            out.append(c)
            stack.append(c)
    return out


def kill_process_tree(parent_pid, include_parent=True, skip_pids=()):
    """SIGKILL every descendant of parent_pid, then parent_pid itself.

    Like SGLang's kill_process_tree (srt/utils/common.py), it logs the call
    first, and a process killing its own tree ends by SIGKILLing itself, so
    its exit status reads "killed by signal 9".
    """
    logger.info(
        f"kill_process_tree called: parent_pid={parent_pid}, "
        f"include_parent={include_parent}, pid={os.getpid()}"
    )
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    for pid in descendants(parent_pid):
        if pid in skip_pids:
            continue
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    if include_parent:
        try:
            if parent_pid == os.getpid():
                flush_std()
                os.kill(parent_pid, signal.SIGKILL)
                time.sleep(1)
                os._exit(0)
            os.kill(parent_pid, signal.SIGKILL)
        except OSError:
            pass


def flush_std():
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass


def proc_cmdline():
    """argv exactly as exec'd, from /proc/self/cmdline."""
    try:
        with open("/proc/self/cmdline", "rb") as f:
            raw = f.read()
    except OSError:
        return list(sys.orig_argv) if hasattr(sys, "orig_argv") else list(sys.argv)
    parts = raw.split(b"\0")
    if parts and parts[-1] == b"":
        parts.pop()
    return [os.fsdecode(p) for p in parts]
