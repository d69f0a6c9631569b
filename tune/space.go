package tune

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// Strategies of a search.
const (
	StrategyGrid     = "grid"
	StrategyRandom   = "random"
	StrategyAdaptive = "adaptive"
	StrategyHalving  = "halving"
)

// Strategies lists them, in the order help shows them.
var Strategies = []string{StrategyGrid, StrategyRandom, StrategyAdaptive, StrategyHalving}

// Defaults of a space.
const (
	DefaultKeep = 0.5
	// MaxPoints bounds a grid: a space that expands to more is an input
	// error (use random).
	MaxPoints = 10000
)

// Space is what a tune searches and how.
type Space struct {
	// File is where the space was written (a --space file or a profile).
	File   string  `json:"file,omitempty"`
	Params []Param `json:"parameters"`
	// Objective is what a point is judged by.
	Objective   Objective    `json:"objective"`
	Constraints []Constraint `json:"constraints,omitempty"`
	// Strategy is one of Strategies; empty picks grid, or adaptive when a
	// budget cannot hold the grid with every round.
	Strategy string `json:"strategy,omitempty"`
	// Count and Seed draw a random strategy's points.
	Count int    `json:"count,omitempty"`
	Seed  uint64 `json:"seed,omitempty"`
	// Rounds is how many rounds a point gets in full; 0: the workload's.
	Rounds int `json:"rounds,omitempty"`
	// Budget bounds the wall-clock time of the search; 0: none.
	Budget time.Duration `json:"budget,omitempty"`
	// Keep is the fraction of points halving relaunches at each stage.
	Keep float64 `json:"keep,omitempty"`
}

// Param is one dimension: a --set key (env.NAME or args.flag) and its
// values.
type Param struct {
	Key    string   `json:"key"`
	Values []string `json:"values"`
}

// Objective is a workload's metric to make better.
type Objective struct {
	Workload string `json:"workload"`
	Metric   string `json:"metric"`
	// Direction is 1 to maximize, -1 to minimize.
	Direction int `json:"direction"`
}

// Better reports whether a is better than b by the objective.
func (o Objective) Better(a, b float64) bool {
	if o.Direction < 0 {
		return a < b
	}
	return a > b
}

// DirectionText is "maximize" or "minimize".
func (o Objective) DirectionText() string {
	if o.Direction < 0 {
		return "minimize"
	}
	return "maximize"
}

// Constraint bounds another metric: Metric Op Value.
type Constraint struct {
	Metric string  `json:"metric"`
	Op     string  `json:"op"`
	Value  float64 `json:"value"`
}

func (c Constraint) String() string { return fmt.Sprintf("%s %s %g", c.Metric, c.Op, c.Value) }

// Holds reports whether v satisfies the constraint.
func (c Constraint) Holds(v float64) bool {
	switch c.Op {
	case "<=":
		return v <= c.Value
	case "<":
		return v < c.Value
	case ">=":
		return v >= c.Value
	case ">":
		return v > c.Value
	}
	return false
}

// Size is how many points the grid has (the baseline not counted).
func (s *Space) Size() int {
	n := 1
	for _, p := range s.Params {
		n *= len(p.Values)
		if n > MaxPoints {
			return MaxPoints + 1
		}
	}
	return n
}

// Grid lists every combination of the parameters' values as --set
// assignments, the last parameter varying fastest.
func (s *Space) Grid() [][]string {
	out := [][]string{nil}
	for _, p := range s.Params {
		var next [][]string
		for _, prefix := range out {
			for _, v := range p.Values {
				next = append(next, append(append([]string(nil), prefix...), p.Key+"="+v))
			}
		}
		out = next
	}
	return out
}

// Sample draws count distinct points of the grid with seed, in the order
// drawn (the whole grid, shuffled, when it has no more).
func (s *Space) Sample(count int, seed uint64) [][]string {
	g := s.Grid()
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	r.Shuffle(len(g), func(i, j int) { g[i], g[j] = g[j], g[i] })
	if count < len(g) {
		g = g[:count]
	}
	return g
}

// Describe is the space in one line.
func (s *Space) Describe() string {
	var parts []string
	for _, p := range s.Params {
		parts = append(parts, fmt.Sprintf("%s (%d)", p.Key, len(p.Values)))
	}
	return fmt.Sprintf("%d points: %s; objective %s %s of %s", s.Size(), strings.Join(parts, " x "), s.Objective.DirectionText(), s.Objective.Metric, s.Objective.Workload)
}
