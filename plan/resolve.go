package plan

import (
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/sglaunch/sglaunch/catalog"
	"github.com/sglaunch/sglaunch/internal/inputerr"
	"github.com/sglaunch/sglaunch/internal/version"
	"github.com/sglaunch/sglaunch/internal/yamlnode"
	"github.com/sglaunch/sglaunch/profiles"
)

// DefaultManaged are the variable prefixes (ending in _) and names that
// come only from the plan: a value in sglaunch's own environment is
// dropped unless the profile lists it in inherit_env.
var DefaultManaged = []string{"NCCL_", "SGLANG_", "SGL_", "CUDA_", "TORCH_", "PYTORCH_", "OMP_NUM_THREADS", "NVIDIA_TF32_OVERRIDE",
	// Multi-node transports: Gloo, NVSHMEM, UCX and Mooncake (MC_).
	"GLOO_", "NVSHMEM_", "UCX_", "MC_"}

// neverInherited are systemd's notify and watchdog variables, and the
// group's secret: they belong to sglaunch, the unit's main process,
// never to the server (whose environment verify --group reads).
var neverInherited = []string{"NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", GroupSecretVar}

// SimDirVar is expanded in env and arg values to where the simulated
// SGLang server is unpacked.
const SimDirVar = "${SGLAUNCH_SIM_DIR}"

// Request is what a plan is resolved from.
type Request struct {
	Profile *profiles.Profile
	Mode    string
	Config  Config
	Sets    []string // --set KEY=VALUE
	Unsets  []string // --unset KEY
	Extra   []string // arguments after --
	Environ []string // sglaunch's own environment
	// LookPath finds the interpreter (exec.LookPath when nil).
	LookPath func(string) (string, error)
	// SimDir returns the simulator's directory; called only when a value
	// mentions ${SGLAUNCH_SIM_DIR}.
	SimDir func() (string, error)
	// StatusAddr is --status-addr, above every other layer.
	StatusAddr string
	// KeepMistyped leaves a flag's value of the wrong type (tp: eight)
	// in the plan instead of refusing it: preflight judges every value
	// against the installed SGLang and lists each mistake of a profile
	// at once, where every other command stops at the first.
	KeepMistyped bool
}

// layered is the plan under construction.
type layered struct {
	settings map[string]profiles.Value
	env      profiles.Section
	args     profiles.Section
	// envRaw keeps the text of variables as written before expansion.
	envRaw map[string]string
	// repeats are the settings given twice in one layer.
	repeats []Repeat
}

