package benchperf

import (
	"bytes"
	"fmt"
	"net"
	"runtime"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// BenchmarkReadFloor is what reading the CPU case's streams costs with no
// client around it: 256 streams of 128 tokens against the stub server,
// two requests per connection, each read stamped by the kernel
// (recvmsg with SO_TIMESTAMPNS), events found and nothing else done with
// them. Three ways, in turns in each iteration:
//
//   - goroutines: a goroutine per stream reading through Go's poller, as
//     loadgen does (a read that returns the event, one that finds nothing
//     and parks);
//   - epoll: one locked thread on raw sockets outside Go's poller, an
//     edge-triggered epoll set, a stream read until a short read;
//   - epoll-1ms: the same, sleeping 1 ms before each wait, so that one
//     wait returns the events of many streams. The kernel's stamps keep
//     each event's time: a stream's events are 10 ms apart, so one read
//     of a stream still brings one event.
//
// It bounds what a rewrite of loadgen's reading side could take off its
// CPU per token (cpu-us/token in BenchmarkClientScale):
//
//	go test ./test/perf/bench -run '^$' -bench ReadFloor -benchtime 3x
func BenchmarkReadFloor(b *testing.B) {
	url := stubServer(b, cpuCase.ttft, cpuCase.itl)
	addr, err := net.ResolveTCPAddr("tcp", url[len("http://"):])
	if err != nil {
		b.Fatal(err)
	}
	body := fmt.Sprintf(`{"input_ids":[1,2,3],"sampling_params":{"max_new_tokens":%d,"ignore_eos":true},"stream":true}`, cpuCase.out)
	req := []byte(fmt.Sprintf("POST /generate HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", addr, len(body), body))
	tokens := float64(cpuCase.streams * cpuCase.rounds * cpuCase.out)
	var gor, ep, bat []float64
	for i := 0; b.Loop(); i++ {
		runs := []func(){
			func() { gor = append(gor, cpuOf(func() { floorGoroutines(b, addr, req) }).Seconds()/tokens*1e6) },
			func() { ep = append(ep, cpuOf(func() { floorEpoll(b, addr, req, 0) }).Seconds()/tokens*1e6) },
			func() {
				bat = append(bat, cpuOf(func() { floorEpoll(b, addr, req, time.Millisecond) }).Seconds()/tokens*1e6)
			},
		}
		for j := range runs {
			runs[(i+j)%len(runs)]()
		}
	}
	b.ReportMetric(median(gor), "goroutines-us/token")
	b.ReportMetric(median(ep), "epoll-us/token")
	b.ReportMetric(median(bat), "epoll-1ms-us/token")
	b.ReportMetric(median(ep)/median(gor), "epoll/goroutines")
	b.ReportMetric(0, "ns/op")
}

// cpuOf is the process's CPU (user + system) while f runs.
func cpuOf(f func()) time.Duration {
	var r0, r1 syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &r0)
	f()
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &r1)
	return time.Duration(r1.Utime.Nano()-r0.Utime.Nano()) + time.Duration(r1.Stime.Nano()-r0.Stime.Nano())
}

// doneWatch finds "[DONE]" in a stream's reads, across two of them.
type doneWatch struct{ tail []byte }

func (d *doneWatch) seen(p []byte) bool {
	d.tail = append(d.tail, p...)
	found := bytes.Contains(d.tail, []byte("[DONE]"))
	if len(d.tail) > 8 {
		d.tail = append(d.tail[:0], d.tail[len(d.tail)-8:]...)
	}
	if found {
		d.tail = d.tail[:0]
	}
	return found
}

func floorGoroutines(b *testing.B, addr *net.TCPAddr, req []byte) {
	errs := make(chan error, cpuCase.streams)
	for range cpuCase.streams {
		go func() {
			errs <- func() error {
				nc, err := net.DialTCP("tcp", nil, addr)
				if err != nil {
					return err
				}
				defer nc.Close()
				rc, err := nc.SyscallConn()
				if err != nil {
					return err
				}
				_ = rc.Control(func(fd uintptr) { _ = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1) })
				buf, oob := make([]byte, 1024), make([]byte, 64)
				var dw doneWatch
				for range cpuCase.rounds {
					if _, err := nc.Write(req); err != nil {
						return err
					}
					for {
						var n int
						var rerr error
						if err := rc.Read(func(fd uintptr) bool {
							n, _, _, _, rerr = unix.Recvmsg(int(fd), buf, oob, 0)
							return rerr != unix.EAGAIN
						}); err != nil {
							return err
						}
						if rerr != nil || n == 0 {
							return fmt.Errorf("read: %v (%d bytes)", rerr, n)
						}
						if dw.seen(buf[:n]) {
							break
						}
					}
				}
				return nil
			}()
		}()
	}
	for range cpuCase.streams {
		if err := <-errs; err != nil {
			b.Fatalf("goroutines: %v", err)
		}
	}
}

func floorEpoll(b *testing.B, addr *net.TCPAddr, req []byte, pause time.Duration) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		b.Fatal(err)
	}
	defer unix.Close(ep)
	type conn struct {
		fd     int
		dw     doneWatch
		rounds int
	}
	conns := map[int32]*conn{}
	defer func() {
		for _, c := range conns {
			_ = unix.Close(c.fd)
		}
	}()
	sa := &unix.SockaddrInet4{Port: addr.Port}
	copy(sa.Addr[:], addr.IP.To4())
	for range cpuCase.streams {
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			b.Fatal(err)
		}
		conns[int32(fd)] = &conn{fd: fd}
		if err := unix.Connect(fd, sa); err != nil {
			b.Fatal(err)
		}
		_ = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1)
		if _, err := unix.Write(fd, req); err != nil {
			b.Fatal(err)
		}
		if err := unix.SetNonblock(fd, true); err != nil {
			b.Fatal(err)
		}
		ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLRDHUP | unix.EPOLLET, Fd: int32(fd)}
		if err := unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
			b.Fatal(err)
		}
	}
	evs := make([]unix.EpollEvent, 256)
	buf, oob := make([]byte, 1024), make([]byte, 64)
	deadline := time.Now().Add(time.Minute)
	for live := cpuCase.streams; live > 0; {
		if time.Now().After(deadline) {
			b.Fatalf("epoll: %d streams unfinished after a minute", live)
		}
		if pause > 0 {
			ts := unix.NsecToTimespec(int64(pause))
			_ = unix.Nanosleep(&ts, nil)
		}
		n, err := unix.EpollWait(ep, evs, 1000)
		if err != nil && err != unix.EINTR {
			b.Fatal(err)
		}
		for _, ev := range evs[:max(n, 0)] {
			c := conns[ev.Fd]
			for {
				k, _, _, _, err := unix.Recvmsg(c.fd, buf, oob, 0)
				if err == unix.EAGAIN {
					break
				}
				if err != nil || k == 0 {
					b.Fatalf("epoll: read: %v (%d bytes)", err, k)
				}
				if c.dw.seen(buf[:k]) {
					c.rounds++
					if c.rounds < cpuCase.rounds {
						if _, err := unix.Write(c.fd, req); err != nil {
							b.Fatal(err)
						}
					} else {
						live--
					}
				}
				if k < len(buf) {
					break // a short read: the queue was empty; the next data is a new edge
				}
			}
		}
	}
}
