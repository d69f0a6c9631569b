package tune

import (
	"errors"
	"fmt"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/goccy/go-yaml/ast"

	"github.com/sglaunch/sglaunch/bench"
	"github.com/sglaunch/sglaunch/internal/inputerr"
	"github.com/sglaunch/sglaunch/internal/inputfile"
	"github.com/sglaunch/sglaunch/internal/yamlnode"
)

var (
	spaceKeys     = []string{"parameters", "objective", "constraints", "strategy", "count", "seed", "rounds", "budget", "keep"}
	objectiveKeys = []string{"workload", "metric", "direction"}
	rangeKeys     = []string{"range", "step", "pow2"}
	reParamKey    = regexp.MustCompile(`^(env\.[A-Za-z_][A-Za-z0-9_]*|args\.[a-z0-9][a-z0-9-]*)$`)
	reConstraint  = regexp.MustCompile(`^\s*([a-z0-9_]+)\s*(<=|>=|<|>)\s*([-+0-9.eE]+)\s*$`)
)

// LoadSpace reads a --space file.
func LoadSpace(path string) (*Space, error) {
	data, err := inputfile.Read(path, yamlnode.MaxFileSize)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, inputerr.Errorf("space file %s: no such file", path)
		}
		if inputerr.Is(err) {
			return nil, err
		}
		return nil, inputerr.Errorf("read space file %s: %w", path, err)
	}
	return ParseSpace(path, data)
}

// ParseSpace reads the text of a space file named file. Every error
// names file:line:col and the key at fault, and is an input error.
func ParseSpace(file string, data []byte) (*Space, error) {
	body, err := yamlnode.Document(file, data, "a space file", "empty space file; want parameters: and objective:")
	if err != nil {
		return nil, err
	}
	d := &spaceDecoder{yamlnode.Decoder{File: file, AliasHint: "write the value out"}}
	return d.space(body, "")
}

// DecodeSpace reads a profile's tune: section, the node n written in file.
func DecodeSpace(file string, n ast.Node) (*Space, error) {
	d := &spaceDecoder{yamlnode.Decoder{File: file, AliasHint: "write the value out"}}
	return d.space(n, "tune")
}

type spaceDecoder struct{ yamlnode.Decoder }

func (d *spaceDecoder) space(n ast.Node, path string) (*Space, error) {
	ms, err := d.Mapping(n, path, spaceKeys)
	if err != nil {
		return nil, err
	}
	s := &Space{File: d.File, Keep: DefaultKeep}
	var have []string
	for _, m := range ms {
		key := yamlnode.Join(path, m.Key)
		have = append(have, m.Key)
		switch m.Key {
		case "parameters":
			err = d.params(m.Value, key, s)
		case "objective":
			err = d.objective(m.Value, key, &s.Objective)
		case "constraints":
			err = d.constraints(m.Value, key, s)
		case "strategy":
			s.Strategy, err = d.text(m.Value, key)
			if err == nil && !slices.Contains(Strategies, s.Strategy) {
				err = yamlnode.Errorf(d.Pos(m.Value), key, "want one of %s, got %q", strings.Join(Strategies, ", "), s.Strategy)
			}
		case "count":
			s.Count, err = d.positive(m.Value, key)
		case "seed":
			var v int
			v, err = d.integer(m.Value, key)
			s.Seed = uint64(v)
		case "rounds":
			s.Rounds, err = d.positive(m.Value, key)
		case "budget":
			var t string
			if t, err = d.text(m.Value, key); err == nil {
				s.Budget, err = time.ParseDuration(t)
				if err != nil || s.Budget <= 0 {
					err = yamlnode.Errorf(d.Pos(m.Value), key, "want a duration like 90m or 2h, got %q", t)
				}
			}
		case "keep":
			var t string
			if t, err = d.text(m.Value, key); err == nil {
				s.Keep, err = strconv.ParseFloat(t, 64)
				if err != nil || s.Keep <= 0 || s.Keep >= 1 {
					err = yamlnode.Errorf(d.Pos(m.Value), key, "want a fraction between 0 and 1 (the share of points halving keeps), got %q", t)
				}
			}
		}
		if err != nil {
			return nil, err
		}
	}
	for _, k := range []string{"parameters", "objective"} {
		if !slices.Contains(have, k) {
			return nil, yamlnode.Errorf(d.Pos(n), yamlnode.Join(path, k), "missing; a space needs parameters: and objective:")
		}
	}
	if s.Strategy == StrategyRandom && s.Count == 0 {
		return nil, yamlnode.Errorf(d.Pos(n), yamlnode.Join(path, "count"), "strategy random needs count: (how many points to draw)")
	}
	if s.Size() > MaxPoints && s.Strategy != StrategyRandom {
		return nil, yamlnode.Errorf(d.Pos(n), yamlnode.Join(path, "parameters"), "the grid has more than %d points; narrow it or use strategy: random with a count", MaxPoints)
	}
	return s, nil
}

