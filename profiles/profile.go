package profiles

import (
	"strings"

	"github.com/goccy/go-yaml/ast"

	"github.com/sglaunch/sglaunch/catalog"

	"github.com/sglaunch/sglaunch/internal/yamlnode"
)

// Pos is where a value was written.
type Pos = yamlnode.Pos

// Kind says how a value was written.
type Kind int

const (
	// Scalar is a string, number or other scalar, kept as written.
	Scalar Kind = iota
	// Bool is true or false: a bare flag, or a flag removed.
	Bool
	// List is a sequence of scalars: --flag a b c.
	List
	// Null removes an inherited value (env only).
	Null
)

// Value is one setting as written, with where it came from.
type Value struct {
	Kind Kind
	Text string   // Scalar and Bool: the text as written
	List []string // List: each item as written
	Pos  Pos
	// From names the layer that set the value: "default", "profile",
	// "extends NAME", "serve overlay", "SGLAUNCH_PORT", "--set", ...
	From string
}

// IsTrue reports whether a Bool value is true.
func (v Value) IsTrue() bool { return v.Kind == Bool && strings.EqualFold(v.Text, "true") }

// String renders the value the way it reaches a command line or an
// environment: scalars as written, lists space-separated.
func (v Value) String() string {
	switch v.Kind {
	case List:
		return strings.Join(v.List, " ")
	case Null:
		return ""
	}
	return v.Text
}

// Entry is one named value of an ordered section (args or env).
type Entry struct {
	Name  string
	Value Value
	Key   Pos // where the name was written
}

// Section is an ordered set of entries; later entries with the same name
// replace earlier ones in place.
type Section []Entry

// Get returns the entry for name.
func (s Section) Get(name string) (Entry, bool) {
	for _, e := range s {
		if e.Name == name {
			return e, true
		}
	}
	return Entry{}, false
}

// Merge applies over on top of s: a name already present keeps its place
// and takes the new value; a new name is appended in over's order.
func (s Section) Merge(over Section) Section {
	out := append(Section(nil), s...)
	for _, e := range over {
		replaced := false
		for i := range out {
			if out[i].Name == e.Name {
				out[i] = e
				replaced = true
				break
			}
		}
		if !replaced {
			out = append(out, e)
		}
	}
	return out
}

// MergeArgs applies over's flags on top of s by SGLang setting: a flag
// that stores into the same setting as one of s (a child's tp-size over
// its parent's tp) takes that entry's place, whatever its spelling, and
// a false one removes it; any other is appended. over's own entries never
// replace one another: two spellings in one profile stay for the plan to
// pass once and report.
func (s Section) MergeArgs(over Section) Section {
	out := append(Section(nil), s...)
	inherited := len(out) // entries of s not yet replaced by over
	taken := make([]bool, len(out))
	for _, e := range over {
		replaced := false
		for i := 0; i < inherited; i++ {
			if !taken[i] && catalog.SameSetting(out[i].Name, e.Name) {
				out[i], taken[i], replaced = e, true, true
				break
			}
		}
		if !replaced {
			out = append(out, e)
		}
	}
	return out
}

// Overlay is what one mode (serve or bench) adds on top of the profile.
type Overlay struct {
	Env  Section
	Args Section
	// Workloads is the raw bench.workloads node, decoded by the bench
	// package, which owns the workload format.
	Workloads ast.Node
	// WorkloadsFile names the file Workloads was written in (the profile's
	// own, or the one up its extends chain that defined it), for the
	// positions of the bench package's errors.
	WorkloadsFile string
	Pos           Pos
}

// Profile is one profile file, or the result of applying its extends chain.
type Profile struct {
	Name        string
	Description string
	Extends     string
	ExtendsPos  Pos
	// Settings holds the scalar settings by dotted key: python, module,
	// stop_timeout, health.start_timeout, ... (see Schema).
	Settings   map[string]Value
	Env        Section
	Args       Section
	Serve      Overlay
	Bench      Overlay
	ManagedEnv []string
	InheritEnv []string
	// Tune is the raw tune: node (a search space), decoded by package
	// tune; TuneFile names the file it was written in, for the positions
	// of that package's errors.
	Tune     ast.Node
	TuneFile string
	// Source is where the profile was read: a file path or "built-in".
	Source string
	// Chain lists the profiles applied, base first, when extends was used.
	Chain []string
}

// Overlay returns the overlay of mode ("serve" or "bench").
func (p *Profile) Overlay(mode string) *Overlay {
	if mode == "bench" {
		return &p.Bench
	}
	return &p.Serve
}
