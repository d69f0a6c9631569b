package catalog

// One setting, many spellings. argparse stores every flag into a field of
// ServerArgs, its dest; SGLang registers deprecated flags with the dest of
// the flag that replaced them (--cuda-graph-max-bs stores into
// cuda_graph_max_bs_decode, as --cuda-graph-max-bs-decode does). Two flags
// with one dest are one setting: the last one given wins, whichever
// spelling it used. The setting is named by the flag that owns the dest:
// the first flag registered with it that is not deprecated, else the first
// registered at all (--enable-nsa-prefill-context-parallel is
// --enable-dsa-prefill-context-parallel; both are deprecated).
//
// Dests are data: the catalog line's "(dest FIELD; ...)" or the name's.
// A table generated from SGLang's source that fills Flag.Dest (and
// Flag.Const for store_const flags) replaces the hand-written ones
// without a change here.

// indexDests records, for each dest, the flag that owns it.
func (a *Args) indexDests() {
	a.owner = map[string]*Flag{}
	for _, deprecated := range []bool{false, true} {
		for _, f := range a.Flags {
			if f.Deprecated != deprecated || f.Dest == "" {
				continue
			}
			if _, ok := a.owner[f.Dest]; !ok {
				a.owner[f.Dest] = f
			}
		}
	}
}

// Setting returns the flag that names f's setting: the owner of f's dest
// (f itself when it owns it, or when the set does not know its dest).
func (a *Args) Setting(f *Flag) *Flag {
	if f == nil {
		return nil
	}
	if o, ok := a.owner[f.Dest]; ok {
		return o
	}
	return f
}

// SettingValues returns a use's values as they land in its setting: a
// store_const flag stores its Const (--enable-breakable-cuda-graph is
// --cuda-graph-backend-prefill breakable); every other flag stores what
// was written.
func SettingValues(f *Flag, written []string) []string {
	if f != nil && f.Action == "store_const" && f.Const != "" {
		return []string{f.Const}
	}
	return written
}

// SameSetting reports whether two flag names, written without their
// leading dashes as a profile's args keys are (tp, tensor-parallel-size,
// tp-size), select one setting of the embedded catalog: the same name, or
// flags that store into one dest.
func SameSetting(a, b string) bool {
	if a == b {
		return true
	}
	args := SGLangArgs()
	fa, _, errA := args.Resolve("--" + a)
	fb, _, errB := args.Resolve("--" + b)
	return errA == nil && errB == nil && args.Setting(fa) == args.Setting(fb)
}
