package loadgen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"
)

// Dist summarises one latency distribution, in milliseconds.
type Dist struct {
	Mean, Median, Std, P90, P95, P99, Max float64
}

// Metrics are one level's results, named in JSON as bench_serving names
// them. Latencies are in milliseconds, throughputs per second.
type Metrics struct {
	Completed int
	// ZeroTokenCompleted counts the completed requests answered with no
	// token (Sample.ZeroTokens): they add no TTFT, TPOT or ITL sample.
	ZeroTokenCompleted int
	Failed             int
	Duration           float64 // seconds, first request sent to last one done
	TotalInputTokens   int
	TotalOutputTokens  int
	RequestThroughput  float64
	InputThroughput    float64
	OutputThroughput   float64
	TotalThroughput    float64
	// Concurrency is the mean number of requests in flight: the sum of
	// their latencies over the duration.
	Concurrency float64
	TTFT        Dist
	TPOT        Dist
	// ITL is per token: each chunk's gap split evenly among the tokens it
	// added, as bench_serving splits it. ChunkGap is the gap between
	// chunks itself (the same as ITL when every chunk carries one token).
	ITL      Dist
	ChunkGap Dist
	E2E      Dist
	// DecodeRate is the single-stream decode rate in tokens/s, set for
	// levels run one stream at a time: output tokens after the first over
	// the time spent producing them, i.e. 1000 / TPOT weighted by tokens.
	DecodeRate float64
	// RequestGoodput is the rate of completed requests that met the SLO
	// (vllm bench serve's request_goodput), set when HasGoodput.
	RequestGoodput float64
	HasGoodput     bool
}

// SLO is a per-request service-level objective, as vllm bench serve's
// --goodput takes it: a completed request is good when each bound given
// (above 0) holds: TTFT, TPOT and end-to-end latency at most so many ms.
// A one-token request's TPOT is 0, as vLLM counts it.
type SLO struct {
	TTFTms float64 `json:"ttft_ms,omitempty"`
	TPOTms float64 `json:"tpot_ms,omitempty"`
	E2Ems  float64 `json:"e2e_latency_ms,omitempty"`
}

// Good reports whether a completed sample met the objective.
func (o SLO) Good(s *Sample) bool {
	tpot := 0.0
	if s.OutputTokens > 1 {
		tpot = ms(s.Latency-s.TTFT) / float64(s.OutputTokens-1)
	}
	return (o.TTFTms <= 0 || ms(s.TTFT) <= o.TTFTms) &&
		(o.TPOTms <= 0 || tpot <= o.TPOTms) &&
		(o.E2Ems <= 0 || ms(s.Latency) <= o.E2Ems)
}

// AddGoodput sets the request goodput of metrics computed from samples.
func (m *Metrics) AddGoodput(samples []Sample, slo SLO) {
	good := 0
	for i := range samples {
		if samples[i].OK && slo.Good(&samples[i]) {
			good++
		}
	}
	m.HasGoodput, m.RequestGoodput = true, 0
	if m.Duration > 0 {
		m.RequestGoodput = float64(good) / m.Duration
	}
}

// Named is one metric by its bench_serving name.
type Named struct {
	Name  string
	Value float64
}

type metricField struct {
	name     string
	get      func(*Metrics) float64
	set      func(*Metrics, float64)
	optional bool                // left out while zero
	has      func(*Metrics) bool // when set, left out unless it says present
}

func intField(name string, p func(*Metrics) *int) metricField {
	return metricField{name: name,
		get: func(m *Metrics) float64 { return float64(*p(m)) },
		set: func(m *Metrics, v float64) { *p(m) = int(math.Round(v)) }}
}

func floatField(name string, p func(*Metrics) *float64) metricField {
	return metricField{name: name,
		get: func(m *Metrics) float64 { return *p(m) },
		set: func(m *Metrics, v float64) { *p(m) = v }}
}

