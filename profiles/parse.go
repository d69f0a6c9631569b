package profiles

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/goccy/go-yaml/ast"

	"github.com/sglaunch/sglaunch/internal/yamlnode"
)

var (
	reEnvName  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	reFlagName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)
	reName     = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.+-]*$`)
)

var (
	topKeys     = []string{"name", "description", "extends", "python", "module", "env", "args", "serve", "bench", "health", "multinode", "stop_timeout", "managed_env", "inherit_env", "status_addr", "tune"}
	overlayKeys = []string{"env", "args"}
	benchKeys   = []string{"env", "args", "workloads"}
)

// Parse reads one profile. file names the source in error messages.
func Parse(file string, data []byte) (*Profile, error) {
	root, err := yamlnode.Document(file, data, "a profile file", "empty profile; want a mapping with at least args:")
	if err != nil {
		return nil, err
	}
	if root.Type() == ast.NullType {
		// A file holding only ~ or null sets nothing, as an empty one.
		return nil, yamlnode.Errorf(yamlnode.At(file, root), "", "empty profile (only null); want a mapping with at least args:")
	}
	d := &decoder{yamlnode.Decoder{File: file, AliasHint: "write the value out or use extends", NullOK: true}}
	p := &Profile{Source: file, Settings: map[string]Value{}}
	if err := d.profile(root, p); err != nil {
		return nil, err
	}
	return p, nil
}

// decoder reads the nodes of one profile file; null values are allowed
// (an empty section, or a null that removes an inherited env value).
type decoder struct{ yamlnode.Decoder }

func (d *decoder) profile(root ast.Node, p *Profile) error {
	entries, err := d.Mapping(root, "", topKeys)
	if err != nil {
		return err
	}
	for _, e := range entries {
		var err error
		switch e.Key {
		case "name":
			p.Name, err = d.str(e, reName, "a name of letters, digits, '.', '_', '+' and '-'")
		case "description":
			p.Description, err = d.str(e, nil, "")
		case "extends":
			p.Extends, err = d.str(e, nil, "")
			p.ExtendsPos = e.Pos
		case "python", "module", "stop_timeout", "status_addr":
			err = d.setting(e, e.Key, p.Settings)
		case "env":
			p.Env, err = d.env(e.Value, "env")
		case "args":
			p.Args, err = d.args(e.Value, "args")
		case "serve":
			err = d.overlay(e, &p.Serve, overlayKeys)
		case "bench":
			err = d.overlay(e, &p.Bench, benchKeys)
		case "health", "multinode":
			err = d.settingsSection(e, e.Key, p.Settings)
		case "managed_env":
			p.ManagedEnv, err = d.names(e, reFlagName)
		case "inherit_env":
			p.InheritEnv, err = d.names(e, reEnvName)
		case "tune":
			p.Tune, p.TuneFile = e.Value, d.File
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (d *decoder) overlay(e yamlnode.Entry, o *Overlay, known []string) error {
	entries, err := d.Mapping(e.Value, e.Key, known)
	if err != nil {
		return err
	}
	o.Pos = e.Pos
	for _, x := range entries {
		path := e.Key + "." + x.Key
		switch x.Key {
		case "env":
			o.Env, err = d.env(x.Value, path)
		case "args":
			o.Args, err = d.args(x.Value, path)
		case "workloads":
			o.Workloads, o.WorkloadsFile = x.Value, d.File
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// settingsSection reads a mapping of settings (health, multinode), and the
// sections nested in it (multinode.heartbeat), keyed by dotted path.
func (d *decoder) settingsSection(e yamlnode.Entry, path string, settings map[string]Value) error {
	entries, err := d.Mapping(e.Value, path, settingKeys(path+"."))
	if err != nil {
		return err
	}
	for _, x := range entries {
		key := path + "." + x.Key
		if isSection(key) {
			err = d.settingsSection(x, key, settings)
		} else {
			err = d.setting(x, key, settings)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (d *decoder) setting(e yamlnode.Entry, key string, settings map[string]Value) error {
	s, _ := LookupSetting(key)
	v, err := d.scalar(e.Value, key, e.Pos)
	if err != nil {
		return err
	}
	if v.Kind == Null {
		return yamlnode.Errorf(e.Pos, key, "want a value (default %s)", s.Default)
	}
	if err := s.Check(v.Text); err != nil {
		return yamlnode.Errorf(v.Pos, key, "%v", err)
	}
	settings[key] = v
	return nil
}

func (d *decoder) str(e yamlnode.Entry, re *regexp.Regexp, want string) (string, error) {
	v, err := d.scalar(e.Value, e.Key, e.Pos)
	if err != nil {
		return "", err
	}
	if v.Kind == Null || v.Text == "" {
		return "", yamlnode.Errorf(e.Pos, e.Key, "want a non-empty string")
	}
	if re != nil && !re.MatchString(v.Text) {
		return "", yamlnode.Errorf(v.Pos, e.Key, "want %s, got %q", want, v.Text)
	}
	return v.Text, nil
}

func (d *decoder) names(e yamlnode.Entry, re *regexp.Regexp) ([]string, error) {
	n, err := d.Unwrap(e.Value, e.Key)
	if err != nil {
		return nil, err
	}
	seq, ok := n.(*ast.SequenceNode)
	if !ok {
		return nil, yamlnode.Errorf(d.Pos(n), e.Key, "want a list of variable names, like [MY_VAR, MY_PREFIX_]")
	}
	var out []string
	for i, item := range seq.Values {
		v, err := d.scalar(item, fmt.Sprintf("%s[%d]", e.Key, i), e.Pos)
		if err != nil {
			return nil, err
		}
		if v.Kind != Scalar || !re.MatchString(v.Text) {
			return nil, yamlnode.Errorf(v.Pos, fmt.Sprintf("%s[%d]", e.Key, i), "want a variable name like MY_VAR, got %q", v.Text)
		}
		out = append(out, v.Text)
	}
	return out, nil
}

// section reads an ordered name: value mapping (env or args) named path;
// value checks one entry's name and decodes its value, key naming the
// entry in errors.
func (d *decoder) section(n ast.Node, path string, value func(e yamlnode.Entry, key string) (Value, error)) (Section, error) {
	entries, err := d.Mapping(n, path, nil)
	if err != nil {
		return nil, err
	}
	var out Section
	for _, e := range entries {
		v, err := value(e, path+"."+e.Key)
		if err != nil {
			return nil, err
		}
		out = append(out, Entry{Name: e.Key, Value: v, Key: e.Pos})
	}
	return out, nil
}

func (d *decoder) env(n ast.Node, path string) (Section, error) {
	return d.section(n, path, d.envValue)
}

func (d *decoder) envValue(e yamlnode.Entry, key string) (Value, error) {
	if !reEnvName.MatchString(e.Key) {
		return Value{}, yamlnode.Errorf(e.Pos, key, "not a valid environment variable name; want letters, digits and _, not starting with a digit")
	}
	v, err := d.scalar(e.Value, key, e.Pos)
	if err != nil {
		return Value{}, err
	}
	if v.Kind == Bool {
		v.Kind = Scalar // env values are text; True stays True
	}
	return v, nil
}

func (d *decoder) args(n ast.Node, path string) (Section, error) {
	return d.section(n, path, d.argValue)
}

func (d *decoder) argValue(e yamlnode.Entry, key string) (Value, error) {
	if err := checkFlagName(e.Key); err != nil {
		return Value{}, yamlnode.Errorf(e.Pos, key, "%v", err)
	}
	val, err := d.Unwrap(e.Value, key)
	if err != nil {
		return Value{}, err
	}
	seq, ok := val.(*ast.SequenceNode)
	if !ok {
		v, err := d.scalar(val, key, e.Pos)
		if err == nil && v.Kind == Null {
			err = yamlnode.Errorf(e.Pos, key, "no value; write a value, true for a bare flag, or false to drop the flag")
		}
		return v, err
	}
	v := Value{Kind: List, Pos: d.Pos(seq)}
	for i, item := range seq.Values {
		iv, err := d.scalar(item, fmt.Sprintf("%s[%d]", key, i), e.Pos)
		if err != nil {
			return Value{}, err
		}
		if iv.Kind == Null {
			return Value{}, yamlnode.Errorf(iv.Pos, fmt.Sprintf("%s[%d]", key, i), "empty list item; remove it or write a value")
		}
		v.List = append(v.List, iv.Text)
	}
	if len(v.List) == 0 {
		return Value{}, yamlnode.Errorf(v.Pos, key, "empty list; a list flag needs at least one value (use false to drop the flag)")
	}
	return v, nil
}

// checkFlagName validates an SGLang flag name as written in args.
func checkFlagName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("empty flag name; write the flag without its leading --, like tp: 8")
	case strings.HasPrefix(name, "-"):
		return fmt.Errorf("write flag names without the leading dashes: %s", strings.TrimLeft(name, "-"))
	case !reFlagName.MatchString(name):
		return fmt.Errorf("not a flag name; want letters, digits and dashes, like cuda-graph-max-bs")
	}
	return nil
}

// scalar decodes a scalar node, keeping its text exactly as written; a
// null is a Null value at keyPos.
func (d *decoder) scalar(n ast.Node, path string, keyPos Pos) (Value, error) {
	n, err := d.Scalar(n, path)
	if err != nil {
		return Value{}, err
	}
	if n == nil {
		return Value{Kind: Null, Pos: keyPos}, nil
	}
	kind := Scalar
	if _, ok := n.(*ast.BoolNode); ok {
		kind = Bool
	}
	return Value{Kind: kind, Text: yamlnode.Text(n), Pos: d.Pos(n)}, nil
}
