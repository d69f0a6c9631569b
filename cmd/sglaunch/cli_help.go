package main

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/sglaunch/sglaunch/internal/inputerr"
)

// commandHelp is what each command's --help adds to its flags: a
// description where the command has none, examples taken from the README,
// and the exit statuses.
type commandHelp struct {
	description string
	examples    []string
	exit        string
}

const (
	exitPrint  = "0 printed, 1 it could not be written, 2 bad input (an unknown profile, flag or argument)"
	exitRecord = "0 printed, 1 it could not be written, 2 bad input (an unknown record, flag or argument)"
)

// helpTexts is keyed by the command's path below sglaunch.
var helpTexts = map[string]commandHelp{
	"serve": {
		examples: []string{"sglaunch serve --profile demo", "sglaunch serve --profile demo --dry-run"},
		exit:     "the server's own status when it ended by itself (128+N when killed by signal N), 0 a clean stop, 1 sglaunch gave up on the server (start timeout, stall, unhealthy), 2 bad input",
	},
	"unit": {
		examples: []string{"sglaunch unit --profile kimi-k2.5-int4-eagle3 --name kimi > /etc/systemd/system/kimi.service"},
		exit:     exitPrint,
	},
	"slurm": {
		examples: []string{"sglaunch slurm --profile big-2n --partition gpu --time 2-00:00:00 --exclusive > job.sbatch"},
		exit:     exitPrint,
	},
	"lws": {
		examples: []string{"sglaunch lws --profile big-2n --image registry.example/sglang-sglaunch:v0.5 --namespace llm | kubectl apply -f -"},
		exit:     exitPrint,
	},
	"bench": {
		examples: []string{"sglaunch bench --profile demo", "sglaunch bench --profile demo -w decode-1 -w sweep", "sglaunch bench --profile demo --url http://127.0.0.1:30000"},
		exit:     "0 ok, 1 the run failed (its record is kept, marked failed) or more requests failed than --max-failures allows, 2 bad input, 128+N interrupted by signal N",
	},
	"bench list": {
		description: "One line per record in the records directory, oldest first: ID, when, status, profile,\n" +
			"fingerprint and workloads. A directory that does not exist is an error, not an empty list.",
		examples: []string{"sglaunch bench list", "sglaunch bench list --json"},
		exit:     "0 listed, 2 bad input (a records directory that does not exist)",
	},
	"bench show": {
		description: "What ran (argv, env, fingerprint), where (host, GPUs, versions), how it ended, the load's\n" +
			"phases, and each workload's results. ID is a record ID, a unique prefix, latest, or a record file.",
		examples: []string{"sglaunch bench show latest", "sglaunch bench show latest --json"},
		exit:     exitRecord,
	},
	"tune": {
		examples: []string{"sglaunch tune --profile kimi --space nccl-space.yaml --budget 6h",
			"sglaunch tune --resume 20261202T031500Z-ab12cd34",
			"sglaunch tune --profile kimi --space nccl-space.yaml --slurm --tasks 8 --partition gpu"},
		exit: "0 the search ended (with a winner or with \"no winner beyond noise\"), 1 it could not go on (a failed run), 2 bad input, 128+N stopped by signal N (--resume goes on)",
	},
	"tune show": {
		description: "Every point of a tune, best first, with its objective's interval and status, the failed points\n" +
			"with the phase they died in, and the verdict against the baseline. DIR or ID names the tune\n" +
			"(default the newest).",
		examples: []string{"sglaunch tune show latest", "sglaunch tune show latest --json"},
		exit:     "0 shown, 2 no such tune",
	},
	"tune report": {
		description: "One self-contained HTML page: every point's objective with its interval, sorted, and each\n" +
			"parameter's effect; -o writes it to a file instead of stdout.",
		examples: []string{"sglaunch tune report latest -o tune.html"},
		exit:     "0 written, 2 no such tune or a file that cannot be written",
	},
	"bench compare": {
		description: "For each workload and level both records ran: each key metric of B against A in %, with the\n" +
			"interval the rounds allow, and whether the change is beyond that noise; then the flags and\n" +
			"environment that differ between the two plans. --fail-if-slower makes it a CI gate.",
		examples: []string{"sglaunch bench compare 56ab52eb 991816ca", "sglaunch bench compare 56ab52eb 991816ca --fail-if-slower 3"},
		exit:     "0 compared (and nothing slower than --fail-if-slower allows), 1 a key metric of B is slower than --fail-if-slower allows, 2 bad input",
	},
	"bench export": {
		examples: []string{"sglaunch bench export latest --format bench-serving", "sglaunch bench export latest --format bench-serving -o latest.jsonl"},
		exit:     exitRecord,
	},
	"bench report": {
		examples: []string{"sglaunch bench report 56ab52eb 991816ca -o report.html"},
		exit:     exitRecord,
	},
	"config": {
		description: "Resolves the profile (extends, the mode's overlay, --set and --unset, SGLAUNCH_SET, the arguments\n" +
			"after --) and prints what serve or bench would launch: a header with the fingerprint, the command\n" +
			"as a shell command, the managed environment with where each value came from, what was dropped,\n" +
			"and the flags by layer. Nothing is started.",
		examples: []string{"sglaunch config --profile demo", "sglaunch config --profile demo --mode bench --json"},
		exit:     exitPrint,
	},
	"profiles": {
		description: "A profile is found by name along the search path ($SGLAUNCH_PROFILE_PATH, then ~/.config/sglaunch/profiles and\n" +
			"/etc/sglaunch/profiles), then among the built-ins; a path names a file. list shows them all,\n" +
			"show prints one with extends applied.",
		examples: []string{"sglaunch profiles list", "sglaunch profiles show demo"},
		exit:     exitPrint,
	},
	"profiles list": {
		description: "One line per profile: its name, where it was found (a file along the search path, or built-in)\n" +
			"and its description; a profile that another of the same name hides is marked shadowed, and one\n" +
			"that does not parse shows its error.",
		examples: []string{"sglaunch profiles list", "sglaunch profiles list --json"},
		exit:     exitPrint,
	},
	"profiles show": {
		description: "Prints the profile with extends applied, as YAML; each inherited value is commented with the\n" +
			"profile it came from. NAME is looked up as list shows; a PATH names a file.",
		examples: []string{"sglaunch profiles show demo"},
		exit:     exitPrint,
	},
	"preflight": {
		examples: []string{"sglaunch preflight --profile demo", "sglaunch preflight --profile kimi-k2.5-int4-eagle3 --catalog --json"},
		exit:     "0 nothing fails (WARN and SKIP included), 1 a check fails, 2 bad input",
	},
	"verify": {
		examples: []string{"sglaunch verify --profile demo", "sglaunch verify --record latest --unit kimi"},
		exit:     "0 every perf-relevant setting matches, 1 drift, 2 nothing to check (gone, still loading, not found) or bad input",
	},
	"diff": {
		description: "Each side is a plan: a profile's (resolved for --mode), a bench record's, or the one a running\n" +
			"deployment runs (read as verify reads it). Prints the settings that differ, perf-relevant first.",
		examples: []string{"sglaunch diff demo kimi-k2.5-int4-eagle3", "sglaunch diff record:latest running:demo --json"},
		exit:     "0 the perf-relevant settings are the same, 1 they differ, 2 bad input",
	},
	"status": {
		examples: []string{"sglaunch status", "sglaunch status --profile demo --json"},
		exit:     "0 a launch was found, 2 none",
	},
}

