package bench

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sglaunch/sglaunch/internal/hostprobe"
)

func TestGPUSummary(t *testing.T) {
	h := Host{GPUs: []GPU{{Name: "NVIDIA B200"}, {Index: 1, Name: "NVIDIA B200"}, {Name: "NVIDIA H200"}}, Driver: "580.1", CUDA: "13.0"}
	if got := h.GPUSummary(); got != "2x NVIDIA B200, 1x NVIDIA H200, driver 580.1, CUDA 13.0" {
		t.Errorf("summary: got %q", got)
	}
}

func TestProcFacts(t *testing.T) {
	if got := cpuModel([]byte("processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 9654 96-Core Processor\n")); got != "AMD EPYC 9654 96-Core Processor" {
		t.Errorf("cpu model: got %q", got)
	}
	if got := memTotalGiB([]byte("MemTotal:       24641536 kB\nMemFree: 1 kB\n")); got != 23.5 {
		t.Errorf("memory: got %v GiB, want 23.5", got)
	}
}

func TestHostFactsWithoutNvidiaSMI(t *testing.T) {
	h := HostFacts(t.Context(), nil, func(string) (string, error) { return "", errors.New("not found") })
	if h.CPUs < 1 || h.Hostname == "" || h.GPUCount != 0 || h.GPUError != "" {
		t.Errorf("got %+v, want CPUs and hostname, no GPUs and no error", h)
	}
	if h.GPUSummary() != "none" {
		t.Errorf("summary: got %q, want none", h.GPUSummary())
	}
}

func TestHostFactsFailingNvidiaSMI(t *testing.T) {
	h := HostFacts(t.Context(), nil, func(string) (string, error) { return "/bin/false", nil })
	if h.GPUError != "nvidia-smi: exit status 1" || h.GPUCount != 0 {
		t.Errorf("got %+v, want the failure noted", h)
	}
}

// TestHostFactsFromPreflightsQuery: with the command's Memo, the record's
// GPUs are the answer preflight's query got (nvidia-smi's query runs
// once), and the banner adds the CUDA version.
func TestHostFactsFromPreflightsQuery(t *testing.T) {
	dir := t.TempDir()
	smi, log := filepath.Join(dir, "nvidia-smi"), filepath.Join(dir, "runs.log")
	script := "#!/bin/sh\necho \"run:$1\" >> " + log + "\ncase \"$1\" in --query-gpu=*) echo '0, GPU-1, NVIDIA H200, 143771, 12, 580.159.04, 00000000:00:06.0';; *) echo '| NVIDIA-SMI 580.159.04   Driver Version: 580.159.04     CUDA Version: 13.0 |';; esac\n"
	if err := os.WriteFile(smi, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	lookPath := func(string) (string, error) { return smi, nil }
	var probes hostprobe.Memo
	probes.GPUs(t.Context(), lookPath, nvidiaSMITimeout) // what preflight asks
	h := HostFacts(t.Context(), &probes, lookPath)
	want := GPU{Index: 0, Name: "NVIDIA H200", MemoryMiB: 143771, BusID: "00000000:00:06.0"}
	if h.GPUCount != 1 || h.GPUs[0] != want || h.Driver != "580.159.04" || h.CUDA != "13.0" || h.GPUError != "" {
		t.Errorf("got %+v, want %+v with driver and CUDA", h, want)
	}
	b, _ := os.ReadFile(log)
	if runs := strings.Fields(string(b)); len(runs) != 2 || !strings.HasPrefix(runs[0], "run:--query-gpu=") || runs[1] != "run:" {
		t.Errorf("nvidia-smi runs: got %q, want the query once, then the banner", runs)
	}
}
