package preflight

import (
	"strconv"
	"strings"

	"github.com/sglaunch/sglaunch/catalog"
	"github.com/sglaunch/sglaunch/internal/redact"
	"github.com/sglaunch/sglaunch/plan"
)

// envCheck validates one variable's value against its catalog entry
// (NCCL's or other-env.tsv's); env is the whole environment, for checks
// that involve two variables.
type envCheck func(c *verdicts, v *catalog.EnvVar, value string, env map[string]string, o *Options)

// envItem is one variable of the server's environment.
type envItem struct {
	name, value string
	where       string // the layer that set it
}

// planEnv lists the server's variables: the plan's managed ones in
// profile order, then the rest of its environment.
func planEnv(plan *plan.Plan) []envItem {
	var out []envItem
	seen := map[string]bool{}
	for _, e := range plan.Env {
		from := e.From
		if (from == "profile" || from == "") && plan.Source != "" {
			from = plan.Source
		}
		out = append(out, envItem{name: e.Name, value: e.Value, where: "env." + e.Name + " (" + from + ")"})
		seen[e.Name] = true
	}
	for _, kv := range plan.Environ {
		name, val, _ := strings.Cut(kv, "=")
		if !seen[name] {
			out = append(out, envItem{name: name, value: val, where: "sglaunch's own environment"})
			seen[name] = true
		}
	}
	return out
}

// envMap is the server's environment by name.
func envMap(items []envItem) map[string]string {
	m := map[string]string{}
	for _, it := range items {
		m[it.name] = it.value
	}
	return m
}

// shown is a value as it may appear in a finding: quoted, secrets masked.
func shown(name, value string) string {
	return strconv.Quote(redact.Value(name, value))
}
