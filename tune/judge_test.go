package tune

import (
	"strings"
	"testing"

	"github.com/sglaunch/sglaunch/bench"
	"github.com/sglaunch/sglaunch/loadgen"
)

// point is a measured point with these objective values, one per round,
// and p99_ttft_ms fixed at ttft.
func point(n int, ttft float64, vals ...float64) *Point {
	p := &Point{N: n, Status: PointOK}
	if n > 0 {
		p.Sets = []string{"env.X=" + string(rune('a'+n))}
	}
	for _, v := range vals {
		p.Rounds = append(p.Rounds, map[string]float64{"median_itl_ms": v, "p99_ttft_ms": ttft})
	}
	return p
}

func newTestTuner(points ...*Point) *tuner {
	rec := &Record{Space: Space{
		Objective:   Objective{Workload: "w", Metric: "median_itl_ms", Direction: -1},
		Constraints: []Constraint{{Metric: "p99_ttft_ms", Op: "<=", Value: 500}},
	}, Points: points, dir: "/nonexistent"}
	t := &tuner{rec: rec}
	for _, p := range points {
		t.summarize(p)
	}
	return t
}

func TestJudge(t *testing.T) {
	tests := []struct {
		name   string
		points []*Point
		winner int
		text   string
	}{
		{"beyond noise", []*Point{point(0, 100, 10, 10.1, 9.9), point(1, 100, 9, 9.1, 8.9)}, 1, "winner: point 1"},
		{"within noise", []*Point{point(0, 100, 10, 10.5, 9.5), point(1, 100, 9.9, 10.4, 9.6)}, -1, "no winner beyond noise: the best point, 1"},
		{"baseline best", []*Point{point(0, 100, 9, 9.1, 8.9), point(1, 100, 10, 10.1, 9.9)}, -1, "no winner beyond noise: the baseline has the best"},
		{"too few rounds", []*Point{point(0, 100, 10, 10.1), point(1, 100, 9, 9.1)}, -1, "too few to judge the noise"},
		{"constraint", []*Point{point(0, 100, 10, 10.1, 9.9), point(1, 900, 8, 8.1, 7.9), point(2, 100, 9, 9.1, 8.9)}, 2, "winner: point 2"},
		// The best mean owes it to one wild round: the winner is the
		// best point beyond noise.
		{"noisy best", []*Point{point(0, 100, 10, 10.1, 9.9), point(1, 100, 9, 9.1, 8.9), point(2, 100, 9.9, 2, 10)}, 1, "point 2 (env.X=c) has a better mean but is within noise"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tu := newTestTuner(tt.points...)
			tu.rec.dir, tu.rec.BaseName, tu.rec.Base = t.TempDir(), "b", "b"
			tu.judgeWith(func(p *Point) []string { return p.Sets })
			v := tu.rec.Verdict
			if v.Winner != tt.winner || !strings.Contains(v.Text, tt.text) {
				t.Errorf("got winner %d %q, want %d and %q", v.Winner, v.Text, tt.winner, tt.text)
			}
			if (v.Profile != "") != (tt.winner >= 0) {
				t.Errorf("profile %q with winner %d", v.Profile, v.Winner)
			}
		})
	}
}

func TestKeepRacing(t *testing.T) {
	best := point(1, 100, 9, 9.05, 8.95, 9)
	tu := newTestTuner(point(0, 100, 10, 10.1, 9.9), best)
	rivals := tu.rivals(nil)
	level := func(vals ...float64) bench.LevelRecord {
		var l bench.LevelRecord
		for _, v := range vals {
			l.Rounds = append(l.Rounds, bench.RoundRecord{Metrics: loadgen.Metrics{ITL: loadgen.Dist{Median: v}}})
		}
		return l
	}
	pt := point(2, 100)
	if !tu.keepRacing(pt, rivals, level(9.5), 4) {
		t.Error("one round raced a point out")
	}
	if !tu.keepRacing(pt, rivals, level(9.0, 9.1), 4) {
		t.Error("a point as good as the best was raced out")
	}
	if tu.keepRacing(pt, rivals, level(12, 12.1), 4) || !strings.Contains(pt.Raced, "stopped after 2 of 4 rounds: beyond noise worse than point 1") {
		t.Errorf("a point far worse than the best raced on: %q", pt.Raced)
	}
}
