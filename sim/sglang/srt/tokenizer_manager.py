"""Requests of the simulated server and the state SGLang's tokenizer manager
keeps: server status, in-flight requests, and the shutdown flags.

Token i (0-based) of a request is due at ``arrival + TTFT + i * ITL``, where
arrival is the kernel's receive time of the request's first bytes (see
http_conn.py) and the deadlines are kept by token_clock.py. Each chunk is
built ahead of its deadline, so at the deadline only a write remains.

One token per chunk, except under speculative decoding (--speculative-algorithm
with SGLANG_SIM_ACCEPT_LENGTH): then, as SGLang streams one chunk per
verify step, the first chunk (prefill) carries one token and each later one
the tokens its step accepted, sent at the deadline of its last token.

Also read here, as SGLang's tokenizer manager reads it: SGL_FORCE_SHUTDOWN (a
SIGTERM exits at once instead of draining).
"""

import json
import os
import time

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
        "continuous_usage", "steps", "sent",
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
        self.continuous_usage = False  # stream_options.continuous_usage_stats
        self.steps = 0  # decode (verify) steps so far
        self.sent = 0  # tokens in the pending chunk

    def token(self, i):
        return VOCAB[(self.offset + i * 7) % len(VOCAB)]

    def deadline(self, i):
        return self.t0 + self.tm.ttft + i * self.tm.itl

    # -- schedule ----------------------------------------------------------

    def start(self):
        self.tm.rid_to_state[self.rid] = self
        if self.stream:
            self.conn.start_stream()
            self.pending = self._build(0, 1)
            self.tm.clock.at(self.deadline(0), self)
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
        if not self.stream:
            self._respond_whole()
            return False
        self.conn.write(self.pending)
        return True

    def after(self):
        """After every due write: count, then build and schedule the next."""
        tm = self.tm
        self.i += self.sent
        tm.tokens_out += self.sent if self.n else 0
        if self.i >= self.n:
            tm.rid_to_state.pop(self.rid, None)
            tm.requests_done += 1
            self.conn.finish()
            return
        k = min(self._accept(), self.n - self.i)
        self.pending = self._build(self.i, k)
        tm.clock.at(self.deadline(self.i + k - 1), self)

    def _accept(self):
        """The tokens the next decode step accepts: 1 without speculative
        decoding, else steps of floor/ceil of the accept length, averaging
        it exactly. The server's average counts what a step accepted, even
        where max_new_tokens cuts the chunk short."""
        a = self.tm.accept_length
        if a is None:
            return 1
        self.steps += 1
        k = max(1, int(self.steps * a) - int((self.steps - 1) * a))
        self.tm.spec_steps += 1
        self.tm.spec_accepted += k
        return k

    # -- output ------------------------------------------------------------

    def _build(self, i, k):
        """The HTTP chunk for tokens i..i+k-1 of a stream, and the end of
        the stream after the last."""
        self.sent = k
        last = i + k >= self.n
        if self.n == 0:
            self.sent = 1
            return _frame(self._events("", 0, True)) + _END
        tok = "".join(self.token(j) for j in range(i, i + k))
        self.text += tok
        out = _frame(self._events(tok, i + k, last))
        return out + _END if last else out

    def _meta(self, completion_tokens, last):
        finish = self.finish_json if last else "null"
        e2e = self.tm.ttft + max(0, completion_tokens - 1) * self.tm.itl
        return (
            '{"id":"%s","finish_reason":%s,"prompt_tokens":%d,"weight_version":"default",'
            '"total_retractions":0,"completion_tokens":%d,"cached_tokens":0,"e2e_latency":%.6f}'
            % (self.rid, finish, self.prompt_tokens, completion_tokens, e2e)
        )

    def _usage(self, completion_tokens):
        return '{"prompt_tokens":%d,"total_tokens":%d,"completion_tokens":%d,"prompt_tokens_details":null}' % (
            self.prompt_tokens,
            self.prompt_tokens + completion_tokens,
            completion_tokens,
        )

    def _events(self, tok, k, last):
        """The SSE event(s) carrying the text tok that brings the count to k."""
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
        if self.include_usage:
            body = '{"id":"%s","object":"%s","created":%d,"model":%s,"choices":[],"usage":%s}' % (
                self.rid, obj, self.created, self.model_json, self._usage(self.n),
            )
            out += b"data: " + body.encode() + b"\n\n"
        return out

    def full_text(self):
        return "".join(self.token(i) for i in range(self.n))

    def _respond_whole(self):
        text = json.dumps(self.full_text())
        tm = self.tm
        tm.tokens_out += self.n
        if self.kind == "generate":
            ids = json.dumps([(self.offset + i * 7) % len(VOCAB) + 1000 for i in range(self.n)])
            body = '{"text":%s,"output_ids":%s,"meta_info":%s}' % (text, ids, self._meta(self.n, True))
        elif self.kind == "completions":
            body = (
                '{"id":"%s","object":"text_completion","created":%d,"model":%s,"choices":[{"index":0,'
                '"text":%s,"logprobs":null,"finish_reason":"length","matched_stop":null}],"usage":%s}'
                % (self.rid, self.created, self.model_json, text, self._usage(self.n))
            )
        else:
            body = (
                '{"id":"%s","object":"chat.completion","created":%d,"model":%s,"choices":[{"index":0,'
                '"message":{"role":"assistant","content":%s,"reasoning_content":null,"tool_calls":null},'
                '"logprobs":null,"finish_reason":"length","matched_stop":null}],"usage":%s}'
                % (self.rid, self.created, self.model_json, text, self._usage(self.n))
            )
        tm.rid_to_state.pop(self.rid, None)
        tm.requests_done += 1
        self.conn.send_response(200, body.encode())


class TokenizerManager:
    """Server status, in-flight requests and the clock they run on."""

    def __init__(self, server_args, cfg, loop, facts):
        self.args = server_args
        self.cfg = cfg
        self.loop = loop
        self.facts = facts
        self.ttft = cfg.ttft
        self.itl = cfg.itl
        # Speculative decoding: tokens accepted per verify step, and the
        # totals avg_spec_accept_length is computed from (reset by
        # /flush_cache, as SGLang's are).
        self.accept_length = cfg.accept_length if server_args.get("speculative_algorithm") else None
        self.spec_steps = 0
        self.spec_accepted = 0
        self.clock = TokenClock(loop)
        self.server_status = "Starting"
        self.gracefully_exit = False
        self.hung = False
        self.rid_to_state = {}
        self.tokens_out = 0
        self.requests_done = 0
        self.prompt_tokens_total = 0
        self.force_shutdown = os.environ.get("SGL_FORCE_SHUTDOWN", "").lower() in ("1", "true", "yes")
        self.last_decode_log = (time.monotonic(), 0)
        interval = int(server_args.get("decode_log_interval", 40))
        self.decode_log_period = max(0.05, interval * max(self.itl, 0.001))
        self._decode_log_handle = None
        self._prefill = None  # (requests, tokens) arrived in this loop iteration

    def at(self, when, fn):
        self.clock.at(when, Call(fn))

    def submit(self, req):
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
