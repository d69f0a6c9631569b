package preflight

import "testing"

// TestNCCLLowerCaseName pins issue 24: --set env.nccl_proto=LL passed
// preflight, although NCCL reads only NCCL_PROTO and ignores it.
func TestNCCLLowerCaseName(t *testing.T) {
	o := (Options{Dir: t.TempDir()}).withDefaults()
	runEnvCases(t, func(items []envItem) []Finding { return checkNCCL(items, o) }, []envCase{
		{"lower case", []string{"nccl_proto=LL"}, "WARN", "nccl_proto has no effect", "rename it to NCCL_PROTO"},
		{"mixed case", []string{"Nccl_Algo=Ring"}, "WARN", "upper-case names only", "rename it to NCCL_ALGO"},
	})
	if fs := checkNCCL([]envItem{{name: "OMP_NUM_THREADS", value: "4"}}, o); len(fs) != 0 {
		t.Errorf("a variable of another library: got %+v, want no NCCL finding", fs)
	}
}
