package verify

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/sglaunch/sglaunch/catalog"
	"github.com/sglaunch/sglaunch/internal/redact"
	"github.com/sglaunch/sglaunch/plan"
)

// flagUse is one flag of an argv, in canonical form.
type flagUse struct {
	name   string
	values []string
	flag   *catalog.Flag
}

// canonicalUses returns the flags of an argv tail in order, the last
// occurrence of a flag winning as in argparse.
func canonicalUses(tail []string) []flagUse {
	var out []flagUse
	index := map[string]int{}
	for _, u := range catalog.SGLangArgs().Split(tail) {
		if u.Written == "" {
			continue
		}
		fu := flagUse{name: u.Canonical, values: u.Values, flag: u.Flag}
		if i, ok := index[u.Canonical]; ok {
			out[i] = fu
			continue
		}
		index[u.Canonical] = len(out)
		out = append(out, fu)
	}
	return out
}

func (u flagUse) display() string {
	if len(u.values) == 0 {
		return "(set)"
	}
	return strings.Join(redact.Argv(append([]string{u.name}, u.values...))[1:], " ")
}

func groupOf(canonical string) string {
	if plan.IsPerfNeutral(canonical) {
		return Neutral
	}
	return Perf
}

// compareFlags compares the expected argv with the server's argv and,
// where the server answered, with its parsed arguments.
func compareFlags(exp Expected, o *Observation) []Row {
	expUses := canonicalUses(argvTail(exp.Argv))
	srv, haveProc := o.Server()
	obsIndex := map[string]flagUse{}
	var obsOrder []string
	if haveProc {
		for _, u := range canonicalUses(argvTail(srv.Argv)) {
			obsIndex[u.name] = u
			obsOrder = append(obsOrder, u.name)
		}
	}
	where := "argv"
	if haveProc {
		where = fmt.Sprintf("argv of pid %d", srv.PID)
	}
	var rows []Row
	seen := map[string]bool{}
	for _, e := range expUses {
		seen[e.name] = true
		row := Row{Group: groupOf(e.name), Kind: "flag", Setting: e.name, Expected: e.display(), Where: where}
		ob, inArgv := obsIndex[e.name]
		siVal, siOK := o.serverInfoValue(e)
		switch {
		case inArgv && sameValues(e.values, ob.values):
			row.Status, row.Observed = Match, ob.display()
			if siOK && !siAgrees(e, siVal) && simpleFlag(e.flag) {
				row.Status, row.Observed, row.Where = Different, formatSI(siVal), "server_info "+e.flag.Dest
				row.Note = "the command line says " + ob.display()
			}
		case inArgv:
			row.Status, row.Observed = Different, ob.display()
		case siOK && siAgrees(e, siVal):
			row.Status, row.Observed, row.Where = Match, formatSI(siVal), "server_info "+e.flag.Dest
			row.Note = "not on the command line; the server's value agrees"
		case !haveProc && siOK:
			row.Status, row.Observed, row.Where = Different, formatSI(siVal), "server_info "+e.flag.Dest
		case !haveProc:
			row.Status, row.Where = Missing, "server_info"
			row.Note = "no process to read and no value in server_info"
		default:
			row.Status = Missing
			if siOK {
				row.Note = "server_info " + e.flag.Dest + "=" + formatSI(siVal)
			}
		}
		rows = append(rows, row)
	}
	for _, name := range obsOrder {
		if seen[name] {
			continue
		}
		u := obsIndex[name]
		rows = append(rows, Row{Group: groupOf(name), Kind: "flag", Setting: name, Status: Extra, Observed: u.display(), Where: where})
	}
	return rows
}

// serverInfoValue finds the server's parsed value of a flag by its
// ServerArgs field name.
func (o *Observation) serverInfoValue(u flagUse) (any, bool) {
	if o.ServerInfo == nil || u.flag == nil {
		return nil, false
	}
	v, ok := o.ServerInfo[u.flag.Dest]
	return v, ok
}

// simpleFlag: flags whose server_info value is the parsed command-line
// value. Deprecated aliases and JSON flags are rewritten by SGLang.
func simpleFlag(f *catalog.Flag) bool {
	return f != nil && !f.Deprecated && f.Type != "json" && (f.Action == "store" || f.Action == "store_true")
}

// siAgrees reports whether a server_info value equals the expected use.
func siAgrees(u flagUse, v any) bool {
	if u.flag == nil {
		return false
	}
	switch u.flag.Action {
	case "store_true":
		b, ok := v.(bool)
		return ok && b
	case "boolean_optional":
		b, ok := v.(bool)
		return ok && b == (u.name == u.flag.Name)
	}
	var got []string
	switch x := v.(type) {
	case []any:
		for _, it := range x {
			got = append(got, formatSI(it))
		}
	default:
		got = []string{formatSI(x)}
	}
	return sameValues(u.values, got)
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

// sameValues compares flag values as text, and as numbers where both are.
func sameValues(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] == b[i] {
			continue
		}
		x, err1 := strconv.ParseFloat(a[i], 64)
		y, err2 := strconv.ParseFloat(b[i], 64)
		if err1 != nil || err2 != nil || x != y {
			return false
		}
	}
	return true
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
