package verify

import (
	"testing"

	"github.com/sglaunch/sglaunch/plan"
)

// TestRemoteVerifyKnowsSGLangRewrites pins issue 10's sixth defect:
// remote verify reported DIFFERENT where SGLang rewrites a value it
// resolved (speculative_algorithm upper-cased and NEXTN made EAGLE; the
// deprecated --enable-flashinfer-allreduce-fusion reset to false).
func TestRemoteVerifyKnowsSGLangRewrites(t *testing.T) {
	tests := []struct {
		argv []string
		dest string
		si   any
		want bool
	}{
		{[]string{"--speculative-algorithm", "nextn"}, "speculative_algorithm", "EAGLE", true},
		{[]string{"--speculative-algorithm", "eagle3"}, "speculative_algorithm", "EAGLE3", true},
		{[]string{"--speculative-algorithm", "EAGLE3"}, "speculative_algorithm", "EAGLE", false},
		{[]string{"--enable-flashinfer-allreduce-fusion"}, "enable_flashinfer_allreduce_fusion", false, true},
		{[]string{"--tp", "2"}, "tp_size", float64(2), true},
		{[]string{"--tp", "2"}, "tp_size", float64(4), false},
	}
	for _, tt := range tests {
		f := plan.Flags(tt.argv)[0]
		if got := siAgrees(f, tt.si); got != tt.want {
			t.Errorf("%v against server_info %s=%v: agrees %v, want %v", tt.argv, tt.dest, tt.si, got, tt.want)
		}
	}
}
