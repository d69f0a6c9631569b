package plan

import (
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/sglaunch/sglaunch/internal/redact"
)

// Groups of a difference: perf-relevant settings decide verdicts;
// perf-neutral ones (PerfNeutralFlags) are shown apart. Unknown holds the
// settings that cannot be compared because one side has only a masked
// value (a record stores secrets masked): they are neither equal nor
// different, and decide no verdict.
const (
	Perf    = "perf-relevant"
	Neutral = "perf-neutral"
	Unknown = "unknown (masked)"
)

// Side is one thing compared: a plan, a record's plan or a running
// deployment, reduced to its interpreter, module, canonical flags and
// managed variables. Values are real where the side has them (a plan, a
// deployment) and redact.Mask where it does not (a stored record); Diff
// masks them for display only.
type Side struct {
	Label       string
	Fingerprint string
	Python      string              // "" when unknown
	Module      string              // "" when unknown
	Args        map[string][]string // canonical flag → canonical values, perf-neutral included
	Env         map[string]string   // managed variables (and those the plan sets)
}

// Side reduces the plan to what Diff compares, secrets intact.
func (p *Plan) Side(label string) Side {
	s := Side{Label: label, Fingerprint: p.Fingerprint, Python: p.Python, Module: p.Module,
		Args: FlagMap(ArgvTail(p.Argv), true), Env: map[string]string{}}
	for _, e := range p.Env {
		s.Env[e.Name] = e.Value
	}
	return s
}

// SideOfView reduces a stored or printed plan to what Diff compares. The
// fingerprint is recomputed by the current rules.
func SideOfView(v View, label string) Side {
	s := Side{Label: label, Fingerprint: FingerprintOf(v), Python: v.Python, Module: v.Module,
		Args: FlagMap(ArgvTail(v.Argv), true), Env: maps.Clone(v.Env)}
	if s.Env == nil {
		s.Env = map[string]string{}
	}
	return s
}

// DiffRow is one setting on which two sides differ.
type DiffRow struct {
	Group   string `json:"group"`
	Kind    string `json:"kind"` // python, module, flag or env
	Setting string `json:"setting"`
	// A and B are the values (flag values joined by blanks, secrets
	// masked; "" for a switch); InA and InB say whether each side has
	// the setting at all.
	A   string `json:"a"`
	B   string `json:"b"`
	InA bool   `json:"in_a"`
	InB bool   `json:"in_b"`
}

// Diff lists the settings on which a and b differ, perf-relevant first,
// each group sorted by kind and name. It is the one equality rule of
// sglaunch: flags are equal when their canonical values are, variables
// when their values are; the interpreter and module are compared where
// both sides know them. A setting both sides have but one holds only
// masked (redact.Mask) is compared as unknown: a row in group Unknown,
// never a match and never a difference. Masked values are never compared.
func Diff(a, b Side) []DiffRow {
	var rows []DiffRow
	for _, x := range []struct{ kind, a, b string }{{"python", a.Python, b.Python}, {"module", a.Module, b.Module}} {
		if x.a != "" && x.b != "" && x.a != x.b {
			rows = append(rows, DiffRow{Group: Perf, Kind: x.kind, Setting: x.kind, A: x.a, B: x.b, InA: true, InB: true})
		}
	}
	for _, name := range sortedKeys(a.Args, b.Args) {
		va, okA := a.Args[name]
		vb, okB := b.Args[name]
		masked := okA && okB && (slices.ContainsFunc(va, redact.IsMasked) || slices.ContainsFunc(vb, redact.IsMasked))
		if !masked && okA == okB && slices.Equal(va, vb) {
			continue
		}
		group := Perf
		switch {
		case masked:
			group = Unknown
		case IsPerfNeutral(name):
			group = Neutral
		}
		rows = append(rows, DiffRow{Group: group, Kind: "flag", Setting: name, A: flagText(name, va), B: flagText(name, vb), InA: okA, InB: okB})
	}
	for _, name := range sortedKeys(a.Env, b.Env) {
		va, okA := a.Env[name]
		vb, okB := b.Env[name]
		masked := okA && okB && (redact.IsMasked(va) || redact.IsMasked(vb))
		if !masked && okA == okB && va == vb {
			continue
		}
		group := Perf
		if masked {
			group = Unknown
		}
		rows = append(rows, DiffRow{Group: group, Kind: "env", Setting: name, A: redact.Value(name, va), B: redact.Value(name, vb), InA: okA, InB: okB})
	}
	sort.SliceStable(rows, func(i, j int) bool { return groupRank(rows[i].Group) < groupRank(rows[j].Group) })
	return rows
}

// groupRank orders the groups of Diff's rows: perf-relevant, perf-neutral,
// unknown.
func groupRank(g string) int {
	switch g {
	case Perf:
		return 0
	case Neutral:
		return 1
	}
	return 2
}

// PerfRows keeps the perf-relevant rows.
func PerfRows(rows []DiffRow) []DiffRow {
	var out []DiffRow
	for _, r := range rows {
		if r.Group == Perf {
			out = append(out, r)
		}
	}
	return out
}

// flagText joins a flag's values for display, secrets masked.
func flagText(name string, v []string) string {
	if len(v) == 0 {
		return ""
	}
	return strings.Join(redact.Argv(append([]string{name}, v...))[1:], " ")
}

// sortedKeys returns the keys of all the maps, each once, sorted.
func sortedKeys[V any](ms ...map[string]V) []string {
	keys := map[string]bool{}
	for _, m := range ms {
		for k := range m {
			keys[k] = true
		}
	}
	return slices.Sorted(maps.Keys(keys))
}
