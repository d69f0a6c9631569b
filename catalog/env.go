package catalog

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// ParseRule says how the program that reads a variable turns its text
// into a value.
type ParseRule string

const (
	// ParseStrtoll is NCCL_PARAM: strtoll(v, NULL, 0) keeps the numeric
	// prefix ("4M" is 4, "010" is octal 8, "true" is 0) and is cached
	// after the first read.
	ParseStrtoll ParseRule = "strtoll"
	// ParseStrtol is strtol(v, NULL, 0) read again at every communicator
	// init.
	ParseStrtol ParseRule = "strtol"
	// ParseTyped is NCCL 2.30's typed parameter: the whole string must
	// parse; an invalid value silently means the default.
	ParseTyped ParseRule = "typed"
	// ParseRaw is a variable-specific parser; Notes describes it.
	ParseRaw ParseRule = "raw"
	// ParseOther is a variable read by another component (CUDA, PyTorch);
	// Notes says how.
	ParseOther ParseRule = "other"
)

// IntRange is an inclusive range of integers; a bound is absent when its
// Has flag is false.
type IntRange struct {
	Min, Max       int64
	HasMin, HasMax bool
}

// Contains reports whether n lies in the range.
func (r IntRange) Contains(n int64) bool {
	return (!r.HasMin || n >= r.Min) && (!r.HasMax || n <= r.Max)
}

func (r IntRange) String() string {
	switch {
	case r.HasMin && r.HasMax:
		return fmt.Sprintf("%d..%d", r.Min, r.Max)
	case r.HasMin:
		return fmt.Sprintf(">=%d", r.Min)
	case r.HasMax:
		return fmt.Sprintf("<=%d", r.Max)
	}
	return "any"
}

// KeyValue is one key of a key:value list variable
// (PYTORCH_CUDA_ALLOC_CONF) with the values it takes, as written.
type KeyValue struct {
	Key  string
	Spec string
}

// EnvVar is one environment variable of a reference catalog.
type EnvVar struct {
	Name      string
	Component string // who reads it: "NCCL 2.30.7", "PyTorch c10d", ...
	Type      string // bool, int, enum, list or string
	Valid     string // valid values or range, as written
	Default   string
	Parse     ParseRule
	OnInvalid string // what the reader does with a bad value, as written
	Notes     string
	Source    string // where it is read: file:line or a document

	// Derived from the text above.

	// Range is the documented range of an int; zero when none is stated.
	Range IntRange
	// Ints are the integers an enum or bool lists as its values, or the
	// special values an int accepts beside its range (-1 = auto).
	Ints []int64
	// Closed is true when Ints lists every valid value.
	Closed bool
	// Tokens are the words an enum or list takes (Ring, Tree; LL, LL128).
	Tokens []string
	// CaseInsensitive is true when Tokens match in any case.
	CaseInsensitive bool
	// OnlyOne is a bool that acts only at exactly 1: 2 or "true" do nothing.
	OnlyOne bool
	// NonzeroOn is a bool where any nonzero integer means on.
	NonzeroOn bool
	// Dead is a variable the reader defines but never consults.
	Dead bool
	// Deprecated is a variable its reader still reads but wants gone;
	// Replacement says what to write instead, when there is one.
	Deprecated  bool
	Replacement string
	// Aliases are legacy names the reader also accepts for this variable.
	Aliases []string
	// Keys are the keys of a key:value list variable.
	Keys []KeyValue
}

// RemovedEnv is a name an older release read that the catalogued one
// ignores.
type RemovedEnv struct {
	Name     string
	LastSeen string // last release that read it, or "(before X)"
	Note     string
}

// EnvCatalog is a set of environment variables with lookup by name.
type EnvCatalog struct {
	Source  string
	Vars    []*EnvVar
	Removed []*RemovedEnv
	byName  map[string]*EnvVar
	byAlias map[string]*EnvVar
	removed map[string]*RemovedEnv
	names   []string
}

// Lookup finds a variable by its exact name.
func (c *EnvCatalog) Lookup(name string) (*EnvVar, bool) {
	v, ok := c.byName[name]
	return v, ok
}

