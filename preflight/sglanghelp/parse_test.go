package sglanghelp

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/catalog"
	"github.com/sglaunch/sglaunch/internal/childproc"
)

// helpScript builds a parser with everything argparse can print: groups,
// wrapped help, aliases, choices, nargs forms, a BooleanOptionalAction, a
// required option and a mutually exclusive pair.
const helpScript = `import argparse
p = argparse.ArgumentParser(prog="launch_server.py")
g = p.add_argument_group("Model and tokenizer")
g.add_argument("--model-path", "--model", type=str, required=True, help="The path of the model weights. This can be a local folder or a Hugging Face repo ID, and this sentence is long enough to wrap.")
g.add_argument("--tokenizer-mode", type=str, default="auto", choices=["auto", "slow"], help="Tokenizer mode.")
p.add_argument("--tp-size", "--tensor-parallel-size", type=int, default=1)
p.add_argument("--cuda-graph-bs", type=int, nargs="+", help="Batch sizes to capture.")
p.add_argument("--lora-paths", type=str, nargs="*")
p.add_argument("--pair", nargs=2, metavar=("LO", "HI"))
p.add_argument("--maybe", nargs="?", const="x")
p.add_argument("--page-size", type=int, choices=[1, 16, 64])
p.add_argument("--trust-remote-code", action="store_true")
p.add_argument("--lora-strict-loading", action=argparse.BooleanOptionalAction, default=True)
p.add_argument("--cuda-graph-max-bs", type=int, help="Deprecated; use --cuda-graph-max-bs-decode=128 style instead.")
x = p.add_mutually_exclusive_group()
x.add_argument("--enable-a", action="store_true")
x.add_argument("--enable-b", action="store_true")
p.parse_args()
`

// realHelp runs the script's --help through python3 at a terminal width.
func realHelp(t *testing.T, columns int) string {
	t.Helper()
	script := filepath.Join(t.TempDir(), "launch_server.py")
	if err := os.WriteFile(script, []byte(helpScript), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), fmt.Sprintf("COLUMNS=%d", columns), "NO_COLOR=1", "PYTHON_COLORS=0")
	res := childproc.Run(t.Context(), childproc.Spec{Argv: []string{"python3", script, "--help"}, Env: env, Dir: t.TempDir(), Timeout: 30 * time.Second})
	if res.Err != nil {
		t.Fatalf("python3 --help: %v: %s", res.Err, res.Stderr)
	}
	return string(res.Stdout)
}

func describeFlags(flags []*catalog.Flag) string {
	var b strings.Builder
	for _, f := range flags {
		fmt.Fprintf(&b, "%s aliases=%v neg=%q action=%s nargs=%q choices=%v required=%v deprecated=%v repl=%q\n",
			f.Name, f.Aliases, f.Negation, f.Action, f.Nargs, f.Choices, f.Required, f.Deprecated, f.Replacement)
	}
	return b.String()
}

