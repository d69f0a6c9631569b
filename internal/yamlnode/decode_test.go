package yamlnode

import (
	"errors"
	"testing"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"

	"github.com/sglaunch/sglaunch/internal/inputerr"
)

func TestDocument(t *testing.T) {
	tests := []struct {
		name, data, want string
	}{
		{"syntax", "a: [1\n", `f.yaml:1:4: yaml syntax: sequence end token ']' not found`},
		{"empty", "# nothing\n", "f.yaml: nothing here"},
		{"two documents", "a: 1\n---\nb: 2\n", "f.yaml:3:2: more than one YAML document; a test file holds exactly one"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Document("f.yaml", []byte(tt.data), "a test file", "nothing here")
			if err == nil {
				t.Fatalf("got no error, want %q", tt.want)
			}
			if got := err.Error(); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			var e *Error
			if !errors.As(err, &e) || !inputerr.Is(err) {
				t.Errorf("error %v is not a positioned input error", err)
			}
		})
	}
}

// parse reads data as f.yaml and returns a decoder for it and its root.
func parse(t *testing.T, data string, nullOK bool) (*Decoder, ast.Node) {
	t.Helper()
	root, err := Document("f.yaml", []byte(data), "a test file", "empty")
	if err != nil {
		t.Fatal(err)
	}
	return &Decoder{File: "f.yaml", AliasHint: "write it out", NullOK: nullOK}, root
}

func TestMapping(t *testing.T) {
	tests := []struct {
		name, data string
		nullOK     bool
		want       string // the error, or the keys in order
	}{
		{"in order", "b: 1\na: &x 2\nc: !!str 3\n", false, "b a c"},
		{"unknown key", "b: 1\nnmae: x\n", false, `f.yaml:2:1: top.nmae: unknown key; did you mean "name"? (known keys: name, a, b, c)`},
		{"anchor", "a: &x\n  b: 1\n", false, "a"},
		{"alias", "*x\n", false, "f.yaml:1:1: top: YAML aliases (*name) are not supported; write it out"},
		{"not a mapping", "- 1\n", false, "f.yaml:1:1: top: want a mapping (key: value lines), got a list"},
		{"null refused", "~\n", false, "f.yaml:1:1: top: want a mapping (key: value lines), got nothing"},
		{"null is empty", "~\n", true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, root := parse(t, tt.data, tt.nullOK)
			entries, err := d.Mapping(root, "top", []string{"name", "a", "b", "c"})
			var got string
			if err != nil {
				got = err.Error()
			}
			for i, e := range entries {
				if i > 0 {
					got += " "
				}
				got += e.Key
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// A key written twice only reaches Mapping from a parser that allows it;
// Document's parser refuses it as a syntax error.
func TestMappingKeyTwice(t *testing.T) {
	f, err := parser.ParseBytes([]byte("a: 1\na: 2\n"), 0, parser.AllowDuplicateMapKey())
	if err != nil {
		t.Fatal(err)
	}
	d := &Decoder{File: "f.yaml"}
	_, err = d.Mapping(f.Docs[0].Body, "", nil)
	if want := "f.yaml:2:1: a: key written twice; keep one"; err == nil || err.Error() != want {
		t.Errorf("got %v, want %q", err, want)
	}
}

func TestScalar(t *testing.T) {
	tests := []struct {
		name, data string
		nullOK     bool
		want       string // the text as written, or the error
	}{
		{"float as written", "v: 0.880\n", false, "0.880"},
		{"big integer", "v: 16777216\n", false, "16777216"},
		{"quoted", "v: \"a: b\"\n", false, "a: b"},
		{"bool", "v: True\n", false, "True"},
		{"block literal", "v: |\n  two\n  lines\n", false, "two\nlines\n"},
		{"tagged", "v: !!str 8\n", false, "8"},
		{"alias", "a: &x 1\nv: *x\n", false, "f.yaml:2:4: v: YAML aliases (*name) are not supported; write it out"},
		{"list", "v: [1, 2]\n", false, "f.yaml:1:4: v: want a single value, got a list"},
		{"null refused", "v:\n", false, "f.yaml:1:4: v: want a single value, got nothing"},
		{"null allowed", "v:\n", true, "<nil>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, root := parse(t, tt.data, tt.nullOK)
			entries, err := d.Mapping(root, "", nil)
			if err != nil {
				t.Fatal(err)
			}
			n, err := d.Scalar(entries[len(entries)-1].Value, "v")
			var got string
			switch {
			case err != nil:
				got = err.Error()
			case n == nil:
				got = "<nil>"
			default:
				got = Text(n)
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestDescribe(t *testing.T) {
	tests := []struct {
		node ast.Node
		want string
	}{
		{nil, "nothing"},
		{ast.Null(nil), "nothing"},
		{&ast.SequenceNode{BaseNode: &ast.BaseNode{}}, "a list"},
		{&ast.MappingNode{BaseNode: &ast.BaseNode{}}, "a mapping"},
	}
	for _, tt := range tests {
		if got := Describe(tt.node); got != tt.want {
			t.Errorf("Describe(%T): got %q, want %q", tt.node, got, tt.want)
		}
	}
}
