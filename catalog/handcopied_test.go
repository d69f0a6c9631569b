package catalog

// The hand-copied SGLang catalogs the flag and environment catalogs were
// read from before the generated tables (testdata/handcopied/, read at
// SGLang commits 001067ff, dd458f32 and 0003215c), and their parsers: the
// tests compare the catalogs built from the generated tables with them.

import (
	_ "embed"
	"fmt"
	"regexp"
	"strings"
)

var (
	//go:embed testdata/handcopied/sglang-server-args.txt
	sglangServerArgsTxt string
	//go:embed testdata/handcopied/sglang-server-args-help.txt
	sglangServerArgsHelpTxt string
	//go:embed testdata/handcopied/sglang-envs.txt
	sglangEnvsTxt string
)

// handArgs is the hand-copied flag catalog with its help texts.
func handArgs() (*Args, error) {
	a, err := ParseSGLangArgs(sglangServerArgsTxt)
	if err != nil {
		return nil, err
	}
	return a, a.AttachHelp(sglangServerArgsHelpTxt)
}

// ParseSGLangArgs parses the reference catalog format:
//
//	flag (aliases) | action/type [choices] | default
func ParseSGLangArgs(text string) (*Args, error) {
	var flags []*Flag
	source := ""
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "# Source:") {
			source = strings.TrimSpace(strings.TrimPrefix(line, "# Source:"))
		}
		if !strings.HasPrefix(line, "--") {
			continue
		}
		f, err := parseFlagLine(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", i+1, err)
		}
		flags = append(flags, f)
	}
	if len(flags) == 0 {
		return nil, fmt.Errorf("no flags found")
	}
	a := NewArgs(source, flags)
	a.fixDeprecatedDests()
	a.expandSymbolicChoices()
	return a, nil
}

var (
	reChoices  = regexp.MustCompile(`(?:choices)?\[([^\]]*)\]`)
	reArrow    = regexp.MustCompile(`->\s*(?:use\s+)?(\S+)`)
	reNargs    = regexp.MustCompile(`nargs=([+*?])`)
	reDest     = regexp.MustCompile(`\(dest ([a-z0-9_]+)\)`)
	reParen    = regexp.MustCompile(`\([^)]*\)`)
	reSymbolic = regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)
)

func parseFlagLine(line string) (*Flag, error) {
	first := strings.Index(line, " | ")
	last := strings.LastIndex(line, " | ")
	if first < 0 || last == first {
		return nil, fmt.Errorf("want 'flag | type | default', got %q", line)
	}
	namePart, typePart, defPart := line[:first], line[first+3:last], strings.TrimSpace(line[last+3:])
	f := &Flag{Action: "store", Type: "str", Aliases: []string{}}

	// Name, aliases and --no-x negation.
	if i := strings.Index(namePart, " / "); i >= 0 {
		f.Negation = strings.Fields(namePart[i+3:])[0]
		namePart = namePart[:i]
	}
	fields := strings.Fields(namePart)
	f.Name = fields[0]
	if i := strings.Index(namePart, "("); i >= 0 {
		inner := strings.TrimSuffix(namePart[i+1:], ")")
		inner, _, _ = strings.Cut(inner, ";")
		for _, tok := range strings.FieldsFunc(inner, func(r rune) bool { return r == ',' || r == ' ' }) {
			if strings.HasPrefix(tok, "--") {
				f.Aliases = append(f.Aliases, tok)
			}
		}
	}
	f.Dest = strings.ReplaceAll(strings.TrimPrefix(f.Name, "--"), "-", "_")

	// Action and type.
	words := strings.Fields(typePart)
	head := words[0]
	switch {
	case head == "store_true":
		f.Action = "store_true"
		f.Deprecated = strings.Contains(typePart, "deprecated")
		if i := strings.Index(typePart, "maps it to "); i >= 0 {
			f.Replacement = strings.TrimRight(strings.Fields(typePart[i+len("maps it to "):])[0], ")")
		}
	case head == "BooleanOptionalAction":
		f.Action = "boolean_optional"
	case head == "DeprecatedStoreTrueAction":
		f.Action, f.Deprecated = "store_true", true
	case head == "DeprecatedStoreConstAction":
		f.Action, f.Deprecated = "store_const", true
	case head == "DeprecatedAction":
		f.Action, f.Deprecated = "deprecated", true
		f.Removed = strings.Contains(typePart, "removed")
	case head == "DeprecatedAliasStoreAction":
		f.Deprecated = true
	}
	if f.Deprecated && f.Replacement == "" {
		if m := reArrow.FindStringSubmatch(typePart); m != nil {
			f.Replacement = strings.TrimRight(m[1], ",")
		}
	}
	if m := reDest.FindStringSubmatch(typePart); m != nil {
		f.Dest = m[1]
	}
	if f.Action == "store" {
		f.parseValueType(typePart)
	}

	// Default.
	switch {
	case strings.HasPrefix(defPart, "required"):
		f.Required = true
	case defPart == "None" || defPart == "-" || defPart == "SUPPRESS" || defPart == "":
	default:
		d := strings.Trim(defPart, `"`)
		f.Default = &d
	}
	return f, nil
}

