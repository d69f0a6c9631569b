package plan

import "sort"

// Statuses of a Row: how side B holds a setting against side A.
const (
	Match     = "MATCH"
	Different = "DIFFERENT"
	Missing   = "MISSING" // A has the setting, B does not
	Extra     = "EXTRA"   // B has the setting, A does not
	// Overridden: SGLang itself replaced A's value in its workers (a
	// documented rewrite): shown, not drift.
	Overridden = "OVERRIDDEN"
	// NotCompared: one side holds only a masked value (a record stores
	// secrets masked), so the setting is neither equal nor different.
	NotCompared = "UNKNOWN"
)

// Row is one setting compared between two sides: sglaunch's one row type
// for "a setting differs" (and, in verify's report, for one that matches
// too). A is the expected side (a plan, a record's plan, diff's first
// operand, rank 0 of a group, bench compare's A), B the other (the
// deployment observed, diff's second operand, a worker rank, B).
type Row struct {
	// Group is Perf, Neutral or Unknown (Diff's masked settings); bench
	// compare adds its context rows (versions, host) in a group of their
	// own.
	Group string `json:"group"`
	// Kind is python, module, sglang version, flag or env for a plan's
	// settings; a group's ranks add model and gpus, bench compare
	// setting and context.
	Kind    string `json:"kind"`
	Setting string `json:"setting"`
	Status  string `json:"status"`
	// A and B are the values (flag values joined by blanks, secrets
	// masked; "" for a switch); InA and InB say whether each side has
	// the setting at all (Missing: not InB; Extra: not InA).
	A   string `json:"a"`
	B   string `json:"b"`
	InA bool   `json:"in_a"`
	InB bool   `json:"in_b"`
	// Where says where B's value was seen ("env of pid 41", "nccl.conf
	// /etc/nccl.conf", "site hook /venv/sitecustomize.py:3", "rank 1 on
	// node-b"), "" where B is a plan; Note says what else to know.
	Where string `json:"where,omitempty"`
	Note  string `json:"note,omitempty"`
}

// WithStatus sets the row's status and, from it, whether each side has
// the setting.
func (r Row) WithStatus(status string) Row {
	r.Status = status
	r.InA, r.InB = status != Extra, status != Missing
	return r
}

// Swapped is the row with its sides exchanged: B against A.
func (r Row) Swapped() Row {
	r.A, r.B, r.InA, r.InB = r.B, r.A, r.InB, r.InA
	switch r.Status {
	case Missing:
		r.Status = Extra
	case Extra:
		r.Status = Missing
	}
	return r
}

// Differs reports whether the row is a difference: not MATCH and not
// OVERRIDDEN (SGLang's own rewrite, not the deployment's).
func (r Row) Differs() bool { return r.Status != Match && r.Status != Overridden }

// Drift reports whether the row decides a verdict: a perf-relevant
// setting that differs and can be compared.
func (r Row) Drift() bool { return r.Group == Perf && r.Differs() && r.Status != NotCompared }

// WhereText is the row's WHERE cell: where it was seen, and its note.
func (r Row) WhereText() string {
	if r.Note != "" {
		if r.Where == "" {
			return "(" + r.Note + ")"
		}
		return r.Where + " (" + r.Note + ")"
	}
	return r.Where
}

// SortByGroup orders rows by group, stably: perf-relevant, perf-neutral,
// then the rest (Unknown, a caller's own).
func SortByGroup(rows []Row) {
	sort.SliceStable(rows, func(i, j int) bool { return groupRank(rows[i].Group) < groupRank(rows[j].Group) })
}

// PerfRows keeps the rows that decide a verdict (Drift).
func PerfRows(rows []Row) []Row {
	var out []Row
	for _, r := range rows {
		if r.Drift() {
			out = append(out, r)
		}
	}
	return out
}
