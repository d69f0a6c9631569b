"""Request state and token timing of the simulated server.

Timing is the point of the sim. Token i (0-based) of a request is due at
``arrival + TTFT + i * ITL`` on CLOCK_MONOTONIC, where arrival is when the
request's first byte was read. Deadlines are absolute, so a late wake-up delays
one token and never the ones after it. All streams share one TokenClock: a heap
of deadlines and one timerfd armed at the earliest, watched by the asyncio loop.
The timerfd fires within microseconds; epoll's own 1 ms timeout granularity
would bias every TTFT by about half a millisecond.

Also read here, as SGLang's tokenizer manager reads it: SGL_FORCE_SHUTDOWN (a
SIGTERM exits at once instead of draining).
"""

import heapq
import json
import os
import time
import traceback
import uuid

from sglang.srt.utils import TimerFD, logger, sched_logger

# Plain ASCII words with no JSON-special characters, so that chunks can be
# assembled without escaping.
VOCAB = (
    " the of and to in a is that for it as was with be by on not he I this are or his from at which"
    " but have an had they you were their one all we can her has there been if more when will would"
    " who so no"
).split(" ")[1:]
VOCAB = [" " + w for w in VOCAB]


def approx_tokens(text):
    """About four bytes per token, as a tokenizer of English text gives."""
    n = len(text.encode("utf-8")) if isinstance(text, str) else 0
    return max(1, (n + 3) // 4)


class TokenClock:
    """Calls job.fire(deadline) for each job at its absolute deadline.

    An idle CPU takes 50-200 us to wake (more on a VM), which would add to
    every time to first token. So the timer is armed early by the wake-up
    latency it has observed (a moving average), and a wake-up that comes in
    ahead of the deadline waits out the last microseconds in a spin: the job
    runs within microseconds of its deadline, and the spin costs little CPU
    because it is as long as the latency's scatter, not its mean.
    """

    SPIN_MAX = 0.0005  # never spin longer than this; re-arm instead
    LEAD_MAX = 0.0008

    def __init__(self, loop):
        self.loop = loop
        self.heap = []
        self.seq = 0
        self.armed = None  # the deadline the timer is armed for
        self.armed_at = 0.0  # when the timer itself fires (deadline - lead)
        self.lead = 0.0001
        self.running = False
        self.handle = None
        try:
            self.tfd = TimerFD()
            loop.add_reader(self.tfd.fd, self._on_timer)
        except OSError:
            self.tfd = None

    def at(self, when, job):
        heapq.heappush(self.heap, (when, self.seq, job))
        self.seq += 1
        if not self.running and (self.armed is None or when < self.armed):
            self._arm(when)

    def _arm(self, when):
        self.armed = when
        self.armed_at = when - self.lead
        if self.tfd is not None:
            self.tfd.arm(self.armed_at)
        else:
            if self.handle is not None:
                self.handle.cancel()
            self.handle = self.loop.call_at(when, self._on_timer)

    def _on_timer(self):
        now = time.monotonic()
        if self.tfd is not None:
            self.tfd.drain()
            if self.armed is not None:
                late = min(max(now - self.armed_at, 0.0), self.LEAD_MAX)
                self.lead += (late - self.lead) * 0.05
        self.armed = None
        heap = self.heap
        if not heap:
            return
        first = heap[0][0]
        if first > now:
            if first - now > self.SPIN_MAX:
                self._arm(first)
                return
            while time.monotonic() < first:
                pass
        self.running = True
        try:
            limit = time.monotonic() + 0.00002
            while heap and heap[0][0] <= limit:
                when, _, job = heapq.heappop(heap)
                try:
                    job.fire(when)
                except Exception:
                    logger.error(f"TokenClock job failed: {traceback.format_exc()}")
                if heap and heap[0][0] > limit:
                    limit = time.monotonic() + 0.00002
                    nxt = heap[0][0]
                    if limit < nxt <= limit + self.SPIN_MAX / 4:
                        # The next deadline is too close to sleep for.
                        while time.monotonic() < nxt:
                            pass
                        limit = time.monotonic() + 0.00002
        finally:
            self.running = False
        if heap:
            self._arm(heap[0][0])


class _Call:
    """A one-shot clock job."""

    __slots__ = ("fn",)

    def __init__(self, fn):
        self.fn = fn

    def fire(self, when):
        self.fn()


def _fmt(x):
    return f"{x:.6f}".rstrip("0").rstrip(".") if isinstance(x, float) else str(x)


class GenRequest:
    """One generation: native /generate, /v1/completions or /v1/chat/completions."""

    __slots__ = (
        "tm", "conn", "kind", "stream", "t0", "n", "i", "prompt_tokens", "rid", "text",
        "include_usage", "model_json", "created", "cancelled", "offset", "finish_json", "frozen",
    )

    def __init__(self, tm, conn, kind, stream, t0, n, prompt_tokens, model="", include_usage=False):
        self.tm = tm
        self.conn = conn
        self.kind = kind
        self.stream = stream
        self.t0 = t0
        self.n = n
        self.i = 0
        self.prompt_tokens = prompt_tokens
        self.rid = uuid.uuid4().hex
        self.text = ""
        self.include_usage = include_usage
        self.model_json = json.dumps(model)
        self.created = int(time.time())
        self.cancelled = False
        self.frozen = False
        self.offset = int(self.rid[:4], 16) % len(VOCAB)
        self.finish_json = '{"type":"length","length":%d}' % n

    # -- schedule ----------------------------------------------------------

    def deadline(self, i):
        return self.t0 + self.tm.ttft + i * self.tm.itl

    def start(self):
        self.tm.rid_to_state[self.rid] = self
        if self.stream:
            self.conn.start_stream()
            self.tm.clock.at(self.deadline(0), self)
        else:
            self.tm.clock.at(self.deadline(max(0, self.n - 1)), self)

    def cancel(self):
        """The client went away: SGLang aborts the request."""
        if not self.cancelled:
            self.cancelled = True
            self.tm.rid_to_state.pop(self.rid, None)

    def fire(self, when):
        if self.cancelled:
            return
        tm = self.tm
        if tm.hung:
            # A rank is stuck in a collective: nothing more comes out.
            self.frozen = True
            return
        if not self.stream:
            self._respond_whole()
            return
        conn = self.conn
        if self.n == 0:
            self.text = ""
            conn.write_chunk(self._chunk_for("", 0, True))
            self._finish_stream()
            return
        i = self.i
        tok = VOCAB[(self.offset + i * 7) % len(VOCAB)]
        self.text += tok
        self.i = i + 1
        tm.tokens_out += 1
        last = self.i >= self.n
        conn.write_chunk(self._chunk_for(tok, self.i, last))
        if last:
            self._finish_stream()
        else:
            tm.clock.at(self.deadline(self.i), self)

    # -- output ------------------------------------------------------------

    def _meta(self, completion_tokens, last):
        finish = self.finish_json if last else "null"
        e2e = time.monotonic() - self.t0
        return (
            '{"id":"%s","finish_reason":%s,"prompt_tokens":%d,"weight_version":"default",'
            '"total_retractions":0,"completion_tokens":%d,"cached_tokens":0,"e2e_latency":%s}'
            % (self.rid, finish, self.prompt_tokens, completion_tokens, _fmt(e2e))
        )

    def _usage(self, completion_tokens):
        return '{"prompt_tokens":%d,"total_tokens":%d,"completion_tokens":%d,"prompt_tokens_details":null}' % (
            self.prompt_tokens,
            self.prompt_tokens + completion_tokens,
            completion_tokens,
        )

    def _chunk_for(self, tok, k, last):
        """The SSE event(s) for token k (1-based count) of a stream."""
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
            if last:
                out += self._openai_tail("text_completion", '"text":""')
            return out
        # chat
        out = b""
        if k == 1:
            out += self._chat_event('{"role":"assistant","content":""}', "null")
        if tok:
            out += self._chat_event('{"role":null,"content":"%s"}' % tok, "null")
        if last:
            out += self._openai_tail("chat.completion.chunk", None)
        return out

    def _chat_event(self, delta, finish):
        body = (
            '{"id":"%s","object":"chat.completion.chunk","created":%d,"model":%s,"choices":[{"index":0,'
            '"delta":%s,"logprobs":null,"finish_reason":%s,"matched_stop":null}],"usage":null}'
            % (self.rid, self.created, self.model_json, delta, finish)
        )
        return b"data: " + body.encode() + b"\n\n"

    def _openai_tail(self, obj, text_field):
        """The finish event and, if asked, the usage event of an OpenAI stream."""
        if obj == "chat.completion.chunk":
            out = self._chat_event('{"role":null,"content":null}', '"length"')
        else:
            body = (
                '{"id":"%s","object":"%s","created":%d,"model":%s,"choices":[{"index":0,%s,'
                '"logprobs":null,"finish_reason":"length","matched_stop":null}],"usage":null}'
                % (self.rid, obj, self.created, self.model_json, text_field)
            )
            out = b"data: " + body.encode() + b"\n\n"
        if self.include_usage:
            body = '{"id":"%s","object":"%s","created":%d,"model":%s,"choices":[],"usage":%s}' % (
                self.rid, obj, self.created, self.model_json, self._usage(self.n),
            )
            out += b"data: " + body.encode() + b"\n\n"
        return out

    def _finish_stream(self):
        self.conn.write_chunk(b"data: [DONE]\n\n")
        self.conn.end_stream()
        self.tm.rid_to_state.pop(self.rid, None)
        self.tm.requests_done += 1

    def full_text(self):
        return "".join(VOCAB[(self.offset + i * 7) % len(VOCAB)] for i in range(self.n))

    def _respond_whole(self):
        text = self.full_text()
        self.tm.tokens_out += self.n
        if self.kind == "generate":
            body = '{"text":%s,"output_ids":%s,"meta_info":%s}' % (
                json.dumps(text),
                json.dumps([(self.offset + i * 7) % len(VOCAB) + 1000 for i in range(self.n)]),
                self._meta(self.n, True),
            )
        elif self.kind == "completions":
            body = (
                '{"id":"%s","object":"text_completion","created":%d,"model":%s,"choices":[{"index":0,'
                '"text":%s,"logprobs":null,"finish_reason":"length","matched_stop":null}],"usage":%s}'
                % (self.rid, self.created, self.model_json, json.dumps(text), self._usage(self.n))
            )
        else:
            body = (
                '{"id":"%s","object":"chat.completion","created":%d,"model":%s,"choices":[{"index":0,'
                '"message":{"role":"assistant","content":%s,"reasoning_content":null,"tool_calls":null},'
                '"logprobs":null,"finish_reason":"length","matched_stop":null}],"usage":%s}'
                % (self.rid, self.created, self.model_json, json.dumps(text), self._usage(self.n))
            )
        self.tm.rid_to_state.pop(self.rid, None)
        self.tm.requests_done += 1
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
        self.clock = TokenClock(loop)
        self.server_status = "Starting"
        self.gracefully_exit = False
        self.hung = False
        self.rid_to_state = {}
        self.tokens_out = 0
        self.requests_done = 0
        self.prompt_tokens_total = 0
        self.force_shutdown = os.environ.get("SGL_FORCE_SHUTDOWN", "").lower() in ("1", "true", "yes")
        self._last_decode_log = (time.monotonic(), 0)
        interval = int(server_args.get("decode_log_interval", 40))
        self.decode_log_period = max(0.05, interval * max(self.itl, 0.001))
        self._decode_log_handle = None

    def at(self, when, fn):
        self.clock.at(when, _Call(fn))

    def submit(self, req):
        self.prompt_tokens_total += req.prompt_tokens
        sched_logger.info(
            f"Prefill batch, #new-seq: 1, #new-token: {req.prompt_tokens}, #cached-token: 0, "
            f"token usage: {self.token_usage():.2f}, #running-req: {len(self.rid_to_state)}, #queue-req: 0, "
        )
        req.start()
        if self._decode_log_handle is None:
            self._decode_log_handle = self.loop.call_later(self.decode_log_period, self._decode_log)

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
        t_last, n_last = self._last_decode_log
        rate = (self.tokens_out - n_last) / (now - t_last) if now > t_last else 0.0
        self._last_decode_log = (now, self.tokens_out)
        tokens = sum(r.prompt_tokens + r.i for r in self.rid_to_state.values())
        sched_logger.info(
            f"Decode batch, #running-req: {running}, #token: {tokens}, token usage: {self.token_usage():.2f}, "
            f"cuda graph: True, gen throughput (token/s): {rate:.2f}, #queue-req: 0, "
        )
        self._decode_log_handle = self.loop.call_later(self.decode_log_period, self._decode_log)
