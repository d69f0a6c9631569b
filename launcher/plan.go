package launcher

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
	Module  string   `json:"module"`
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
	// Settings are python, module, stop_timeout and health.*, each with
	// its layer.
	Settings map[string]profiles.Value `json:"-"`
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

// Setting returns the text of a setting (defaults applied).
func (p *Plan) Setting(key string) string { return p.Settings[key].Text }

// Duration returns a duration setting.
func (p *Plan) Duration(key string) time.Duration { return profiles.Duration(p.Settings[key]) }

// Int returns an integer setting.
func (p *Plan) Int(key string) int {
	n, _ := strconv.Atoi(p.Settings[key].Text)
	return n
}

// arg returns the last value given for an SGLang flag, by canonical name,
// looking through the profile's args and the extra arguments alike.
func (p *Plan) arg(canonical string) (string, bool) {
	val, ok := "", false
	for _, u := range sglangArgs().Split(p.Argv[3:]) {
		if u.Canonical == canonical && len(u.Values) > 0 {
			val, ok = u.Values[len(u.Values)-1], true
		}
	}
	return val, ok
}

// Port is the server's HTTP port (SGLang's default 30000).
func (p *Plan) Port() int {
	if v, ok := p.arg("--port"); ok {
		if n, err := strconv.Atoi(v); err == nil {
			return n
		}
	}
	return 30000
}

// Host is the address the server binds (SGLang's default 127.0.0.1).
func (p *Plan) Host() string {
	if v, ok := p.arg("--host"); ok {
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
