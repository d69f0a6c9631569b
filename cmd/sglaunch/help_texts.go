package main

import "github.com/sglaunch/sglaunch/internal/cliflow"

const (
	exitPrint  = "0 printed, 1 it could not be written, 2 bad input (an unknown profile, flag or argument)"
	exitRecord = "0 printed, 1 it could not be written, 2 bad input (an unknown record, flag or argument)"
)

// helpTexts are what each command's --help adds to its flags (a
// description where the command has none, examples taken from the README,
// the exit statuses), keyed by the command's path below sglaunch.
var helpTexts = map[string]cliflow.Help{
	"serve": {
		Examples: []string{"sglaunch serve --profile demo", "sglaunch serve --profile demo --dry-run"},
		Exit:     "the server's own status when it ended by itself (128+N when killed by signal N), 0 a clean stop, 1 sglaunch gave up on the server (start timeout, stall, unhealthy), 2 bad input",
	},
	"unit": {
		Examples: []string{"sglaunch unit --profile kimi-k2.5-int4-eagle3 --name kimi > /etc/systemd/system/kimi.service"},
		Exit:     exitPrint,
	},
	"slurm": {
		Examples: []string{"sglaunch slurm --profile big-2n --partition gpu --time 2-00:00:00 --exclusive > job.sbatch"},
		Exit:     exitPrint,
	},
	"lws": {
		Examples: []string{"sglaunch lws --profile big-2n --image registry.example/sglang-sglaunch:v0.5 --namespace llm | kubectl apply -f -"},
		Exit:     exitPrint,
	},
	"bench": {
		Examples: []string{"sglaunch bench --profile demo", "sglaunch bench --profile demo -w decode-1 -w sweep", "sglaunch bench --profile demo --url http://127.0.0.1:30000"},
		Exit:     "0 ok, 1 the run failed (its record is kept, marked failed) or more requests failed than --max-failures allows (marked partial), 2 bad input, 128+N interrupted by signal N",
	},
	"tune": {
		Examples: []string{"sglaunch tune --profile kimi --space nccl-space.yaml --budget 6h",
			"sglaunch tune --resume 20261202T031500Z-ab12cd34",
			"sglaunch tune --profile kimi --space nccl-space.yaml --slurm --tasks 8 --partition gpu"},
		Exit: "0 the search ended (with a winner, with \"no winner beyond noise\", or at the budget), 1 it could not go on (a failed run), 2 bad input, 128+N stopped by signal N (--resume goes on)",
	},
	"tune show": {
		Description: "Every point of a tune, best first, with its objective's interval and status, the failed points\n" +
			"with the phase they died in, and the verdict against the baseline. DIR or ID names the tune\n" +
			"(default the newest).",
		Examples: []string{"sglaunch tune show latest", "sglaunch tune show latest --json"},
		Exit:     "0 shown, 2 no such tune",
	},
	"tune report": {
		Description: "One self-contained HTML page: every point's objective with its interval, sorted, and each\n" +
			"parameter's effect; -o writes it to a file instead of stdout.",
		Examples: []string{"sglaunch tune report latest -o tune.html"},
		Exit:     "0 written, 2 no such tune or a file that cannot be written",
	},
	"bench list": {
		Description: "One line per record in the records directory, oldest first: ID, when, status, profile,\n" +
			"fingerprint and workloads. A directory that does not exist is an error, not an empty list.",
		Examples: []string{"sglaunch bench list", "sglaunch bench list --json"},
		Exit:     "0 listed, 2 bad input (a records directory that does not exist)",
	},
	"bench show": {
		Description: "What ran (argv, env, fingerprint), where (host, GPUs, versions), how it ended, the load's\n" +
			"phases, and each workload's results. ID is a record ID, a unique prefix, latest, or a record file.",
		Examples: []string{"sglaunch bench show latest", "sglaunch bench show latest --json"},
		Exit:     exitRecord,
	},
	"bench compare": {
		Description: "For each workload and level both records ran: each key metric of B against A in %, with the\n" +
			"interval the rounds allow, and whether the change is beyond that noise; then the flags and\n" +
			"environment that differ between the two plans. --fail-if-slower makes it a CI gate.",
		Examples: []string{"sglaunch bench compare 56ab52eb 991816ca", "sglaunch bench compare 56ab52eb 991816ca --fail-if-slower 3"},
		Exit:     "0 compared (and nothing slower than --fail-if-slower allows), 1 a key metric of B is slower than --fail-if-slower allows, 2 bad input",
	},
	"bench export": {
		Examples: []string{"sglaunch bench export latest --format bench-serving", "sglaunch bench export latest --format bench-serving -o latest.jsonl"},
		Exit:     exitRecord,
	},
	"bench report": {
		Examples: []string{"sglaunch bench report 56ab52eb 991816ca -o report.html"},
		Exit:     exitRecord,
	},
	"config": {
		Description: "Resolves the profile (extends, the mode's overlay, --set and --unset, SGLAUNCH_SET, the arguments\n" +
			"after --) and prints what serve or bench would launch: a header with the fingerprint, the command\n" +
			"as a shell command, the managed environment with where each value came from, what was dropped,\n" +
			"and the flags by layer. Nothing is started.",
		Examples: []string{"sglaunch config --profile demo", "sglaunch config --profile demo --mode bench --json"},
		Exit:     exitPrint,
	},
	"profiles": {
		Description: "A profile is found by name along the search path ($SGLAUNCH_PROFILE_PATH, then ~/.config/sglaunch/profiles and\n" +
			"/etc/sglaunch/profiles), then among the built-ins; a path names a file. list shows them all,\n" +
			"show prints one with extends applied.",
		Examples: []string{"sglaunch profiles list", "sglaunch profiles show demo"},
		Exit:     exitPrint,
	},
	"profiles list": {
		Description: "One line per profile: its name, where it was found (a file along the search path, or built-in)\n" +
			"and its description; a profile that another of the same name hides is marked shadowed, and one\n" +
			"that does not parse shows its error.",
		Examples: []string{"sglaunch profiles list", "sglaunch profiles list --json"},
		Exit:     exitPrint,
	},
	"profiles show": {
		Description: "Prints the profile with extends applied, as YAML; each inherited value is commented with the\n" +
			"profile it came from. NAME is looked up as list shows; a PATH names a file.",
		Examples: []string{"sglaunch profiles show demo"},
		Exit:     exitPrint,
	},
	"preflight": {
		Examples: []string{"sglaunch preflight --profile demo", "sglaunch preflight --profile kimi-k2.5-int4-eagle3 --catalog --json"},
		Exit:     "0 nothing fails (WARN and SKIP included), 1 a check fails, 2 bad input",
	},
	"verify": {
		Examples: []string{"sglaunch verify --profile demo", "sglaunch verify --record latest --unit kimi"},
		Exit:     "0 every perf-relevant setting matches, 1 drift, 2 nothing to check (gone, still loading, not found) or bad input",
	},
	"diff": {
		Description: "Each side is a plan: a profile's (resolved for --mode), a bench record's, or the one a running\n" +
			"deployment runs (read as verify reads it). Prints the settings that differ, perf-relevant first.",
		Examples: []string{"sglaunch diff demo kimi-k2.5-int4-eagle3", "sglaunch diff record:latest running:demo --json"},
		Exit:     "0 the perf-relevant settings are the same, 1 they differ, 2 bad input",
	},
	"status": {
		Examples: []string{"sglaunch status", "sglaunch status --profile demo --json"},
		Exit:     "0 a launch was found, 2 none",
	},
}
