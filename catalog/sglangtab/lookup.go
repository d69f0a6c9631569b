package sglangtab

import (
	"embed"
	"encoding/json"
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
	loadOnce.Do(func() { sets, loadErr = load() })
	return sets, loadErr
}

// Newest returns the newest embedded table set, the last of All, and
// decodes it alone (its meta.json picks it): the catalogs of a command
// that never looks at an installed SGLang (bench --url redacting its
// record) need no other, and decoding every set costs a command tens of
// milliseconds of CPU. All takes it from here rather than decode it again.
var Newest = sync.OnceValues(func() (*Tables, error) {
	dir, err := newestDir(data)
	if err != nil {
		return nil, err
	}
	return loadDir(data, dir)
})

// newestDir is the directory of the newest version, by its meta.json.
func newestDir(fsys fs.FS) (string, error) {
	dirs, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return "", err
	}
	best, bestV := "", pyVersion{}
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		b, err := fs.ReadFile(fsys, path.Join(d.Name(), "meta.json"))
		if err != nil {
			return "", fmt.Errorf("sglang tables %s: %w", d.Name(), err)
		}
		var m Meta
		if err := json.Unmarshal(b, &m); err != nil {
			return "", fmt.Errorf("sglang tables %s: meta.json: %w", d.Name(), err)
		}
		if v := parseVersion(m.Version); best == "" || compare(v, bestV) > 0 {
			best, bestV = d.Name(), v
		}
	}
	if best == "" {
		return "", fmt.Errorf("sglang tables: none embedded")
	}
	return best, nil
}

// load decodes every embedded set, the newest through Newest.
func load() ([]*Tables, error) {
	dirs, err := fs.ReadDir(data, ".")
	if err != nil {
		return nil, err
	}
	newest, err := newestDir(data)
	if err != nil {
		return nil, err
	}
	var out []*Tables
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		var t *Tables
		if d.Name() == newest {
			t, err = Newest()
		} else {
			t, err = loadDir(data, d.Name())
		}
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	sort.SliceStable(out, func(i, j int) bool {
		return compare(parseVersion(out[i].Meta.Version), parseVersion(out[j].Meta.Version)) < 0
	})
	return out, nil
}

// loadDir decodes the table set in directory dir.
func loadDir(fsys fs.FS, dir string) (*Tables, error) {
	files := map[string][]byte{}
	for _, f := range Files {
		b, err := fs.ReadFile(fsys, path.Join(dir, f))
		if err != nil {
			return nil, fmt.Errorf("sglang tables %s: %w", dir, err)
		}
		files[f] = b
	}
	t, err := Decode(files)
	if err != nil {
		return nil, fmt.Errorf("sglang tables %s: %w", dir, err)
	}
	return t, nil
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
