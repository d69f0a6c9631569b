package proc

import (
	"os"
	"os/exec"
	"testing"
)

func TestGetenv(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	cmd.Env = []string{"A=1", "ID=first", "ID=last", "EMPTY="}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
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
