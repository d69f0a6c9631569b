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
type EnvRead struct {
	Name    string `json:"name"`
	How     string `json:"how"`
	Type    string `json:"type,omitempty"`
	Default string `json:"default,omitempty"`
	Source  string `json:"source"`
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
	Source     string   `json:"source"`
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
type LogFormat struct {
	Marker   string `json:"marker"`
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
