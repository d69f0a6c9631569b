package childproc

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"time"
)

// Defaults for a Spec's zero fields.
const (
	// DefaultMaxOutput bounds each captured stream: SGLang's --help is
	// about 100 KB; a child that prints without end must not take
	// sglaunch's memory with it.
	DefaultMaxOutput = 4 << 20
	// DefaultWaitDelay bounds the wait for a child that does not die of
	// SIGKILL at once and for pipes a process outside the group holds.
	DefaultWaitDelay = 2 * time.Second
)

// Spec is one child to run.
type Spec struct {
	Argv []string
	// Env is the child's whole environment; nil gives it sglaunch's own,
	// as os/exec does.
	Env []string
	// Dir is the working directory; empty is sglaunch's own.
	Dir string
	// Stdin feeds the child's standard input; nil is /dev/null.
	Stdin io.Reader
	// Stdout and Stderr receive the streams as they come (a command
	// workload's live output; one writer for both gets one pipe, so its
	// writes never race). A nil one is captured into the Result instead,
	// up to MaxOutput bytes.
	Stdout, Stderr io.Writer
	// Timeout bounds the child's run; zero leaves it to the context.
	Timeout time.Duration
	// MaxOutput caps each captured stream: stdout keeps its first
	// MaxOutput bytes, stderr its last; zero is DefaultMaxOutput.
	MaxOutput int
	// Grace is how long the group has between SIGTERM and SIGKILL when
	// the context ends or Timeout passes; zero kills at once, which is
	// right for a probe that holds nothing worth a clean exit.
	Grace time.Duration
	// WaitDelay bounds, after the child exits or is killed, the wait for
	// it to be reaped and for its pipes to close; zero is
	// DefaultWaitDelay.
	WaitDelay time.Duration
}

// Result is what a child left behind.
type Result struct {
	// Stdout and Stderr are the captured streams (nil for a stream that
	// went to a writer of the Spec).
	Stdout, Stderr []byte
	// Truncated says a captured stream printed more than MaxOutput: the
	// end of stdout, or the start of stderr, was read and dropped.
	Truncated bool
	// ExitCode is the child's status, 128+N for death by signal N (as a
	// shell reports it), or -1 when it never started or could not be
	// reaped within WaitDelay of its kill.
	ExitCode int
	// Err is nil when the child exited 0; an *exec.ExitError when it
	// exited otherwise on its own; ErrTimeout, wrapped, when Timeout
	// killed it; the context's cause when the context ended first; or why
	// it could not start.
	Err error
	// OutputHeld says a process outside the child's group (a daemon that
	// called setsid) still held stdout or stderr WaitDelay after the
	// child ended; whatever it wrote after that is lost.
	OutputHeld bool
}

// Cmd is a started child. One goroutine owns the *exec.Cmd: it starts
// the child and reaps it, from an OS thread locked all the while, since
// the parent-death signal fires when that thread exits (golang/go#27505).
type Cmd struct {
	spec     Spec
	pid      int
	streams  []*stream
	captured []capture // parallel to the Stdout, Stderr fields of Result
	done     chan struct{}
	res      Result
}

// exit is what reaping the child gave.
type exit struct {
	err   error
	state *os.ProcessState
}

// Run runs s to completion and returns what it printed and how it ended.
func Run(ctx context.Context, s Spec) Result {
	c, err := Start(ctx, s)
	if err != nil {
		return Result{ExitCode: -1, Err: err}
	}
	return c.Wait()
}

// Start starts the child and returns once it runs. ctx bounds the
// child's life, as with exec.CommandContext: when it ends, the group is
// stopped (SIGTERM, Grace, SIGKILL) and Wait reports the context's cause.
func Start(ctx context.Context, s Spec) (*Cmd, error) {
	if len(s.Argv) == 0 {
		return nil, errNoCommand
	}
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
	if s.MaxOutput == 0 {
		s.MaxOutput = DefaultMaxOutput
	}
	if s.WaitDelay == 0 {
		s.WaitDelay = DefaultWaitDelay
	}
	c := &Cmd{spec: s, done: make(chan struct{})}
	// exec.Command, not CommandContext: exec's Cancel and WaitDelay act on
	// the leader and on pipes exec owns, and what has to be bounded here
	// is the group and pipes a grandchild holds after the leader is gone.
	cmd := exec.Command(s.Argv[0], s.Argv[1:]...)
	cmd.Env, cmd.Dir, cmd.Stdin = s.Env, s.Dir, s.Stdin
	cmd.SysProcAttr = sysProcAttr()
	// Only a Stdin that is not a file gets an exec-owned pipe; this
	// bounds the wait for its copier once the child has exited.
	cmd.WaitDelay = s.WaitDelay
	if err := c.pipes(cmd); err != nil {
		return nil, err
	}

	var cancel context.CancelFunc = func() {}
	if s.Timeout > 0 {
		ctx, cancel = context.WithTimeoutCause(ctx, s.Timeout, fmt.Errorf("%w after %v; killed", ErrTimeout, s.Timeout))
	}
	started := make(chan error, 1)
	exited := make(chan exit, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		err := cmd.Wait()
		exited <- exit{err, cmd.ProcessState}
	}()
	if err := <-started; err != nil {
		cancel()
		for _, st := range c.streams {
			st.r.Close()
			st.w.Close()
		}
		return nil, err
	}
	c.pid = cmd.Process.Pid
	for _, st := range c.streams {
		// The child holds its own copy; ours would keep the pipe open.
		st.w.Close()
		go st.copy()
	}
	go c.supervise(ctx, cancel, exited)
	return c, nil
}

