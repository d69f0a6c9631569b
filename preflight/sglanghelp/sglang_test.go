package sglanghelp

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/catalog"
	"github.com/sglaunch/sglaunch/internal/childproc"
	"github.com/sglaunch/sglaunch/sim"
)

// TestHelpTextDeprecationMatchesCatalog: read with SGLang's own help text,
// every flag is deprecated exactly when the catalog says so, and a
// replacement the help names is the catalog's. --smg-grpc-mode, whose help
// says it "Replaces the deprecated --grpc-mode", was marked deprecated.
func TestHelpTextDeprecationMatchesCatalog(t *testing.T) {
	checked := 0
	for _, c := range catalog.SGLangArgs().Flags {
		if c.Help == "" {
			continue
		}
		checked++
		f := &catalog.Flag{Name: c.Name}
		applyHelpText(f, c.Help)
		if f.Deprecated != c.Deprecated {
			t.Errorf("%s: deprecated %v from its help %q, catalog says %v", c.Name, f.Deprecated, c.Help, c.Deprecated)
			continue
		}
		// The catalog writes some as field names (cuda_graph_backend_prefill=breakable).
		norm := func(r string) string { return strings.ReplaceAll(strings.TrimPrefix(r, "--"), "_", "-") }
		if f.Replacement != "" && c.Replacement != "" && norm(f.Replacement) != norm(c.Replacement) {
			t.Errorf("%s: help names %q, catalog %q", c.Name, f.Replacement, c.Replacement)
		}
	}
	if checked < 400 {
		t.Errorf("checked %d help texts, want the catalog's ~480", checked)
	}
}

// simHelp is the simulated SGLang's --help: argparse with SGLang's own
// flags and help texts, at terminal width cols.
func simHelp(t *testing.T, cols int) string {
	t.Helper()
	dir := t.TempDir()
	if err := sim.Unpack(dir, catalog.SGLangArgsJSON()); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "PYTHONPATH="+dir, fmt.Sprintf("COLUMNS=%d", cols), "NO_COLOR=1", "PYTHON_COLORS=0")
	res := childproc.Run(context.Background(), childproc.Spec{Argv: []string{"python3", "-m", "sglang.launch_server", "--help"}, Env: env, Dir: t.TempDir(), Timeout: 60 * time.Second})
	if res.Err != nil {
		t.Fatalf("sim --help: %v: %s", res.Err, res.Stderr)
	}
	return string(res.Stdout)
}

// TestParseRealSGLangHelp: the parser reads SGLang's help texts as they
// are. Before, nine deprecated aliases lost their replacement ("alias
// for" was not read), --disable-cuda-graph's was cut at "{",
// --smg-grpc-mode was marked deprecated, and --lora-target-modules's last
// choice read "all} ...".
func TestParseRealSGLangHelp(t *testing.T) {
	for _, cols := range []int{80, 200} {
		t.Run(fmt.Sprint(cols), func(t *testing.T) {
			flags, err := Parse(simHelp(t, cols))
			if err != nil {
				t.Fatal(err)
			}
			args := catalog.NewArgs("help", Merge(flags, catalog.SGLangArgs()))
			tests := []struct {
				opt         string
				deprecated  bool
				replacement string
			}{
				{"--cuda-graph-max-bs", true, "--cuda-graph-max-bs-decode"},
				{"--cuda-graph-bs", true, "--cuda-graph-bs-decode"},
				{"--piecewise-cuda-graph-max-tokens", true, "--cuda-graph-max-bs-prefill"},
				{"--piecewise-cuda-graph-tokens", true, "--cuda-graph-bs-prefill"},
				{"--piecewise-cuda-graph-compiler", true, "--cuda-graph-tc-compiler"},
				{"--mamba-scheduler-strategy", true, "--mamba-radix-cache-strategy"},
				{"--enable-breakable-cuda-graph", true, "--cuda-graph-backend-prefill=breakable"},
				{"--disable-piecewise-cuda-graph", true, "--cuda-graph-backend-prefill=disabled"},
				{"--enforce-piecewise-cuda-graph", true, "--cuda-graph-backend-prefill=tc_piecewise"},
				{"--disable-cuda-graph", true, "--cuda-graph-backend-{decode,prefill}=disabled"},
				{"--stream-output", true, "--incremental-streaming-output"},
				{"--grpc-mode", true, "--smg-grpc-mode"},
				{"--enable-flashinfer-allreduce-fusion", true, "--flashinfer-allreduce-fusion-backend=auto"},
				{"--dsa-prefill-cp-mode", true, "--cp-strategy"},
				{"--smg-grpc-mode", false, ""},
				{"--tp-size", false, ""},
			}
			for _, tt := range tests {
				f, ok := args.Lookup(tt.opt)
				if !ok {
					t.Errorf("%s: not in the parsed help", tt.opt)
					continue
				}
				if f.Deprecated != tt.deprecated || f.Replacement != tt.replacement {
					t.Errorf("%s: deprecated=%v replacement=%q, want %v %q", tt.opt, f.Deprecated, f.Replacement, tt.deprecated, tt.replacement)
				}
			}
			f, _ := args.Lookup("--lora-target-modules")
			if f.Nargs != "*" || len(f.Choices) != 21 || f.Choices[0] != "q_proj" || f.Choices[20] != "all" {
				t.Errorf("--lora-target-modules: nargs %q choices %q, want * and q_proj ... all", f.Nargs, f.Choices)
			}
			if f, _ := args.Lookup("--uvicorn-access-log-exclude-prefixes"); f.Nargs != "*" || f.Choices != nil {
				t.Errorf("--uvicorn-access-log-exclude-prefixes: nargs %q choices %q, want * and none", f.Nargs, f.Choices)
			}
		})
	}
}
