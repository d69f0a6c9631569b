"""What a node of rank >= 1 runs once its schedulers have loaded, after
engine.py's _launch_subprocesses (node_rank >= 1) and utils/common.py's
launch_dummy_health_check_server:

- no tokenizer, detokenizer, ready line, warm-up or subprocess watchdog;
- a dummy health server on --host:--port (uvicorn at log level warning, so no
  uvicorn lines): GET /ping, /health and /health_generate answer 200 with an
  empty body, unconditionally; /metrics too under --enable-metrics (the
  prometheus middleware; the sim's is empty); anything else is FastAPI's 404
  (405 for another method). It logs "Dummy health check server started in
  background thread at HOST:PORT". If the port is taken, uvicorn's error is
  logged, the server thread ends ("Dummy health check server stopped at
  HOST:PORT") and the node runs on without one;
- the main thread joins its schedulers in launch order and logs "Scheduler or
  DataParallelController PID terminated with CODE" as each is joined; when
  all have exited (after rank 0's drained shutdown they exit 0),
  launch_server goes on to start uvicorn without a tokenizer manager, whose
  start-up fails: the process exits 3.

The launch-phase SIGQUIT handler stays installed: a failing rank SIGQUITs
the server, which kills its tree and itself (137). SIGTERM has its default
action (no tokenizer manager installs a handler).
"""

import asyncio
import os
import sys

from sglang.srt.http_conn import Listener
from sglang.srt.utils import flush_std, logger, uvicorn_line


class DummyHealthServer:
    """The FastAPI app of launch_dummy_health_check_server, on the sim's
    HTTP/1.1 connections."""

    ROUTES = ("/ping", "/health", "/health_generate")

    def __init__(self, loop, enable_metrics):
        self.loop = loop
        self.conns = set()
        self.closing = False
        self.keep_alive_timeout = 5  # uvicorn.Config(timeout_keep_alive=5)
        self.routes = self.ROUTES + (("/metrics",) if enable_metrics else ())

    def access_log(self, conn, status):
        pass  # log_level="warning": no access lines

    def dispatch(self, conn, method, path, headers, body, t0):
        if path not in self.routes:
            conn.json(404, {"detail": "Not Found"})
        elif method != "GET":
            conn.json(405, {"detail": "Method Not Allowed"})
        elif path == "/metrics":
            conn.send_response(200, b"", "text/plain; version=0.0.4; charset=utf-8")
        else:
            conn.send_response(200, b"", None)


def _serve_without_tokenizer_manager():
    """What launch_server does on a node >= 1 once its schedulers have
    exited (after rank 0's drained shutdown, they exit 0): it has no
    node-rank guard, so it goes on to _setup_and_run_http_server with no
    tokenizer manager; the FastAPI lifespan's start-up fails on it and
    uvicorn logs the traceback and "Application startup failed. Exiting."
    and exits 3 (uvicorn's STARTUP_FAILURE), before binding any port."""
    logger.raw(uvicorn_line(f"Started server process [{os.getpid()}]"))
    logger.raw(uvicorn_line("Waiting for application startup."))
    logger.raw(uvicorn_line(
        "Traceback (most recent call last):\n"
        '  File "/usr/local/lib/python3.12/dist-packages/starlette/routing.py", line 694, in lifespan\n'
        "    async with self.lifespan_context(app) as maybe_state:\n"
        "AttributeError: 'NoneType' object has no attribute 'serving_chat_class'", "ERROR"))
    logger.raw(uvicorn_line("Application startup failed. Exiting.", "ERROR"))
    flush_std()
    os._exit(3)


def serve_worker_node(args, cfg, engine):
    host = args.get("host", "127.0.0.1")
    port = int(args.get("port", 30000))
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    app = DummyHealthServer(loop, bool(args.get("enable_metrics", False)))
    logger.info(f"Dummy health check server started in background thread at {host}:{port}")
    try:
        Listener(app, host, port)
    except OSError as e:
        logger.error(
            f"[Errno {e.errno}] error while attempting to bind on address ({host!r}, {port}): "
            f"{(e.strerror or str(e)).lower()}"
        )
        logger.info(f"Dummy health check server stopped at {host}:{port}")
    if cfg.crash_after_ready is not None:
        loop.call_later(cfg.crash_after_ready, engine.crash_first_rank)
    pending = list(engine.schedulers())

    def join():
        # proc.join() on each scheduler in turn, then log its exit code.
        while pending and pending[0].popen.poll() is not None:
            child = pending.pop(0)
            logger.error(
                f"Scheduler or DataParallelController {child.pid} terminated with {child.popen.returncode}"
            )
        if not pending:
            _serve_without_tokenizer_manager()
        loop.call_later(cfg.watchdog_interval, join)

    loop.call_later(cfg.watchdog_interval, join)
    loop.run_forever()
    sys.exit(0)
