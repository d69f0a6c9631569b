package catalog

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/sglaunch/sglaunch/catalog/sglangtab"
)

// reNoteFlag is the command-line flag a deprecation note points to:
// "Please use '--grpc-port' to ...".
var reNoteFlag = regexp.MustCompile(`'(--[a-z0-9-]+(?:=[^'\s]+)?)'`)

// EnvsFromTables builds the environment catalog from one generated table
// set's env_reads rows: the Envs registry (types, defaults, the older
// names EnvBoolWithAlias and kin still read), the names read directly,
// and environ.py's _DEPRECATED_ENVS; plus data/sglang-envs-notes.txt for
// what the tables cannot say (secrets, names retired elsewhere).
func EnvsFromTables(t *sglangtab.Tables) (*SGLangEnvs, error) {
	c := &SGLangEnvs{Source: fmt.Sprintf("SGLang %s python/sglang/srt/environ.py @ %.12s", t.Meta.Version, t.Meta.Commit)}
	notes, err := parseEnvNotes(sglangEnvNotesTxt)
	if err != nil {
		return nil, fmt.Errorf("data/sglang-envs-notes.txt: %w", err)
	}
	direct := map[string]bool{}
	for _, r := range t.EnvReads {
		switch {
		case r.How == "Envs":
			typ := strings.Replace(r.Type, "WithAlias", "", 1)
			def, _ := pyDefault(r.Default)
			if r.Default == "None" {
				def = "None"
			}
			c.Vars = append(c.Vars, &SGLangEnv{Name: r.Name, Type: typ, Default: def, Secret: notes.secret[r.Name]})
			if r.Alias != "" {
				c.aliases = append(c.aliases, &SGLangRetired{Name: r.Alias, Replacement: r.Name,
					Note: "deprecated alias of " + r.Name + "; SGLang reads it only when " + r.Name + " is unset, with a DeprecationWarning"})
			}
		case r.How == "deprecated":
			c.Retired = append(c.Retired, retiredFromRow(r))
		case strings.HasPrefix(r.Name, "SGLANG_") || strings.HasPrefix(r.Name, "SGL_"):
			direct[r.Name] = true
		}
	}
	if len(c.Vars) == 0 {
		return nil, fmt.Errorf("SGLang %s tables: no Envs registry rows", t.Meta.Version)
	}
	for _, r := range notes.removed {
		delete(direct, r.Name)
		c.Retired = append(c.Retired, r)
	}
	for n := range direct {
		c.Direct = append(c.Direct, n)
	}
	sort.Strings(c.Direct)
	c.index()
	return c, nil
}

// retiredFromRow reads one _DEPRECATED_ENVS entry: a rename forwards the
// value (through a transform) to its replacement; without one the name is
// no longer acted on, and a note may point to the flag that replaced it.
func retiredFromRow(r sglangtab.EnvRead) *SGLangRetired {
	warning := "Environment variable " + r.Name + " is deprecated."
	if r.Replacement != "" {
		warning += " Please use " + r.Replacement + " instead."
	}
	if r.Note != "" {
		warning += " " + r.Note
	}
	if r.Replacement != "" {
		note := "deprecated; SGLang forwards it to " + r.Replacement
		switch r.Transform {
		case "_ms_to_s":
			note += " (ms->s)"
		case "_invert_bool":
			note += " (inverted)"
		case "":
		default:
			note += " (through " + r.Transform + ")"
		}
		return &SGLangRetired{Name: r.Name, Replacement: r.Replacement, Note: note, Warning: warning}
	}
	ret := &SGLangRetired{Name: r.Name, Removed: true, Note: "removed from the registry", Warning: warning}
	if m := reNoteFlag.FindStringSubmatch(r.Note); m != nil {
		ret.Replacement, ret.Note = m[1], "replaced by "+m[1]
	} else if r.Note != "" {
		ret.Note = r.Note
	}
	return ret
}

// index fills the lookup maps and the sorted name list.
func (c *SGLangEnvs) index() {
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
	c.names = c.names[:0]
	for n := range seen {
		c.names = append(c.names, n)
	}
	sort.Strings(c.names)
}

type envNotes struct {
	secret  map[string]bool
	removed []*SGLangRetired
}

func parseEnvNotes(text string) (envNotes, error) {
	n := envNotes{secret: map[string]bool{}}
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		kind, rest, _ := strings.Cut(line, " ")
		switch kind {
		case "secret":
			n.secret[strings.TrimSpace(rest)] = true
		case "removed":
			parts := strings.Split(rest, " | ")
			if len(parts) != 3 {
				return n, fmt.Errorf("line %d: want removed NAME | why | warning, got %q", i+1, line)
			}
			w := strings.TrimSpace(parts[2])
			if w == `""` {
				w = ""
			}
			n.removed = append(n.removed, &SGLangRetired{Name: strings.TrimSpace(parts[0]), Removed: true, Note: strings.TrimSpace(parts[1]), Warning: w})
		default:
			return n, fmt.Errorf("line %d: want secret or removed, got %q", i+1, kind)
		}
	}
	return n, nil
}
