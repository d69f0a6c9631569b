package benchperf

import (
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestBenchServingCopy checks that the parts of refclient/bench_serving.py
// marked as copied from SGLang are SGLang's lines at the commit and lines
// they name, in a git directory of SGLang's source
// ($SGLAUNCH_SGLANG_GIT: a clone or a bare mirror). Without it the test
// says so and skips.
func TestBenchServingCopy(t *testing.T) {
	git := os.Getenv("SGLAUNCH_SGLANG_GIT")
	if git == "" {
		t.Skip("SGLAUNCH_SGLANG_GIT is not set: the copy of bench_serving is not checked against SGLang's source")
	}
	b, err := os.ReadFile("../refclient/bench_serving.py")
	if err != nil {
		t.Fatal(err)
	}
	start := regexp.MustCompile(`^# --- copied from (\S+)@([0-9a-f]+):(\d+)-(\d+) ---$`)
	lines := strings.Split(string(b), "\n")
	copies := 0
	for i := 0; i < len(lines); i++ {
		m := start.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		end := i + 1
		for end < len(lines) && lines[end] != "# --- end of copy ---" {
			end++
		}
		if end == len(lines) {
			t.Fatalf("line %d: a copy without its end marker", i+1)
		}
		src, err := exec.Command("git", "--git-dir", git, "show", m[2]+":"+m[1]).Output()
		if err != nil {
			t.Fatalf("line %d: git show %s:%s: %v", i+1, m[2], m[1], err)
		}
		from, _ := strconv.Atoi(m[3])
		to, _ := strconv.Atoi(m[4])
		theirs := strings.Split(string(src), "\n")
		if to > len(theirs) || from < 1 || from > to {
			t.Fatalf("line %d: lines %d-%d are not in %s@%s (%d lines)", i+1, from, to, m[1], m[2], len(theirs))
		}
		want, got := theirs[from-1:to], lines[i+1:end]
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("line %d: the copy of %s@%s:%d-%d differs from SGLang's lines", i+1, m[1], m[2], from, to)
		}
		copies++
		i = end
	}
	if copies == 0 {
		t.Fatal("no marked copy found")
	}
}
