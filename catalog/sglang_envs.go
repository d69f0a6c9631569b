package catalog

import (
	"fmt"
	"sync"

	"github.com/sglaunch/sglaunch/catalog/sglangtab"
)

// SGLangEnv is one variable of SGLang's environment registry (Envs in
// python/sglang/srt/environ.py).
type SGLangEnv struct {
	Name    string
	Type    string // EnvBool, EnvInt, EnvFloat, EnvStr, EnvJSON, EnvTuple
	Default string
	Secret  bool
}

// SGLangRetired is a variable SGLang no longer reads as written: renamed
// (Replacement is the new name), replaced by a flag (Replacement starts
// with --), or removed outright (Replacement is empty).
type SGLangRetired struct {
	Name        string
	Replacement string
	// Removed is true when SGLang no longer acts on the name.
	Removed bool
	Note    string
	// Warning is what SGLang logs at start-up when a removed name is set
	// anyway; empty when it says nothing.
	Warning string
}

// SGLangEnvs is the SGLang environment catalog.
type SGLangEnvs struct {
	Source string
	Vars   []*SGLangEnv
	// Direct are names read with os.getenv outside the registry.
	Direct  []string
	Retired []*SGLangRetired
	aliases []*SGLangRetired // deprecated aliases of registry names
	byName  map[string]*SGLangEnv
	retired map[string]*SGLangRetired
	direct  map[string]bool
	names   []string
}

// Lookup finds a registry variable.
func (c *SGLangEnvs) Lookup(name string) (*SGLangEnv, bool) {
	v, ok := c.byName[name]
	return v, ok
}

// LookupRetired finds a renamed, replaced or removed variable.
func (c *SGLangEnvs) LookupRetired(name string) (*SGLangRetired, bool) {
	r, ok := c.retired[name]
	return r, ok
}

// Reads reports whether SGLang reads the name: a registry variable or one
// read directly.
func (c *SGLangEnvs) Reads(name string) bool {
	_, ok := c.byName[name]
	return ok || c.direct[name]
}

// Names returns every name SGLang reads, sorted.
func (c *SGLangEnvs) Names() []string { return c.names }

var (
	sglEnvOnce sync.Once
	sglEnvVal  *SGLangEnvs
	sglEnvErr  error
)

// SGLangEnvCatalog returns the environment catalog of the newest
// generated SGLang table set (see EnvsFor for an installed version's).
func SGLangEnvCatalog() *SGLangEnvs {
	sglEnvOnce.Do(func() {
		newest, err := sglangtab.Newest()
		if err != nil {
			sglEnvErr = err
			return
		}
		sglEnvVal, sglEnvErr = EnvsFromTables(newest)
	})
	if sglEnvErr != nil {
		// Embedded data; a failure is a build defect the tests catch.
		panic(fmt.Sprintf("catalog: embedded SGLang env tables: %v", sglEnvErr))
	}
	return sglEnvVal
}

var envsByVersion sync.Map // table set version -> *SGLangEnvs

// EnvsFor returns the environment catalog for an installed SGLang
// version: its table set, else the nearest older one (the Choice's Warn
// says so).
func EnvsFor(version string) (*SGLangEnvs, sglangtab.Choice, error) {
	c, err := sglangtab.For(version)
	if err != nil {
		return nil, c, err
	}
	if e, ok := envsByVersion.Load(c.Meta.Version); ok {
		return e.(*SGLangEnvs), c, nil
	}
	e, err := EnvsFromTables(c.Tables)
	if err != nil {
		return nil, c, err
	}
	envsByVersion.Store(c.Meta.Version, e)
	return e, c, nil
}
