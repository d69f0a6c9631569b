package plan

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// FingerprintInput is the perf-relevant part of a plan, in canonical form:
// what the fingerprint hashes.
type FingerprintInput struct {
	Python string `json:"python"`
	Module string `json:"module"`
	// Args maps each perf-relevant flag's canonical name to its canonical
	// values (none for a bare flag). The last occurrence wins, as in argparse.
	Args map[string][]string `json:"args"`
	// Env maps each managed variable to its value as written (secrets
	// masked, as a record stores them), LauncherEnv left out.
	Env map[string]string `json:"env"`
}

// Fingerprint is sha256 over the canonical JSON (sorted keys) of the
// plan's perf-relevant settings, in hex.
func Fingerprint(p *Plan) string { return FingerprintOf(p.View()) }

// FingerprintOf computes the fingerprint from a stored plan. It is how a
// record's plan is matched: recomputed by the current rules, never taken
// from the fingerprint string the record was written with.
func FingerprintOf(v View) string {
	b, _ := json.Marshal(PerfInputOf(v)) // maps marshal with sorted keys
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// PerfInputOf returns a stored plan's perf-relevant settings.
func PerfInputOf(v View) FingerprintInput {
	in := FingerprintInput{Python: v.Python, Module: v.Module, Args: FlagMap(ArgvTail(v.Argv), false), Env: map[string]string{}}
	for name, val := range v.Env {
		if raw, ok := v.EnvRaw[name]; ok {
			val = raw
		}
		if IsLauncherEnv(name, val) {
			continue
		}
		in.Env[name] = val
	}
	return in
}

// ArgvTail returns the server flags of an argv: what follows `-m module`,
// or what follows the first --flag when the module form is absent.
func ArgvTail(argv []string) []string {
	for i := 0; i+1 < len(argv); i++ {
		if argv[i] == "-m" {
			return argv[i+2:]
		}
	}
	for i, a := range argv {
		if len(a) > 2 && a[:2] == "--" {
			return argv[i:]
		}
	}
	return nil
}
