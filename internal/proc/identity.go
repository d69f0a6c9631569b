package proc

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Identity names one process for later: a pid alone may be reused by an
// unrelated process once the first has gone, a pid with its start time
// may not; the executable guards against a start-time clash across a
// reboot (both are kept in the runtime state, which lives in tmpfs).
type Identity struct {
	PID       int    `json:"pid"`
	StartTime uint64 `json:"start_time,omitempty"` // clock ticks since boot
	Exe       string `json:"exe,omitempty"`
}

// IdentityOf reads the identity of a running process. Exe is left empty
// when the link may not be read (another user's process).
func IdentityOf(pid int) (Identity, error) {
	st, err := ReadStat(pid)
	if err != nil {
		return Identity{}, err
	}
	id := Identity{PID: pid, StartTime: st.StartTime}
	id.Exe, _ = Exe(pid)
	return id, nil
}

// Exe is the executable pid runs, as /proc/PID/exe links to it, without
// the " (deleted)" the kernel adds once the file was replaced (a rebuilt
// binary still names the same program).
func Exe(pid int) (string, error) {
	link, err := os.Readlink(filepath.Join(Root, strconv.Itoa(pid), "exe"))
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(link, " (deleted)"), nil
}

// Running reports whether the process id names still runs: the pid is
// alive, not a zombie, and (where id recorded them) has the same start
// time and executable. An identity without a start time (written by an
// older sglaunch) is judged by its pid alone.
func (id Identity) Running() bool {
	if id.PID <= 0 {
		return false
	}
	st, err := ReadStat(id.PID)
	if err != nil || st.State == 'Z' || st.State == 'X' {
		return false
	}
	if id.StartTime != 0 && st.StartTime != id.StartTime {
		return false
	}
	if id.Exe != "" {
		if exe, err := Exe(id.PID); err == nil && exe != id.Exe {
			return false
		}
	}
	return true
}
