package launcher

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"time"

	"github.com/sglaunch/sglaunch/internal/proc"
	"github.com/sglaunch/sglaunch/plan"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// waitDelay bounds Wait once the server has exited: no copying goroutine
// may keep it waiting on a pipe that a grandchild holds open.
const waitDelay = 2 * time.Second

// process is the server's main process. One goroutine, locked to its OS
// thread, starts it and waits for it.
type process struct {
	cmd      *exec.Cmd
	pid      int
	pty      *os.File      // master side in terminal mode
	exited   chan struct{} // closed once Wait has returned
	state    *os.ProcessState
	exitedAt time.Time
}

// command builds the exec.Cmd for plan: exactly the plan's argv and
// environment (plus the launch id), stdin from /dev/null; with
// ignoreTerm, through a shell that ignores SIGTERM and execs it.
func command(p *plan.Plan, launchID string, ignoreTerm bool) *exec.Cmd {
	cmd := exec.Command(p.Argv[0], p.Argv[1:]...)
	if ignoreTerm {
		cmd = exec.Command(ignoreTermShell, append([]string{"-c", ignoreTermScript}, p.Argv...)...)
	}
	cmd.Env = p.Environ
	if launchID != "" {
		cmd.Env = append(append([]string(nil), p.Environ...), plan.LaunchIDVar+"="+launchID)
	}
	cmd.WaitDelay = waitDelay
	return cmd
}

// The shell that starts a server with SIGTERM ignored: an ignored
// signal stays ignored across exec, and exec keeps the pid.
const (
	ignoreTermShell  = "/bin/sh"
	ignoreTermScript = `trap '' TERM; exec "$0" "$@"`
)

// waitExec waits, briefly, until pid no longer runs the shell of
// IgnoreSIGTERM (it has exec'd the server, whose identity the caller
// records next), or has exited.
func waitExec(pid int, exited <-chan struct{}) {
	sh, err := filepath.EvalSymlinks(ignoreTermShell)
	if err != nil {
		return
	}
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		exe, err := proc.Exe(pid)
		if err != nil || exe != sh {
			return
		}
		select {
		case <-exited:
			return
		case <-time.After(time.Millisecond):
		}
	}
}

// startPiped starts cmd in its own process group with stdout and stderr
// going to the given pipe ends.
func startPiped(cmd *exec.Cmd, stdout, stderr *os.File) (*process, error) {
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Setpgid:   true,
		Pdeathsig: syscall.SIGKILL,
	}
	return startLocked(cmd)
}

// startPTY starts cmd on a new pseudo-terminal. The child becomes a
// session leader with the terminal as its controlling tty (Setsid and
// Setctty), which also makes it its own group leader: Setpgid here would
// make the fork fail with EPERM.
func startPTY(cmd *exec.Cmd, size *os.File) (*process, error) {
	opened, tty, err := pty.Open()
	if err != nil {
		return nil, err
	}
	defer tty.Close()
	master, err := pollable(opened)
	if err != nil {
		return nil, err
	}
	if size != nil {
		_ = inheritSize(size, master) // best effort: not every stdin is a terminal
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Setsid:    true,
		Setctty:   true,
		Ctty:      0, // the child's stdin, the tty
		Pdeathsig: syscall.SIGKILL,
	}
	p, err := startLocked(cmd)
	if err != nil {
		master.Close()
		return nil, err
	}
	p.pty = master
	return p, nil
}

// startLocked starts cmd from a goroutine that stays locked to its OS
// thread until Wait returns. The parent-death signal fires when the
// *thread* that forked the child exits (golang/go#27505), not the
// process; an unlocked goroutine's thread may be retired by the runtime
// at any time and would SIGKILL a healthy server. The goroutine exits
// still locked, so its thread dies only after the server has.
func startLocked(cmd *exec.Cmd) (*process, error) {
	p := &process{cmd: cmd, exited: make(chan struct{})}
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		p.pid = cmd.Process.Pid
		started <- nil
		_ = cmd.Wait() // the status is in ProcessState
		p.state, p.exitedAt = cmd.ProcessState, time.Now()
		close(p.exited)
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return p, nil
}

// signalGroup sends sig to the server's process group (in terminal mode
// the session leader's group, which is the same id).
func (p *process) signalGroup(sig syscall.Signal) error {
	err := syscall.Kill(-p.pid, sig)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

// signalMain sends sig to the server's main process only.
func (p *process) signalMain(sig syscall.Signal) error {
	err := syscall.Kill(p.pid, sig)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

// done reports whether the main process has been waited for.
func (p *process) done() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

// resize makes the pseudo-terminal follow the size of tty.
func (p *process) resize(tty *os.File) {
	if p.pty != nil && tty != nil {
		_ = inheritSize(tty, p.pty)
	}
}

// pollable returns f as a non-blocking, pollable file (closing f): pty.Open
// leaves the master in blocking mode, where Close cannot interrupt a read.
func pollable(f *os.File) (*os.File, error) {
	defer f.Close()
	fd, err := unix.FcntlInt(f.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return os.NewFile(uintptr(fd), f.Name()), nil
}

// withFd runs fn with f's descriptor without File.Fd, which would switch
// f to blocking mode.
func withFd(f *os.File, fn func(fd int)) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	return rc.Control(func(fd uintptr) { fn(int(fd)) })
}

// inheritSize gives the pseudo-terminal the window size of tty.
func inheritSize(tty, master *os.File) error {
	var ws *unix.Winsize
	var err error
	if cerr := withFd(tty, func(fd int) { ws, err = unix.IoctlGetWinsize(fd, unix.TIOCGWINSZ) }); cerr != nil {
		return cerr
	}
	if err != nil {
		return err
	}
	if cerr := withFd(master, func(fd int) { err = unix.IoctlSetWinsize(fd, unix.TIOCSWINSZ, ws) }); cerr != nil {
		return cerr
	}
	return err
}
