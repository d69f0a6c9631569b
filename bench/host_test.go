package bench

import (
	"errors"
	"os"
	"testing"
)

func TestParseNvidiaSMI(t *testing.T) {
	q, err := os.ReadFile("testdata/nvidia-smi-query-h200.csv")
	if err != nil {
		t.Fatal(err)
	}
	gpus, driver, err := parseGPUs(q)
	if err != nil {
		t.Fatal(err)
	}
	if len(gpus) != 1 || gpus[0] != (GPU{Index: 0, Name: "NVIDIA H200", MemoryMiB: 143771, BusID: "00000000:00:06.0"}) || driver != "580.159.04" {
		t.Errorf("got %+v driver %q", gpus, driver)
	}
	banner, err := os.ReadFile("testdata/nvidia-smi-h200.txt")
	if err != nil {
		t.Fatal(err)
	}
	if got := cudaVersion(banner); got != "13.0" {
		t.Errorf("CUDA version: got %q, want 13.0", got)
	}
	eight := []byte("0, NVIDIA B200, 580.1, 183359, 0:1\n1, NVIDIA B200, 580.1, 183359, 0:2\n")
	gpus, _, _ = parseGPUs(eight)
	h := Host{GPUs: append(gpus, GPU{Name: "NVIDIA H200"}), Driver: "580.1", CUDA: "13.0"}
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
	h := HostFacts(t.Context(), func(string) (string, error) { return "", errors.New("not found") })
	if h.CPUs < 1 || h.Hostname == "" || h.GPUCount != 0 || h.GPUError != "" {
		t.Errorf("got %+v, want CPUs and hostname, no GPUs and no error", h)
	}
	if h.GPUSummary() != "none" {
		t.Errorf("summary: got %q, want none", h.GPUSummary())
	}
}

func TestHostFactsFailingNvidiaSMI(t *testing.T) {
	h := HostFacts(t.Context(), func(string) (string, error) { return "/bin/false", nil })
	if h.GPUError == "" || h.GPUCount != 0 {
		t.Errorf("got %+v, want the failure noted", h)
	}
}
