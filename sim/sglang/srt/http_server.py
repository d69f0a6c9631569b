"""The simulated server's HTTP side and life cycle, after SGLang's
srt/entrypoints/http_server.py.

The HTTP/1.1 connections live in http_conn.py; uvicorn's access lines go to
stdout. Idle keep-alive connections close after SGLANG_TIMEOUT_KEEP_ALIVE
seconds (default 5), as uvicorn is configured by SGLang.

Life cycle, in SGLang's order: the port is bound only after every rank has
loaded (connections are refused until then); a warm-up /generate runs, during
which /health and /health_generate answer 503 and /model_info, /get_model_info
and /v1/models answer 200; then "The server is fired up and ready to roll!".

/health and /health_generate are one handler, as in SGLang (health_generate):
503 while starting or shutting down, otherwise a 1-token generation, then
sleep(1) and a check for output every second, up to SGLANG_HEALTH_CHECK_TIMEOUT
(default 20) seconds, then 503 and the server UnHealthy. A healthy probe takes
about a second (SGLANG_SIM_HEALTH_POLL_SECONDS scales the step). While the
ranks are hung (SGLANG_SIM_HANG_AFTER_READY) no output comes.
SGLANG_ENABLE_HEALTH_ENDPOINT_GENERATION=0 makes /health answer 200 without
generating; SGLANG_DIAG_BYPASS_HEALTH_GENERATE=1 makes /health and
/health_generate answer 200 without generating, hung ranks or not. SGLANG_WAIT_WEIGHTS_READY_TIMEOUT is read for parity and unused.
Under --enable-http2 the server logs the embedded Granian server's lines
instead of uvicorn's (and still speaks HTTP/1.1, as Granian's auto mode does).

The main process watches its workers as utils/watchdog.py's
SubprocessWatchdog does: once a second, a worker that exited non-zero makes it
send itself SIGQUIT.

Signals, as SGLang handles them once serving: server_signals.py.
"""

import asyncio
import hmac
import json
import os
import signal
import sys
import time

from sglang.srt import metrics_collector
from sglang.srt.engine import calculate_rank_ranges
from sglang.srt.environ import envs
from sglang.srt import perf_model
from sglang.srt.http_conn import REASONS, Listener
from sglang.srt.server_signals import ServerSignals
from sglang.srt.sim_hooks import stamp
from sglang.srt.tokenizer_manager import GenRequest, TokenizerManager, approx_tokens
from sglang.srt.utils import (
    flush_std,
    kill_process_tree,
    kv_cache_gb,
    logger,
    scheduler_prefix,
    sched_logger,
    tighten_timer_slack,
    uvicorn_line,
    write_all,
)
from sglang.version import __version__

HEALTH_CHECK_TIMEOUT = int(os.getenv("SGLANG_HEALTH_CHECK_TIMEOUT", 20))
WAIT_WEIGHTS_READY_TIMEOUT = int(os.getenv("SGLANG_WAIT_WEIGHTS_READY_TIMEOUT", 120))


def _error(message, status=400):
    return {"object": "error", "message": message, "type": REASONS.get(status, "Error"), "param": None, "code": status}


class BadRequest(Exception):
    pass


def _prompt_len(obj):
    if obj.get("input_ids") is not None:
        ids = obj["input_ids"]
        if not isinstance(ids, list):
            raise BadRequest("input_ids must be a list of token ids.")
        return len(ids)
    if obj.get("text") is not None:
        return approx_tokens(obj["text"]) if isinstance(obj["text"], str) else approx_tokens(str(obj["text"]))
    raise BadRequest("Either text, input_ids or input_embeds should be provided.")


def _int_field(obj, name, default):
    value = obj.get(name)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise BadRequest(f"{name} must be a non-negative integer, got {value!r}.")
    return value


