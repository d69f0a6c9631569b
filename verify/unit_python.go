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

// unitPythonNote says when the unit pins another interpreter than the
// one the expected side names: the unit may run what its author's PATH
// found (the benchmarked interpreter) while this verifier's PATH finds
// another, or run the wrong one (a unit written from systemd's PATH).
// verify cannot tell the two apart from a bare `python: python3`; the
// row stays DIFFERENT and the note says how to judge by the benchmark.
func (d *Deployment) unitPythonNote(exp Expected) string {
	if d.Located == nil || exp.Interpreter == nil {
		return ""
	}
	pin := unitPython(d.UnitPID)
	if pin == "" || pin == exp.Python || SameInterpreter(pin, exp.Python) {
		return ""
	}
	return "the unit pins python " + pin + " (its ExecStart), and the expected side names " + exp.Python +
		": compare with the bench record (--record ID) to judge by the interpreter that was benchmarked"
}
