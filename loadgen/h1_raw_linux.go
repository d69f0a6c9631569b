//go:build linux

package loadgen

import (
	"context"
	"io"
	"net"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sglaunch/sglaunch/internal/iovec"
	"github.com/sglaunch/sglaunch/internal/rxstamp"
	"golang.org/x/sys/unix"
)

// A stream's socket is read outside Go's poller, woken by one epoll set
// per client (the reactor), for two savings in CPU per token at hundreds
// of streams, where each token is an event of its own:
//
//   - one recvmsg per event: after a short read the socket is known to
//     be empty, and the stream waits for the reactor's word before it
//     reads again (through Go's poller every read starts by asking the
//     socket, so each event also costs a read that finds nothing);
//   - one wait for many events: while events come in bursts the reactor
//     sleeps batchPause between its waits, so one wait returns the events
//     of many streams, which their goroutines then read back to back.
//
// And a third, once a response's head has been read: the reactor reads
// and follows the body itself (follow), a step at a time on its own
// goroutine as data comes, through the same readers the stream's
// goroutine would use, which then waits only for the stream's end. An
// event costs no goroutine wake-up: the scheduler's part of an event's
// CPU (the wake, the park, the idle processor's sleep) is gone.
//
// None touches the measurement: an event's time is the kernel's
// receive stamp (SO_TIMESTAMPNS), not when it was read, and while a
// stream's events are more than batchPause apart one read still brings
// one event. BenchmarkReadFloor (test/perf/bench) measures the floor of
// each way.
//
// Under the race detector the reads tell it what they synchronise with
// (raceAcquireIO), as syscall.Read does.

// batchPause is how long the reactor sleeps after a wait that returned
// batchMin events or more, or fewer at a rate that brings batchMin in a
// pause (a wait right after the last one that found one or two: without
// the rate, a reactor that once stopped pausing would keep waking for
// every event): events gather meanwhile. A quieter client (a few
// streams) is woken at once. The pause must stay below the gap
// between one stream's events, or one read brings two of them with one
// stamp: a stream that sees that (two chunks with tokens, one stamp)
// tells the reactor (noteMerge). A server that falls behind sends two
// events back to back now and then, which one read brings whether the
// reactor paused or not (a few in 65,536 events on a loaded 2-core
// machine), and whose true gap is near nothing anyway; the reactor stops
// pausing for good once merges are more than mergeShare of its events
// (and at least mergeMin), as when the events of a stream come closer
// than batchPause.
const (
	batchPause = 2 * time.Millisecond
	batchMin   = 8
	mergeShare = 0.01
	mergeMin   = 8
)

// rawConn is a connection's socket once it has left Go's poller: a
// non-blocking descriptor that only the goroutine holding the connection
// reads and writes, and the reactor's wake-ups for it.
type rawConn struct {
	fd int
	re *reactor
	// wake holds the reactor's word that the socket may have data (or
	// room, or an error) since the last read; or the request's end.
	wake chan struct{}
	// drained: the last read was short, so the socket was empty: the
	// next read waits for a wake first.
	drained    bool
	registered bool
	cancelled  atomic.Bool // the request's context ended
	// hup: the reactor saw the peer's end or an error. A short read no
	// longer says the socket is empty: the end came with the data, and
	// no new event will follow it, so reads no longer wait.
	hup atomic.Bool
	oob [rxstamp.OOBLen]byte

	// While the reactor follows the body (follow): pushed tells reads
	// to return errWouldBlock rather than wait; budget is the reads
	// left to the step, more that it stopped with data perhaps left.
	// pushed is the connection's goroutine's, set before the reactor
	// runs a step and cleared after the last; budget and more are the
	// reactor's. ended says the last step is done.
	pushed bool
	budget int
	more   bool
	ended  chan struct{}
	// pushing and step are the reactor's record of it, under re.mu.
	pushing bool
	step    func() bool
}

// stepReads bounds the reads of one step: a stream whose data never
// runs out must not keep the reactor from the others. A step that used
// them all is run again after the next wait.
const stepReads = 16