// metricFields lists every metric in the order tables and files show them.
var metricFields = func() []metricField {
	f := []metricField{
		intField("completed", func(m *Metrics) *int { return &m.Completed }),
		intField("failed", func(m *Metrics) *int { return &m.Failed }),
		floatField("duration", func(m *Metrics) *float64 { return &m.Duration }),
		intField("total_input_tokens", func(m *Metrics) *int { return &m.TotalInputTokens }),
		intField("total_output_tokens", func(m *Metrics) *int { return &m.TotalOutputTokens }),
		floatField("request_throughput", func(m *Metrics) *float64 { return &m.RequestThroughput }),
		floatField("input_throughput", func(m *Metrics) *float64 { return &m.InputThroughput }),
		floatField("output_throughput", func(m *Metrics) *float64 { return &m.OutputThroughput }),
		floatField("total_throughput", func(m *Metrics) *float64 { return &m.TotalThroughput }),
		floatField("concurrency", func(m *Metrics) *float64 { return &m.Concurrency }),
	}
	dists := []struct {
		name string
		p    func(*Metrics) *Dist
	}{
		{"ttft", func(m *Metrics) *Dist { return &m.TTFT }},
		{"tpot", func(m *Metrics) *Dist { return &m.TPOT }},
		{"itl", func(m *Metrics) *Dist { return &m.ITL }},
		{"chunk_gap", func(m *Metrics) *Dist { return &m.ChunkGap }},
		{"e2e_latency", func(m *Metrics) *Dist { return &m.E2E }},
	}
	for _, d := range dists {
		stats := []struct {
			name string
			p    func(*Dist) *float64
		}{
			{"mean", func(x *Dist) *float64 { return &x.Mean }},
			{"median", func(x *Dist) *float64 { return &x.Median }},
			{"std", func(x *Dist) *float64 { return &x.Std }},
			{"p90", func(x *Dist) *float64 { return &x.P90 }},
			{"p95", func(x *Dist) *float64 { return &x.P95 }},
			{"p99", func(x *Dist) *float64 { return &x.P99 }},
			{"max", func(x *Dist) *float64 { return &x.Max }},
		}
		for _, s := range stats {
			dp, sp := d.p, s.p
			f = append(f, floatField(s.name+"_"+d.name+"_ms", func(m *Metrics) *float64 { return sp(dp(m)) }))
		}
	}
	dr := floatField("decode_tok_s", func(m *Metrics) *float64 { return &m.DecodeRate })
	dr.optional = true
	zero := intField("zero_token_completed", func(m *Metrics) *int { return &m.ZeroTokenCompleted })
	zero.optional = true
	gp := metricField{name: "request_goodput",
		get: func(m *Metrics) float64 { return m.RequestGoodput },
		set: func(m *Metrics, v float64) { m.RequestGoodput, m.HasGoodput = v, true },
		has: func(m *Metrics) bool { return m.HasGoodput }}
	return append(f, dr, zero, gp)
}()

// MetricNames lists every metric name, in order.
func MetricNames() []string {
	out := make([]string, len(metricFields))
	for i, f := range metricFields {
		out[i] = f.name
	}
	return out
}

// Named returns the metrics by name, in order.
func (m Metrics) Named() []Named {
	out := make([]Named, 0, len(metricFields))
	for _, f := range metricFields {
		v := f.get(&m)
		if (f.optional && v == 0) || (f.has != nil && !f.has(&m)) {
			continue
		}
		out = append(out, Named{f.name, v})
	}
	return out
}

// Get returns one metric by name.
func (m Metrics) Get(name string) (float64, bool) {
	for _, f := range metricFields {
		if f.name == name {
			return f.get(&m), f.has == nil || f.has(&m)
		}
	}
	return 0, false
}

