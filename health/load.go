package health

import (
	"encoding/json"
	"math"
	"time"
)

// Load is the timing of one load, the same wherever it is kept (the
// ready session, a bench record, the runtime state, the load history):
// when the server started, when /health first answered 200, how long
// that took, and the start-up phases seen in between.
type Load struct {
	StartedAt time.Time `json:"started_at"`
	ReadyAt   time.Time `json:"ready_at,omitzero"`
	// Seconds is from start to ready.
	Seconds float64 `json:"load_time_s"`
	// Phases are the start-up steps with the time since start, as the
	// log shows them, in the order they happened.
	Phases []Phase `json:"phases,omitempty"`
	// Official is SGLang's own account of the phases' durations
	// (startup_time), when the server gave it; see Breakdown.
	Official *StartupTime `json:"startup_time,omitempty"`
}

// Duration is the load time.
func (l Load) Duration() time.Duration {
	if !l.ReadyAt.IsZero() {
		return l.ReadyAt.Sub(l.StartedAt)
	}
	return time.Duration(l.Seconds * float64(time.Second))
}

// phaseJSON is a Phase as stored: seconds since start, to the millisecond.
type phaseJSON struct {
	Name string  `json:"name"`
	At   float64 `json:"at_s"`
}

// MarshalJSON stores the phase as {"name": ..., "at_s": seconds}.
func (p Phase) MarshalJSON() ([]byte, error) {
	return json.Marshal(phaseJSON{Name: p.Name, At: math.Round(p.At.Seconds()*1000) / 1000})
}

// UnmarshalJSON reads what MarshalJSON stores.
func (p *Phase) UnmarshalJSON(b []byte) error {
	var j phaseJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	p.Name, p.At = j.Name, time.Duration(j.At*float64(time.Second))
	return nil
}