// TestParseHelp reads real argparse output, wide and wrapped at 60
// columns, into the same flags, in the order argparse prints them (the
// plain options, then each group).
func TestParseHelp(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Fatalf("python3 is required: %v", err)
	}
	want := `--tp-size aliases=[--tensor-parallel-size] neg="" action=store nargs="" choices=[] required=false deprecated=false repl=""
--cuda-graph-bs aliases=[] neg="" action=store nargs="+" choices=[] required=false deprecated=false repl=""
--lora-paths aliases=[] neg="" action=store nargs="*" choices=[] required=false deprecated=false repl=""
--pair aliases=[] neg="" action=store nargs="2" choices=[] required=false deprecated=false repl=""
--maybe aliases=[] neg="" action=store nargs="?" choices=[] required=false deprecated=false repl=""
--page-size aliases=[] neg="" action=store nargs="" choices=[1 16 64] required=false deprecated=false repl=""
--trust-remote-code aliases=[] neg="" action=store_true nargs="" choices=[] required=false deprecated=false repl=""
--lora-strict-loading aliases=[] neg="--no-lora-strict-loading" action=boolean_optional nargs="" choices=[] required=false deprecated=false repl=""
--cuda-graph-max-bs aliases=[] neg="" action=store nargs="" choices=[] required=false deprecated=true repl="--cuda-graph-max-bs-decode=128"
--enable-a aliases=[] neg="" action=store_true nargs="" choices=[] required=false deprecated=false repl=""
--enable-b aliases=[] neg="" action=store_true nargs="" choices=[] required=false deprecated=false repl=""
--model-path aliases=[--model] neg="" action=store nargs="" choices=[] required=true deprecated=false repl=""
--tokenizer-mode aliases=[] neg="" action=store nargs="" choices=[auto slow] required=false deprecated=false repl=""
`
	for _, cols := range []int{4000, 60} {
		t.Run(fmt.Sprint(cols), func(t *testing.T) {
			flags, err := Parse(realHelp(t, cols))
			if err != nil {
				t.Fatal(err)
			}
			if got := describeFlags(flags); got != want {
				t.Errorf("got\n%s\nwant\n%s", got, want)
			}
		})
	}
	if _, err := Parse("Traceback (most recent call last):\n  File x\nImportError: no\n"); err == nil {
		t.Errorf("a traceback: got no error, want 'no options found'")
	}
}

// TestMergeCatalog: --help does not show types; the catalog does.
func TestMergeCatalog(t *testing.T) {
	flags, err := Parse(realHelp(t, 4000))
	if err != nil {
		t.Fatal(err)
	}
	args := catalog.NewArgs("test", Merge(flags, catalog.SGLangArgs()))
	tests := map[string]string{
		"--tp":                  "--tp-size int tp_size",
		"--model":               "--model-path str model_path",
		"--cuda-graph-max-bs":   "--cuda-graph-max-bs int cuda_graph_max_bs_decode",
		"--pair":                "--pair str pair",
		"--no-lora-strict-load": "--lora-strict-loading str lora_strict_loading",
	}
	for opt, want := range tests {
		f, _, err := args.Resolve(opt)
		if err != nil {
			t.Errorf("%s: %v", opt, err)
			continue
		}
		if got := f.Name + " " + f.Type + " " + f.Dest; got != want {
			t.Errorf("%s: got %q, want %q", opt, got, want)
		}
	}
}

// TestParseHelpPython313: Python 3.13 prints an option's metavar once,
// after its last spelling ("--tp-size, --tensor-parallel-size TP_SIZE");
// 3.12 and older repeat it. Both read the same. The text is 3.13.0's.
func TestParseHelpPython313(t *testing.T) {
	old := `usage: launch_server.py [-h] [--tp-size TP_SIZE] [--pair LO HI] [--x | --no-x] [--mode {a,b}]

optional arguments:
  -h, --help            show this help message and exit
  --tp-size TP_SIZE, --tensor-parallel-size TP_SIZE
  --pair LO HI, --pr LO HI
  --x, --no-x
  --mode {a,b}, --m {a,b}
`
	new := `usage: launch_server.py [-h] [--tp-size TP_SIZE] [--pair LO HI] [--x | --no-x] [--mode {a,b}]

options:
  -h, --help            show this help message and exit
  --tp-size, --tensor-parallel-size TP_SIZE
  --pair, --pr LO HI
  --x, --no-x
  --mode, --m {a,b}
`
	want := `--tp-size aliases=[--tensor-parallel-size] neg="" action=store nargs="" choices=[] required=false deprecated=false repl=""
--pair aliases=[--pr] neg="" action=store nargs="2" choices=[] required=false deprecated=false repl=""
--x aliases=[] neg="--no-x" action=boolean_optional nargs="" choices=[] required=false deprecated=false repl=""
--mode aliases=[--m] neg="" action=store nargs="" choices=[a b] required=false deprecated=false repl=""
`
	for name, text := range map[string]string{"3.9": old, "3.13": new} {
		flags, err := Parse(text)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := describeFlags(flags); got != want {
			t.Errorf("%s: got\n%s\nwant\n%s", name, got, want)
		}
	}
}
