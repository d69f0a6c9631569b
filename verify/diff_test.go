package verify

import (
	"strings"
	"testing"

	"github.com/sglaunch/sglaunch/plan"
)

func TestDiff(t *testing.T) {
	a := SideOf(expected())
	bExp := expected()
	bExp.Argv = append(serverArgv("--port", "31000"), "--api-key", "sk-1")
	bExp.Env = map[string]string{"NCCL_ALGO": "Tree", "NCCL_DEBUG": "INFO"}
	b := SideOf(bExp)
	rows := plan.Diff(a, b)
	var got []string
	for _, r := range rows {
		got = append(got, r.Group+" "+r.Setting+" "+r.A+"|"+r.B)
	}
	want := []string{
		"perf-relevant NCCL_ALGO Ring|Tree",
		"perf-relevant NCCL_DEBUG |INFO",
		"perf-relevant NCCL_PROTO LL|",
		"perf-neutral --api-key |<redacted>",
		"perf-neutral --port |31000",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !PerfDiffers(rows) {
		t.Error("PerfDiffers = false")
	}
	if rows := plan.Diff(a, a); len(rows) != 0 {
		t.Errorf("a side differs from itself: %v", rows)
	}
}
