package workload

import (
	"os"
	"strings"

	"github.com/sglaunch/sglaunch/internal/inputerr"
)

// CheckOption answers one --workload value that lists several workloads
// (`-w decode-1,sweep`): one workload per -w. A path, or a file of that
// name, is left to Select.
func CheckOption(val string) error {
	if !strings.Contains(val, ",") || strings.Contains(val, "/") {
		return nil
	}
	if _, err := os.Stat(val); err == nil {
		return nil
	}
	var fix []string
	for _, w := range strings.Split(val, ",") {
		if w = strings.TrimSpace(w); w != "" {
			fix = append(fix, "-w "+w)
		}
	}
	return inputerr.Errorf("--workload %q: one workload per option; repeat it: %s", val, strings.Join(fix, " "))
}