class SimHttpServer(ServerSignals):
    def __init__(self, server_args, cfg, engine, loop):
        self.args = server_args
        self.cfg = cfg
        self.engine = engine
        self.loop = loop
        self.tm = TokenizerManager(server_args, cfg, loop, engine.facts)
        self.conns = set()
        self.closing = False
        self.sigint_count = 0
        self.uvicorn_exiting = False  # uvicorn's SIGTERM shutdown, before SGLang's handler
        self.server = None
        self.keep_alive_timeout = envs.SGLANG_TIMEOUT_KEEP_ALIVE.get()
        level = (server_args.get("log_level_http") or server_args.get("log_level") or "info").lower()
        self.access_enabled = level in ("debug", "info", "trace")
        self.access_exclude = tuple(server_args.get("uvicorn_access_log_exclude_prefixes") or ())
        self.api_key = server_args.get("api_key")
        self.admin_api_key = server_args.get("admin_api_key")
        self._access_lines = []
        self.health_failed = False
        self.multinode = engine.nnodes > 1
        if self.multinode:
            self.tm.rid_to_state.on_change = self.busy_changed
        self.routes = {
            "/health": (("GET",), self.health),
            "/health_generate": (("GET",), self.health),
            "/ready": (("GET",), self.ready),
            "/model_info": (("GET",), self.model_info),
            "/get_model_info": (("GET",), self.get_model_info),
            "/server_info": (("GET",), self.server_info),
            "/get_server_info": (("GET",), self.get_server_info),
            "/v1/models": (("GET",), self.v1_models),
            "/generate": (("POST", "PUT"), self.generate),
            "/v1/completions": (("POST",), self.completions),
            "/v1/chat/completions": (("POST",), self.chat_completions),
            "/flush_cache": (("GET", "POST"), self.flush_cache),
            "/metrics": (("GET",), self.metrics),
        }

    # -- plumbing --------------------------------------------------------------

    def access_log(self, conn, status):
        if not self.access_enabled or conn.path.startswith(self.access_exclude or ("\0",)):
            return
        # One write per loop iteration: a burst of 256 requests is one
        # syscall, not 256 on the way to their first tokens.
        if not self._access_lines:
            self.loop.call_soon(self._flush_access_log)
        self._access_lines.append(uvicorn_line(f'{conn.peer} - "{conn.request_line}" {status} {REASONS.get(status, "")}'))

    def _flush_access_log(self):
        lines, self._access_lines = self._access_lines, []
        write_all(1, "".join(lines).encode())

    # Endpoints SGLang marks @auth_level(AuthLevel.ADMIN_OPTIONAL).
    ADMIN_OPTIONAL = frozenset({"/flush_cache"})

    def authorized(self, method, path, headers):
        """SGLang's decide_request_auth (srt/utils/auth.py): OPTIONS and
        /health*, /ready*, /metrics* are open; admin-optional endpoints want
        --admin-api-key when set, else --api-key; the rest want --api-key.
        A key comes as "Authorization: Bearer KEY" (scheme in any case) or
        as "x-api-key: KEY"."""
        if method == "OPTIONS" or path.startswith(("/health", "/ready", "/metrics")):
            return True
        want = self.api_key
        if path in self.ADMIN_OPTIONAL and self.admin_api_key:
            want = self.admin_api_key
        if not want:
            return True
        scheme, _, token = headers.get("authorization", "").partition(" ")
        if scheme.lower() == "bearer" and hmac.compare_digest(token.encode(), want.encode()):
            return True
        x_api_key = headers.get("x-api-key", "")
        return bool(x_api_key) and hmac.compare_digest(x_api_key.encode(), want.encode())

    def dispatch(self, conn, method, path, headers, body, t0):
        # SGLang's auth middleware wraps the router: an unauthorised request
        # is 401 whatever the path or method.
        if (self.api_key or self.admin_api_key) and not self.authorized(method, path, headers):
            conn.json(401, {"error": "Unauthorized"})
            return
        route = self.routes.get(path)
        if route is None:
            conn.json(404, {"detail": "Not Found"})
            return
        methods, handler = route
        if method not in methods:
            conn.json(405, {"detail": "Method Not Allowed"})
            return
        try:
            handler(conn, headers, body, t0)
        except BadRequest as e:
            if path in ("/generate",):
                conn.json(400, {"error": {"message": str(e)}})
            else:
                conn.json(400, _error(str(e)))

    def _body_json(self, body):
        try:
            obj = json.loads(body or b"{}")
        except ValueError as e:
            raise BadRequest(f"Invalid JSON body: {e}") from None
        if not isinstance(obj, dict):
            raise BadRequest("The request body must be a JSON object.")
        return obj

    # -- health ----------------------------------------------------------------

    def health(self, conn, headers, body, t0):
        """http_server.py's health_generate: 503 while starting or shutting
        down; otherwise a one-token generation, then sleep(1) and check
        whether any output came from the scheduler since the probe began,
        once a second up to SGLANG_HEALTH_CHECK_TIMEOUT (20) seconds. A
        healthy probe therefore takes about a second. The step scales with
        SGLANG_SIM_HEALTH_POLL_SECONDS."""
        tm = self.tm
        if tm.gracefully_exit:
            logger.info("Health check request received during shutdown. Returning 503.")
            conn.send_response(503)
            return
        if tm.server_status == "Starting":
            conn.send_response(503)
            return
        if not envs.SGLANG_ENABLE_HEALTH_ENDPOINT_GENERATION.get() and conn.path == "/health":
            conn.send_response(200)
            return
        if _env_true("SGLANG_DIAG_BYPASS_HEALTH_GENERATE"):
            # Forced success, /health_generate too: hides hung ranks. The
            # flag is newer than the generated env tables (SGLang declares
            # it in srt/environ.py at 0003215c), so it is read here as
            # SGLang's EnvBool reads it.
            conn.send_response(200)
            return
        conn.current = _HealthCheck(self, conn)

    def ready(self, conn, headers, body, t0):
        """/ready of newer SGLang (PR #37488): no generation; 200 once the
        server is up, 503 while starting, draining (or paused, which the
        sim does not model)."""
        tm = self.tm
        if tm.gracefully_exit or tm.server_status != "Up":
            conn.send_response(503)
            return
        conn.send_response(200)

    # -- introspection    # -- introspection ---------------------------------------------------------

    def _model_info(self):
        a = self.args
        from sglang.srt.engine import guess_architecture

        return {
            "model_path": a.get("model_path"),
            "tokenizer_path": a.get("tokenizer_path"),
            "is_generation": not a.get("is_embedding", False),
            "preferred_sampling_params": a.get("preferred_sampling_params"),
            "weight_version": a.get("weight_version", "default"),
            "has_image_understanding": False,
            "has_audio_understanding": False,
            "model_type": guess_architecture(a.get("model_path")).replace("ForCausalLM", "").lower(),
            "architectures": [guess_architecture(a.get("model_path"))],
        }

    def model_info(self, conn, headers, body, t0):
        conn.json(200, self._model_info())

    def get_model_info(self, conn, headers, body, t0):
        logger.warning(
            "Endpoint '/get_model_info' is deprecated and will be removed in a future version. "
            "Please use '/model_info' instead."
        )
        self.model_info(conn, headers, body, t0)

    def _internal_states(self):
        """scheduler.py's get_internal_state, per DP rank: the resolved
        server args plus the scheduler's state; avg_spec_accept_length only
        under speculative decoding once a verify step has run."""
        a = self.args
        tm = self.tm
        dp = max(1, int(a.get("dp_size", 1)))
        elapsed = max(1e-9, time.monotonic() - tm.last_decode_log[0])
        state = dict(a.to_dict())
        state.update({
            "last_gen_throughput": round((tm.tokens_out - tm.last_decode_log[1]) / elapsed, 2),
            "memory_usage": {
                "weight": 15.02,
                "kvcache": round(2 * kv_cache_gb(self.engine.facts["max_total_num_tokens"]), 2),
                "token_capacity": self.engine.facts["max_total_num_tokens"],
                "graph": 0.62,
            },
            "effective_max_running_requests_per_dp": self.engine.facts["max_running_requests"],
        })
        avg = tm.avg_spec_accept_length()
        if avg is not None:
            state["avg_spec_accept_length"] = avg
        return [dict(state) for _ in range(dp)]

    def server_info(self, conn, headers, body, t0):
        self.tm.first_request()  # get_internal_state starts the handle loop
        if self.tm.hung:
            return  # the scheduler never answers get_internal_state
        info = dict(self.args.to_dict())
        info.update(
            {
                "status": "ready",
                "max_total_num_tokens": self.engine.facts["max_total_num_tokens"],
                "max_req_input_len": self.engine.facts["max_req_input_len"],
            }
        )
        info["startup_time"] = getattr(self.engine, "startup_time", None)
        info["internal_states"] = self._internal_states()
        info["version"] = __version__
        info["kv_events"] = None
        conn.send_response(200, json.dumps(info, separators=(",", ":"), default=str).encode())

    def get_server_info(self, conn, headers, body, t0):
        logger.warning(
            "Endpoint '/get_server_info' is deprecated and will be removed in a future version. "
            "Please use '/server_info' instead."
        )
        self.server_info(conn, headers, body, t0)

    def v1_models(self, conn, headers, body, t0):
        name = self.args.get("served_model_name") or self.args.get("model_path")
        conn.json(
            200,
            {
                "object": "list",
                "data": [
                    {
                        "id": name,
                        "object": "model",
                        "created": int(self.started_wall),
                        "owned_by": "sglang",
                        "root": name,
                        "parent": None,
                        "max_model_len": self.engine.facts["context_len"],
                    }
                ],
            },
        )

    def flush_cache(self, conn, headers, body, t0):
        """GET or POST; the scheduler flushes only when fully idle, and then
        also resets its metrics, avg_spec_accept_length among them
        (scheduler.py flush_cache, metrics_reporter.reset_metrics)."""
        tm = self.tm
        tm.first_request()  # tokenizer_control_mixin.flush_cache starts the handle loop
        if tm.rid_to_state:
            sched_logger.warning(
                "Cache not flushed because there are pending requests. "
                f"#queue-req: 0, #running-req: {len(tm.rid_to_state)}"
            )
            conn.send_response(400, b"Flush cache failed.\n", None)
            return
        tm.reset_metrics()
        perf_model.on_flush(tm)  # SGLANG_SIM_PERF_MODEL: the next round's timings
        sched_logger.info("Cache flushed successfully!")
        conn.send_response(
            200,
            b"Cache flushed.\nPlease check backend logs for more details. (When there are running or waiting "
            b"requests, the operation will not be performed.)\n",
            None,  # http_server.py returns a bare Response: no content-type
        )

    def metrics(self, conn, headers, body, t0):
        # The series of srt/observability/metrics_collector.py, with their
        # label sets (metrics_collector.py here).
        if not self.args.get("enable_metrics", False):
            conn.json(404, {"detail": "Not Found"})
            return
        a = self.args
        pp_range, tp_range = calculate_rank_ranges(
            self.engine.nnodes, max(1, int(a.get("pp_size", 1))), max(1, int(a.get("tp_size", 1))), self.engine.node_rank
        )
        gauges = {
            "sglang:num_running_reqs": len(self.tm.rid_to_state),
            "sglang:gen_throughput": self._internal_states()[0]["last_gen_throughput"],
            "sglang:max_total_num_tokens": self.engine.facts["max_total_num_tokens"],
        }
        lines = metrics_collector.exposition(a, pp_range, tp_range, gauges, self.tm.metrics)
        st = getattr(self.engine, "startup_time", None)
        if st:
            from sglang.srt import startup_time

            labels = metrics_collector._labels(metrics_collector.tokenizer_labels(self.args))
            lines += startup_time.gauges(st, labels)
        conn.send_response(200, ("\n".join(lines) + "\n").encode(), "text/plain; version=0.0.4; charset=utf-8")

    # -- generation ------------------------------------------------------------

    def _check_len(self, prompt_tokens):
        ctx = self.engine.facts["context_len"]
        if prompt_tokens >= ctx:
            raise BadRequest(
                f"The input ({prompt_tokens} tokens) is longer than the model's context length ({ctx} tokens)."
            )

    def generate(self, conn, headers, body, t0):
        obj = self._body_json(body)
        sp = obj.get("sampling_params") or {}
        if not isinstance(sp, dict):
            raise BadRequest("sampling_params must be an object.")
        n = _int_field(sp, "max_new_tokens", 128)
        stream = bool(obj.get("stream", False))
        batch = isinstance(obj.get("text"), list) or (
            isinstance(obj.get("input_ids"), list) and obj["input_ids"] and isinstance(obj["input_ids"][0], list)
        )
        if batch:
            items = obj.get("text") if obj.get("text") is not None else obj.get("input_ids")
            if stream:
                raise BadRequest("The simulated server does not stream batched requests.")
            self._generate_batch(conn, items, n, t0)
            return
        prompt = _prompt_len(obj)
        self._check_len(prompt)
        req = GenRequest(self.tm, conn, "generate", stream, t0, n, prompt)
        conn.current = req
        self.tm.submit(req)

    def _generate_batch(self, conn, items, n, t0):
        reqs = []
        for item in items:
            prompt = len(item) if isinstance(item, list) else approx_tokens(str(item))
            self._check_len(prompt)
            reqs.append(GenRequest(self.tm, conn, "generate", False, t0, n, prompt))

        def finish():
            self.tm.last_receive = time.monotonic()
            out = []
            for r in reqs:
                self.tm.rid_to_state.pop(r.rid, None)
                self.tm.metrics.observe_finished(r.prompt_tokens, n, False)
                out.append({"text": r.full_text(), "meta_info": json.loads(r._meta(n, True))})
            self.tm.tokens_out += n * len(reqs)
            conn.json(200, out)

        for r in reqs:
            self.tm.rid_to_state[r.rid] = r
        self.tm.at(t0 + self.tm.ttft + max(0, n - 1) * self.tm.itl, finish)

    def _openai_common(self, obj):
        n = obj.get("max_completion_tokens")
        if n is None:
            n = obj.get("max_tokens")
        if n is None:
            n = 128
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise BadRequest(f"max_tokens must be a non-negative integer, got {n!r}.")
        stream = bool(obj.get("stream", False))
        opts = obj.get("stream_options") or {}
        include_usage = bool(opts.get("include_usage")) if isinstance(opts, dict) else False
        if self.args.get("stream_response_default_include_usage", False) and "include_usage" not in opts:
            include_usage = True
        model = obj.get("model") or self.args.get("served_model_name")
        return n, stream, include_usage, model

    def completions(self, conn, headers, body, t0):
        obj = self._body_json(body)
        n, stream, include_usage, model = self._openai_common(obj)
        prompt = obj.get("prompt")
        if prompt is None:
            raise BadRequest("prompt is required.")
        if isinstance(prompt, list) and prompt and isinstance(prompt[0], int):
            prompt_tokens = len(prompt)
        else:
            prompt_tokens = approx_tokens(prompt if isinstance(prompt, str) else json.dumps(prompt))
        self._check_len(prompt_tokens)
        req = GenRequest(self.tm, conn, "completions", stream, t0, n, prompt_tokens, model, include_usage)
        req.spec_details = bool(obj.get("return_spec_tokens_details"))
        conn.current = req
        self.tm.submit(req)

    def chat_completions(self, conn, headers, body, t0):
        obj = self._body_json(body)
        n, stream, include_usage, model = self._openai_common(obj)
        messages = obj.get("messages")
        if not isinstance(messages, list) or not messages:
            raise BadRequest("messages must be a non-empty list.")
        text = ""
        for m in messages:
            content = m.get("content") if isinstance(m, dict) else None
            if isinstance(content, list):
                content = " ".join(p.get("text", "") for p in content if isinstance(p, dict))
            text += str(content or "")
        prompt_tokens = approx_tokens(text) + 3 * len(messages) + 1
        self._check_len(prompt_tokens)
        req = GenRequest(self.tm, conn, "chat", stream, t0, n, prompt_tokens, model, include_usage)
        req.spec_details = bool(obj.get("return_spec_tokens_details"))
        opts = obj.get("stream_options")
        req.continuous_usage = isinstance(opts, dict) and bool(opts.get("continuous_usage_stats"))
        conn.current = req
        self.tm.submit(req)

    # -- life cycle ------------------------------------------------------------

    def serve(self):
        args, cfg, loop = self.args, self.cfg, self.loop
        host = args.get("host", "127.0.0.1")
        port = int(args.get("port", 30000))
        http2 = bool(args.get("enable_http2", False))
        # uvicorn's Server.serve captures the signals before its start-up.
        self._install_signal_handlers()
        if http2:
            # http_server.py _run_granian_server: the embedded Granian server
            # (granian/server/embed.py), whose logger prints "[LEVEL] message"
            # to stdout (granian/log.py); its access log is off by default.
            logger.info(f"Starting embedded Granian HTTP/2 server on {host}:{port}")
            write_all(1, b"[WARNING] Embedded server is experimental!\n")
            write_all(1, b"[INFO] Starting granian (embedded)\n")
            self.access_enabled = False
        else:
            logger.raw(uvicorn_line(f"Started server process [{os.getpid()}]"))
            logger.raw(uvicorn_line("Waiting for application startup."))
            logger.raw(uvicorn_line("Application startup complete."))
        try:
            self.server = Listener(self, host, port)
        except OSError as e:
            if http2:
                write_all(1, f"[ERROR] {e}\n".encode())
            else:
                logger.raw(
                    uvicorn_line(f"[Errno {e.errno}] error while attempting to bind on address ({host!r}, {port}): "
                                 f"{(e.strerror or str(e)).lower()}", "ERROR")
                )
            self.engine.kill_children()
            flush_std()
            os._exit(1)
        port = self.server.port
        shown = f"[{host}]" if ":" in host else host
        if http2:
            write_all(1, f"[INFO] Listening at: http://{shown}:{port}\n".encode())
            write_all(1, b"[INFO] Spawning worker-1 with task: %d\n" % id(self))
        else:
            logger.raw(uvicorn_line(f"Uvicorn running on http://{shown}:{port} (Press CTRL+C to quit)"))
        self.started_wall = time.time()
        self.ready_wall = None
        self.tm.on_first_request = self._handle_loop_started
        # engine.py starts the SubprocessWatchdog once every rank has loaded;
        # tokenizer_manager.py's sigterm_watchdog starts with the first
        # request through the tokenizer manager (_handle_loop_started).
        self.watchdog_on = True
        self.loop.call_later(cfg.watchdog_interval, self._watch_children)
        if self.multinode and self.engine.schedulers()[0].link_fd >= 0:
            self.loop.add_reader(self.engine.schedulers()[0].link_fd, self._rank0_said)
        if args.get("skip_server_warmup", False):
            self._ready()
        else:
            self._warmup(port)
        loop.run_forever()

    def _warmup(self, port):
        # SGLang's warm-up thread asks /model_info, then sends one /generate;
        # the server reports ready only when that returns.
        start = time.monotonic()
        peer = "127.0.0.1:39120"  # the warm-up client's ephemeral port, as it would appear

        def model_info_seen():
            if self.access_enabled:
                write_all(1, uvicorn_line(f'{peer} - "GET /model_info HTTP/1.1" 200 OK').encode())
            sched_logger.info(
                "Prefill batch, #new-seq: 1, #new-token: 7, #cached-token: 0, token usage: 0.00, "
                "#running-req: 0, #queue-req: 0, "
            )

        def generate_done():
            if self.access_enabled:
                write_all(1, uvicorn_line(f'{peer} - "POST /generate HTTP/1.1" 200 OK').encode())
            self._ready()

        def generate_sent():
            # The warm-up's /generate is the tokenizer manager's first
            # request: it starts the handle loop and SGLang's SIGTERM handler.
            self.tm.first_request()

        sleep = self.cfg.warmup_sleep
        self._warmup_started = start
        self._warmup_timers = [
            self.loop.call_at(start + sleep, model_info_seen),
            self.loop.call_at(start + sleep, generate_sent),
            self.loop.call_at(start + self.cfg.warmup_seconds, generate_done),
        ]

    def _ready(self):
        if self.tm.gracefully_exit:
            return
        self.tm.server_status = "Up"
        stamp("ready")
        self.ready_wall = time.time()
        logger.info("The server is fired up and ready to roll!")
        if self.cfg.hang_after_ready is not None:
            self.loop.call_later(self.cfg.hang_after_ready, self._hang)
        if self.cfg.crash_after_ready is not None:
            self.loop.call_later(self.cfg.crash_after_ready, self.engine.crash_first_rank)

    def _hang(self):
        self.tm.hung = True
        self.tm.hung_at = self.loop.time()

    def busy_changed(self):
        self.engine.set_busy(bool(self.tm.rid_to_state) or self.tm.health_gens > 0)

    def _rank0_said(self):
        """Multi-node: rank 0's scheduler reports that a peer died inside a
        forward, so the ranks hang (dist.py)."""
        fd = self.engine.schedulers()[0].link_fd
        try:
            data = os.read(fd, 64)
        except OSError:
            data = b""
        if not data:
            self.loop.remove_reader(fd)
            return
        if b"hang" in data and not self.tm.hung:
            self._hang()

    def _watch_children(self):
        """utils/watchdog.py's SubprocessWatchdog: once a second, a worker
        that exited non-zero (a signal reads -N) is logged and the server
        sends itself SIGQUIT, whose handler kills the whole tree. A SIGTERM
        to the process group therefore kills the ranks at once (they have no
        handler) and, within a second, the server and every request."""
        if not self.watchdog_on:
            return
        dead = self.engine.crashed_child()
        if dead is not None:
            logger.error(
                f"Subprocess {dead.name} (pid={dead.pid}) crashed with exit code {dead.popen.returncode}. "
                "Triggering SIGQUIT for cleanup..."
            )
            self.watchdog_on = False
            os.kill(os.getpid(), signal.SIGQUIT)
            return
        self.loop.call_later(self.cfg.watchdog_interval, self._watch_children)


