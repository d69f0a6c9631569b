"""Start-of-process hooks of the simulated server: the invocation record
(SGLANG_SIM_RECORD), the log flood (SGLANG_SIM_LOG_FLOOD_BYTES,
SGLANG_SIM_EXIT_AFTER_FLOOD) and the event stamps (SGLANG_SIM_EVENTS). See
sim_env.py for what each variable means.
"""

import json
import os
import time

from sglang.srt import sim_env
from sglang.srt.utils import proc_cmdline, write_all

FLOOD_BLOCK_LINES = 8192  # about 1 MiB per write


def record_invocation(path):
    """Write {"argv", "env", "pid"} to path atomically: a reader sees either
    no file or the whole record."""
    data = {"argv": proc_cmdline(), "env": dict(os.environ), "pid": os.getpid()}
    tmp = f"{path}.tmp.{os.getpid()}"
    with open(tmp, "w", encoding="utf-8", errors="surrogateescape") as f:
        json.dump(data, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def _flood_block():
    stamp = time.strftime("%Y-%m-%d %H:%M:%S")
    lines = []
    for i in range(FLOOD_BLOCK_LINES):
        running = 1 + (i * 7) % 64
        tokens = 1000 + (i * 7919) % 90000
        usage = tokens / 470000
        tput = 900.0 + (i * 37) % 3000 + (i % 100) / 100
        lines.append(
            f"[{stamp} TP0] Decode batch, #running-req: {running}, #token: {tokens}, "
            f"token usage: {usage:.2f}, gen throughput (token/s): {tput:.2f}, #queue-req: 0\n"
        )
    return "".join(lines).encode()


def log_flood(nbytes, fd=1):
    """Write exactly nbytes of realistic ~120-byte log lines to fd in large
    writes, ending with a newline."""
    if nbytes <= 0:
        return
    block = _flood_block()
    full, rest = divmod(nbytes, len(block))
    for _ in range(full):
        write_all(fd, block)
    if rest:
        tail = bytearray(block[:rest])
        tail[-1:] = b"\n"
        write_all(fd, bytes(tail))


def stamp(name):
    """Append "NAME UNIX_NANOS" to SGLANG_SIM_EVENTS, when set: the wall
    clock, comparable with the supervisor's, in one O_APPEND write."""
    path = sim_env.config().events
    if not path:
        return
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, f"{name} {time.time_ns()}\n".encode())
    finally:
        os.close(fd)
