package supervise

import (
	"errors"
	"strings"

	"github.com/sglaunch/sglaunch/launcher"
)

// A rank's server that loses its connection to another rank ends with
// it, a moment after the rank that failed: its output says so in the
// collective library's own words, which lostPeer finds. The words, as
// the libraries write them:
//
//   - gloo: every error of a transport pair is GLOO_ERROR_MSG, that is
//     "[<source file>:<line>] <words>" (pytorch/gloo 70dc360,
//     gloo/common/error.h:16-17), and the source file of a TCP pair's is
//     gloo/transport/tcp/pair.cc: "Connection closed by peer <addr>"
//     (pair.cc:554), "Read error <addr>: <strerror>" (:538; "Connection
//     reset by peer"), "Socket unexpectedly closed <addr>" (:201),
//     "writev <addr>: <strerror>" (:339), "Socket closed <addr>" (:812),
//     and the read and write timeouts (:523, :314). torch prints it as
//     the RuntimeError of the collective, path and all:
//     "RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:538]
//     Connection closed by peer [10.0.0.2]:56408" (torch 1.13's gloo).
//   - NCCL: ncclRemoteError's "remote process exited or there was a
//     network error" (NVIDIA/nccl 5067397, src/init.cc:3430), which
//     torch puts in its error, and the socket's WARN "socketProgress:
//     Connection closed by remote peer <addr>" (src/misc/socket.cc:58).
const glooTransport = "/gloo/transport/"

var ncclLostPeer = []string{
	"socketProgress: Connection closed by remote peer",
	"remote process exited or there was a network error",
}

// maxLostPeer bounds the line lostPeer returns.
const maxLostPeer = 200

// lostPeer returns the last line of tail (a server's last output lines)
// in which gloo or NCCL says a connection to another rank broke, from
// the library's words on, or "".
func lostPeer(tail []string) string {
	for i := len(tail) - 1; i >= 0; i-- {
		line := tail[i]
		if _, rest, ok := strings.Cut(line, glooTransport); ok {
			if _, words, ok := strings.Cut(rest, "] "); ok {
				return bound("gloo: " + words)
			}
		}
		for _, w := range ncclLostPeer {
			if j := strings.Index(line, w); j >= 0 {
				return bound("NCCL: " + line[j:])
			}
		}
	}
	return ""
}

func bound(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > maxLostPeer {
		s = strings.ToValidUTF8(s[:maxLostPeer], "") + "…"
	}
	return s
}

// serverLostPeer is lostPeer of a server that ended by itself.
func serverLostPeer(err error) string {
	var e *launcher.Error
	if !errors.As(err, &e) || !e.Ran || !errors.Is(e.Reason, ErrExited) {
		return ""
	}
	return lostPeer(e.Tail)
}
