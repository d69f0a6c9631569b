package plan

import (
	"strconv"
	"time"

	"github.com/sglaunch/sglaunch/profiles"
)

// Health is how sglaunch judges the server: the readiness gate during
// the load, then liveness. Resolved once from the health.* settings.
type Health struct {
	StartTimeout     time.Duration // budget for the whole load
	StallTimeout     time.Duration // no output for this long during the load fails it
	PollInterval     time.Duration // readiness probe interval
	RequestTimeout   time.Duration // per-probe timeout
	Interval         time.Duration // liveness interval after ready; 0: no liveness
	FailureThreshold int           // failed liveness probes in a row before acting
	OnUnhealthy      string        // OnUnhealthyExit or OnUnhealthyLog
}

// What health.on_unhealthy may say.
const (
	OnUnhealthyExit = "exit"
	OnUnhealthyLog  = "log"
)

// ApplySettings sets the plan's settings (every key of profiles.Schema,
// with its layer) and the typed values read from them. The values were
// validated against the schema when they were read, so they parse.
func (p *Plan) ApplySettings(values map[string]profiles.Value) {
	p.Settings = values
	d := func(key string) time.Duration { return profiles.Duration(values[key]) }
	n, _ := strconv.Atoi(values["health.failure_threshold"].Text)
	p.StopTimeout = d("stop_timeout")
	p.Health = Health{
		StartTimeout:     d("health.start_timeout"),
		StallTimeout:     d("health.stall_timeout"),
		PollInterval:     d("health.poll_interval"),
		RequestTimeout:   d("health.request_timeout"),
		Interval:         d("health.interval"),
		FailureThreshold: max(n, 1),
		OnUnhealthy:      values["health.on_unhealthy"].Text,
	}
	p.StatusAddr, _ = profiles.ListenAddr(values["status_addr"].Text)
	p.MultiNode = multiNodeOf(values)
}

// DefaultSettings are the schema's defaults, each from layer "default".
func DefaultSettings() map[string]profiles.Value {
	out := map[string]profiles.Value{}
	for _, s := range profiles.Schema {
		out[s.Key] = profiles.Value{Text: s.Default, From: "default"}
	}
	return out
}