// yieldEvery: the loop yields its processor this often. It sleeps and
// waits in system calls, never parking, so without it the runtime's
// monitor finds it running on one time slice for 10 ms, takes its
// processor from it in a system call, and wakes every 20 µs for a while
// after.
const yieldEvery = 5 * time.Millisecond

// rawOf takes nc's socket out of Go's poller (a duplicate descriptor
// outlives nc's close), with the kernel's receive stamps asked for; nil
// when it cannot, and nc stays as it is.
func (c *h1Client) rawOf(nc net.Conn) *rawConn {
	tc, ok := nc.(*net.TCPConn)
	if !ok {
		return nil
	}
	sc, err := tc.SyscallConn()
	if err != nil {
		return nil
	}
	rxstamp.Enable(sc)
	fd, derr := -1, error(nil)
	if err := sc.Control(func(s uintptr) { fd, derr = unix.FcntlInt(s, unix.F_DUPFD_CLOEXEC, 0) }); err != nil || derr != nil {
		return nil
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return nil
	}
	nc.Close()
	return &rawConn{fd: fd, re: &c.re, wake: make(chan struct{}, 1), ended: make(chan struct{}, 1)}
}

// watch registers the socket with the reactor for a request and makes
// ctx's end interrupt its reads and writes; the returned stop ends that,
// false when ctx ended first.
func (rc *rawConn) watch(ctx context.Context) (func() bool, error) {
	rc.drained = false
	if err := rc.re.add(rc); err != nil {
		return nil, err
	}
	rc.registered = true
	return context.AfterFunc(ctx, func() {
		rc.cancelled.Store(true)
		rc.re.interrupt(rc)
	}), nil
}

// unwatch takes the socket off the reactor.
func (rc *rawConn) unwatch() {
	if rc.registered {
		rc.re.remove(rc)
		rc.registered = false
	}
}

func (rc *rawConn) poke() {
	select {
	case rc.wake <- struct{}{}:
	default:
	}
}

// wait blocks until the reactor's word or the request's end.
func (rc *rawConn) wait() error {
	if !rc.registered {
		return os.ErrDeadlineExceeded // not in a request: nothing will wake it
	}
	<-rc.wake
	if rc.cancelled.Load() {
		return os.ErrDeadlineExceeded
	}
	return nil
}

// read reads once into p, stamped; io.EOF at the stream's end.
func (rc *rawConn) read(p []byte) (int, time.Time, error) {
	for {
		if rc.cancelled.Load() {
			return 0, time.Time{}, os.ErrDeadlineExceeded
		}
		if rc.drained && !rc.hup.Load() {
			if rc.pushed {
				return 0, time.Time{}, errWouldBlock // the reactor runs the next step
			}
			if err := rc.wait(); err != nil {
				return 0, time.Time{}, err
			}
			rc.drained = false
		}
		if rc.pushed {
			if rc.budget == 0 {
				rc.more = true
				return 0, time.Time{}, errWouldBlock
			}
			rc.budget--
		}
		n, at, err := rxstamp.Recv(rc.fd, p, rc.oob[:])
		switch {
		case err == unix.EAGAIN:
			rc.drained = true
			continue
		case err != nil:
			return 0, time.Time{}, os.NewSyscallError("recvmsg", err)
		case n == 0 && len(p) > 0:
			return 0, time.Time{}, io.EOF
		}
		raceAcquireIO()
		rc.drained = n < len(p)
		return n, at, nil
	}
}

// write writes all of bufs.
func (rc *rawConn) write(bufs [][]byte) error {
	for bufs = iovec.Advance(bufs, 0); len(bufs) > 0; {
		if rc.cancelled.Load() {
			return os.ErrDeadlineExceeded
		}
		n, err := unix.Writev(rc.fd, bufs)
		switch {
		case err == unix.EAGAIN:
			if err := rc.wait(); err != nil {
				return err
			}
			continue
		case err == unix.EINTR:
			continue
		case err != nil:
			return os.NewSyscallError("writev", err)
		}
		bufs = iovec.Advance(bufs, n)
	}
	return nil
}

