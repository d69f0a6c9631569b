package plan

import (
	"net"
	"strconv"
	"time"

	"github.com/sglaunch/sglaunch/profiles"
)

// Modes a plan is resolved for.
const (
	ModeServe = "serve"
	ModeBench = "bench"
)

// EnvVar is one managed variable of the child's environment.
type EnvVar struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	// Raw is the value as written, before ${SGLAUNCH_SIM_DIR} expansion;
	// the fingerprint uses it so that it does not depend on a cache path.
	Raw  string `json:"-"`
	From string `json:"from"`
}

// Dropped is a managed variable of sglaunch's own environment that the
// child does not get.
type Dropped struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	// Replaced is true when the plan sets the variable to its own value.
	Replaced bool `json:"replaced,omitempty"`
}

// Plan is everything that runs: one interpreter, one argv, one environment.
type Plan struct {
	Version string   `json:"sglaunch_version"`
	Profile string   `json:"profile"`
	Source  string   `json:"source"`
	Chain   []string `json:"extends,omitempty"`
	Mode    string   `json:"mode"`
	Python  string   `json:"python"` // absolute interpreter path
	// PythonOnPath: the profile named the interpreter by a bare name
	// (python: python3), so Python is what this environment's PATH found.
	PythonOnPath bool   `json:"-"`
	Module       string `json:"module"`
	// Args are the profile's flags after all layers, in order.
	Args profiles.Section `json:"-"`
	// Extra are the arguments given after --, appended verbatim.
	Extra []string `json:"extra,omitempty"`
	// Argv is the full command: Python, -m, Module, flags, Extra.
	Argv []string `json:"argv"`
	// Env are the managed variables the child gets, in profile order.
	Env []EnvVar `json:"-"`
	// Environ is the child's whole environment.
	Environ []string  `json:"-"`
	Dropped []Dropped `json:"dropped"`
	// OverlayAdded lists what the mode overlay added or changed.
	OverlayAdded []string `json:"overlay_added"`
	// Repeats are the settings given twice in one layer through two
	// spellings; Args holds each once.
	Repeats []Repeat `json:"given_again,omitempty"`
	// Settings are python, module, stop_timeout and health.*, each with
	// its layer, as printed; ApplySettings sets them with the typed
	// values below.
	Settings map[string]profiles.Value `json:"-"`
	// StopTimeout is the grace between the stop signal and SIGKILL.
	StopTimeout time.Duration `json:"-"`
	// Health are the readiness and liveness settings.
	Health Health `json:"-"`
	// StatusAddr is where sglaunch serves its status endpoint
	// (status_addr, a bare port made loopback); "" when off.
	StatusAddr string `json:"-"`
	// MultiNode says how the server spans nodes (multinode.*).
	MultiNode MultiNode `json:"-"`
	// Provenance maps args.NAME, env.NAME, python, module, extra and the
	// settings to the layer each came from.
	Provenance  map[string]string `json:"provenance"`
	Managed     []string          `json:"managed_env"`
	Fingerprint string            `json:"fingerprint"`
}

// ShortFingerprint is the fingerprint as shown to people: 12 hex digits.
func (p *Plan) ShortFingerprint() string {
	if len(p.Fingerprint) < 12 {
		return p.Fingerprint
	}
	return p.Fingerprint[:12]
}

// Arg returns the last value given for an SGLang flag, by canonical name,
// looking through the profile's args and the extra arguments alike.
func (p *Plan) Arg(canonical string) (string, bool) {
	val, ok := "", false
	for _, u := range sglangArgs().Split(p.ServerArgs()) {
		if u.Canonical == canonical && len(u.Values) > 0 {
			val, ok = u.Values[len(u.Values)-1], true
		}
	}
	return val, ok
}

// HasFlag reports whether the server gets an SGLang flag, by canonical
// name ("--enable-metrics"), from the profile's args or after --.
func (p *Plan) HasFlag(canonical string) bool {
	for _, u := range sglangArgs().Split(p.ServerArgs()) {
		if u.Canonical == canonical {
			return true
		}
	}
	return false
}

// Port is the server's HTTP port (SGLang's default 30000).
func (p *Plan) Port() int {
	if v, ok := p.Arg("--port"); ok {
		if n, err := strconv.Atoi(v); err == nil {
			return n
		}
	}
	return 30000
}

// Host is the address the server binds (SGLang's default 127.0.0.1).
func (p *Plan) Host() string {
	if v, ok := p.Arg("--host"); ok {
		return v
	}
	return "127.0.0.1"
}

// ProbeHost is where sglaunch reaches the server: a wildcard bind address
// (0.0.0.0, ::) means loopback.
func (p *Plan) ProbeHost() string {
	h := p.Host()
	if ip := net.ParseIP(h); ip != nil && ip.IsUnspecified() {
		if ip.To4() != nil {
			return "127.0.0.1"
		}
		return "::1"
	}
	return h
}

// BaseURL is the server's HTTP address as sglaunch reaches it.
func (p *Plan) BaseURL() string {
	return "http://" + net.JoinHostPort(p.ProbeHost(), strconv.Itoa(p.Port()))
}

// EnvValue returns a managed variable's value.
func (p *Plan) EnvValue(name string) (string, bool) {
	for _, e := range p.Env {
		if e.Name == name {
			return e.Value, true
		}
	}
	return "", false
}

// APIKey is the server's --api-key, which requests must carry ("" when
// the server takes requests without one).
func (p *Plan) APIKey() string {
	v, _ := p.Arg("--api-key")
	return v
}

// ServerArgs are the server's flags: the argv after python -m module.
func (p *Plan) ServerArgs() []string { return p.Argv[3:] }
