package status

import (
	"os"

	"github.com/sglaunch/sglaunch/health"
	"github.com/sglaunch/sglaunch/internal/runstate"
	"github.com/sglaunch/sglaunch/plan"
)

// Known is what the caller learnt of a launch elsewhere before it
// starts: the SGLang version the plan's interpreter imports ("" when
// unknown), the benchmark it reproduces (nil: not looked up) and its
// rank (nil: one node).
type Known struct {
	SGLangVersion string
	Benchmarked   *Benchmark
	Group         *runstate.Group
}

// NewInfo is what /status says of a launch of p before it starts: the
// plan's identity, the last load of the plan (the load history under
// stateDir) and the profile's launches on this host. A serve is counted
// as one more launch; a bench only reads the count. A launch count that
// cannot be kept is returned as the error beside a usable Info.
func NewInfo(p *plan.Plan, stateDir string, k Known) (Info, error) {
	info := Info{
		Profile: p.Profile, Mode: p.Mode, Fingerprint: p.Fingerprint, Interpreter: p.Python, URL: p.BaseURL(),
		SglaunchPID: os.Getpid(), LivenessInterval: p.Health.Interval,
		SGLangVersion: k.SGLangVersion, Benchmarked: k.Benchmarked, Group: k.Group,
	}
	if last, ok := (health.History{Dir: stateDir}).Last(p.Fingerprint); ok {
		info.LastLoad = &last
	}
	var err error
	if p.Mode == plan.ModeServe {
		info.Launches, err = CountLaunch(stateDir, p.Profile)
		info.LaunchesDir = stateDir
	} else {
		info.Launches, err = ReadLaunches(stateDir, p.Profile)
	}
	return info, err
}
