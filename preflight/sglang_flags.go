package preflight

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/sglaunch/sglaunch/catalog"
	"github.com/sglaunch/sglaunch/internal/pyvalue"
	"github.com/sglaunch/sglaunch/internal/redact"
	"github.com/sglaunch/sglaunch/plan"
)

// checkFlags checks every flag of the server's argv the way argparse will
// read it: unknown and ambiguous names, values given to switches, value
// counts, types, choices, deprecated and removed flags, missing required
// ones and repeats.
func checkFlags(plan *plan.Plan, args *catalog.Args, uses []catalog.Use, origin string) []Finding {
	where := argWhere(plan, uses)
	var out []Finding
	given := map[string]string{} // canonical name -> where it was first given
	for i, u := range uses {
		s := subject{CheckFlags, u.Written, where[i]}
		if u.Written == "" {
			s.name = strings.Join(u.Values, " ")
			out = append(out, s.fail("a value with no flag before it: SGLang (argparse) exits with 'unrecognized arguments'", "remove it, or put it after the flag it belongs to"))
			continue
		}
		var unknown *catalog.UnknownError
		var ambiguous *catalog.AmbiguousError
		switch {
		case errors.As(u.Err, &unknown):
			out = append(out, unknownFlag(s, args, origin))
			continue
		case errors.As(u.Err, &ambiguous):
			out = append(out, s.fail(fmt.Sprintf("ambiguous: it is a prefix of %s, so SGLang (argparse) exits with 'ambiguous option'", orList(ambiguous.Matches)),
				"write the full name, e.g. "+ambiguous.Matches[0]))
			continue
		}
		if first, ok := given[u.Canonical]; ok {
			out = append(out, s.warn(fmt.Sprintf("%s is given again (first at %s): argparse keeps only this last value", u.Canonical, first), "give it once"))
		} else {
			given[u.Canonical] = where[i]
		}
		out = append(out, checkFlagUse(s, u)...)
	}
	for _, f := range args.Flags {
		if f.Required {
			if _, ok := given[f.Name]; !ok {
				key := strings.TrimPrefix(f.Name, "--")
				out = append(out, subject{CheckFlags, f.Name, ""}.fail(
					fmt.Sprintf("required, but not given: SGLang exits at once with 'the following arguments are required: %s'", f.Name),
					fmt.Sprintf("set args.%s in the profile", key)))
			}
		}
	}
	return out
}

// unknownFlag explains a flag the list does not know. When the list came
// from the installed SGLang's --help but the catalog knows the flag, it
// may be hidden from --help rather than gone, so it only warns.
func unknownFlag(s subject, args *catalog.Args, origin string) Finding {
	fix := "remove it"
	if near := closest(s.name, args.Options()); len(near) > 0 {
		fix = didYouMean(near)
	}
	if f, _, err := catalog.SGLangArgs().Resolve(s.name); err == nil && args != catalog.SGLangArgs() {
		return s.warn(fmt.Sprintf("not listed by %s's --help, though SGLang's catalog has %s: the installed version may hide it or no longer accept it", origin, f.Name), fix)
	}
	return s.fail(fmt.Sprintf("unknown to %s: SGLang (argparse) exits with 'unrecognized arguments' after its imports, before anything loads", origin), fix)
}

// checkFlagUse checks one resolved flag and its values.
func checkFlagUse(s subject, u catalog.Use) []Finding {
	f := u.Flag
	c := &verdicts{subject: s}
	switch {
	case u.Written == f.Name:
		c.pass("valid")
	case u.Written == f.Negation:
		c.pass("valid (turns " + f.Name + " off)")
	case isAlias(f, u.Written):
		c.pass("valid alias of " + f.Name)
	default:
		c.pass(fmt.Sprintf("argparse resolves the unique prefix %s to %s", u.Written, f.Name))
	}
	if f.Removed {
		c.fail("removed from SGLang: it exits with an error naming the flag", replacementFix(f, u.Values))
	} else if f.Deprecated {
		c.warn(deprecation(f), replacementFix(f, u.Values))
	}
	switch f.Action {
	case "store":
		checkValues(c, f, u)
	default:
		if len(u.Values) > 0 {
			key := strings.TrimPrefix(u.Written, "--")
			left := display(f, strings.Join(u.Values, " "))
			c.fail(fmt.Sprintf("is a switch and takes no value, so %s is left over: SGLang (argparse) exits with 'unrecognized arguments: %s'", strconv.Quote(left), left),
				fmt.Sprintf("write %s alone (in a profile: %s: true; to leave it off, %s: false)", u.Written, key, key))
		}
	}
	return c.findings()
}

