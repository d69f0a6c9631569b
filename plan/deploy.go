package plan

import (
	"fmt"

	"github.com/sglaunch/sglaunch/profiles"
)

// ForDeployment is s for a plan that a unit or a job file runs
// elsewhere: without the settings that live only in the operator's
// shell (SGLAUNCH_SET, SGLAUNCH_HOST, SGLAUNCH_PORT), so that the
// fingerprint is the one the deployment computes. It names each one left
// out; leftOut says where and why.
func (s Config) ForDeployment(leftOut string) (Config, []string) {
	var warnings []string
	for _, x := range []struct {
		name string
		set  bool
	}{{"SGLAUNCH_SET", len(s.Set) > 0}, {"SGLAUNCH_HOST", s.Host != ""}, {"SGLAUNCH_PORT", s.Port != ""}} {
		if x.set {
			warnings = append(warnings, x.name+" is left out of "+leftOut+"; put the values in the profile")
		}
	}
	s.Set, s.Host, s.Port = nil, "", ""
	return s, warnings
}

// InheritGone names each inherit_env variable of p set here (lookupEnv)
// that the deployment will not see; why says why.
func InheritGone(p *profiles.Profile, lookupEnv func(string) (string, bool), why string) []string {
	var warnings []string
	for _, name := range p.InheritEnv {
		if _, ok := lookupEnv(name); ok {
			warnings = append(warnings, fmt.Sprintf("inherit_env %s is set in your environment, but %s", name, why))
		}
	}
	return warnings
}
