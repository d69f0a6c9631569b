package catalog

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// SGLangEnv is one variable of SGLang's environment registry (Envs in
// python/sglang/srt/environ.py).
type SGLangEnv struct {
	Name    string
	Type    string // EnvBool, EnvInt, EnvFloat, EnvStr, EnvJSON, EnvTuple
	Default string
	Secret  bool
}

// SGLangRetired is a variable SGLang no longer reads as written: renamed
// (Replacement is the new name), replaced by a flag (Replacement starts
// with --), or removed outright (Replacement is empty).
type SGLangRetired struct {
	Name        string
	Replacement string
	// Removed is true when SGLang no longer acts on the name.
	Removed bool
	Note    string
	// Warning is what SGLang logs at start-up when a removed name is set
	// anyway; empty when it says nothing.
	Warning string
}

// SGLangEnvs is the SGLang environment catalog.
type SGLangEnvs struct {
	Source string
	Vars   []*SGLangEnv
	// Direct are names read with os.getenv outside the registry.
	Direct  []string
	Retired []*SGLangRetired
	aliases []*SGLangRetired // deprecated aliases of registry names
	byName  map[string]*SGLangEnv
	retired map[string]*SGLangRetired
	direct  map[string]bool
	names   []string
}

// Lookup finds a registry variable.
func (c *SGLangEnvs) Lookup(name string) (*SGLangEnv, bool) {
	v, ok := c.byName[name]
	return v, ok
}

// LookupRetired finds a renamed, replaced or removed variable.
func (c *SGLangEnvs) LookupRetired(name string) (*SGLangRetired, bool) {
	r, ok := c.retired[name]
	return r, ok
}

// Reads reports whether SGLang reads the name: a registry variable or one
// read directly.
func (c *SGLangEnvs) Reads(name string) bool {
	_, ok := c.byName[name]
	return ok || c.direct[name]
}

// Names returns every name SGLang reads, sorted.
func (c *SGLangEnvs) Names() []string { return c.names }

var (
	sglEnvOnce sync.Once
	sglEnvVal  *SGLangEnvs
	sglEnvErr  error
)

// SGLangEnvCatalog returns the embedded SGLang environment catalog.
func SGLangEnvCatalog() *SGLangEnvs {
	sglEnvOnce.Do(func() { sglEnvVal, sglEnvErr = ParseSGLangEnvs(sglangEnvsTxt) })
	if sglEnvErr != nil {
		// Embedded data; a parse failure is a build defect the tests catch.
		panic(fmt.Sprintf("catalog: embedded sglang-envs.txt: %v", sglEnvErr))
	}
	return sglEnvVal
}

var (
	reEnvName   = regexp.MustCompile(`\b(?:SGLANG|SGL)_[A-Z0-9_]+\b`)
	reRename    = regexp.MustCompile(`^((?:SGLANG|SGL)_[A-Z0-9_]+)\s*->\s*((?:SGLANG|SGL)_[A-Z0-9_]+)\s*(?:\((.*)\))?$`)
	reReplaced  = regexp.MustCompile(`^((?:SGLANG|SGL)_[A-Z0-9_]+)(?:\s*/\s*(_[A-Z0-9_]+))?\s*(?:\((.*)\))?$`)
	reRemovedBy = regexp.MustCompile(`\(((?:removed|retired)[^;)]*(?:\([^)]*\))?[^;)]*)`)
	reCommitSrc = regexp.MustCompile(`@ commit ([0-9a-f]{7,40})`)
	reAliasRow  = regexp.MustCompile(`^((?:SGLANG|SGL)_[A-Z0-9_]+) \(deprecated alias ((?:SGLANG|SGL)_[A-Z0-9_]+)\)$`)
	reWarns     = regexp.MustCompile(`logs the warning "([^"]+)"`)
)

// ParseSGLangEnvs parses sglang-envs.txt: NAME | type | default rows, and
// the header's notes on names read directly, deprecated names and names
// removed from the registry.
func ParseSGLangEnvs(text string) (*SGLangEnvs, error) {
	c := &SGLangEnvs{Source: "SGLang python/sglang/srt/environ.py"}
	var header []string
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "":
		case strings.HasPrefix(line, "#"):
			header = append(header, strings.TrimSpace(strings.TrimPrefix(line, "#")))
		default:
			parts := strings.Split(line, " | ")
			if len(parts) != 3 {
				return nil, fmt.Errorf("line %d: want NAME | type | default, got %q", i+1, line)
			}
			v := &SGLangEnv{Name: parts[0], Type: parts[1], Default: parts[2]}
			// "NAME (deprecated alias OLD)": SGLang reads OLD when NAME is
			// unset, with a DeprecationWarning (EnvBoolWithAlias and kin).
			if m := reAliasRow.FindStringSubmatch(v.Name); m != nil {
				v.Name = m[1]
				c.aliases = append(c.aliases, &SGLangRetired{Name: m[2], Replacement: m[1],
					Note: "deprecated alias of " + m[1] + "; SGLang reads it only when " + m[1] + " is unset, with a DeprecationWarning"})
			}
			if t, ok := strings.CutSuffix(v.Type, " (secret)"); ok {
				v.Type, v.Secret = t, true
			}
			c.Vars = append(c.Vars, v)
		}
	}
	if len(c.Vars) == 0 {
		return nil, fmt.Errorf("no variables found")
	}
	if err := c.parseHeader(header); err != nil {
		return nil, err
	}
	c.byName = map[string]*SGLangEnv{}
	c.retired = map[string]*SGLangRetired{}
	c.direct = map[string]bool{}
	seen := map[string]bool{}
	for _, v := range c.Vars {
		c.byName[v.Name] = v
		seen[v.Name] = true
	}
	for _, d := range c.Direct {
		c.direct[d] = true
		seen[d] = true
	}
	for _, r := range c.aliases {
		c.Retired = append(c.Retired, r)
		c.direct[r.Name] = true // read, though deprecated
		seen[r.Name] = true
	}
	for _, r := range c.Retired {
		c.retired[r.Name] = r
	}
	for n := range seen {
		c.names = append(c.names, n)
	}
	sort.Strings(c.names)
	return c, nil
}

