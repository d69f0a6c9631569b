package verify

import (
	"strconv"
	"strings"

	"github.com/sglaunch/sglaunch/catalog/sglangtab"
	"github.com/sglaunch/sglaunch/plan"
)

// sglangSet is a variable SGLang sets in its own environment, which its
// workers inherit: not drift when a worker shows it. Its places come from
// the tables generated from SGLang's source for the deployment's version
// (catalog/sglangtab), never from a list kept here.
type sglangSet struct {
	Name string
	// rows are the places in SGLang's server code that write it.
	rows []sglangtab.EnvWrite
}

// sglangTables picks the generated tables for the SGLang version a
// deployment runs (its /server_info's, else the plan's interpreter's):
// the exact version's, else the nearest older with a warning.
func sglangTables(version string) sglangtab.Choice {
	c, err := sglangtab.For(version)
	if err != nil {
		// The tables are embedded and checked by their package's tests;
		// an error here is a broken build, shown rather than hidden.
		return sglangtab.Choice{Tables: &sglangtab.Tables{}, Asked: version, Warn: err.Error()}
	}
	return c
}

// serverWrite reports whether a row is a write the server's processes
// can make: SGLang's runtime (srt/), not its tests, examples or tools,
// and a named variable that ends up set.
func serverWrite(w sglangtab.EnvWrite) bool {
	if w.Name == "" || w.How == "unset" || !strings.HasPrefix(w.Source, "python/sglang/srt/") {
		return false
	}
	return !strings.Contains(w.Source, "/test") && !strings.Contains(w.Source, "unit_test") && w.Function != "examples"
}

// setBySGLang finds name among the variables SGLang (of version) writes.
// A family row (SGLANG_* copied from SGL_*) covers name when the plan's
// environment holds the name it is copied from.
func setBySGLang(version, name string, planEnv map[string]string) (sglangSet, bool) {
	s := sglangSet{Name: name}
	for _, w := range sglangTables(version).EnvWrites {
		if !serverWrite(w) {
			continue
		}
		if w.Name == name || familyCovers(w, name, planEnv) {
			s.rows = append(s.rows, w)
		}
	}
	return s, len(s.rows) > 0
}

// familyCovers: w is a prefix rewrite (Name "SGLANG_*", NameExpr "SGL_*")
// and planEnv holds the name that rewrites to name.
func familyCovers(w sglangtab.EnvWrite, name string, planEnv map[string]string) bool {
	to, ok := strings.CutSuffix(w.Name, "*")
	if !ok {
		return false
	}
	from, ok := strings.CutSuffix(w.NameExpr, "*")
	if !ok || !strings.HasPrefix(name, to) {
		return false
	}
	_, planned := planEnv[from+strings.TrimPrefix(name, to)]
	return planned
}

// note is the row note for a variable SGLang sets: under which condition,
// and where (the first place, and how many more).
func (s sglangSet) note() string { return noteFor(s.rows[0], len(s.rows)-1) }

func noteFor(w sglangtab.EnvWrite, more int) string {
	when := "always"
	if len(w.When) > 0 {
		when = "when " + strings.Join(w.When, " and ")
	}
	if w.FillsOnly && w.How == "setdefault" {
		when += ", if unset"
	}
	src := strings.TrimPrefix(w.Source, "python/sglang/")
	if more > 0 {
		src += " and " + plural(more, "other place")
	}
	return "set by SGLang " + when + " in " + w.Function + " (" + src + ")"
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// overwritesUnder reports whether w replaces a value given from outside
// under flags (a plan's, canonical): it does not only fill the variable
// in, no condition of it reads the environment (which the flags cannot
// decide: a changed value stays DIFFERENT), and each group of flags it
// needs has one given.
func overwritesUnder(w sglangtab.EnvWrite, flags map[string][]string) bool {
	if w.FillsOnly || w.ReadsEnv || w.How == "setdefault" {
		return false
	}
	for _, group := range w.Requires {
		met := false
		for _, dest := range group {
			if _, ok := flags["--"+strings.ReplaceAll(dest, "_", "-")]; ok {
				met = true
			}
		}
		if !met {
			return false
		}
	}
	return true
}

// overwrittenBySGLang reports whether SGLang (of version) replaces name's
// planned value under the expected plan's flags, and where.
func overwrittenBySGLang(exp Expected, version, name string) (sglangSet, bool) {
	s, ok := setBySGLang(version, name, exp.Env)
	if !ok {
		return s, false
	}
	flags := plan.FlagMap(plan.ArgvTail(exp.Argv), true)
	for _, w := range s.rows {
		if overwritesUnder(w, flags) {
			return sglangSet{Name: name, rows: []sglangtab.EnvWrite{w}}, true
		}
	}
	return s, false
}

// deploymentVersion is the SGLang version verify judges a deployment by:
// what its server reports, else what the plan's interpreter imports.
func deploymentVersion(exp Expected, o *Observation) string {
	if o != nil && o.Version != "" {
		return o.Version
	}
	return exp.SGLang
}

// tablesNote says which SGLang tables verify used, and why not the exact
// version's where it is not.
func tablesNote(version string) string {
	c := sglangTables(version)
	if c.Warn != "" {
		return "WARN " + c.Label()
	}
	return c.Label()
}
