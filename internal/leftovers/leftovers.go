package leftovers

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/sglaunch/sglaunch/internal/proc"
	"github.com/sglaunch/sglaunch/internal/redact"
	"github.com/sglaunch/sglaunch/internal/runstate"
	"github.com/sglaunch/sglaunch/plan"
)

// killWait bounds the wait for killed leftovers to disappear; rounds
// bounds the scans for processes they started meanwhile.
const (
	killWait = 5 * time.Second
	rounds   = 5
)

// ScratchPrefix starts the name of a command workload's scratch
// directory, before its launch id: os.TempDir()/sglaunch-bench-<id>-*.
const ScratchPrefix = "sglaunch-bench-"

// Process is one leftover that was ended.
type Process struct {
	PID  int
	Comm string   // the kernel's name for it (a retitled worker's title)
	Argv []string // secrets masked
}

// Launch is what one dead launch left, and what was done about it.
type Launch struct {
	State     *runstate.State
	Processes []Process
	Dirs      []string
	// Survivors are processes that did not die of SIGKILL within
	// killWait (a process in uninterruptible sleep, on a hung GPU).
	Survivors []int
}

// String is the report line: what was ended and why.
func (l Launch) String() string {
	s := l.State
	var parts []string
	for _, p := range l.Processes {
		cmd := strings.Join(p.Argv, " ")
		if len(cmd) > 120 {
			cmd = cmd[:120] + "..."
		}
		parts = append(parts, fmt.Sprintf("pid %d %s (%s)", p.PID, p.Comm, cmd))
	}
	for _, d := range l.Dirs {
		parts = append(parts, "scratch directory "+d)
	}
	msg := fmt.Sprintf("ended what launch %s (profile %s, %s mode, started %s) left behind: its sglaunch (pid %d) is gone; %s",
		s.LaunchID, s.Profile, s.Mode, s.StartedAt.Local().Format(time.DateTime), s.SglaunchPID, strings.Join(parts, ", "))
	if len(l.Survivors) > 0 {
		msg += fmt.Sprintf("; still alive after SIGKILL: %v", l.Survivors)
	}
	return msg
}

// Sweep finds the launches under the runtime directory dir whose
// sglaunch is gone, SIGKILLs every process that carries one of their
// launch ids, removes their scratch directories and their state files.
// It returns the launches that had anything left; a dead launch that
// left nothing only loses its state file.
func Sweep(dir string) ([]Launch, error) {
	states, err := runstate.List(dir)
	if err != nil {
		return nil, err
	}
	dead := map[string]*runstate.State{}
	for _, s := range states {
		if s.Stale && s.LaunchID != "" {
			dead[s.LaunchID] = s
		}
	}
	if len(dead) == 0 {
		return nil, nil
	}
	found := map[string]*Launch{}
	get := func(id string) *Launch {
		if found[id] == nil {
			found[id] = &Launch{State: dead[id]}
		}
		return found[id]
	}
	spare := ancestors()
	killed := map[int]bool{}
	for range rounds {
		left, err := carriers(dead, spare)
		if err != nil {
			return nil, err
		}
		fresh := 0
		for pid, id := range left {
			if !killed[pid] {
				fresh++
				killed[pid] = true
				argv, _ := proc.Cmdline(pid)
				st, _ := proc.ReadStat(pid)
				l := get(id)
				l.Processes = append(l.Processes, Process{PID: pid, Comm: st.Comm, Argv: redact.Argv(argv)})
			}
			if err := syscall.Kill(pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
				return nil, fmt.Errorf("end leftover pid %d: %w", pid, err)
			}
		}
		if len(left) == 0 || fresh == 0 && waitGone(left) {
			break
		}
	}
	if left, err := carriers(dead, spare); err == nil {
		for pid, id := range left {
			l := get(id)
			l.Survivors = append(l.Survivors, pid)
		}
	}
	for id, s := range dead {
		for _, d := range scratchDirs(id) {
			if err := os.RemoveAll(d); err == nil {
				l := get(id)
				l.Dirs = append(l.Dirs, d)
			}
		}
		if l := found[id]; l == nil || len(l.Survivors) == 0 {
			_ = runstate.RemoveFile(s.Path)
		}
	}
	var out []Launch
	for _, s := range states {
		if l := found[s.LaunchID]; l != nil {
			out = append(out, *l)
		}
	}
	return out, nil
}

// carriers returns the live processes whose environment carries one of
// the dead launches' ids, with that id; spare (sglaunch and its
// ancestors) is never returned.
func carriers(dead map[string]*runstate.State, spare map[int]bool) (map[int]string, error) {
	all, err := proc.All()
	if err != nil {
		return nil, err
	}
	out := map[int]string{}
	for pid, st := range all {
		if spare[pid] || st.State == 'Z' || st.State == 'X' {
			continue
		}
		// Unreadable: gone, or not ours to read (nor to kill).
		id, _ := proc.Getenv(pid, plan.LaunchIDVar)
		if id != "" && dead[id] != nil {
			out[pid] = id
		}
	}
	return out, nil
}

// waitGone waits up to killWait for the processes to die; it reports
// whether they did.
func waitGone(pids map[int]string) bool {
	deadline := time.Now().Add(killWait)
	for {
		alive := 0
		for pid := range pids {
			if proc.Alive(pid) {
				alive++
			}
		}
		if alive == 0 {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// ancestors are sglaunch and every process above it: never leftovers,
// even if a stale id reached their environment.
func ancestors() map[int]bool {
	out := map[int]bool{}
	for pid := os.Getpid(); pid > 1 && !out[pid]; {
		out[pid] = true
		st, err := proc.ReadStat(pid)
		if err != nil {
			break
		}
		pid = st.PPID
	}
	return out
}

// scratchDirs are the scratch directories of a launch's command
// workloads that belong to this user.
func scratchDirs(id string) []string {
	matches, _ := filepath.Glob(filepath.Join(os.TempDir(), ScratchPrefix+id+"-*"))
	var out []string
	for _, m := range matches {
		fi, err := os.Lstat(m)
		if err != nil || !fi.IsDir() {
			continue
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
			continue
		}
		out = append(out, m)
	}
	return out
}