func (d *spaceDecoder) params(n ast.Node, path string, s *Space) error {
	ms, err := d.Mapping(n, path, nil)
	if err != nil {
		return err
	}
	if len(ms) == 0 {
		return yamlnode.Errorf(d.Pos(n), path, "no parameters; want KEY: [values] lines (env.NCCL_PROTO: [LL, LL128])")
	}
	for _, m := range ms {
		key := yamlnode.Join(path, m.Key)
		if !reParamKey.MatchString(m.Key) {
			return yamlnode.Errorf(m.Pos, key, "want a managed variable (env.NAME) or an SGLang flag (args.flag-name)")
		}
		vals, err := d.values(m.Value, key)
		if err != nil {
			return err
		}
		s.Params = append(s.Params, Param{Key: m.Key, Values: vals})
	}
	return nil
}

// values reads a list of values, or a range: {range: [A, B], step: S} or
// {pow2: [A, B]} (the powers of two from A to B).
func (d *spaceDecoder) values(n ast.Node, path string) ([]string, error) {
	n, err := d.Unwrap(n, path)
	if err != nil {
		return nil, err
	}
	if seq, ok := n.(*ast.SequenceNode); ok {
		var out []string
		for i, item := range seq.Values {
			t, err := d.text(item, fmt.Sprintf("%s[%d]", path, i))
			if err != nil {
				return nil, err
			}
			if slices.Contains(out, t) {
				return nil, yamlnode.Errorf(d.Pos(item), fmt.Sprintf("%s[%d]", path, i), "value %q is listed twice", t)
			}
			out = append(out, t)
		}
		if len(out) == 0 {
			return nil, yamlnode.Errorf(d.Pos(n), path, "an empty list; give at least one value")
		}
		return out, nil
	}
	ms, err := d.Mapping(n, path, rangeKeys)
	if err != nil {
		return nil, yamlnode.Errorf(d.Pos(n), path, "want a list of values, {range: [FROM, TO], step: N} or {pow2: [FROM, TO]}")
	}
	var lo, hi, step int
	var pow2, ranged bool
	var at yamlnode.Pos
	for _, m := range ms {
		key := yamlnode.Join(path, m.Key)
		switch m.Key {
		case "range", "pow2":
			if ranged {
				return nil, yamlnode.Errorf(m.Pos, key, "give range or pow2, not both")
			}
			ranged, pow2, at = true, m.Key == "pow2", m.Pos
			if lo, hi, err = d.pair(m.Value, key); err != nil {
				return nil, err
			}
		case "step":
			if step, err = d.positive(m.Value, key); err != nil {
				return nil, err
			}
		}
	}
	if !ranged {
		return nil, yamlnode.Errorf(d.Pos(n), path, "want range: [FROM, TO] or pow2: [FROM, TO]")
	}
	if pow2 && step != 0 {
		return nil, yamlnode.Errorf(at, path, "pow2 takes no step")
	}
	var out []string
	switch {
	case pow2:
		if lo <= 0 || lo&(lo-1) != 0 || hi&(hi-1) != 0 {
			return nil, yamlnode.Errorf(at, yamlnode.Join(path, "pow2"), "want two powers of two, got %d and %d", lo, hi)
		}
		for v := lo; v <= hi; v *= 2 {
			out = append(out, strconv.Itoa(v))
		}
	default:
		step = max(step, 1)
		if (hi-lo)/step+1 > MaxPoints {
			return nil, yamlnode.Errorf(at, path, "more than %d values", MaxPoints)
		}
		for v := lo; v <= hi; v += step {
			out = append(out, strconv.Itoa(v))
		}
	}
	return out, nil
}

