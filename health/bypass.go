package health

import "strings"

// Bypass is an environment setting under which SGLang's /health answers
// 200 without proving that the server generates.
type Bypass struct {
	Name, Value string
	// Why says what /health does under it.
	Why string
}

// bypassRule is one such variable and the values that make it a bypass.
type bypassRule struct {
	name string
	on   func(v bool) bool // given the variable's boolean value
	def  bool              // SGLang's default
	why  string
}

// bypassRules, from SGLang's source (srt/environ.py declares them as
// EnvBool; srt/entrypoints/http_server.py health_generate, engine.py):
//   - SGLANG_DIAG_BYPASS_HEALTH_GENERATE=1 (environ.py at 0003215c, a
//     2026 main; SGLang's docs: "forces success and hides hangs"): /health
//     and /health_generate answer 200 at once.
//   - SGLANG_ENABLE_HEALTH_ENDPOINT_GENERATION=0: /health answers 200
//     without a generation (only /health_generate still generates).
//   - SGLANG_RUST_SERVER=1: the Rust server's /health is static, 200 as
//     soon as it binds, before any forward pass.
var bypassRules = []bypassRule{
	{"SGLANG_DIAG_BYPASS_HEALTH_GENERATE", func(v bool) bool { return v }, false, "forces /health to answer 200 without generating, hiding hung ranks"},
	{"SGLANG_ENABLE_HEALTH_ENDPOINT_GENERATION", func(v bool) bool { return !v }, true, "makes /health answer 200 without running its one-token generation"},
	{"SGLANG_RUST_SERVER", func(v bool) bool { return v }, false, "serves a static /health that answers 200 as soon as the port is bound, before any forward pass"},
}

// envBool parses a value as SGLang's EnvBool does: true/1/yes/y and
// false/0/no/n in any case; anything else is the default (SGLang warns).
func envBool(v string, def bool) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true", "1", "yes", "y":
		return true
	case "false", "0", "no", "n":
		return false
	}
	return def
}

// Bypasses returns the settings in env (lookup) under which /health
// answers without generating, in a fixed order.
func Bypasses(lookup func(name string) (string, bool)) []Bypass {
	var out []Bypass
	for _, r := range bypassRules {
		v, ok := lookup(r.name)
		if !ok {
			continue
		}
		if r.on(envBool(v, r.def)) {
			out = append(out, Bypass{Name: r.name, Value: v, Why: r.why})
		}
	}
	return out
}

// IsBypassName reports whether SGLang's /health reads name as one of the
// settings above. SGLANG_DIAG_BYPASS_HEALTH_GENERATE is newer than the
// generated environment tables, so a check that goes by the tables alone
// would call it unread.
func IsBypassName(name string) bool {
	for _, r := range bypassRules {
		if r.name == name {
			return true
		}
	}
	return false
}