// display masks the values of a secret (--api-key); numbers of flags
// that merely mention tokens (--max-total-tokens) stay visible.
func display(f *catalog.Flag, v string) string {
	if f.Type == "str" && redact.IsSecretFlag(f.Name) && v != "" {
		return redact.Mask
	}
	return v
}

func isAlias(f *catalog.Flag, opt string) bool {
	for _, a := range f.Aliases {
		if a == opt {
			return true
		}
	}
	return false
}

// deprecation says what SGLang does with a deprecated flag.
func deprecation(f *catalog.Flag) string {
	r := f.Replacement
	switch {
	case r == "":
		return "deprecated in SGLang: it still works but warns, and a later release drops it"
	case f.Action == "store" && strings.HasPrefix(r, "--") && !strings.Contains(r, "="):
		return "deprecated alias of " + r + ": SGLang warns, and a later release drops it"
	}
	return "deprecated in SGLang, which maps it to " + r + ": it still works but warns, and a later release drops it"
}

// replacementFix is how to write a deprecated or removed flag today. It
// never drops a tuned value: the values move to the replacement, or the
// advice says that nothing takes them.
func replacementFix(f *catalog.Flag, values []string) string {
	r := f.Replacement
	vals := display(f, strings.Join(values, " "))
	switch {
	case r == "" && len(values) > 0:
		return fmt.Sprintf("remove it; SGLang names no replacement that takes its value %s", vals)
	case r == "":
		return "remove it"
	case !strings.HasPrefix(r, "--"):
		return "use " + r + " instead"
	}
	if m := valueMap(f.Help); len(m) > 0 && len(values) > 0 {
		// SGLang remaps the values after parsing (in-seq-split is zigzag):
		// the replacement takes the mapped ones, not the old words.
		mapped := make([]string, len(values))
		for i, v := range values {
			mapped[i] = v
			if to, ok := m[v]; ok {
				mapped[i] = to
			}
		}
		vals = display(f, strings.Join(mapped, " "))
	}
	var parts []string
	for _, one := range expandBraces(r) {
		name, value, hasValue := strings.Cut(one, "=")
		switch {
		case hasValue:
			parts = append(parts, name+" "+value)
		case f.Action == "store" && len(values) > 0:
			parts = append(parts, name+" "+vals)
		default:
			parts = append(parts, name)
		}
	}
	return "write " + strings.Join(parts, " ") + " instead"
}

// reValueMap reads the value mapping a deprecated flag's help states:
// "'in-seq-split' maps to 'zigzag'".
var reValueMap = regexp.MustCompile(`'([^']+)' maps to '([^']+)'`)

// valueMap is the old value → new value mapping in a flag's help text.
func valueMap(help string) map[string]string {
	m := map[string]string{}
	for _, g := range reValueMap.FindAllStringSubmatch(help, -1) {
		m[g[1]] = g[2]
	}
	return m
}

// expandBraces expands the first {a,b} group of a flag spelling, as
// SGLang's help writes two flags at once:
// --cuda-graph-backend-{decode,prefill}=disabled is
// --cuda-graph-backend-decode=disabled and
// --cuda-graph-backend-prefill=disabled. A group after "=" is a choice
// of values, not of flags, and is left alone.
func expandBraces(s string) []string {
	name, value, hasValue := strings.Cut(s, "=")
	i := strings.Index(name, "{")
	j := strings.Index(name, "}")
	if i < 0 || j < i {
		return []string{s}
	}
	var out []string
	for _, alt := range strings.Split(name[i+1:j], ",") {
		one := name[:i] + strings.TrimSpace(alt) + name[j+1:]
		if hasValue {
			one += "=" + value
		}
		out = append(out, expandBraces(one)...)
	}
	return out
}

