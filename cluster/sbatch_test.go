package cluster

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sglaunch/sglaunch/internal/inputerr"
	"github.com/sglaunch/sglaunch/internal/testkit"
)

const sbatchProfile = `name: big
args: {model-path: /models/big, tp: 16, host: 0.0.0.0}
multinode: {nodes: 2}
`

const exe = "/usr/local/bin/sglaunch"

func TestSbatchScript(t *testing.T) {
	p, _ := jobProfile(t, "big", "/etc/sglaunch/profiles/big.yaml", sbatchProfile)
	got, err := SbatchScript(p, SbatchOptions{Exe: exe, Partition: "gpu", Time: "7-00:00:00", Account: "llm", Exclusive: true, Output: "/shared/logs/%x-%j.out"})
	if err != nil {
		t.Fatal(err)
	}
	testkit.Golden(t, t.Name(), got, *testkit.Update)
	bashSyntax(t, got)
}

// TestSbatchScriptMinimal: without options the script asks only for the
// nodes, one task per node and the GPUs the profile needs.
func TestSbatchScriptMinimal(t *testing.T) {
	p, _ := jobProfile(t, "big", "/etc/sglaunch/profiles/big.yaml", sbatchProfile)
	got, err := SbatchScript(p, SbatchOptions{Exe: exe})
	if err != nil {
		t.Fatal(err)
	}
	var directives []string
	for _, l := range strings.Split(got, "\n") {
		if strings.HasPrefix(l, "#SBATCH") {
			directives = append(directives, l)
		}
	}
	want := []string{"#SBATCH --job-name=sglaunch-big", "#SBATCH --nodes=2", "#SBATCH --ntasks-per-node=1", "#SBATCH --open-mode=append", "#SBATCH --gpus-per-node=8"}
	if !slices.Equal(directives, want) {
		t.Errorf("got %q, want %q", directives, want)
	}
	if !strings.HasPrefix(got, "#!/bin/bash\n") {
		t.Errorf("no #!/bin/bash first:\n%s", got)
	}
	// Without --tp-size the GPUs are unknown: no --gpus-per-node.
	p, _ = jobProfile(t, "nogpu", "/p/nogpu.yaml", "args: {model-path: /m}\nmultinode: {nodes: 2}\n")
	got, err = SbatchScript(p, SbatchOptions{Exe: exe})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(got, "--gpus-per-node") {
		t.Errorf("--gpus-per-node without a known TP size:\n%s", got)
	}
}

// TestSbatchQuoting runs the script with hostile profile paths and job
// names under bash, with a stand-in srun that records its arguments:
// each must arrive as written, and nothing in them may run.
func TestSbatchQuoting(t *testing.T) {
	hostile := []string{
		`/shared/it's $(touch PWNED) ` + "`touch PWNED`" + `/p.yaml`,
		`/shared/a b/"q"\x;touch PWNED;#/p.yaml`,
		"/shared/new\nline; touch PWNED/p.yaml",
		`/shared/$HOME/${IFS}/*.yaml`,
	}
	for i, path := range hostile {
		t.Run(strings.Fields(path)[0], func(t *testing.T) {
			p, _ := jobProfile(t, "x", path, sbatchProfile)
			name := `job "name" with 'quotes' # and $(touch PWNED) \ ` + string(rune('a'+i))
			exePath := `/opt/my tools/it's/sglaunch`
			script, err := SbatchScript(p, SbatchOptions{Exe: exePath, JobName: name, Output: "/logs/%j $x.out"})
			if err != nil {
				t.Fatal(err)
			}
			bashSyntax(t, script)
			args := runScript(t, script)
			want := []string{"--nodes=2", "--ntasks-per-node=1", "--kill-on-bad-exit=1", exePath, "serve", "--profile", path}
			if !slices.Equal(args, want) {
				t.Errorf("srun got %q, want %q", args, want)
			}
			got := sbatchDirectives(t, script)
			if got["--job-name"] != name || got["--output"] != "/logs/%j $x.out" {
				t.Errorf("sbatch reads --job-name %q and --output %q, want %q and %q", got["--job-name"], got["--output"], name, "/logs/%j $x.out")
			}
		})
	}
}

