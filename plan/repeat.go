package plan

import (
	"fmt"
	"slices"

	"github.com/sglaunch/sglaunch/profiles"
)

// Repeat is one SGLang setting given twice in one layer through two
// spellings (args.tp and args.tp-size in one profile, or two --set). The
// plan passes it once, at the first one's place with the last one's
// value, as argparse would keep it; the repeat is worth a warning because
// one of the two values is silently lost.
type Repeat struct {
	Setting string `json:"setting"` // the canonical flag, e.g. --tp-size
	First   string `json:"first"`   // where it was given first: "args.tp at FILE:4:3 (profile)"
	Again   string `json:"again"`   // where it was given again
}

func (r Repeat) String() string {
	return fmt.Sprintf("%s is given again as %s (first as %s): one setting, only the last value is passed", r.Setting, r.Again, r.First)
}

// entryWhere says where an entry was written: args.NAME, its position
// when known, and its layer.
func entryWhere(e profiles.Entry) string {
	w := "args." + e.Name
	if e.Key.Line > 0 {
		w += " at " + e.Key.String()
	}
	return w + " (" + e.Value.From + ")"
}

// repeatsIn finds the settings a section gives twice within one layer
// through different spellings. A later layer's spelling (a child
// profile's tp-size over its parent's tp) is an override, not a repeat.
func repeatsIn(s profiles.Section) []Repeat {
	var out []Repeat
	for j, e := range s {
		for _, first := range s[:j] {
			if first.Name != e.Name && first.Value.From == e.Value.From && sameFlag(first.Name, e.Name) {
				out = append(out, Repeat{Setting: CanonicalFlag(e.Name), First: entryWhere(first), Again: entryWhere(e)})
				break
			}
		}
	}
	return out
}

// foldArgs applies each entry of over onto s by setting: an entry whose
// flag stores into the same setting as one already there replaces it in
// place, whatever its spelling; any other is appended.
func foldArgs(s, over profiles.Section) profiles.Section {
	out := slices.Clone(s)
	for _, e := range over {
		out = setEntry(out, e, sameFlag)
	}
	return out
}