// parseValueType fills Type, Nargs and Choices of a value-taking flag.
func (f *Flag) parseValueType(typePart string) {
	lower := strings.ToLower(typePart)
	for _, w := range strings.Fields(strings.NewReplacer(",", " ", "(", " ").Replace(lower)) {
		if w == "int" || w == "float" || w == "str" || w == "json" {
			f.Type = w
			break
		}
	}
	if strings.HasPrefix(lower, "json") {
		f.Type = "json"
	}
	if m := reNargs.FindStringSubmatch(typePart); m != nil {
		f.Nargs = m[1]
	} else if strings.Contains(lower, " list") && !strings.HasPrefix(lower, "json") {
		f.Nargs = "+"
	}
	// Choices come before any parenthesised remark; "[bool]" inside
	// "(Optional[bool])" is not a choice list.
	if m := reChoices.FindStringSubmatch(reParen.ReplaceAllString(typePart, "")); m != nil {
		var choices []string
		list := m[1]
		// "choices[NAME: a,b]" and "choices[label text: a,b]": the label
		// says where the list comes from; the choices follow the colon.
		if i := strings.Index(list, ": "); i >= 0 {
			list = list[i+2:]
		}
		for _, c := range strings.Split(list, ",") {
			c = strings.TrimSpace(reParen.ReplaceAllString(c, ""))
			if c != "" {
				choices = append(choices, c)
			}
		}
		f.Choices = choices
	}
}

// AttachHelp sets each flag's help text from the help catalog format
// (sglang-server-args-help.txt): "--flag | help text" rows, split at the
// first " | "; a help of SUPPRESS hides the flag from --help. A row for a
// flag the set does not have is an error: the two files drifted apart.
func (a *Args) AttachHelp(text string) error {
	for i, line := range strings.Split(text, "\n") {
		if !strings.HasPrefix(line, "--") {
			continue
		}
		name, help, ok := strings.Cut(line, " | ")
		if !ok {
			return fmt.Errorf("help line %d: want 'flag | help', got %q", i+1, line)
		}
		f, ok := a.byOpt[name]
		if !ok || f.Name != name {
			return fmt.Errorf("help line %d: %s is not a flag of the catalog", i+1, name)
		}
		if help == "SUPPRESS" {
			f.HelpSuppressed = true
			continue
		}
		f.Help = strings.TrimSpace(help)
	}
	return nil
}

// fixDeprecatedDests points deprecated aliases at their target's field.
func (a *Args) fixDeprecatedDests() {
	for _, f := range a.Flags {
		if !f.Deprecated || f.Action != "store" || !strings.HasPrefix(f.Replacement, "--") {
			continue
		}
		if t, ok := a.byOpt[f.Replacement]; ok {
			f.Dest = t.Dest
		}
	}
}

// expandSymbolicChoices replaces choice lists written as a constant name
// (ATTENTION_BACKEND_CHOICES) by the list it stands for when the catalog
// has it; otherwise the flag is left without a choice check.
func (a *Args) expandSymbolicChoices() {
	known := map[string][]string{}
	if f, ok := a.byOpt["--attention-backend"]; ok {
		known["ATTENTION_BACKEND_CHOICES"] = f.Choices
	}
	if f, ok := a.byOpt["--load-format"]; ok {
		known["LOAD_FORMAT_CHOICES"] = f.Choices
	}
	if f, ok := a.byOpt["--quantization"]; ok {
		known["QUANTIZATION_CHOICES"] = f.Choices
	}
	if f, ok := a.byOpt["--dsa-prefill-backend"]; ok && !isSymbolic(f.Choices) {
		known["DSA_CHOICES"] = f.Choices
	}
	for _, f := range a.Flags {
		if !isSymbolic(f.Choices) {
			continue
		}
		// "NAME" or "NAME + extra + ...": the named list plus extras.
		parts := strings.Split(f.Choices[0], " + ")
		if c, ok := known[parts[0]]; ok && !isSymbolic(c) {
			f.Choices = append(append([]string(nil), c...), parts[1:]...)
		} else {
			f.Choices = nil // unknown list: no choice check rather than a wrong one
		}
	}
}

func isSymbolic(c []string) bool {
	return len(c) == 1 && reSymbolic.MatchString(strings.Split(c[0], " + ")[0])
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
	c.index()
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
