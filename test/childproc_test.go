package test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/internal/proc"
	"github.com/sglaunch/sglaunch/internal/testkit"
)

// siteProbeTimeout is verify's bound on the site hook probe that serve and
// bench run before a load; siteHookSlack is what a loaded 2-core machine
// may add (sglaunch's own start, python's, childproc's WaitDelay).
const (
	siteProbeTimeout = 20 * time.Second
	siteHookSlack    = 5 * time.Second
)

// TestServeSiteHookDaemonHoldingStdoutBoundedByProbeTimeout: a
// sitecustomize.py that forked a daemon holding stdout made serve wait
// for the daemon (28 s in the report, here the daemon sleeps 60 s),
// although the site hook probe's timeout is 20 s. serve must refuse the
// hook's override within the probe timeout, whether the daemon stays in
// the probe's process group or leaves it with setsid, and the daemon in
// the group must be gone with the probe.
func TestServeSiteHookDaemonHoldingStdoutBoundedByProbeTimeout(t *testing.T) {
	for _, setsid := range []bool{false, true} {
		t.Run(fmt.Sprintf("setsid=%v", setsid), func(t *testing.T) {
			e := newEnv(t)
			port := testkit.FreePort(t)
			hooks, pidFile := filepath.Join(e.Dir, "hooks"), filepath.Join(e.Dir, "daemon.pid")
			detach := ""
			if setsid {
				detach = "    os.setsid()\n"
			}
			hook := fmt.Sprintf("import os, time\nos.environ['NCCL_ALGO'] = 'Tree'\nif os.fork() == 0:\n%s    open(%q, 'a').write('%%d\\n' %% os.getpid())\n    time.sleep(60)\n    os._exit(0)\n", detach, pidFile)
			if err := os.MkdirAll(hooks, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(hooks, "sitecustomize.py"), []byte(hook), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				for _, pid := range pidsIn(pidFile) {
					_ = syscall.Kill(pid, syscall.SIGKILL)
				}
			})
			e.Profile("hooked", strings.Replace(kimiOnSim(t, port), "PYTHONPATH: ${SGLAUNCH_SIM_DIR}", "PYTHONPATH: ${SGLAUNCH_SIM_DIR}:"+hooks, 1))
			start := time.Now()
			_, stderr, code := e.Run("serve", "--profile", "hooked", "--skip-preflight")
			took := time.Since(start)
			t.Logf("serve refused after %v", took)
			if code != 1 || !strings.Contains(stderr, "NCCL_ALGO=Tree (the plan says Ring)") {
				t.Fatalf("serve: exit %d, want 1 with the hook's override named\n%s", code, stderr)
			}
			if took > siteProbeTimeout+siteHookSlack {
				t.Errorf("serve took %v to refuse, want under %v (the daemon sleeps 60 s)", took, siteProbeTimeout+siteHookSlack)
			}
			if !setsid {
				for _, pid := range pidsIn(pidFile) {
					testkit.WaitFor(t, waitTimeout, fmt.Sprintf("the hook's daemon %d to go with the probe", pid), func() bool {
						return !proc.Alive(pid)
					})
				}
			}
		})
	}
}

// TestBenchAsksNvidiaSMIAndPythonOnce: one `sglaunch bench` runs preflight
// (the Python probe, nvidia-smi's GPU query) and then records the SGLang
// version and the host's GPUs; each question is asked once, and the
// answers preflight got are the record's.
func TestBenchAsksNvidiaSMIAndPythonOnce(t *testing.T) {
	e := newEnv(t)
	bin, hooks := filepath.Join(e.Dir, "bin"), filepath.Join(e.Dir, "hooks")
	smiLog, pyLog := filepath.Join(e.Dir, "nvidia-smi.log"), filepath.Join(e.Dir, "python.log")
	for _, d := range []string{bin, hooks} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	smi := "#!/bin/sh\necho \"run:$1\" >> " + smiLog + "\ncase \"$1\" in --query-gpu=*) echo '0, GPU-1, NVIDIA H200, 143771, 0, 580.159.04, 00000000:00:06.0';; *) echo 'CUDA Version: 13.0';; esac\n"
	if err := os.WriteFile(filepath.Join(bin, "nvidia-smi"), []byte(smi), 0o755); err != nil {
		t.Fatal(err)
	}
	// The SGLang-version probes are `python -c CODE [MODULE]`; the site
	// hook probe passes more arguments and the server runs with -m.
	hook := fmt.Sprintf("import sys\nif sys.argv[:1] == ['-c'] and len(sys.argv) <= 2:\n    open(%q, 'a').write(' '.join(sys.argv) + '\\n')\n", pyLog)
	if err := os.WriteFile(filepath.Join(hooks, "sitecustomize.py"), []byte(hook), 0o644); err != nil {
		t.Fatal(err)
	}
	e.Vars["PATH"] = bin + ":" + e.Vars["PATH"]
	port := testkit.FreePort(t)
	e.Profile("probed", fmt.Sprintf(`python: %s
env:
  PYTHONPATH: ${SGLAUNCH_SIM_DIR}:%s
  SGLANG_SIM_LOAD_SECONDS: "0.3"
  SGLANG_SIM_WARMUP_SECONDS: "0.1"
  SGLANG_SIM_TTFT_MS: "20"
  SGLANG_SIM_ITL_MS: "2"
args:
  model-path: sim/model
  port: %d
bench:
  workloads:
    - name: one
      input_len: 8
      output_len: 4
      requests: 1
`, testkit.RealPython(t), hooks, port))
	p := e.Start("bench", "--profile", "probed", "--json")
	if code := p.Wait(t, benchBound); code != 0 {
		t.Fatalf("bench: exit %d\n%s\n%s", code, p.Stdout(), p.Stderr())
	}
	if runs := lines(t, smiLog); len(runs) != 2 || !strings.HasPrefix(runs[0], "run:--query-gpu=") || runs[1] != "run:" {
		t.Errorf("nvidia-smi runs: got %q, want the GPU query once, then the banner", runs)
	}
	if runs := lines(t, pyLog); len(runs) != 1 || runs[0] != "-c sglang.launch_server" {
		t.Errorf("SGLang-version probes: got %q, want one, preflight's", runs)
	}
	r := onlyRecord(t, e)
	if r.SGLang != "0.5.19.dev0+sim" || !strings.HasPrefix(r.SGLangFrom, "importlib.metadata via ") {
		t.Errorf("got version %q from %q, want it from the plan's interpreter", r.SGLang, r.SGLangFrom)
	}
	if !strings.Contains(p.Stdout(), `"gpu_count": 1`) || !strings.Contains(p.Stdout(), `"cuda_version": "13.0"`) {
		t.Errorf("the record's host does not hold the GPU preflight's query listed:\n%s", p.Stdout())
	}
}

// lines reads a log, one entry a line.
func lines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

// pidsIn reads the pids a hook appended to a file.
func pidsIn(path string) []int {
	b, _ := os.ReadFile(path)
	var out []int
	for _, f := range strings.Fields(string(b)) {
		if pid, err := strconv.Atoi(f); err == nil && pid > 0 {
			out = append(out, pid)
		}
	}
	return out
}
