package report

import (
	"bytes"
	"strings"
	"testing"

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
// metric's interval and verdict, and says where they come from.
func TestWriteComparisonVerdicts(t *testing.T) {
	a := benchtest.RoundsRecord("aaaa", benchtest.RoundsLevel([]float64{1000, 1010, 990, 1005}, []float64{100, 101, 99, 100}))
	slow := benchtest.RoundsRecord("cccc", benchtest.RoundsLevel([]float64{900, 905, 895, 902}, []float64{120, 121, 119, 122}))
	var out bytes.Buffer
	if err := WriteComparison(&out, bench.Compare(a, slow), false); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"95% interval", "verdict", "output_throughput", "slower (>99.9%)", "Welch's t-test"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("comparison lacks %q:\n%s", want, out.String())
		}
	}
}
