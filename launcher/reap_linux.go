package launcher

import (
	"errors"
	"os"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/sglaunch/sglaunch/internal/proc"
	"github.com/sglaunch/sglaunch/plan"
)

// becomeSubreaper makes sglaunch the child subreaper of its process tree:
// a process that leaves the server's session (setsid) and loses its parent
// is re-parented to sglaunch instead of init, so it can still be found
// through /proc parent links, killed, and reaped.
var becomeSubreaper = sync.OnceValue(func() error {
	return unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
})

// tree finds what belongs to one server: its descendants, and the orphans
// sglaunch adopted from them as subreaper. sglaunch may have children of
// its own (a bench client, a preflight probe): those are never taken.
type tree struct {
	self   int          // sglaunch's pid
	server int          // the server's main pid
	spared map[int]bool // sglaunch's children from before the server started
	// launchID is the launch's id in the server's environment ("": none);
	// an adopted child that carries it is the tree's.
	launchID string

	mu    sync.Mutex
	known map[int]uint64 // members seen so far: pid -> start time
}

func newTree(server int, spared map[int]bool, launchID string) *tree {
	return &tree{self: os.Getpid(), server: server, spared: spared, launchID: launchID, known: map[int]uint64{}}
}

// childrenOfSelf lists sglaunch's current children, to spare them later.
func childrenOfSelf() map[int]bool {
	out := map[int]bool{}
	all, err := proc.All()
	if err != nil {
		return out
	}
	self := os.Getpid()
	for pid, st := range all {
		if st.PPID == self {
			out[pid] = true
		}
	}
	return out
}

// members returns every process of the server's tree, zombies included,
// and remembers them: the server and its descendants, plus each child of
// sglaunch (and its descendants) that is an orphan adopted from that
// tree. A child of sglaunch is taken for such an orphan when it
//   - is in the server's process group or session (a worker whose parent
//     died),
//   - leads a session of its own (it called setsid: sglaunch starts
//     nothing that way except the server itself), or
//   - was seen in the server's tree before (same pid and start time), or
//   - carries this launch's id in its environment (a double-forked
//     daemon: fork, setsid, fork, the middle exits; the daemon leads no
//     session and was never seen if the middle lived under a second).
func (t *tree) members() ([]proc.Stat, error) {
	all, err := proc.All()
	if err != nil {
		return nil, err
	}
	children := map[int][]int{}
	for pid, st := range all {
		children[st.PPID] = append(children[st.PPID], pid)
	}
	live.Lock()
	others := make(map[int]bool, len(live.servers))
	for pid := range live.servers {
		others[pid] = pid != t.server
	}
	live.Unlock()

	t.mu.Lock()
	defer t.mu.Unlock()
	var out []proc.Stat
	seen := map[int]bool{}
	var walk func(pid int)
	walk = func(pid int) {
		if seen[pid] || others[pid] {
			return
		}
		seen[pid] = true
		out = append(out, all[pid])
		if st, ok := startTime(pid); ok {
			t.known[pid] = st
		}
		for _, c := range children[pid] {
			walk(c)
		}
	}
	for _, c := range children[t.self] {
		st := all[c]
		switch {
		case c == t.server:
			walk(c)
		case t.spared[c] || others[c]:
		case st.PGID == t.server || st.SID == t.server || st.SID == c:
			walk(c)
		case t.carriesLaunch(c):
			walk(c)
		default:
			if known, ok := t.known[c]; ok {
				if now, ok := startTime(c); ok && now == known {
					walk(c)
				}
			}
		}
	}
	return out, nil
}

// carriesLaunch reports whether pid's environment holds this launch's id.
func (t *tree) carriesLaunch(pid int) bool {
	if t.launchID == "" {
		return false
	}
	id, ok := proc.Getenv(pid, plan.LaunchIDVar)
	return ok && id == t.launchID
}

// sweep SIGKILLs every live member of the tree and reaps the adopted
// zombies. It reports how many members are still alive.
func (t *tree) sweep() (int, error) {
	members, err := t.members()
	if err != nil {
		return 0, err
	}
	alive := 0
	for _, st := range members {
		if st.State == 'Z' || st.State == 'X' {
			if st.PPID == t.self && st.PID != t.server {
				reap(st.PID)
			}
			continue
		}
		alive++
		if err := syscall.Kill(st.PID, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
			return alive, err
		}
	}
	return alive, nil
}

// watch notes the tree's current members (so that a member that later
// leaves the server's group and loses its parent is still known) and
// reaps the adopted orphans that have exited.
func (t *tree) watch() {
	members, err := t.members()
	if err != nil {
		return
	}
	for _, st := range members {
		if (st.State == 'Z' || st.State == 'X') && st.PPID == t.self && st.PID != t.server {
			reap(st.PID)
		}
	}
}

// reap collects one exited child that no os/exec Cmd waits for.
func reap(pid int) {
	var ws unix.WaitStatus
	_, _ = unix.Wait4(pid, &ws, unix.WNOHANG, nil)
}

// startTime is a process's start time (clock ticks since boot), which
// tells a process from a later one that reuses its pid.
func startTime(pid int) (uint64, bool) {
	st, err := proc.ReadStat(pid)
	return st.StartTime, err == nil && st.StartTime != 0
}