class _Cancel:
    """Lets a connection cancel a pending timer when the client goes away."""

    def __init__(self, handle):
        self.handle = handle

    def cancel(self):
        self.handle.cancel()


class _HealthCheck:
    """One /health probe: its one-token generation answers after a TTFT
    (never while the ranks hang); the probe checks for output every step
    from its start, and fails after SGLANG_HEALTH_CHECK_TIMEOUT."""

    def __init__(self, server, conn):
        self.server = server
        self.conn = conn
        loop = server.loop
        self.tic = loop.time()
        self.k = 0
        # The generation's token, unless the ranks hang before it comes.
        self.token_at = None if server.tm.hung else self.tic + server.tm.ttft
        self.handle = loop.call_at(self.tic + server.cfg.health_poll, self.check)
        if server.multinode and self.token_at is not None:
            # The generation is in flight on every rank until its token.
            server.tm.health_gens += 1
            server.busy_changed()
            loop.call_at(self.token_at, self._generated)

    def _generated(self):
        self.server.tm.health_gens -= 1
        self.server.busy_changed()

    def cancel(self):
        self.handle.cancel()

    def check(self):
        srv, tm = self.server, self.server.tm
        self.k += 1
        now = srv.loop.time()
        token = self.token_at is not None and now >= self.token_at and (
            tm.hung_at is None or self.token_at < tm.hung_at
        )
        got = token or tm.last_receive > self.tic
        if got:
            tm.server_status = "Up"
            self.conn.send_response(200)
            return
        if self.k * srv.cfg.health_poll < HEALTH_CHECK_TIMEOUT:
            self.handle = srv.loop.call_at(self.tic + (self.k + 1) * srv.cfg.health_poll, self.check)
            return
        tic_wall = time.time() - (now - self.tic)
        logger.error(
            "Health check failed. Server couldn't get a response from detokenizer for last "
            f"{HEALTH_CHECK_TIMEOUT} seconds. tic start time: {time.strftime('%H:%M:%S', time.localtime(tic_wall))}. "
            f"last_heartbeat time: {time.strftime('%H:%M:%S', time.localtime(srv.ready_wall or tic_wall))}"
        )
        tm.server_status = "UnHealthy"
        srv.health_failed = True
        self.conn.send_response(503)


