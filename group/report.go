package group

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/sglaunch/sglaunch/plan"
)

// Report is what a rank tells rank 0 before the load: enough to refuse a
// group whose ranks would not run the same server.
type Report struct {
	Rank        int       `json:"rank"`
	Node        string    `json:"node"`
	Group       string    `json:"group"`
	Fingerprint string    `json:"fingerprint"`
	Plan        plan.View `json:"plan"` // secrets redacted
	// SGLang is the installed SGLang's version ("" when unknown).
	SGLang string `json:"sglang,omitempty"`
	// Model lists the weight files under --model-path; ModelNote says
	// why there is no list (a hub id, an unreadable directory).
	Model     []File `json:"model,omitempty"`
	ModelNote string `json:"model_note,omitempty"`
	// GPUs names each GPU with its memory ("NVIDIA H200 143771 MiB");
	// GPUNote says why there is no list.
	GPUs    []string `json:"gpus,omitempty"`
	GPUNote string   `json:"gpu_note,omitempty"`
}

// File is one weight file: its path under the model directory and size.
type File struct {
	Name string `json:"name"`
	Size int64  `json:"size"`
}

// RankDiff is how one rank differs from rank 0: in each row, A is rank
// 0's value and B this rank's.
type RankDiff struct {
	Rank int        `json:"rank"`
	Node string     `json:"node"`
	Rows []plan.Row `json:"rows"`
}

// Compare lists how w differs from rank 0's report r0, by the one
// equality rule of plan.Diff for the plan (perf-relevant settings only:
// the ranks' own flags, --node-rank above all, are perf-neutral), and
// exactly for the SGLang version, the weight files and the GPUs. Each
// row's Where names w's rank and node.
func Compare(r0, w Report) []plan.Row {
	where := fmt.Sprintf("rank %d on %s", w.Rank, w.Node)
	var out []plan.Row
	add := func(kind, setting, a, b string) {
		out = append(out, rankRow(kind, setting, a, b, where))
	}
	a := plan.SideOfView(r0.Plan, "rank 0")
	b := plan.SideOfView(w.Plan, "rank "+strconv.Itoa(w.Rank))
	for _, r := range plan.PerfRows(plan.Diff(a, b)) {
		r.Where = where
		out = append(out, r)
	}
	if r0.SGLang != w.SGLang && r0.SGLang != "" && w.SGLang != "" {
		add("sglang", "SGLang version", r0.SGLang, w.SGLang)
	}
	out = append(out, compareModel(r0, w, where)...)
	if r0.GPUNote == "" && w.GPUNote == "" && !slices.Equal(r0.GPUs, w.GPUs) {
		add("gpus", "GPUs", gpuSummary(r0.GPUs), gpuSummary(w.GPUs))
	}
	return out
}

// rankRow is a perf-relevant row of a fact beside the plan; "(absent)"
// marks the side that lacks it.
func rankRow(kind, setting, a, b, where string) plan.Row {
	status := plan.Different
	switch {
	case b == "(absent)":
		status, b = plan.Missing, ""
	case a == "(absent)":
		status, a = plan.Extra, ""
	}
	return plan.Row{Group: plan.Perf, Kind: kind, Setting: setting, A: a, B: b, Where: where}.WithStatus(status)
}

func cell(v string, present bool) string {
	switch {
	case !present:
		return "(absent)"
	case v == "":
		return "(set)"
	}
	return v
}

// compareModel compares the weight files when both ranks listed them.
func compareModel(r0, w Report, where string) []plan.Row {
	if r0.ModelNote != "" || w.ModelNote != "" {
		return nil
	}
	sizes := map[string]int64{}
	for _, f := range w.Model {
		sizes[f.Name] = f.Size
	}
	var out []plan.Row
	row := func(setting, a, b string) {
		out = append(out, rankRow("model", setting, a, b, where))
	}
	seen := map[string]bool{}
	for _, f := range r0.Model {
		seen[f.Name] = true
		switch s, ok := sizes[f.Name]; {
		case !ok:
			row(f.Name, bytes(f.Size), "(absent)")
		case s != f.Size:
			row(f.Name, bytes(f.Size), bytes(s))
		}
	}
	for _, f := range w.Model {
		if !seen[f.Name] {
			row(f.Name, "(absent)", bytes(f.Size))
		}
	}
	const most = 20
	if len(out) > most {
		n := len(out) - most
		out = append(out[:most], plan.Row{Group: plan.Perf, Kind: "model", Setting: fmt.Sprintf("(%d more weight files differ)", n), Where: where}.WithStatus(plan.Different))
	}
	return out
}

func bytes(n int64) string { return strconv.FormatInt(n, 10) + " B" }

func gpuSummary(g []string) string {
	if len(g) == 0 {
		return "(none)"
	}
	counts := map[string]int{}
	var order []string
	for _, x := range g {
		if counts[x] == 0 {
			order = append(order, x)
		}
		counts[x]++
	}
	var parts []string
	for _, x := range order {
		parts = append(parts, fmt.Sprintf("%d x %s", counts[x], x))
	}
	return strings.Join(parts, ", ")
}

// WriteMismatches writes the ranks' rows as a table, as verify's are.
func WriteMismatches(w io.Writer, ranks []RankDiff) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "RANK\tNODE\tKIND\tSETTING\tRANK 0\tTHIS RANK")
	for _, d := range ranks {
		for _, r := range d.Rows {
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\n", d.Rank, d.Node, r.Kind, r.Setting, cell(r.A, r.InA), cell(r.B, r.InB))
		}
	}
	return tw.Flush()
}

// MismatchError is a group refused before the load.
type MismatchError struct {
	Ranks []RankDiff
}

func (e *MismatchError) Error() string {
	var ranks []string
	n := 0
	for _, d := range e.Ranks {
		ranks = append(ranks, fmt.Sprintf("rank %d on %s", d.Rank, d.Node))
		n += len(d.Rows)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "the group does not run one plan: %s differ from rank 0 in %d setting(s); nothing was loaded. Give every rank the same profile, interpreter, SGLang and model files:\n",
		strings.Join(ranks, ", "), n)
	WriteMismatches(&b, e.Ranks)
	return strings.TrimRight(b.String(), "\n")
}
