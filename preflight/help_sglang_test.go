package preflight

import (
	"testing"

	"github.com/sglaunch/sglaunch/catalog"
)

// TestRealHelpCudaGraphMaxBsKeepsTunedValue: preflight reading the
// installed SGLang's help ("Deprecated alias for
// --cuda-graph-max-bs-decode.") told the reference deployment to remove
// --cuda-graph-max-bs 128. The advice must move the 128.
func TestRealHelpCudaGraphMaxBsKeepsTunedValue(t *testing.T) {
	r := run(t, demoPlan(t), Options{StateDir: t.TempDir()})
	if r.SGLang.Flags != "--help" {
		t.Fatalf("flags from %q, want the sim's --help", r.SGLang.Flags)
	}
	f := only(t, r, CheckFlags, "--cuda-graph-max-bs")
	if f.Fix != "write --cuda-graph-max-bs-decode 128 instead" {
		t.Errorf("fix: got %q, want it to keep 128", f.Fix)
	}
}

func TestReplacementFix(t *testing.T) {
	tests := []struct {
		flag   catalog.Flag
		values []string
		want   string
	}{
		{catalog.Flag{Action: "store", Replacement: "--cuda-graph-max-bs-decode"}, []string{"128"}, "write --cuda-graph-max-bs-decode 128 instead"},
		{catalog.Flag{Action: "store_true", Replacement: "--cuda-graph-backend-{decode,prefill}=disabled"}, nil, "write --cuda-graph-backend-decode disabled --cuda-graph-backend-prefill disabled instead"},
		{catalog.Flag{Action: "store_true", Replacement: "--flashinfer-allreduce-fusion-backend=auto"}, nil, "write --flashinfer-allreduce-fusion-backend auto instead"},
		{catalog.Flag{Action: "store", Replacement: "--cp-strategy"}, []string{"in-seq-split"}, "write --cp-strategy in-seq-split instead"},
		// SGLang remaps these values after parsing: following the advice
		// literally (--cp-strategy in-seq-split) was refused by SGLang,
		// whose choices are zigzag and interleave.
		{catalog.Flag{Action: "store", Replacement: "--cp-strategy", Help: "[Deprecated] Use --cp-strategy {zigzag,interleave} instead. 'in-seq-split' maps to 'zigzag'; 'round-robin-split' maps to 'interleave'."},
			[]string{"round-robin-split"}, "write --cp-strategy interleave instead"},
		{catalog.Flag{Action: "store"}, []string{"128"}, "remove it; SGLang names no replacement that takes its value 128"},
		{catalog.Flag{Action: "store_true"}, nil, "remove it"},
		{catalog.Flag{Action: "store_true", Replacement: "incremental_streaming_output"}, nil, "use incremental_streaming_output instead"},
	}
	for _, tt := range tests {
		if got := replacementFix(&tt.flag, tt.values); got != tt.want {
			t.Errorf("%+v %v: got %q, want %q", tt.flag, tt.values, got, tt.want)
		}
	}
}
