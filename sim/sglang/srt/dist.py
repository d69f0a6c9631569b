"""The sim's torch.distributed across nodes (--nnodes > 1), in the schedulers.

Rendezvous, as torch's tcp:// init does it (init_torch_distributed in
srt/distributed/bootstrap.py: tcp://--dist-init-addr, else tcp://--host:nccl_port):
global rank 0 (TP0 on node 0) runs the TCPStore server, listening on the port
on every local address; every other rank, on every node, connects to it,
retrying while refused, and all wait until the whole world has joined. Rank 0
therefore does not load until every node is up; a missing node leaves every
rank at "Init torch distributed begin." until the timeout (--dist-timeout
seconds; unset, torch's default of 600 s for the NCCL backend), when rank 0
raises DistStoreError and a client DistNetworkError.

The connections then stay open as the ranks' collective links (gloo's CPU
group, on which the schedulers broadcast the requests every iteration, and
NCCL). Rank 0's scheduler forwards its node's state to the others: "busy"
while a request or a health check generation is in flight, "idle" otherwise,
and "shutdown" after a drain. When a link closes (its peer process died):

  idle  the next per-iteration broadcast fails with gloo's "Connection closed
        by peer"; the scheduler logs the traceback and SIGQUITs its parent,
        which kills its tree (137). This is what SGLang does (scheduler.py
        recv_requests -> broadcast_pyobj; sgl-project/sglang#3685).
  busy  the rank is inside a forward whose NCCL collective waits for the dead
        peer: it hangs. On rank 0 the HTTP server is told ("hang"), so streams
        stop and /health gets no output; the processes live on.

Wire format (the sim's own): a client sends "rank N\\n"; rank 0 answers "go\\n"
once all have joined, then sends "busy\\n", "idle\\n" or "shutdown\\n".
"""

import os
import select
import signal
import socket
import time

# torch's default process-group timeout for the NCCL backend, which the
# store's rendezvous uses when --dist-timeout is unset.
DEFAULT_TIMEOUT = 600.0


def parse_addr(addr):
    """HOST:PORT or [V6]:PORT -> (host, port), as NetworkAddress.parse."""
    addr = addr.strip()
    if addr.startswith("["):
        end = addr.index("]")
        return addr[1:end], int(addr[end + 2:])
    host, _, port = addr.rpartition(":")
    return host, int(port)


def _listen_any(port):
    """TCPStore's server: listen on every local address, IPv6 dual-stack
    first, else IPv4. Raises OSError."""
    try:
        s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
        try:
            s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind(("::", port))
        except OSError:
            s.close()
            raise
    except OSError as e:
        if getattr(e, "errno", None) == 98:  # EADDRINUSE: IPv4 would fail too
            raise
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("0.0.0.0", port))
        except OSError:
            s.close()
            raise
    s.listen(128)
    return s


class Link:
    def __init__(self, sock, peer, rank=None):
        self.sock = sock
        self.peer = peer  # "HOST:PORT" of the other end, as gloo names it
        self.rank = rank
        self.buf = b""

    def fileno(self):
        return self.sock.fileno()

    def send(self, line):
        try:
            self.sock.sendall(line.encode() + b"\n")
        except OSError:
            pass


def _peer(sock):
    try:
        host, port = sock.getpeername()[:2]
    except OSError:
        return "unknown"
    if host.startswith("::ffff:"):
        host = host[len("::ffff:"):]
    return f"{host}:{port}"


class DistError(Exception):
    """A torch.distributed error the scheduler reports as its crash."""


def rendezvous_master(port, world_size, timeout):
    """Rank 0: serve the store and wait for world_size - 1 clients."""
    try:
        server = _listen_any(port)
    except OSError as e:
        raise DistError(
            "torch.distributed.DistNetworkError: The server socket has failed to listen on any local "
            f"network address. port: {port}, useIpv6: 0, code: -{e.errno}, "
            f"name: {'EADDRINUSE' if e.errno == 98 else 'UNKNOWN'}, message: {(e.strerror or str(e)).lower()}"
        ) from None
    deadline = time.monotonic() + timeout
    links = []
    pending = []
    while len(links) < world_size - 1:
        left = deadline - time.monotonic()
        if left <= 0:
            server.close()
            raise DistError(
                f"torch.distributed.DistStoreError: Timed out after {int(timeout)} seconds waiting for "
                f"clients. {len(links) + 1}/{world_size} clients joined."
            )
        readable, _, _ = select.select([server] + pending, [], [], left)
        for r in readable:
            if r is server:
                sock, _ = server.accept()
                pending.append(Link(sock, _peer(sock)))
                continue
            data = r.sock.recv(64)
            if not data:
                pending.remove(r)
                r.sock.close()
                continue
            r.buf += data
            if b"\n" in r.buf:
                line, _, r.buf = r.buf.partition(b"\n")
                pending.remove(r)
                try:
                    rank = int(line.split()[1])
                except (IndexError, ValueError):
                    rank = -1
                if 0 < rank < world_size and all(l.rank != rank for l in links):
                    r.rank = rank
                    links.append(r)
                else:
                    # SGLang does not check --node-rank < --nnodes; the sim
                    # drops a rank outside the world, which then waits.
                    r.sock.close()
    for l in links:
        l.send("go")
    # The store keeps serving in torch; the sim needs no more clients.
    server.close()
    return links