// runScript runs an sbatch script with bash in a job's environment, a
// stand-in srun first on PATH, and returns srun's arguments. It fails
// the test when anything in the script ran that should not have.
func runScript(t *testing.T, script string) []string {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "srun.args")
	srun := "#!/bin/sh\nprintf '%s\\0' \"$@\" > \"$SRUN_ARGS\"\nprintf 'SET=%s HOST=%s\\0' \"$SGLAUNCH_SET\" \"$SGLAUNCH_HOST\" >> \"$SRUN_ARGS\"\n"
	if err := os.WriteFile(filepath.Join(bin, "srun"), []byte(srun), 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "job.sbatch")
	if err := os.WriteFile(file, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", file)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + bin + ":/usr/bin:/bin", "SLURM_NNODES=2", "SRUN_ARGS=" + out, "HOME=" + dir,
		"SGLAUNCH_SET=args.tp=1", "SGLAUNCH_HOST=127.0.0.1"}
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("bash job.sbatch: %v\n%s", err, b)
	}
	if _, err := os.Stat(filepath.Join(dir, "PWNED")); err == nil {
		t.Fatalf("the script ran a command from an interpolated value:\n%s", script)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	args := strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
	if last := args[len(args)-1]; last != "SET= HOST=" {
		t.Errorf("the submitting shell's overrides reach the ranks: %s", last)
	}
	return args[:len(args)-1]
}

// sbatchDirectives reads the #SBATCH lines as sbatch does: its own
// tokenizer (src/sbatch/opt.c, _get_argument), in which a backslash
// escapes the next character, ' and " quote and an unquoted # ends the
// line. Directives end at the first line that is not a comment.
func sbatchDirectives(t *testing.T, script string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, line := range strings.Split(script, "\n")[1:] {
		if line != "" && !strings.HasPrefix(line, "#") {
			break
		}
		rest, ok := strings.CutPrefix(line, "#SBATCH")
		if !ok {
			continue
		}
		for _, arg := range sbatchTokens(t, rest) {
			opt, val, _ := strings.Cut(arg, "=")
			out[opt] = val
		}
	}
	return out
}

func sbatchTokens(t *testing.T, s string) []string {
	t.Helper()
	var args []string
	for {
		s = strings.TrimLeft(s, " \t")
		if s == "" {
			return args
		}
		var b strings.Builder
		var q byte
		escape, quoted, i := false, false, 0
		for ; i < len(s) && (quoted || (s[i] != ' ' && s[i] != '\t')); i++ {
			c := s[i]
			switch {
			case escape:
				escape = false
			case c == '\\':
				escape = true
				continue
			case quoted:
				if c == q {
					quoted = false
					continue
				}
			case c == '"' || c == '\'':
				quoted, q = true, c
				continue
			case c == '#':
				i = len(s)
				continue
			}
			b.WriteByte(c)
		}
		if quoted {
			t.Fatalf("sbatch: unmatched %c in %q", q, s)
		}
		if b.Len() > 0 {
			args = append(args, b.String())
		}
		s = s[min(i, len(s)):]
	}
}

func bashSyntax(t *testing.T, script string) {
	t.Helper()
	cmd := exec.Command("bash", "-n")
	cmd.Stdin = strings.NewReader(script)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("bash -n: %v\n%s\n%s", err, out, script)
	}
}

func TestSbatchRefuses(t *testing.T) {
	tests := []struct {
		name, profile string
		o             SbatchOptions
		want          string
	}{
		{"single node", "args: {tp: 8}\n", SbatchOptions{Exe: exe}, "set multinode.nodes"},
		{"lws profile", "args: {tp: 16}\nmultinode: {nodes: 2, orchestrator: lws}\n", SbatchOptions{Exe: exe}, "set multinode.orchestrator: slurm"},
		{"skypilot profile", "args: {tp: 16}\nmultinode: {nodes: 2, orchestrator: skypilot}\n", SbatchOptions{Exe: exe}, "multinode.orchestrator skypilot"},
		{"static profile", "args: {tp: 16}\nmultinode: {nodes: 2, orchestrator: static}\n", SbatchOptions{Exe: exe}, "multinode.orchestrator static"},
		{"newline in job name", sbatchProfile, SbatchOptions{Exe: exe, JobName: "a\n#SBATCH --uid=0"}, "control character"},
		{"hetjob in partition", sbatchProfile, SbatchOptions{Exe: exe, Partition: "hetjob"}, "job separator"},
		{"uneven GPUs", "args: {tp: 8}\nmultinode: {nodes: 3}\n", SbatchOptions{Exe: exe}, "do not split evenly"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, _ := jobProfile(t, "r", "/p/r.yaml", tt.profile)
			_, err := SbatchScript(p, tt.o)
			if err == nil || !inputerr.Is(err) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an input error with %q", err, tt.want)
			}
		})
	}
}
