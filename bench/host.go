package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
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
// lookPath finds it.
func HostFacts(ctx context.Context, lookPath func(string) (string, error)) Host {
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
	smi, err := lookPath("nvidia-smi")
	if err != nil {
		return h
	}
	out, err := runSMI(ctx, smi, "--query-gpu=index,name,driver_version,memory.total,pci.bus_id", "--format=csv,noheader,nounits")
	if err != nil {
		h.GPUError = err.Error()
		return h
	}
	h.GPUs, h.Driver, err = parseGPUs(out)
	if err != nil {
		h.GPUError = err.Error()
	}
	h.GPUCount = len(h.GPUs)
	if out, err := runSMI(ctx, smi); err == nil {
		h.CUDA = cudaVersion(out)
	}
	return h
}

// probe runs a short command within timeout, with env (nil: sglaunch's
// own environment), and returns its stdout and trimmed stderr.
func probe(ctx context.Context, timeout time.Duration, env []string, name string, args ...string) ([]byte, string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = env
	cmd.WaitDelay = time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	return out, strings.TrimSpace(stderr.String()), err
}

func runSMI(ctx context.Context, smi string, args ...string) ([]byte, error) {
	out, msg, err := probe(ctx, nvidiaSMITimeout, nil, smi, args...)
	if err != nil {
		if msg == "" {
			msg = strings.TrimSpace(string(out))
		}
		if msg != "" {
			return nil, fmt.Errorf("nvidia-smi: %v: %s", err, firstLine(msg))
		}
		return nil, fmt.Errorf("nvidia-smi: %w", err)
	}
	return out, nil
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

// parseGPUs reads nvidia-smi's CSV query output: index, name, driver,
// memory (MiB), bus id.
func parseGPUs(out []byte) ([]GPU, string, error) {
	r := csv.NewReader(bytes.NewReader(out))
	r.TrimLeadingSpace = true
	r.FieldsPerRecord = -1
	rows, err := r.ReadAll()
	if err != nil {
		return nil, "", fmt.Errorf("nvidia-smi output: %w", err)
	}
	var gpus []GPU
	driver := ""
	for _, row := range rows {
		if len(row) < 3 {
			continue
		}
		g := GPU{Name: strings.TrimSpace(row[1])}
		g.Index, _ = strconv.Atoi(strings.TrimSpace(row[0]))
		if driver == "" {
			driver = strings.TrimSpace(row[2])
		}
		if len(row) > 3 {
			g.MemoryMiB, _ = strconv.Atoi(strings.TrimSpace(row[3]))
		}
		if len(row) > 4 {
			g.BusID = strings.TrimSpace(row[4])
		}
		gpus = append(gpus, g)
	}
	return gpus, driver, nil
}

var reCUDA = regexp.MustCompile(`CUDA Version:\s*([0-9][0-9.]*)`)

// cudaVersion reads the CUDA version from nvidia-smi's banner.
func cudaVersion(out []byte) string {
	if m := reCUDA.FindSubmatch(out); m != nil {
		return string(m[1])
	}
	return ""
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
