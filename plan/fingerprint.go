package plan

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// FingerprintInput is the perf-relevant part of a plan, in canonical form:
// what the fingerprint hashes and what verify and bench compare compare.
type FingerprintInput struct {
	Python string `json:"python"`
	Module string `json:"module"`
	// Args maps each perf-relevant flag's canonical name to its values
	// (none for a bare flag). The last occurrence wins, as in argparse.
	Args map[string][]string `json:"args"`
	// Env maps each managed variable to its value as written.
	Env map[string]string `json:"env"`
}

// PerfInput returns the plan's perf-relevant settings.
func PerfInput(p *Plan) FingerprintInput {
	in := FingerprintInput{Python: p.Python, Module: p.Module, Args: CanonicalArgs(p.Argv[3:], false), Env: map[string]string{}}
	for _, e := range p.Env {
		in.Env[e.Name] = e.Raw
	}
	return in
}

// CanonicalArgs maps an SGLang argv tail to canonical flag names and
// values; perf-neutral flags are kept only when withNeutral is set.
func CanonicalArgs(argv []string, withNeutral bool) map[string][]string {
	args := map[string][]string{}
	for _, u := range sglangArgs().Split(argv) {
		if u.Written == "" || (!withNeutral && IsPerfNeutral(u.Canonical)) {
			continue
		}
		vals := u.Values
		if vals == nil {
			vals = []string{}
		}
		args[u.Canonical] = vals
	}
	return args
}

// Fingerprint is sha256 over the canonical JSON (sorted keys) of the
// plan's perf-relevant settings, in hex.
func Fingerprint(p *Plan) string {
	b, _ := json.Marshal(PerfInput(p)) // maps marshal with sorted keys
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
