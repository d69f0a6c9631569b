package profiles

import (
	"embed"
	"io/fs"
	"path"
	"sort"
	"strings"
)

//go:embed builtin/*.yaml
var builtinFS embed.FS

// BuiltinSource is the Source of a profile embedded in the binary.
const BuiltinSource = "built-in"

// builtinNames lists the embedded profiles, sorted.
func builtinNames() []string {
	entries, _ := fs.ReadDir(builtinFS, "builtin")
	var names []string
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e.Name(), path.Ext(e.Name())))
	}
	sort.Strings(names)
	return names
}

func builtinData(name string) ([]byte, bool) {
	b, err := builtinFS.ReadFile("builtin/" + name + ".yaml")
	return b, err == nil
}