// MarshalJSON writes the metrics as one flat object in display order.
func (m Metrics) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, n := range m.Named() {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q:", n.Name)
		if math.IsNaN(n.Value) || math.IsInf(n.Value, 0) {
			b.WriteString("null")
			continue
		}
		b.Write(strconv.AppendFloat(nil, n.Value, 'g', -1, 64))
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads the flat object MarshalJSON writes; unknown names
// are ignored, so records from later versions still load.
func (m *Metrics) UnmarshalJSON(data []byte) error {
	var raw map[string]*float64
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	*m = Metrics{}
	for _, f := range metricFields {
		if v, ok := raw[f.name]; ok && v != nil {
			f.set(m, *v)
		}
	}
	return nil
}

// Compute derives a level's metrics from its samples as bench_serving's
// calculate_metrics does. singleStream adds the decode rate.
func Compute(samples []Sample, duration time.Duration, singleStream bool) Metrics {
	var m Metrics
	// Sized first: the samples hold a level's every token, and growing
	// the lists by appends would copy them over and over. When every
	// chunk carried one token the chunk gaps are the ITLs, and one sort
	// serves both.
	ok, tokens, chunks, sameGaps := 0, 0, 0, true
	for i := range samples {
		if s := &samples[i]; s.OK {
			ok++
			if !s.ZeroTokens {
				tokens, chunks = tokens+len(s.ITL), chunks+len(s.ChunkGaps)
				sameGaps = sameGaps && slices.Equal(s.ITL, s.ChunkGaps)
			}
		}
	}
	ttft, tpot, e2e := make([]float64, 0, ok), make([]float64, 0, ok), make([]float64, 0, ok)
	itl, gaps := make([]float64, 0, tokens), []float64(nil)
	if !sameGaps {
		gaps = make([]float64, 0, chunks)
	}
	var decodeTokens int
	var decodeTime time.Duration
	for i := range samples {
		s := &samples[i]
		if !s.OK {
			m.Failed++
			continue
		}
		m.Completed++
		m.TotalInputTokens += s.InputTokens
		m.TotalOutputTokens += s.OutputTokens
		e2e = append(e2e, ms(s.Latency))
		if s.ZeroTokens {
			m.ZeroTokenCompleted++
			continue
		}
		if s.OutputTokens > 1 {
			tpot = append(tpot, ms(s.Latency-s.TTFT)/float64(s.OutputTokens-1))
			decodeTokens += s.OutputTokens - 1
			decodeTime += s.Latency - s.TTFT
		}
		for _, d := range s.ITL {
			itl = append(itl, ms(d))
		}
		if !sameGaps {
			for _, d := range s.ChunkGaps {
				gaps = append(gaps, ms(d))
			}
		}
		ttft = append(ttft, ms(s.TTFT))
	}
	m.Duration = duration.Seconds()
	if m.Duration > 0 {
		m.RequestThroughput = float64(m.Completed) / m.Duration
		m.InputThroughput = float64(m.TotalInputTokens) / m.Duration
		m.OutputThroughput = float64(m.TotalOutputTokens) / m.Duration
		m.TotalThroughput = float64(m.TotalInputTokens+m.TotalOutputTokens) / m.Duration
		var sum float64
		for _, v := range e2e {
			sum += v
		}
		m.Concurrency = sum / 1000 / m.Duration
	}
	m.TTFT, m.TPOT, m.ITL, m.E2E = dist(ttft), dist(tpot), dist(itl), dist(e2e)
	m.ChunkGap = m.ITL
	if !sameGaps {
		m.ChunkGap = dist(gaps)
	}
	if singleStream && decodeTime > 0 {
		m.DecodeRate = float64(decodeTokens) / decodeTime.Seconds()
	}
	return m
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// dist summarises values; all zero when there are none (numpy's "or 0").
func dist(v []float64) Dist {
	if len(v) == 0 {
		return Dist{}
	}
	slices.Sort(v)
	var sum float64
	for _, x := range v {
		sum += x
	}
	mean := sum / float64(len(v))
	var sq float64
	for _, x := range v {
		sq += (x - mean) * (x - mean)
	}
	return Dist{
		Mean:   mean,
		Median: Percentile(v, 50),
		Std:    math.Sqrt(sq / float64(len(v))),
		P90:    Percentile(v, 90),
		P95:    Percentile(v, 95),
		P99:    Percentile(v, 99),
		Max:    v[len(v)-1],
	}
}

// Percentile is numpy's default (linear) percentile of sorted values.
func Percentile(sorted []float64, p float64) float64 {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	r := p / 100 * float64(n-1)
	lo := int(math.Floor(r))
	hi := min(lo+1, n-1)
	return sorted[lo] + (sorted[hi]-sorted[lo])*(r-float64(lo))
}
