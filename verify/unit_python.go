package verify

import (
	"path/filepath"
	"strings"

	"github.com/sglaunch/sglaunch/internal/proc"
)

// unitPython is the interpreter a unit's ExecStart pins (`sglaunch unit`
// writes `--set python=/abs/python3`, the interpreter the operator's plan
// resolved), read from the command line of the unit's sglaunch; "" when
// it pins none.
func unitPython(pid int) string {
	if pid <= 0 {
		return ""
	}
	argv, err := proc.Cmdline(pid)
	if err != nil {
		return ""
	}
	return pinnedPython(argv)
}

// pinnedPython finds the last python= override of an sglaunch command
// line (--set python=P or --set=python=P), when P is absolute.
func pinnedPython(argv []string) string {
	found := ""
	for i, a := range argv {
		v := ""
		switch {
		case a == "--set" && i+1 < len(argv):
			v = argv[i+1]
		case strings.HasPrefix(a, "--set="):
			v = strings.TrimPrefix(a, "--set=")
		}
		if p, ok := strings.CutPrefix(v, "python="); ok && filepath.IsAbs(p) {
			found = p
		}
	}
	return found
}

// withUnitPython takes, for a plan that names python by a bare name
// (python: python3), the interpreter the unit's ExecStart pins: `sglaunch
// unit` pinned what its author's PATH found, and this verifier's PATH may
// find another (a false DRIFT on python). A plan or record that names an
// absolute interpreter is judged by it: a unit running another one is
// drift.
func (d *Deployment) withUnitPython(exp Expected) (Expected, string) {
	if d.Located == nil || !exp.PythonOnPath {
		return exp, ""
	}
	pin := unitPython(d.UnitPID)
	if pin == "" || pin == exp.Python {
		return exp, ""
	}
	note := "python: the interpreter the unit's ExecStart pins (" + pin + "), not " + exp.Python +
		", which this verifier's PATH finds for the profile's bare name; --record ID judges by the benchmarked one"
	exp.Python, exp.Interpreter = pin, nil
	return exp, note
}
