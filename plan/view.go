package plan

import (
	"encoding/json"

	"github.com/sglaunch/sglaunch/internal/redact"
)

// View is the plan as printed and stored: secrets redacted, every value
// with its layer. `sglaunch config --json`, bench records and verify use it.
type View struct {
	Version     string            `json:"sglaunch_version"`
	Profile     string            `json:"profile"`
	Source      string            `json:"source"`
	Chain       []string          `json:"extends,omitempty"`
	Mode        string            `json:"mode"`
	Fingerprint string            `json:"fingerprint"`
	Python      string            `json:"python"`
	Module      string            `json:"module"`
	Argv        []string          `json:"argv"`
	Extra       []string          `json:"extra,omitempty"`
	Env         map[string]string `json:"env"`
	// EnvRaw holds the variables whose value was written with
	// ${SGLAUNCH_SIM_DIR}, as written: the fingerprint uses it so that it
	// does not depend on a cache path.
	EnvRaw     map[string]string `json:"env_as_written,omitempty"`
	EnvOrder   []string          `json:"env_order"`
	Provenance map[string]string `json:"provenance"`
	Dropped    []Dropped         `json:"dropped"`
	OverlayAdd []string          `json:"overlay_added"`
	Settings   map[string]string `json:"settings"`
	Managed    []string          `json:"managed_env"`
}

// View returns the redacted, printable form of the plan.
func (p *Plan) View() View {
	v := View{
		Version: p.Version, Profile: p.Profile, Source: p.Source, Chain: p.Chain, Mode: p.Mode,
		Fingerprint: p.Fingerprint, Python: p.Python, Module: p.Module,
		Argv: redact.Argv(p.Argv), Extra: redact.Argv(p.Extra),
		Env: map[string]string{}, Provenance: p.Provenance, Dropped: []Dropped{},
		OverlayAdd: p.OverlayAdded, Settings: map[string]string{}, Managed: p.Managed,
	}
	if v.OverlayAdd == nil {
		v.OverlayAdd = []string{}
	}
	for _, e := range p.Env {
		v.Env[e.Name] = redact.Value(e.Name, e.Value)
		v.EnvOrder = append(v.EnvOrder, e.Name)
		if e.Raw != e.Value {
			if v.EnvRaw == nil {
				v.EnvRaw = map[string]string{}
			}
			v.EnvRaw[e.Name] = redact.Value(e.Name, e.Raw)
		}
	}
	for _, d := range p.Dropped {
		d.Value = redact.Value(d.Name, d.Value)
		v.Dropped = append(v.Dropped, d)
	}
	for k, s := range p.Settings {
		v.Settings[k] = s.Text
	}
	return v
}

// JSON is the view as indented JSON.
func (v View) JSON() []byte {
	b, _ := json.MarshalIndent(v, "", "  ")
	return append(b, '\n')
}
