package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/sglaunch/sglaunch/internal/cliflow"
)

// example is one sglaunch command line from the README or a help text.
type example struct {
	where string // README.md:LINE or the command's help
	text  string
}

var inlineCommandRE = regexp.MustCompile("`((?:go run \\./cmd/)?sglaunch [^`]*)`")

// readmeExamples returns the README's sglaunch command lines: the lines of
// its code blocks and its inline code spans that start with sglaunch (or
// go run ./cmd/sglaunch), and the profile YAML blocks by name.
func readmeExamples(t *testing.T, readme string) ([]example, map[string]string) {
	t.Helper()
	var out []example
	yamls := map[string]string{}
	inBlock, yaml := false, []string(nil)
	for i, line := range strings.Split(readme, "\n") {
		where := "README.md:" + strconv.Itoa(i+1)
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "```") {
			if inBlock && len(yaml) > 0 && strings.HasPrefix(yaml[0], "name: ") {
				yamls[strings.TrimPrefix(yaml[0], "name: ")] = strings.Join(yaml, "\n") + "\n"
			}
			inBlock, yaml = !inBlock, nil
			continue
		}
		if inBlock {
			yaml = append(yaml, line)
			cmd := strings.TrimPrefix(trimmed, "$ ")
			if strings.HasPrefix(cmd, "sglaunch ") || strings.HasPrefix(cmd, "go run ./cmd/sglaunch ") {
				out = append(out, example{where, cmd})
			}
			continue
		}
		if strings.HasPrefix(line, "| `sglaunch ") {
			// A row of the command table: its first cell holds
			// commands like `sglaunch bench list` / `bench show ID`.
			cell := strings.Split(strings.ReplaceAll(line, `\|`, "\x00"), "|")[1]
			for _, m := range regexp.MustCompile("`([^`]*)`").FindAllStringSubmatch(cell, -1) {
				out = append(out, example{where, "sglaunch " + strings.TrimPrefix(strings.ReplaceAll(m[1], "\x00", `\|`), "sglaunch ")})
			}
			continue
		}
		for _, m := range inlineCommandRE.FindAllStringSubmatch(line, -1) {
			out = append(out, example{where, m[1]})
		}
	}
	return out, yamls
}

var (
	optionalRE = regexp.MustCompile(`\[[^\[\]]*\]`)
	shellEndRE = regexp.MustCompile(`\s(\||>|;|#|&&|2>)\s?|;\s`)
)

// exampleArgs turns a documented command line into arguments: the shell's
// pipes, redirections and comments cut off, a synopsis' optional parts
// dropped, and its placeholders filled with what the test provides.
func exampleArgs(text string) []string {
	text = strings.ReplaceAll(text, `\|`, "|")
	text = strings.TrimPrefix(strings.TrimPrefix(text, "go run ./cmd/"), "sglaunch ")
	for optionalRE.MatchString(text) {
		text = optionalRE.ReplaceAllString(text, "")
	}
	if loc := shellEndRE.FindStringIndex(text); loc != nil {
		text = text[:loc[0]]
	}
	args := strings.Fields(strings.ReplaceAll(text, "...", ""))
	// The records of the fixture; diff's operands are plans: the two
	// built-ins.
	a, b, profile := "56ab52eb", "991816ca", "demo"
	if len(args) > 0 && args[0] == "diff" {
		a, b = "demo", "kimi-k2.5-int4-eagle3"
	}
	if len(args) > 0 && (args[0] == "slurm" || args[0] == "lws") {
		profile = "big-2n" // a multi-node profile
	}
	for i, arg := range args {
		prev := ""
		if i > 0 {
			prev = args[i-1]
		}
		switch {
		case prev == "--profile" && arg == "X":
			args[i] = profile
		case prev == "show" && arg == "NAME":
			args[i] = "demo"
		case prev == "--image" && arg == "IMG":
			args[i] = "registry.example/sglang-sglaunch:v0.5"
		case arg == "ID" || arg == "A":
			args[i] = a
		case arg == "B":
			args[i] = b
		}
	}
	return args
}