// LookupAlias finds the variable a legacy alias stands for.
func (c *EnvCatalog) LookupAlias(name string) (*EnvVar, bool) {
	v, ok := c.byAlias[name]
	return v, ok
}

// LookupRemoved finds a name older releases read and this one ignores.
func (c *EnvCatalog) LookupRemoved(name string) (*RemovedEnv, bool) {
	r, ok := c.removed[name]
	return r, ok
}

// Names returns every current variable name, sorted.
func (c *EnvCatalog) Names() []string { return c.names }

func (c *EnvCatalog) index() {
	c.byName = map[string]*EnvVar{}
	c.byAlias = map[string]*EnvVar{}
	c.removed = map[string]*RemovedEnv{}
	for _, v := range c.Vars {
		c.byName[v.Name] = v
		c.names = append(c.names, v.Name)
		for _, a := range v.Aliases {
			c.byAlias[a] = v
		}
	}
	for _, r := range c.Removed {
		c.removed[r.Name] = r
	}
	sort.Strings(c.names)
}

var (
	ncclOnce, otherOnce sync.Once
	ncclVal, otherVal   *EnvCatalog
	ncclErr, otherErr   error
)

// NCCLEnv returns the embedded NCCL 2.30.7 variable catalog with the
// names older releases read.
func NCCLEnv() *EnvCatalog {
	ncclOnce.Do(func() { ncclVal, ncclErr = ParseNCCLEnv(ncclEnvTSV, ncclEnvRemovedTSV) })
	if ncclErr != nil {
		// Embedded data; a parse failure is a build defect the tests catch.
		panic(fmt.Sprintf("catalog: embedded nccl-env.tsv: %v", ncclErr))
	}
	return ncclVal
}

// OtherEnv returns the embedded catalog of related CUDA, PyTorch, OpenMP
// and vLLM variables.
func OtherEnv() *EnvCatalog {
	otherOnce.Do(func() { otherVal, otherErr = ParseOtherEnv(otherEnvTSV) })
	if otherErr != nil {
		panic(fmt.Sprintf("catalog: embedded other-env.tsv: %v", otherErr))
	}
	return otherVal
}

