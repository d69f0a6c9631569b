package proc

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"syscall"
)

// PortState is what binding an address for a moment says about it.
type PortState int

const (
	// PortFree: the address bound, and was let go at once.
	PortFree PortState = iota
	// PortInUse (EADDRINUSE): something listens there; Holder names it
	// when /proc tells.
	PortInUse
	// PortNotLocal (EADDRNOTAVAIL): the host part is not an address of
	// this host.
	PortNotLocal
	// PortDenied (EACCES): a privileged port (below 1024) this user may
	// not bind.
	PortDenied
	// PortUnbindable: any other error; Err says which.
	PortUnbindable
)

// PortCheck is CheckPort's answer for one address.
type PortCheck struct {
	Addr  string // HOST:PORT as given
	Port  int
	State PortState
	// Holder is who listens on the port, when State is PortInUse (its
	// zero value when /proc does not tell).
	Holder Holder
	// Err is the bind error; nil when the port is free.
	Err error
}

// Free reports whether the address bound.
func (c PortCheck) Free() bool { return c.State == PortFree }

// Problem says in a phrase why the address did not bind: "in use by pid
// 123 (python3)", "not an address of this host"; "" when it is free.
func (c PortCheck) Problem() string {
	switch c.State {
	case PortFree:
		return ""
	case PortInUse:
		if h := c.Holder.String(); h != "" {
			return "in use by " + h
		}
		return "in use"
	case PortNotLocal:
		return "not an address of this host"
	case PortDenied:
		return "below 1024, which this user may not bind"
	}
	return fmt.Sprintf("cannot bind: %v", c.Err)
}

// Holder is a process listening on a port.
type Holder struct {
	PID  int    // the lowest pid holding the socket; 0 when unknown
	Comm string // its kernel name
	// Hidden: a listening socket was found that no process this user may
	// inspect holds (another user's).
	Hidden bool
}

// String is "pid 123 (python3)", "a process of another user", or ""
// when nothing is known.
func (h Holder) String() string {
	switch {
	case h.PID > 0:
		return fmt.Sprintf("pid %d (%s)", h.PID, h.Comm)
	case h.Hidden:
		return "a process this user may not inspect (another user's)"
	}
	return ""
}

// CheckPort binds addr (HOST:PORT) for a moment and classifies the
// answer once for every caller: free, in use (and by whom, from /proc),
// not this host's address, or a privileged port. It never sends traffic.
func CheckPort(ctx context.Context, addr string) PortCheck {
	c := PortCheck{Addr: addr}
	if _, p, err := net.SplitHostPort(addr); err == nil {
		c.Port, _ = strconv.Atoi(p)
	}
	var lc net.ListenConfig
	l, err := lc.Listen(ctx, "tcp", addr)
	if err == nil {
		l.Close()
		return c
	}
	c.Err = err
	switch {
	case errors.Is(err, syscall.EADDRINUSE):
		c.State = PortInUse
		c.Holder = HolderOf(c.Port)
	case errors.Is(err, syscall.EADDRNOTAVAIL):
		c.State = PortNotLocal
	case errors.Is(err, syscall.EACCES):
		c.State = PortDenied
	default:
		c.State = PortUnbindable
	}
	return c
}

// HolderOf names the process listening on a TCP port; the zero Holder
// when nothing listens or /proc cannot tell.
func HolderOf(port int) Holder {
	l, err := ListenersOn(port)
	if err != nil {
		return Holder{}
	}
	h := Holder{Hidden: l.Hidden}
	if len(l.PIDs) > 0 {
		h.PID = l.PIDs[0]
		if st, err := ReadStat(h.PID); err == nil {
			h.Comm = st.Comm
		}
	}
	return h
}
