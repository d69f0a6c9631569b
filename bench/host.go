package bench

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sglaunch/sglaunch/internal/childproc"
	"github.com/sglaunch/sglaunch/internal/hostprobe"
)

// Host is what a record says about the machine.
type Host struct {
	Hostname  string  `json:"hostname"`
	Kernel    string  `json:"kernel,omitempty"`
	CPU       string  `json:"cpu,omitempty"`
	CPUs      int     `json:"cpus"`
	MemoryGiB float64 `json:"memory_gib,omitempty"`
	GPUs      []GPU   `json:"gpus,omitempty"`
	GPUCount  int     `json:"gpu_count"`
	Driver    string  `json:"gpu_driver,omitempty"`
	CUDA      string  `json:"cuda_version,omitempty"`
	// GPUError says why nvidia-smi, though present, told nothing.
	GPUError string `json:"gpu_error,omitempty"`
}

// GPU is one device as nvidia-smi lists it.
type GPU struct {
	Index     int    `json:"index"`
	Name      string `json:"name"`
	MemoryMiB int    `json:"memory_mib,omitempty"`
	BusID     string `json:"bus_id,omitempty"`
}

// nvidiaSMITimeout bounds each nvidia-smi call; it can be slow when the
// driver initialises, and a hung one must not hold the benchmark.
const nvidiaSMITimeout = 20 * time.Second

// HostFacts gathers the host's facts. GPUs come from nvidia-smi when
// lookPath finds it; probes (nil: none) holds the answer preflight got
// earlier in the same command, so nvidia-smi's query is not run twice.
func HostFacts(ctx context.Context, probes *hostprobe.Memo, lookPath func(string) (string, error)) Host {
	h := Host{CPUs: runtime.NumCPU()}
	h.Hostname, _ = os.Hostname()
	var u unix.Utsname
	if unix.Uname(&u) == nil {
		h.Kernel = unix.ByteSliceToString(u.Sysname[:]) + " " + unix.ByteSliceToString(u.Release[:])
	}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		h.CPU = cpuModel(b)
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		h.MemoryGiB = memTotalGiB(b)
	}
	q := probes.GPUs(ctx, lookPath, nvidiaSMITimeout)
	switch {
	case q.Absent:
		return h
	case q.Run.Err != nil:
		h.GPUError = smiError(q.Run).Error()
		return h
	case q.ParseErr != nil:
		h.GPUError = q.ParseErr.Error()
	}
	h.Driver = q.Driver
	for _, g := range q.GPUs {
		h.GPUs = append(h.GPUs, GPU{Index: g.Index, Name: g.Name, MemoryMiB: int(g.MemoryMiB), BusID: g.BusID})
	}
	h.GPUCount = len(h.GPUs)
	h.CUDA = probes.CUDAVersion(ctx, q.Path, nvidiaSMITimeout)
	return h
}

// smiError says how nvidia-smi failed, with the first line of what it
// said (stderr, else stdout).
func smiError(res childproc.Result) error {
	msg := strings.TrimSpace(string(res.Stderr))
	if msg == "" {
		msg = strings.TrimSpace(string(res.Stdout))
	}
	if msg != "" {
		return fmt.Errorf("nvidia-smi: %v: %s", res.Err, firstLine(msg))
	}
	return fmt.Errorf("nvidia-smi: %w", res.Err)
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// cpuModel returns the first "model name" of /proc/cpuinfo.
func cpuModel(cpuinfo []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(cpuinfo))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// memTotalGiB reads MemTotal from /proc/meminfo.
func memTotalGiB(meminfo []byte) float64 {
	sc := bufio.NewScanner(bytes.NewReader(meminfo))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 2 && f[0] == "MemTotal:" {
			kb, err := strconv.ParseFloat(f[1], 64)
			if err == nil {
				return float64(int(kb/(1<<20)*10+0.5)) / 10
			}
		}
	}
	return 0
}

// GPUSummary is the GPUs in a few words: "8x NVIDIA H200".
func (h Host) GPUSummary() string {
	if len(h.GPUs) == 0 {
		if h.GPUError != "" {
			return "unknown (" + h.GPUError + ")"
		}
		return "none"
	}
	counts := map[string]int{}
	var names []string
	for _, g := range h.GPUs {
		if counts[g.Name] == 0 {
			names = append(names, g.Name)
		}
		counts[g.Name]++
	}
	var parts []string
	for _, n := range names {
		parts = append(parts, fmt.Sprintf("%dx %s", counts[n], n))
	}
	s := strings.Join(parts, ", ")
	if h.Driver != "" {
		s += ", driver " + h.Driver
	}
	if h.CUDA != "" {
		s += ", CUDA " + h.CUDA
	}
	return s
}
