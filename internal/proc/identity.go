package proc

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// Identity names one process for later: a pid alone may be reused by an
// unrelated process once the first has gone, a pid with its start time
// may not within one boot, and the boot id tells boots apart (a runtime
// state outside tmpfs can outlive a reboot).
//
// The executable is not part of it: a process keeps its pid and start
// time across exec, and a server started through a shim (pyenv's
// python3 is a bash script that execs the real interpreter, /usr/bin/env
// python3 too) runs another executable than the one forked.
type Identity struct {
	PID       int    `json:"pid"`
	StartTime uint64 `json:"start_time,omitempty"` // clock ticks since boot
	BootID    string `json:"boot_id,omitempty"`
	// Exe was the executable at the time the identity was read; only
	// identities written by an older sglaunch without a boot id are
	// judged by it.
	Exe string `json:"exe,omitempty"`
}

// IdentityOf reads the identity of a running process.
func IdentityOf(pid int) (Identity, error) {
	st, err := ReadStat(pid)
	if err != nil {
		return Identity{}, err
	}
	return Identity{PID: pid, StartTime: st.StartTime, BootID: bootID()}, nil
}

// bootID is the kernel's random id of this boot ("" where unreadable).
var bootID = sync.OnceValue(func() string {
	b, err := os.ReadFile(filepath.Join(Root, "sys", "kernel", "random", "boot_id"))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
})

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
// time in the same boot. An identity without a start time (written by an
// older sglaunch) is judged by its pid alone, one without a boot id by
// its executable.
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
	if id.BootID != "" {
		if now := bootID(); now != "" && now != id.BootID {
			return false
		}
	} else if id.Exe != "" {
		if exe, err := Exe(id.PID); err == nil && exe != id.Exe {
			return false
		}
	}
	return true
}
