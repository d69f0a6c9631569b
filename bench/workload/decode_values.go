package workload

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/goccy/go-yaml/ast"

	"github.com/sglaunch/sglaunch/internal/yamlnode"
)

func (d *decoder) str(m yamlnode.Entry, key string) (string, error) {
	n, err := d.Scalar(m.Value, key)
	if err != nil {
		if m.Value == nil || isNull(m.Value) {
			return "", yamlnode.Errorf(m.Pos, key, "want a value")
		}
		return "", err
	}
	return yamlnode.Text(n), nil
}

func isNull(n ast.Node) bool {
	_, ok := n.(*ast.NullNode)
	return ok
}

// integer reads a whole number from least to most.
func (d *decoder) integer(n ast.Node, key string, least, most int) (int, error) {
	s, err := d.Scalar(n, key)
	if err != nil {
		return 0, err
	}
	text := s.GetToken().Value
	v, err := strconv.Atoi(text)
	_, isInt := s.(*ast.IntegerNode)
	switch {
	case errors.Is(err, strconv.ErrRange) && strings.Trim(text, "0123456789") == "":
		return 0, yamlnode.Errorf(d.Pos(s), key, "want at most %d, got %s", most, text)
	case !isInt || err != nil:
		return 0, yamlnode.Errorf(d.Pos(s), key, "want a whole number, got %q", text)
	case v < least:
		what := "at least 1"
		if least == 0 {
			what = "0 or more"
		}
		return 0, yamlnode.Errorf(d.Pos(s), key, "want %s, got %d", what, v)
	case v > most:
		return 0, yamlnode.Errorf(d.Pos(s), key, "want at most %d, got %d", most, v)
	}
	return v, nil
}

// integers reads one concurrency level or a list of them.
func (d *decoder) integers(n ast.Node, key string) ([]int, error) {
	n, err := d.Unwrap(n, key)
	if err != nil {
		return nil, err
	}
	seq, ok := n.(*ast.SequenceNode)
	if !ok {
		v, err := d.integer(n, key, 1, MaxConcurrency)
		return []int{v}, err
	}
	if len(seq.Values) == 0 {
		return nil, yamlnode.Errorf(d.Pos(n), key, "empty list; give at least one level, like [1, 8, 32]")
	}
	if len(seq.Values) > MaxLevels {
		return nil, yamlnode.Errorf(d.Pos(seq.Values[MaxLevels]), key, "more than %d levels", MaxLevels)
	}
	var out []int
	for i, item := range seq.Values {
		v, err := d.integer(item, fmt.Sprintf("%s[%d]", key, i), 1, MaxConcurrency)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// rates reads one request rate or a list of them, in requests/s.
func (d *decoder) rates(n ast.Node, key string) ([]float64, error) {
	n, err := d.Unwrap(n, key)
	if err != nil {
		return nil, err
	}
	items := []ast.Node{n}
	if seq, ok := n.(*ast.SequenceNode); ok {
		if len(seq.Values) == 0 {
			return nil, yamlnode.Errorf(d.Pos(n), key, "empty list; give at least one rate in requests/s, like [1, 2, 4]")
		}
		items = seq.Values
		if len(items) > MaxLevels {
			return nil, yamlnode.Errorf(d.Pos(items[MaxLevels]), key, "more than %d levels", MaxLevels)
		}
	}
	var out []float64
	for i, item := range items {
		k := key
		if len(items) > 1 || item != n {
			k = fmt.Sprintf("%s[%d]", key, i)
		}
		v, s, err := d.number(item, k, func(v float64) bool { return v > 0 && !math.IsInf(v, 0) && !math.IsNaN(v) }, "a request rate above 0 in requests/s, like 2 or 0.5")
		if err != nil {
			return nil, err
		}
		if v > MaxRequestRate {
			return nil, yamlnode.Errorf(d.Pos(s), k, "want at most %d requests/s, got %s", MaxRequestRate, s.GetToken().Value)
		}
		out = append(out, v)
	}
	return out, nil
}

func (d *decoder) duration(n ast.Node, key string, zeroOK bool, most time.Duration) (time.Duration, error) {
	s, err := d.Scalar(n, key)
	if err != nil {
		return 0, err
	}
	text := s.GetToken().Value
	v, err := time.ParseDuration(text)
	if err != nil || v < 0 || (v == 0 && !zeroOK) {
		return 0, yamlnode.Errorf(d.Pos(s), key, "want a duration above 0 like 30s, 5m or 1h30m, got %q", text)
	}
	if v > most {
		return 0, yamlnode.Errorf(d.Pos(s), key, "want at most %v, got %s", most, text)
	}
	return v, nil
}

// command reads a command template: one string (a shell command line) or
// a list of arguments.
func (d *decoder) command(n ast.Node, key string) ([]string, bool, error) {
	n, err := d.Unwrap(n, key)
	if err != nil {
		return nil, false, err
	}
	if seq, ok := n.(*ast.SequenceNode); ok {
		if len(seq.Values) == 0 {
			return nil, false, yamlnode.Errorf(d.Pos(n), key, "empty command; give a command line or a list of arguments")
		}
		var out []string
		for i, item := range seq.Values {
			s, err := d.str(yamlnode.Entry{Value: item, Pos: d.Pos(item)}, fmt.Sprintf("%s[%d]", key, i))
			if err != nil {
				return nil, false, err
			}
			out = append(out, s)
		}
		return out, false, nil
	}
	s, err := d.str(yamlnode.Entry{Value: n, Pos: d.Pos(n)}, key)
	if err != nil {
		return nil, false, err
	}
	if strings.TrimSpace(s) == "" {
		return nil, false, yamlnode.Errorf(d.Pos(n), key, "empty command; give a command line or a list of arguments")
	}
	return []string{s}, true, nil
}

// number reads a YAML number, an integer or a float, that ok accepts
// (with its node, for a later message); want says what is wanted when
// it is not.
func (d *decoder) number(n ast.Node, key string, ok func(float64) bool, want string) (float64, ast.Node, error) {
	s, err := d.Scalar(n, key)
	if err != nil {
		return 0, nil, err
	}
	text := s.GetToken().Value
	v, perr := strconv.ParseFloat(text, 64)
	_, isInt := s.(*ast.IntegerNode)
	_, isFloat := s.(*ast.FloatNode)
	if (!isInt && !isFloat) || perr != nil || !ok(v) {
		return 0, nil, yamlnode.Errorf(d.Pos(s), key, "want %s, got %q", want, text)
	}
	return v, s, nil
}
