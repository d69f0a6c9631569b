"""HTTP/1.1 connections of the simulated server, shaped like uvicorn's.

Keep-alive (closed after SGLANG_TIMEOUT_KEEP_ALIVE idle seconds, read by the
server), chunked transfer encoding for streams, lower-case response headers,
``server: uvicorn``. A request's arrival time is when its first byte was read:
token deadlines count from there.
"""

import asyncio
import email.utils
import json
import socket
import time

REASONS = {
    100: "Continue", 200: "OK", 400: "Bad Request", 401: "Unauthorized", 404: "Not Found",
    405: "Method Not Allowed", 413: "Request Entity Too Large", 431: "Request Header Fields Too Large",
    500: "Internal Server Error", 503: "Service Unavailable",
}

MAX_HEADER_BYTES = 64 * 1024


class _Date:
    """The Date header, recomputed at most once a second."""

    def __init__(self):
        self.second = None
        self.value = ""

    def get(self):
        now = int(time.time())
        if now != self.second:
            self.second = now
            self.value = email.utils.formatdate(now, usegmt=True)
        return self.value


_date = _Date()


class HttpConnection(asyncio.Protocol):
    def __init__(self, server):
        self.server = server
        self.transport = None
        self.buf = bytearray()
        self.t_first = None
        self.busy = False
        self.keep_alive = True
        self.closed = False
        self.idle = None
        self.current = None
        self.peer = "127.0.0.1:0"
        self.request_line = ""
        self.path = ""
        self.sent_continue = False

    # -- asyncio.Protocol ----------------------------------------------------

    def connection_made(self, transport):
        self.transport = transport
        sock = transport.get_extra_info("socket")
        if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
            try:
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            except OSError:
                pass
        peer = transport.get_extra_info("peername")
        if isinstance(peer, tuple) and len(peer) >= 2:
            self.peer = f"{peer[0]}:{peer[1]}"
        self.server.conns.add(self)
        self._arm_idle()

    def connection_lost(self, exc):
        self.closed = True
        self.server.conns.discard(self)
        if self.idle is not None:
            self.idle.cancel()
        if self.current is not None:
            self.current.cancel()
            self.current = None
        self.server.on_connection_done()

    def data_received(self, data):
        if self.t_first is None:
            self.t_first = time.monotonic()
        self.buf += data
        if self.idle is not None:
            self.idle.cancel()
            self.idle = None
        if not self.busy:
            self._next_request()

    # -- parsing -------------------------------------------------------------

    def _next_request(self):
        if self.busy or self.closed:
            return
        buf = self.buf
        end = buf.find(b"\r\n\r\n")
        if end < 0:
            if len(buf) > MAX_HEADER_BYTES:
                self.keep_alive = False
                self.send_response(431, b'{"detail":"Request Header Fields Too Large"}')
            elif not buf:
                self._arm_idle()
            return
        head = bytes(buf[:end]).decode("latin-1")
        lines = head.split("\r\n")
        parts = lines[0].split(" ")
        if len(parts) != 3 or not parts[2].startswith("HTTP/"):
            self.keep_alive = False
            self.busy = True
            self.send_response(400, b'{"detail":"Invalid HTTP request"}')
            return
        method, target, version = parts
        headers = {}
        for line in lines[1:]:
            k, _, v = line.partition(":")
            headers[k.strip().lower()] = v.strip()
        start = end + 4
        if "chunked" in headers.get("transfer-encoding", "").lower():
            body, consumed = _dechunk(buf, start)
            if body is None:
                return
        else:
            try:
                n = int(headers.get("content-length", "0") or 0)
            except ValueError:
                n = -1
            if n < 0:
                self.keep_alive = False
                self.busy = True
                self.send_response(400, b'{"detail":"Invalid Content-Length"}')
                return
            if len(buf) < start + n:
                if headers.get("expect", "").lower() == "100-continue" and not self.sent_continue:
                    self.sent_continue = True
                    self.transport.write(b"HTTP/1.1 100 Continue\r\n\r\n")
                return
            body = bytes(buf[start : start + n])
            consumed = start + n
        del buf[:consumed]
        self.sent_continue = False
        t0 = self.t_first
        self.t_first = time.monotonic() if buf else None
        conn_hdr = headers.get("connection", "").lower()
        if version == "HTTP/1.0":
            self.keep_alive = "keep-alive" in conn_hdr
        else:
            self.keep_alive = "close" not in conn_hdr
        self.busy = True
        self.request_line = f"{method} {target} {version}"
        path = target.split("?", 1)[0]
        self.path = path
        self.server.dispatch(self, method, path, headers, body, t0)

    # -- responses -------------------------------------------------------------

    def _head(self, status, extra):
        conn = "" if self.keep_alive else "connection: close\r\n"
        return (
            f"HTTP/1.1 {status} {REASONS.get(status, '')}\r\ndate: {_date.get()}\r\nserver: uvicorn\r\n"
            f"{extra}{conn}\r\n"
        ).encode("latin-1")

    def send_response(self, status, body=b"", content_type="application/json"):
        if self.closed:
            self._done()
            return
        extra = f"content-length: {len(body)}\r\ncontent-type: {content_type}\r\n"
        self.transport.write(self._head(status, extra) + body)
        self.server.access_log(self, status)
        self._done()

    def start_stream(self, status=200, content_type="text/event-stream; charset=utf-8"):
        if self.closed:
            return
        extra = f"content-type: {content_type}\r\ntransfer-encoding: chunked\r\n"
        self.transport.write(self._head(status, extra))
        self.server.access_log(self, status)

    def write_chunk(self, data):
        if not self.closed:
            self.transport.write(b"%x\r\n%s\r\n" % (len(data), data))

    def end_stream(self):
        if not self.closed:
            self.transport.write(b"0\r\n\r\n")
        self._done()

    def _done(self):
        self.busy = False
        self.current = None
        self.server.on_connection_done()
        if self.closed:
            return
        if not self.keep_alive or self.server.closing:
            self.transport.close()
            return
        if self.buf:
            self.server.loop.call_soon(self._next_request)
        else:
            self._arm_idle()

    def _arm_idle(self):
        if self.idle is not None:
            self.idle.cancel()
        if self.closed or self.busy:
            return
        self.idle = self.server.loop.call_later(self.server.keep_alive_timeout, self._idle_close)

    def _idle_close(self):
        self.idle = None
        if not self.busy and not self.closed:
            self.transport.close()

    def json(self, status, obj):
        self.send_response(status, json.dumps(obj, separators=(",", ":")).encode())


def _dechunk(buf, start):
    """Decode a chunked request body; (None, 0) while incomplete."""
    out = bytearray()
    pos = start
    while True:
        eol = buf.find(b"\r\n", pos)
        if eol < 0:
            return None, 0
        try:
            size = int(bytes(buf[pos:eol]).split(b";")[0], 16)
        except ValueError:
            return b"", len(buf)
        pos = eol + 2
        if size == 0:
            end = buf.find(b"\r\n\r\n", pos - 2)
            if end < 0:
                return None, 0
            return bytes(out), end + 4
        if len(buf) < pos + size + 2:
            return None, 0
        out += buf[pos : pos + size]
        pos += size + 2
