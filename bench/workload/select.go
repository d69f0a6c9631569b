package workload

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/sglaunch/sglaunch/catalog"
	"github.com/sglaunch/sglaunch/internal/inputerr"
	"github.com/sglaunch/sglaunch/profiles"
)

// DefaultWorkload runs when neither the command line nor the profile
// names any.
const DefaultWorkload = "decode-1"

// ProfileWorkloads decodes a profile's bench.workloads (none when the
// profile has no such key).
func ProfileWorkloads(p *profiles.Profile) ([]Workload, error) {
	if p == nil || p.Bench.Workloads == nil {
		return nil, nil
	}
	return Decode(p.Bench.WorkloadsFile, "bench.workloads", p.Bench.Workloads)
}

// Select resolves --workload arguments, in order: a name is looked up
// among the profile's workloads, then the built-ins; a file gives all the
// workloads it defines. Without arguments it is the profile's workloads,
// or decode-1 when the profile has none.
func Select(refs []string, profile []Workload) ([]Workload, error) {
	if len(refs) == 0 {
		if len(profile) > 0 {
			return profile, nil
		}
		w, _ := Builtin(DefaultWorkload)
		return []Workload{w}, nil
	}
	var out []Workload
	from := map[string]string{}
	add := func(w Workload, ref string) error {
		if prev, ok := from[w.Name]; ok {
			return inputerr.Errorf("--workload %s: workload %q is already selected (by --workload %s); each runs once per record", ref, w.Name, prev)
		}
		from[w.Name] = ref
		out = append(out, w)
		return nil
	}
	for _, ref := range refs {
		ref = strings.TrimSpace(ref)
		if profiles.IsPath(ref) {
			ws, err := LoadFile(ref)
			if err != nil {
				return nil, err
			}
			for _, w := range ws {
				if err := add(w, ref); err != nil {
					return nil, err
				}
			}
			continue
		}
		w, err := lookup(ref, profile)
		if err != nil {
			return nil, err
		}
		if err := add(w, ref); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func lookup(name string, profile []Workload) (Workload, error) {
	for _, w := range profile {
		if w.Name == name {
			return w, nil
		}
	}
	if w, ok := Builtin(name); ok {
		return w, nil
	}
	var names []string
	for _, w := range profile {
		names = append(names, w.Name)
	}
	for _, w := range Builtins() {
		names = append(names, w.Name)
	}
	msg := fmt.Sprintf("unknown workload %q (%v); known: %s, or give a YAML file", name, ErrNotFound, strings.Join(names, ", "))
	if near := catalog.Nearest(name, names, 1); len(near) > 0 {
		msg = fmt.Sprintf("unknown workload %q (%v); did you mean %q? known: %s, or give a YAML file", name, ErrNotFound, near[0], strings.Join(names, ", "))
	}
	if _, err := os.Stat(filepath.Clean(name)); err == nil {
		msg += fmt.Sprintf(" (to use the file %s, write ./%s)", name, name)
	}
	return Workload{}, inputerr.Wrap(&notFound{msg})
}

type notFound struct{ msg string }

func (e *notFound) Error() string        { return e.msg }
func (e *notFound) Is(target error) bool { return target == ErrNotFound }

// ForRun is what a run measures: the workloads refs name (Select), among
// the profile's (p may be nil), each with its dataset read now, so that
// a bad file is an input error before any server starts.
func ForRun(refs []string, p *profiles.Profile) ([]Workload, error) {
	fromProfile, err := ProfileWorkloads(p)
	if err != nil {
		return nil, err
	}
	ws, err := Select(refs, fromProfile)
	if err != nil {
		return nil, err
	}
	return ws, Prepare(ws)
}