// follow has the reactor read the rest of the response: step runs on the
// reactor's goroutine whenever the socket may have data, or the request
// ends, until it returns true; follow returns then. The caller's
// goroutine sleeps meanwhile, and touches nothing step does.
func (rc *rawConn) follow(step func() bool) {
	// An edge may have come while the head was read: the first step
	// reads once whatever the last read said (runStep).
	rc.pushed = true
	rc.re.schedule(rc, step)
	<-rc.ended
	rc.pushed = false
}

// noteMerge passes a stream's word of two chunks in one read on.
func (rc *rawConn) noteMerge() { rc.re.noteMerge() }

func (rc *rawConn) close() {
	rc.unwatch()
	unix.Close(rc.fd)
}

// reactor is a client's epoll set of the sockets that carry a request.
// Its goroutine runs while one does, and ends with the last.
type reactor struct {
	mu    sync.Mutex
	ep    int // the epoll set; valid while running
	efd   int // an eventfd that wakes the loop to see whether it should end
	run   bool
	conns map[int32]*rawConn
	// merges counts the streams' reads that brought two chunks
	// (noteMerge), events the events the loop has taken; once merges
	// pass mergeShare of events the loop sets merged, for good, and no
	// longer pauses.
	merges atomic.Int64
	events int64
	merged bool
	// pending are the followed sockets to step without a new event: a
	// follow that begins, a request that ends, a step that stopped at
	// its budget.
	pending []*rawConn
}

// schedule starts following rc with step (rawConn.follow).
func (r *reactor) schedule(rc *rawConn, step func() bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rc.pushing, rc.step = true, step
	r.pending = append(r.pending, rc)
	r.kick()
}

// interrupt passes the end of rc's request on: to the step of a followed
// socket, or to the goroutine waiting on it.
func (r *reactor) interrupt(rc *rawConn) {
	r.mu.Lock()
	pushing := rc.pushing
	if pushing {
		r.pending = append(r.pending, rc)
		r.kick()
	}
	r.mu.Unlock()
	if !pushing {
		rc.poke()
	}
}

// kick wakes the loop from its wait; r.mu is held, the loop running.
func (r *reactor) kick() {
	var one [8]byte
	one[0] = 1
	_, _ = unix.Write(r.efd, one[:])
}

// ready is what the loop does for a socket that may have data: a
// followed one is stepped (added to run), another's goroutine woken;
// r.mu is held.
func (r *reactor) ready(run []*rawConn, rc *rawConn) []*rawConn {
	if rc.pushing {
		return append(run, rc)
	}
	rc.poke()
	return run
}

// runStep runs one step of a followed socket (once more after its
// budget if it used it all), and at the last tells its goroutine. A
// socket listed twice in one round, or no longer followed, is skipped.
func (r *reactor) runStep(rc *rawConn) {
	r.mu.Lock()
	step := rc.step
	r.mu.Unlock()
	if step == nil {
		return
	}
	// The step's first read asks the socket: the wake-up that runs it
	// says data may have come, as a stream's goroutine takes its wake.
	rc.budget, rc.more, rc.drained = stepReads, false, false
	if !step() {
		if rc.more {
			r.mu.Lock()
			r.pending = append(r.pending, rc)
			r.mu.Unlock()
		}
		return
	}
	r.mu.Lock()
	rc.pushing, rc.step = false, nil
	r.mu.Unlock()
	rc.ended <- struct{}{}
}

// noteMerge says a read brought two chunks with tokens of one stream.
func (r *reactor) noteMerge() { r.merges.Add(1) }

// pause is the sleep after a wait that returned n events of at most
// most, since after the wait before it: none when more may be waiting,
// when events come too slowly to gather batchMin in a pause, or once
// the streams' merges have passed their share of the events.
func (r *reactor) pause(n, most int, since time.Duration) time.Duration {
	busy := n >= batchMin || time.Duration(n)*batchPause >= batchMin*since
	r.events += int64(n)
	if m := r.merges.Load(); !r.merged && m >= mergeMin && float64(m) > mergeShare*float64(r.events) {
		r.merged = true
	}
	if n == 0 || !busy || n == most || r.merged {
		return 0
	}
	return batchPause
}

