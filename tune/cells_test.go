package tune

import (
	"bytes"
	"html"
	"strings"
	"testing"
)

// TestShowAndReportCells pins that show's table and report's carry the
// same cells for a point: the objective, its interval and rounds, the
// verdict against the baseline and the violated constraints.
func TestShowAndReportCells(t *testing.T) {
	rec := &Record{
		ID: "t1", Status: "done", dir: "d",
		Space: Space{Objective: Objective{Workload: "w", Metric: "median_itl_ms", Direction: -1}},
		Points: []*Point{
			{N: 0, Status: PointOK, Objective: &Estimate{Mean: 10, Lo: 9, Hi: 11, N: 3}},
			{N: 1, Status: PointOK, Sets: []string{"env.X=a"}, Raced: "dropped after 2 rounds",
				Objective:  &Estimate{Mean: 8.25, Lo: 7.5, Hi: 9, N: 2},
				Violates:   []string{"p99_ttft_ms <= 500"},
				VsBaseline: &Delta{Pct: -17.5, LoPct: -25, HiPct: -10, HasInterval: true, Verdict: VerdictBetter}},
			{N: 2, Status: PointFailed, Sets: []string{"env.X=b"}, Reason: "crashed"},
		},
	}
	tests := []struct {
		name string
		p    *Point
		want cells
	}{
		{"measured", rec.Points[1], cells{obj: "8.25", interval: "[7.5, 9]", rounds: "2",
			vs: "-17.5% [-25.0%, -10.0%] better", status: "ok (violates p99_ttft_ms <= 500)"}},
		{"failed", rec.Points[2], cells{obj: "-", interval: "-", rounds: "-", vs: "-", status: PointFailed}},
	}
	var show, report bytes.Buffer
	if err := WriteShow(&show, rec); err != nil {
		t.Fatal(err)
	}
	if err := WriteReport(&report, rec); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := pointCells(tt.p); got != tt.want {
				t.Fatalf("pointCells = %+v, want %+v", got, tt.want)
			}
			for _, cell := range []string{tt.want.obj, tt.want.interval, tt.want.vs, tt.want.status} {
				if !strings.Contains(show.String(), cell) {
					t.Errorf("show lacks %q:\n%s", cell, show.String())
				}
				if !strings.Contains(report.String(), html.EscapeString(cell)) {
					t.Errorf("report lacks %q", cell)
				}
			}
		})
	}
	if !strings.Contains(report.String(), "(violates p99_ttft_ms &lt;= 500); dropped after 2 rounds") {
		t.Errorf("report's status lacks the racing note:\n%s", report.String())
	}
}