// parseHeader reads the header's paragraphs. Each starts with a known
// phrase and runs until the next one.
func (c *SGLangEnvs) parseHeader(lines []string) error {
	var section string
	paras := map[string]string{}
	starts := []struct{ prefix, key string }{
		{"Environment variables declared", "source"},
		{"NOT in this file:", "removed"},
		{"Also read directly via os.getenv", "direct"},
		{"Deprecated env names handled by", "deprecated"},
		{"Engine also sets", "engine"},
		{"Format:", "format"},
		{"Also at import:", "legacy"},
	}
	for _, l := range lines {
		for _, s := range starts {
			if strings.HasPrefix(l, s.prefix) {
				section = s.key
			}
		}
		paras[section] += " " + l
	}
	if m := reCommitSrc.FindStringSubmatch(paras["source"]); m != nil {
		c.Source += " @ " + m[1][:12]
	}

	// NOT in this file: NAME (removed by PR #N "title", date; ...).
	removed := paras["removed"]
	if removed == "" {
		return fmt.Errorf("header: no 'NOT in this file:' note")
	}
	for _, name := range reEnvName.FindAllString(removed, -1) {
		note := "removed"
		if m := reRemovedBy.FindStringSubmatch(removed); m != nil {
			note = strings.TrimSpace(m[1])
		}
		r := &SGLangRetired{Name: name, Removed: true, Note: note}
		if m := reWarns.FindStringSubmatch(strings.Join(strings.Fields(removed), " ")); m != nil {
			r.Warning = m[1]
		}
		c.Retired = append(c.Retired, r)
		break // only the first name is the removed one; the rest quote old code
	}

	// Also read directly via os.getenv elsewhere (...): A (...), B, ...
	direct := paras["direct"]
	if i := strings.Index(direct, "):"); i >= 0 {
		direct = direct[i+2:]
	}
	for _, name := range reEnvName.FindAllString(direct, -1) {
		c.Direct = append(c.Direct, name)
	}

	// Deprecated: "A->B; C->D (note); removed/no-op: X, Y; replaced by
	// CLI flags: P (--flag), Q, R (now default)."
	dep := paras["deprecated"]
	if i := strings.Index(dep, "):"); i >= 0 {
		dep = dep[i+2:]
	}
	if dep == "" {
		return fmt.Errorf("header: no deprecated-names note")
	}
	for _, item := range strings.Split(strings.TrimSuffix(strings.TrimSpace(dep), "."), ";") {
		item = strings.Join(strings.Fields(item), " ")
		switch {
		case item == "":
		case strings.HasPrefix(item, "removed/no-op:"):
			for _, name := range reEnvName.FindAllString(item, -1) {
				c.Retired = append(c.Retired, &SGLangRetired{Name: name, Removed: true, Note: "removed from the registry"})
			}
		case strings.HasPrefix(item, "replaced by CLI flags:"):
			for _, part := range splitTop(strings.TrimPrefix(item, "replaced by CLI flags:")) {
				m := reReplaced.FindStringSubmatch(strings.TrimSpace(part))
				if m == nil {
					return fmt.Errorf("header: replaced-by-flag entry %q", part)
				}
				repl, note := "", "replaced by a command-line flag"
				if strings.HasPrefix(m[3], "--") {
					repl, note = m[3], "replaced by "+m[3]
				} else if m[3] != "" {
					note = m[3]
				}
				c.Retired = append(c.Retired, &SGLangRetired{Name: m[1], Replacement: repl, Removed: true, Note: note})
				if m[2] != "" {
					// "A_USE_X / _USE_Y": the second name shares A's stem.
					stem := m[1][:strings.LastIndex(m[1], strings.SplitN(m[2][1:], "_", 2)[0])-1]
					c.Retired = append(c.Retired, &SGLangRetired{Name: stem + m[2], Replacement: repl, Removed: true, Note: note})
				}
			}
		case strings.Contains(item, "->"):
			m := reRename.FindStringSubmatch(item)
			if m == nil {
				return fmt.Errorf("header: rename entry %q", item)
			}
			note := "deprecated; SGLang forwards it to " + m[2]
			if m[3] != "" {
				note += " (" + m[3] + ")"
			}
			c.Retired = append(c.Retired, &SGLangRetired{Name: m[1], Replacement: m[2], Note: note})
		default:
			return fmt.Errorf("header: deprecated-names entry %q", item)
		}
	}
	return nil
}

// splitTop splits on commas outside parentheses.
func splitTop(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}
