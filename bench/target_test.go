package bench

import (
	"strings"
	"testing"

	"github.com/sglaunch/sglaunch/internal/inputerr"
	"github.com/sglaunch/sglaunch/plan"
)

// TestCheckLocal: bench launches on this host only; a multi-node plan is
// an input error that says how to measure the group instead.
func TestCheckLocal(t *testing.T) {
	tests := []struct {
		nodes   int
		wantErr string
	}{
		{0, ""},
		{1, ""},
		{2, "profile big spans 2 nodes (multinode.nodes) and bench starts a server on this host only; serve the group on every node (sglaunch slurm, sglaunch lws) and measure it here with: sglaunch bench --profile big --url http://RANK0:PORT"},
	}
	for _, tt := range tests {
		p := &plan.Plan{Profile: "big"}
		p.MultiNode.Nodes = tt.nodes
		err := CheckLocal(p)
		if tt.wantErr == "" {
			if err != nil {
				t.Errorf("%d nodes: %v", tt.nodes, err)
			}
			continue
		}
		if err == nil || !inputerr.Is(err) || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("%d nodes: got %v, want the input error %q", tt.nodes, err, tt.wantErr)
		}
	}
}
