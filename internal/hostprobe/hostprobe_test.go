package hostprobe

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// probeTimeout is generous: the machine running the tests is loaded.
const probeTimeout = time.Minute

// fakeTool writes an executable script that appends a line to a log at
// each run before running body, and returns its path and a
// function that counts the runs so far.
func fakeTool(t *testing.T, name, body string) (string, func() int) {
	t.Helper()
	dir := t.TempDir()
	path, log := filepath.Join(dir, name), filepath.Join(dir, "runs.log")
	script := "#!/bin/sh\necho run >> " + log + "\n" + body
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path, func() int {
		b, _ := os.ReadFile(log)
		return strings.Count(string(b), "\n")
	}
}

func found(path string) func(string) (string, error) {
	return func(string) (string, error) { return path, nil }
}

func TestParseGPUs(t *testing.T) {
	h200, err := os.ReadFile("testdata/nvidia-smi-query-h200.csv")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		csv    string
		want   []GPU
		driver string
		err    bool
	}{
		// The recorded H200 row, in the combined query's column order.
		{"h200", string(h200), []GPU{{Index: 0, UUID: "GPU-4a1c2e3f-0000-0000-0000-000000000000", Name: "NVIDIA H200", MemoryMiB: 143771, BusID: "00000000:00:06.0"}}, "580.159.04", false},
		{"first five fields only", "0, GPU-1, NVIDIA A100, 81559, 40000\n1, GPU-2, NVIDIA L40S, 46068, [N/A]\n",
			[]GPU{{Index: 0, UUID: "GPU-1", Name: "NVIDIA A100", MemoryMiB: 81559, UsedMiB: 40000}, {Index: 1, UUID: "GPU-2", Name: "NVIDIA L40S", MemoryMiB: 46068}}, "", false},
		{"no GPU", "No devices were found\n", nil, "", false},
		{"not CSV", "0, \"GPU-1, x\n", nil, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gpus, driver, err := parseGPUs([]byte(tt.csv))
			if (err != nil) != tt.err {
				t.Fatalf("err: got %v, want an error: %v", err, tt.err)
			}
			if len(gpus) != len(tt.want) || driver != tt.driver {
				t.Fatalf("got %+v driver %q, want %+v driver %q", gpus, driver, tt.want, tt.driver)
			}
			for i := range gpus {
				if gpus[i] != tt.want[i] {
					t.Errorf("gpu %d: got %+v, want %+v", i, gpus[i], tt.want[i])
				}
			}
		})
	}
}

func TestCUDAVersionFromBanner(t *testing.T) {
	banner, err := os.ReadFile("testdata/nvidia-smi-h200.txt")
	if err != nil {
		t.Fatal(err)
	}
	if got := cudaVersion(banner); got != "13.0" {
		t.Errorf("got %q, want 13.0", got)
	}
}

func TestGPUsAbsentAndFailing(t *testing.T) {
	var m Memo
	if q := m.GPUs(t.Context(), func(string) (string, error) { return "", exec.ErrNotFound }, probeTimeout); !q.Absent {
		t.Errorf("got %+v, want absent", q)
	}
	smi, _ := fakeTool(t, "nvidia-smi", "echo 'NVIDIA-SMI has failed' >&2\nexit 9\n")
	q := m.GPUs(t.Context(), found(smi), probeTimeout)
	if q.Absent || q.Run.ExitCode != 9 || !strings.Contains(string(q.Run.Stderr), "NVIDIA-SMI has failed") || q.Run.Err == nil || len(q.GPUs) != 0 {
		t.Errorf("got %+v, want the failed run", q)
	}
}

