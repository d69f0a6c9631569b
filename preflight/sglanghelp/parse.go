package sglanghelp

import (
	"errors"
	"regexp"
	"strconv"
	"strings"

	"github.com/sglaunch/sglaunch/catalog"
)

// Parse reads argparse's --help output into flags. argparse prints
// each option as a line indented by two spaces, "  --name METAVAR,
// --alias METAVAR" (choices as {a,b}, nargs as "X [X ...]", "[X ...]",
// "[X]"), then its help, on the same line after two or more spaces or
// on deeper-indented lines. Options argparse marks required are bare
// (without brackets) in the usage block.
func Parse(text string) ([]*catalog.Flag, error) {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	required := usageRequired(lines)
	var flags []*catalog.Flag
	var cur *catalog.Flag
	var help strings.Builder
	finish := func() {
		if cur != nil {
			applyHelpText(cur, help.String())
			flags = append(flags, cur)
		}
		cur = nil
		help.Reset()
	}
	inUsage := true
	for _, line := range lines {
		if inUsage {
			// The usage block runs to the first blank line.
			inUsage = strings.TrimSpace(line) != ""
			continue
		}
		switch {
		case strings.HasPrefix(line, "  -") && !strings.HasPrefix(line, "   "):
			finish()
			inv, rest := splitInvocation(strings.TrimPrefix(line, "  "))
			cur = parseInvocation(inv)
			help.WriteString(rest)
			if cur != nil && required[cur.Name] {
				cur.Required = true
			}
		case strings.HasPrefix(line, "   ") && cur != nil:
			// textwrap breaks after hyphens: "--cuda-graph-max-" then
			// "bs-decode" is one word.
			if !strings.HasSuffix(help.String(), "-") {
				help.WriteString(" ")
			}
			help.WriteString(strings.TrimSpace(line))
		default:
			finish() // a group heading or a blank line
		}
	}
	finish()
	if len(flags) == 0 {
		return nil, errors.New("no options found")
	}
	return flags, nil
}

// splitInvocation cuts "--x X, --y X   help text" at the first run of two
// spaces outside braces.
func splitInvocation(s string) (inv, help string) {
	depth := 0
	for i := 0; i+1 < len(s); i++ {
		switch s[i] {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		case ' ':
			if depth == 0 && s[i+1] == ' ' {
				return s[:i], strings.TrimSpace(s[i:])
			}
		}
	}
	return s, ""
}

// parseInvocation reads "--tp-size TP_SIZE, --tensor-parallel-size
// TP_SIZE" (Python 3.12 and older) or "--tp-size, --tensor-parallel-size
// TP_SIZE" (3.13 and newer, the metavar once), or "--x, --no-x". It
// returns nil for -h/--help.
func parseInvocation(inv string) *catalog.Flag {
	var parts []string
	for _, p := range splitTopLevel(inv, ", ") {
		if strings.HasPrefix(p, "-") {
			parts = append(parts, p)
		} else if len(parts) > 0 {
			parts[len(parts)-1] += ", " + p
		}
	}
	var names []string
	metavar := ""
	for _, p := range parts {
		name, mv, _ := strings.Cut(p, " ")
		if !strings.HasPrefix(name, "--") || name == "--help" {
			continue
		}
		names = append(names, name)
		if metavar == "" {
			metavar = mv
		}
	}
	if len(names) == 0 {
		return nil
	}
	f := &catalog.Flag{Name: names[0], Aliases: []string{}, Dest: strings.ReplaceAll(strings.TrimPrefix(names[0], "--"), "-", "_"), Type: "str"}
	for _, name := range names[1:] {
		if metavar == "" && name == "--no-"+strings.TrimPrefix(f.Name, "--") {
			f.Negation = name
			continue
		}
		f.Aliases = append(f.Aliases, name)
	}
	switch {
	case f.Negation != "":
		f.Action = "boolean_optional"
	case metavar == "":
		f.Action = "store_true"
	default:
		f.Action = "store"
		f.Nargs, f.Choices = readMetavar(metavar)
	}
	return f
}

// readMetavar reads nargs and choices from what follows the option:
// "X" (one value), "X [X ...]" (+), "[X ...]" (*), "[X [X ...]]" (*,
// Python 3.8 and older), "[X]" (?), "X X" (2), with X either a name or
// {a,b,c}.
func readMetavar(mv string) (nargs string, choices []string) {
	words := splitTopLevel(mv, " ")
	// The choices are the first {...} group, wherever nargs brackets put it.
	if i := strings.Index(mv, "{"); i >= 0 {
		if j := strings.Index(mv[i:], "}"); j > 0 {
			for _, c := range strings.Split(mv[i+1:i+j], ",") {
				if c = strings.TrimSpace(c); c != "" {
					choices = append(choices, c)
				}
			}
		}
	}
	switch {
	case strings.HasPrefix(mv, "[") && strings.HasSuffix(mv, "...]") || strings.HasPrefix(mv, "[") && strings.HasSuffix(mv, "...]]"):
		nargs = "*"
	case strings.HasPrefix(mv, "["):
		nargs = "?"
	case strings.HasSuffix(mv, "...]"):
		nargs = "+"
	case len(words) > 1:
		nargs = strconv.Itoa(len(words))
	}
	return nargs, choices
}

