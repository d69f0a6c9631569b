package plan

import (
	"maps"
	"slices"
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
	Python      string // "" when unknown
	Module      string // "" when unknown
	// Interpreter is what Python runs, resolved (the file executed and
	// its venv), where a side knows it: a pyenv shim or a venv symlink
	// equals the interpreter it runs. Compared instead of Python when
	// both sides have it.
	Interpreter string
	SGLang      string              // the SGLang version, "" when unknown
	Args        map[string][]string // canonical flag → canonical values, perf-neutral included
	Env         map[string]string   // managed variables (and those the plan sets)
}

// Side reduces the plan to what Diff compares, secrets intact.
func (p *Plan) Side(label string) Side {
	env := make(map[string]string, len(p.Env))
	for _, e := range p.Env {
		env[e.Name] = e.Value
	}
	return project(label, p.Fingerprint, p.Python, p.Module, p.Argv, env)
}

// SideOfView reduces a stored or printed plan to what Diff compares. The
// fingerprint is recomputed by the current rules.
func SideOfView(v View, label string) Side {
	return project(label, FingerprintOf(v), v.Python, v.Module, v.Argv, v.Env)
}

// project is the one projection of a plan for comparison: its flags in
// canonical form (perf-neutral ones included) and its variables.
func project(label, fingerprint, python, module string, argv []string, env map[string]string) Side {
	s := Side{Label: label, Fingerprint: fingerprint, Python: python, Module: module,
		Args: FlagMap(ArgvTail(argv), true), Env: maps.Clone(env)}
	if s.Env == nil {
		s.Env = map[string]string{}
	}
	return s
}

// Diff lists the settings on which a and b differ, perf-relevant first,
// each group sorted by kind and name. It is the one equality rule of
// sglaunch: flags are equal when their canonical values are, variables
// when their values are; the interpreter (resolved where both sides
// know what it runs), the module and the SGLang version are compared
// where both sides know them. A setting both sides have but one holds only
// masked (redact.Mask) is compared as unknown: a row in group Unknown,
// never a match and never a difference. Masked values are never compared.
func Diff(a, b Side) []Row {
	var rows []Row
	samePython := a.Python == b.Python
	if a.Interpreter != "" && b.Interpreter != "" {
		samePython = a.Interpreter == b.Interpreter
	}
	for _, x := range []struct {
		kind, a, b string
		same       bool
	}{
		{"python", a.Python, b.Python, samePython},
		{"module", a.Module, b.Module, a.Module == b.Module},
		{"sglang version", a.SGLang, b.SGLang, a.SGLang == b.SGLang},
	} {
		if x.a != "" && x.b != "" && !x.same {
			if x.a == x.b { // one path, two interpreters: show what each runs
				x.a, x.b = a.Interpreter, b.Interpreter
			}
			rows = append(rows, Row{Group: Perf, Kind: x.kind, Setting: x.kind, A: x.a, B: x.b}.WithStatus(Different))
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
		rows = append(rows, Row{Group: group, Kind: "flag", Setting: name, A: flagText(name, va), B: flagText(name, vb)}.WithStatus(statusOf(okA, okB, masked)))
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
		rows = append(rows, Row{Group: group, Kind: "env", Setting: name, A: redact.Value(name, va), B: redact.Value(name, vb)}.WithStatus(statusOf(okA, okB, masked)))
	}
	SortByGroup(rows)
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

// statusOf is the status of a setting that differs: which side has it,
// or not compared when one holds only a mask.
func statusOf(inA, inB, masked bool) string {
	switch {
	case masked:
		return NotCompared
	case !inB:
		return Missing
	case !inA:
		return Extra
	}
	return Different
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
