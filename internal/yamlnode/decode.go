package yamlnode

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/lexer"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"

	"github.com/sglaunch/sglaunch/catalog"
)

// Document parses data, the text of file, which must hold exactly one
// YAML document, and returns its body. holder names the kind of file in
// the error for a second document ("a profile file"); empty is the
// message for a file without one. A leading byte order mark is dropped;
// the limits of limits.go are checked before the parser runs.
func Document(file string, data []byte, holder, empty string) (ast.Node, error) {
	if len(data) > MaxFileSize {
		return nil, Errorf(Pos{file, 1, 1}, "", "more than %d bytes; a file holds at most that", MaxFileSize)
	}
	data = stripBOM(data)
	if err := checkText(file, data); err != nil {
		return nil, err
	}
	tokens := lexer.Tokenize(string(data))
	if tk := tokens.InvalidToken(); tk == nil {
		if err := checkTokens(file, tokens); err != nil {
			return nil, err
		}
	}
	f, err := parser.Parse(tokens, 0)
	if err != nil {
		var se *yaml.SyntaxError
		if errors.As(err, &se) && se.Token != nil {
			return nil, Errorf(TokenPos(file, se.Token), "", "yaml syntax: %s", se.Message)
		}
		return nil, Errorf(Pos{File: file}, "", "yaml syntax: %v", err)
	}
	var docs []ast.Node
	for _, d := range f.Docs {
		if d.Body != nil {
			docs = append(docs, d.Body)
		}
	}
	switch {
	case len(docs) == 0:
		return nil, Errorf(Pos{File: file}, "", "%s", empty)
	case len(docs) > 1:
		return nil, Errorf(At(file, docs[1]), "", "more than one YAML document; %s holds exactly one", holder)
	}
	return docs[0], nil
}

// At is where n was written in file (the file alone when n has no place).
func At(file string, n ast.Node) Pos {
	if n == nil {
		return Pos{File: file}
	}
	return TokenPos(file, n.GetToken())
}

// TokenPos is where tk was written in file.
func TokenPos(file string, tk *token.Token) Pos {
	if tk == nil || tk.Position == nil {
		return Pos{File: file}
	}
	return Pos{File: file, Line: tk.Position.Line, Col: tk.Position.Column}
}

// Join appends key to the dotted path of its mapping.
func Join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// Describe names the kind of node n for an error: "a mapping", "a list",
// "nothing", ...
func Describe(n ast.Node) string {
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

// Text is a scalar's text exactly as written (unquoted): 0.88 stays 0.88.
func Text(n ast.Node) string {
	switch t := n.(type) {
	case *ast.StringNode:
		return t.Value
	case *ast.LiteralNode:
		return t.Value.Value
	}
	return n.GetToken().Value
}

// Decoder reads the nodes of one file; every error it returns names the
// file, line, column and dotted key, and is an input error.
type Decoder struct {
	File string
	// AliasHint says what to write instead of a YAML alias.
	AliasHint string
	// NullOK takes a null (a key with nothing after it) as an empty
	// mapping or an absent scalar; without it a null is an error.
	NullOK bool
}

// Entry is one key: value pair of a mapping.
type Entry struct {
	Key   string
	Pos   Pos // where the key was written
	Value ast.Node
}

// Pos is where n was written.
func (d *Decoder) Pos(n ast.Node) Pos { return At(d.File, n) }

// Unwrap looks through tags and anchors to the node they mark; an alias
// is an error at path.
func (d *Decoder) Unwrap(n ast.Node, path string) (ast.Node, error) {
	for {
		switch t := n.(type) {
		case *ast.TagNode:
			n = t.Value
		case *ast.AnchorNode:
			n = t.Value
		case *ast.AliasNode:
			return nil, Errorf(d.Pos(n), path, "YAML aliases (*name) are not supported; %s", d.AliasHint)
		case *ast.CommentGroupNode:
			return &ast.NullNode{BaseNode: &ast.BaseNode{}, Token: t.GetToken()}, nil
		default:
			return n, nil
		}
	}
}

// Mapping returns the entries of the mapping n, named path in errors, in
// the order written. known, when set, lists the keys allowed; an unknown
// key is an error that suggests the nearest known one. A key written
// twice is an error.
func (d *Decoder) Mapping(n ast.Node, path string, known []string) ([]Entry, error) {
	n, err := d.Unwrap(n, path)
	if err != nil {
		return nil, err
	}
	if _, null := n.(*ast.NullNode); null && d.NullOK {
		return nil, nil
	}
	var values []*ast.MappingValueNode
	switch m := n.(type) {
	case *ast.MappingNode:
		values = m.Values
	case *ast.MappingValueNode:
		values = []*ast.MappingValueNode{m}
	default:
		return nil, Errorf(d.Pos(n), path, "want a mapping (key: value lines), got %s", Describe(n))
	}
	out := make([]Entry, 0, len(values))
	seen := map[string]bool{}
	for _, mv := range values {
		key := mv.Key.GetToken().Value
		pos := d.Pos(mv.Key)
		if err := checkKey(pos, path, key); err != nil {
			return nil, err
		}
		full := Join(path, key)
		if known != nil && !slices.Contains(known, key) {
			hint := "known keys: " + strings.Join(known, ", ")
			if near := catalog.Nearest(key, known, 1); len(near) > 0 {
				hint = fmt.Sprintf("did you mean %q? (%s)", near[0], hint)
			}
			return nil, Errorf(pos, full, "unknown key; %s", hint)
		}
		if seen[key] {
			return nil, Errorf(pos, full, "key written twice; keep one")
		}
		seen[key] = true
		out = append(out, Entry{Key: key, Pos: pos, Value: mv.Value})
	}
	return out, nil
}

// Scalar returns the single value n holds (a string, number, bool or
// block literal), tags and anchors looked through; read its text with
// Text. With NullOK a null gives nil and no error.
func (d *Decoder) Scalar(n ast.Node, path string) (ast.Node, error) {
	n, err := d.Unwrap(n, path)
	if err != nil {
		return nil, err
	}
	switch n.(type) {
	case *ast.StringNode, *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode, *ast.LiteralNode, *ast.InfinityNode, *ast.NanNode:
		if err := checkValue(d.Pos(n), path, Text(n)); err != nil {
			return nil, err
		}
		return n, nil
	case nil, *ast.NullNode:
		if d.NullOK {
			return nil, nil
		}
	}
	return nil, Errorf(d.Pos(n), path, "want a single value, got %s", Describe(n))
}