func (r *reactor) add(rc *rawConn) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.run {
		if err := r.start(); err != nil {
			return err
		}
	}
	ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLOUT | unix.EPOLLRDHUP | unix.EPOLLET, Fd: int32(rc.fd)}
	if err := unix.EpollCtl(r.ep, unix.EPOLL_CTL_ADD, rc.fd, &ev); err != nil {
		r.stopIfIdle()
		return os.NewSyscallError("epoll_ctl", err)
	}
	r.conns[int32(rc.fd)] = rc
	return nil
}

func (r *reactor) remove(rc *rawConn) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.conns[int32(rc.fd)] != rc {
		return
	}
	delete(r.conns, int32(rc.fd))
	_ = unix.EpollCtl(r.ep, unix.EPOLL_CTL_DEL, rc.fd, nil)
	r.stopIfIdle()
}

// start opens the epoll set and starts the loop; r.mu is held.
func (r *reactor) start() error {
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return os.NewSyscallError("epoll_create1", err)
	}
	efd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		unix.Close(ep)
		return os.NewSyscallError("eventfd", err)
	}
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(efd)}
	if err := unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, efd, &ev); err != nil {
		unix.Close(ep)
		unix.Close(efd)
		return os.NewSyscallError("epoll_ctl", err)
	}
	r.ep, r.efd, r.run = ep, efd, true
	if r.conns == nil {
		r.conns = map[int32]*rawConn{}
	}
	go r.loop(ep, efd)
	return nil
}

// stopIfIdle wakes the loop to end when no socket is left; r.mu is held.
func (r *reactor) stopIfIdle() {
	if len(r.conns) == 0 {
		r.kick()
	}
}

func (r *reactor) loop(ep, efd int) {
	evs := make([]unix.EpollEvent, 512)
	var run []*rawConn
	last := time.Now()
	yielded := last
	for {
		r.mu.Lock()
		wait := -1
		if len(r.pending) > 0 {
			wait = 0 // steps to run: look, do not sleep
		}
		r.mu.Unlock()
		n, err := unix.EpollWait(ep, evs, wait)
		now := time.Now()
		since := now.Sub(last)
		last = now
		if now.Sub(yielded) >= yieldEvery {
			runtime.Gosched()
			yielded = now
		}
		if err != nil && err != unix.EINTR {
			// Cannot happen with a valid set and buffer; were it to,
			// wake every stream, whose reads then find out for
			// themselves, and try again.
			n = 0
			r.mu.Lock()
			for _, rc := range r.conns {
				run = r.ready(run, rc)
			}
			r.mu.Unlock()
			time.Sleep(batchPause)
		}
		r.mu.Lock()
		run = append(run, r.pending...)
		clear(r.pending)
		r.pending = r.pending[:0]
		for _, ev := range evs[:max(n, 0)] {
			if ev.Fd == int32(efd) {
				var b [8]byte
				_, _ = unix.Read(efd, b[:])
				continue
			}
			if rc := r.conns[ev.Fd]; rc != nil {
				if ev.Events&(unix.EPOLLRDHUP|unix.EPOLLHUP|unix.EPOLLERR) != 0 {
					rc.hup.Store(true)
				}
				run = r.ready(run, rc)
			}
		}
		if len(r.conns) == 0 {
			unix.Close(ep)
			unix.Close(efd)
			r.run = false
			r.mu.Unlock()
			return
		}
		r.mu.Unlock()
		for _, rc := range run {
			r.runStep(rc)
		}
		clear(run)
		run = run[:0]
		if p := r.pause(n, len(evs), since); p > 0 {
			sleepThread(p)
		}
	}
}

// sleepThread sleeps d in the kernel, the loop's thread keeping its
// processor as in any system call (the runtime hands it on when other
// goroutines wait for it). A time.Sleep parks the goroutine instead, and
// its thread goes looking for work, sleeps in the runtime's poller and
// is woken by the timer: several system calls and switches per pause,
// 5 % of the client's CPU at 256 streams (futex and epoll_wait calls
// 3.2k and 6.4k a run -> 1.6k and 1.2k).
func sleepThread(d time.Duration) {
	ts := unix.NsecToTimespec(int64(d))
	for unix.Nanosleep(&ts, &ts) == unix.EINTR {
	}
}
