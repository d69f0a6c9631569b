package profiles

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/sglaunch/sglaunch/catalog"
	"github.com/sglaunch/sglaunch/internal/inputerr"
	"github.com/sglaunch/sglaunch/internal/inputfile"
	"github.com/sglaunch/sglaunch/internal/yamlnode"
)

// Finder looks profiles up along a search path, then among the built-ins.
type Finder struct {
	// Dirs are searched in order; the first hit wins.
	Dirs []string
}

// SearchDirs returns the search path: profilePath ($SGLAUNCH_PROFILE_PATH,
// colon-separated), $XDG_CONFIG_HOME/sglaunch/profiles (default
// ~/.config/sglaunch/profiles), /etc/sglaunch/profiles.
func SearchDirs(profilePath string, getenv func(string) string) []string {
	var dirs []string
	for _, d := range filepath.SplitList(profilePath) {
		if d != "" {
			dirs = append(dirs, d)
		}
	}
	cfg := getenv("XDG_CONFIG_HOME")
	if cfg == "" {
		if home := getenv("HOME"); home != "" {
			cfg = filepath.Join(home, ".config")
		}
	}
	if cfg != "" {
		dirs = append(dirs, filepath.Join(cfg, "sglaunch", "profiles"))
	}
	return append(dirs, "/etc/sglaunch/profiles")
}

// IsPath reports whether ref, a --profile or --workload argument, names a
// file rather than a name: it holds a path separator or ends in .yaml or .yml.
func IsPath(ref string) bool {
	return strings.ContainsRune(ref, os.PathSeparator) || strings.HasSuffix(ref, ".yaml") || strings.HasSuffix(ref, ".yml")
}

// Load finds a profile by name or path and applies its extends chain.
func (f *Finder) Load(ref string) (*Profile, error) {
	return f.load(ref, "", nil)
}

func (f *Finder) load(ref, from string, seen []string) (*Profile, error) {
	p, err := f.find(ref, from)
	if err != nil {
		return nil, err
	}
	id := p.Name + " (" + p.Source + ")"
	for _, s := range seen {
		if s == id {
			return nil, yamlnode.Errorf(p.ExtendsPos, "extends", "cycle: %s -> %s", strings.Join(seen, " -> "), id)
		}
	}
	p.label("profile")
	if p.Extends == "" {
		p.finish()
		return p, nil
	}
	parentRef := p.Extends
	if IsPath(parentRef) && !filepath.IsAbs(parentRef) && p.Source != BuiltinSource {
		parentRef = filepath.Join(filepath.Dir(p.Source), parentRef)
	}
	// A profile extending its own name builds on the next one along the
	// search path (say, a site file tuning the built-in of that name).
	after := ""
	if parentRef == p.Name && !IsPath(ref) {
		after = p.Source
	}
	parent, err := f.load(parentRef, after, append(seen, id))
	if err != nil {
		var pe *Error
		if errors.Is(err, ErrNotFound) && !errors.As(err, &pe) {
			return nil, yamlnode.Errorf(p.ExtendsPos, "extends", "parent %v", err)
		}
		return nil, err
	}
	return merge(parent, p), nil
}

// find reads one profile without applying extends. With after set, names
// are looked up only in the places after that source.
func (f *Finder) find(ref, after string) (*Profile, error) {
	if IsPath(ref) {
		data, err := inputfile.Read(ref, yamlnode.MaxFileSize)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, inputerr.Errorf("profile file %s: %w; check the path or give a profile name", ref, ErrNotFound)
			}
			if inputerr.Is(err) {
				return nil, err
			}
			return nil, inputerr.Errorf("read profile %s: %w", ref, err)
		}
		p, err := Parse(ref, data)
		if err != nil {
			return nil, err
		}
		if p.Name == "" {
			p.Name = strings.TrimSuffix(filepath.Base(ref), filepath.Ext(ref))
		}
		return p, nil
	}
	skipping := after != ""
	for _, dir := range f.Dirs {
		for _, ext := range []string{".yaml", ".yml"} {
			file := filepath.Join(dir, ref+ext)
			if skipping {
				if file == after {
					skipping = false
				}
				continue
			}
			data, err := inputfile.Read(file, yamlnode.MaxFileSize)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if inputerr.Is(err) {
				return nil, err
			}
			if err != nil {
				return nil, inputerr.Errorf("read profile %s: %w", file, err)
			}
			return parseNamed(file, ref, data)
		}
	}
	if data, ok := builtinData(ref); ok && after != BuiltinSource {
		p, err := Parse("built-in:"+ref+".yaml", data)
		if err != nil {
			return nil, fmt.Errorf("built-in profile %s: %w", ref, err)
		}
		p.Source = BuiltinSource
		return p, nil
	}
	return nil, f.notFound(ref)
}

