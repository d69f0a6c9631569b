package main

import (
	"fmt"
	"os/user"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/sglaunch/sglaunch/internal/inputerr"
	"github.com/sglaunch/sglaunch/internal/logging"
	"github.com/sglaunch/sglaunch/plan"
)

// lookupAccount finds an account by name or uid; tests replace it.
var lookupAccount = defaultLookupAccount

func defaultLookupAccount(name string) error {
	var err error
	if strings.Trim(name, "0123456789") == "" {
		_, err = user.LookupId(name)
	} else {
		_, err = user.Lookup(name)
	}
	return err
}

// checkUnitUser refuses a --user this host has no account for: the unit
// would be written, and the service would fail at its first start with
// status 217/USER.
func checkUnitUser(c *cli.Context) error {
	name := c.String("user")
	if name == "" {
		return nil
	}
	if err := lookupAccount(name); err != nil {
		return inputerr.Errorf("--user %s: no such account on this host (%v); create it first (useradd --system %s) or name another", name, err, name)
	}
	return nil
}

// unitWarnings names what a unit will not carry to the service: the
// state directories of this shell, and, under --harden's PrivateTmp=yes,
// files under /tmp that the service will not see.
func (e *env) unitWarnings(c *cli.Context, p *plan.Plan, exe string) error {
	log, err := logging.New(e.stderr, logging.Text)
	if err != nil {
		return err
	}
	for _, name := range []string{"SGLAUNCH_STATE_DIR", "SGLAUNCH_RUNTIME_DIR"} {
		if v, ok := e.lookupEnv(name); ok && v != "" {
			log.Warn(fmt.Sprintf("%s=%s does not reach the service (the unit has no Environment= lines): it keeps its state in systemd's StateDirectory= and RuntimeDirectory= (/var/lib/sglaunch, /run/sglaunch); read them there with %s unset", name, v, name))
		}
	}
	if !c.Bool("harden") {
		return nil
	}
	for _, f := range []struct{ what, path string }{{"the sglaunch binary", exe}, {"the profile", p.Source}, {"the interpreter", p.Python}} {
		if underTmp(f.path) {
			log.Warn(fmt.Sprintf("%s %s is under /tmp, which --harden's PrivateTmp=yes hides from the service: move it elsewhere, or drop --harden", f.what, f.path))
		}
	}
	return nil
}

func underTmp(path string) bool {
	if !filepath.IsAbs(path) {
		return false
	}
	if resolved, err := filepath.EvalSymlinks(path); err == nil {
		path = resolved
	}
	for _, tmp := range []string{"/tmp", "/var/tmp"} {
		if path == tmp || strings.HasPrefix(path, tmp+"/") {
			return true
		}
	}
	return false
}
