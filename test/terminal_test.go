package test

import (
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/internal/proc"
	"github.com/sglaunch/sglaunch/internal/testkit"
)

// TestServeTerminal: run in a terminal (script(1) gives sglaunch one),
// the server runs under its own pseudo-terminal, so its progress bars are
// redrawn in place as in a direct launch, and Ctrl-C stops it.
func TestServeTerminal(t *testing.T) {
	t.Parallel()
	scriptBin := needTool(t, "script", "bsdutils")
	e := newEnv(t)
	simProfile(t, e, "tty", map[string]string{"SGLANG_SIM_LOAD_SECONDS": "1"}, "")
	cmd := exec.Command(scriptBin, "-qefc", sglaunchBin+" serve --profile tty", "/dev/null")
	cmd.Env = e.environ()
	cmd.Dir = e.Dir
	out := &testkit.SyncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
	})
	testkit.WaitFor(t, waitTimeout, "sglaunch: healthy", func() bool { return strings.Contains(out.String(), "sglaunch: healthy after ") })
	sglaunch := 0
	pids, _ := proc.Descendants(cmd.Process.Pid)
	for _, pid := range pids {
		if st, err := proc.ReadStat(pid); err == nil && st.Comm == "sglaunch" {
			sglaunch = pid
		}
	}
	if sglaunch == 0 {
		t.Fatalf("no sglaunch among %v", pids)
	}
	server, _ := proc.Descendants(sglaunch)
	_ = syscall.Kill(sglaunch, syscall.SIGINT) // Ctrl-C
	select {
	case <-done:
	case <-time.After(commandTimeout):
		t.Fatalf("sglaunch still running %v after Ctrl-C:\n%s", commandTimeout, out)
	}
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("exit status: got %d, want 0 (uvicorn's graceful Ctrl-C)\n%s", code, out)
	}
	text := out.String()
	if !strings.Contains(text, "\rLoading safetensors checkpoint shards:  25% Completed") {
		t.Errorf("no progress bar redrawn in place; the server did not get a terminal:\n%q", text)
	}
	if !strings.Contains(text, "sglaunch: stopped on SIGINT") {
		t.Errorf("no stop line:\n%s", text)
	}
	allGone(t, server)
}
