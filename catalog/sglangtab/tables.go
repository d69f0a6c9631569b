package sglangtab

// Meta says which SGLang tree a table set was generated from.
type Meta struct {
	// Version is the version SGLang reports for that tree (its
	// importlib.metadata version); Ref the branch or tag read, Commit its
	// full hash and Date its commit date.
	Version string `json:"sglang_version"`
	Ref     string `json:"ref"`
	Commit  string `json:"commit"`
	Date    string `json:"date"`
	// Note says how Version was decided where no tag names it.
	Note string `json:"note,omitempty"`
}

// EnvWrite is one place where SGLang writes a variable into its own
// environment, which the processes it starts inherit.
type EnvWrite struct {
	// Name is the variable; empty when the code computes it (NameExpr is
	// then that expression). A trailing "*" stands for a family of names
	// made by a prefix rewrite, NameExpr then the family copied from:
	// SGLANG_* from SGL_*.
	Name     string `json:"name"`
	NameExpr string `json:"name_expr,omitempty"`
	// How: assign (os.environ[k] = v), setdefault, update, putenv,
	// envs.set (an Envs field's set) or unset.
	How   string `json:"how"`
	Value string `json:"value,omitempty"`
	// Function is the enclosing function (Class.method); When the enclosing
	// conditions, outermost first, as Python source text.
	Function string   `json:"function"`
	When     []string `json:"when"`
	// FillsOnly: the write happens only while the variable is unset, so a
	// value given from outside is kept.
	FillsOnly bool `json:"fills_only"`
	// Requires lists the argparse dests the write needs, as groups of
	// which any one must be true; conditions on anything else are not
	// modelled (the write may happen under them).
	Requires [][]string `json:"requires"`
	// ReadsEnv: a condition other than the unset test reads the
	// environment (another variable, or this one's value), which a plan's
	// flags cannot decide.
	ReadsEnv bool   `json:"reads_env"`
	Source   string `json:"source"`
}

// EnvRead is one environment name SGLang reads: a field of srt/environ.py's
// Envs registry (How "Envs", with its type and default) or a direct read.
//
// How "deprecated" is an entry of environ.py's _DEPRECATED_ENVS: SGLang
// warns when the name is set (with Note) and forwards the value, through
// Transform, to Replacement if there is one. Alias is the older name an
// Envs field (EnvBoolWithAlias and kin) still reads when it is unset.
type EnvRead struct {
	Name        string `json:"name"`
	How         string `json:"how"`
	Type        string `json:"type,omitempty"`
	Default     string `json:"default,omitempty"`
	Alias       string `json:"alias,omitempty"`
	Replacement string `json:"replacement,omitempty"`
	Transform   string `json:"transform,omitempty"`
	Note        string `json:"note,omitempty"`
	Source      string `json:"source"`
}

// ServerArg is one launch_server option: its spellings (first the
// primary), dest, type, action, default and choices as written in
// SGLang's source.
type ServerArg struct {
	Flags      []string `json:"flags"`
	Dest       string   `json:"dest"`
	Type       string   `json:"type,omitempty"`
	Action     string   `json:"action,omitempty"`
	Nargs      string   `json:"nargs,omitempty"`
	Default    string   `json:"default,omitempty"`
	Choices    string   `json:"choices,omitempty"`
	Deprecated bool     `json:"deprecated"`
	// Removed: a DeprecatedAction with an error_message, which makes
	// SGLang exit with that message; NewFlag is the flag a deprecated one
	// points to, Const the value a store-const action stores (spelled out
	// where the source names a constant).
	Removed bool   `json:"removed"`
	NewFlag string `json:"new_flag,omitempty"`
	Const   string `json:"const,omitempty"`
	// ValueType is the argparse type callable of a flag that takes a
	// value (str, int, float, human_readable_int, json.loads, ...), as
	// argparse or add_cli_args_from_dataclass registers it; "" for a flag
	// without a value. ChoiceValues is Choices spelled out where the source
	// does (a literal list, Literal[...], a module constant); nil where
	// computed at run time. Required: argparse rejects a command line
	// without it.
	ValueType    string   `json:"value_type,omitempty"`
	ChoiceValues []string `json:"choice_values,omitempty"`
	Required     bool     `json:"required,omitempty"`
	// Help is the help text (f-string holes as {expr}); SUPPRESS hides
	// the flag from --help.
	Help   string `json:"help,omitempty"`
	Source string `json:"source"`
}

// Metric is one Prometheus metric SGLang defines; a label written
// {expr} is computed at run time from expr.
type Metric struct {
	Name   string   `json:"name"`
	Kind   string   `json:"kind"`
	Labels []string `json:"labels"`
	Source string   `json:"source"`
}

// Endpoint is one HTTP route of SGLang's servers.
type Endpoint struct {
	Path     string   `json:"path"`
	Methods  []string `json:"methods"`
	Function string   `json:"function"`
	Source   string   `json:"source"`
}

// LogFormat is one log line the start-up phase tracker matches: the
// marker it holds and the format as written ({expr} for the holes).
//
// Phase is the start-up phase the line marks (a name of package health's
// phases); Last: the phase takes the time of the line's last occurrence
// (a step that ends), else of its first (a step that begins).
type LogFormat struct {
	Marker   string `json:"marker"`
	Phase    string `json:"phase"`
	Last     bool   `json:"last"`
	Format   string `json:"format"`
	Function string `json:"function"`
	Source   string `json:"source"`
}

// Tables is every table of one SGLang tree.
type Tables struct {
	Meta       Meta        `json:"meta"`
	EnvWrites  []EnvWrite  `json:"env_writes"`
	EnvReads   []EnvRead   `json:"env_reads"`
	ServerArgs []ServerArg `json:"server_args"`
	Metrics    []Metric    `json:"metrics"`
	Endpoints  []Endpoint  `json:"endpoints"`
	LogFormats []LogFormat `json:"log_formats"`
}

// Files names the file of each table in a version's directory.
var Files = []string{"meta.json", "env_writes.json", "env_reads.json", "server_args.json", "metrics.json", "endpoints.json", "log_formats.json"}
