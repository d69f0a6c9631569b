package plan

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/sglaunch/sglaunch/catalog"
	"github.com/sglaunch/sglaunch/internal/inputerr"
	"github.com/sglaunch/sglaunch/internal/pyvalue"
	"github.com/sglaunch/sglaunch/internal/yamlnode"
	"github.com/sglaunch/sglaunch/profiles"
)

// checkArgTypes refuses a value that SGLang's argparse would refuse for
// a flag the catalog types as an integer or a number (tp: eight): the
// server would exit at start-up, after the plan was printed as good.
// Flags the catalog does not know, or types as str or json, are not
// judged here; preflight judges them against the installed SGLang.
func checkArgTypes(args profiles.Section) error {
	for _, e := range args {
		f, _, err := sglangArgs().Resolve("--" + e.Name)
		if err != nil || !f.TakesValue() {
			continue
		}
		typ := f.Type
		if typ == pyvalue.TypeInt && catalog.HumanReadableInt(f.Name) {
			typ = pyvalue.TypeHumanInt
		}
		if typ != pyvalue.TypeInt && typ != pyvalue.TypeHumanInt && typ != pyvalue.TypeFloat {
			continue
		}
		var vals []string
		switch e.Value.Kind {
		case profiles.Scalar:
			vals = []string{e.Value.Text}
		case profiles.List:
			vals = e.Value.List
		}
		for _, v := range vals {
			if pyvalue.TypeError(typ, v) != "" {
				return argTypeError(e, f, typ, v)
			}
		}
	}
	return nil
}

// argTypeError names the flag, what it takes, and the value that would
// be right, written where the bad one was: the profile's line, --set or
// SGLAUNCH_SET.
func argTypeError(e profiles.Entry, f *catalog.Flag, typ, bad string) error {
	takes := "an integer"
	switch typ {
	case pyvalue.TypeHumanInt:
		takes = "an integer (or 128k, 4K)"
	case pyvalue.TypeFloat:
		takes = "a number"
	}
	msg := fmt.Sprintf("--%s takes %s, not %s: SGLang (argparse) would exit with 'argument %s: invalid %s value'", e.Name, takes, strconv.Quote(bad), f.Name, f.Type)
	fixed, ok := fixedValue(e.Value, f, typ)
	if e.Value.Pos.File != "" {
		fix := "write " + takes + " there"
		if ok {
			fix = "write " + e.Name + ": " + fixed
		}
		return yamlnode.Errorf(e.Value.Pos, "args."+e.Name, "%s; %s", msg, fix)
	}
	where, fix := e.Value.From+" args."+e.Name, "give "+takes
	switch {
	case strings.HasPrefix(e.Value.From, "SGLAUNCH_") && e.Value.From != "SGLAUNCH_SET":
		// SGLAUNCH_HOST, SGLAUNCH_PORT: the variable is the value.
		where = e.Value.From
		if ok {
			fix = fmt.Sprintf("write %s=%s", e.Value.From, fixed)
		}
	case ok && e.Value.From == "SGLAUNCH_SET":
		fix = fmt.Sprintf("write SGLAUNCH_SET='args.%s=%s'", e.Name, fixed)
	case ok && strings.Contains(fixed, " "):
		fix = fmt.Sprintf("write %s 'args.%s=%s'", e.Value.From, e.Name, fixed)
	case ok:
		fix = fmt.Sprintf("write %s args.%s=%s", e.Value.From, e.Name, fixed)
	}
	return inputerr.Errorf("%s: %s; %s", where, msg, fix)
}

// fixedValue is the value as it was meant (eight -> 8; a comma list for
// a list flag -> [1, 2, 4]), when every item can be guessed.
func fixedValue(v profiles.Value, f *catalog.Flag, typ string) (string, bool) {
	items := v.List
	if v.Kind == profiles.Scalar {
		items = []string{v.Text}
		if f.Nargs == "+" || f.Nargs == "*" {
			items = strings.FieldsFunc(v.Text, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
		}
	}
	if len(items) == 0 {
		return "", false
	}
	out := make([]string, len(items))
	for i, it := range items {
		it = strings.TrimSpace(it)
		if pyvalue.TypeError(typ, it) == "" {
			out[i] = it
			continue
		}
		want, ok := pyvalue.Intended(it)
		if !ok {
			return "", false
		}
		out[i] = want
	}
	if v.Kind == profiles.List || len(out) > 1 {
		return "[" + strings.Join(out, ", ") + "]", true
	}
	return out[0], true
}
