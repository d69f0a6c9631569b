package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/sglaunch/sglaunch/bench"
	"github.com/sglaunch/sglaunch/bench/workload"
	"github.com/sglaunch/sglaunch/loadgen"
)

// ExportFormats lists what bench export writes.
var ExportFormats = []string{"bench-serving"}

// WriteBenchServing writes a record as SGLang's bench_serving writes its
// results: one JSON line per level of each generator workload, with the
// keys of its result dict in its order (sglang/benchmark/serving.py), so
// that scripts that read bench_serving's JSONL read records too. As
// bench_serving does, a closed loop's request rate is written as the bare
// word Infinity (Python's json reads it) and its concurrency as
// max_concurrency; what a record does not hold (server_info, peak output
// rate, peak concurrency) is null. The tag names the record, workload and
// level.
func WriteBenchServing(w io.Writer, r *bench.Record) error {
	var b bytes.Buffer
	for _, res := range r.Results {
		for _, l := range res.Levels {
			benchServingLine(&b, r, res.Workload, l)
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

// jsonLine writes one JSON object member by member, in order.
type jsonLine struct {
	b     *bytes.Buffer
	first bool
}

func (j *jsonLine) key(k string) {
	if !j.first {
		j.b.WriteString(", ")
	}
	j.first = false
	j.b.WriteString(strconv.Quote(k))
	j.b.WriteString(": ")
}

func (j *jsonLine) raw(k, v string) { j.key(k); j.b.WriteString(v) }
func (j *jsonLine) str(k, v string) {
	j.key(k)
	q, _ := json.Marshal(v)
	j.b.Write(q)
}
func (j *jsonLine) int(k string, v int) {
	j.key(k)
	j.b.WriteString(strconv.Itoa(v))
}

// num writes a float as Python's json does: Infinity and NaN as words.
func (j *jsonLine) num(k string, v float64) {
	j.key(k)
	switch {
	case math.IsInf(v, 1):
		j.b.WriteString("Infinity")
	case math.IsInf(v, -1):
		j.b.WriteString("-Infinity")
	case math.IsNaN(v):
		j.b.WriteString("NaN")
	default:
		j.b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
	}
}

func benchServingLine(b *bytes.Buffer, r *bench.Record, w workload.Workload, l bench.LevelRecord) {
	m := l.Metrics
	j := &jsonLine{b: b, first: true}
	b.WriteByte('{')
	j.str("tag", fmt.Sprintf("sglaunch %s %s %s", r.ID, w.Name, l.Level))
	backend := "sglang"
	if w.API == loadgen.Chat {
		backend = "sglang-oai-chat"
	}
	j.str("backend", backend)
	dataset, ratio := "random", 1.0
	if d := w.Dataset; d != nil {
		dataset, ratio = d.Name, math.NaN()
		if d.Name == workload.DatasetJSONL {
			dataset = "custom" // bench_serving's name for a JSONL file
		}
		if d.RangeRatio != nil {
			ratio = *d.RangeRatio
		}
	}
	j.str("dataset_name", dataset)
	if l.Rate > 0 {
		j.num("request_rate", l.Rate)
	} else {
		j.num("request_rate", math.Inf(1))
	}
	if l.Concurrency > 0 {
		j.int("max_concurrency", l.Concurrency)
	} else {
		j.raw("max_concurrency", "null")
	}
	if w.Dataset != nil && w.Dataset.OutputLen > 0 {
		j.int("sharegpt_output_len", w.Dataset.OutputLen)
	} else {
		j.raw("sharegpt_output_len", "null")
	}
	if dataset == "random" {
		j.int("random_input_len", w.InputLen)
		j.int("random_output_len", w.OutputLen)
		j.num("random_range_ratio", ratio)
	} else {
		j.raw("random_input_len", "null")
		j.raw("random_output_len", "null")
		j.raw("random_range_ratio", "null")
	}
	j.raw("server_info", "null")
	j.num("duration", m.Duration)
	j.int("completed", m.Completed)
	j.int("total_input_tokens", m.TotalInputTokens)
	j.int("total_input_text_tokens", m.TotalInputTokens)
	j.int("total_input_vision_tokens", 0)
	j.int("total_output_tokens", m.TotalOutputTokens)
	j.int("total_output_tokens_retokenized", m.TotalOutputTokens)
	j.num("request_throughput", m.RequestThroughput)
	j.num("input_throughput", m.InputThroughput)
	j.num("output_throughput", m.OutputThroughput)
	j.num("total_throughput", m.TotalThroughput)
	for _, d := range []struct {
		name string
		v    loadgen.Dist
	}{{"e2e_latency", m.E2E}, {"ttft", m.TTFT}, {"tpot", m.TPOT}, {"itl", m.ITL}} {
		j.num("mean_"+d.name+"_ms", d.v.Mean)
		j.num("median_"+d.name+"_ms", d.v.Median)
		j.num("std_"+d.name+"_ms", d.v.Std)
		j.num("p90_"+d.name+"_ms", d.v.P90)
		j.num("p95_"+d.name+"_ms", d.v.P95)
		j.num("p99_"+d.name+"_ms", d.v.P99)
	}
	j.num("concurrency", m.Concurrency)
	if l.AcceptLength > 0 {
		j.num("accept_length", l.AcceptLength)
	} else {
		j.raw("accept_length", "null")
	}
	j.raw("max_output_tokens_per_s", "null")
	j.raw("max_concurrent_requests", "null")
	b.WriteString("}\n")
}
