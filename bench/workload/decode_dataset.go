package workload

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/goccy/go-yaml/ast"

	"github.com/sglaunch/sglaunch/internal/yamlnode"
	"github.com/sglaunch/sglaunch/loadgen"
)

// Bounds on a generated-shared-prefix dataset's sizes.
const (
	maxGroups    = 4096
	maxPromptLen = 1 << 20 // tokens
)

// dataset decodes the dataset: map of the workload at path. has holds
// the workload's other keys: input_len means nothing to a dataset with its
// own prompts, and output_len fixes the output of one that has its own.
func (d *decoder) dataset(m yamlnode.Entry, path string, has map[string]yamlnode.Entry) (*Dataset, error) {
	key := yamlnode.Join(path, "dataset")
	ms, err := d.Mapping(m.Value, key, nil)
	if err != nil {
		return nil, err
	}
	var name yamlnode.Entry
	for _, e := range ms {
		if e.Key == "name" {
			name = e
		}
	}
	if name.Value == nil {
		return nil, yamlnode.Errorf(m.Pos, key, "a dataset needs a name: one of %s", datasetHint())
	}
	ds := &Dataset{}
	if ds.Name, err = d.str(name, yamlnode.Join(key, "name")); err != nil {
		return nil, err
	}
	known, ok := datasetKeys[ds.Name]
	if !ok {
		return nil, yamlnode.Errorf(d.Pos(name.Value), yamlnode.Join(key, "name"), "unknown dataset %q; want one of %s", ds.Name, datasetHint())
	}
	for _, e := range ms {
		if slices.Contains(known, e.Key) {
			continue
		}
		var owners []string
		for _, n := range DatasetNames {
			if slices.Contains(datasetKeys[n], e.Key) {
				owners = append(owners, n)
			}
		}
		if len(owners) > 0 {
			return nil, yamlnode.Errorf(e.Pos, yamlnode.Join(key, e.Key), "a %s dataset takes only %s; %s is for %s", ds.Name, strings.Join(known, ", "), e.Key, joinAnd(owners))
		}
	}
	if _, err := d.Mapping(m.Value, key, known); err != nil {
		return nil, err
	}
	if in, ok := has["input_len"]; ok && ds.Name != DatasetRandom {
		return nil, yamlnode.Errorf(in.Pos, yamlnode.Join(path, "input_len"), "a %s dataset brings its own prompts; input_len is for random prompts", ds.Name)
	}
	for _, e := range ms {
		k := yamlnode.Join(key, e.Key)
		switch e.Key {
		case "path":
			var p string
			if p, err = d.str(e, k); err == nil {
				ds.Path, err = d.datasetPath(e, k, p)
			}
		case "range_ratio":
			var r float64
			r, err = d.fraction(e.Value, k)
			ds.RangeRatio = &r
		case "num_groups":
			ds.NumGroups, err = d.bounded(e.Value, k, maxGroups)
		case "prompts_per_group":
			ds.PromptsPerGroup, err = d.bounded(e.Value, k, maxPrompts)
		case "system_prompt_len":
			ds.SystemPromptLen, err = d.bounded(e.Value, k, maxPromptLen)
		case "question_len":
			ds.QuestionLen, err = d.bounded(e.Value, k, maxPromptLen)
		}
		if err != nil {
			return nil, err
		}
	}
	var need []string
	switch ds.Name {
	case DatasetRandom:
		if ds.RangeRatio == nil {
			r := DefaultRandomRangeRatio
			ds.RangeRatio = &r
		}
	case DatasetShareGPT, DatasetJSONL:
		if ds.Path == "" {
			need = []string{"path"}
		}
	case DatasetGSP:
		if ds.RangeRatio == nil {
			r := DefaultGSPRangeRatio
			ds.RangeRatio = &r
		}
		for _, k := range []string{"num_groups", "prompts_per_group", "system_prompt_len", "question_len"} {
			if !slices.ContainsFunc(ms, func(e yamlnode.Entry) bool { return e.Key == k }) {
				need = append(need, k)
			}
		}
		if len(need) == 0 && ds.NumGroups*ds.PromptsPerGroup > maxPrompts {
			return nil, yamlnode.Errorf(m.Pos, key, "num_groups x prompts_per_group is %d prompts; the most is %d", ds.NumGroups*ds.PromptsPerGroup, maxPrompts)
		}
		if len(need) == 0 && gspBytes(ds) > maxDatasetBytes {
			return nil, yamlnode.Errorf(m.Pos, key, "the prompts would hold about %d MiB of text; the most is %d MiB", gspBytes(ds)>>20, maxDatasetBytes>>20)
		}
	}
	if len(need) > 0 {
		return nil, yamlnode.Errorf(m.Pos, key, "a %s dataset needs %s", ds.Name, joinAnd(need))
	}
	if out, ok := has["output_len"]; ok && (ds.Name == DatasetShareGPT || ds.Name == DatasetJSONL) {
		ds.OutputLen, _ = d.integer(out.Value, yamlnode.Join(path, "output_len"), 1, MaxTokensPerRequest)
	}
	return ds, nil
}

