package verify

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/sglaunch/sglaunch/catalog"
	"github.com/sglaunch/sglaunch/internal/redact"
	"github.com/sglaunch/sglaunch/plan"
)

// display shows a flag's values for a report row, secrets masked.
func display(f plan.Flag) string {
	if len(f.Values) == 0 {
		return "(set)"
	}
	return strings.Join(redact.Argv(append([]string{f.Name}, f.Values...))[1:], " ")
}

func groupOf(canonical string) string {
	if plan.IsPerfNeutral(canonical) {
		return plan.Neutral
	}
	return plan.Perf
}

// compareFlags compares the expected argv with the server's argv and,
// where the server answered, with its parsed arguments.
func compareFlags(exp Expected, o *Observation) []plan.Row {
	expUses := versionSpecs(deploymentVersion(exp, o), plan.Flags(plan.ArgvTail(exp.Argv)))
	srv, haveProc := o.Server()
	obsIndex := map[string]plan.Flag{}
	var obsOrder []string
	if haveProc {
		for _, u := range plan.Flags(plan.ArgvTail(srv.Argv)) {
			obsIndex[u.Name] = u
			obsOrder = append(obsOrder, u.Name)
		}
	}
	where := "argv"
	if haveProc {
		where = fmt.Sprintf("argv of pid %d", srv.PID)
	}
	var rows []plan.Row
	seen := map[string]bool{}
	for _, e := range expUses {
		seen[e.Name] = true
		row := plan.Row{Group: groupOf(e.Name), Kind: "flag", Setting: e.Name, A: display(e), Where: where}
		ob, inArgv := obsIndex[e.Name]
		siVal, siOK := o.serverInfoValue(e)
		switch {
		case slices.ContainsFunc(e.Values, redact.IsMasked) && (inArgv || siOK):
			// Never compare a masked value: equal masks say nothing.
			row.Status, row.B = plan.NotCompared, redact.Mask
			if inArgv {
				row.B = display(ob)
			}
			row.Note = "stored masked in " + exp.Label + ": not compared"
		case inArgv && slices.Equal(e.Values, ob.Values):
			row.Status, row.B = plan.Match, display(ob)
			if siOK && !siAgrees(e, siVal) && simpleFlag(e.Spec) {
				row.Status, row.B, row.Where = plan.Different, formatSI(siVal), "server_info "+e.Spec.Dest
				row.Note = "the command line says " + display(ob)
			}
		case inArgv:
			row.Status, row.B = plan.Different, display(ob)
		case siOK && siAgrees(e, siVal):
			row.Status, row.B, row.Where = plan.Match, formatSI(siVal), "server_info "+e.Spec.Dest
			row.Note = "not on the command line; the server's value agrees"
		case !haveProc && siOK:
			row.Status, row.B, row.Where = plan.Different, formatSI(siVal), "server_info "+e.Spec.Dest
		case !haveProc:
			row.Status, row.Where = plan.Missing, "server_info"
			row.Note = "no process to read and no value in server_info"
		default:
			row.Status = plan.Missing
			if siOK {
				row.Note = "server_info " + e.Spec.Dest + "=" + formatSI(siVal)
			}
		}
		rows = append(rows, row)
	}
	for _, name := range obsOrder {
		if seen[name] {
			continue
		}
		u := obsIndex[name]
		rows = append(rows, plan.Row{Group: groupOf(name), Kind: "flag", Setting: name, Status: plan.Extra, B: display(u), Where: where})
	}
	return rows
}

// serverInfoValue finds the server's parsed value of a flag by its
// ServerArgs field name.
func (o *Observation) serverInfoValue(u plan.Flag) (any, bool) {
	if o.ServerInfo == nil || u.Spec == nil {
		return nil, false
	}
	v, ok := o.ServerInfo[u.Spec.Dest]
	return v, ok
}

// simpleFlag: flags whose server_info value is the parsed command-line
// value. Deprecated aliases and JSON flags are rewritten by SGLang.
func simpleFlag(f *catalog.Flag) bool {
	return f != nil && !f.Deprecated && f.Type != "json" && (f.Action == "store" || f.Action == "store_true")
}

// siAgrees reports whether a server_info value equals the expected use.
func siAgrees(u plan.Flag, v any) bool {
	if u.Spec == nil {
		return false
	}
	if agrees, ok := rewrittenAgrees(u, v); ok {
		return agrees
	}
	switch u.Spec.Action {
	case "store_true":
		b, ok := v.(bool)
		return ok && b
	case "boolean_optional":
		b, ok := v.(bool)
		return ok && b == (len(u.Values) == 0)
	}
	var got []string
	switch x := v.(type) {
	case []any:
		for _, it := range x {
			got = append(got, plan.CanonicalValue(u.Spec.Type, formatSI(it)))
		}
	default:
		got = []string{plan.CanonicalValue(u.Spec.Type, formatSI(x))}
	}
	return slices.Equal(u.Values, got)
}

func formatSI(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case bool:
		if x {
			return "true"
		}
		return "false"
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case string:
		return x
	case []any:
		parts := make([]string, len(x))
		for i, it := range x {
			parts[i] = formatSI(it)
		}
		return strings.Join(parts, " ")
	}
	return fmt.Sprint(v)
}