// tsv reads a header row and returns each following row as a map.
func tsv(text string, want ...string) ([]map[string]string, error) {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	if len(lines) == 0 {
		return nil, fmt.Errorf("empty file")
	}
	head := strings.Split(lines[0], "\t")
	for _, w := range want {
		found := false
		for _, h := range head {
			found = found || h == w
		}
		if !found {
			return nil, fmt.Errorf("header: no column %q", w)
		}
	}
	var rows []map[string]string
	for i, line := range lines[1:] {
		if strings.TrimSpace(line) == "" {
			continue
		}
		cells := strings.Split(line, "\t")
		if len(cells) > len(head) {
			return nil, fmt.Errorf("line %d: %d columns, want at most %d", i+2, len(cells), len(head))
		}
		row := map[string]string{}
		for j, c := range cells {
			row[head[j]] = strings.TrimSpace(c)
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// ParseNCCLEnv parses nccl-env.tsv and nccl-env-removed.tsv.
func ParseNCCLEnv(varsTSV, removedTSV string) (*EnvCatalog, error) {
	rows, err := tsv(varsTSV, "name", "type", "valid_values_or_range", "default", "parse_rule", "on_invalid_value", "notes")
	if err != nil {
		return nil, fmt.Errorf("nccl-env.tsv: %w", err)
	}
	c := &EnvCatalog{Source: "NCCL 2.30.7"}
	for _, r := range rows {
		v := &EnvVar{
			Name: r["name"], Component: "NCCL 2.30.7", Type: r["type"],
			Valid: r["valid_values_or_range"], Default: r["default"],
			OnInvalid: r["on_invalid_value"], Notes: r["notes"], Source: r["source_(NCCL_2.30.7)"],
		}
		switch rule := r["parse_rule"]; {
		case strings.HasPrefix(rule, "NCCL_PARAM"):
			v.Parse = ParseStrtoll
		case strings.HasPrefix(rule, "strtol("):
			v.Parse = ParseStrtol
		case strings.HasPrefix(rule, "typed param"):
			v.Parse = ParseTyped
		case strings.HasPrefix(rule, "raw string"):
			v.Parse = ParseRaw
		default:
			return nil, fmt.Errorf("nccl-env.tsv: %s: unknown parse rule %q", v.Name, rule)
		}
		if !strings.HasPrefix(v.Name, "NCCL_") {
			return nil, fmt.Errorf("nccl-env.tsv: %q is not an NCCL_ name", v.Name)
		}
		derive(v)
		c.Vars = append(c.Vars, v)
	}
	removed, err := tsv(removedTSV, "name", "last_seen_in_sampled_tags", "note")
	if err != nil {
		return nil, fmt.Errorf("nccl-env-removed.tsv: %w", err)
	}
	for _, r := range removed {
		c.Removed = append(c.Removed, &RemovedEnv{Name: r["name"], LastSeen: r["last_seen_in_sampled_tags"], Note: r["note"]})
	}
	c.index()
	return c, nil
}

// ParseOtherEnv parses other-env.tsv. A valid-values cell "as above"
// repeats the row before it.
func ParseOtherEnv(text string) (*EnvCatalog, error) {
	rows, err := tsv(text, "name", "component", "type", "valid_values", "default", "validation_notes")
	if err != nil {
		return nil, fmt.Errorf("other-env.tsv: %w", err)
	}
	c := &EnvCatalog{Source: "CUDA, PyTorch, OpenMP and vLLM documentation"}
	above := map[string]string{} // the last valid values of each type
	for _, r := range rows {
		valid := r["valid_values"]
		if valid == "as above" {
			valid = above[r["type"]]
		}
		above[r["type"]] = valid
		v := &EnvVar{
			Name: r["name"], Component: r["component"], Type: r["type"], Valid: valid,
			Default: r["default"], Parse: ParseOther, Notes: r["validation_notes"], Source: r["source"],
		}
		derive(v)
		for _, m := range reAlias.FindAllStringSubmatch(v.Notes, -1) {
			if m[1] != v.Name {
				v.Aliases = append(v.Aliases, m[1])
			}
		}
		if m := reNewName.FindStringSubmatch(v.Notes); m != nil && m[2] == v.Name {
			v.Aliases = append(v.Aliases, m[1])
		}
		c.Vars = append(c.Vars, v)
	}
	c.index()
	return c, nil
}

var (
	reRange     = regexp.MustCompile(`(-?\d+)\s*\.\.\s*(-?\d+)\b`)
	reMin       = regexp.MustCompile(`(?:^|[\s,;(])(>=|>)\s*(-?\d+)\b`)
	reIntChoice = regexp.MustCompile(`(?:^|[|,;]\s*)(-?\d+)\s*(?:=|\||;|,|$|\()`)
	rePipeList  = regexp.MustCompile(`^([A-Za-z0-9_]+(?:\|[A-Za-z0-9_]+)+)`)
	reCommaList = regexp.MustCompile(`comma list of ([A-Za-z0-9_]+(?:,[A-Za-z0-9_]+)+)`)
	reOnlyOne   = regexp.MustCompile(`only (?:exactly 1|==\s*1)|==\s*1 exactly`)
	reAlias     = regexp.MustCompile(`\b[Aa]lias ([A-Z][A-Z0-9_]+)`)
	reNewName   = regexp.MustCompile(`name it ([A-Z][A-Z0-9_]+) with ([A-Z][A-Z0-9_]+) as alias`)
	reLegacyOf  = regexp.MustCompile(`legacy alias of ([A-Z][A-Z0-9_]+)`)
	reMapsTo    = regexp.MustCompile(`maps to ([A-Z][A-Z0-9_]+=[A-Za-z0-9_]+)`)
	reKeyValue  = regexp.MustCompile(`(?:^|,\s*|key:value:\s*)([a-z][a-z0-9_]*):([^,]+)`)
	reDeprNote  = regexp.MustCompile(`(?:^|;\s*)deprecated\s*(?:$|;)`)
)

// derive fills the fields read from the free text of a row.
func derive(v *EnvVar) {
	valid := v.Valid
	v.CaseInsensitive = strings.Contains(valid, "case-insensitive")
	v.OnlyOne = reOnlyOne.MatchString(valid) || reOnlyOne.MatchString(v.Notes)
	v.NonzeroOn = strings.Contains(valid, "nonzero = on")
	v.Dead = strings.HasPrefix(v.Notes, "DEAD")
	if m := reLegacyOf.FindStringSubmatch(valid); m != nil {
		v.Deprecated, v.Replacement = true, m[1]
	}
	if reDeprNote.MatchString(v.Notes) {
		v.Deprecated = true
		if m := reMapsTo.FindStringSubmatch(v.Notes); m != nil {
			v.Replacement = m[1]
		}
	}

	// Tokens: "comma list of A,B,C", a leading "A|B|C", or "A | B | C".
	switch {
	case v.Type == "int" && rePipeList.MatchString(valid):
		v.Tokens = strings.Split(rePipeList.FindStringSubmatch(valid)[1], "|")
	case v.Type != "enum" && v.Type != "list" && v.Type != "bool":
	case reCommaList.MatchString(valid):
		v.Tokens = strings.Split(reCommaList.FindStringSubmatch(valid)[1], ",")
	case rePipeList.MatchString(valid):
		v.Tokens = strings.Split(rePipeList.FindStringSubmatch(valid)[1], "|")
	case strings.Contains(valid, " | "):
		for _, piece := range strings.Split(valid, "|") {
			if f := strings.Fields(piece); len(f) > 0 {
				v.Tokens = append(v.Tokens, f[0])
			}
		}
	}
	if allInts(v.Tokens) {
		for _, t := range v.Tokens {
			n, _ := strconv.ParseInt(t, 10, 64)
			v.Ints = append(v.Ints, n)
		}
		v.Tokens, v.Closed = nil, true
	}

	// Integers: a documented range and the listed or special values.
	// Text that leaves the set open ("other", "any") lists no values.
	// A range is stated for ints only; enums and bools list values.
	if v.Type == "int" && !strings.Contains(valid, " or >=") {
		if m := reRange.FindStringSubmatch(valid); m != nil {
			v.Range.Min, _ = strconv.ParseInt(m[1], 10, 64)
			v.Range.Max, _ = strconv.ParseInt(m[2], 10, 64)
			v.Range.HasMin, v.Range.HasMax = true, true
		} else if m := reMin.FindStringSubmatch(valid); m != nil {
			n, _ := strconv.ParseInt(m[2], 10, 64)
			if m[1] == ">" {
				n++
			}
			v.Range.Min, v.Range.HasMin = n, true
		}
	}
	if v.Type == "int" || v.Type == "enum" || v.Type == "bool" {
		if len(v.Tokens) == 0 && !strings.Contains(valid, "other") && !strings.Contains(valid, "any") {
			for _, m := range reIntChoice.FindAllStringSubmatch(valid, -1) {
				n, _ := strconv.ParseInt(m[1], 10, 64)
				if !containsInt(v.Ints, n) {
					v.Ints = append(v.Ints, n)
				}
			}
			v.Closed = v.Closed || (v.Type != "int" && len(v.Ints) > 0)
		}
	}
	if strings.Contains(valid, "key:value") {
		body := valid
		if i := strings.Index(body, " (+"); i >= 0 {
			body = body[:i]
		}
		for _, m := range reKeyValue.FindAllStringSubmatch(body, -1) {
			v.Keys = append(v.Keys, KeyValue{Key: m[1], Spec: strings.TrimSpace(m[2])})
		}
	}
}

func allInts(tokens []string) bool {
	if len(tokens) == 0 {
		return false
	}
	for _, t := range tokens {
		if _, err := strconv.ParseInt(t, 10, 64); err != nil {
			return false
		}
	}
	return true
}

func containsInt(s []int64, n int64) bool {
	for _, x := range s {
		if x == n {
			return true
		}
	}
	return false
}