// pipes gives the child a pipe per stream, or one for a writer that
// takes both.
func (c *Cmd) pipes(cmd *exec.Cmd) error {
	dst := [2]io.Writer{c.spec.Stdout, c.spec.Stderr}
	for i := range dst {
		if dst[i] == nil {
			// stdout's start is the answer; stderr's end says why it failed.
			var b capture = &cappedBuffer{max: c.spec.MaxOutput}
			if i == 1 {
				b = newTailCapture(c.spec.MaxOutput)
			}
			c.captured = append(c.captured, b)
			dst[i] = b
		} else {
			c.captured = append(c.captured, nil)
		}
	}
	out, err := newStream(dst[0])
	if err != nil {
		return err
	}
	c.streams = append(c.streams, out)
	cmd.Stdout, cmd.Stderr = out.w, out.w
	if !sameWriter(c.spec.Stdout, c.spec.Stderr) {
		errs, err := newStream(dst[1])
		if err != nil {
			out.r.Close()
			out.w.Close()
			return err
		}
		c.streams = append(c.streams, errs)
		cmd.Stderr = errs.w
	}
	return nil
}

// Pid is the child's process id, which is also its process group's.
func (c *Cmd) Pid() int { return c.pid }

// Wait returns the Result once the child has exited and its pipes have
// closed, or WaitDelay after it exited or was killed. It takes no
// context: the one given to Start bounds the child, and Wait returns
// within Grace + WaitDelay of that context's end. A Stdout or Stderr
// writer that blocks holds Wait, as with os/exec. Wait may be called more
// than once and from several goroutines.
func (c *Cmd) Wait() Result {
	<-c.done
	return c.res
}

// supervise waits for the child's exit or the context's end, stops the
// group, bounds the wait for the pipes and fills the Result.
func (c *Cmd) supervise(ctx context.Context, cancel context.CancelFunc, exited <-chan exit) {
	defer close(c.done)
	defer cancel()
	var (
		ex      exit
		reaped  bool
		stopErr error
		bound   time.Time
	)
	select {
	case ex = <-exited:
		reaped, bound = true, time.Now().Add(c.spec.WaitDelay)
	case <-ctx.Done():
		stopErr = context.Cause(ctx)
		ex, reaped, bound = c.stop(exited)
	}
	// What the child left in its group goes with it: a daemon that holds
	// the pipes would otherwise hold Wait until WaitDelay.
	killGroup(c.pid, syscall.SIGKILL)
	c.res.OutputHeld = c.drain(bound)

	c.res.ExitCode, c.res.Err = -1, stopErr
	if reaped {
		c.res.ExitCode = exitCode(ex.state)
		if stopErr == nil {
			c.res.Err = ex.err
		}
	}
	for i, b := range c.captured {
		if b == nil {
			continue
		}
		c.res.Truncated = c.res.Truncated || b.cut()
		if i == 0 {
			c.res.Stdout = b.kept()
		} else {
			c.res.Stderr = b.kept()
		}
	}
}

// stop ends the group: SIGTERM and Grace first when there is a grace,
// then SIGKILL. A child that SIGKILL does not reap within WaitDelay (one
// stuck in the kernel, as a hung driver call leaves nvidia-smi) is left to
// its owner goroutine, which reaps it whenever it dies; the returned
// bound is then already past, so the pipes are not waited for either.
func (c *Cmd) stop(exited <-chan exit) (ex exit, reaped bool, bound time.Time) {
	if c.spec.Grace > 0 {
		killGroup(c.pid, syscall.SIGTERM)
		t := time.NewTimer(c.spec.Grace)
		select {
		case ex = <-exited:
			t.Stop()
			return ex, true, time.Now().Add(c.spec.WaitDelay)
		case <-t.C:
		}
	}
	killGroup(c.pid, syscall.SIGKILL)
	bound = time.Now().Add(c.spec.WaitDelay)
	t := time.NewTimer(c.spec.WaitDelay)
	defer t.Stop()
	select {
	case ex = <-exited:
		return ex, true, bound
	case <-t.C:
		return exit{}, false, bound
	}
}

// drain waits until every stream has reached EOF or bound has passed,
// then lets go of the pipes; it says whether something still held one.
func (c *Cmd) drain(bound time.Time) (held bool) {
	t := time.NewTimer(time.Until(bound))
	defer t.Stop()
wait:
	for _, st := range c.streams {
		select {
		case <-st.done:
			continue // a closed pipe wins over a bound that passed meanwhile
		default:
		}
		select {
		case <-st.done:
		case <-t.C:
			held = true
			break wait
		}
	}
	for _, st := range c.streams {
		if held {
			st.cut()
		}
		<-st.done
		st.r.Close()
	}
	return held
}

// killGroup signals the group pid leads. ESRCH (the group is empty) is
// the wanted state; EPERM (a member changed its credentials) leaves
// nothing more to do from here.
func killGroup(pid int, sig syscall.Signal) {
	_ = syscall.Kill(-pid, sig)
}

// exitCode is the status a shell would report: 128+N for signal N.
func exitCode(ps *os.ProcessState) int {
	if ps == nil {
		return -1
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}