def rendezvous_client(host, port, rank, timeout):
    """Every other rank: connect (retrying while refused), announce the rank,
    and wait until rank 0 says the world is complete."""
    deadline = time.monotonic() + timeout
    delay = 0.01
    while True:
        try:
            sock = socket.create_connection((host, port), timeout=max(0.05, deadline - time.monotonic()))
            break
        except OSError:
            if time.monotonic() + delay > deadline:
                raise DistError(
                    "torch.distributed.DistNetworkError: The client socket has timed out after "
                    f"{int(timeout * 1000)}ms while trying to connect to ({host}, {port})."
                ) from None
            time.sleep(delay)
            delay = min(0.5, delay * 2)
    sock.settimeout(None)
    link = Link(sock, _peer(sock), 0)
    link.send(f"rank {rank}")
    while b"\n" not in link.buf:
        data = sock.recv(64)
        if not data:
            raise DistError(gloo_closed(link.peer))
        link.buf += data
    line, _, link.buf = link.buf.partition(b"\n")
    return link


def gloo_closed(peer):
    return f"RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:538] Connection closed by peer [{peer.rsplit(':', 1)[0]}]:{peer.rsplit(':', 1)[-1]}"


def dead_link(links):
    """The first link whose peer has gone (without blocking), else None."""
    if not links:
        return None
    readable, _, _ = select.select(links, [], [], 0)
    for l in readable:
        try:
            data = l.sock.recv(4096, socket.MSG_PEEK)
        except OSError:
            return l
        if not data:
            return l
    return None


def serve_links(links, ctl_fd, ready_fd, master, on_crash):
    """After the load: watch the parent's control pipe and the links until
    the process ends. on_crash(frames, exc) logs the traceback, SIGQUITs the
    parent and exits; it does not return."""
    state = "idle"
    hung = False
    ctl_buf = b""
    watch = list(links)
    while True:
        fds = [ctl_fd] + ([] if hung else watch)
        try:
            readable, _, _ = select.select(fds, [], [])
        except InterruptedError:
            continue
        for r in readable:
            if r == ctl_fd:
                try:
                    data = os.read(ctl_fd, 256)
                except InterruptedError:
                    continue
                except OSError:
                    data = b""
                if not data:
                    os._exit(0)  # the parent is gone or wants us gone
                ctl_buf += data
                while b"\n" in ctl_buf:
                    line, _, ctl_buf = ctl_buf.partition(b"\n")
                    msg = line.decode(errors="replace").strip()
                    if hung:
                        continue  # a hung rank reads nothing more
                    if msg == "shutdown":
                        for l in links:
                            l.send("shutdown")
                        os._exit(0)
                    if msg == "crash":
                        on_crash("forward", None)
                    if msg in ("busy", "idle"):
                        state = msg
                        if master:
                            for l in watch:
                                l.send(msg)
                continue
            try:
                data = r.sock.recv(256)
            except OSError:
                data = b""
            if data:
                r.buf += data
                while b"\n" in r.buf:
                    line, _, r.buf = r.buf.partition(b"\n")
                    msg = line.decode(errors="replace").strip()
                    if msg in ("busy", "idle"):
                        state = msg
                    elif msg == "shutdown":
                        os._exit(0)  # ShutdownReq reached this rank through the broadcast
                continue
            watch.remove(r)
            if state == "busy":
                # Inside a forward: the collective waits for the dead peer.
                hung = True
                if master and ready_fd >= 0:
                    try:
                        os.write(ready_fd, b"hang\n")
                    except OSError:
                        pass
                continue
            on_crash("broadcast", gloo_closed(r.peer))


def sigquit_parent(parent):
    try:
        os.kill(parent, signal.SIGQUIT)
    except OSError:
        pass
