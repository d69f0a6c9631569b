package hostprobe

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"time"

	"github.com/sglaunch/sglaunch/internal/childproc"
	"github.com/sglaunch/sglaunch/internal/tail"
)

//go:embed siteprobe.py
var siteProbeSrc string

// siteProbeTimeout bounds one interpreter start; site hooks are quick.
// childproc holds it even against a hook that leaves a daemon holding
// stdout: the probe returns within it plus childproc's WaitDelay. A
// variable, so that tests can shorten it.
var siteProbeTimeout = 20 * time.Second

// SiteChange is one change Python's site initialisation made to a
// managed variable.
type SiteChange struct {
	Name   string `json:"name"`
	Before string `json:"before"`
	After  string `json:"after"`
	Unset  bool   `json:"unset,omitempty"` // the hook removed it
	File   string `json:"file"`            // sitecustomize.py, usercustomize.py or a .pth file
	Line   int    `json:"line"`
}

// Where says which file made the change.
func (c SiteChange) Where() string {
	if c.Line > 0 {
		return fmt.Sprintf("%s:%d", c.File, c.Line)
	}
	return c.File
}

// ProbeSite runs python with environ (exactly that environment) in dir,
// lets site initialisation run as it does at every start, and reports
// every managed variable (names, or prefixes ending in _) it changed.
func ProbeSite(ctx context.Context, python string, environ []string, dir string, managed []string) ([]SiteChange, error) {
	m, _ := json.Marshal(managed)
	// -S: the probe installs its hooks first, then runs site.main() itself.
	res := childproc.Run(ctx, childproc.Spec{
		Argv: []string{python, "-S", "-c",
			"import sys;exec(compile(sys.argv[1],'<sglaunch-site-probe>','exec'))", siteProbeSrc, string(m)},
		Env: environ, Dir: dir, Timeout: siteProbeTimeout,
	})
	if res.Err != nil {
		return nil, fmt.Errorf("python start-up probe (%s): %w: %s", python, res.Err, tail.Line(res.Stderr, 5))
	}
	var out struct {
		Changes []SiteChange `json:"changes"`
	}
	if err := json.Unmarshal(res.Stdout, &out); err != nil {
		return nil, fmt.Errorf("python start-up probe (%s): unreadable answer %q: %w", python, tail.Line(res.Stdout, 3), err)
	}
	return out.Changes, nil
}
