package sim

import (
	"bytes"
	"os"
	"os/exec"
	"testing"
)

// TestEnvironPyIsGenerated: sglang/srt/environ.py is what
// tools/gen_environ.py makes of the catalog's environment list, so a
// change to either (a hand edit, a catalog update without a rerun) fails
// here and not in a grep of the unpacked package.
func TestEnvironPyIsGenerated(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("python3", "tools/gen_environ.py", "../catalog/data/sglang-envs.txt")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	want, err := cmd.Output()
	if err != nil {
		t.Fatalf("tools/gen_environ.py: %v\n%s", err, stderr.Bytes())
	}
	got, err := os.ReadFile("sglang/srt/environ.py")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("sglang/srt/environ.py differs from tools/gen_environ.py's output; regenerate it from the repository root:\n" +
			"python3 sim/tools/gen_environ.py catalog/data/sglang-envs.txt > sim/sglang/srt/environ.py")
	}
}
