"""HTTP/1.1 connections of the simulated server, shaped like uvicorn's.

Keep-alive (closed after SGLANG_TIMEOUT_KEEP_ALIVE idle seconds, read by the
server), chunked transfer encoding for streams, lower-case response headers,
``server: uvicorn``.

The connections do their own socket I/O on the asyncio loop (add_reader and
add_writer) instead of using asyncio's transports, for one reason: a request's
arrival time is the kernel's receive timestamp of its first bytes
(SO_TIMESTAMPNS, read with recvmsg). Token deadlines count from there, so they
do not move when the loop is busy or slow to wake, and 256 requests arriving
at once each keep their own arrival time.
"""

import email.utils
import json
import socket
import struct
import time

REASONS = {
    100: "Continue", 200: "OK", 400: "Bad Request", 401: "Unauthorized", 404: "Not Found",
    405: "Method Not Allowed", 413: "Request Entity Too Large", 431: "Request Header Fields Too Large",
    500: "Internal Server Error", 503: "Service Unavailable",
}

MAX_HEADER_BYTES = 64 * 1024
RECV_BYTES = 256 * 1024

# Linux's generic values; Python's socket module does not export them.
SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)
SCM_TIMESTAMPNS = getattr(socket, "SCM_TIMESTAMPNS", SO_TIMESTAMPNS)
_TIMESPEC = struct.Struct("@ll")
ANC_BYTES = socket.CMSG_SPACE(_TIMESPEC.size) if hasattr(socket, "CMSG_SPACE") else 0


def _arrival(ancdata):
    """The kernel receive time of a recvmsg, on the monotonic clock; now when
    the kernel gave none or it looks wrong."""
    now = time.monotonic()
    for level, kind, data in ancdata:
        if level == socket.SOL_SOCKET and kind == SCM_TIMESTAMPNS and len(data) >= _TIMESPEC.size:
            sec, nsec = _TIMESPEC.unpack_from(data)
            stamp = sec + nsec * 1e-9 - (time.time() - now)
            if now - 1.0 < stamp <= now:
                return stamp
    return now


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


class Listener:
    """A listening socket whose connections become HttpConnections."""

    def __init__(self, server, host, port, backlog=2048):
        self.server = server
        self.loop = server.loop
        infos = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
        family, kind, proto, _, addr = infos[0]
        sock = socket.socket(family, kind, proto)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind(addr)
            sock.listen(backlog)
        except OSError:
            sock.close()
            raise
        sock.setblocking(False)
        self.sock = sock
        self.port = sock.getsockname()[1]
        self.loop.add_reader(sock.fileno(), self._accept)

    def _accept(self):
        for _ in range(128):
            try:
                conn, addr = self.sock.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                return
            HttpConnection(self.server, conn, addr)

    def close(self):
        if self.sock is not None:
            self.loop.remove_reader(self.sock.fileno())
            self.sock.close()
            self.sock = None