// offline says whether an example runs here without a server, and why
// not when it does not.
func offline(args []string) (bool, string) {
	has := func(s string) bool { return slices.Contains(args, s) }
	live := slices.ContainsFunc(args, func(a string) bool {
		return strings.HasPrefix(a, "running") || strings.HasPrefix(a, "pid:") || strings.HasPrefix(a, "port:") || strings.HasPrefix(a, "url:") || strings.HasPrefix(a, "unit:")
	})
	switch {
	case args[0] == "verify" || args[0] == "status" || live || has("--url"):
		return false, "needs a running server"
	case args[0] == "bench" && (len(args) == 1 || strings.HasPrefix(args[1], "-")):
		return false, "launches a server on the simulator for half a minute; ./test runs bench end to end"
	case args[0] == "tune":
		return false, "launches a server per point, or reads a tune a search wrote; test/tune runs tune end to end"
	case !has("--profile") && !has("-p") && slices.Contains([]string{"serve", "unit", "slurm", "lws", "config", "preflight"}, args[0]):
		return false, "names the command only (no profile)"
	case args[0] == "serve" && has("big-2n") && !slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "args.node-rank=") }):
		return false, "a rank of a multi-node group reads its place from the orchestrator's variables; test/multinode runs the ranks"
	}
	return true, ""
}

// TestREADMEExamples pins issue 24, item 6: the README's own example
// `bench report ID ID -o report.html` failed. Every sglaunch command line
// of the README and of the help texts parses (arrange accepts its
// command, options and arguments), and each that can run here without a
// server runs: serve as --dry-run, the record commands on two records
// with the README's IDs, slurm and lws on the README's big-2n profile.
func TestREADMEExamples(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	examples, yamls := readmeExamples(t, string(readme))
	// The docs the README points to hold examples too (docs/multinode.md).
	docs, _ := filepath.Glob("../../docs/*.md")
	for _, d := range docs {
		text, err := os.ReadFile(d)
		if err != nil {
			t.Fatal(err)
		}
		more, ys := readmeExamples(t, string(text))
		for i := range more {
			more[i].where = "docs/" + filepath.Base(d) + strings.TrimPrefix(more[i].where, "README.md")
		}
		examples = append(examples, more...)
		for k, v := range ys {
			if _, ok := yamls[k]; !ok {
				yamls[k] = v
			}
		}
	}
	for path, h := range helpTexts {
		for _, ex := range h.Examples {
			examples = append(examples, example{"sglaunch " + path + " --help", ex})
		}
	}
	state, _ := recordsFixture(t)
	profiles := t.TempDir()
	// big-2n extends the README's illustrative big; here big is the demo.
	files := map[string]string{"big.yaml": "name: big\nextends: demo\n"}
	if y, ok := yamls["big-2n"]; ok {
		files["big-2n.yaml"] = y
	} else {
		t.Error("README.md has no big-2n profile block")
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(profiles, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	vars := map[string]string{"SGLAUNCH_STATE_DIR": state, "SGLAUNCH_PROFILE_PATH": profiles}
	// Each runs in a directory of its own (cliRun's), where -o FILE lands.
	var ran atomic.Int32
	t.Run("examples", func(t *testing.T) {
		for _, ex := range examples {
			args := exampleArgs(ex.text)
			if len(args) == 0 {
				continue
			}
			t.Run(ex.where+" "+strings.Join(args, " "), func(t *testing.T) {
				t.Parallel()
				var stdout, stderr bytes.Buffer
				e := testEnv(&stdout, &stderr)
				if _, err := cliflow.Arrange(newApp(e), append([]string{"sglaunch"}, args...), checkArgs); err != nil {
					t.Fatalf("%s: %q does not parse: %v", ex.where, ex.text, err)
				}
				ok, why := offline(args)
				if !ok {
					t.Logf("%s: parsed, not run: %s", ex.where, why)
					return
				}
				if args[0] == "serve" && !slices.Contains(args, "--dry-run") {
					args = append(args, "--dry-run")
				}
				code, out, errOut := cliRun(t, vars, args...)
				// 1 is a verdict (a failed check, a difference, a slower B),
				// 2 an input error: the README would be wrong.
				if code == 2 {
					t.Errorf("%s: %q: exit 2\n%s%s", ex.where, ex.text, out, errOut)
				}
				ran.Add(1)
			})
		}
	})
	if n := ran.Load(); n < 15 {
		t.Errorf("ran %d examples; the README and help texts hold more that run offline", n)
	}
}
