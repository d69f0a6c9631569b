package verify

import (
	"encoding/json"

	"github.com/sglaunch/sglaunch/internal/redact"
	"github.com/sglaunch/sglaunch/plan"
)

// Expected is the side a deployment is checked against: a profile's plan
// or the plan stored with a bench record.
type Expected struct {
	Label       string            `json:"label"` // "profile demo (serve)", "record 20261130-..."
	Fingerprint string            `json:"fingerprint"`
	Python      string            `json:"python"`
	Module      string            `json:"module,omitempty"`
	Argv        []string          `json:"argv"`
	Env         map[string]string `json:"env"`
	EnvOrder    []string          `json:"-"`
	Managed     []string          `json:"managed_env"`
	// Redacted is true when secret values are already masked (records);
	// observed secrets are then compared in masked form too.
	Redacted bool `json:"-"`
	// Environ is the environment the plan gives the server (nil for a
	// stored plan): what its interpreter is asked about itself with.
	Environ []string `json:"-"`
	// Interpreter is what Python resolves to, and SGLang the version it
	// imports (a record's: the version benchmarked); see Resolve.
	Interpreter *Interpreter `json:"interpreter,omitempty"`
	SGLang      string       `json:"sglang_version,omitempty"`
	// PythonOnPath: the plan named python by a bare name, which this
	// verifier's PATH resolved (a unit's ExecStart pins its own).
	PythonOnPath bool `json:"-"`
}

// FromView builds the expected side from a printed or stored plan.
func FromView(v plan.View, label string, redacted bool) Expected {
	order := v.EnvOrder
	if len(order) == 0 {
		for k := range v.Env {
			order = append(order, k)
		}
	}
	managed := v.Managed
	if len(managed) == 0 {
		managed = plan.DefaultManaged
	}
	return Expected{Label: label, Fingerprint: v.Fingerprint, Python: v.Python, Module: v.Module, Argv: v.Argv, Env: v.Env, EnvOrder: order, Managed: managed, Redacted: redacted}
}

// FromPlan builds the expected side from a resolved plan, secrets intact.
func FromPlan(p *plan.Plan, label string) Expected {
	e := FromView(p.View(), label, false)
	e.Argv, e.Environ, e.PythonOnPath = p.Argv, p.Environ, p.PythonOnPath
	for _, v := range p.Env {
		e.Env[v.Name] = v.Value
	}
	return e
}

// MarshalJSON writes the plan with secret values masked (--api-key,
// HF_TOKEN...): verify --json output is for people and logs.
func (e Expected) MarshalJSON() ([]byte, error) {
	type plain Expected
	p := plain(e)
	p.Argv = redact.Argv(e.Argv)
	p.Env = redactEnv(e.Env)
	return json.Marshal(p)
}

// redactEnv is a copy of env with secret values masked.
func redactEnv(env map[string]string) map[string]string {
	if env == nil {
		return nil
	}
	out := make(map[string]string, len(env))
	for k, v := range env {
		out[k] = redact.Value(k, v)
	}
	return out
}
