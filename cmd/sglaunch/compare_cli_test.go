package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/sglaunch/sglaunch/bench"
	"github.com/sglaunch/sglaunch/bench/benchtest"
)

// roundsFixture saves two records of one c=8 level, with the README's
// IDs, whose rounds measured the output throughputs and median TTFTs
// given, and returns the state directory that holds them.
func roundsFixture(t *testing.T, tputA, ttftA, tputB, ttftB []float64) string {
	t.Helper()
	state := t.TempDir()
	store, err := bench.OpenStore(filepath.Join(state, "records"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []*bench.Record{
		benchtest.RoundsRecord("56ab52eb", benchtest.RoundsLevel(tputA, ttftA)),
		benchtest.RoundsRecord("991816ca", benchtest.RoundsLevel(tputB, ttftB)),
	} {
		if _, err := store.Save(r); err != nil {
			t.Fatal(err)
		}
	}
	return state
}

// TestCompareIntervals pins issue 24, item 5, through the binary: with 2
// rounds a side the intervals ran to [-506 %, +584 %] with no warning,
// and median and p99 shared one. Now each metric's row has its own
// interval; with 2 rounds a side it is marked too few to judge (and
// --fail-if-slower judges the delta alone), with 5 the verdict follows
// the interval.
func TestCompareIntervals(t *testing.T) {
	a2, b2 := []float64{1000, 1010}, []float64{900, 905}
	a5, same5, slow5 := []float64{1000, 1010, 990, 1005, 995}, []float64{1001, 1008, 992, 1004, 996}, []float64{900, 905, 895, 902, 898}
	ttftA5, ttftSame5, ttftSlow5 := []float64{100, 101, 99, 100, 100}, []float64{100, 99, 101, 100, 101}, []float64{120, 121, 119, 122, 120}
	twoRounds := roundsFixture(t, a2, []float64{100, 101}, b2, []float64{120, 121})
	fiveSame := roundsFixture(t, a5, ttftA5, same5, ttftSame5)
	fiveSlow := roundsFixture(t, a5, ttftA5, slow5, ttftSlow5)
	tests := []struct {
		name  string
		state string
		args  []string
		code  int
		rows  map[string][]string // metric: what its row holds
		not   []string            // in no line
		err   string              // in stderr
	}{
		{"2 rounds", twoRounds, nil, 0, map[string][]string{
			"output_throughput": {"-10.2%", "[-13.6%, -6.8%]", "too few rounds to judge (rounds 2/2)"},
			"median_ttft_ms":    {"+19.9%", "[+16.9%, +22.9%]", "too few rounds to judge (rounds 2/2)"},
		}, []string{"slower (", "within noise", "faster ("}, ""},
		{"2 rounds, --fail-if-slower", twoRounds, []string{"--fail-if-slower", "3"}, 1, map[string][]string{
			"output_throughput": {"too few rounds to judge (rounds 2/2)"},
		}, nil, "B is slower than A by more than 3%: sweep c=8 output_throughput -10.2% (too few rounds to judge the noise: 2/2)"},
		{"5 rounds, within noise", fiveSame, []string{"--fail-if-slower", "3"}, 0, map[string][]string{
			"output_throughput": {"+0.0%", "[-1.0%, +1.1%]", "within noise ("},
			"median_ttft_ms":    {"+0.2%", "[-0.9%, +1.3%]", "within noise ("},
		}, []string{"too few rounds", "slower (", "faster ("}, ""},
		{"5 rounds, slower", fiveSlow, []string{"--fail-if-slower", "3"}, 1, map[string][]string{
			"output_throughput": {"slower ("},
			"median_ttft_ms":    {"slower ("},
		}, []string{"too few rounds", "within noise"}, "B is slower than A by more than 3%: sweep c=8 output_throughput -10.0% (slower ("},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := cliRun(t, map[string]string{"SGLAUNCH_STATE_DIR": tt.state}, append([]string{"bench", "compare", "56ab52eb", "991816ca"}, tt.args...)...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\n%s%s", code, tt.code, stdout, stderr)
			}
			for metric, parts := range tt.rows {
				row := compareRow(stdout, metric)
				for _, p := range parts {
					if !strings.Contains(row, p) {
						t.Errorf("the %s row lacks %q: %q\n%s", metric, p, row, stdout)
					}
				}
			}
			for _, n := range tt.not {
				if strings.Contains(stdout, n) {
					t.Errorf("the comparison has %q:\n%s", n, stdout)
				}
			}
			if !strings.Contains(stderr, tt.err) || (tt.err == "") != (stderr == "") {
				t.Errorf("stderr %q, want %q", stderr, tt.err)
			}
			if !strings.Contains(stdout, "each metric's interval comes from its own values in each round") {
				t.Errorf("the comparison does not say where its intervals come from:\n%s", stdout)
			}
		})
	}
}

// compareRow is the line of the comparison table for metric.
func compareRow(out, metric string) string {
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) > 2 && f[2] == metric {
			return line
		}
	}
	return ""
}
