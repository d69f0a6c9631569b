package preflight

import (
	"github.com/sglaunch/sglaunch/catalog/sglangtab"
)

// sglangTables picks the SGLang tables generated from SGLang's source
// (catalog/sglangtab) for the installed version, as verify picks them,
// and returns their version for the report's first line and, when they
// are not that version's own, a warning saying which were taken.
func sglangTables(sg subject, version string) (string, []Finding) {
	sg.name = "sglang tables"
	c, err := sglangtab.For(version)
	if err != nil {
		return "", []Finding{sg.warn("no generated SGLang tables: "+err.Error(), "")}
	}
	if c.Exact {
		return c.Meta.Version, nil
	}
	return c.Meta.Version, []Finding{sg.warn(c.Label(),
		"preflight checks flags and SGLANG_* names by these tables where it does not read --help and the package sources, and verify judges the variables SGLang writes into its own environment by them; add a table set for this version (go run ./catalog/sglangtab/gen)")}
}
