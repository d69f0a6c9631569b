package hostprobe

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/internal/childproc"
)

func python(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("python3")
	if err != nil {
		t.Fatalf("python3 is required: %v", err)
	}
	return p
}

func TestProbeSite(t *testing.T) {
	dir := t.TempDir()
	hooks := filepath.Join(dir, "hooks")
	if err := os.MkdirAll(hooks, 0o755); err != nil {
		t.Fatal(err)
	}
	// sitecustomize is found on sys.path; PYTHONPATH puts the dir there.
	os.WriteFile(filepath.Join(hooks, "sitecustomize.py"), []byte("import os\nos.environ['NCCL_ALGO'] = 'Tree'\nos.environ.setdefault('NCCL_PROTO', 'LL')\nos.environ['UNMANAGED'] = '1'\nos.environ.pop('NCCL_DEBUG', None)\n"), 0o644)
	environ := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "PYTHONPATH=" + hooks, "NCCL_ALGO=Ring", "NCCL_PROTO=Simple", "NCCL_DEBUG=INFO"}
	changes, err := ProbeSite(context.Background(), python(t), environ, dir, []string{"NCCL_"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range changes {
		got = append(got, c.Name+":"+c.Before+"->"+c.After+"@"+filepath.Base(c.File))
	}
	want := "NCCL_ALGO:Ring->Tree@sitecustomize.py NCCL_DEBUG:INFO->@sitecustomize.py"
	if strings.Join(got, " ") != want {
		t.Errorf("got %q, want %q", strings.Join(got, " "), want)
	}
	if len(changes) > 0 && changes[0].Line != 2 {
		t.Errorf("line: got %d, want 2", changes[0].Line)
	}
}

func TestProbeSiteCleanInterpreter(t *testing.T) {
	changes, err := ProbeSite(context.Background(), python(t), []string{"PATH=" + os.Getenv("PATH"), "NCCL_ALGO=Ring"}, t.TempDir(), []string{"NCCL_"})
	if err != nil || len(changes) != 0 {
		t.Errorf("got %v, %v; want no changes", changes, err)
	}
}

func TestProbeSiteBadInterpreter(t *testing.T) {
	_, err := ProbeSite(context.Background(), "/nonexistent/python3", nil, t.TempDir(), nil)
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/python3") {
		t.Errorf("got %v, want an error naming the interpreter", err)
	}
}

// TestProbeSitePth: a .pth line in the user's site-packages runs at every
// start; the probe names the .pth file and its line.
func TestProbeSitePth(t *testing.T) {
	home := t.TempDir()
	environ := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home}
	out, err := exec.Command(python(t), "-c", "import site; print(site.getusersitepackages())").Output()
	if err != nil {
		t.Fatal(err)
	}
	usersite := strings.TrimSpace(string(out))
	usersite = strings.Replace(usersite, os.Getenv("HOME"), home, 1)
	if !strings.HasPrefix(usersite, home) {
		t.Skipf("user site-packages %s is not under HOME", usersite)
	}
	if err := os.MkdirAll(usersite, 0o755); err != nil {
		t.Fatal(err)
	}
	pth := filepath.Join(usersite, "tuning.pth")
	os.WriteFile(pth, []byte("# tuning\nimport os; os.environ['NCCL_P2P_LEVEL'] = 'PIX'\n"), 0o644)
	changes, err := ProbeSite(context.Background(), python(t), environ, home, []string{"NCCL_"})
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) != 1 || changes[0].File != pth || changes[0].Line != 2 || changes[0].After != "PIX" {
		t.Errorf("got %+v, want NCCL_P2P_LEVEL=PIX from %s:2", changes, pth)
	}
}

// Bounds for the site hook tests: generous, for a loaded 2-core machine;
// the bug they pin took 28 s, a minute, or forever.
const (
	hookSlack       = 5 * time.Second
	hookDaemonSleep = 60 // seconds
)

// TestSiteHookDaemonHoldingStdoutBoundedByProbeTimeout: a sitecustomize.py
// that forked a daemon holding stdout blocked `serve` for 28 s although
// the probe's timeout was 20 s (the wait was for the daemon to let go of
// the pipe), and one that never exited blocked it forever. The probe now
// returns within its timeout plus a small bound in each case: at once
// when the daemon stays in the probe's process group (the group is
// killed when python exits), within childproc's WaitDelay when it left
// the group with setsid, and at the timeout when the hook itself hangs.
func TestSiteHookDaemonHoldingStdoutBoundedByProbeTimeout(t *testing.T) {
	daemon := func(pidFile string, setsid bool) string {
		detach := ""
		if setsid {
			detach = "    os.setsid()\n"
		}
		return fmt.Sprintf("import os, time\nos.environ['NCCL_ALGO'] = 'Tree'\nif os.fork() == 0:\n%s    open(%q, 'w').write(str(os.getpid()))\n    time.sleep(%d)\n    os._exit(0)\n", detach, pidFile, hookDaemonSleep)
	}
	tests := []struct {
		name    string
		hook    func(pidFile string) string
		timeout time.Duration
		bound   time.Duration // beyond timeout
		wantErr string
	}{
		{"daemon in the group", func(p string) string { return daemon(p, false) }, 10 * time.Second, hookSlack, ""},
		{"daemon that called setsid", func(p string) string { return daemon(p, true) }, 10 * time.Second, childproc.DefaultWaitDelay + hookSlack, ""},
		{"hook that never returns", func(string) string { return "import time\ntime.sleep(600)\n" }, time.Second, childproc.DefaultWaitDelay + hookSlack, "timed out after 1s; killed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			saved := siteProbeTimeout
			siteProbeTimeout = tt.timeout
			t.Cleanup(func() { siteProbeTimeout = saved })
			dir := t.TempDir()
			hooks, pidFile := filepath.Join(dir, "hooks"), filepath.Join(dir, "daemon.pid")
			if err := os.MkdirAll(hooks, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(hooks, "sitecustomize.py"), []byte(tt.hook(pidFile)), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				if b, err := os.ReadFile(pidFile); err == nil {
					if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
						_ = syscall.Kill(pid, syscall.SIGKILL)
					}
				}
			})
			environ := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "PYTHONPATH=" + hooks, "NCCL_ALGO=Ring"}
			start := time.Now()
			changes, err := ProbeSite(t.Context(), python(t), environ, dir, []string{"NCCL_"})
			took := time.Since(start)
			t.Logf("returned after %v (timeout %v)", took, tt.timeout)
			if took > tt.timeout+tt.bound {
				t.Errorf("took %v, want under %v (the daemon sleeps %d s)", took, tt.timeout+tt.bound, hookDaemonSleep)
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("err: got %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || len(changes) != 1 || changes[0].Name != "NCCL_ALGO" || changes[0].After != "Tree" {
				t.Errorf("got %+v, %v; want NCCL_ALGO=Tree from the hook", changes, err)
			}
		})
	}
}
