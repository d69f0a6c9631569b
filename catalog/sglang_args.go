package catalog

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// Flag is one SGLang launch_server option as argparse registers it.
type Flag struct {
	Name     string   `json:"name"`               // canonical spelling, e.g. --tp-size
	Aliases  []string `json:"aliases"`            // other accepted spellings
	Negation string   `json:"negation,omitempty"` // --no-x of a BooleanOptionalAction
	Dest     string   `json:"dest"`               // ServerArgs field name, e.g. tp_size
	// Action is one of store, store_true, boolean_optional, store_const,
	// deprecated (a flag that takes no value and only warns or errors).
	Action      string   `json:"action"`
	Type        string   `json:"type"`  // str, int, float or json
	Nargs       string   `json:"nargs"` // "", "+", "*" or "?"
	Choices     []string `json:"choices"`
	Default     *string  `json:"default"`
	Required    bool     `json:"required"`
	Deprecated  bool     `json:"deprecated"`
	Replacement string   `json:"replacement"`
	Removed     bool     `json:"removed"`
	// Help is the flag's help text as SGLang's --help prints it; HelpSuppressed
	// marks a flag registered with help=argparse.SUPPRESS (hidden from --help).
	Help           string `json:"help,omitempty"`
	HelpSuppressed bool   `json:"help_suppressed,omitempty"`
	// Const is the value a store_const flag stores into Dest
	// (--enable-breakable-cuda-graph stores "breakable").
	Const string `json:"const,omitempty"`

	destGiven bool // Dest came from the catalog line, not from the name
}

// TakesValue reports whether the flag consumes a value on the command line.
func (f *Flag) TakesValue() bool { return f.Action == "store" }

// Spellings returns every option string that selects the flag.
func (f *Flag) Spellings() []string {
	s := append([]string{f.Name}, f.Aliases...)
	if f.Negation != "" {
		s = append(s, f.Negation)
	}
	return s
}

// Args is a set of SGLang flags with argparse's lookup rules.
type Args struct {
	Source string  `json:"source"`
	Flags  []*Flag `json:"flags"`
	byOpt  map[string]*Flag
	opts   []string // every option string, sorted
	owner  map[string]*Flag
}

var (
	argsOnce sync.Once
	argsVal  *Args
	argsErr  error
)

// SGLangArgs returns the embedded SGLang flag catalog.
func SGLangArgs() *Args {
	argsOnce.Do(func() {
		argsVal, argsErr = ParseSGLangArgs(sglangServerArgsTxt)
		if argsErr == nil {
			argsErr = argsVal.AttachHelp(sglangServerArgsHelpTxt)
		}
	})
	if argsErr != nil {
		// The embedded file is part of the binary; a parse failure is a
		// build defect caught by the package tests, never user input.
		panic(fmt.Sprintf("catalog: embedded sglang-server-args.txt: %v", argsErr))
	}
	return argsVal
}

// SGLangArgsJSON is the embedded flag catalog in the JSON form the
// simulated server reads.
func SGLangArgsJSON() []byte {
	b, err := json.MarshalIndent(SGLangArgs(), "", " ")
	if err != nil {
		panic(fmt.Sprintf("catalog: marshal flags: %v", err))
	}
	return b
}

// NewArgs indexes flags for lookup.
func NewArgs(source string, flags []*Flag) *Args {
	a := &Args{Source: source, Flags: flags, byOpt: map[string]*Flag{}}
	for _, f := range flags {
		for _, s := range f.Spellings() {
			if _, dup := a.byOpt[s]; !dup {
				a.byOpt[s] = f
				a.opts = append(a.opts, s)
			}
		}
	}
	sort.Strings(a.opts)
	a.indexDests()
	return a
}

// Lookup finds a flag by an exact option string (with the leading --).
func (a *Args) Lookup(opt string) (*Flag, bool) {
	f, ok := a.byOpt[opt]
	return f, ok
}

// Options returns every accepted option string, sorted.
func (a *Args) Options() []string { return a.opts }

// Resolve finds the flag an option string selects the way argparse does:
// an exact spelling first, then a unique prefix. matched is the full option
// string selected. An ambiguous prefix returns *AmbiguousError; no match
// returns *UnknownError.
func (a *Args) Resolve(opt string) (f *Flag, matched string, err error) {
	if f, ok := a.byOpt[opt]; ok {
		return f, opt, nil
	}
	var hits []string
	for _, s := range a.opts {
		if strings.HasPrefix(s, opt) {
			hits = append(hits, s)
		}
	}
	switch len(hits) {
	case 0:
		return nil, "", &UnknownError{Option: opt, Suggestions: Nearest(opt, a.opts, 3)}
	case 1:
		return a.byOpt[hits[0]], hits[0], nil
	}
	return nil, "", &AmbiguousError{Option: opt, Matches: hits}
}

// UnknownError is an option string no flag answers to.
type UnknownError struct {
	Option      string
	Suggestions []string
}

func (e *UnknownError) Error() string {
	msg := "unknown flag " + e.Option
	if len(e.Suggestions) > 0 {
		msg += " (did you mean " + strings.Join(e.Suggestions, ", ") + "?)"
	}
	return msg
}

// AmbiguousError is a prefix that matches several option strings.
type AmbiguousError struct {
	Option  string
	Matches []string
}

func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("ambiguous flag %s could match %s", e.Option, strings.Join(e.Matches, ", "))
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
	a.indexDests()
	a.expandSymbolicChoices()
	return a, nil
}

var (
	reChoices  = regexp.MustCompile(`(?:choices)?\[([^\]]*)\]`)
	reArrow    = regexp.MustCompile(`->\s*(?:use\s+)?(\S+)`)
	reNargs    = regexp.MustCompile(`nargs=([+*?])`)
	reDest     = regexp.MustCompile(`\(dest ([a-z0-9_]+)[;)]`)
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
		f.Dest, f.destGiven = m[1], true
	}
	if f.Action == "store_const" {
		if _, v, ok := strings.Cut(f.Replacement, "="); ok {
			f.Const = v
		}
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
		if f.destGiven || !f.Deprecated || f.Action != "store" || !strings.HasPrefix(f.Replacement, "--") {
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