// datasetPath resolves a dataset file against the workload file's
// directory and checks that it is there.
func (d *decoder) datasetPath(e yamlnode.Entry, key, p string) (string, error) {
	if p == "" {
		return "", yamlnode.Errorf(d.Pos(e.Value), key, "want the dataset file's path")
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(filepath.Dir(d.File), p)
	}
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	fi, err := os.Stat(p)
	switch {
	case err != nil:
		return "", yamlnode.Errorf(d.Pos(e.Value), key, "dataset file %s: %v", p, errText(err))
	case fi.IsDir():
		return "", yamlnode.Errorf(d.Pos(e.Value), key, "dataset file %s is a directory", p)
	}
	return p, nil
}

func errText(err error) string {
	if os.IsNotExist(err) {
		return "no such file"
	}
	return err.Error()
}

// fraction reads a number from 0 to 1.
func (d *decoder) fraction(n ast.Node, key string) (float64, error) {
	v, _, err := d.number(n, key, func(v float64) bool { return v >= 0 && v <= 1 }, "a ratio from 0 to 1 (the shortest length drawn is L x ratio)")
	return v, err
}

// bounded reads a whole number from 1 to most.
func (d *decoder) bounded(n ast.Node, key string, most int) (int, error) {
	return d.integer(n, key, 1, most)
}

// slo decodes slo: {ttft_ms, tpot_ms, e2e_latency_ms}, at least one.
func (d *decoder) slo(m yamlnode.Entry, key string) (*loadgen.SLO, error) {
	ms, err := d.Mapping(m.Value, key, []string{"ttft_ms", "tpot_ms", "e2e_latency_ms"})
	if err != nil {
		return nil, err
	}
	if len(ms) == 0 {
		return nil, yamlnode.Errorf(m.Pos, key, "give at least one of ttft_ms, tpot_ms, e2e_latency_ms")
	}
	o := &loadgen.SLO{}
	for _, e := range ms {
		k := yamlnode.Join(key, e.Key)
		v, _, err := d.number(e.Value, k, func(v float64) bool { return v > 0 && !math.IsInf(v, 0) }, "a bound in milliseconds above 0, like 200 or 12.5")
		if err != nil {
			return nil, err
		}
		switch e.Key {
		case "ttft_ms":
			o.TTFTms = v
		case "tpot_ms":
			o.TPOTms = v
		case "e2e_latency_ms":
			o.E2Ems = v
		}
	}
	return o, nil
}

// boolean reads true or false.
func (d *decoder) boolean(n ast.Node, key string) (bool, error) {
	s, err := d.Scalar(n, key)
	if err != nil {
		return false, err
	}
	b, ok := s.(*ast.BoolNode)
	if !ok {
		return false, yamlnode.Errorf(d.Pos(s), key, "want true or false, got %q", s.GetToken().Value)
	}
	return b.Value, nil
}

func joinAnd(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	out := ""
	for i, s := range items {
		switch {
		case i == 0:
			out = s
		case i == len(items)-1:
			out += " and " + s
		default:
			out += ", " + s
		}
	}
	return out
}