// Resolve turns a profile into a plan for one mode.
func Resolve(req Request) (*Plan, error) {
	p := req.Profile
	if req.Mode != ModeServe && req.Mode != ModeBench {
		return nil, inputerr.Errorf("mode %q: want serve or bench", req.Mode)
	}
	l := &layered{settings: DefaultSettings(), envRaw: map[string]string{}}
	for k, v := range p.Settings {
		l.settings[k] = v
	}
	l.env = append(l.env, p.Env...)
	// The extends chain merged its args by name; merged by setting, a
	// child's tp-size replaces its parent's tp in place.
	l.repeats = repeatsIn(p.Args)
	l.args = foldArgs(l.args, p.Args)

	// The mode overlay.
	overlayFrom := req.Mode + " overlay"
	o := p.Overlay(req.Mode)
	l.repeats = append(l.repeats, repeatsIn(o.Args)...)
	var added []string
	for _, e := range o.Env {
		e.Value.From = overlayFrom
		l.env = setEntry(l.env, e, sameName)
		added = append(added, describeEnv(e))
	}
	for _, e := range o.Args {
		e.Value.From = overlayFrom
		l.args = setEntry(l.args, e, sameFlag)
		added = append(added, describeArg(e))
	}

	// SGLAUNCH_* variables, then the command line.
	s := req.Config
	for _, x := range []struct{ key, val, from string }{
		{"python", s.Python, "SGLAUNCH_PYTHON"},
		{"args.host", s.Host, "SGLAUNCH_HOST"},
		{"args.port", s.Port, "SGLAUNCH_PORT"},
		{"status_addr", s.StatusAddr, "SGLAUNCH_STATUS_ADDR"},
	} {
		if x.val != "" {
			if err := l.set(x.key, x.val, x.from); err != nil {
				return nil, err
			}
		}
	}
	for _, kv := range s.Set {
		if err := l.assign(kv, "SGLAUNCH_SET", "SGLAUNCH_SET"); err != nil {
			return nil, err
		}
	}
	for _, kv := range req.Sets {
		if err := l.assign(kv, "--set", "--set"); err != nil {
			return nil, err
		}
	}
	for _, key := range req.Unsets {
		if err := l.unset(key); err != nil {
			return nil, err
		}
	}
	if req.StatusAddr != "" {
		if err := l.set("status_addr", req.StatusAddr, "--status-addr"); err != nil {
			return nil, fmt.Errorf("--status-addr %s: %w", req.StatusAddr, err)
		}
	}
	l.env = dropRemoved(l.env)
	l.args = dropRemoved(l.args)

	if err := expandSimDir(l, req.SimDir); err != nil {
		return nil, err
	}
	if !req.KeepMistyped {
		if err := checkArgTypes(l.args); err != nil {
			return nil, err
		}
	}
	python, err := findPython(l.settings["python"], req.LookPath, req.Environ)
	if err != nil {
		return nil, err
	}

	plan := &Plan{
		Version:      version.String(),
		Profile:      p.Name,
		Source:       p.Source,
		Chain:        p.Chain,
		Mode:         req.Mode,
		Python:       python,
		PythonOnPath: !strings.ContainsRune(l.settings["python"].Text, '/'),
		Module:       l.settings["module"].Text,
		Args:         l.args,
		Extra:        req.Extra,
		OverlayAdded: added,
		Repeats:      l.repeats,
		Managed:      append(append([]string(nil), DefaultManaged...), p.ManagedEnv...),
		Provenance:   map[string]string{},
	}
	plan.ApplySettings(l.settings)
	plan.renderArgv()
	plan.buildEnv(l.env, l.envRaw, p.InheritEnv, req.Environ)
	for k, v := range l.settings {
		plan.Provenance[k] = v.From
	}
	for _, e := range l.args {
		plan.Provenance["args."+e.Name] = e.Value.From
	}
	for _, e := range plan.Env {
		plan.Provenance["env."+e.Name] = e.From
	}
	if len(req.Extra) > 0 {
		plan.Provenance["extra"] = "--"
	}
	plan.Fingerprint = Fingerprint(plan)
	return plan, nil
}

// assign applies one KEY=VALUE assignment from a layer.
func (l *layered) assign(kv, flag, from string) error {
	key, val, ok := strings.Cut(kv, "=")
	if !ok {
		return inputerr.Errorf("%s %q: want KEY=VALUE, like args.tp=8 or env.NCCL_ALGO=Ring", flag, kv)
	}
	if err := l.set(key, val, from); err != nil {
		return fmt.Errorf("%s %s: %w", flag, kv, err)
	}
	return nil
}

// set gives one key (args.NAME, env.NAME or a setting) a value from a layer.
func (l *layered) set(key, val, from string) error {
	if r, bad := yamlnode.ValueControl(val); bad {
		return inputerr.Errorf("%s: the value holds control character %s; values may hold only tab and newline", key, yamlnode.QuoteRune(r))
	}
	switch {
	case strings.HasPrefix(key, "args."):
		name := strings.TrimPrefix(key, "args.")
		if err := checkArgName(name); err != nil {
			return err
		}
		v, err := argValue(val)
		if err != nil {
			return inputerr.Errorf("%s: %w", key, err)
		}
		v.From = from
		e := profiles.Entry{Name: name, Value: v}
		for _, old := range l.args {
			if old.Name != name && old.Value.From == from && sameFlag(old.Name, name) {
				l.repeats = append(l.repeats, Repeat{Setting: CanonicalFlag(name), First: entryWhere(old), Again: entryWhere(e)})
			}
		}
		l.args = setEntry(l.args, e, sameFlag)
	case strings.HasPrefix(key, "env."):
		name := strings.TrimPrefix(key, "env.")
		if !validEnvName(name) {
			return inputerr.Errorf("%s: not a valid environment variable name; want letters, digits and _", key)
		}
		l.env = setEntry(l.env, profiles.Entry{Name: name, Value: profiles.Value{Kind: profiles.Scalar, Text: val, From: from}}, sameName)
	default:
		st, ok := profiles.LookupSetting(key)
		if !ok {
			return inputerr.Errorf("unknown key %q; want args.FLAG, env.NAME or one of %s", key, strings.Join(settingKeys(), ", "))
		}
		if err := st.Check(val); err != nil {
			return inputerr.Errorf("%s: %w", key, err)
		}
		l.settings[key] = profiles.Value{Kind: profiles.Scalar, Text: val, From: from}
	}
	return nil
}