// TestMemoAsksOnce: with one Memo, nvidia-smi's query, its banner and the
// Python probe each run once however often they are asked (preflight,
// then bench, in one command); without one, every ask runs.
func TestMemoAsksOnce(t *testing.T) {
	smi, smiRuns := fakeTool(t, "nvidia-smi", "case \"$1\" in --query-gpu=*) echo '0, GPU-1, NVIDIA H200, 143771, 0, 580.1, 0:6';; *) echo 'CUDA Version: 13.0';; esac\n")
	py, pyRuns := fakeTool(t, "python3", "echo '{\"python\": \"3.12.1\", \"sglang_version\": \"0.5.10\"}'\n")
	spec := PythonSpec{Python: py, Environ: []string{"A=1"}, Module: "sglang.launch_server", Timeout: probeTimeout}

	var m Memo
	for range 3 {
		if q := m.GPUs(t.Context(), found(smi), probeTimeout); len(q.GPUs) != 1 || q.Driver != "580.1" {
			t.Fatalf("gpus: got %+v", q)
		}
		if v := m.CUDAVersion(t.Context(), smi, probeTimeout); v != "13.0" {
			t.Fatalf("cuda: got %q", v)
		}
		if p := m.Python(t.Context(), spec); p.Err != nil || p.Facts.SGLangVersion != "0.5.10" {
			t.Fatalf("python: got %+v", p)
		}
	}
	if smiRuns() != 2 || pyRuns() != 1 {
		t.Errorf("runs: nvidia-smi %d, python %d; want 2 (query and banner) and 1", smiRuns(), pyRuns())
	}
	// Another environment is another question.
	other := spec
	other.Environ = []string{"A=2"}
	m.Python(t.Context(), other)
	if pyRuns() != 2 {
		t.Errorf("python runs after another environment: got %d, want 2", pyRuns())
	}
	var none *Memo
	none.GPUs(t.Context(), found(smi), probeTimeout)
	none.GPUs(t.Context(), found(smi), probeTimeout)
	if smiRuns() != 4 {
		t.Errorf("nvidia-smi runs without a memo: got %d, want 4", smiRuns())
	}
}

// TestMemoConcurrentAskers: a question asked while it runs waits for the
// answer instead of starting a second child.
func TestMemoConcurrentAskers(t *testing.T) {
	smi, runs := fakeTool(t, "nvidia-smi", "sleep 0.3; echo '0, GPU-1, NVIDIA H200, 143771, 0'\n")
	var m Memo
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			if q := m.GPUs(t.Context(), found(smi), probeTimeout); len(q.GPUs) != 1 {
				t.Errorf("got %+v", q)
			}
		})
	}
	wg.Wait()
	if runs() != 1 {
		t.Errorf("runs: got %d, want 1", runs())
	}
}

// TestMemoForgetsCancelled: an answer cut short by the asker's context is
// not kept; a child's own timeout is.
func TestMemoForgetsCancelled(t *testing.T) {
	smi, runs := fakeTool(t, "nvidia-smi", "sleep 60\n")
	var m Memo
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(100*time.Millisecond, cancel)
	if q := m.GPUs(ctx, found(smi), probeTimeout); !errors.Is(q.Run.Err, context.Canceled) {
		t.Fatalf("got %v, want the cancellation", q.Run.Err)
	}
	q := m.GPUs(t.Context(), found(smi), 200*time.Millisecond)
	if q.Run.Err == nil || !strings.Contains(q.Run.Err.Error(), "timed out after 200ms") {
		t.Fatalf("got %v, want a timeout", q.Run.Err)
	}
	m.GPUs(t.Context(), found(smi), 200*time.Millisecond)
	if runs() != 2 {
		t.Errorf("runs: got %d, want 2 (the cancelled one asked again, the timeout kept)", runs())
	}
}

func TestPythonProbe(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Fatalf("python3 is required: %v", err)
	}
	empty := t.TempDir()
	var m Memo
	p := m.Python(t.Context(), PythonSpec{Python: python, Environ: []string{"PATH=" + os.Getenv("PATH"), "PYTHONPATH=" + empty, "PYTHONNOUSERSITE=1"}, Dir: empty, Module: "json", Timeout: probeTimeout})
	if p.Err != nil || p.Facts.Python == "" || p.Facts.ModuleFile == "" {
		t.Errorf("got %+v, want the interpreter's version and json's file", p)
	}

	chatty, _ := fakeTool(t, "python3", "echo 'not json'\n")
	if p := m.Python(t.Context(), PythonSpec{Python: chatty, Timeout: probeTimeout}); p.Err == nil || !strings.Contains(p.Err.Error(), `unreadable answer "not json"`) {
		t.Errorf("got %v, want an unreadable answer", p.Err)
	}
	if p := m.Python(t.Context(), PythonSpec{Python: "/nonexistent/python3", Timeout: probeTimeout}); p.Err == nil || !strings.Contains(p.Err.Error(), "/nonexistent/python3") {
		t.Errorf("got %v, want a start error", p.Err)
	}
}
