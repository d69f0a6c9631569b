package reliability

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/sglaunch/sglaunch/loadgen/loadgentest"
)

// rssBound is the most memory (peak resident set) bench may take
// against any hostile server with these 4 streams: sglaunch itself
// (about 15 MiB) and one bounded event per stream (1 MiB + 256 B per
// requested token), far below what the server claims or sends (20 M
// tokens took 890 MB before the fix, a 256 MiB line 1.2 GB).
const rssBound = 64 << 20

// TestHostileServers runs bench against the stub server in each hostile
// mode, with each API, and counts a try failed when bench's peak RSS
// passes rssBound, when bench does not fail (exit 1), or when its record
// is not failed.
func TestHostileServers(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ta := newTally()
	var peak int64
	for _, mode := range append([]string{""}, loadgentest.HostileModes...) {
		for _, api := range []string{"generate", "chat"} {
			name := "hostile server: " + mode
			if mode == "" {
				name = "well-behaved stub server (baseline)"
			}
			rss, why := hostileRun(t, e, mode, api)
			peak = max(peak, rss)
			t.Logf("%-40s %-8s peak RSS %3d MiB %s", name, api, rss>>20, why)
			if why != "" {
				t.Errorf("%s (%s): %s", name, api, why)
			}
			ta.add(name, why != "")
		}
	}
	ta.report(t)
	t.Logf("highest peak RSS of bench: %d MiB (bound %d MiB)", peak>>20, rssBound>>20)
}

// hostileRun serves mode with the stub server and benchmarks it once.
func hostileRun(t *testing.T, e *env, mode, api string) (rss int64, why string) {
	stub := exec.Command(stubBin, "-hostile", mode)
	stdout, err := stub.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := stub.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = stub.Process.Kill(); _ = stub.Wait() }()
	url, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("stub server: %v", err)
	}
	wl := filepath.Join(e.dir, "hostile-"+api+".yaml")
	yaml := fmt.Sprintf("workloads:\n  - name: h\n    api: %s\n    input_len: 8\n    output_len: 16\n    concurrency: [4]\n    requests: 8\n    warmup: 0\n", api)
	if err := os.WriteFile(wl, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(e.dir, "records-"+mode+"-"+api)
	r := e.start("bench", "--url", strings.TrimSpace(url), "--workload", wl, "--dir", out)
	if !r.wait(exitBound) {
		return 0, "bench did not end"
	}
	if ru, ok := r.cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = ru.Maxrss << 10 // KiB on Linux
	}
	code := r.cmd.ProcessState.ExitCode()
	files, _ := filepath.Glob(filepath.Join(out, "*.json"))
	status := "no record"
	if len(files) == 1 {
		var rec struct {
			Status string `json:"status"`
		}
		if b, err := os.ReadFile(files[0]); err == nil && json.Unmarshal(b, &rec) == nil {
			status = rec.Status
		}
	}
	wantCode, wantStatus := 1, "failed"
	if mode == "" {
		wantCode, wantStatus = 0, "ok"
	}
	switch {
	case rss > rssBound:
		why = fmt.Sprintf("peak RSS %d MiB, over %d MiB", rss>>20, rssBound>>20)
	case code != wantCode || status != wantStatus:
		why = fmt.Sprintf("exit %d with record %s, want %d and %s:\n%s", code, status, wantCode, wantStatus, tail(r.stderr.String()))
	}
	return rss, why
}
