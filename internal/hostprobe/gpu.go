package hostprobe

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/sglaunch/sglaunch/internal/childproc"
)

// gpuFields is one query for what preflight checks (uuid, memory in use)
// and what a bench record keeps (driver, bus id). Every field dates from
// the earliest drivers SGLang runs on: an unknown field fails the whole
// query.
const gpuFields = "index,uuid,name,memory.total,memory.used,driver_version,pci.bus_id"

// GPU is one device as nvidia-smi lists it.
type GPU struct {
	Index     int
	UUID      string
	Name      string
	MemoryMiB int64 // total
	UsedMiB   int64 // in use now
	BusID     string
}

// GPUQuery is what nvidia-smi said about the GPUs.
type GPUQuery struct {
	// Absent says nvidia-smi is not on PATH: nothing ran.
	Absent bool
	// Path is nvidia-smi's path.
	Path string
	// Run is the query's run; Run.Err says why it failed.
	Run childproc.Result
	// GPUs and Driver are what a successful run listed (none is possible).
	GPUs   []GPU
	Driver string
	// ParseErr says the output of a successful run was not CSV.
	ParseErr error
}

// GPUs lists the host's GPUs with nvidia-smi, found by lookPath, each run
// bounded by timeout.
func (m *Memo) GPUs(ctx context.Context, lookPath func(string) (string, error), timeout time.Duration) GPUQuery {
	path, err := lookPath("nvidia-smi")
	if err != nil {
		return GPUQuery{Absent: true}
	}
	return remember(ctx, m, "gpus\x00"+path, func() GPUQuery {
		q := GPUQuery{Path: path}
		q.Run = childproc.Run(ctx, childproc.Spec{
			Argv:    []string{path, "--query-gpu=" + gpuFields, "--format=csv,noheader,nounits"},
			Timeout: timeout,
		})
		if q.Run.Err == nil {
			q.GPUs, q.Driver, q.ParseErr = parseGPUs(q.Run.Stdout)
		}
		return q
	})
}

// parseGPUs reads the query's CSV. A row with fewer than the first five
// fields is no GPU; a number nvidia-smi cannot tell ("[N/A]") is 0.
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
		if len(row) < 5 {
			continue
		}
		for i := range row {
			row[i] = strings.TrimSpace(row[i])
		}
		g := GPU{UUID: row[1], Name: row[2]}
		g.Index, _ = strconv.Atoi(row[0])
		g.MemoryMiB, _ = strconv.ParseInt(row[3], 10, 64)
		g.UsedMiB, _ = strconv.ParseInt(row[4], 10, 64)
		if len(row) > 5 && driver == "" {
			driver = row[5]
		}
		if len(row) > 6 {
			g.BusID = row[6]
		}
		gpus = append(gpus, g)
	}
	return gpus, driver, nil
}

// CUDAVersion is the CUDA version nvidia-smi's banner shows (the
// driver's, which --query-gpu cannot report), or "" when it cannot tell.
func (m *Memo) CUDAVersion(ctx context.Context, smi string, timeout time.Duration) string {
	return remember(ctx, m, "cuda\x00"+smi, func() string {
		res := childproc.Run(ctx, childproc.Spec{Argv: []string{smi}, Timeout: timeout})
		if res.Err != nil {
			return ""
		}
		return cudaVersion(res.Stdout)
	})
}

var reCUDA = regexp.MustCompile(`CUDA Version:\s*([0-9][0-9.]*)`)

func cudaVersion(banner []byte) string {
	if m := reCUDA.FindSubmatch(banner); m != nil {
		return string(m[1])
	}
	return ""
}
