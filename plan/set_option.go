package plan

import (
	"strings"

	"github.com/sglaunch/sglaunch/catalog"
	"github.com/sglaunch/sglaunch/internal/inputerr"
)

// CheckSetOption answers one --set value that gives a list flag of
// numbers as a comma list (`--set args.cuda-graph-bs=1,2,4`): SGLang
// reads a list flag as separate values, so a number list is written as
// YAML.
func CheckSetOption(val string) error {
	key, v, ok := strings.Cut(val, "=")
	flag, isArg := strings.CutPrefix(key, "args.")
	v = strings.TrimSpace(v)
	if !ok || !isArg || !strings.Contains(v, ",") || strings.HasPrefix(v, "[") {
		return nil
	}
	f, found := catalog.SGLangArgs().Lookup("--" + strings.TrimLeft(flag, "-"))
	if !found || (f.Nargs != "+" && f.Nargs != "*") || (f.Type != "int" && f.Type != "float") {
		return nil
	}
	items := strings.Split(v, ",")
	for j := range items {
		items[j] = strings.TrimSpace(items[j])
	}
	return inputerr.Errorf("--set %s: %s takes a list of numbers; write it as a YAML list: --set '%s=[%s]'", val, f.Name, key, strings.Join(items, ", "))
}
