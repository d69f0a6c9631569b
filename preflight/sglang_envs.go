package preflight

import (
	"bytes"
	"fmt"
	"github.com/sglaunch/sglaunch/health"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/sglaunch/sglaunch/catalog"
	"github.com/sglaunch/sglaunch/internal/pyvalue"
)

// checkSGLangEnv checks the managed SGLANG_* and SGL_* variables: does the
// installed SGLang read them (its sources mention them), or, without one,
// does the catalog's registry have them; are they retired; are their
// values what SGLang's parsers accept.
func checkSGLangEnv(items []envItem, py *pythonResult) []Finding {
	cat := py.envs
	if cat == nil {
		cat = catalog.SGLangEnvCatalog()
	}
	var known []string
	reads := func(name string) bool { return cat.Reads(name) }
	source, found := "SGLang's environment registry ("+cat.Source+")", "SGLang reads it (the catalog's registry has it)"
	if py.envNames != nil {
		reads = func(name string) bool { return py.envNames[name] }
		source = "the sources of sglang " + py.info.Version + " at " + py.info.Location
		found = "sglang " + py.info.Version + " reads it (its sources mention it)"
		for n := range py.envNames {
			known = append(known, n)
		}
		sort.Strings(known)
	} else {
		known = cat.Names()
	}
	var out []Finding
	for _, it := range items {
		if !strings.HasPrefix(it.name, "SGLANG_") && !strings.HasPrefix(it.name, "SGL_") {
			continue
		}
		s := subject{CheckSGLEnv, it.name, it.where}
		c := &verdicts{subject: s}
		name := it.name
		if rest, ok := strings.CutPrefix(name, "SGL_"); ok && !reads(name) {
			c.warn(fmt.Sprintf("legacy SGL_ name: SGLang copies it to SGLANG_%s at import, with a deprecation warning", rest), "rename it to SGLANG_"+rest)
			name = "SGLANG_" + rest
		}
		switch r, retired := cat.LookupRetired(name); {
		case retired && r.Removed:
			fix := "remove it"
			if r.Replacement != "" {
				fix = "use " + r.Replacement + " instead, and remove the variable"
			}
			if r.Warning != "" {
				// Not silent: SGLang still looks the name up to warn.
				c.warn(fmt.Sprintf("removed from SGLang (%s): it has no effect, but SGLang logs a warning at start-up when it is set: %q", r.Note, r.Warning), fix)
			} else {
				c.warn(fmt.Sprintf("SGLang no longer reads it (%s): setting it does nothing", r.Note), fix)
			}
		case retired:
			c.warn(r.Note+", with a warning", "rename it to "+r.Replacement)
		case reads(name):
			c.pass(found)
		case health.IsBypassName(name):
			c.pass("SGLang's /health reads it (srt/environ.py at 0003215c, newer than the tables " + cat.Source + ")")
		default:
			fix := "remove it"
			if near := closestAfter("SGLANG_", name, known); len(near) > 0 {
				fix = didYouMean(near)
			}
			c.warn("not read by SGLang: no mention in "+source+", so setting it does nothing", fix)
		}
		if v, ok := cat.Lookup(name); ok {
			checkSGLangValue(c, v, it.value)
		}
		out = append(out, c.findings()...)
	}
	return out
}

// checkSGLangValue applies the registry's parsers: EnvBool takes
// true/1/yes/y and false/0/no/n in any case; an invalid value warns at
// start-up and falls back to the default.
func checkSGLangValue(c *verdicts, v *catalog.SGLangEnv, value string) {
	t := strings.TrimSpace(value)
	bad := ""
	switch v.Type {
	case "EnvBool":
		switch strings.ToLower(t) {
		case "true", "1", "yes", "y", "false", "0", "no", "n":
		default:
			bad = "not a bool SGLang reads (true/1/yes/y or false/0/no/n)"
		}
	case "EnvInt":
		if !pyvalue.Int(t) {
			bad = "not an integer"
		}
	case "EnvFloat":
		if !pyvalue.Float(t) {
			bad = "not a number"
		}
	}
	if bad != "" {
		c.warn(fmt.Sprintf("%s is %s: SGLang warns and uses the default (%s)", shown(v.Name, value), bad, v.Default), "write a valid "+strings.TrimPrefix(v.Type, "Env")+" value")
	}
}

// scanEnvNames collects every SGLANG_* and SGL_* word in the package's
// Python sources: the names it can possibly read.
func scanEnvNames(dir string) []string {
	seen := map[string]bool{}
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable parts are skipped
		}
		if d.IsDir() && (d.Name() == "__pycache__" || strings.HasPrefix(d.Name(), ".")) {
			return fs.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".py") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		scanWords(b, seen)
		return nil
	})
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// scanWords adds to seen each whole word of b that starts SGLANG_ or SGL_.
func scanWords(b []byte, seen map[string]bool) {
	for i := 0; ; {
		j := bytes.Index(b[i:], []byte("SGL"))
		if j < 0 {
			return
		}
		start := i + j
		end := start
		for end < len(b) && isWordByte(b[end]) {
			end++
		}
		i = end
		if start > 0 && isWordByte(b[start-1]) {
			continue
		}
		w := string(b[start:end])
		if (strings.HasPrefix(w, "SGLANG_") || strings.HasPrefix(w, "SGL_")) && !strings.HasSuffix(w, "_") {
			seen[w] = true
		}
	}
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
}
