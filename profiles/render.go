package profiles

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/sglaunch/sglaunch/internal/redact"
)

// YAML renders the profile (extends applied) as a profile file would be
// written, scalars exactly as they were written, each inherited value
// commented with the layer it came from. Credentials (an api-key flag, an
// HF_TOKEN, by the rule of internal/redact) are shown as <redacted>.
func (p *Profile) YAML() string {
	var b strings.Builder
	fmt.Fprintf(&b, "name: %s\n", Quote(p.Name, Scalar))
	if p.Description != "" {
		fmt.Fprintf(&b, "description: %s\n", Quote(p.Description, Scalar))
	}
	fmt.Fprintf(&b, "# source: %s\n", p.Source)
	if len(p.Chain) > 0 {
		fmt.Fprintf(&b, "# extends (applied): %s\n", strings.Join(p.Chain, " <- "))
	}
	for _, key := range []string{"python", "module", "stop_timeout", "status_addr"} {
		if v, ok := p.Settings[key]; ok {
			fmt.Fprintf(&b, "%s: %s%s\n", key, Quote(v.Text, v.Kind), comment(v))
		}
	}
	if len(p.ManagedEnv) > 0 {
		fmt.Fprintf(&b, "managed_env: [%s]\n", strings.Join(p.ManagedEnv, ", "))
	}
	if len(p.InheritEnv) > 0 {
		fmt.Fprintf(&b, "inherit_env: [%s]\n", strings.Join(p.InheritEnv, ", "))
	}
	writeSection(&b, "", "env", p.Env)
	writeSection(&b, "", "args", p.Args)
	for _, mode := range []string{"serve", "bench"} {
		o := p.Overlay(mode)
		if len(o.Env) == 0 && len(o.Args) == 0 && o.Workloads == nil {
			continue
		}
		fmt.Fprintf(&b, "%s:\n", mode)
		writeSection(&b, "  ", "env", o.Env)
		writeSection(&b, "  ", "args", o.Args)
		if o.Workloads != nil {
			b.WriteString("  workloads:\n")
			for _, line := range strings.Split(strings.TrimRight(o.Workloads.String(), "\n"), "\n") {
				b.WriteString("    " + strings.TrimLeft(line, " ") + "\n")
			}
		}
	}
	writeSettings(&b, p.Settings, "health")
	writeSettings(&b, p.Settings, "multinode")
	if p.Tune != nil {
		b.WriteString("tune:\n")
		writeBlock(&b, "  ", p.Tune.String())
	}
	return b.String()
}

// writeBlock writes a node's YAML text under prefix, its own common
// indentation removed and its nesting kept.
func writeBlock(b *strings.Builder, prefix, text string) {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	common := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if n := len(l) - len(strings.TrimLeft(l, " ")); common < 0 || n < common {
			common = n
		}
	}
	for _, l := range lines {
		if len(l) >= common && common > 0 {
			l = l[common:]
		}
		b.WriteString(prefix + l + "\n")
	}
}

// writeSettings writes the settings under section that the profile has,
// nested sections indented under their name.
func writeSettings(b *strings.Builder, settings map[string]Value, section string) {
	var lines []string
	sub := ""
	for _, s := range Schema {
		rest, ok := strings.CutPrefix(s.Key, section+".")
		if !ok {
			continue
		}
		v, ok := settings[s.Key]
		if !ok {
			continue
		}
		indent := "  "
		if name, leaf, nested := strings.Cut(rest, "."); nested {
			if name != sub {
				lines = append(lines, "  "+name+":\n")
				sub = name
			}
			rest, indent = leaf, "    "
		}
		lines = append(lines, fmt.Sprintf("%s%s: %s%s\n", indent, rest, Quote(v.Text, v.Kind), comment(v)))
	}
	if len(lines) > 0 {
		b.WriteString(section + ":\n" + strings.Join(lines, ""))
	}
}

func writeSection(b *strings.Builder, indent, name string, s Section) {
	if len(s) == 0 {
		return
	}
	secret := redact.IsSecretVar
	if name == "args" {
		secret = func(flag string) bool { return redact.IsSecretFlag("--" + flag) }
	}
	fmt.Fprintf(b, "%s%s:\n", indent, name)
	for _, e := range s {
		var val string
		switch {
		case secret(e.Name) && (e.Value.Kind == List || e.Value.Kind == Scalar && e.Value.Text != ""):
			val = Quote(redact.Mask, Scalar)
		case e.Value.Kind == List:
			items := make([]string, len(e.Value.List))
			for i, it := range e.Value.List {
				items[i] = Quote(it, Scalar)
			}
			val = "[" + strings.Join(items, ", ") + "]"
		case e.Value.Kind == Null:
			val = "null"
		default:
			val = Quote(e.Value.Text, e.Value.Kind)
		}
		fmt.Fprintf(b, "%s  %s: %s%s\n", indent, e.Name, val, comment(e.Value))
	}
}

func comment(v Value) string {
	if v.From == "" || v.From == "profile" {
		return ""
	}
	return "  # " + v.From
}

// Quote writes text as a YAML scalar that reads back as the same kind and
// text: plain where that is safe, double-quoted otherwise.
func Quote(text string, kind Kind) string {
	if kind == Bool || kind == Null {
		return text
	}
	if text != "" && !strings.ContainsAny(text, "\n\t\"'#") && readsBack(text) {
		return text
	}
	q, _ := json.Marshal(text)
	return string(q)
}

func readsBack(text string) bool {
	p, err := Parse("", []byte("args:\n  x: "+text+"\n"))
	if err != nil {
		return false
	}
	e, ok := p.Args.Get("x")
	return ok && e.Value.Kind == Scalar && e.Value.Text == text
}
