package workload

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/sglaunch/sglaunch/loadgen"
)

// Datasets a workload's dataset: map may name, with bench_serving's names
// and semantics (sglang/benchmark/datasets).
const (
	// DatasetRandom: InputLen and OutputLen random tokens, each length
	// uniform in [max(L*range_ratio, 1), L] (compute_random_lens).
	DatasetRandom = "random"
	// DatasetShareGPT: the first two turns of each conversation of a
	// ShareGPT-format JSON file, as prompt and completion.
	DatasetShareGPT = "sharegpt"
	// DatasetGSP: num_groups system prompts of system_prompt_len tokens,
	// each followed by prompts_per_group questions of question_len tokens,
	// shuffled: a workload for the prefix cache.
	DatasetGSP = "generated-shared-prefix"
	// DatasetJSONL: one prompt per line of a file.
	DatasetJSONL = "jsonl"
)

// DatasetNames lists the datasets a workload may name.
var DatasetNames = []string{DatasetRandom, DatasetShareGPT, DatasetGSP, DatasetJSONL}

// Default range ratios, bench_serving's: --random-range-ratio is 0.0
// (lengths uniform from 1 to L), --gsp-range-ratio 1.0 (fixed lengths).
const (
	DefaultRandomRangeRatio = 0.0
	DefaultGSPRangeRatio    = 1.0
)

// Bounds on what a dataset may make a run hold in memory.
const (
	// maxPrompts is the most prompts prepared for one workload; requests
	// beyond it reuse them in order.
	maxPrompts = 1 << 16
	// maxPromptBytes bounds one prompt's text.
	maxPromptBytes = 4 << 20
	// maxDatasetBytes bounds the text a dataset's prompts hold together.
	maxDatasetBytes = 512 << 20
	// maxLineBytes bounds one line of a JSONL file.
	maxLineBytes = 16 << 20
)

// Dataset is where a workload's prompts come from.
type Dataset struct {
	Name string `json:"name"`
	// Path is the file of sharegpt and jsonl, resolved against the
	// workload file's directory.
	Path string `json:"path,omitempty"`
	// RangeRatio scales the lowest length drawn (random,
	// generated-shared-prefix); always set once decoded.
	RangeRatio *float64 `json:"range_ratio,omitempty"`
	// generated-shared-prefix.
	NumGroups       int `json:"num_groups,omitempty"`
	PromptsPerGroup int `json:"prompts_per_group,omitempty"`
	SystemPromptLen int `json:"system_prompt_len,omitempty"`
	QuestionLen     int `json:"question_len,omitempty"`
	// OutputLen, when set, is every prompt's output length (the
	// workload's output_len given with sharegpt or jsonl, as
	// bench_serving's --sharegpt-output-len); else it comes from the data.
	OutputLen int `json:"output_len,omitempty"`

	// Filled when the prompts are prepared: the file's SHA-256, the
	// prompts the file offered, and how many were prepared.
	SHA256  string `json:"sha256,omitempty"`
	Offered int    `json:"offered,omitempty"`
	Prompts int    `json:"prompts,omitempty"`
}

// Summary is the dataset in a few words, for a workload's summary line.
func (d *Dataset) Summary(w Workload) string {
	switch d.Name {
	case DatasetRandom:
		return fmt.Sprintf("random %d in / %d out, range ratio %g", w.InputLen, w.OutputLen, ratio(d.RangeRatio))
	case DatasetGSP:
		return fmt.Sprintf("generated-shared-prefix %d groups x %d, system %d + question %d in / %d out",
			d.NumGroups, d.PromptsPerGroup, d.SystemPromptLen, d.QuestionLen, w.OutputLen)
	}
	out := "output from the data"
	if d.OutputLen > 0 {
		out = fmt.Sprintf("%d out", d.OutputLen)
	}
	return fmt.Sprintf("%s %s, %s", d.Name, d.Path, out)
}

func ratio(r *float64) float64 {
	if r == nil {
		return 0
	}
	return *r
}

// Random streams of a workload's seed, one per use, so that adding one
// never shifts another.
const (
	streamLengths = 0x5eed0001
	streamSample  = 0x5eed0002
	streamText    = 0x5eed0003
	streamShuffle = 0x5eed0004
)

func seeded(seed, stream uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, stream)) }

// approxTokens estimates a text's tokens without a tokenizer: about four
// bytes each, as for English text (and exactly the simulator's count).
// The metrics use the server's own counts; this only sizes requests and
// prunes the too short.
func approxTokens(text string) int { return max(1, (len(text)+3)/4) }

