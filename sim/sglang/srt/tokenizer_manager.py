"""Requests of the simulated server and the state SGLang's tokenizer manager
keeps: server status, in-flight requests, and the shutdown flags.

Token i (0-based) of a request is due at ``arrival + TTFT + i * ITL``, where
arrival is the kernel's receive time of the request's first bytes (see
http_conn.py) and the deadlines are kept by token_clock.py. A stream's first SSE
chunk carries the prefill's one token; each later chunk carries one decode
step's tokens: one, or under --speculative-algorithm the accept length
(SGLANG_SIM_ACCEPT_LENGTH, default 2), as SGLang streams a verify step's
accepted drafts and bonus token together. A chunk is due at its last token's
deadline, so tokens per second do not change; meta_info.completion_tokens counts
tokens, and spec_* fields follow SGLang's _calculate_spec_decoding_metrics. Each
chunk is built ahead of its deadline, so at the deadline only a write remains.

Also read here, as SGLang's tokenizer manager reads it: SGL_FORCE_SHUTDOWN (a
SIGTERM drain stops waiting for the requests at its first check).
"""

import json
import os
import time

from sglang.srt.metrics_collector import TokenizerMetrics
from sglang.srt.token_clock import Call, TokenClock
from sglang.srt.utils import sched_logger

# Plain ASCII words with no JSON-special characters, so that chunks can be
# assembled without escaping.
VOCAB = [
    " " + w
    for w in (
        "the of and to in a is that for it as was with be by on not he I this are or his from at which"
        " but have an had they you were their one all we can her has there been if more when will would"
        " who so no"
    ).split()
]


