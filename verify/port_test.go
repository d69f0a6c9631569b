package verify

import (
	"errors"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// TestVerifyObservesAnyServerOnPort pins issue 12, defect 1 for verify:
// the server a runtime state names was trusted to be what answers on
// its port, so verify compared another process's /server_info with the
// plan. The port must be held by the located server's tree.
func TestVerifyObservesAnyServerOnPort(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	url := "http://" + l.Addr().String()

	// The test process listens: as the located server it passes.
	if err := CheckPort(&Located{ServerPID: os.Getpid(), URL: url, How: "test"}); err != nil {
		t.Errorf("own listener: %v", err)
	}
	// Another process as the located server: the port is not its.
	other := exec.Command("sleep", "30")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = other.Process.Kill(); _ = other.Wait() }()
	err = CheckPort(&Located{ServerPID: other.Process.Pid, URL: url, How: "runtime state"})
	if !errors.Is(err, ErrWrongServer) || !strings.Contains(err.Error(), "held by pid "+strconv.Itoa(os.Getpid())) {
		t.Errorf("got %v, want ErrWrongServer naming pid %d", err, os.Getpid())
	}
	// A remote address is not checked.
	if err := CheckPort(&Located{ServerPID: other.Process.Pid, URL: "http://192.0.2.1:1"}); err != nil {
		t.Errorf("remote: %v", err)
	}
}