// randomLens draws n lengths uniform in [max(L*ratio, 1), L], as
// bench_serving's compute_random_lens does.
func randomLens(rng *rand.Rand, full int, r float64, n int) []int {
	lo := max(int(float64(full)*r), 1)
	out := make([]int, n)
	for i := range out {
		out[i] = lo + rng.IntN(full-lo+1)
	}
	return out
}

// needed is how many prompts a workload can use: the requests of its
// largest level over all rounds, and the warm-up's; maxPrompts when a
// level is bound by time.
func needed(w Workload) int {
	if w.Duration > 0 {
		return maxPrompts
	}
	n := 0
	for _, l := range w.Levels() {
		n = max(n, w.Load(l, "").Requests*w.RoundCount())
	}
	return min(max(n, w.Warmup, 1), maxPrompts)
}

// Prepare builds the prompts of every workload that has a dataset, so
// that a bad file is an input error before any server starts. Workloads
// already prepared are left as they are.
func Prepare(ws []Workload) error {
	for i := range ws {
		if err := ws[i].Prepare(); err != nil {
			return err
		}
	}
	return nil
}

// Prepare builds the workload's prompts when it has a dataset and they
// are not built yet.
func (w *Workload) Prepare() error {
	if w.Dataset == nil || w.prompts != nil {
		return nil
	}
	d := w.Dataset
	n := needed(*w)
	var err error
	switch d.Name {
	case DatasetRandom:
		w.prompts = randomPrompts(w, n)
	case DatasetGSP:
		w.prompts = gspPrompts(w)
	case DatasetShareGPT, DatasetJSONL:
		w.prompts, err = filePrompts(w, n)
	default:
		err = fmt.Errorf("workload %s: unknown dataset %q", w.Name, d.Name)
	}
	if err != nil {
		return err
	}
	d.Prompts = len(w.prompts)
	return nil
}

func randomPrompts(w *Workload, n int) []loadgen.Prompt {
	rng := seeded(w.Seed, streamLengths)
	r := ratio(w.Dataset.RangeRatio)
	in := randomLens(rng, w.InputLen, r, n)
	out := randomLens(rng, w.OutputLen, r, n)
	ps := make([]loadgen.Prompt, n)
	for i := range ps {
		ps[i] = loadgen.Prompt{InputLen: in[i], OutputLen: out[i]}
	}
	return ps
}

// gspPrompts builds bench_serving's generated-shared-prefix prompts: per
// group one system prompt, then "\n\n" and a question, shuffled.
func gspPrompts(w *Workload) []loadgen.Prompt {
	d := w.Dataset
	r := ratio(d.RangeRatio)
	lens, text := seeded(w.Seed, streamLengths), seeded(w.Seed, streamText)
	sys := randomLens(lens, d.SystemPromptLen, r, d.NumGroups)
	total := d.NumGroups * d.PromptsPerGroup
	qs := randomLens(lens, d.QuestionLen, r, total)
	outs := randomLens(lens, w.OutputLen, r, total)
	ps := make([]loadgen.Prompt, 0, total)
	for g := range d.NumGroups {
		system := loadgen.RandomText(text, sys[g])
		for p := range d.PromptsPerGroup {
			i := g*d.PromptsPerGroup + p
			t := system + "\n\n" + loadgen.RandomText(text, qs[i])
			ps = append(ps, loadgen.Prompt{Text: t, InputLen: approxTokens(t), OutputLen: outs[i]})
		}
	}
	shuffle(seeded(w.Seed, streamShuffle), ps)
	return ps
}

func shuffle(rng *rand.Rand, ps []loadgen.Prompt) {
	rng.Shuffle(len(ps), func(i, j int) { ps[i], ps[j] = ps[j], ps[i] })
}

// gspBytes is about how much text a generated-shared-prefix dataset holds.
func gspBytes(d *Dataset) int64 {
	return int64(d.NumGroups) * int64(d.PromptsPerGroup) * (int64(d.SystemPromptLen) + int64(d.QuestionLen)) * 4
}

// datasetKeys are the keys a dataset: map may hold, by dataset.
var datasetKeys = map[string][]string{
	DatasetRandom:   {"name", "range_ratio"},
	DatasetShareGPT: {"name", "path"},
	DatasetGSP:      {"name", "num_groups", "prompts_per_group", "system_prompt_len", "question_len", "range_ratio"},
	DatasetJSONL:    {"name", "path"},
}

func datasetHint() string { return strings.Join(DatasetNames, ", ") }
