package catalog

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/sglaunch/sglaunch/catalog/sglangtab"
)

// ArgsFromTables builds the flag catalog from one generated table set's
// server_args rows: the flags argparse registers for that SGLang version,
// with dests, deprecated aliases, types, defaults, choices and help.
func ArgsFromTables(t *sglangtab.Tables) (*Args, error) {
	var flags []*Flag
	for i, r := range t.ServerArgs {
		f, err := flagFromRow(r)
		if err != nil {
			return nil, fmt.Errorf("server_args row %d (%s): %w", i, r.Source, err)
		}
		flags = append(flags, f)
	}
	if len(flags) == 0 {
		return nil, fmt.Errorf("SGLang %s tables: no server arguments", t.Meta.Version)
	}
	src := fmt.Sprintf("SGLang %s python/sglang/srt/server_args.py @ commit %s (generated tables)", t.Meta.Version, t.Meta.Commit)
	return NewArgs(src, flags), nil
}

func flagFromRow(r sglangtab.ServerArg) (*Flag, error) {
	if len(r.Flags) == 0 || !strings.HasPrefix(r.Flags[0], "-") {
		return nil, fmt.Errorf("no option string")
	}
	f := &Flag{
		Name: r.Flags[0], Aliases: append([]string{}, r.Flags[1:]...), Dest: r.Dest,
		Action: "store", Type: "str", Nargs: unquote(r.Nargs), Required: r.Required,
		Deprecated: r.Deprecated, Replacement: r.NewFlag, Removed: r.Removed,
		Choices: r.ChoiceValues, Help: r.Help, humanInt: r.ValueType == "human_readable_int",
	}
	if f.Action == "store_const" || unquote(r.Action) == "DeprecatedStoreConstAction" {
		f.Const, _ = pyDefault(r.Const)
	}
	if r.Help == "SUPPRESS" {
		f.Help, f.HelpSuppressed = "", true
	}
	switch a := unquote(r.Action); a {
	case "", "store":
	case "store_true", "DeprecatedStoreTrueAction":
		f.Action = "store_true"
	case "argparse.BooleanOptionalAction", "BooleanOptionalAction":
		f.Action = "boolean_optional"
		f.Negation = "--no-" + strings.TrimPrefix(f.Name, "--")
	case "DeprecatedStoreConstAction", "store_const":
		f.Action = "store_const"
	case "DeprecatedAction":
		f.Action = "deprecated"
	case "DeprecatedAliasStoreAction":
	default:
		// A custom action (LoRAPathAction): it takes a value when the
		// table gives it a type.
		if r.ValueType == "" {
			f.Action = "store_true"
		}
	}
	if f.Action == "store" {
		f.Type = valueType(r.ValueType)
	}
	if d, ok := pyDefault(r.Default); ok && !f.Required {
		f.Default = &d
	} else if r.Default == "" && f.Action == "store_true" {
		// argparse's store_true and SGLang's DeprecatedStoreTrueAction
		// default to False.
		d := "False"
		f.Default = &d
	}
	return f, nil
}

// valueType maps an argparse type callable to the catalog's types.
func valueType(callable string) string {
	switch callable {
	case "int", "human_readable_int":
		return "int"
	case "float":
		return "float"
	case "json.loads", "json_list_type":
		return "json"
	}
	return "str"
}

// pyDefault renders a default as written in Python the way --help shows
// it: strings unquoted; no default for None, argparse.SUPPRESS or a
// computed one.
func pyDefault(src string) (string, bool) {
	switch src {
	case "", "None", "argparse.SUPPRESS":
		return "", false
	case "list()", "[]":
		return "[]", true
	case "dict()", "{}":
		return "{}", true
	}
	if strings.HasPrefix(src, "lambda") {
		return "", false // computed when the dataclass is made
	}
	if n, ok := intProduct(src); ok {
		return strconv.Itoa(n), true
	}
	if s, err := strconv.Unquote(pyQuote(src)); err == nil {
		return s, true
	}
	return src, true
}

// pyQuote turns a single-quoted Python string literal into a Go one.
func pyQuote(s string) string {
	if len(s) >= 2 && s[0] == '\'' && s[len(s)-1] == '\'' {
		return `"` + strings.ReplaceAll(strings.ReplaceAll(s[1:len(s)-1], `"`, `\"`), `\'`, `'`) + `"`
	}
	return s
}

func unquote(s string) string { return strings.Trim(s, `'"`) }

// intProduct evaluates a default written as a product of integers
// (10 * 1000 * 1000).
func intProduct(src string) (int, bool) {
	parts := strings.Split(src, "*")
	if len(parts) < 2 {
		return 0, false
	}
	n := 1
	for _, p := range parts {
		v, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil {
			return 0, false
		}
		n *= v
	}
	return n, true
}