func (d *spaceDecoder) pair(n ast.Node, path string) (int, int, error) {
	n, err := d.Unwrap(n, path)
	if err != nil {
		return 0, 0, err
	}
	seq, ok := n.(*ast.SequenceNode)
	if !ok || len(seq.Values) != 2 {
		return 0, 0, yamlnode.Errorf(d.Pos(n), path, "want [FROM, TO], two integers")
	}
	lo, err := d.integer(seq.Values[0], path+"[0]")
	if err != nil {
		return 0, 0, err
	}
	hi, err := d.integer(seq.Values[1], path+"[1]")
	if err != nil {
		return 0, 0, err
	}
	if hi < lo {
		return 0, 0, yamlnode.Errorf(d.Pos(n), path, "TO (%d) is below FROM (%d)", hi, lo)
	}
	return lo, hi, nil
}

func (d *spaceDecoder) objective(n ast.Node, path string, o *Objective) error {
	ms, err := d.Mapping(n, path, objectiveKeys)
	if err != nil {
		return err
	}
	dirPos := d.Pos(n)
	dir := ""
	for _, m := range ms {
		key := yamlnode.Join(path, m.Key)
		var t string
		if t, err = d.text(m.Value, key); err != nil {
			return err
		}
		switch m.Key {
		case "workload":
			o.Workload = t
		case "metric":
			if !slices.Contains(bench.LevelMetricNames(), t) {
				return yamlnode.Errorf(d.Pos(m.Value), key, "unknown metric %q; metrics: %s", t, strings.Join(bench.LevelMetricNames(), ", "))
			}
			o.Metric = t
			dirPos = d.Pos(m.Value)
		case "direction":
			if t != "maximize" && t != "minimize" {
				return yamlnode.Errorf(d.Pos(m.Value), key, "want maximize or minimize, got %q", t)
			}
			dir = t
		}
	}
	if o.Workload == "" || o.Metric == "" {
		return yamlnode.Errorf(d.Pos(n), path, "want workload: and metric:")
	}
	switch dir {
	case "maximize":
		o.Direction = 1
	case "minimize":
		o.Direction = -1
	default:
		o.Direction = bench.BetterDirection(o.Metric)
		if o.Direction == 0 {
			return yamlnode.Errorf(dirPos, yamlnode.Join(path, "direction"), "metric %s has no better direction; say maximize or minimize", o.Metric)
		}
	}
	return nil
}

func (d *spaceDecoder) constraints(n ast.Node, path string, s *Space) error {
	n, err := d.Unwrap(n, path)
	if err != nil {
		return err
	}
	seq, ok := n.(*ast.SequenceNode)
	if !ok {
		return yamlnode.Errorf(d.Pos(n), path, "want a list like [\"p99_ttft_ms <= 500\"]")
	}
	for i, item := range seq.Values {
		key := fmt.Sprintf("%s[%d]", path, i)
		t, err := d.text(item, key)
		if err != nil {
			return err
		}
		m := reConstraint.FindStringSubmatch(t)
		if m == nil {
			return yamlnode.Errorf(d.Pos(item), key, "want METRIC OP NUMBER (p99_ttft_ms <= 500), got %q", t)
		}
		if !slices.Contains(bench.LevelMetricNames(), m[1]) {
			return yamlnode.Errorf(d.Pos(item), key, "unknown metric %q", m[1])
		}
		v, err := strconv.ParseFloat(m[3], 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return yamlnode.Errorf(d.Pos(item), key, "want a number after %s, got %q", m[2], m[3])
		}
		s.Constraints = append(s.Constraints, Constraint{Metric: m[1], Op: m[2], Value: v})
	}
	return nil
}

func (d *spaceDecoder) text(n ast.Node, path string) (string, error) {
	v, err := d.Scalar(n, path)
	if err != nil {
		return "", err
	}
	return yamlnode.Text(v), nil
}

func (d *spaceDecoder) integer(n ast.Node, path string) (int, error) {
	t, err := d.text(n, path)
	if err != nil {
		return 0, err
	}
	v, err := strconv.Atoi(t)
	if err != nil {
		return 0, yamlnode.Errorf(d.Pos(n), path, "want an integer, got %q", t)
	}
	return v, nil
}

func (d *spaceDecoder) positive(n ast.Node, path string) (int, error) {
	v, err := d.integer(n, path)
	if err == nil && v < 1 {
		err = yamlnode.Errorf(d.Pos(n), path, "want a positive integer, got %d", v)
	}
	return v, err
}
