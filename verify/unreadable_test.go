package verify

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sglaunch/sglaunch/internal/proc"
)

// fakeProc writes a /proc/PID entry: stat, cmdline and environ.
func fakeProc(t *testing.T, root string, pid, ppid int, argv []string, environ string) {
	t.Helper()
	dir := filepath.Join(root, strconv.Itoa(pid))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	stat := strconv.Itoa(pid) + " (python3) S " + strconv.Itoa(ppid) + " " + strings.Repeat("0 ", 48)
	for name, data := range map[string]string{"stat": stat, "cmdline": strings.Join(argv, "\x00") + "\x00", "environ": environ} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestWorkerEnvironOverwrittenIsUnreadable pins issue 10's first defect:
// SGLang retitles its workers with setproctitle, which without SPT_NOENV
// leaves /proc/PID/environ as NUL bytes, and verify reported every
// variable MISSING in every worker (DRIFT on a correct deployment). Such
// a worker is now unreadable, said so, and the verdict rests on what
// could be read.
func TestWorkerEnvironOverwrittenIsUnreadable(t *testing.T) {
	root := t.TempDir()
	old := proc.Root
	proc.Root = root
	t.Cleanup(func() { proc.Root = old })
	fakeProc(t, root, 100, 1, serverArgv(), "PATH=/bin\x00NCCL_ALGO=Ring\x00NCCL_PROTO=LL\x00")
	fakeProc(t, root, 101, 100, []string{"sglang::scheduler_TP1"}, strings.Repeat("\x00", 300))
	o := &Observation{ServerPID: 100, Procs: []Process{readProcess(100), readProcess(101)}}
	if !o.Procs[1].EnvUnreadable || o.Procs[0].EnvUnreadable {
		t.Fatalf("unreadable: server %v, worker %v; want only the worker", o.Procs[0].EnvUnreadable, o.Procs[1].EnvUnreadable)
	}
	r := Compare(expected(), o)
	if r.Drift != 0 {
		t.Errorf("drift %d, want 0:\n%s", r.Drift, rowsText(r))
	}
	notes := strings.Join(o.notes(), "\n")
	for _, want := range []string{"pid 101 (sglang::scheduler_TP1): environment unreadable", "SPT_NOENV=1"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
	if strings.Contains(rowsText(r), "MISSING") {
		t.Errorf("a MISSING row for the unreadable worker:\n%s", rowsText(r))
	}
}
