package plan

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sglaunch/sglaunch/internal/inputerr"
	"github.com/sglaunch/sglaunch/internal/yamlnode"
)

// TestMistypedArgs pins issue 24's `tp: eight`: preflight named the fix,
// but config and serve --dry-run printed the plan as good and the server
// would have exited at start-up. A flag the catalog types as an integer
// or a number refuses a value Python's int() or float() refuses, naming
// file:line:col, the key and the value that would be right; str flags,
// flags the catalog does not know and SGLang's 128k forms pass.
func TestMistypedArgs(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		args string   // the profile's args: lines
		sets []string // --set
		env  []string // SGLAUNCH_SET
		want []string // in the error; none: it resolves
	}{
		{"a word for an integer", "  tp: eight\n", nil, nil, []string{"p.yaml:4:7: args.tp: --tp takes an integer, not \"eight\"", "invalid int value", "; write tp: 8"}},
		{"a word in a list of integers", "  cuda-graph-bs: [1, two, 4]\n", nil, nil, []string{"args.cuda-graph-bs: --cuda-graph-bs takes an integer, not \"two\"", "write cuda-graph-bs: [1, 2, 4]"}},
		{"a comma list for a list of integers", "  cuda-graph-bs: 1,2,4\n", nil, nil, []string{"not \"1,2,4\"", "write cuda-graph-bs: [1, 2, 4]"}},
		{"a word for a number", "  mem-fraction-static: lots\n", nil, nil, []string{"p.yaml:4:24: args.mem-fraction-static: --mem-fraction-static takes a number, not \"lots\"", "write a number there"}},
		{"--set a word", "  tp: 2\n", []string{"args.tp=eight"}, nil, []string{"--set args.tp: --tp takes an integer, not \"eight\"", "write --set args.tp=8"}},
		{"--set a list item", "  tp: 2\n", []string{"args.cuda-graph-bs=[1, two]"}, nil, []string{"write --set 'args.cuda-graph-bs=[1, 2]'"}},
		{"SGLAUNCH_SET a word", "  tp: 2\n", nil, []string{"args.tp=two"}, []string{"SGLAUNCH_SET args.tp: --tp takes an integer", "write SGLAUNCH_SET='args.tp=2'"}},
		{"--set mends the profile", "  tp: eight\n", []string{"args.tp=8"}, nil, nil},
		{"integers and numbers", "  tp: 8\n  mem-fraction-static: 0.85\n  cuda-graph-bs: [1, 2, 4]\n", nil, nil, nil},
		{"a quoted integer", "  tp: \"8\"\n", nil, nil, nil},
		{"human_readable_int", "  context-length: 128k\n", nil, nil, nil},
		{"a str flag holds a word", "  served-model-name: eight\n  attention-backend: flashinfr\n", nil, nil, nil},
		{"a flag the catalog does not know", "  no-such-flag-here: eight\n", nil, nil, nil},
		{"a switch", "  enable-metrics: true\n", nil, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-"), "p.yaml")
			if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, []byte("name: p\nextends: demo\nargs:\n"+tt.args), 0o644); err != nil {
				t.Fatal(err)
			}
			req := Request{Profile: load(t, nil, file), Mode: ModeServe, Sets: tt.sets, Config: Config{Set: tt.env}, LookPath: fakePython, SimDir: fakeSimDir}
			_, err := Resolve(req)
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("resolve: %v", err)
				}
				return
			}
			if err == nil || !inputerr.Is(err) {
				t.Fatalf("got %v, want an input error", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
			var ye *yamlnode.Error
			if positioned, fromFile := errors.As(err, &ye), tt.sets == nil && tt.env == nil; positioned != fromFile {
				t.Errorf("a file:line:col error: %v, want %v (%v)", positioned, fromFile, err)
			}
			// preflight resolves with KeepMistyped and lists the value
			// as one finding among the others.
			req.KeepMistyped = true
			if _, err := Resolve(req); err != nil {
				t.Errorf("KeepMistyped: %v", err)
			}
		})
	}
}
