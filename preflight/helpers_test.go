package preflight

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sglaunch/sglaunch/catalog"
	"github.com/sglaunch/sglaunch/internal/testkit"
	"github.com/sglaunch/sglaunch/plan"
	"github.com/sglaunch/sglaunch/profiles"
	"github.com/sglaunch/sglaunch/sim"
)

// resolve turns profile YAML into a plan, with the real python3 and this
// process's environment (managed variables dropped, as in production).
func resolve(t *testing.T, yaml string, mode string, extra ...string) *plan.Plan {
	t.Helper()
	file := filepath.Join(t.TempDir(), "test.yaml")
	if err := os.WriteFile(file, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := (&profiles.Finder{}).Load(file)
	if err != nil {
		t.Fatalf("load profile: %v", err)
	}
	return resolveProfile(t, p, mode, extra...)
}

func resolveProfile(t *testing.T, p *profiles.Profile, mode string, extra ...string) *plan.Plan {
	t.Helper()
	if mode == "" {
		mode = plan.ModeServe
	}
	plan, err := plan.Resolve(plan.Request{
		Profile: p, Mode: mode, Extra: extra, Environ: os.Environ(),
		LookPath: exec.LookPath,
		SimDir:   func() (string, error) { return "", os.ErrNotExist },
		// As the preflight command resolves: a mistyped value is a finding.
		KeepMistyped: true,
	})
	if err != nil {
		t.Fatalf("resolve: %v", err)
	}
	return plan
}

// run runs a preflight with the embedded catalogs (so that an SGLang that
// happens to be installed here changes nothing) and no GPU query.
func run(t *testing.T, plan *plan.Plan, opts Options) *Report {
	t.Helper()
	if opts.LookPath == nil {
		opts.LookPath = func(string) (string, error) { return "", exec.ErrNotFound }
	}
	return Run(context.Background(), plan, opts)
}

// only returns the one finding of a check about a subject.
func only(t *testing.T, r *Report, check, subject string) Finding {
	t.Helper()
	fs := r.Find(check, subject)
	if len(fs) != 1 {
		t.Fatalf("%s %s: got %d findings %+v, want 1\nall: %+v", check, subject, len(fs), fs, r.Findings)
	}
	return fs[0]
}

// fakeSGLang writes a package named sglang under dir: a dist-info with
// version, a launch_server module whose --help is real argparse output,
// and sources that mention the given SGLANG_* names. It returns dir, the
// directory to put on PYTHONPATH.
func fakeSGLang(t *testing.T, dir, version, parserCode string, envNames ...string) string {
	t.Helper()
	files := map[string]string{
		"sglang/__init__.py": "",
		"sglang/launch_server.py": `import argparse, sys
parser = argparse.ArgumentParser(prog="launch_server.py")
` + parserCode + `
if __name__ == "__main__":
    args = parser.parse_args()
    print("would serve", args)
`,
		"sglang/srt/__init__.py":                    "",
		"sglang/srt/environ.py":                     "import os\n",
		"sglang-" + version + ".dist-info/METADATA": "Metadata-Version: 2.1\nName: sglang\nVersion: " + version + "\n",
	}
	for _, n := range envNames {
		files["sglang/srt/environ.py"] += n + ` = os.environ.get("` + n + `")` + "\n"
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// fakeParser is a small SGLang-like parser: typed flags, choices, a
// switch, a BooleanOptionalAction, a list, a required flag, an alias and
// a deprecated flag whose help says what replaces it.
const fakeParser = `parser.add_argument("--model-path", "--model", type=str, required=True, help="The model path.")
parser.add_argument("--tp-size", "--tensor-parallel-size", type=int, default=1, help="The tensor parallelism size.")
parser.add_argument("--port", type=int, default=30000)
parser.add_argument("--host", type=str, default="127.0.0.1")
parser.add_argument("--mem-fraction-static", type=float)
parser.add_argument("--attention-backend", choices=["triton", "flashinfer", "fa3"], help="Choose the kernels for attention layers.")
parser.add_argument("--trust-remote-code", action="store_true", help="Whether or not to allow for custom models defined on the Hub in their own modeling files.")
parser.add_argument("--enable-thing", action=argparse.BooleanOptionalAction, help="A brand-new switch the catalog does not know.")
parser.add_argument("--cuda-graph-bs", type=int, nargs="+")
parser.add_argument("--cuda-graph-max-bs", type=int, help="Deprecated: use --cuda-graph-max-bs-decode instead.")
parser.add_argument("--cuda-graph-max-bs-decode", type=int)
parser.add_argument("--speculative-eagle-topk", type=int)
parser.add_argument("--brand-new-flag", type=str, help="Not in the catalog.")
`

// yamlEnv renders NAME: value lines for a profile's env block.
func yamlEnv(kv ...string) string {
	var b strings.Builder
	for i := 0; i+1 < len(kv); i += 2 {
		b.WriteString("  " + kv[i] + ": " + kv[i+1] + "\n")
	}
	return b.String()
}

// demoPlan resolves the demo profile against a freshly unpacked simulator.
func demoPlan(t testing.TB) *plan.Plan {
	t.Helper()
	dir := t.TempDir()
	if err := sim.Unpack(dir, catalog.SGLangArgsJSON()); err != nil {
		t.Fatal(err)
	}
	p, err := (&profiles.Finder{}).Load("demo")
	if err != nil {
		t.Fatal(err)
	}
	plan, err := plan.Resolve(plan.Request{
		Profile: p, Mode: plan.ModeServe, Environ: os.Environ(),
		Sets:   []string{"args.port=" + strconv.Itoa(testkit.FreePort(t))},
		SimDir: func() (string, error) { return dir, nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	return plan
}
