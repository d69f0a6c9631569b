package verify

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func python(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("python3")
	if err != nil {
		t.Fatalf("python3 is required: %v", err)
	}
	return p
}

func TestProbeSite(t *testing.T) {
	dir := t.TempDir()
	hooks := filepath.Join(dir, "hooks")
	if err := os.MkdirAll(hooks, 0o755); err != nil {
		t.Fatal(err)
	}
	// sitecustomize is found on sys.path; PYTHONPATH puts the dir there.
	os.WriteFile(filepath.Join(hooks, "sitecustomize.py"), []byte("import os\nos.environ['NCCL_ALGO'] = 'Tree'\nos.environ.setdefault('NCCL_PROTO', 'LL')\nos.environ['UNMANAGED'] = '1'\nos.environ.pop('NCCL_DEBUG', None)\n"), 0o644)
	environ := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "PYTHONPATH=" + hooks, "NCCL_ALGO=Ring", "NCCL_PROTO=Simple", "NCCL_DEBUG=INFO"}
	changes, err := ProbeSite(context.Background(), python(t), environ, dir, []string{"NCCL_"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range changes {
		got = append(got, c.Name+":"+c.Before+"->"+c.After+"@"+filepath.Base(c.File))
	}
	want := "NCCL_ALGO:Ring->Tree@sitecustomize.py NCCL_DEBUG:INFO->@sitecustomize.py"
	if strings.Join(got, " ") != want {
		t.Errorf("got %q, want %q", strings.Join(got, " "), want)
	}
	if len(changes) > 0 && changes[0].Line != 2 {
		t.Errorf("line: got %d, want 2", changes[0].Line)
	}
}

func TestProbeSiteCleanInterpreter(t *testing.T) {
	changes, err := ProbeSite(context.Background(), python(t), []string{"PATH=" + os.Getenv("PATH"), "NCCL_ALGO=Ring"}, t.TempDir(), []string{"NCCL_"})
	if err != nil || len(changes) != 0 {
		t.Errorf("got %v, %v; want no changes", changes, err)
	}
}

func TestProbeSiteBadInterpreter(t *testing.T) {
	_, err := ProbeSite(context.Background(), "/nonexistent/python3", nil, t.TempDir(), nil)
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/python3") {
		t.Errorf("got %v, want an error naming the interpreter", err)
	}
}

// TestProbeSitePth: a .pth line in the user's site-packages runs at every
// start; the probe names the .pth file and its line.
func TestProbeSitePth(t *testing.T) {
	home := t.TempDir()
	environ := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home}
	out, err := exec.Command(python(t), "-c", "import site; print(site.getusersitepackages())").Output()
	if err != nil {
		t.Fatal(err)
	}
	usersite := strings.TrimSpace(string(out))
	usersite = strings.Replace(usersite, os.Getenv("HOME"), home, 1)
	if !strings.HasPrefix(usersite, home) {
		t.Skipf("user site-packages %s is not under HOME", usersite)
	}
	if err := os.MkdirAll(usersite, 0o755); err != nil {
		t.Fatal(err)
	}
	pth := filepath.Join(usersite, "tuning.pth")
	os.WriteFile(pth, []byte("# tuning\nimport os; os.environ['NCCL_P2P_LEVEL'] = 'PIX'\n"), 0o644)
	changes, err := ProbeSite(context.Background(), python(t), environ, home, []string{"NCCL_"})
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) != 1 || changes[0].File != pth || changes[0].Line != 2 || changes[0].After != "PIX" {
		t.Errorf("got %+v, want NCCL_P2P_LEVEL=PIX from %s:2", changes, pth)
	}
}
