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

// withUnitPython takes the interpreter the unit pins for the expected
// side: verify runs in the operator's environment, whose PATH may find
// another python3 than the one the unit was written with (a false DRIFT
// on python).
func (d *Deployment) withUnitPython(exp Expected) Expected {
	if d.Located == nil {
		return exp
	}
	if p := unitPython(d.UnitPID); p != "" && p != exp.Python {
		exp.Python, exp.Interpreter = p, nil
	}
	return exp
}