def launch_server(server_args, cfg):
    from sglang.srt.engine import Engine

    logger.configure(prefix="", level=server_args.get("log_level", "info"), fd=cfg.log_fd)
    # The batch lines are rank 0's scheduler's: its prefix (none at tp 1).
    rank0, _ = scheduler_prefix(0, 0, {
        "tp": int(server_args.get("tp_size", 1) or 1),
        "pp": int(server_args.get("pp_size", 1) or 1),
        "ep": int(server_args.get("ep_size", 1) or 1),
        "attn_cp": int(server_args.get("attn_cp_size", 1) or 1),
        "moe_dp": int(server_args.get("moe_dp_size", 1) or 1),
    })
    sched_logger.configure(prefix=rank0, level=server_args.get("log_level", "info"), fd=cfg.log_fd)
    logger.info(f"server_args={server_args!r}")
    engine = Engine(server_args, cfg)
    engine.launch()
    if engine.node_rank >= 1:
        from sglang.srt.node_server import serve_worker_node

        serve_worker_node(server_args, cfg, engine)
    tighten_timer_slack()
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    SimHttpServer(server_args, cfg, engine, loop).serve()
    sys.exit(0)


def _env_true(name):
    """srt/environ.py EnvBool: true, 1, yes, y (any case) are true."""
    return os.environ.get(name, "").lower() in ("true", "1", "yes", "y")