// unset removes a flag or variable, or returns a setting to its default.
func (l *layered) unset(key string) error {
	switch {
	case strings.HasPrefix(key, "args."):
		name := strings.TrimPrefix(key, "args.")
		if err := checkArgName(name); err != nil {
			return err
		}
		if err := l.checkUnsetArg(name); err != nil {
			return err
		}
		l.args = setEntry(l.args, profiles.Entry{Name: name, Value: profiles.Value{Kind: profiles.Bool, Text: "false", From: "--unset"}}, sameFlag)
	case strings.HasPrefix(key, "env."):
		name := strings.TrimPrefix(key, "env.")
		if !validEnvName(name) {
			return inputerr.Errorf("--unset %s: not a valid environment variable name; want letters, digits and _ (one name per --unset)", key)
		}
		l.env = setEntry(l.env, profiles.Entry{Name: name, Value: profiles.Value{Kind: profiles.Null, From: "--unset"}}, sameName)
	default:
		st, ok := profiles.LookupSetting(key)
		if !ok {
			return inputerr.Errorf("--unset %s: unknown key; want args.FLAG, env.NAME or one of %s", key, strings.Join(settingKeys(), ", "))
		}
		l.settings[key] = profiles.Value{Text: st.Default, From: "--unset"}
	}
	return nil
}

// checkUnsetArg refuses to remove a flag the plan does not have: such an
// --unset did nothing, silently (issue 24).
func (l *layered) checkUnsetArg(name string) error {
	var names []string
	for _, e := range l.args {
		if sameFlag(e.Name, name) {
			return nil
		}
		names = append(names, e.Name)
	}
	msg := fmt.Sprintf("--unset args.%s: the plan has no flag --%s to remove", name, name)
	if near := catalog.Nearest(name, names, 1); len(near) > 0 {
		msg += fmt.Sprintf("; did you mean args.%s?", near[0])
	}
	return inputerr.Errorf("%s (its flags: %s)", msg, strings.Join(names, ", "))
}

func checkArgName(name string) error {
	switch {
	case name == "":
		return inputerr.Errorf("args.: empty flag name; want args.FLAG=VALUE, like args.tp=8")
	case strings.HasPrefix(name, "-"):
		return inputerr.Errorf("args.%s: write the flag without its leading dashes: args.%s", name, strings.TrimLeft(name, "-"))
	case len(name) > yamlnode.MaxKeyLen:
		return inputerr.Errorf("args.: a flag name of %d bytes; names are at most %d", len(name), yamlnode.MaxKeyLen)
	case strings.ContainsFunc(name, unicode.IsControl):
		return inputerr.Errorf("args.%s: not a flag name (it holds a control character)", strconv.QuoteToASCII(name))
	case strings.ContainsAny(name, " \t="):
		return inputerr.Errorf("args.%s: not a flag name", name)
	}
	return nil
}

// argValue reads a command-line value the way a profile would hold it:
// true/false are a bare or a dropped flag, [a, b] a list, anything else
// a scalar as written.
func argValue(s string) (profiles.Value, error) {
	switch {
	case s == "":
		return profiles.Value{}, errors.New("empty value; give a value, true for a bare flag or false to drop it")
	case s == "true" || s == "True" || s == "TRUE" || s == "false" || s == "False" || s == "FALSE":
		return profiles.Value{Kind: profiles.Bool, Text: s}, nil
	case strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]"):
		var items []string
		for _, it := range strings.Split(s[1:len(s)-1], ",") {
			if it = strings.TrimSpace(it); it != "" {
				items = append(items, it)
			}
		}
		if len(items) == 0 {
			return profiles.Value{}, errors.New("empty list; give at least one value or false to drop the flag")
		}
		return profiles.Value{Kind: profiles.List, List: items}, nil
	}
	return profiles.Value{Kind: profiles.Scalar, Text: s}, nil
}

func settingKeys() []string {
	var keys []string
	for _, s := range profiles.Schema {
		keys = append(keys, s.Key)
	}
	return keys
}

