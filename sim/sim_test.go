package sim

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/sglaunch/sglaunch/catalog"
	"github.com/sglaunch/sglaunch/catalog/sglangtab"
)

func TestUnpackIsImportable(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cat := catalog.SGLangArgsJSON()
	if err := Unpack(dir, cat); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "sglang", "srt", "server_args.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, cat) {
		t.Errorf("server_args.json differs from the catalog given to Unpack")
	}
	cmd := exec.Command("python3", "-c",
		`import importlib.metadata as m, sglang; print(m.version("sglang"), sglang.__version__)`)
	cmd.Env = append(simEnv("unpack"), "PYTHONPATH="+dir)
	cmd.Dir = t.TempDir()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("python3: %v\n%s", err, out)
	}
	if got, want := strings.TrimSpace(string(out)), Version+" "+Version; got != want {
		t.Errorf("versions: got %q, want %q", got, want)
	}
}

// The embed pattern names each package directory; a new subpackage must be
// added to it, and bytecode must never ride along.
func TestEmbeddedFilesMatchTheSourceTree(t *testing.T) {
	t.Parallel()
	embedded := map[string]bool{}
	err := fs.WalkDir(Files(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Name() == "__pycache__" || strings.HasSuffix(p, ".pyc") {
			t.Errorf("embedded %s", p)
		}
		embedded[p] = !d.IsDir()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir("sglang", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "__pycache__" {
			return filepath.SkipDir
		}
		if strings.HasSuffix(p, ".py") && !embedded[filepath.ToSlash(p)] {
			t.Errorf("%s is not embedded; add its directory to the go:embed pattern in sim.go", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestEnsureConcurrentCallersShareOneTree(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	cat := catalog.SGLangArgsJSON()
	const callers = 8
	dirs := make([]string, callers)
	errs := make([]error, callers)
	var wg sync.WaitGroup
	for i := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dirs[i], errs[i] = Ensure(t.Context(), root, cat)
		}()
	}
	wg.Wait()
	for i := range callers {
		if errs[i] != nil {
			t.Fatalf("caller %d: %v", i, errs[i])
		}
		if dirs[i] != dirs[0] {
			t.Errorf("caller %d got %q, want %q", i, dirs[i], dirs[0])
		}
	}
	key, err := Key(cat)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := filepath.Base(dirs[0]), "sim-"+key; got != want || len(key) != 12 {
		t.Errorf("dir name: got %q, want %q (12 hex digits)", got, want)
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("cache root holds %v, want only %s (no temporary leftovers)", names, filepath.Base(dirs[0]))
	}
	other, err := Ensure(t.Context(), root, append([]byte(" "), cat...))
	if err != nil {
		t.Fatal(err)
	}
	if other == dirs[0] {
		t.Errorf("a different catalog reused %s", other)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := Ensure(ctx, t.TempDir(), cat); err == nil {
		t.Errorf("Ensure with a cancelled context: got nil error")
	}
}

// Another component decides whether SGLang reads a SGLANG_* variable by
// grepping the installed package, so the sim's sources must name what it
// reads, list SGLang's registry, and never name a removed variable.
func TestSourcesNameTheEnvRegistry(t *testing.T) {
	t.Parallel()
	var all strings.Builder
	files := map[string]string{}
	err := fs.WalkDir(Files(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(Files(), p)
		all.Write(b)
		files[p] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	src := all.String()
	// The registry: the Envs rows of the table set of the sim's version.
	tables, err := sglangtab.For(Version)
	if err != nil {
		t.Fatal(err)
	}
	var missing []string
	for _, r := range tables.EnvReads {
		if r.How == "Envs" && !strings.Contains(src, r.Name) {
			missing = append(missing, r.Name)
		}
	}
	if len(missing) > 0 {
		t.Errorf("registry names missing from the sources: %v", missing)
	}
	for _, name := range []string{
		"SGLANG_HEALTH_CHECK_TIMEOUT", "SGLANG_SIM_LOAD_SECONDS", "SGLANG_SIM_WARMUP_SECONDS",
		"SGLANG_SIM_TTFT_MS", "SGLANG_SIM_ITL_MS", "SGLANG_SIM_CRASH_DURING_LOAD",
		"SGLANG_SIM_CRASH_EXIT_CODE", "SGLANG_SIM_HANG_AFTER_READY", "SGLANG_SIM_IGNORE_SIGTERM",
		"SGLANG_SIM_SETSID_WORKER", "SGLANG_SIM_LOG_FLOOD_BYTES", "SGLANG_SIM_EXIT_AFTER_FLOOD",
		"SGLANG_SIM_WORKER_ENV", "SGLANG_SIM_WORKER_ENV_RANK", "SGLANG_SIM_RECORD",
	} {
		if !strings.Contains(src, name) {
			t.Errorf("sources do not name %s", name)
		}
	}
	// SGLang removed SGLANG_ENABLE_SPEC_V2 from its registry in 2026 but
	// still looks it up once, to warn (arg_groups/speculative_hook.py): the
	// sim names it exactly there, in server_args.py, and nowhere else.
	removed := "SGLANG_ENABLE_" + "SPEC_V2" // split so this file never matches a grep either
	for path, text := range files {
		if strings.Contains(text, removed) && !strings.HasSuffix(path, "srt/server_args.py") {
			t.Errorf("%s names %s outside the start-up warning", path, removed)
		}
	}
}

func TestFlagErrorsExitTwo(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown flag", []string{"--model-path", "m", "--no-such-flag"}, "launch_server.py: error: unrecognized arguments: --no-such-flag"},
		{"int flag given a word", []string{"--model-path", "m", "--tp", "eight"}, "argument --tp-size/--tensor-parallel-size: invalid int value: 'eight'"},
		{"model path missing", []string{"--tp", "2"}, "the following arguments are required: --model-path/--model"},
		{"ambiguous prefix", []string{"--model-path", "m", "--enable-lo"}, "ambiguous option: --enable-lo could match --enable-lora, --enable-lora-overlap-loading"},
		{"value outside choices", []string{"--model-path", "m", "--dtype", "fp3"}, "argument --dtype: invalid choice: 'fp3'"},
		{"store_true given a value", []string{"--model-path", "m", "--trust-remote-code=yes"}, "argument --trust-remote-code: ignored explicit argument 'yes'"},
		{"removed flag", []string{"--model-path", "m", "--enable-expert-distribution-metrics"}, "has been removed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, _, stderr := runOnce(t, nil, tt.args...)
			if code != 2 {
				t.Errorf("exit status: got %d, want 2", code)
			}
			if !strings.Contains(stderr, tt.want) {
				t.Errorf("stderr lacks %q:\n%s", tt.want, tail(stderr, 3))
			}
			if strings.Contains(stderr, "server_args=") {
				t.Errorf("the server started after a flag error")
			}
		})
	}
}

func TestHelpListsEveryFlag(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := runOnce(t, nil, "--help")
	if code != 0 {
		t.Fatalf("--help: exit status %d\n%s", code, stderr)
	}
	if !strings.HasPrefix(stdout, "usage: launch_server.py [-h] --model-path MODEL_PATH") {
		t.Errorf("help does not start with argparse's usage line: %q", stdout[:min(len(stdout), 80)])
	}
	var cat struct {
		Flags []struct {
			Name           string   `json:"name"`
			Aliases        []string `json:"aliases"`
			Negation       string   `json:"negation"`
			HelpSuppressed bool     `json:"help_suppressed"`
		} `json:"flags"`
	}
	if err := json.Unmarshal(catalog.SGLangArgsJSON(), &cat); err != nil {
		t.Fatal(err)
	}
	if len(cat.Flags) < 400 {
		t.Fatalf("catalog has %d flags; want the full SGLang list", len(cat.Flags))
	}
	// SGLang's own help texts, as argparse wraps them.
	for _, want := range []string{
		"Deprecated alias for --cuda-graph-max-bs-decode.",
		"Deprecated. Use --cuda-graph-backend-{decode,prefill}=disabled instead.",
		"--lora-target-modules [{q_proj,k_proj,",
	} {
		// textwrap breaks after hyphens: rejoin those, then the lines.
		joined := strings.Join(strings.Fields(regexp.MustCompile(`-\n\s+`).ReplaceAllString(stdout, "-")), " ")
		if !strings.Contains(joined, want) {
			t.Errorf("help lacks %q", want)
		}
	}
	for _, f := range cat.Flags {
		if f.HelpSuppressed {
			// help=argparse.SUPPRESS in SGLang: argparse hides the flag.
			if strings.Contains(stdout, f.Name+" ") || strings.Contains(stdout, f.Name+"\n") {
				t.Errorf("help lists %s, which SGLang hides", f.Name)
			}
			continue
		}
		spellings := append([]string{f.Name}, f.Aliases...)
		if f.Negation != "" {
			spellings = append(spellings, f.Negation)
		}
		for _, s := range spellings {
			re := regexp.MustCompile(`(^|[\s\[,|])` + regexp.QuoteMeta(s) + `([\s\],=|]|$)`)
			if !re.MatchString(stdout) {
				t.Errorf("help does not list %s", s)
			}
		}
	}
}