func parseNamed(file, ref string, data []byte) (*Profile, error) {
	p, err := Parse(file, data)
	if err != nil {
		return nil, err
	}
	switch p.Name {
	case "":
		p.Name = ref
	case ref:
	default:
		return nil, yamlnode.Errorf(Pos{File: file}, "name", "the file is %s but declares name %q; rename the file to %s.yaml or change the name", filepath.Base(file), p.Name, p.Name)
	}
	return p, nil
}

func (f *Finder) notFound(ref string) error {
	var where []string
	for _, d := range f.Dirs {
		where = append(where, d)
	}
	where = append(where, "the built-ins")
	msg := fmt.Sprintf("profile %q: %v; looked in %s", ref, ErrNotFound, strings.Join(where, ", "))
	names := f.names()
	var near []string
	for _, n := range names {
		if strings.HasPrefix(n, ref) || strings.Contains(n, ref) {
			near = append(near, n)
		}
	}
	if len(near) == 0 {
		near = catalog.Nearest(ref, names, 3)
	}
	if len(near) > 0 {
		msg += "; did you mean " + strings.Join(near, ", ") + "?"
	} else {
		msg += "; `sglaunch profiles list` shows what exists"
	}
	return inputerr.Wrap(&notFoundError{msg})
}

type notFoundError struct{ msg string }

func (e *notFoundError) Error() string        { return e.msg }
func (e *notFoundError) Is(target error) bool { return target == ErrNotFound }

// Listing is one profile as `profiles list` shows it.
type Listing struct {
	Name        string `json:"name"`
	Source      string `json:"source"`
	Description string `json:"description"`
	// ShadowedBy names the source that wins for this name, when another does.
	ShadowedBy string `json:"shadowed_by,omitempty"`
	Err        string `json:"error,omitempty"`
}

// List returns every profile along the search path and the built-ins,
// in search order, marking those a earlier one shadows.
func (f *Finder) List() []Listing {
	var out []Listing
	winner := map[string]string{}
	add := func(name, source string, data []byte) {
		l := Listing{Name: name, Source: source}
		if p, err := Parse(source, data); err != nil {
			l.Err = err.Error()
		} else {
			l.Description = p.Description
		}
		if w, ok := winner[name]; ok {
			l.ShadowedBy = w
		} else {
			winner[name] = source
		}
		out = append(out, l)
	}
	for _, dir := range f.Dirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			ext := filepath.Ext(e.Name())
			if e.IsDir() || (ext != ".yaml" && ext != ".yml") {
				continue
			}
			file := filepath.Join(dir, e.Name())
			data, err := inputfile.Read(file, yamlnode.MaxFileSize)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				out = append(out, Listing{Name: strings.TrimSuffix(e.Name(), ext), Source: file, Err: err.Error()})
				continue
			}
			add(strings.TrimSuffix(e.Name(), ext), file, data)
		}
	}
	for _, n := range builtinNames() {
		data, _ := builtinData(n)
		add(n, BuiltinSource, data)
	}
	return out
}

func (f *Finder) names() []string {
	set := map[string]bool{}
	for _, l := range f.List() {
		set[l.Name] = true
	}
	var names []string
	for n := range set {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
