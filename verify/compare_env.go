package verify

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/sglaunch/sglaunch/internal/redact"
	"github.com/sglaunch/sglaunch/plan"
)

// envGroup is a variable's group: sglaunch's own launch variables
// (SPT_NOENV=1) do not change speed, so a deployment started by hand
// without them has not drifted.
func envGroup(name, want string) string {
	if plan.IsLauncherEnv(name, want) {
		return plan.Neutral
	}
	return plan.Perf
}

// effective is a variable's value as one process sees it, and where that
// value comes from.
type effective struct {
	present bool
	value   string
	where   string
}

// effectiveEnv resolves what each process sees for name: a site hook
// wins over the environment it started with (it rewrites it in-process);
// NCCL's config files fill a variable left unset.
func effectiveEnv(o *Observation, name string, p Process) effective {
	for _, c := range o.Site {
		if c.Name == name {
			if c.Unset {
				return effective{where: "site hook " + c.Where()}
			}
			return effective{present: true, value: c.After, where: "site hook " + c.Where()}
		}
	}
	if v, ok := p.Env[name]; ok {
		return effective{present: true, value: v, where: "env"}
	}
	for _, c := range p.NCCLConf {
		if c.Name == name {
			return effective{present: true, value: c.Value, where: "nccl.conf " + c.File}
		}
	}
	return effective{where: "env"}
}

// compareEnv compares the expected managed variables with what every
// observed process sees.
func compareEnv(exp Expected, o *Observation) []plan.Row {
	var rows []plan.Row
	procs := o.procsWithEnv()
	if len(procs) == 0 {
		return nil
	}
	show := func(name, v string) string { return redact.Value(name, v) }
	for _, name := range exp.EnvOrder {
		want := exp.Env[name]
		groups := groupProcs(o, procs, name)
		if redact.IsMasked(want) {
			// A record stores secrets masked: never compare the masks.
			rows = append(rows, unknownEnv(exp, name, groups, show)...)
			continue
		}
		allMatch := true
		for _, g := range groups {
			if !g.eff.present || g.eff.value != want {
				allMatch = false
			}
		}
		if allMatch {
			row := plan.Row{Group: envGroup(name, want), Kind: "env", Setting: name, Status: plan.Match, A: show(name, want), B: show(name, want), Where: describeWhere(groups)}
			if w := groups[0].eff.where; strings.HasPrefix(w, "site hook") || strings.HasPrefix(w, "nccl.conf") {
				row.Note = "not from the environment sglaunch gives"
			}
			rows = append(rows, row)
			continue
		}
		for _, g := range groups {
			row := plan.Row{Group: envGroup(name, want), Kind: "env", Setting: name, A: show(name, want), Where: g.label()}
			switch {
			case !g.eff.present:
				row.Status = plan.Missing
			case g.eff.value != want:
				row.Status, row.B = plan.Different, show(name, g.eff.value)
				if set, ok := overwrittenBySGLang(exp, deploymentVersion(exp, o), name); ok && !g.hasServer(o.ServerPID) {
					// SGLang itself replaced the plan's value: what the
					// workers run with, said as such, not a deployment fault.
					row.Status, row.Note = plan.Overridden, set.note()
				}
			default:
				continue
			}
			rows = append(rows, row)
		}
	}
	// Managed variables nobody expected.
	extra := envNames(o, procs...)
	managed := exp.Managed
	for _, name := range slices.Sorted(maps.Keys(extra)) {
		if _, ok := exp.Env[name]; ok || !plan.MatchManaged(managed, name) {
			continue
		}
		for _, g := range groupProcs(o, procs, name) {
			if !g.eff.present {
				continue
			}
			row := plan.Row{Group: plan.Perf, Kind: "env", Setting: name, Status: plan.Extra, B: show(name, g.eff.value), Where: g.label()}
			if set, ok := setBySGLang(deploymentVersion(exp, o), name, exp.Env); ok && !g.hasServer(o.ServerPID) && g.eff.where == "env" {
				row.Group, row.Note = plan.Neutral, set.note()
			}
			rows = append(rows, row)
		}
	}
	return rows
}

// unknownEnv reports a variable whose expected value is masked: UNKNOWN
// where a process has it (the real value cannot be compared with a mask),
// MISSING where none does.
func unknownEnv(exp Expected, name string, groups []procGroup, show func(string, string) string) []plan.Row {
	var rows []plan.Row
	for _, g := range groups {
		row := plan.Row{Group: envGroup(name, exp.Env[name]), Kind: "env", Setting: name, A: exp.Env[name], Where: g.label()}
		if g.eff.present {
			row.Status, row.B = plan.NotCompared, show(name, g.eff.value)
			row.Note = "stored masked in " + exp.Label + ": not compared"
		} else {
			row.Status = plan.Missing
		}
		rows = append(rows, row)
	}
	return rows
}

// procGroup is the processes that see one variable the same way.
type procGroup struct {
	eff  effective
	pids []int
}

func (g procGroup) hasServer(pid int) bool {
	for _, p := range g.pids {
		if p == pid {
			return true
		}
	}
	return false
}

func (g procGroup) label() string {
	if g.eff.where != "env" {
		return g.eff.where
	}
	ids := make([]string, len(g.pids))
	for i, p := range g.pids {
		ids[i] = strconv.Itoa(p)
	}
	if len(ids) == 1 {
		return "env of pid " + ids[0]
	}
	return "env of pids " + strings.Join(ids, ", ")
}

func describeWhere(groups []procGroup) string {
	if len(groups) == 1 && groups[0].eff.where == "env" {
		return fmt.Sprintf("env of all %d processes", len(groups[0].pids))
	}
	var parts []string
	for _, g := range groups {
		parts = append(parts, g.label())
	}
	return strings.Join(parts, "; ")
}

func groupProcs(o *Observation, procs []Process, name string) []procGroup {
	var groups []procGroup
	for _, p := range procs {
		eff := effectiveEnv(o, name, p)
		found := false
		for i := range groups {
			if groups[i].eff == eff {
				groups[i].pids = append(groups[i].pids, p.PID)
				found = true
				break
			}
		}
		if !found {
			groups = append(groups, procGroup{eff: eff, pids: []int{p.PID}})
		}
	}
	sort.SliceStable(groups, func(i, j int) bool { return groups[i].pids[0] < groups[j].pids[0] })
	return groups
}

func (o *Observation) procsWithEnv() []Process {
	var out []Process
	for _, p := range o.Procs {
		if p.Env != nil {
			out = append(out, p)
		}
	}
	return out
}

// envNames are the variable names seen anywhere in procs: in their
// environments, their NCCL config files and the site hooks.
func envNames(o *Observation, procs ...Process) map[string]bool {
	names := map[string]bool{}
	for _, p := range procs {
		for k := range p.Env {
			names[k] = true
		}
		for _, c := range p.NCCLConf {
			names[c.Name] = true
		}
	}
	for _, c := range o.Site {
		names[c.Name] = true
	}
	return names
}
