package preflight

import (
	"encoding/json"
	"fmt"
	"time"
)

// Status is a finding's verdict.
type Status int

const (
	// Pass: the setting is what its reader accepts.
	Pass Status = iota
	// Warn: it works, but not as written, or it does nothing.
	Warn
	// Fail: the launch would fail, or silently run something else.
	Fail
	// Skip: the check did not run (no GPU to check, or none needed); it
	// proves nothing, so it is not counted as a pass.
	Skip
)

func (s Status) String() string {
	switch s {
	case Pass:
		return "PASS"
	case Warn:
		return "WARN"
	case Skip:
		return "SKIP"
	}
	return "FAIL"
}

// MarshalText writes PASS, WARN, FAIL or SKIP.
func (s Status) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads PASS, WARN, FAIL or SKIP.
func (s *Status) UnmarshalText(b []byte) error {
	switch string(b) {
	case "PASS":
		*s = Pass
	case "WARN":
		*s = Warn
	case "FAIL":
		*s = Fail
	case "SKIP":
		*s = Skip
	default:
		return fmt.Errorf("status %q: want PASS, WARN, FAIL or SKIP", b)
	}
	return nil
}

// The checks, in report order.
const (
	CheckPython = "python"
	CheckFlags  = "sglang-flags"
	CheckSGLEnv = "sglang-env"
	CheckNCCL   = "nccl-env"
	CheckTorch  = "cuda-torch-env"
	CheckModel  = "model"
	CheckPort   = "port"
	CheckGPU    = "gpu"
	CheckSite   = "site-hooks"
)

// Finding is one check's verdict on one subject.
type Finding struct {
	Check   string `json:"check"`
	Status  Status `json:"status"`
	Subject string `json:"subject"` // a variable, a flag, a path, a port
	Reason  string `json:"reason"`
	Fix     string `json:"fix,omitempty"`
	// Where is the profile position or layer the setting came from.
	Where string `json:"where,omitempty"`
}

// SGLangInfo says which SGLang the flags were checked against.
type SGLangInfo struct {
	// Version is the installed version; empty when SGLang is not installed
	// or was not asked.
	Version  string `json:"version,omitempty"`
	Location string `json:"location,omitempty"`
	// Flags says where the flag list came from: "--help", "--help
	// (cached)" or "embedded catalog".
	Flags string `json:"flags"`
	// Tables is the version of the SGLang tables generated from SGLang's
	// source that preflight and verify judge this SGLang by: its own, else
	// the nearest older (with a warning).
	Tables string `json:"tables,omitempty"`
}

// Report is the outcome of one preflight.
type Report struct {
	Profile  string        `json:"profile"`
	Mode     string        `json:"mode"`
	Python   string        `json:"python"`
	SGLang   SGLangInfo    `json:"sglang"`
	Findings []Finding     `json:"findings"`
	Duration time.Duration `json:"-"`
}

// Count returns how many findings have status s.
func (r *Report) Count(s Status) int {
	n := 0
	for _, f := range r.Findings {
		if f.Status == s {
			n++
		}
	}
	return n
}

// Failed reports whether any finding failed.
func (r *Report) Failed() bool { return r.Count(Fail) > 0 }

// Find returns the findings of one check about one subject.
func (r *Report) Find(check, subject string) []Finding {
	var out []Finding
	for _, f := range r.Findings {
		if f.Check == check && f.Subject == subject {
			out = append(out, f)
		}
	}
	return out
}

// JSON is the report as printed by `preflight --json`.
func (r *Report) JSON() []byte {
	type summary struct {
		Pass int `json:"pass"`
		Warn int `json:"warn"`
		Fail int `json:"fail"`
		Skip int `json:"skip"`
	}
	v := struct {
		*Report
		Summary    summary `json:"summary"`
		DurationMS int64   `json:"duration_ms"`
	}{r, summary{r.Count(Pass), r.Count(Warn), r.Count(Fail), r.Count(Skip)}, r.Duration.Milliseconds()}
	if v.Findings == nil {
		v.Findings = []Finding{}
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		// Plain strings and ints only; cannot fail.
		panic(fmt.Sprintf("preflight: marshal report: %v", err))
	}
	return append(b, '\n')
}
