package sim

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sglaunch/sglaunch/catalog/sglangtab"
)

// TestEnvironGenerated: sglang/srt/environ.py is what tools/gen_environ.py
// writes from the env_reads table of the version the sim reports, so the
// sim's environment registry cannot drift from the generated tables.
func TestEnvironGenerated(t *testing.T) {
	c, err := sglangtab.For(Version)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Exact {
		t.Fatalf("no table set for the sim's version %s: %s", Version, c.Warn)
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), "python3", "sim/tools/gen_environ.py", filepath.Join("catalog/sglangtab", c.Meta.Version))
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	want, err := cmd.Output()
	if err != nil {
		t.Fatalf("gen_environ.py: %v: %s", err, stderr.String())
	}
	got, err := os.ReadFile("sglang/srt/environ.py")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("sglang/srt/environ.py is not gen_environ.py's output for SGLang %s; from the repository root run\n\tpython3 sim/tools/gen_environ.py catalog/sglangtab/%s > sim/sglang/srt/environ.py", c.Meta.Version, c.Meta.Version)
	}
	if !strings.Contains(string(got), "# python/sglang/srt/environ.py:") {
		t.Errorf("environ.py cites no SGLang line")
	}
}
