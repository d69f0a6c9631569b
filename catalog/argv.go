package catalog

import "strings"

// Use is one flag as it appears in an argv, resolved against the catalog.
type Use struct {
	Written string // the option string as written, without =value
	Flag    *Flag  // nil when the catalog does not know the option
	// Canonical names the setting the flag stores into: the name of the
	// flag that owns its dest (--tp and --tensor-parallel-size are
	// --tp-size, the deprecated --cuda-graph-max-bs is
	// --cuda-graph-max-bs-decode), or Written when unknown.
	Canonical string
	Values    []string // the values that followed it
	Err       error    // *UnknownError or *AmbiguousError when Flag is nil
}

// Split cuts an SGLang argv tail (the part after `-m module`) into flag
// uses, the way argparse reads it: --name=value and --name v1 v2 ...,
// unique prefixes resolved. Tokens before the first option are returned
// as a use with an empty Written.
func (a *Args) Split(argv []string) []Use {
	var uses []Use
	for i := 0; i < len(argv); i++ {
		tok := argv[i]
		if !strings.HasPrefix(tok, "--") || tok == "--" {
			if len(uses) == 0 || uses[len(uses)-1].Written != "" {
				uses = append(uses, Use{})
			}
			uses[len(uses)-1].Values = append(uses[len(uses)-1].Values, tok)
			continue
		}
		name, val, hasEq := strings.Cut(tok, "=")
		u := Use{Written: name, Canonical: name}
		if f, _, err := a.Resolve(name); err == nil {
			u.Flag, u.Canonical = f, a.Setting(f).Name
		} else {
			u.Err = err
		}
		if hasEq {
			u.Values = []string{val}
		} else {
			// Values run up to the next option. Flags that take no value
			// still collect stray tokens so a caller can report them.
			for i+1 < len(argv) && !strings.HasPrefix(argv[i+1], "--") {
				i++
				u.Values = append(u.Values, argv[i])
			}
		}
		uses = append(uses, u)
	}
	return uses
}
