package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/bench"
	"github.com/sglaunch/sglaunch/bench/benchtest"
	"github.com/sglaunch/sglaunch/internal/testkit"
)

func TestWriteComparison(t *testing.T) {
	a := benchtest.Record("aaaa0001", 82.5, 410, benchtest.Argv("--cuda-graph-max-bs", "128", "--port", "30000"), map[string]string{"NCCL_ALGO": "Ring", "NCCL_PROTO": "LL"})
	b := benchtest.Record("bbbb0002", 96.1, 380, benchtest.Argv("--cuda-graph-max-bs", "256", "--port", "31000", "--enable-torch-compile"), map[string]string{"NCCL_ALGO": "Tree", "SGLANG_X": "1"})
	var out bytes.Buffer
	if err := WriteComparison(&out, bench.Compare(a, b), false); err != nil {
		t.Fatal(err)
	}
	testkit.Golden(t, "compare", out.String(), *testkit.Update)
}

// TestWriteComparisonVerdicts: a comparison judged from rounds shows each
// metric's interval and verdict, and says where they come from; a level
// of 2 rounds a side shows its interval marked too few to judge, one of 5
// its verdict (testdata/compare-N-rounds.golden).
func TestWriteComparisonVerdicts(t *testing.T) {
	old := displayZone
	displayZone = time.UTC
	t.Cleanup(func() { displayZone = old })
	a := benchtest.RoundsRecord("aaaa", benchtest.RoundsLevel([]float64{1000, 1010, 990, 1005}, []float64{100, 101, 99, 100}))
	slow := benchtest.RoundsRecord("cccc", benchtest.RoundsLevel([]float64{900, 905, 895, 902}, []float64{120, 121, 119, 122}))
	for _, tt := range []struct {
		name      string
		a, b      *bench.Record
		want, not []string
	}{
		{"4 rounds", a, slow, []string{"95% interval", "verdict", "output_throughput", "slower (>99.9%)", "Welch's t-test", "fewer than 3 rounds"}, []string{"too few rounds to judge ("}},
		{"2 rounds", benchtest.RoundsRecord("aaaa", benchtest.RoundsLevel([]float64{1000, 1010}, []float64{100, 101})),
			benchtest.RoundsRecord("cccc", benchtest.RoundsLevel([]float64{900, 905}, []float64{120, 121})),
			[]string{"95% interval", "too few rounds to judge (rounds 2/2)"}, []string{"slower (", "within noise", "faster ("}},
		{"5 rounds", benchtest.RoundsRecord("aaaa", benchtest.RoundsLevel([]float64{1000, 1010, 990, 1005, 995}, []float64{100, 101, 99, 100, 100})),
			benchtest.RoundsRecord("cccc", benchtest.RoundsLevel([]float64{1001, 1008, 992, 1004, 996}, []float64{100, 99, 101, 100, 101})),
			[]string{"95% interval", "within noise ("}, []string{"too few rounds", "slower (", "faster ("}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			if err := WriteComparison(&out, bench.Compare(tt.a, tt.b), false); err != nil {
				t.Fatal(err)
			}
			testkit.Golden(t, "compare-"+strings.ReplaceAll(tt.name, " ", "-"), out.String(), *testkit.Update)
			for _, want := range tt.want {
				if !strings.Contains(out.String(), want) {
					t.Errorf("comparison lacks %q:\n%s", want, out.String())
				}
			}
			for _, not := range tt.not {
				if strings.Contains(out.String(), not) {
					t.Errorf("comparison has %q:\n%s", not, out.String())
				}
			}
		})
	}
}
