package verify

import (
	"strings"
	"testing"

	"github.com/sglaunch/sglaunch/plan"
)

// TestFlagSpecsOfDeploymentVersion: verify reads a flag's server_info
// field by the dest the deployment's SGLang version gives it (issue 20,
// version-aware). On 0.5.5 (judged by the 0.5.4.post3 tables)
// --cuda-graph-max-bs is a flag of its own stored in cuda_graph_max_bs;
// the newest tables' dest (cuda_graph_max_bs_decode, where it became a
// deprecated alias) is not in that server's server_info.
func TestFlagSpecsOfDeploymentVersion(t *testing.T) {
	e := Expected{Label: "test plan", Argv: []string{"/usr/bin/python3", "-m", "sglang.launch_server", "--model-path", "/m", "--cuda-graph-max-bs", "8"}, Env: map[string]string{}}
	o := &Observation{Version: "0.5.5", ServerInfo: map[string]any{"model_path": "/m", "cuda_graph_max_bs": float64(8)}, ServerInfoAt: "/server_info", URL: "http://x"}
	r := Compare(e, o)
	var row *plan.Row
	for i := range r.Rows {
		if r.Rows[i].Kind == "flag" && strings.HasPrefix(r.Rows[i].Setting, "--cuda-graph-max-bs") {
			row = &r.Rows[i]
		}
	}
	if row == nil || row.Status != plan.Match || row.Where != "server_info cuda_graph_max_bs" {
		t.Fatalf("--cuda-graph-max-bs: got %+v, want MATCH from server_info cuda_graph_max_bs", row)
	}
	var sb strings.Builder
	if err := r.WriteText(&sb); err != nil || !strings.Contains(sb.String(), "note:     WARN SGLang 0.5.4.post3 tables") {
		t.Errorf("the report does not name the set used, with a WARN:\n%s", sb.String())
	}
}
