package preflight

import (
	"fmt"
	"net"
	"strings"
	"testing"

	"github.com/sglaunch/sglaunch/internal/testkit"
)

func TestMultiNodeChecks(t *testing.T) {
	free := testkit.FreePort(t)
	busy, err := net.Listen("tcp", ":0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	busyPort := busy.Addr().(*net.TCPAddr).Port
	low := func() int { // a free port below any ephemeral range
		for p := 21500; p < 22500; p++ {
			if l, err := net.Listen("tcp", fmt.Sprintf(":%d", p)); err == nil {
				l.Close()
				return p
			}
		}
		t.Fatal("no free port below 22500")
		return 0
	}
	ctl := low()
	tests := []struct {
		name, yaml string
		subject    string
		status     Status
		reason     string
	}{
		{"tp not divisible", "args: {model-path: /m, tp: 3}\nmultinode: {nodes: 2}\n", "multinode.nodes 2", Fail, "not divisible by 2 nodes"},
		{"tp divisible", "args: {model-path: /m, tp: 16}\nmultinode: {nodes: 2}\n", "multinode.nodes 2", Pass, "8 GPU ranks per node"},
		{"not placed", "args: {model-path: /m, tp: 16}\nmultinode: {nodes: 2}\n", "--node-rank", Warn, "not placed"},
		{"rank 1 placed", "args: {model-path: /m, tp: 16, node-rank: 1, dist-init-addr: '10.0.0.1:20000'}\nmultinode: {nodes: 2, orchestrator: static}\n", "--node-rank", Pass, "rank 1 of 2, rank 0 at 10.0.0.1:20000"},
		{"rank 0 ports free", fmt.Sprintf("args: {model-path: /m, tp: 16, node-rank: 0, dist-init-addr: '127.0.0.1:%d'}\nmultinode: {nodes: 2, orchestrator: static, control_port: %d}\n", ctl+1, ctl),
			"rank 0 ports", Pass, "free"},
		{"rank 0 port busy", fmt.Sprintf("args: {model-path: /m, tp: 16, node-rank: 0, dist-init-addr: '127.0.0.1:%d'}\nmultinode: {nodes: 2, orchestrator: static, control_port: %d}\n", ctl+1, busyPort),
			"rank 0 ports", Fail, ""},
		{"rank 0 port ephemeral", fmt.Sprintf("args: {model-path: /m, tp: 16, node-rank: 0, dist-init-addr: '127.0.0.1:%d'}\nmultinode: {nodes: 2, orchestrator: static, control_port: %d}\n", free, ctl),
			"rank 0 ports", Fail, "ephemeral port range"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := only(t, run(t, resolve(t, tt.yaml, ""), Options{Catalog: true}), CheckMultiNode, tt.subject)
			if f.Status != tt.status || !strings.Contains(f.Reason, tt.reason) {
				t.Errorf("got %s %q, want %s with %q", f.Status, f.Reason, tt.status, tt.reason)
			}
		})
	}
}
