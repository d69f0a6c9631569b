"""The simulated server's signal handling, as SGLang's once it serves
(a mixin of http_server.SimHttpServer).

  SIGTERM  until the first request through the tokenizer manager (the
           warm-up's /generate, after its sleep and /model_info), uvicorn's
           handle_exit: stop accepting, wait for open requests, then the
           lifespan's shutdown joins the warm-up thread, which gives up on
           /model_info after 120 s and kills the tree (137). From that
           request on, tokenizer_manager.py's handler: /health turns 503;
           the drain checks at the next 5 s tick of a loop started with that
           request, then every 5 s while requests remain, then sends the
           schedulers ShutdownReq, waits up to 15 s for them, and kills its
           tree, itself included: exit status 137.
           SGLANG_SIM_SIGTERM_EXIT_CODE makes the drained server exit with
           that status instead.
  SIGINT   uvicorn's graceful shutdown: stop accepting, drain, kill the
           workers, exit 0; before the warm-up's /generate the lifespan's
           shutdown waits for the warm-up thread to give up, as under
           SIGTERM (137). A second SIGINT exits at once.
  SIGQUIT  log, kill the whole tree at once, SIGKILL itself (137).
"""

import asyncio
import os
import signal
import time

from sglang.srt.utils import flush_std, logger, uvicorn_line

POLL_SECONDS = 0.02  # how often uvicorn's shutdown checks for open connections


