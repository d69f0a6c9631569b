package bench

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"

	"github.com/sglaunch/sglaunch/catalog"
	"github.com/sglaunch/sglaunch/internal/inputerr"
	"github.com/sglaunch/sglaunch/loadgen"
	"github.com/sglaunch/sglaunch/profiles"
)

var reName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.+-]*$`)

// Keys a workload mapping may hold.
var (
	commonKeys   = []string{"name", "description"}
	loadKeys     = []string{"api", "input_len", "output_len", "concurrency", "request_rate", "max_concurrency", "requests", "rounds", "duration", "warmup", "seed", "request_timeout"}
	commandKeys  = []string{"command", "timeout"}
	workloadKeys = slices.Concat(commonKeys, loadKeys, commandKeys)
)

// Decode reads a list of workloads from a YAML node written in file; path
// names the node in errors (bench.workloads). An item is a mapping that
// defines a workload or the name of a built-in one.
func Decode(file, path string, n ast.Node) ([]Workload, error) {
	d := &decoder{file: file}
	return d.list(n, path)
}

// LoadFile reads a workload file: a list of workloads, a mapping with a
// workloads: list, or one workload mapping (its name defaults to the
// file's base name).
func LoadFile(path string) ([]Workload, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, inputerr.Errorf("workload file %s: no such file; give a workload name (decode-1, sweep, or one from the profile) or a YAML file", path)
		}
		return nil, inputerr.Errorf("read workload file %s: %w", path, err)
	}
	return Parse(path, data)
}

// Parse reads the text of a workload file named file.
func Parse(file string, data []byte) ([]Workload, error) {
	f, err := parser.ParseBytes(data, 0)
	if err != nil {
		var se *yaml.SyntaxError
		if errors.As(err, &se) && se.Token != nil && se.Token.Position != nil {
			return nil, errAt(profiles.Pos{File: file, Line: se.Token.Position.Line, Col: se.Token.Position.Column}, "", "yaml syntax: %s", se.Message)
		}
		return nil, errAt(profiles.Pos{File: file}, "", "yaml syntax: %v", err)
	}
	var body ast.Node
	for _, doc := range f.Docs {
		if doc.Body == nil {
			continue
		}
		if body != nil {
			return nil, errAt(nodePos(file, doc.Body), "", "more than one YAML document; a workload file holds exactly one")
		}
		body = doc.Body
	}
	if body == nil {
		return nil, errAt(profiles.Pos{File: file}, "", "empty workload file; want a workload mapping or a list of them")
	}
	d := &decoder{file: file}
	n, err := d.unwrap(body, "")
	if err != nil {
		return nil, err
	}
	if _, ok := n.(*ast.SequenceNode); ok {
		return d.list(n, "")
	}
	members, err := d.members(n, "", nil)
	if err != nil {
		return nil, err
	}
	if len(members) > 0 && members[0].key == "workloads" {
		if len(members) > 1 {
			return nil, errAt(members[1].pos, members[1].key, "a file with a workloads: list holds nothing else")
		}
		return d.list(members[0].value, "workloads")
	}
	base := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	w, err := d.workload(n, "", base)
	if err != nil {
		return nil, err
	}
	return []Workload{w}, nil
}

type decoder struct{ file string }

type member struct {
	key   string
	pos   profiles.Pos
	node  ast.Node // the whole key: value pair, for positions
	value ast.Node
}

func errAt(pos profiles.Pos, key, format string, args ...any) error {
	return inputerr.Wrap(&profiles.Error{Pos: pos, Key: key, Msg: fmt.Sprintf(format, args...)})
}

func nodePos(file string, n ast.Node) profiles.Pos {
	if n == nil || n.GetToken() == nil || n.GetToken().Position == nil {
		return profiles.Pos{File: file}
	}
	p := n.GetToken().Position
	return profiles.Pos{File: file, Line: p.Line, Col: p.Column}
}

func (d *decoder) pos(n ast.Node) profiles.Pos { return nodePos(d.file, n) }

// mappingPos is where a mapping starts: its first key (goccy places the
// mapping node itself at the first colon).
func (d *decoder) mappingPos(n ast.Node) profiles.Pos {
	n, _ = d.unwrap(n, "")
	switch m := n.(type) {
	case *ast.MappingNode:
		if len(m.Values) > 0 {
			return d.pos(m.Values[0].Key)
		}
	case *ast.MappingValueNode:
		return d.pos(m.Key)
	}
	return d.pos(n)
}

func (d *decoder) unwrap(n ast.Node, path string) (ast.Node, error) {
	for {
		switch t := n.(type) {
		case *ast.TagNode:
			n = t.Value
		case *ast.AnchorNode:
			n = t.Value
		case *ast.AliasNode:
			return nil, errAt(d.pos(n), path, "YAML aliases (*name) are not supported; write the value out")
		default:
			return n, nil
		}
	}
}

func joinKey(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// members returns a mapping's entries in order; known, when set, lists
// the keys allowed.
func (d *decoder) members(n ast.Node, path string, known []string) ([]member, error) {
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
	default:
		return nil, errAt(d.pos(n), path, "want a mapping (key: value lines), got %s", describe(n))
	}
	var out []member
	seen := map[string]bool{}
	for _, mv := range values {
		key := mv.Key.GetToken().Value
		pos := d.pos(mv.Key)
		full := joinKey(path, key)
		if known != nil && !slices.Contains(known, key) {
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
		out = append(out, member{key: key, pos: pos, node: mv, value: mv.Value})
	}
	return out, nil
}

func describe(n ast.Node) string {
	switch n.(type) {
	case nil, *ast.NullNode:
		return "nothing"
	case *ast.MappingNode, *ast.MappingValueNode:
		return "a mapping"
	case *ast.SequenceNode:
		return "a list"
	}
	return "a " + strings.ToLower(n.Type().String())
}

// list decodes a list of workloads.
func (d *decoder) list(n ast.Node, path string) ([]Workload, error) {
	n, err := d.unwrap(n, path)
	if err != nil {
		return nil, err
	}
	seq, ok := n.(*ast.SequenceNode)
	if !ok {
		return nil, errAt(d.pos(n), path, "want a list of workloads (- name: ..., or - decode-1), got %s", describe(n))
	}
	var out []Workload
	where := map[string]profiles.Pos{}
	for i, item := range seq.Values {
		ipath := fmt.Sprintf("%s[%d]", path, i)
		item, err := d.unwrap(item, ipath)
		if err != nil {
			return nil, err
		}
		var w Workload
		switch item.(type) {
		case *ast.StringNode:
			name := item.GetToken().Value
			b, ok := Builtin(name)
			if !ok {
				return nil, errAt(d.pos(item), ipath, "no built-in workload %q; %s", name, builtinHint(name))
			}
			w = b
		default:
			w, err = d.workload(item, ipath, "")
			if err != nil {
				return nil, err
			}
		}
		if p, dup := where[w.Name]; dup {
			return nil, errAt(d.mappingPos(item), ipath, "workload %q is defined twice (first at %s); names must be unique", w.Name, p)
		}
		where[w.Name] = d.mappingPos(item)
		out = append(out, w)
	}
	return out, nil
}

func builtinHint(name string) string {
	var names []string
	for _, b := range Builtins() {
		names = append(names, b.Name)
	}
	if near := catalog.Nearest(name, names, 1); len(near) > 0 {
		return fmt.Sprintf("did you mean %q? (built-ins: %s)", near[0], strings.Join(names, ", "))
	}
	return "built-ins: " + strings.Join(names, ", ") + "; or define it as a mapping with name:"
}

// workload decodes one workload mapping; defName is its name when the
// mapping gives none (a one-workload file).
func (d *decoder) workload(n ast.Node, path, defName string) (Workload, error) {
	ms, err := d.members(n, path, workloadKeys)
	if err != nil {
		return Workload{}, err
	}
	w := Workload{Name: defName, Source: d.mappingPos(n).String()}
	has := map[string]member{}
	for _, m := range ms {
		has[m.key] = m
	}
	if _, ok := has["command"]; ok {
		for _, m := range ms {
			if slices.Contains(loadKeys, m.key) {
				return w, errAt(m.pos, joinKey(path, m.key), "a command workload takes only %s; %s is for the built-in load generator", strings.Join(slices.Concat(commonKeys, commandKeys), ", "), m.key)
			}
		}
	} else {
		if _, ok := has["timeout"]; ok {
			m := has["timeout"]
			return w, errAt(m.pos, joinKey(path, "timeout"), "timeout bounds a command workload; for generator requests use request_timeout")
		}
		w.API, w.InputLen, w.OutputLen = loadgen.Generate, DefaultInputLen, DefaultOutputLen
		w.Warmup, w.Seed, w.RequestTimeout = DefaultWarmup, DefaultSeed, Duration(DefaultRequestTimeout)
	}
	for _, m := range ms {
		key := joinKey(path, m.key)
		var err error
		switch m.key {
		case "name":
			w.Name, err = d.str(m, key)
			if err == nil && !reName.MatchString(w.Name) {
				err = errAt(d.pos(m.value), key, "want a name of letters, digits, '.', '_', '+' and '-', got %q", w.Name)
			}
		case "description":
			w.Description, err = d.str(m, key)
		case "api":
			var s string
			s, err = d.str(m, key)
			w.API = loadgen.API(s)
			if err == nil && !w.API.Valid() {
				err = errAt(d.pos(m.value), key, "want generate (SGLang's native /generate) or chat (/v1/chat/completions), got %q", s)
			}
		case "input_len":
			w.InputLen, err = d.integer(m.value, key, 1)
		case "output_len":
			w.OutputLen, err = d.integer(m.value, key, 1)
		case "concurrency":
			w.Concurrency, err = d.integers(m.value, key)
		case "request_rate":
			w.RequestRate, err = d.rates(m.value, key)
		case "max_concurrency":
			w.MaxConcurrency, err = d.integer(m.value, key, 1)
		case "requests":
			w.Requests, err = d.integer(m.value, key, 1)
		case "rounds":
			w.Rounds, err = d.integer(m.value, key, 1)
		case "duration":
			var v time.Duration
			v, err = d.duration(m.value, key, false)
			w.Duration = Duration(v)
		case "warmup":
			w.Warmup, err = d.integer(m.value, key, 0)
		case "seed":
			var s int
			s, err = d.integer(m.value, key, 0)
			w.Seed = uint64(s)
		case "request_timeout":
			var v time.Duration
			v, err = d.duration(m.value, key, true)
			w.RequestTimeout = Duration(v)
		case "command":
			w.Command, w.Shell, err = d.command(m.value, key)
		case "timeout":
			var v time.Duration
			v, err = d.duration(m.value, key, true)
			w.Timeout = Duration(v)
		}
		if err != nil {
			return w, err
		}
	}
	if w.Name == "" {
		return w, errAt(d.mappingPos(n), path, "a workload needs a name: (letters, digits, '.', '_', '+', '-')")
	}
	if w.External() {
		return w, d.checkTemplates(w, has["command"], joinKey(path, "command"))
	}
	if err := d.checkLoad(has, path); err != nil {
		return w, err
	}
	return normalize(w), nil
}

// checkLoad applies the rules that span keys of a generator workload.
func (d *decoder) checkLoad(has map[string]member, path string) error {
	at := func(key, format string, args ...any) error {
		return errAt(has[key].pos, joinKey(path, key), format, args...)
	}
	_, conc := has["concurrency"]
	_, rate := has["request_rate"]
	switch {
	case conc && rate:
		return at("request_rate", "give concurrency (closed loop) or request_rate (open loop), not both; cap an open loop with max_concurrency")
	case !rate:
		if _, ok := has["max_concurrency"]; ok {
			return at("max_concurrency", "max_concurrency caps an open loop; it needs request_rate (for a closed loop, concurrency is the stream count)")
		}
	}
	var counts []string
	for _, k := range []string{"requests", "rounds", "duration"} {
		if _, ok := has[k]; ok {
			counts = append(counts, k)
		}
	}
	if len(counts) > 1 {
		return at(counts[1], "give one of requests, rounds or duration per level, not %s", strings.Join(counts, " and "))
	}
	if _, ok := has["rounds"]; ok && rate {
		return at("rounds", "rounds (requests = rounds x concurrency) is for a closed loop; with request_rate give requests or duration")
	}
	return nil
}

// normalize fills what a decoded load workload leaves implied.
func normalize(w Workload) Workload {
	if w.External() {
		return w
	}
	if len(w.Concurrency) == 0 && len(w.RequestRate) == 0 {
		w.Concurrency = []int{1}
	}
	if w.Requests == 0 && w.Rounds == 0 && w.Duration == 0 {
		w.Rounds = DefaultRounds
	}
	return w
}

// checkTemplates parses every template of a command and runs it on
// sample data, so a bad template is an input error before anything starts.
func (d *decoder) checkTemplates(w Workload, m member, key string) error {
	n, _ := d.unwrap(m.value, key)
	items := []ast.Node{n}
	if seq, ok := n.(*ast.SequenceNode); ok {
		items = seq.Values
	}
	for i, text := range w.Command {
		k := key
		if !w.Shell {
			k = fmt.Sprintf("%s[%d]", key, i)
		}
		if _, err := expand(text, sampleData()); err != nil {
			return errAt(d.pos(items[min(i, len(items)-1)]), k, "%v; fields: %s", err, strings.Join(templateFields(), ", "))
		}
	}
	return nil
}
