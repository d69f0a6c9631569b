package workload

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/sglaunch/sglaunch/loadgen"
)

// Duration is a time.Duration written as text ("30s") in files.
type Duration time.Duration

// MarshalJSON writes the duration as text.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// UnmarshalJSON reads the text MarshalJSON writes.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, err := time.ParseDuration(s)
	*d = Duration(v)
	return err
}

// Workload is one benchmark: a load for the built-in generator, or an
// external command (Command set).
type Workload struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Source says where the workload was defined: "built-in" or file:line:col.
	Source string `json:"source"`

	API       loadgen.API `json:"api,omitempty"`
	InputLen  int         `json:"input_len,omitempty"`
	OutputLen int         `json:"output_len,omitempty"`
	// Concurrency lists the closed-loop levels, one stream count each.
	Concurrency []int `json:"concurrency,omitempty"`
	// RequestRate lists open-loop levels in requests/s (Poisson arrivals);
	// MaxConcurrency caps the requests in flight (0: no cap).
	RequestRate    []float64 `json:"request_rate,omitempty"`
	MaxConcurrency int       `json:"max_concurrency,omitempty"`
	// Per round of a level: Requests measured requests, or requests
	// started for Duration, or (neither, closed loop) one wave of
	// Concurrency requests. Rounds is how many times each level runs,
	// each round kept on its own (1 when 0).
	Requests       int      `json:"requests,omitempty"`
	Rounds         int      `json:"rounds,omitempty"`
	Duration       Duration `json:"duration,omitempty"`
	Warmup         int      `json:"warmup"`
	Seed           uint64   `json:"seed"`
	RequestTimeout Duration `json:"request_timeout,omitempty"`
	// Dataset, when set, is where the prompts come from; without it each
	// request has InputLen random tokens and OutputLen.
	Dataset *Dataset `json:"dataset,omitempty"`
	// SLO adds request_goodput: the rate of requests that met it.
	SLO *loadgen.SLO `json:"slo,omitempty"`
	// FlushCache false skips the POST /flush_cache before each round
	// (nil: flush).
	FlushCache *bool `json:"flush_cache,omitempty"`
	// prompts are the dataset's prepared prompts (Prepare).
	prompts []loadgen.Prompt

	// Command is an external workload: a text/template per argument, or
	// one shell command line (Shell) run with sh -c.
	Command []string `json:"command,omitempty"`
	Shell   bool     `json:"shell,omitempty"`
	// Timeout bounds the command; zero means none.
	Timeout Duration `json:"timeout,omitempty"`
}

// External reports whether the workload runs a command.
func (w Workload) External() bool { return len(w.Command) > 0 }

// Defaults for a load workload's unset keys.
const (
	DefaultInputLen       = 1024
	DefaultOutputLen      = 512
	DefaultWarmup         = 1
	DefaultSeed           = 1
	DefaultRounds         = 4
	DefaultRequestTimeout = 10 * time.Minute
)

// Ceilings of a load workload, so that a typo'd number is an input error
// rather than an exhausted machine (requests: 200000000 allocated 22 GB,
// input_len: 400000000 ran out of memory).
const (
	MaxRequests         = 1_000_000 // requests, or rounds × concurrency, per level
	MaxConcurrency      = 10_000    // streams (concurrency, max_concurrency)
	MaxLevels           = 256       // concurrency or request_rate levels
	MaxTokensPerRequest = 1 << 20   // input_len, output_len
	// MaxTokensPerLevel bounds streams × input_len (prompts in flight)
	// and requests × output_len (the per-token samples a level keeps).
	MaxTokensPerLevel = 1 << 28
	MaxRequestRate    = 100_000 // requests/s
	MaxWarmup         = 10_000
	MaxDuration       = 24 * time.Hour     // duration, request_timeout
	MaxCommandTimeout = 7 * 24 * time.Hour // a command workload's timeout
)

// Builtins are the workloads every profile has.
func Builtins() []Workload {
	return []Workload{
		{
			Name:        "decode-1",
			Description: "one stream, 1024 tokens in, 512 out, 5 rounds of one request: the single-stream decode rate",
			Source:      "built-in",
			API:         loadgen.Generate, InputLen: 1024, OutputLen: 512,
			Concurrency: []int{1}, Rounds: 5,
			Warmup: DefaultWarmup, Seed: DefaultSeed, RequestTimeout: Duration(DefaultRequestTimeout),
		},
		{
			Name:        "sweep",
			Description: "closed loop at concurrency 1, 8, 32 and 128, 1024 in / 512 out, 4 rounds of one wave per level",
			Source:      "built-in",
			API:         loadgen.Generate, InputLen: 1024, OutputLen: 512,
			Concurrency: []int{1, 8, 32, 128}, Rounds: DefaultRounds,
			Warmup: DefaultWarmup, Seed: DefaultSeed, RequestTimeout: Duration(DefaultRequestTimeout),
		},
	}
}

// Builtin returns the built-in workload of that name.
func Builtin(name string) (Workload, bool) {
	for _, w := range Builtins() {
		if w.Name == name {
			return w, true
		}
	}
	return Workload{}, false
}

// Levels lists the load levels in the order they run.
func (w Workload) Levels() []loadgen.Level {
	var out []loadgen.Level
	if len(w.RequestRate) > 0 {
		for _, r := range w.RequestRate {
			out = append(out, loadgen.Level{Rate: r, Concurrency: w.MaxConcurrency})
		}
		return out
	}
	for _, c := range w.Concurrency {
		out = append(out, loadgen.Level{Concurrency: c})
	}
	return out
}

// RoundCount is how many times each level runs.
func (w Workload) RoundCount() int { return max(w.Rounds, 1) }

// Flush reports whether each round starts with POST /flush_cache.
func (w Workload) Flush() bool { return w.FlushCache == nil || *w.FlushCache }

// Load is the generator's load for one round of a level.
func (w Workload) Load(lvl loadgen.Level, model string) loadgen.Load {
	l := loadgen.Load{
		API: w.API, Model: model, InputLen: w.InputLen, OutputLen: w.OutputLen,
		Requests: w.Requests, Duration: time.Duration(w.Duration),
		Warmup: w.Warmup, Seed: w.Seed, RequestTimeout: time.Duration(w.RequestTimeout),
		Prompts: w.prompts, SLO: w.SLO,
	}
	if l.Requests == 0 && l.Duration == 0 {
		l.Requests = lvl.Concurrency // one wave
	}
	return l
}

// Summary is the workload in one line, for tables and listings.
func (w Workload) Summary() string {
	if w.External() {
		return "command: " + CommandLine(w)
	}
	var levels []string
	for _, l := range w.Levels() {
		levels = append(levels, l.String())
	}
	per := ""
	switch {
	case w.Requests > 0:
		per = plural(w.Requests, "request")
	case w.Duration > 0:
		per = time.Duration(w.Duration).String()
	case w.Rounds > 0:
		per = plural(w.Rounds, "round")
	}
	if w.Rounds > 0 && (w.Requests > 0 || w.Duration > 0) {
		per = plural(w.Rounds, "round") + " of " + per
	}
	shape := fmt.Sprintf("%d in / %d out", w.InputLen, w.OutputLen)
	if w.Dataset != nil {
		shape = w.Dataset.Summary(w)
	}
	return fmt.Sprintf("%s %s, %s, %s per level", w.API, shape, strings.Join(levels, " "), per)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
