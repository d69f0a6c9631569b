package proc

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestParseStat(t *testing.T) {
	tests := []struct {
		in   string
		want Stat
	}{
		{"42 (python3) S 1 42 42 0 -1", Stat{PID: 42, PPID: 1, PGID: 42, SID: 42, State: 'S', Comm: "python3"}},
		{"7 (sglang::sched (x)) R 6 5 4 0", Stat{PID: 7, PPID: 6, PGID: 5, SID: 4, State: 'R', Comm: "sglang::sched (x)"}},
	}
	for _, tt := range tests {
		got, err := parseStat(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("parseStat(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
	}
	if _, err := parseStat("garbage"); err == nil {
		t.Error("parseStat(garbage): want an error")
	}
}

func TestSelf(t *testing.T) {
	pid := os.Getpid()
	argv, err := Cmdline(pid)
	if err != nil || len(argv) == 0 || !strings.HasSuffix(argv[0], ".test") {
		t.Errorf("Cmdline: got %q, %v", argv, err)
	}
	env, err := Environ(pid)
	if err != nil || EnvMap(env)["PATH"] == "" {
		t.Errorf("Environ: no PATH (%v)", err)
	}
	if !Alive(pid) {
		t.Error("Alive(self) = false")
	}
}

func TestDescendantsAndListener(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	if got, err := ListeningPID(port); err != nil || got != os.Getpid() {
		t.Errorf("ListeningPID: got %d, %v; want %d", got, err, os.Getpid())
	}

	cmd := exec.Command("sh", "-c", "sleep 30 & wait")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait() }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ds, _ := Descendants(os.Getpid())
		if slices.Contains(ds, cmd.Process.Pid) && len(ds) >= 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("descendants %v lack the shell %d and its sleep", ds, cmd.Process.Pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestCheckPortOwner: the port's holder is found through its socket
// inode; the holder's tree passes, another process's does not, and the
// error names the holder (issue 12, defect 1).
func TestCheckPortOwner(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	if err := CheckPortOwner(port, os.Getpid()); err != nil {
		t.Errorf("own port: %v", err)
	}
	// Every process descends from pid 1; a child of the test does not
	// hold the test's socket.
	child := exec.Command("sleep", "30")
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = child.Process.Kill(); _ = child.Wait() }()
	err = CheckPortOwner(port, child.Process.Pid)
	var pe *PortError
	if !errors.As(err, &pe) || pe.PID != os.Getpid() || len(pe.Argv) == 0 {
		t.Errorf("got %v, want a PortError naming pid %d and its argv", err, os.Getpid())
	}
	l.Close()
	if err := CheckPortOwner(port, os.Getpid()); !errors.Is(err, ErrNotListening) {
		t.Errorf("closed port: got %v, want ErrNotListening", err)
	}
}

// TestIdentity: a pid with its start time and boot names one process; a
// reused pid (another start time) does not pass, nor does an identity
// of an older sglaunch (no boot id) whose executable differs.
func TestIdentity(t *testing.T) {
	id, err := IdentityOf(os.Getpid())
	if err != nil || id.StartTime == 0 || id.BootID == "" {
		t.Fatalf("IdentityOf(self) = %+v, %v", id, err)
	}
	if !id.Running() {
		t.Error("own identity not running")
	}
	reused := id
	reused.StartTime++
	if reused.Running() {
		t.Error("a different start time passed")
	}
	other := id
	other.BootID, other.Exe = "", "/nonexistent/sglaunch"
	if other.Running() {
		t.Error("a different executable passed")
	}
	if (Identity{PID: 1 << 30}).Running() {
		t.Error("a pid that does not exist passed")
	}
}

// TestListeningDiagMatchesProcNet: sock_diag and /proc/net/tcp agree on
// the listening socket of a port, IPv4 and IPv6.
func TestListeningDiagMatchesProcNet(t *testing.T) {
	for _, network := range []string{"tcp4", "tcp6"} {
		l, err := net.Listen(network, "localhost:0")
		if err != nil {
			t.Logf("%s: %v", network, err)
			continue
		}
		port := l.Addr().(*net.TCPAddr).Port
		diag, err := listeningDiag(port)
		if err != nil {
			t.Fatal(err)
		}
		procNet := map[string]bool{}
		for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
			_ = listeningInodes(f, port, procNet)
		}
		if len(diag) != 1 || len(procNet) != 1 || fmt.Sprint(diag) != fmt.Sprint(procNet) {
			t.Errorf("%s port %d: sock_diag %v, /proc/net %v", network, port, diag, procNet)
		}
		l.Close()
	}
}