// nargsRange is how many values a store flag takes.
func nargsRange(nargs string) (lo, hi int) {
	switch nargs {
	case "":
		return 1, 1
	case "?":
		return 0, 1
	case "+":
		return 1, -1
	case "*":
		return 0, -1
	}
	n, err := strconv.Atoi(nargs)
	if err != nil {
		return 0, -1
	}
	return n, n
}

// checkValues checks a store flag's values: their number, type and
// choice.
func checkValues(c *verdicts, f *catalog.Flag, u catalog.Use) {
	lo, hi := nargsRange(f.Nargs)
	vals := u.Values
	switch {
	case len(vals) < lo && lo == 1 && hi == 1:
		c.fail("expects a value and got none: SGLang (argparse) exits with 'expected one argument'", fmt.Sprintf("write %s VALUE", u.Written))
		return
	case len(vals) < lo:
		c.fail(fmt.Sprintf("expects at least %d value(s), got %d: SGLang (argparse) exits with an error", lo, len(vals)), fmt.Sprintf("write %s VALUE...", u.Written))
		return
	case hi >= 0 && len(vals) > hi:
		extra := display(f, strings.Join(vals[hi:], " "))
		c.fail(fmt.Sprintf("takes %d value(s), so %s is left over: SGLang (argparse) exits with 'unrecognized arguments: %s'", hi, strconv.Quote(extra), extra),
			fmt.Sprintf("write %s %s", u.Written, display(f, strings.Join(vals[:hi], " "))))
		vals = vals[:hi]
	}
	choices := f.Choices
	for _, v := range vals {
		typ := f.Type
		if typ == "int" && catalog.HumanReadableInt(f.Name) {
			typ = pyvalue.TypeHumanInt
		}
		if msg := pyvalue.TypeError(typ, v); msg != "" {
			fix := fmt.Sprintf("write %s with a%s %s value", u.Written, an(f.Type), f.Type)
			if want, ok := pyvalue.Intended(v); ok && (f.Type == "int" || f.Type == "float") {
				fix = fmt.Sprintf("write %s %s", u.Written, want)
			}
			c.fail(fmt.Sprintf("%s: SGLang (argparse) exits with 'argument %s: invalid %s value: '%s''", msg, f.Name, f.Type, v), fix)
			continue
		}
		if len(choices) > 0 && !containsStr(choices, v) {
			fix := "use one of " + shortList(choices)
			if near := closest(v, choices); len(near) > 0 {
				fix = didYouMean(near)
			}
			c.fail(fmt.Sprintf("%s is not one of its choices: SGLang (argparse) exits with 'argument %s: invalid choice: '%s''", strconv.Quote(v), f.Name, v), fix)
		}
	}
}

func an(t string) string {
	if t == "int" {
		return "n"
	}
	return ""
}

func containsStr(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// shortList shows at most ten choices.
func shortList(choices []string) string {
	if len(choices) <= 10 {
		return orList(choices)
	}
	return strings.Join(choices[:10], ", ") + fmt.Sprintf(" ... (%d in all)", len(choices))
}

// argWhere says where each use's flag was set: the profile entry (file
// and line when known, and its layer) or the arguments after --.
func argWhere(plan *plan.Plan, uses []catalog.Use) []string {
	tail := plan.Argv[3:]
	boundary := len(tail) - len(plan.Extra)
	entries := map[string]string{}
	for _, e := range plan.Args {
		from := e.Value.From
		if (from == "profile" || from == "") && plan.Source != "" {
			from = plan.Source
		}
		w := "args." + e.Name + " (" + from + ")"
		if e.Key.Line > 0 {
			w = "args." + e.Name + " at " + e.Key.String() + " (" + e.Value.From + ")"
		}
		entries["--"+e.Name] = w
	}
	out := make([]string, len(uses))
	pos := 0
	for i, u := range uses {
		start := pos
		switch {
		case u.Written == "":
			pos += len(u.Values)
		case pos < len(tail) && strings.HasPrefix(tail[pos], u.Written+"="):
			pos++
		default:
			pos += 1 + len(u.Values)
		}
		switch {
		case start >= boundary:
			out[i] = "after -- on the command line"
		default:
			out[i] = entries[u.Written]
		}
	}
	return out
}
