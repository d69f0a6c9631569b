package verify

import (
	"github.com/sglaunch/sglaunch/catalog"
	"github.com/sglaunch/sglaunch/plan"
)

// versionSpecs gives each use the flag as the deployment's SGLang version
// registers it (its table set, the nearest older when it has none; the
// report's tables note says which): its dest names the server_info field
// to read, and whether it is deprecated there decides whether that field
// holds the value as given. A use the version's set does not know keeps
// the newest set's spec.
func versionSpecs(version string, uses []plan.Flag) []plan.Flag {
	args, _, err := catalog.ArgsFor(version)
	if err != nil {
		return uses
	}
	out := make([]plan.Flag, len(uses))
	for i, u := range uses {
		out[i] = u
		if u.Spec == nil || u.Written == "" {
			continue
		}
		if f, _, err := args.Resolve(u.Written); err == nil {
			out[i].Spec = f
		}
	}
	return out
}
