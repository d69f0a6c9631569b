package preflight

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"time"
)

// procResult is what a finished child left behind.
type procResult struct {
	stdout, stderr []byte
	err            error // nil, *exec.ExitError, a start error or a timeout
}

// errTimeout marks a child killed because it ran past its time.
var errTimeout = errors.New("timed out")

// waitDelay bounds how long Wait waits for pipes a grandchild holds open
// after the child itself is gone.
const waitDelay = 2 * time.Second

// maxOutput bounds what a probe's output may hold in memory: SGLang's
// --help is about 100 KB; a child that prints without end must not
// take sglaunch's memory with it.
const maxOutput = 4 << 20

// cappedBuffer keeps the first maxOutput bytes written to it and drops
// the rest, still accepting them so that the child never blocks.
type cappedBuffer struct {
	b         bytes.Buffer
	truncated bool
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	if room := maxOutput - c.b.Len(); room < len(p) {
		c.truncated = true
		c.b.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return c.b.Write(p)
}

// runProc runs argv to completion within timeout and returns its output.
// The child gets its own process group, which is killed when ctx ends or
// time runs out, and a parent-death signal, so it never outlives
// sglaunch.
func runProc(ctx context.Context, argv, env []string, dir string, timeout time.Duration) procResult {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	done := make(chan procResult, 1)
	go func() {
		// Pdeathsig fires when the thread that forked the child exits, so
		// the thread stays locked until Wait returns (golang/go#27505).
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		var stdout, stderr cappedBuffer
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		cmd.Env, cmd.Dir = env, dir
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
		cmd.WaitDelay = waitDelay
		err := cmd.Run()
		if err != nil && ctx.Err() == context.DeadlineExceeded {
			err = fmt.Errorf("%w after %v; killed", errTimeout, timeout)
		} else if err != nil && ctx.Err() != nil {
			err = ctx.Err()
		}
		if err == nil && stdout.truncated {
			err = fmt.Errorf("printed more than %d MiB; output cut", maxOutput>>20)
		}
		done <- procResult{stdout: stdout.b.Bytes(), stderr: stderr.b.Bytes(), err: err}
	}()
	return <-done
}

// tail returns the last n lines of b, trimmed, joined by " | ".
func tail(b []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	for i := range lines {
		lines[i] = strings.TrimSpace(lines[i])
	}
	return strings.Join(lines, " | ")
}
