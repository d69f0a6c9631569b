package workload

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/goccy/go-yaml/ast"

	"github.com/sglaunch/sglaunch/catalog"
	"github.com/sglaunch/sglaunch/internal/inputerr"
	"github.com/sglaunch/sglaunch/internal/inputfile"
	"github.com/sglaunch/sglaunch/internal/yamlnode"
	"github.com/sglaunch/sglaunch/loadgen"
)

var reName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.+-]*$`)

// Keys a workload mapping may hold.
var (
	commonKeys   = []string{"name", "description"}
	loadKeys     = []string{"api", "input_len", "output_len", "concurrency", "request_rate", "max_concurrency", "requests", "rounds", "duration", "warmup", "seed", "request_timeout", "dataset", "slo", "flush_cache"}
	commandKeys  = []string{"command", "timeout"}
	workloadKeys = slices.Concat(commonKeys, loadKeys, commandKeys)
)

// Decode reads a list of workloads from a YAML node written in file; path
// names the node in errors (bench.workloads). An item is a mapping that
// defines a workload or the name of a built-in one.
func Decode(file, path string, n ast.Node) ([]Workload, error) {
	return newDecoder(file).list(n, path)
}

// LoadFile reads a workload file: a list of workloads, a mapping with a
// workloads: list, or one workload mapping (its name defaults to the
// file's base name).
func LoadFile(path string) ([]Workload, error) {
	data, err := inputfile.Read(path, yamlnode.MaxFileSize)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, inputerr.Errorf("workload file %s: no such file; give a workload name (decode-1, sweep, or one from the profile) or a YAML file", path)
		}
		if inputerr.Is(err) {
			return nil, err
		}
		return nil, inputerr.Errorf("read workload file %s: %w", path, err)
	}
	return Parse(path, data)
}

// Parse reads the text of a workload file named file.
func Parse(file string, data []byte) ([]Workload, error) {
	body, err := yamlnode.Document(file, data, "a workload file", "empty workload file; want a workload mapping or a list of them")
	if err != nil {
		return nil, err
	}
	d := newDecoder(file)
	n, err := d.Unwrap(body, "")
	if err != nil {
		return nil, err
	}
	if _, ok := n.(*ast.SequenceNode); ok {
		return d.list(n, "")
	}
	members, err := d.Mapping(n, "", nil)
	if err != nil {
		return nil, err
	}
	if len(members) > 0 && members[0].Key == "workloads" {
		if len(members) > 1 {
			return nil, yamlnode.Errorf(members[1].Pos, members[1].Key, "a file with a workloads: list holds nothing else")
		}
		return d.list(members[0].Value, "workloads")
	}
	base := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	w, err := d.workload(n, "", base)
	if err != nil {
		return nil, err
	}
	return []Workload{w}, nil
}

// decoder reads the nodes of one workload file; a null (a key with no
// value) is an error everywhere.
type decoder struct{ yamlnode.Decoder }

func newDecoder(file string) *decoder {
	return &decoder{yamlnode.Decoder{File: file, AliasHint: "write the value out"}}
}

// mappingPos is where a mapping starts: its first key (goccy places the
// mapping node itself at the first colon).
func (d *decoder) mappingPos(n ast.Node) yamlnode.Pos {
	n, _ = d.Unwrap(n, "")
	switch m := n.(type) {
	case *ast.MappingNode:
		if len(m.Values) > 0 {
			return d.Pos(m.Values[0].Key)
		}
	case *ast.MappingValueNode:
		return d.Pos(m.Key)
	}
	return d.Pos(n)
}

// list decodes a list of workloads.
func (d *decoder) list(n ast.Node, path string) ([]Workload, error) {
	n, err := d.Unwrap(n, path)
	if err != nil {
		return nil, err
	}
	seq, ok := n.(*ast.SequenceNode)
	if !ok {
		return nil, yamlnode.Errorf(d.Pos(n), path, "want a list of workloads (- name: ..., or - decode-1), got %s", yamlnode.Describe(n))
	}
	var out []Workload
	where := map[string]yamlnode.Pos{}
	for i, item := range seq.Values {
		ipath := fmt.Sprintf("%s[%d]", path, i)
		item, err := d.Unwrap(item, ipath)
		if err != nil {
			return nil, err
		}
		var w Workload
		switch item.(type) {
		case *ast.StringNode:
			name := item.GetToken().Value
			b, ok := Builtin(name)
			if !ok {
				return nil, yamlnode.Errorf(d.Pos(item), ipath, "no built-in workload %q; %s", name, builtinHint(name))
			}
			w = b
		default:
			w, err = d.workload(item, ipath, "")
			if err != nil {
				return nil, err
			}
		}
		if p, dup := where[w.Name]; dup {
			return nil, yamlnode.Errorf(d.mappingPos(item), ipath, "workload %q is defined twice (first at %s); names must be unique", w.Name, p)
		}
		where[w.Name] = d.mappingPos(item)
		out = append(out, w)
	}
	return out, nil
}

func builtinHint(name string) string {
	var names []string
	for _, b := range Builtins() {
		names = append(names, b.Name)
	}
	if near := catalog.Nearest(name, names, 1); len(near) > 0 {
		return fmt.Sprintf("did you mean %q? (built-ins: %s)", near[0], strings.Join(names, ", "))
	}
	return "built-ins: " + strings.Join(names, ", ") + "; or define it as a mapping with name:"
}

// workload decodes one workload mapping; defName is its name when the
// mapping gives none (a one-workload file).
func (d *decoder) workload(n ast.Node, path, defName string) (Workload, error) {
	ms, err := d.Mapping(n, path, workloadKeys)
	if err != nil {
		return Workload{}, err
	}
	w := Workload{Name: defName, Source: d.mappingPos(n).String()}
	has := map[string]yamlnode.Entry{}
	for _, m := range ms {
		has[m.Key] = m
	}
	if _, ok := has["command"]; ok {
		for _, m := range ms {
			if slices.Contains(loadKeys, m.Key) {
				return w, yamlnode.Errorf(m.Pos, yamlnode.Join(path, m.Key), "a command workload takes only %s; %s is for the built-in load generator", strings.Join(slices.Concat(commonKeys, commandKeys), ", "), m.Key)
			}
		}
	} else {
		if _, ok := has["timeout"]; ok {
			m := has["timeout"]
			return w, yamlnode.Errorf(m.Pos, yamlnode.Join(path, "timeout"), "timeout bounds a command workload; for generator requests use request_timeout")
		}
		w.API, w.InputLen, w.OutputLen = loadgen.Generate, DefaultInputLen, DefaultOutputLen
		w.Warmup, w.Seed, w.RequestTimeout = DefaultWarmup, DefaultSeed, Duration(DefaultRequestTimeout)
	}
	for _, m := range ms {
		key := yamlnode.Join(path, m.Key)
		var err error
		switch m.Key {
		case "name":
			w.Name, err = d.str(m, key)
			if err == nil && !reName.MatchString(w.Name) {
				err = yamlnode.Errorf(d.Pos(m.Value), key, "want a name of letters, digits, '.', '_', '+' and '-', got %q", w.Name)
			}
		case "description":
			w.Description, err = d.str(m, key)
		case "api":
			var s string
			s, err = d.str(m, key)
			w.API = loadgen.API(s)
			if err == nil && !w.API.Valid() {
				err = yamlnode.Errorf(d.Pos(m.Value), key, "want generate (SGLang's native /generate) or chat (/v1/chat/completions), got %q", s)
			}
		case "input_len":
			w.InputLen, err = d.integer(m.Value, key, 1, MaxTokensPerRequest)
		case "output_len":
			w.OutputLen, err = d.integer(m.Value, key, 1, MaxTokensPerRequest)
		case "concurrency":
			w.Concurrency, err = d.integers(m.Value, key)
		case "request_rate":
			w.RequestRate, err = d.rates(m.Value, key)
		case "max_concurrency":
			w.MaxConcurrency, err = d.integer(m.Value, key, 1, MaxConcurrency)
		case "requests":
			w.Requests, err = d.integer(m.Value, key, 1, MaxRequests)
		case "rounds":
			w.Rounds, err = d.integer(m.Value, key, 1, maxRounds)
		case "duration":
			var v time.Duration
			v, err = d.duration(m.Value, key, false, MaxDuration)
			w.Duration = Duration(v)
		case "warmup":
			w.Warmup, err = d.integer(m.Value, key, 0, MaxWarmup)
		case "seed":
			var s int
			s, err = d.integer(m.Value, key, 0, math.MaxInt64)
			w.Seed = uint64(s)
		case "request_timeout":
			var v time.Duration
			v, err = d.duration(m.Value, key, true, MaxDuration)
			w.RequestTimeout = Duration(v)
		case "dataset":
			w.Dataset, err = d.dataset(m, path, has)
		case "slo":
			w.SLO, err = d.slo(m, key)
		case "flush_cache":
			var b bool
			b, err = d.boolean(m.Value, key)
			w.FlushCache = &b
		case "command":
			w.Command, w.Shell, err = d.command(m.Value, key)
		case "timeout":
			var v time.Duration
			v, err = d.duration(m.Value, key, true, MaxCommandTimeout)
			w.Timeout = Duration(v)
		}
		if err != nil {
			return w, err
		}
	}
	if w.Name == "" {
		return w, yamlnode.Errorf(d.mappingPos(n), path, "a workload needs a name: (letters, digits, '.', '_', '+', '-')")
	}
	if w.External() {
		return w, d.checkTemplates(w, has["command"], yamlnode.Join(path, "command"))
	}
	if err := d.checkLoad(has, path); err != nil {
		return w, err
	}
	w = normalize(w)
	return w, d.checkSize(w, has, path, d.mappingPos(n))
}

// checkSize bounds what one level of a load keeps in memory: the prompts
// in flight and the per-token samples of its requests.
func (d *decoder) checkSize(w Workload, has map[string]yamlnode.Entry, path string, where yamlnode.Pos) error {
	at := func(keys ...string) yamlnode.Entry {
		for _, k := range keys {
			if e, ok := has[k]; ok {
				return e
			}
		}
		return yamlnode.Entry{Key: keys[0], Pos: where}
	}
	streams := max(slices.Max(append([]int{0}, w.Concurrency...)), w.MaxConcurrency)
	if n := int64(streams) * int64(w.InputLen); n > MaxTokensPerLevel {
		e := at("input_len", "concurrency", "max_concurrency")
		return yamlnode.Errorf(e.Pos, yamlnode.Join(path, e.Key), "%d streams of %d input tokens are %d tokens in flight; at most %d", streams, w.InputLen, n, int64(MaxTokensPerLevel))
	}
	// A level is its rounds (as normalize will fill them in), each of
	// Requests requests, or requests started for Duration, or one wave
	// of the streams; every round's samples are kept.
	rounds := w.Rounds
	if rounds == 0 {
		rounds = 1
		if w.Requests == 0 && w.Duration == 0 {
			rounds = DefaultRounds
		}
	}
	perRound, what := w.Requests, "requests"
	if perRound == 0 && w.Duration == 0 {
		perRound, what = streams, "streams"
	}
	for _, r := range w.RequestRate {
		if n := r * time.Duration(w.Duration).Seconds() * float64(rounds); n > MaxRequests {
			e := at("duration", "request_rate", "rounds")
			span := time.Duration(w.Duration).String()
			if rounds > 1 {
				span = fmt.Sprintf("%s x %d rounds", span, rounds)
			}
			return yamlnode.Errorf(e.Pos, yamlnode.Join(path, e.Key), "%g requests/s for %s are %.0f requests in a level; at most %d", r, span, n, MaxRequests)
		}
	}
	requests := int64(rounds) * int64(perRound)
	if requests > MaxRequests {
		e := at("rounds", "requests", "concurrency", "max_concurrency")
		return yamlnode.Errorf(e.Pos, yamlnode.Join(path, e.Key), "%d rounds of %d %s are %d requests in a level; at most %d", rounds, perRound, what, requests, MaxRequests)
	}
	if n := requests * int64(w.OutputLen); n > MaxTokensPerLevel {
		e := at("output_len", "requests", "rounds")
		return yamlnode.Errorf(e.Pos, yamlnode.Join(path, e.Key), "%d requests of %d output tokens are %d tokens in a level; at most %d", requests, w.OutputLen, n, int64(MaxTokensPerLevel))
	}
	return nil
}

// checkLoad applies the rules that span keys of a generator workload.
func (d *decoder) checkLoad(has map[string]yamlnode.Entry, path string) error {
	at := func(key, format string, args ...any) error {
		return yamlnode.Errorf(has[key].Pos, yamlnode.Join(path, key), format, args...)
	}
	_, conc := has["concurrency"]
	_, rate := has["request_rate"]
	switch {
	case conc && rate:
		return at("request_rate", "give concurrency (closed loop) or request_rate (open loop), not both; cap an open loop with max_concurrency")
	case !rate:
		if _, ok := has["max_concurrency"]; ok {
			return at("max_concurrency", "max_concurrency caps an open loop; it needs request_rate (for a closed loop, concurrency is the stream count)")
		}
	}
	_, reqs := has["requests"]
	_, dur := has["duration"]
	if reqs && dur {
		return at("duration", "give requests or duration per round, not requests and duration")
	}
	if rate && !reqs && !dur {
		if _, ok := has["rounds"]; !ok {
			return at("request_rate", "an open loop needs requests or duration per round")
		}
	}
	if _, ok := has["rounds"]; ok && rate && !reqs && !dur {
		return at("rounds", "a round of an open loop needs requests or duration (only a closed loop's round can be one wave of its concurrency)")
	}
	return nil
}

// maxRounds bounds rounds: each round is kept in the record.
const maxRounds = 1000

// normalize fills what a decoded load workload leaves implied.
func normalize(w Workload) Workload {
	if w.External() {
		return w
	}
	if len(w.Concurrency) == 0 && len(w.RequestRate) == 0 {
		w.Concurrency = []int{1}
	}
	if w.Requests == 0 && w.Rounds == 0 && w.Duration == 0 {
		w.Rounds = DefaultRounds
	}
	if w.Dataset != nil && w.Dataset.Name != DatasetRandom {
		w.InputLen = 0 // the dataset's prompts have their own
	}
	return w
}

// checkTemplates parses every template of a command and runs it on
// sample data, so a bad template is an input error before anything starts.
func (d *decoder) checkTemplates(w Workload, m yamlnode.Entry, key string) error {
	n, _ := d.Unwrap(m.Value, key)
	items := []ast.Node{n}
	if seq, ok := n.(*ast.SequenceNode); ok {
		items = seq.Values
	}
	for i, text := range w.Command {
		k := key
		if !w.Shell {
			k = fmt.Sprintf("%s[%d]", key, i)
		}
		if _, err := Expand(text, sampleData()); err != nil {
			return yamlnode.Errorf(d.Pos(items[min(i, len(items)-1)]), k, "%v; fields: %s", err, strings.Join(templateFields(), ", "))
		}
	}
	return nil
}
