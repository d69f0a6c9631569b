package loadgen

import "time"

// Pool combines the rounds of one level (runs of the same level one after
// another) into one result: the metrics of all their samples over the sum
// of their durations, as if they had been one run without the pauses
// between them. slo, when set, adds request_goodput.
func Pool(rounds []LevelResult, slo *SLO) LevelResult {
	if len(rounds) == 0 {
		return LevelResult{}
	}
	if len(rounds) == 1 {
		return rounds[0]
	}
	out := LevelResult{Level: rounds[0].Level, Started: rounds[0].Started, Ended: rounds[len(rounds)-1].Ended}
	var d time.Duration
	var samples []Sample
	for _, r := range rounds {
		d += r.Ended.Sub(r.Started)
		samples = append(samples, r.Samples...)
	}
	out.Metrics = Compute(samples, d, out.Level.singleStream())
	if slo != nil {
		out.Metrics.AddGoodput(samples, *slo)
	}
	out.Errors = CountErrors(samples)
	out.TokenCounts = tokenCounts(samples)
	out.Samples = samples
	return out
}