// splitTopLevel splits s on sep outside braces and brackets.
func splitTopLevel(s, sep string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		}
		if depth == 0 && strings.HasPrefix(s[i:], sep) {
			out = append(out, s[start:i])
			start = i + len(sep)
			i += len(sep) - 1
		}
	}
	return append(out, s[start:])
}

// usageRequired returns the options the usage block shows without
// brackets: the required ones.
func usageRequired(lines []string) map[string]bool {
	req := map[string]bool{}
	var usage strings.Builder
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			break
		}
		usage.WriteString(" " + l)
	}
	depth := 0
	for _, tok := range strings.Fields(usage.String()) {
		if depth == 0 && strings.HasPrefix(tok, "--") {
			req[tok] = true
		}
		depth += strings.Count(tok, "[") - strings.Count(tok, "]")
	}
	return req
}

// helpFlag is a flag as SGLang's help texts write a replacement: a name
// with brace groups (--cuda-graph-backend-{decode,prefill}) and an
// optional =value, itself possibly a group.
const helpFlag = `--[a-z0-9][a-z0-9-]*(?:\{[a-z0-9_,-]+\}[a-z0-9-]*)*(?:=(?:\{[A-Za-z0-9_,.-]+\}|[A-Za-z0-9_.-]*[A-Za-z0-9_]))?`

var (
	// The help says this flag is deprecated or removed: "Deprecated alias
	// for --x.", "[Deprecated] Use --x instead.", "(Deprecated, use --x)",
	// "Note: --x is deprecated now.", "Removed. Use --x ...". Not "Replaces
	// the deprecated --grpc-mode.", which is about another flag.
	reHelpDeprecated = regexp.MustCompile(`(?i)^\W*(?:deprecated|removed)\b|\b(?:is|are|has been|was) (?:now )?deprecated\b|\bdeprecated alias\b`)
	reHelpRemoved    = regexp.MustCompile(`(?i)^\W*removed\b|\b(?:is|has been|was) removed\b|\bno longer supported\b`)
	// Where SGLang's help words the replacement, in order of trust.
	reHelpReplacement = []*regexp.Regexp{
		regexp.MustCompile(`(?i)\balias (?:for|of) (` + helpFlag + `)`),
		regexp.MustCompile(`(?i)\buse (` + helpFlag + `)`),
		regexp.MustCompile(`(?i)\breplaced by (` + helpFlag + `)`),
		regexp.MustCompile(`(` + helpFlag + `)(?: \{[^}]*\})? instead\b`),
	}
)

// applyHelpText reads what help text says about deprecation and what
// replaces the flag.
func applyHelpText(f *catalog.Flag, help string) {
	help = strings.TrimSpace(help)
	if !reHelpDeprecated.MatchString(help) {
		return
	}
	f.Deprecated = true
	f.Removed = f.Removed || reHelpRemoved.MatchString(help)
	for _, re := range reHelpReplacement {
		if m := re.FindStringSubmatch(help); m != nil && m[1] != f.Name {
			f.Replacement = m[1]
			return
		}
	}
}

// Merge completes flags read from --help with what the help does
// not show: the value type, the field name, deprecation and removal as
// the embedded catalog records them for the same flag.
func Merge(flags []*catalog.Flag, cat *catalog.Args) []*catalog.Flag {
	for _, f := range flags {
		c, ok := cat.Lookup(f.Name)
		if !ok || c.Name != f.Name {
			continue
		}
		f.Dest = c.Dest
		if f.Action == "store" {
			f.Type = c.Type
			if len(f.Choices) == 0 {
				f.Choices = c.Choices
			}
		} else if c.Action == "store_const" || c.Action == "deprecated" {
			f.Action, f.Const = c.Action, c.Const
		}
		f.Default = c.Default
		switch {
		case !f.Deprecated && c.Deprecated:
			f.Deprecated, f.Replacement = true, c.Replacement
		case f.Deprecated && f.Replacement == "" && c.Replacement != "":
			// The installed help names no replacement; the catalog's
			// known one beats advising to remove a tuned flag.
			f.Replacement = c.Replacement
		}
		f.Removed = f.Removed || c.Removed
	}
	return flags
}
