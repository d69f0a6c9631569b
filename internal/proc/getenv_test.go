package proc

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/internal/testkit"
)

func TestGetenv(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	cmd.Env = []string{"A=1", "ID=first", "ID=last", "EMPTY="}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	testkit.WaitExeced(t, cmd.Process.Pid)
	tests := []struct {
		name, want string
		ok         bool
	}{
		{"A", "1", true},
		{"ID", "last", true},
		{"EMPTY", "", true},
		{"MISSING", "", false},
		{"I", "", false},
	}
	for _, tt := range tests {
		got, ok := Getenv(cmd.Process.Pid, tt.name)
		if got != tt.want || ok != tt.ok {
			t.Errorf("Getenv(%q) = %q, %v; want %q, %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
	if _, ok := Getenv(os.Getpid()+1<<22, "A"); ok {
		t.Error("Getenv of a pid that does not exist found a value")
	}
}

// TestIdentitySurvivesExec: the runtime state recorded the executable at
// fork time (/usr/bin/env or bash for a pyenv-style shim), so once the
// shim exec'd python the identity check failed and verify called a
// running server "gone". The identity is now the pid, its start time
// and the boot: exec changes none of them.
func TestIdentitySurvivesExec(t *testing.T) {
	dir := t.TempDir()
	ready := dir + "/ready"
	cmd := exec.Command("bash", "-c", `id=$$; touch "$1"; exec sleep 30`, "shim", ready)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	id, err := IdentityOf(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if id.BootID == "" {
		t.Error("no boot id recorded")
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		exe, _ := Exe(cmd.Process.Pid)
		if strings.HasSuffix(exe, "/sleep") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the shim never exec'd sleep (exe %q)", exe)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !id.Running() {
		t.Error("after exec the identity no longer names the running process")
	}
	other := id
	other.BootID = "00000000-0000-0000-0000-000000000000"
	if other.Running() {
		t.Error("an identity from another boot names a running process")
	}
	old := Identity{PID: id.PID, StartTime: id.StartTime, Exe: "/usr/bin/bash"}
	if old.Running() {
		t.Error("an old identity (no boot id) whose executable changed still names the process")
	}
}