func sameName(a, b string) bool { return a == b }

// sameFlag reports whether two flag names select the same SGLang setting
// (tp and tp-size do; so do cuda-graph-max-bs and cuda-graph-max-bs-decode).
func sameFlag(a, b string) bool { return catalog.SameSetting(a, b) }

// setEntry replaces the entry that same() matches, in place, or appends.
func setEntry(s profiles.Section, e profiles.Entry, same func(a, b string) bool) profiles.Section {
	for i := range s {
		if same(s[i].Name, e.Name) {
			out := slices.Clone(s)
			out[i] = e
			return out
		}
	}
	return append(slices.Clone(s), e)
}

// dropRemoved drops false flags and null variables: the removals.
func dropRemoved(s profiles.Section) profiles.Section {
	var out profiles.Section
	for _, e := range s {
		if e.Value.Kind == profiles.Null || (e.Value.Kind == profiles.Bool && !e.Value.IsTrue()) {
			continue
		}
		out = append(out, e)
	}
	return out
}

func expandSimDir(l *layered, simDir func() (string, error)) error {
	dir := ""
	expand := func(s string) (string, error) {
		if !strings.Contains(s, SimDirVar) {
			return s, nil
		}
		if dir == "" {
			if simDir == nil {
				return "", errors.New("the simulator is not available here")
			}
			d, err := simDir()
			if err != nil {
				return "", fmt.Errorf("unpack the simulated SGLang server: %w", err)
			}
			dir = d
		}
		return strings.ReplaceAll(s, SimDirVar, dir), nil
	}
	for i := range l.env {
		v := &l.env[i].Value
		x, err := expand(v.Text)
		if err != nil {
			return err
		}
		if x != v.Text {
			l.envRaw[l.env[i].Name] = v.Text
			v.Text = x
		}
	}
	for i := range l.args {
		v := &l.args[i].Value
		var err error
		if v.Text, err = expand(v.Text); err != nil {
			return err
		}
		for j := range v.List {
			if v.List[j], err = expand(v.List[j]); err != nil {
				return err
			}
		}
	}
	return nil
}

// findPython resolves the interpreter to an absolute path without
// following symlinks: a venv's python is a symlink whose location matters.
func findPython(v profiles.Value, lookPath func(string) (string, error), environ []string) (string, error) {
	name := v.Text
	if lookPath == nil {
		lookPath = exec.LookPath
	}
	path, err := lookPath(name)
	if err != nil {
		where := "PATH"
		for _, kv := range environ {
			if p, ok := strings.CutPrefix(kv, "PATH="); ok {
				where = "PATH=" + p
			}
		}
		return "", inputerr.Errorf("python (%s): interpreter %q not found in %s; set python: to an absolute path or --set python=/path/to/python3", v.From, name, where)
	}
	if !filepath.IsAbs(path) {
		if path, err = filepath.Abs(path); err != nil {
			return "", fmt.Errorf("python: %w", err)
		}
	}
	return path, nil
}

// renderArgs turns flags into argv: --name value, --name v1 v2, --name.
// renderArgv sets the full command from the plan's interpreter, module,
// args and extra arguments.
func (p *Plan) renderArgv() {
	p.Argv = append(append([]string{p.Python, "-m", p.Module}, renderArgs(p.Args)...), p.Extra...)
}

func renderArgs(args profiles.Section) []string {
	var argv []string
	for _, e := range args {
		argv = append(argv, "--"+e.Name)
		switch e.Value.Kind {
		case profiles.List:
			argv = append(argv, e.Value.List...)
		case profiles.Scalar:
			argv = append(argv, e.Value.Text)
		}
	}
	return argv
}

func describeArg(e profiles.Entry) string {
	switch {
	case e.Value.Kind == profiles.Bool && !e.Value.IsTrue():
		return "removed --" + e.Name
	case e.Value.Kind == profiles.Bool:
		return "--" + e.Name
	}
	return "--" + e.Name + " " + e.Value.String()
}

func describeEnv(e profiles.Entry) string {
	if e.Value.Kind == profiles.Null {
		return "removed " + e.Name
	}
	return e.Name + "=" + e.Value.Text
}

func validEnvName(s string) bool {
	if s == "" || (s[0] >= '0' && s[0] <= '9') {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}
