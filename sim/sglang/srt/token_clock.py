"""One timer for every token of every stream.

Timing is the point of the sim. Each job (a stream's next token, a whole
response, a health probe) is due at an absolute CLOCK_MONOTONIC deadline, so a
late wake-up delays one token and never the ones after it. Jobs sit in a heap;
one timerfd, watched by the asyncio loop, is armed at the earliest. A timerfd
fires within microseconds of its expiry, where epoll's own timeout has 1 ms
granularity.

An idle CPU still takes 50-200 us to wake (more on a VM), which would add to
every time to first token. So the timer is armed early by the wake-up latency
it has observed (a moving average), and a wake-up that comes in ahead of the
deadline spins out the remaining microseconds. The spin is about as long as
the latency's scatter, not its mean, so it costs little CPU.

When several jobs fall due together (32 streams whose requests arrived at
once), the clock first calls every due job's fire(), which only writes bytes
built in advance, and only then calls their after(), which builds the next
token and reschedules it: the last stream's token is late by the cost of the
writes before it, not of the writes and the builds.
"""

import heapq
import time
import traceback

from sglang.srt.utils import TimerFD, logger

# A job due this close to now runs now.
SLOP = 0.00002
# Spin (rather than sleep) for a deadline at most this far ahead.
SPIN_MAX = 0.0005
LEAD_MAX = 0.0008


class TokenClock:
    """Calls job.fire(deadline), then job.after() if it has one, for each job
    at its absolute deadline."""

    def __init__(self, loop):
        self.loop = loop
        self.heap = []
        self.seq = 0
        self.armed = None  # the deadline the timer is armed for
        self.armed_at = 0.0  # when the timer itself expires: deadline - lead
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
                late = min(max(now - self.armed_at, 0.0), LEAD_MAX)
                self.lead += (late - self.lead) * 0.05
        self.armed = None
        heap = self.heap
        self.running = True
        try:
            first_batch = True
            while heap:
                gap = heap[0][0] - time.monotonic()
                if gap > SLOP:
                    # Woken by the timer we are early by up to the lead; later
                    # in the loop, spin only for gaps shorter than a wake-up.
                    if gap > (SPIN_MAX if first_batch else self.lead):
                        break
                    deadline = heap[0][0]
                    while time.monotonic() < deadline:
                        pass
                self._run_due()
                first_batch = False
        finally:
            self.running = False
        if heap:
            self._arm(heap[0][0])

    def _run_due(self):
        heap = self.heap
        limit = time.monotonic() + SLOP
        fired = []
        while heap and heap[0][0] <= limit:
            when, _, job = heapq.heappop(heap)
            try:
                if job.fire(when) and hasattr(job, "after"):
                    fired.append(job)
            except Exception:
                logger.error(f"TokenClock job failed: {traceback.format_exc()}")
        for job in fired:
            try:
                job.after()
            except Exception:
                logger.error(f"TokenClock job failed: {traceback.format_exc()}")


class Call:
    """A one-shot clock job."""

    __slots__ = ("fn",)

    def __init__(self, fn):
        self.fn = fn

    def fire(self, when):
        self.fn()
        return False