// decorate prepares the command tree at start-up: every command's help
// gets its description, examples and exit statuses; `help` is a word
// arrange answers (so urfave's help command, whose unknown topic exits 3,
// is not added); argument errors show the usage line; usage errors are
// input errors.
func decorate(cmds []*cli.Command, parent string) {
	for _, c := range cmds {
		path := strings.TrimSpace(parent + " " + c.Name)
		c.OnUsageError = usageError
		c.HideHelpCommand = true
		if h, ok := helpTexts[path]; ok {
			if c.Description == "" {
				c.Description = h.description
			}
			c.CustomHelpTemplate = helpTemplate(c, h)
		}
		if readsRecords(path, c) && c.Before == nil {
			c.Before = requireRecordsDir
		}
		if c.Action != nil && argsSpec(c) != "" && !strings.HasPrefix(argsSpec(c), "[--") {
			c.Action = withUsageLine(c, path)
		}
		decorate(c.Subcommands, path)
	}
}

func helpTemplate(c *cli.Command, h commandHelp) string {
	tmpl := cli.CommandHelpTemplate
	if len(c.Subcommands) > 0 {
		tmpl = cli.SubcommandHelpTemplate
	}
	var b strings.Builder
	b.WriteString(tmpl)
	if len(h.examples) > 0 {
		b.WriteString("\nEXAMPLES:\n")
		for _, ex := range h.examples {
			fmt.Fprintf(&b, "   %s\n", ex)
		}
	}
	if h.exit != "" {
		fmt.Fprintf(&b, "\nEXIT STATUS:\n   %s\n", h.exit)
	}
	return b.String()
}

// withUsageLine adds the usage line to an input error of a command called
// with the wrong number of arguments, after the command's own message.
func withUsageLine(c *cli.Command, path string) cli.ActionFunc {
	action := c.Action
	min, max := arity(argsSpec(c))
	return func(ctx *cli.Context) error {
		err := action(ctx)
		if n := ctx.NArg(); err != nil && inputerr.Is(err) && (n < min || (max >= 0 && n > max)) {
			return inputerr.Wrap(&withUsage{err: err, usage: usageLine(path, c)})
		}
		return err
	}
}

type withUsage struct {
	err   error
	usage string
}

func (w *withUsage) Error() string { return w.err.Error() + "\n" + w.usage }
func (w *withUsage) Unwrap() error { return w.err }

// arity reads how many arguments a usage like "A B" or "ID [ID...]" takes;
// max is -1 without a limit.
func arity(spec string) (min, max int) {
	for _, f := range strings.Fields(spec) {
		optional := strings.HasPrefix(f, "[")
		if strings.Contains(f, "...") {
			max = -1
		}
		if !optional {
			min++
		}
		if max >= 0 {
			max++
		}
	}
	return min, max
}

// defaultRE is urfave's default notation, `(default: X)` or
// `(default: "X")`.
var defaultRE = regexp.MustCompile(`\(default: "?([^")]*)"?\)`)

// flagString writes every default in one notation, `(default X)`, as the
// flags' own texts do, and leaves out the defaults that say nothing: false
// for a switch, 0 for a number that means none.
func flagString(f cli.Flag) string {
	s := defaultFlagStringer(f)
	return defaultRE.ReplaceAllStringFunc(s, func(m string) string {
		v := defaultRE.FindStringSubmatch(m)[1]
		if v == "false" || (v == "0" && isNumberFlag(f)) {
			return ""
		}
		return "(default " + v + ")"
	})
}

func isNumberFlag(f cli.Flag) bool {
	switch f.(type) {
	case *cli.IntFlag, *cli.Int64Flag, *cli.UintFlag, *cli.Float64Flag:
		return true
	}
	return false
}

var defaultFlagStringer = cli.FlagStringer

func init() {
	cli.FlagStringer = func(f cli.Flag) string { return strings.TrimRight(flagString(f), " ") }
}
