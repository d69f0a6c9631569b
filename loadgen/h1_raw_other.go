//go:build !linux

package loadgen

import (
	"context"
	"errors"
	"net"
	"time"
)

// rawConn: sockets stay in Go's poller here (see h1_raw_linux.go).
type rawConn struct{}

// reactor: none here.
type reactor struct{}

var errNoRaw = errors.New("no raw sockets on this build")

func (c *h1Client) rawOf(net.Conn) *rawConn                    { return nil }
func (rc *rawConn) watch(context.Context) (func() bool, error) { return nil, errNoRaw }
func (rc *rawConn) unwatch()                                   {}
func (rc *rawConn) read([]byte) (int, time.Time, error)        { return 0, time.Time{}, errNoRaw }
func (rc *rawConn) write([][]byte) error                       { return errNoRaw }
func (rc *rawConn) close()                                     {}
func (rc *rawConn) noteMerge()                                 {}
func (rc *rawConn) follow(func() bool)                         {}
