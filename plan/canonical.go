package plan

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/sglaunch/sglaunch/catalog"
)

// Flag is one server setting in canonical form: the name of the flag
// that owns the argparse dest it stores into (--tp and
// --tensor-parallel-size are --tp-size; the deprecated --cuda-graph-max-bs
// is --cuda-graph-max-bs-decode) and its values as SGLang's argparse
// stores them (0.88 and 0.880 are one float; --enable-breakable-cuda-graph
// is --cuda-graph-backend-prefill breakable). Two flags are equal exactly
// when their Names and Values are.
type Flag struct {
	Name    string   // canonical name, or the option as written when unknown
	Written string   // the option as written
	Values  []string // canonical values; none for a switch
	// Spec is the flag that names the setting (its dest's owner); nil
	// when the catalog does not know the flag.
	Spec *catalog.Flag
}

// Neutral reports whether the flag is perf-neutral.
func (f Flag) Neutral() bool { return IsPerfNeutral(f.Name) }

// Flags reads an SGLang argv tail (what follows python -m module) into
// canonical flags, in order of first appearance; a setting given twice,
// through one spelling or two, keeps its last values, as argparse does.
// Tokens before the first option are dropped.
func Flags(argv []string) []Flag {
	var out []Flag
	index := map[string]int{}
	args := sglangArgs()
	for _, u := range args.Split(argv) {
		if u.Written == "" {
			continue
		}
		f := Flag{Name: u.Canonical, Written: u.Written, Spec: args.Setting(u.Flag), Values: canonicalValues(u)}
		if i, ok := index[f.Name]; ok {
			out[i] = f
			continue
		}
		index[f.Name] = len(out)
		out = append(out, f)
	}
	return out
}

// FlagMap maps canonical flag names to canonical values; perf-neutral
// flags are kept only when withNeutral is set.
func FlagMap(argv []string, withNeutral bool) map[string][]string {
	m := map[string][]string{}
	for _, f := range Flags(argv) {
		if withNeutral || !f.Neutral() {
			m[f.Name] = f.Values
		}
	}
	return m
}

// canonicalValues are a use's values as SGLang holds them: numbers by
// their type, JSON re-encoded, a --no-x negation as "false", a
// store_const flag's stored value.
func canonicalValues(u catalog.Use) []string {
	f := u.Flag
	out := []string{}
	if f == nil {
		return append(out, u.Values...)
	}
	switch f.Action {
	case "store_const":
		for _, v := range catalog.SettingValues(f, nil) {
			out = append(out, CanonicalValue(sglangArgs().Setting(f).Type, v))
		}
		return out
	case "store_true", "deprecated":
		return out
	case "boolean_optional":
		if f.Negation != "" && u.Written == f.Negation {
			return append(out, "false")
		}
		return out
	}
	for _, v := range u.Values {
		out = append(out, CanonicalValue(f.Type, v))
	}
	return out
}

// CanonicalValue is one value of a flag of SGLang type typ (int, float,
// json, str) in canonical form: what Python's int(), float() or
// json.loads() would make of it, written back. A value the type does not
// parse stays as written (argparse rejects it; preflight says so).
func CanonicalValue(typ, v string) string {
	s := strings.TrimSpace(v)
	switch typ {
	case "int":
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return strconv.FormatInt(n, 10)
		}
	case "float":
		if x, err := strconv.ParseFloat(s, 64); err == nil {
			return strconv.FormatFloat(x, 'g', -1, 64)
		}
	case "json":
		var x any
		dec := json.NewDecoder(strings.NewReader(s))
		dec.UseNumber()
		if dec.Decode(&x) == nil && !dec.More() {
			var b bytes.Buffer
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(false)
			if enc.Encode(x) == nil {
				return strings.TrimSuffix(b.String(), "\n")
			}
		}
	}
	return v
}
