package catalog

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/sglaunch/sglaunch/catalog/sglangtab"
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
	// humanInt: SGLang parses the value with human_readable_int.
	humanInt bool

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

// SGLangArgs returns the flag catalog of the newest generated SGLang
// table set (see ArgsFor for an installed version's).
func SGLangArgs() *Args {
	argsOnce.Do(func() {
		newest, err := sglangtab.Newest()
		if err != nil {
			argsErr = err
			return
		}
		argsVal, argsErr = ArgsFromTables(newest)
	})
	if argsErr != nil {
		// The tables are part of the binary; a failure is a build defect
		// caught by the package tests, never user input.
		panic(fmt.Sprintf("catalog: embedded SGLang server_args tables: %v", argsErr))
	}
	return argsVal
}

var argsByVersion sync.Map // table set version -> *Args

// ArgsFor returns the flag catalog for an installed SGLang version: the
// table set generated for it, else the nearest older one (the Choice's
// Warn says so).
func ArgsFor(version string) (*Args, sglangtab.Choice, error) {
	c, err := sglangtab.For(version)
	if err != nil {
		return nil, c, err
	}
	if a, ok := argsByVersion.Load(c.Meta.Version); ok {
		return a.(*Args), c, nil
	}
	a, err := ArgsFromTables(c.Tables)
	if err != nil {
		return nil, c, err
	}
	argsByVersion.Store(c.Meta.Version, a)
	return a, c, nil
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