class HttpConnection:
    def __init__(self, server, sock, addr):
        self.server = server
        self.loop = server.loop
        self.sock = sock
        self.fd = sock.fileno()
        self.buf = bytearray()
        self.out = bytearray()
        self.t_first = None
        self.busy = False
        self.keep_alive = True
        self.closed = False
        self.close_when_flushed = False
        self.idle = None
        self.current = None
        self.request_line = ""
        self.path = ""
        self.sent_continue = False
        self.peer = f"{addr[0]}:{addr[1]}" if isinstance(addr, tuple) and len(addr) >= 2 else "127.0.0.1:0"
        sock.setblocking(False)
        if sock.family in (socket.AF_INET, socket.AF_INET6):
            try:
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            except OSError:
                pass
        try:
            sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        except OSError:
            pass
        server.conns.add(self)
        self.loop.add_reader(self.fd, self._on_readable)
        self._arm_idle()

    # -- socket I/O ----------------------------------------------------------

    def _on_readable(self):
        try:
            if ANC_BYTES:
                data, anc, _, _ = self.sock.recvmsg(RECV_BYTES, ANC_BYTES)
            else:
                data, anc = self.sock.recv(RECV_BYTES), ()
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            self._lost()
            return
        if not data:
            self._lost()
            return
        if self.t_first is None:
            self.t_first = _arrival(anc)
        self.buf += data
        if self.idle is not None:
            self.idle.cancel()
            self.idle = None
        if not self.busy:
            self._next_request()

    def write(self, data):
        if self.closed:
            return
        if self.out:
            self.out += data
            return
        try:
            n = self.sock.send(data)
        except (BlockingIOError, InterruptedError):
            n = 0
        except OSError:
            self._lost()
            return
        if n < len(data):
            self.out += memoryview(data)[n:]
            self.loop.add_writer(self.fd, self._on_writable)

    def _on_writable(self):
        try:
            n = self.sock.send(self.out)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            self._lost()
            return
        del self.out[:n]
        if not self.out:
            self.loop.remove_writer(self.fd)
            if self.close_when_flushed:
                self._lost()

    def close(self):
        """Close once everything written so far has been sent."""
        if self.closed:
            return
        if self.out:
            self.close_when_flushed = True
            self.loop.remove_reader(self.fd)
        else:
            self._lost()

    def _lost(self):
        if self.closed:
            return
        self.closed = True
        self.loop.remove_reader(self.fd)
        if self.out:
            self.loop.remove_writer(self.fd)
        try:
            self.sock.close()
        except OSError:
            pass
        self.server.conns.discard(self)
        if self.idle is not None:
            self.idle.cancel()
        if self.current is not None:
            self.current.cancel()
            self.current = None

    # -- parsing -------------------------------------------------------------

    def _next_request(self):
        if self.busy or self.closed:
            return
        buf = self.buf
        end = buf.find(b"\r\n\r\n")
        if end < 0:
            if len(buf) > MAX_HEADER_BYTES:
                self.keep_alive = False
                self.busy = True
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
                    self.write(b"HTTP/1.1 100 Continue\r\n\r\n")
                return
            body = bytes(buf[start : start + n])
            consumed = start + n
        del buf[:consumed]
        self.sent_continue = False
        t0 = self.t_first
        # Pipelined bytes already buffered arrived with this read.
        self.t_first = t0 if buf else None
        conn_hdr = headers.get("connection", "").lower()
        if version == "HTTP/1.0":
            self.keep_alive = "keep-alive" in conn_hdr
        else:
            self.keep_alive = "close" not in conn_hdr
        self.busy = True
        self.request_line = f"{method} {target} {version}"
        self.path = target.split("?", 1)[0]
        self.server.dispatch(self, method, self.path, headers, body, t0)

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
        # content_type None: no header, as a Starlette Response without a
        # media_type sends (SGLang's /flush_cache).
        extra = f"content-length: {len(body)}\r\n"
        if content_type is not None:
            extra += f"content-type: {content_type}\r\n"
        self.write(self._head(status, extra) + body)
        self.server.access_log(self, status)
        self._done()

    def start_stream(self, status=200, content_type="text/event-stream; charset=utf-8"):
        if self.closed:
            return
        extra = f"content-type: {content_type}\r\ntransfer-encoding: chunked\r\n"
        self.write(self._head(status, extra))
        self.server.access_log(self, status)

    def finish(self):
        """The response is complete (a stream's last chunk was written)."""
        self._done()

    def _done(self):
        self.busy = False
        self.current = None
        if self.closed:
            return
        if not self.keep_alive or self.server.closing:
            self.close()
            return
        if self.buf:
            self.loop.call_soon(self._next_request)
        else:
            self._arm_idle()

    def _arm_idle(self):
        if self.idle is not None:
            self.idle.cancel()
            self.idle = None
        if self.closed or self.busy:
            return
        self.idle = self.loop.call_later(self.server.keep_alive_timeout, self._idle_close)

    def _idle_close(self):
        self.idle = None
        if not self.busy and not self.closed:
            self.close()

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