def approx_tokens(text):
    """About four bytes per token, as a tokenizer of English text gives."""
    n = len(text.encode("utf-8")) if isinstance(text, str) else 0
    return max(1, (n + 3) // 4)


def _frame(data):
    """One HTTP/1.1 chunk."""
    return b"%x\r\n%s\r\n" % (len(data), data)


_END = _frame(b"data: [DONE]\n\n") + b"0\r\n\r\n"


class GenRequest:
    """One generation: native /generate, /v1/completions or /v1/chat/completions."""

    __slots__ = (
        "tm", "conn", "kind", "stream", "t0", "n", "i", "prompt_tokens", "rid", "text",
        "include_usage", "model_json", "created", "cancelled", "offset", "finish_json", "pending",
        "end", "acc", "verify_ct", "pending_verify_ct", "continuous_usage", "spec_details",
    )

    def __init__(self, tm, conn, kind, stream, t0, n, prompt_tokens, model="", include_usage=False):
        self.tm = tm
        self.conn = conn
        self.kind = kind
        self.stream = stream
        self.t0 = t0
        self.n = n
        self.i = 0  # tokens sent
        self.prompt_tokens = prompt_tokens
        self.rid = os.urandom(16).hex()  # SGLang's rids are uuid4().hex
        self.text = ""
        self.include_usage = include_usage
        self.model_json = json.dumps(model)
        self.created = int(time.time())
        self.cancelled = False
        self.offset = int(self.rid[:4], 16) % len(VOCAB)
        self.finish_json = '{"type":"length","length":%d}' % n
        self.pending = b""  # the bytes to write at the next deadline
        self.end = 0  # one past the last token of the pending chunk
        self.acc = 0.0  # accept-length remainder carried between decode steps
        self.verify_ct = 0  # speculative verify steps sent so far
        self.pending_verify_ct = 0
        self.continuous_usage = False  # stream_options.continuous_usage_stats
        self.spec_details = False  # OpenAI's return_spec_tokens_details

    def token(self, i):
        return VOCAB[(self.offset + i * 7) % len(VOCAB)]

    def deadline(self, i):
        return self.t0 + self.tm.ttft + i * self.tm.itl

    # -- schedule ----------------------------------------------------------

    def start(self):
        self.tm.rid_to_state[self.rid] = self
        if self.stream:
            self.conn.start_stream()
            self.pending = self._build(0)
            self.tm.clock.at(self.deadline(max(0, self.end - 1)), self)
        else:
            self.tm.clock.at(self.deadline(max(0, self.n - 1)), self)

    def cancel(self):
        """The client went away: SGLang aborts the request."""
        if not self.cancelled:
            self.cancelled = True
            self.tm.rid_to_state.pop(self.rid, None)

    def fire(self, when):
        """At the deadline: write what was built for it, nothing else."""
        if self.cancelled or self.tm.hung:
            return False  # a hung rank sends nothing more, ever
        self.tm.last_receive = time.monotonic()
        if not self.stream:
            self._respond_whole()
            self.tm.metrics.observe_finished(self.prompt_tokens, self.n, False)
            return False
        self.conn.write(self.pending)
        return True

    def after(self):
        """After every due write: count, then build and schedule the next."""
        tm = self.tm
        start, self.i = self.i, self.end
        sent = self.i - start
        tm.tokens_out += sent
        if self.pending_verify_ct > self.verify_ct:
            # A speculative decode step: the scheduler's accept counters.
            self.verify_ct = self.pending_verify_ct
            tm.spec_step(sent, self.deadline(self.i - 1))
        if self.n == 0 or self.i >= self.n:
            tm.rid_to_state.pop(self.rid, None)
            tm.requests_done += 1
            tm.metrics.observe_finished(self.prompt_tokens, self.i, True)
            self.conn.finish()
            return
        self.pending = self._build(self.i)
        tm.clock.at(self.deadline(self.end - 1), self)

    # -- output ------------------------------------------------------------

    def _chunk_end(self, i):
        """One past the last token of the chunk that starts at token i. The
        first token comes alone, from the prefill; after it, each decode
        step sends one token, or under speculative decoding the accepted
        drafts and the bonus token: accept_length tokens, a fractional
        length spread over the steps."""
        length = self.tm.accept_length
        if i == 0 or length <= 1:
            return min(self.n, i + 1)
        self.acc += length
        take = max(1, int(self.acc))
        self.acc -= take
        return min(self.n, i + take)

    def _build(self, i):
        """The HTTP chunk(s) for the tokens of a stream from token i on, and
        the end of the stream after the last."""
        if self.n == 0:
            self.end = 0
            return _frame(self._events("", 0, True)) + _END
        self.end = self._chunk_end(i)
        self.pending_verify_ct = self.verify_ct + (1 if i > 0 and self.tm.spec else 0)
        tok = "".join(self.token(j) for j in range(i, self.end))
        self.text += tok
        last = self.end >= self.n
        out = _frame(self._events(tok, self.end, last))
        return out + _END if last else out

    def _meta(self, completion_tokens, last, verify_ct=None):
        """meta_info; the spec_* fields only on the finished request, as
        _handle_batch_output calls _calculate_spec_decoding_metrics only
        when state.finished (so only the last chunk of a stream has them)."""
        finish = self.finish_json if last else "null"
        e2e = self.tm.ttft + max(0, completion_tokens - 1) * self.tm.itl
        spec = ""
        verify_ct = self.pending_verify_ct if verify_ct is None else verify_ct
        v = self._spec_values(completion_tokens, verify_ct) if last else None
        if v is not None:
            rate, length, correct, proposed = v
            spec = (
                ',"spec_accept_rate":%r,"spec_accept_length":%r,"spec_num_correct_drafts":%d,'
                '"spec_num_proposed_drafts":%d,"spec_verify_ct":%d,"spec_accepted_drafts":%d,'
                '"spec_proposed_drafts":%d'
                % (rate, length, correct, proposed, verify_ct, correct, proposed)
            )
        return (
            '{"id":"%s","finish_reason":%s,"prompt_tokens":%d,"weight_version":"default",'
            '"total_retractions":0,"completion_tokens":%d,"cached_tokens":0,"e2e_latency":%.6f%s}'
            % (self.rid, finish, self.prompt_tokens, completion_tokens, e2e, spec)
        )

    def _spec_values(self, completion_tokens, verify_ct):
        """tokenizer_manager.py's _calculate_spec_decoding_metrics: accept
        rate, accept length (completion / verify_ct, the bonus token
        counted), correct and proposed drafts; None without verify steps."""
        if not self.tm.spec or verify_ct <= 0:
            return None
        proposed = verify_ct * max(1, self.tm.num_draft_tokens - 1)
        correct = max(0, completion_tokens - 1 - verify_ct)
        return correct / proposed, completion_tokens / verify_ct, correct, proposed

    def _sglext(self, verify_ct):
        """The OpenAI response's sglext under return_spec_tokens_details
        (serving_chat.py / serving_completions.py, SglExt and
        SpecTokensDetails of protocol.py); None when there is nothing."""
        v = self._spec_values(self.n, verify_ct) if self.spec_details else None
        if v is None:
            return None
        rate, length, correct, proposed = v
        return (
            '{"routed_experts":null,"cached_tokens_details":null,"spec_tokens_details":{"spec_accept_rate":%r,'
            '"spec_accept_length":%r,"spec_cap_length":0.0,"spec_block_accept_length":0.0,'
            '"spec_num_correct_drafts":%d,"spec_num_proposed_drafts":%d,"spec_verify_ct":%d,'
            '"spec_correct_drafts_histogram":[],"spec_cap_lens_histogram":[]}}'
            % (rate, length, correct, proposed, verify_ct)
        )

    def _usage(self, completion_tokens):
        return '{"prompt_tokens":%d,"total_tokens":%d,"completion_tokens":%d,"prompt_tokens_details":null}' % (
            self.prompt_tokens,
            self.prompt_tokens + completion_tokens,
            completion_tokens,
        )

    def _events(self, tok, k, last):
        """The SSE event(s) carrying the tokens tok, k tokens in all so far."""
        if self.kind == "generate":
            body = '{"text":"%s","meta_info":%s}' % (self.text, self._meta(k, last))
            return b"data: " + body.encode() + b"\n\n"
        if self.kind == "completions":
            body = (
                '{"id":"%s","object":"text_completion","created":%d,"model":%s,"choices":[{"index":0,'
                '"text":"%s","logprobs":null,"finish_reason":null,"matched_stop":null}],"usage":null}'
                % (self.rid, self.created, self.model_json, tok)
            )
            out = b"data: " + body.encode() + b"\n\n"
            return out + self._openai_tail("text_completion") if last else out
        out = b""
        if k == 1:
            out += self._chat_event('{"role":"assistant","content":""}', "null")
        if tok:
            usage = self._usage(k) if self.continuous_usage else "null"
            out += self._chat_event('{"role":null,"content":"%s"}' % tok, "null", usage)
        return out + self._openai_tail("chat.completion.chunk") if last else out

    def _chat_event(self, delta, finish, usage="null"):
        body = (
            '{"id":"%s","object":"chat.completion.chunk","created":%d,"model":%s,"choices":[{"index":0,'
            '"delta":%s,"logprobs":null,"finish_reason":%s,"matched_stop":null}],"usage":%s}'
            % (self.rid, self.created, self.model_json, delta, finish, usage)
        )
        return b"data: " + body.encode() + b"\n\n"

    def _openai_tail(self, obj):
        """The finish event and, if asked, the usage event of an OpenAI stream."""
        if obj == "chat.completion.chunk":
            out = self._chat_event('{"role":null,"content":null}', '"length"')
        else:
            body = (
                '{"id":"%s","object":"%s","created":%d,"model":%s,"choices":[{"index":0,"text":"",'
                '"logprobs":null,"finish_reason":"length","matched_stop":null}],"usage":null}'
                % (self.rid, obj, self.created, self.model_json)
            )
            out = b"data: " + body.encode() + b"\n\n"
        ext = self._sglext(self.pending_verify_ct)
        if ext is not None:
            # The sglext chunk: no choices, before the usage chunk.
            body = '{"id":"%s","object":"%s","created":%d,"model":%s,"choices":[],"usage":null,"sglext":%s}' % (
                self.rid, obj, self.created, self.model_json, ext,
            )
            out += b"data: " + body.encode() + b"\n\n"
        if self.include_usage:
            body = '{"id":"%s","object":"%s","created":%d,"model":%s,"choices":[],"usage":%s}' % (
                self.rid, obj, self.created, self.model_json, self._usage(self.n),
            )
            out += b"data: " + body.encode() + b"\n\n"
        return out

    def full_text(self):
        return "".join(self.token(i) for i in range(self.n))

    def verify_steps(self):
        """The speculative verify steps that produce all n tokens."""
        if not self.tm.spec or self.n <= 1:
            return 0
        steps, i, acc = 0, 1, 0.0
        while i < self.n:
            acc += self.tm.accept_length
            take = max(1, int(acc))
            acc -= take
            i += take
            steps += 1
        return steps

    def _respond_whole(self):
        text = json.dumps(self.full_text())
        tm = self.tm
        tm.tokens_out += self.n
        steps = self.verify_steps()
        if steps:
            tm.spec_steps_at_once(self.n - 1, steps)
        ext = self._sglext(steps)
        ext = "" if ext is None else ',"sglext":' + ext
        if self.kind == "generate":
            ids = json.dumps([(self.offset + i * 7) % len(VOCAB) + 1000 for i in range(self.n)])
            body = '{"text":%s,"output_ids":%s,"meta_info":%s}' % (text, ids, self._meta(self.n, True, steps))
        elif self.kind == "completions":
            body = (
                '{"id":"%s","object":"text_completion","created":%d,"model":%s,"choices":[{"index":0,'
                '"text":%s,"logprobs":null,"finish_reason":"length","matched_stop":null}],"usage":%s%s}'
                % (self.rid, self.created, self.model_json, text, self._usage(self.n), ext)
            )
        else:
            body = (
                '{"id":"%s","object":"chat.completion","created":%d,"model":%s,"choices":[{"index":0,'
                '"message":{"role":"assistant","content":%s,"reasoning_content":null,"tool_calls":null},'
                '"logprobs":null,"finish_reason":"length","matched_stop":null}],"usage":%s%s}'
                % (self.rid, self.created, self.model_json, text, self._usage(self.n), ext)
            )
        tm.rid_to_state.pop(self.rid, None)
        tm.requests_done += 1
        self.conn.send_response(200, body.encode())


class _InFlight(dict):
    """rid_to_state, which also tells on_change when it turns empty or
    non-empty (multi-node: whether the ranks are in a forward)."""

    on_change = None

    def __setitem__(self, key, value):
        was = bool(self)
        super().__setitem__(key, value)
        if not was and self.on_change is not None:
            self.on_change()

    def pop(self, key, *default):
        was = bool(self)
        out = super().pop(key, *default)
        if was and not self and self.on_change is not None:
            self.on_change()
        return out


class TokenizerManager:
    """Server status, in-flight requests and the clock they run on."""

    def __init__(self, server_args, cfg, loop, facts):
        self.args = server_args
        self.cfg = cfg
        self.loop = loop
        self.facts = facts
        self.ttft = cfg.ttft
        self.itl = cfg.itl
        self.clock = TokenClock(loop)
        self.server_status = "Starting"
        self.gracefully_exit = False
        self.hung = False
        self.hung_at = None  # loop time the ranks hung at
        self.rid_to_state = _InFlight()
        self.health_gens = 0  # /health generations in flight (not in rid_to_state)
        self.tokens_out = 0
        self.requests_done = 0
        self.prompt_tokens_total = 0
        # TokenizerMetricsCollector's counters behind /metrics.
        self.metrics = TokenizerMetrics()
        self.force_shutdown = os.environ.get("SGL_FORCE_SHUTDOWN", "").lower() in ("1", "true", "yes")
        # When the last output came from the scheduler side (any request's
        # token): what /health's checks compare with their start.
        self.last_receive = 0.0
        # Speculative decoding: tokens per decode step, and the scheduler's
        # counters behind avg_spec_accept_length (reset by /flush_cache).
        self.spec = bool(server_args.get("speculative_algorithm"))
        self.num_draft_tokens = int(server_args.get("speculative_num_draft_tokens") or 4)
        if self.spec:
            self.accept_length = cfg.accept_length if cfg.accept_length is not None else 2.0
        else:
            self.accept_length = 1.0
        # metrics_reporter.py: the per-interval counters and the totals
        # /server_info reports, rolled over every decode_log_interval
        # decode batches.
        self.spec_num_accept_tokens = 0
        self.spec_num_forward_ct = 0
        self.spec_total_accept_tokens = 0
        self.spec_total_forward_ct = 0
        self.forward_ct_decode = 0
        self.decode_log_interval = max(1, int(server_args.get("decode_log_interval", 40) or 40))
        self._batch_at = None  # the deadline of the current decode batch
        self.last_decode_log = (time.monotonic(), 0)
        interval = int(server_args.get("decode_log_interval", 40))
        self.decode_log_period = max(0.05, interval * max(self.itl, 0.001))
        self._decode_log_handle = None
        self._prefill = None  # (requests, tokens) arrived in this loop iteration
        self.handle_loop_started = False
        self.on_first_request = None

    # -- speculative decoding's accept counters (metrics_reporter.py) --------

    def spec_step(self, tokens, when):
        """One request's verify step of tokens at deadline when. Steps with
        the same deadline (requests in lockstep) are one decode batch; the
        batch is counted after every step of it due in this loop iteration,
        as batch_result_processor.py counts forward_ct_decode after the
        batch's update_spec_metrics."""
        self.spec_num_accept_tokens += tokens
        self.spec_num_forward_ct += 1
        if self._batch_at is None or when - self._batch_at >= self.itl / 2:
            self._batch_at = when
            self.loop.call_soon(self._decode_batch_done)

    def spec_steps_at_once(self, tokens, steps):
        """A non-streamed request's steps, each its own decode batch."""
        self.spec_num_accept_tokens += tokens
        self.spec_num_forward_ct += steps
        for _ in range(steps):
            self._decode_batch_done()

    def _decode_batch_done(self):
        """report_decode_stats: every decode_log_interval-th decode batch
        moves the interval's counters into the totals behind
        /server_info's avg_spec_accept_length; in between they are not
        seen, and before the first roll-over there is no value at all."""
        self.forward_ct_decode = (self.forward_ct_decode + 1) % (1 << 30)
        if self.forward_ct_decode % self.decode_log_interval != 0 or self.spec_num_forward_ct == 0:
            return
        self.spec_total_accept_tokens += self.spec_num_accept_tokens
        self.spec_total_forward_ct += self.spec_num_forward_ct
        self.spec_num_accept_tokens = self.spec_num_forward_ct = 0

    def reset_metrics(self):
        """metrics_reporter.reset_metrics, run by a successful /flush_cache."""
        self.forward_ct_decode = 0
        self.spec_num_accept_tokens = self.spec_num_forward_ct = 0
        self.spec_total_accept_tokens = self.spec_total_forward_ct = 0

    def avg_spec_accept_length(self):
        """scheduler.py get_internal_state: None until the first roll-over."""
        if not self.spec or self.spec_total_forward_ct == 0:
            return None
        return self.spec_total_accept_tokens / self.spec_total_forward_ct

    def at(self, when, fn):
        self.clock.at(when, Call(fn))

    def first_request(self):
        """auto_create_handle_loop: the first request through the tokenizer
        manager starts its handle loop (and SGLang's SIGTERM handler)."""
        if not self.handle_loop_started:
            self.handle_loop_started = True
            if self.on_first_request is not None:
                self.on_first_request()

    def submit(self, req):
        self.first_request()
        self.prompt_tokens_total += req.prompt_tokens
        # SGLang logs one line per prefill batch: everything that arrived
        # together is one batch.
        if self._prefill is None:
            self._prefill = [0, 0, len(self.rid_to_state)]
            self.loop.call_soon(self._log_prefill)
        self._prefill[0] += 1
        self._prefill[1] += req.prompt_tokens
        req.start()
        if self._decode_log_handle is None:
            self._decode_log_handle = self.loop.call_later(self.decode_log_period, self._decode_log)

    def _log_prefill(self):
        seqs, tokens, running = self._prefill
        self._prefill = None
        sched_logger.info(
            f"Prefill batch, #new-seq: {seqs}, #new-token: {tokens}, #cached-token: 0, "
            f"token usage: {self.token_usage():.2f}, #running-req: {running}, #queue-req: 0, "
        )

    def token_usage(self):
        total = self.facts["max_total_num_tokens"]
        used = sum(r.prompt_tokens + r.i for r in self.rid_to_state.values())
        return used / total if total else 0.0

    def _decode_log(self):
        self._decode_log_handle = None
        running = len(self.rid_to_state)
        if running == 0 or self.hung:
            return
        now = time.monotonic()
        t_last, n_last = self.last_decode_log
        rate = (self.tokens_out - n_last) / (now - t_last) if now > t_last else 0.0
        self.last_decode_log = (now, self.tokens_out)
        tokens = sum(r.prompt_tokens + r.i for r in self.rid_to_state.values())
        sched_logger.info(
            f"Decode batch, #running-req: {running}, #token: {tokens}, token usage: {self.token_usage():.2f}, "
            f"cuda graph: True, gen throughput (token/s): {rate:.2f}, #queue-req: 0, "
        )
        self._decode_log_handle = self.loop.call_later(self.decode_log_period, self._decode_log)