class ServerSignals:
    """The signal handlers; the server provides loop, cfg, tm, engine,
    args, server, conns and the flags they set."""

    def _install_signal_handlers(self):
        # Until the first request through the tokenizer manager, SIGTERM is
        # uvicorn's (Server.capture_signals' handle_exit).
        loop = self.loop
        if not self.cfg.ignore_sigterm:
            loop.add_signal_handler(signal.SIGTERM, self.uvicorn_sigterm_handler)
        loop.add_signal_handler(signal.SIGINT, self.sigint_handler)
        loop.add_signal_handler(signal.SIGQUIT, self.sigquit_handler)

    def _handle_loop_started(self):
        """tokenizer_manager.py's auto_create_handle_loop, run by the first
        request through the tokenizer manager (normally the warm-up's
        /generate): SGLang's SIGTERM handler replaces uvicorn's, and the
        sigterm_watchdog task starts."""
        if self.uvicorn_exiting:
            return
        if not self.cfg.ignore_sigterm:
            self.loop.add_signal_handler(signal.SIGTERM, self.sigterm_handler)
        self.loop.create_task(self._sigterm_watchdog())

    def _stop_listening(self):
        """uvicorn's shutdown start, for SIGTERM before SGLang's handler and
        for SIGINT: close the listening socket, say "Shutting down" and
        close the connections that hold no request."""
        if self.server is not None:
            self.server.close()
        logger.raw(uvicorn_line("Shutting down"))
        for conn in list(self.conns):
            if not conn.busy:
                conn.close()

    def uvicorn_sigterm_handler(self):
        """uvicorn's handle_exit before SGLang's handler exists: stop
        accepting, wait for open requests, then the lifespan's shutdown
        joins the warm-up thread. That thread's /model_info is refused from
        now on, so it retries once a second for 120 s from its start, logs
        "Initialization failed" and kills the tree, the server included
        (137). A second SIGTERM changes nothing (only a second SIGINT forces
        uvicorn out)."""
        if self.uvicorn_exiting:
            return
        self.uvicorn_exiting = True
        self.closing = True
        for h in getattr(self, "_warmup_timers", ()):
            h.cancel()
        self._stop_listening()
        self.loop.create_task(self._uvicorn_shutdown())

    async def _uvicorn_shutdown(self):
        while any(c.busy for c in self.conns):
            await asyncio.sleep(POLL_SECONDS)
        logger.raw(uvicorn_line("Waiting for application shutdown."))
        started = getattr(self, "_warmup_started", None)
        if started is None:  # --skip-server-warmup: no thread to join
            logger.raw(uvicorn_line("Application shutdown complete."))
            logger.raw(uvicorn_line(f"Finished server process [{os.getpid()}]"))
            self.engine.kill_children()
            flush_std()
            os._exit(0)
        await self._warmup_gives_up(started)

    async def _warmup_gives_up(self, started):
        """The warm-up thread, whose /model_info is refused once uvicorn
        stopped accepting: 120 tries a second apart from its start, then
        "Initialization failed" and the tree killed (137); the lifespan's
        shutdown waits for it."""
        delay = started + self.cfg.warmup_give_up - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)
        host = self.args.get("host", "127.0.0.1")
        logger.error(
            "Initialization failed. warmup error: Traceback (most recent call last):\n"
            f"requests.exceptions.ConnectionError: HTTPConnectionPool(host='{host}', port={self.server.port}): "
            "Max retries exceeded with url: /model_info (Caused by NewConnectionError("
            "'Failed to establish a new connection: [Errno 111] Connection refused'))"
        )
        flush_std()
        self.watchdog_on = False
        self.engine.kill_tree(include_parent=True)

    def sigterm_handler(self):
        # tokenizer_manager.py SignalHandler.sigterm_handler: only a flag;
        # the sigterm_watchdog task does the rest.
        logger.warning("SIGTERM received. signum=None frame=None. Draining requests and shutting down...")
        self.tm.gracefully_exit = True

    async def _sigterm_watchdog(self):
        """tokenizer_manager.py's sigterm_watchdog, step for step: wake every
        5 s until the SIGTERM flag is set; then log the remaining requests
        and sleep 5 s while any remain; then stop the subprocess watchdog,
        send the schedulers ShutdownReq and wait up to 15 s for them to
        exit; then kill the tree, the server itself included (137). The
        5 s steps scale with SGLANG_SIM_DRAIN_POLL_SECONDS, the 15 s with
        SGLANG_SIM_SHUTDOWN_WAIT_SECONDS."""
        tm, cfg = self.tm, self.cfg
        while not tm.gracefully_exit:
            await asyncio.sleep(cfg.drain_poll)
        while True:
            remaining = list(tm.rid_to_state)
            if tm.server_status == "UnHealthy":
                logger.error("Signal SIGTERM received while health check failed. Force exiting.")
                break
            if tm.force_shutdown:
                logger.error("Signal SIGTERM received while force shutdown flag set. Force exiting.")
                break
            logger.info(
                f"Gracefully exiting... Remaining number of requests {len(remaining)}. "
                f"Remaining requests remaining_rids={remaining}."
            )
            if remaining:
                await asyncio.sleep(cfg.drain_poll)
            else:
                break
        self.watchdog_on = False
        if not tm.hung:  # hung ranks never read the ShutdownReq
            self.engine.send_shutdown()
        deadline = time.monotonic() + cfg.shutdown_wait
        while time.monotonic() < deadline and self.engine.schedulers_alive():
            time.sleep(0.1)  # blocking, as SGLang's loop does here
        flush_std()
        if cfg.sigterm_exit_code is not None:
            self.engine.kill_children()
            os._exit(cfg.sigterm_exit_code)
        self.engine.kill_tree(include_parent=True)

    def sigint_handler(self):
        self.sigint_count += 1
        if self.sigint_count > 1:
            self.engine.kill_children()
            flush_std()
            os._exit(0)
        self.closing = True
        self.tm.gracefully_exit = True
        self._stop_listening()
        self.loop.create_task(self._sigint_drain())

    async def _sigint_drain(self):
        if any(c.busy for c in self.conns):
            logger.raw(uvicorn_line("Waiting for connections to close. (CTRL+C to force quit)"))
        while any(c.busy for c in self.conns) or self.tm.rid_to_state:
            await asyncio.sleep(POLL_SECONDS)
        logger.raw(uvicorn_line("Waiting for application shutdown."))
        # The lifespan's shutdown joins the warm-up thread: before its
        # /generate it retries a refused /model_info until it gives up
        # (137); with its /generate sent, it ends when that returns.
        started = getattr(self, "_warmup_started", None)
        if started is not None and self.tm.server_status == "Starting":
            if not self.tm.handle_loop_started:
                for h in getattr(self, "_warmup_timers", ()):
                    h.cancel()
                await self._warmup_gives_up(started)
                return
            delay = started + self.cfg.warmup_seconds - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
        logger.raw(uvicorn_line("Application shutdown complete."))
        logger.raw(uvicorn_line(f"Finished server process [{os.getpid()}]"))
        self.engine.kill_children()
        flush_std()
        os._exit(0)

    def sigquit_handler(self):
        # tokenizer_manager.py running_phase_sigquit_handler.
        logger.error("SIGQUIT received. signum=None, frame=None. It usually means one child failed.")
        self.watchdog_on = False
        self.engine.kill_tree(include_parent=True)
