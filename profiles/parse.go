package profiles

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"

	"github.com/sglaunch/sglaunch/catalog"
)

var (
	reEnvName  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	reFlagName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)
	reName     = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.+-]*$`)
)

var (
	topKeys     = []string{"name", "description", "extends", "python", "module", "env", "args", "serve", "bench", "health", "stop_timeout", "managed_env", "inherit_env"}
	overlayKeys = []string{"env", "args"}
	benchKeys   = []string{"env", "args", "workloads"}
)

// Parse reads one profile. file names the source in error messages.
func Parse(file string, data []byte) (*Profile, error) {
	f, err := parser.ParseBytes(data, 0)
	if err != nil {
		var se *yaml.SyntaxError
		if errors.As(err, &se) && se.Token != nil {
			return nil, errAt(posOf(file, se.Token), "", "yaml syntax: %s", se.Message)
		}
		return nil, errAt(Pos{File: file}, "", "yaml syntax: %v", err)
	}
	var docs []ast.Node
	for _, d := range f.Docs {
		if d.Body != nil {
			docs = append(docs, d.Body)
		}
	}
	switch {
	case len(docs) == 0:
		return nil, errAt(Pos{File: file}, "", "empty profile; want a mapping with at least args:")
	case len(docs) > 1:
		return nil, errAt(nodePos(file, docs[1]), "", "more than one YAML document; a profile file holds exactly one")
	}
	d := &decoder{file: file}
	p := &Profile{Source: file, Settings: map[string]Value{}}
	if err := d.profile(docs[0], p); err != nil {
		return nil, err
	}
	return p, nil
}

type decoder struct{ file string }

type kv struct {
	key   string
	pos   Pos
	value ast.Node
}

// mapping returns the entries of a mapping node in order; path names the
// node in errors; known, when set, lists the keys allowed.
func (d *decoder) mapping(n ast.Node, path string, known []string) ([]kv, error) {
	n, err := d.unwrap(n, path)
	if err != nil {
		return nil, err
	}
	var values []*ast.MappingValueNode
	switch m := n.(type) {
	case *ast.MappingNode:
		values = m.Values
	case *ast.MappingValueNode:
		values = []*ast.MappingValueNode{m}
	case *ast.NullNode:
		return nil, nil
	default:
		return nil, errAt(nodePos(d.file, n), path, "want a mapping (key: value lines), got %s", describe(n))
	}
	out := make([]kv, 0, len(values))
	seen := map[string]bool{}
	for _, mv := range values {
		key := mv.Key.GetToken().Value
		pos := posOf(d.file, mv.Key.GetToken())
		full := joinKey(path, key)
		if known != nil && !contains(known, key) {
			hint := "known keys: " + strings.Join(known, ", ")
			if near := catalog.Nearest(key, known, 1); len(near) > 0 {
				hint = fmt.Sprintf("did you mean %q? (%s)", near[0], hint)
			}
			return nil, errAt(pos, full, "unknown key; %s", hint)
		}
		if seen[key] {
			return nil, errAt(pos, full, "key written twice; keep one")
		}
		seen[key] = true
		out = append(out, kv{key, pos, mv.Value})
	}
	return out, nil
}

func (d *decoder) unwrap(n ast.Node, path string) (ast.Node, error) {
	for {
		switch t := n.(type) {
		case *ast.TagNode:
			n = t.Value
		case *ast.AnchorNode:
			n = t.Value
		case *ast.AliasNode:
			return nil, errAt(nodePos(d.file, n), path, "YAML aliases (*name) are not supported; write the value out or use extends")
		case *ast.CommentGroupNode:
			return &ast.NullNode{BaseNode: &ast.BaseNode{}, Token: t.GetToken()}, nil
		default:
			return n, nil
		}
	}
}

func (d *decoder) profile(root ast.Node, p *Profile) error {
	entries, err := d.mapping(root, "", topKeys)
	if err != nil {
		return err
	}
	for _, e := range entries {
		var err error
		switch e.key {
		case "name":
			p.Name, err = d.str(e, reName, "a name of letters, digits, '.', '_', '+' and '-'")
		case "description":
			p.Description, err = d.str(e, nil, "")
		case "extends":
			p.Extends, err = d.str(e, nil, "")
			p.ExtendsPos = e.pos
		case "python", "module", "stop_timeout":
			err = d.setting(e, e.key, p.Settings)
		case "env":
			p.Env, err = d.env(e.value, "env")
		case "args":
			p.Args, err = d.args(e.value, "args")
		case "serve":
			err = d.overlay(e, &p.Serve, overlayKeys)
		case "bench":
			err = d.overlay(e, &p.Bench, benchKeys)
		case "health":
			err = d.health(e, p.Settings)
		case "managed_env":
			p.ManagedEnv, err = d.names(e, reFlagName)
		case "inherit_env":
			p.InheritEnv, err = d.names(e, reEnvName)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (d *decoder) overlay(e kv, o *Overlay, known []string) error {
	entries, err := d.mapping(e.value, e.key, known)
	if err != nil {
		return err
	}
	o.Pos = e.pos
	for _, x := range entries {
		path := e.key + "." + x.key
		switch x.key {
		case "env":
			o.Env, err = d.env(x.value, path)
		case "args":
			o.Args, err = d.args(x.value, path)
		case "workloads":
			o.Workloads = x.value
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (d *decoder) health(e kv, settings map[string]Value) error {
	entries, err := d.mapping(e.value, "health", settingKeys("health."))
	if err != nil {
		return err
	}
	for _, x := range entries {
		x.key = "health." + x.key
		if err := d.setting(x, x.key, settings); err != nil {
			return err
		}
	}
	return nil
}

func (d *decoder) setting(e kv, key string, settings map[string]Value) error {
	s, _ := LookupSetting(key)
	v, err := d.scalar(e.value, key, e.pos)
	if err != nil {
		return err
	}
	if v.Kind == Null {
		return errAt(e.pos, key, "want a value (default %s)", s.Default)
	}
	if err := s.Check(v.Text); err != nil {
		return errAt(v.Pos, key, "%v", err)
	}
	settings[key] = v
	return nil
}

func (d *decoder) str(e kv, re *regexp.Regexp, want string) (string, error) {
	v, err := d.scalar(e.value, e.key, e.pos)
	if err != nil {
		return "", err
	}
	if v.Kind == Null || v.Text == "" {
		return "", errAt(e.pos, e.key, "want a non-empty string")
	}
	if re != nil && !re.MatchString(v.Text) {
		return "", errAt(v.Pos, e.key, "want %s, got %q", want, v.Text)
	}
	return v.Text, nil
}

func (d *decoder) names(e kv, re *regexp.Regexp) ([]string, error) {
	n, err := d.unwrap(e.value, e.key)
	if err != nil {
		return nil, err
	}
	seq, ok := n.(*ast.SequenceNode)
	if !ok {
		return nil, errAt(nodePos(d.file, n), e.key, "want a list of variable names, like [MY_VAR, MY_PREFIX_]")
	}
	var out []string
	for i, item := range seq.Values {
		v, err := d.scalar(item, fmt.Sprintf("%s[%d]", e.key, i), e.pos)
		if err != nil {
			return nil, err
		}
		if v.Kind != Scalar || !re.MatchString(v.Text) {
			return nil, errAt(v.Pos, fmt.Sprintf("%s[%d]", e.key, i), "want a variable name like MY_VAR, got %q", v.Text)
		}
		out = append(out, v.Text)
	}
	return out, nil
}

func (d *decoder) env(n ast.Node, path string) (Section, error) {
	entries, err := d.mapping(n, path, nil)
	if err != nil {
		return nil, err
	}
	var out Section
	for _, e := range entries {
		key := path + "." + e.key
		if !reEnvName.MatchString(e.key) {
			return nil, errAt(e.pos, key, "not a valid environment variable name; want letters, digits and _, not starting with a digit")
		}
		v, err := d.scalar(e.value, key, e.pos)
		if err != nil {
			return nil, err
		}
		if v.Kind == Bool {
			v.Kind = Scalar // env values are text; True stays True
		}
		out = append(out, Entry{Name: e.key, Value: v, Key: e.pos})
	}
	return out, nil
}

func (d *decoder) args(n ast.Node, path string) (Section, error) {
	entries, err := d.mapping(n, path, nil)
	if err != nil {
		return nil, err
	}
	var out Section
	for _, e := range entries {
		key := path + "." + e.key
		if err := checkFlagName(e.key); err != nil {
			return nil, errAt(e.pos, key, "%v", err)
		}
		val, err := d.unwrap(e.value, key)
		if err != nil {
			return nil, err
		}
		var v Value
		if seq, ok := val.(*ast.SequenceNode); ok {
			v = Value{Kind: List, Pos: nodePos(d.file, seq)}
			for i, item := range seq.Values {
				iv, err := d.scalar(item, fmt.Sprintf("%s[%d]", key, i), e.pos)
				if err != nil {
					return nil, err
				}
				if iv.Kind == Null {
					return nil, errAt(iv.Pos, fmt.Sprintf("%s[%d]", key, i), "empty list item; remove it or write a value")
				}
				v.List = append(v.List, iv.Text)
			}
			if len(v.List) == 0 {
				return nil, errAt(v.Pos, key, "empty list; a list flag needs at least one value (use false to drop the flag)")
			}
		} else {
			v, err = d.scalar(val, key, e.pos)
			if err != nil {
				return nil, err
			}
			if v.Kind == Null {
				return nil, errAt(e.pos, key, "no value; write a value, true for a bare flag, or false to drop the flag")
			}
		}
		out = append(out, Entry{Name: e.key, Value: v, Key: e.pos})
	}
	return out, nil
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

// scalar decodes a scalar node, keeping its text exactly as written.
func (d *decoder) scalar(n ast.Node, path string, keyPos Pos) (Value, error) {
	n, err := d.unwrap(n, path)
	if err != nil {
		return Value{}, err
	}
	pos := nodePos(d.file, n)
	switch t := n.(type) {
	case nil:
		return Value{Kind: Null, Pos: keyPos}, nil
	case *ast.NullNode:
		return Value{Kind: Null, Pos: keyPos}, nil
	case *ast.BoolNode:
		return Value{Kind: Bool, Text: t.GetToken().Value, Pos: pos}, nil
	case *ast.StringNode:
		return Value{Kind: Scalar, Text: t.Value, Pos: pos}, nil
	case *ast.LiteralNode:
		return Value{Kind: Scalar, Text: t.Value.Value, Pos: pos}, nil
	case *ast.IntegerNode, *ast.FloatNode, *ast.InfinityNode, *ast.NanNode:
		return Value{Kind: Scalar, Text: t.GetToken().Value, Pos: pos}, nil
	}
	return Value{}, errAt(pos, path, "want a single value, got %s", describe(n))
}

func describe(n ast.Node) string {
	switch n.(type) {
	case *ast.MappingNode, *ast.MappingValueNode:
		return "a mapping"
	case *ast.SequenceNode:
		return "a list"
	case *ast.NullNode:
		return "nothing"
	}
	return "a " + strings.ToLower(n.Type().String())
}

func nodePos(file string, n ast.Node) Pos {
	if n == nil || n.GetToken() == nil {
		return Pos{File: file}
	}
	return posOf(file, n.GetToken())
}

func posOf(file string, tk *token.Token) Pos {
	if tk == nil || tk.Position == nil {
		return Pos{File: file}
	}
	return Pos{File: file, Line: tk.Position.Line, Col: tk.Position.Column}
}

func joinKey(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
