package profiles

import "slices"

// label sets From on every value that has none yet.
func (p *Profile) label(from string) {
	for k, v := range p.Settings {
		if v.From == "" {
			v.From = from
			p.Settings[k] = v
		}
	}
	for _, s := range []Section{p.Env, p.Args, p.Serve.Env, p.Serve.Args, p.Bench.Env, p.Bench.Args} {
		for i := range s {
			if s[i].Value.From == "" {
				s[i].Value.From = from
			}
		}
	}
}

// relabel renames the layer of every value from one label to another.
func (p *Profile) relabel(from, to string) {
	for k, v := range p.Settings {
		if v.From == from {
			v.From = to
			p.Settings[k] = v
		}
	}
	for _, s := range []Section{p.Env, p.Args, p.Serve.Env, p.Serve.Args, p.Bench.Env, p.Bench.Args} {
		for i := range s {
			if s[i].Value.From == from {
				s[i].Value.From = to
			}
		}
	}
}

// finish drops the removals that have nothing left to remove: a null env
// value and a false flag in the base sections (overlays keep theirs, as
// they apply later on top of the base).
func (p *Profile) finish() {
	p.Env = dropRemovals(p.Env)
	p.Args = dropRemovals(p.Args)
}

func dropRemovals(s Section) Section {
	var out Section
	for _, e := range s {
		if e.Value.Kind == Null || (e.Value.Kind == Bool && !e.Value.IsTrue()) {
			continue
		}
		out = append(out, e)
	}
	return out
}

// merge applies child on top of its resolved parent.
func merge(parent, child *Profile) *Profile {
	parent.relabel("profile", "extends "+parent.Name)
	out := &Profile{
		Name:        child.Name,
		Description: child.Description,
		Extends:     child.Extends,
		ExtendsPos:  child.ExtendsPos,
		Settings:    map[string]Value{},
		Env:         parent.Env.Merge(child.Env),
		Args:        parent.Args.MergeArgs(child.Args),
		Serve:       mergeOverlay(parent.Serve, child.Serve),
		Bench:       mergeOverlay(parent.Bench, child.Bench),
		ManagedEnv:  union(parent.ManagedEnv, child.ManagedEnv),
		InheritEnv:  union(parent.InheritEnv, child.InheritEnv),
		Source:      child.Source,
		Chain:       append(append([]string(nil), parent.Chain...), parent.Name+" ("+parent.Source+")"),
	}
	if out.Description == "" {
		out.Description = parent.Description
	}
	out.Tune, out.TuneFile = parent.Tune, parent.TuneFile
	if child.Tune != nil {
		out.Tune, out.TuneFile = child.Tune, child.TuneFile
	}
	for k, v := range parent.Settings {
		out.Settings[k] = v
	}
	for k, v := range child.Settings {
		out.Settings[k] = v
	}
	out.finish()
	return out
}

func mergeOverlay(parent, child Overlay) Overlay {
	o := Overlay{Env: parent.Env.Merge(child.Env), Args: parent.Args.MergeArgs(child.Args), Workloads: parent.Workloads, WorkloadsFile: parent.WorkloadsFile, Pos: child.Pos}
	if child.Workloads != nil {
		o.Workloads, o.WorkloadsFile = child.Workloads, child.WorkloadsFile
	}
	return o
}

func union(a, b []string) []string {
	out := append([]string(nil), a...)
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}
