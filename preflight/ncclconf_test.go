package preflight

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNCCLConfTypoPasses pins issue 12 defect 12: an NCCL_CONF_FILE
// holding a typo'd NCCL_PROTOO passed preflight as "readable file", and
// NCCL silently ignored the setting. The file's settings are checked like
// the environment's, except those the environment overrides (NCCL never
// lets the file replace a set variable).
func TestNCCLConfTypoPasses(t *testing.T) {
	dir := t.TempDir()
	conf := "# tuned by the site\nNCCL_PROTOO=LL128\nNCCL_BUFFSIZE=1e6\nNCCL_ALGO=Bogus\nNCCL_DEBUG=WARN\n"
	if err := os.WriteFile(filepath.Join(dir, "nccl.conf"), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	o := (Options{Dir: dir}).withDefaults()
	items := []envItem{
		{name: "NCCL_CONF_FILE", value: "nccl.conf", where: "env.NCCL_CONF_FILE (p.yaml)"}, // relative to the server's directory
		{name: "NCCL_ALGO", value: "Ring", where: "env.NCCL_ALGO (p.yaml)"},
	}
	got := map[string][]Finding{}
	for _, f := range checkNCCL(items, o) {
		got[f.Subject] = append(got[f.Subject], f)
	}
	want := map[string]string{"NCCL_PROTOO": "FAIL", "NCCL_BUFFSIZE": "FAIL", "NCCL_DEBUG": "PASS", "NCCL_ALGO": "PASS", "NCCL_CONF_FILE": "PASS"}
	for name, status := range want {
		fs := got[name]
		if len(fs) == 0 || fs[0].Status.String() != status {
			t.Errorf("%s: got %+v, want %s", name, fs, status)
			continue
		}
		if name == "NCCL_PROTOO" && (!strings.HasPrefix(fs[0].Where, "nccl.conf ") || !strings.Contains(fs[0].Fix, "NCCL_PROTO")) {
			t.Errorf("NCCL_PROTOO: got where %q, fix %q; want the file named and NCCL_PROTO suggested", fs[0].Where, fs[0].Fix)
		}
	}
	if len(got["NCCL_ALGO"]) != 1 || got["NCCL_ALGO"][0].Where != "env.NCCL_ALGO (p.yaml)" {
		t.Errorf("the file's NCCL_ALGO was checked although the environment sets it: %+v", got["NCCL_ALGO"])
	}
}
