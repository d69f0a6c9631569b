package plan

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/sglaunch/sglaunch/internal/redact"
	"github.com/sglaunch/sglaunch/profiles"
)

// Text renders the effective config: a header, the command as a
// copy-pasteable shell command, the managed environment with provenance,
// what was dropped, what the overlay added, and the settings.
func (p *Plan) Text() string {
	var b strings.Builder
	src := p.Source
	if len(p.Chain) > 0 {
		src += ", extends " + strings.Join(p.Chain, " <- ")
	}
	fmt.Fprintf(&b, "# sglaunch %s\n", p.Version)
	fmt.Fprintf(&b, "# profile      %s (%s)\n", p.Profile, escapeControls(src))
	fmt.Fprintf(&b, "# mode         %s\n", p.Mode)
	fmt.Fprintf(&b, "# fingerprint  %s\n", p.ShortFingerprint())

	b.WriteString("\n# command\n")
	b.WriteString(ShellCommand(redact.Argv(p.Argv), 3))

	b.WriteString("\n# environment: the managed variables the server gets, exactly\n")
	if len(p.Env) == 0 {
		b.WriteString("# (none)\n")
	}
	for _, e := range p.Env {
		writeCol(&b, e.Name+"="+ShellQuote(redact.Value(e.Name, e.Value)), e.From)
	}

	fmt.Fprintf(&b, "\n# dropped from sglaunch's own environment (managed: %s)\n", strings.Join(p.Managed, " "))
	if len(p.Dropped) == 0 {
		b.WriteString("# (none)\n")
	}
	for _, d := range p.Dropped {
		note := "not in the profile"
		if d.Replaced {
			note = "replaced by the plan's value"
		}
		writeCol(&b, d.Name+"="+ShellQuote(redact.Value(d.Name, d.Value)), note)
	}

	fmt.Fprintf(&b, "\n# %s overlay added\n", p.Mode)
	if len(p.OverlayAdded) == 0 {
		b.WriteString("# (nothing)\n")
	}
	for _, a := range p.OverlayAdded {
		b.WriteString(redactDescribed(a) + "\n")
	}

	b.WriteString("\n# flags by layer\n")
	var layers []string
	byLayer := map[string][]string{}
	for _, e := range p.Args {
		if _, ok := byLayer[e.Value.From]; !ok {
			layers = append(layers, e.Value.From)
		}
		byLayer[e.Value.From] = append(byLayer[e.Value.From], "--"+e.Name)
	}
	for _, l := range layers {
		fmt.Fprintf(&b, "# %-22s %s\n", l+":", strings.Join(byLayer[l], " "))
	}
	if len(p.Extra) > 0 {
		fmt.Fprintf(&b, "# %-22s %s\n", "after --:", strings.Join(redact.Argv(p.Extra), " "))
	}
	if len(p.Repeats) > 0 {
		b.WriteString("\n# given again: one setting through two spellings, passed once with the last value\n")
		for _, r := range p.Repeats {
			fmt.Fprintf(&b, "# %s: %s, then %s\n", r.Setting, escapeControls(r.First), escapeControls(r.Again))
		}
	}

	b.WriteString("\n# settings\n")
	for _, s := range profiles.Schema {
		if !p.showSetting(s.Key) {
			continue
		}
		v := p.Settings[s.Key]
		val := v.Text
		if s.Key == "python" && val != p.Python {
			val += " -> " + p.Python
		}
		if val == "" {
			val = "(off)"
		}
		writeCol(&b, s.Key+" "+val, v.From)
	}
	return b.String()
}

// isRawControl: a control character a terminal acts on, other than tab
// and newline.
func isRawControl(r rune) bool { return r != '\t' && r != '\n' && unicode.IsControl(r) }

// escapeControls writes each such character as \xHH or \uHHHH.
func escapeControls(s string) string {
	if !strings.ContainsFunc(s, isRawControl) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r < 0x80 && isRawControl(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case isRawControl(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func writeCol(b *strings.Builder, left, comment string) {
	fmt.Fprintf(b, "%-40s # %s\n", left, comment)
}

func redactDescribed(s string) string {
	if name, _, ok := strings.Cut(s, "="); ok && !strings.HasPrefix(s, "--") {
		return name + "=" + redact.Value(name, strings.TrimPrefix(s, name+"="))
	}
	return strings.Join(redact.Argv(strings.Fields(s)), " ")
}

// ShellCommand renders argv as a shell command, one flag per line with
// backslash continuations; the first `head` words share the first line.
func ShellCommand(argv []string, head int) string {
	var b strings.Builder
	for i, a := range argv {
		switch {
		case i == 0:
		case i < head:
			b.WriteString(" ")
		case strings.HasPrefix(a, "--"):
			b.WriteString(" \\\n    ")
		default:
			b.WriteString(" ")
		}
		b.WriteString(ShellQuote(a))
	}
	b.WriteString("\n")
	return b.String()
}

// ShellQuote quotes s for a POSIX shell when it needs it. A value holding
// a control character other than tab and newline (one inherited from
// sglaunch's environment, say) is written $'...' with the character
// escaped, so that it never reaches the terminal raw.
func ShellQuote(s string) string {
	if s == "" {
		return "''"
	}
	if strings.ContainsFunc(s, isRawControl) {
		return "$'" + strings.ReplaceAll(strings.ReplaceAll(escapeControls(strings.ReplaceAll(s, `\`, `\\`)), "'", `\'`), "\t", `\t`) + "'"
	}
	safe := true
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_@%+=:,./-", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
