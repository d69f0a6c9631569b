package plan

import (
	"slices"
	"strings"

	"github.com/sglaunch/sglaunch/profiles"
)

// IsManaged reports whether a variable comes only from the plan: its
// name matches one of the managed prefixes (ending in _) or names.
func (p *Plan) IsManaged(name string) bool { return MatchManaged(p.Managed, name) }

// MatchManaged reports whether name is one of managed: a listed name, or
// a name under a listed prefix (one ending in _).
func MatchManaged(managed []string, name string) bool {
	for _, m := range managed {
		if name == m || (strings.HasSuffix(m, "_") && strings.HasPrefix(name, m)) {
			return true
		}
	}
	return false
}

// LauncherEnv are variables sglaunch gives every server it starts unless
// the profile sets them. They do not change how fast it runs, so the
// fingerprint leaves them out.
//
// SPT_NOENV=1: SGLang titles its schedulers and detokenizer with the
// setproctitle package (srt/managers/scheduler.py,
// detokenizer_manager.py), which without SPT_NOENV overwrites the
// environ area: /proc/PID/environ of every TP worker then reads back as
// NUL bytes and verify could not read what the ranks run with.
var LauncherEnv = []EnvVar{
	{Name: "SPT_NOENV", Value: "1", Raw: "1", From: "sglaunch (keeps the workers' environments readable for verify)"},
}

// LaunchIDVar marks every process sglaunch starts (the server and its
// workers, command workloads and their children) with the id of its
// launch, so that a later sglaunch can find what a killed one left
// behind (internal/leftovers), in any session or process group. The
// launcher adds it at start, a fresh value per launch: it is not part of
// the plan, its fingerprint or its printed environment, and an inherited
// one (sglaunch run by a command workload) is replaced.
const LaunchIDVar = "SGLAUNCH_LAUNCH_ID"

// IsLauncherEnv reports whether name=value is one of LauncherEnv.
func IsLauncherEnv(name, value string) bool {
	for _, v := range LauncherEnv {
		if v.Name == name && v.Value == value {
			return true
		}
	}
	return false
}

// buildEnv computes the child's environment: sglaunch's own environment
// minus managed variables (unless inherited on purpose) and systemd's
// notify variables, plus the plan's variables.
func (p *Plan) buildEnv(env profiles.Section, raw map[string]string, inherit, environ []string) {
	set := map[string]bool{}
	for _, e := range env {
		set[e.Name] = true
		r, ok := raw[e.Name]
		if !ok {
			r = e.Value.Text
		}
		p.Env = append(p.Env, EnvVar{Name: e.Name, Value: e.Value.Text, Raw: r, From: e.Value.From})
	}
	p.Dropped = []Dropped{}
	for _, kv := range environ {
		name, val, _ := strings.Cut(kv, "=")
		switch {
		case slices.Contains(neverInherited, name) || name == LaunchIDVar:
			continue
		case set[name]:
			if p.IsManaged(name) {
				p.Dropped = append(p.Dropped, Dropped{Name: name, Value: val, Replaced: true})
			}
			continue
		case !p.IsManaged(name):
			p.Environ = append(p.Environ, kv)
		case slices.Contains(inherit, name):
			p.Environ = append(p.Environ, kv)
			p.Env = append(p.Env, EnvVar{Name: name, Value: val, Raw: val, From: "inherited"})
		default:
			p.Dropped = append(p.Dropped, Dropped{Name: name, Value: val})
		}
	}
	for _, e := range env {
		p.Environ = append(p.Environ, e.Name+"="+e.Value.Text)
	}
	for _, v := range LauncherEnv {
		if !set[v.Name] {
			p.Env = append(p.Env, v)
			p.Environ = append(p.Environ, v.Name+"="+v.Value)
		}
	}
	slices.SortFunc(p.Dropped, func(a, b Dropped) int { return strings.Compare(a.Name, b.Name) })
}
