package sglangtab

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"
)

// data holds one directory per generated SGLang tree.
//
//go:embed */*.json
var data embed.FS

// Choice is the table set picked for an installed SGLang version.
type Choice struct {
	*Tables
	// Asked is the version looked up; Exact whether a set for it exists.
	Asked string
	Exact bool
	// Warn says why the set is not the exact one ("" when it is).
	Warn string
}

// Label names the set in a report line: its version and commit, and how
// it was picked.
func (c Choice) Label() string {
	at := fmt.Sprintf("%s @ %.9s", c.Meta.Ref, c.Meta.Commit)
	if strings.HasPrefix(c.Meta.Commit, c.Meta.Ref) {
		at = fmt.Sprintf("%.9s", c.Meta.Commit)
	}
	s := fmt.Sprintf("SGLang %s tables (%s)", c.Meta.Version, at)
	if c.Warn != "" {
		s += ": " + c.Warn
	}
	return s
}

var (
	loadOnce sync.Once
	sets     []*Tables
	loadErr  error
)

// All returns every embedded table set, oldest version first.
func All() ([]*Tables, error) {
	loadOnce.Do(func() { sets, loadErr = load(data) })
	return sets, loadErr
}

func load(fsys fs.FS) ([]*Tables, error) {
	dirs, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, err
	}
	var out []*Tables
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		files := map[string][]byte{}
		for _, f := range Files {
			b, err := fs.ReadFile(fsys, path.Join(d.Name(), f))
			if err != nil {
				return nil, fmt.Errorf("sglang tables %s: %w", d.Name(), err)
			}
			files[f] = b
		}
		t, err := Decode(files)
		if err != nil {
			return nil, fmt.Errorf("sglang tables %s: %w", d.Name(), err)
		}
		out = append(out, t)
	}
	sort.SliceStable(out, func(i, j int) bool {
		return compare(parseVersion(out[i].Meta.Version), parseVersion(out[j].Meta.Version)) < 0
	})
	return out, nil
}

// For picks the table set for an installed SGLang version: the one
// generated for that version; else the nearest older, with a Warn; else
// (a version older than every set, or none known) the oldest or the
// newest, with a Warn.
func For(version string) (Choice, error) {
	all, err := All()
	if err != nil {
		return Choice{}, err
	}
	if len(all) == 0 {
		return Choice{}, fmt.Errorf("sglang tables: none embedded")
	}
	return pick(all, version), nil
}

func pick(all []*Tables, version string) Choice {
	v := parseVersion(version)
	if !v.ok {
		newest := all[len(all)-1]
		why := "SGLang version unknown"
		if version != "" {
			why = fmt.Sprintf("SGLang version %q not understood", version)
		}
		return Choice{Tables: newest, Asked: version, Warn: why + "; using the newest tables"}
	}
	var older *Tables
	for _, t := range all {
		switch c := compare(parseVersion(t.Meta.Version), v); {
		case c == 0:
			return Choice{Tables: t, Asked: version, Exact: true}
		case c < 0:
			older = t
		}
	}
	if older != nil {
		return Choice{Tables: older, Asked: version, Warn: fmt.Sprintf("no tables for SGLang %s; using the nearest older", version)}
	}
	return Choice{Tables: all[0], Asked: version, Warn: fmt.Sprintf("no tables for SGLang %s or older; using the oldest", version)}
}
