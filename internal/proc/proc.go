package proc

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Root is the procfs mount; tests may point it elsewhere.
var Root = "/proc"

// Stat is the part of /proc/PID/stat sglaunch uses.
type Stat struct {
	PID, PPID, PGID, SID int
	State                byte   // R, S, D, Z, X, ...
	Comm                 string // the kernel's short name (15 chars)
	// StartTime is when the process started, in clock ticks since boot:
	// with the pid it tells a process from a later one that reuses the
	// pid. 0 when the stat line is too short to say.
	StartTime uint64
}

// ReadStat parses /proc/PID/stat.
func ReadStat(pid int) (Stat, error) {
	b, err := os.ReadFile(filepath.Join(Root, strconv.Itoa(pid), "stat"))
	if err != nil {
		return Stat{}, err
	}
	return parseStat(string(b))
}

func parseStat(s string) (Stat, error) {
	// comm may hold spaces and parentheses: it runs from the first '('
	// to the last ')'.
	open, close := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || close < open {
		return Stat{}, fmt.Errorf("malformed stat %q", s)
	}
	var st Stat
	var err error
	if st.PID, err = strconv.Atoi(strings.TrimSpace(s[:open])); err != nil {
		return Stat{}, fmt.Errorf("malformed stat pid: %w", err)
	}
	st.Comm = s[open+1 : close]
	f := strings.Fields(s[close+1:])
	if len(f) < 4 || len(f[0]) != 1 {
		return Stat{}, fmt.Errorf("malformed stat %q", s)
	}
	st.State = f[0][0]
	for i, dst := range []*int{&st.PPID, &st.PGID, &st.SID} {
		if *dst, err = strconv.Atoi(f[i+1]); err != nil {
			return Stat{}, fmt.Errorf("malformed stat field %d: %w", i+4, err)
		}
	}
	if len(f) >= 20 {
		if st.StartTime, err = strconv.ParseUint(f[19], 10, 64); err != nil {
			return Stat{}, fmt.Errorf("malformed stat field 22: %w", err)
		}
	}
	return st, nil
}

// Alive reports whether pid exists and is not a zombie.
func Alive(pid int) bool {
	st, err := ReadStat(pid)
	return err == nil && st.State != 'Z' && st.State != 'X'
}

// All returns the stat of every process, keyed by pid.
func All() (map[int]Stat, error) {
	entries, err := os.ReadDir(Root)
	if err != nil {
		return nil, err
	}
	out := map[int]Stat{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, err := ReadStat(pid); err == nil {
			out[pid] = st
		}
	}
	return out, nil
}

// Descendants returns every live descendant of pid through parent links,
// parents before children, sorted by pid within a generation.
func Descendants(pid int) ([]int, error) {
	all, err := All()
	if err != nil {
		return nil, err
	}
	children := map[int][]int{}
	for p, st := range all {
		children[st.PPID] = append(children[st.PPID], p)
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		next := queue[0]
		queue = queue[1:]
		kids := children[next]
		sort.Ints(kids)
		for _, k := range kids {
			if k != pid && all[k].State != 'Z' {
				out = append(out, k)
			}
			queue = append(queue, k)
		}
	}
	return out, nil
}

// Cmdline returns the argv of pid.
func Cmdline(pid int) ([]string, error) {
	b, err := os.ReadFile(filepath.Join(Root, strconv.Itoa(pid), "cmdline"))
	if err != nil {
		return nil, err
	}
	return splitNul(b), nil
}

// Environ returns the environment pid started with (NAME=value entries).
// It is the environment given at exec; changes the process made to its
// own environment later do not show.
func Environ(pid int) ([]string, error) {
	b, err := os.ReadFile(filepath.Join(Root, strconv.Itoa(pid), "environ"))
	if err != nil {
		if errors.Is(err, os.ErrPermission) {
			return nil, fmt.Errorf("read environment of pid %d: %w (run as the server's user or root)", pid, err)
		}
		return nil, err
	}
	return splitNul(b), nil
}

// EnvMap turns NAME=value entries into a map.
func EnvMap(environ []string) map[string]string {
	m := make(map[string]string, len(environ))
	for _, kv := range environ {
		k, v, _ := strings.Cut(kv, "=")
		m[k] = v
	}
	return m
}

func splitNul(b []byte) []string {
	b = bytes.TrimRight(b, "\x00")
	if len(b) == 0 {
		return nil
	}
	parts := bytes.Split(b, []byte{0})
	out := make([]string, len(parts))
	for i, p := range parts {
		out[i] = string(p)
	}
	return out
}
