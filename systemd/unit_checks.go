package systemd

import (
	"fmt"
	"os/user"
	"path/filepath"
	"strings"

	"github.com/sglaunch/sglaunch/internal/inputerr"
	"github.com/sglaunch/sglaunch/plan"
)

// LookupAccount finds an account by name or uid.
func LookupAccount(name string) error {
	var err error
	if strings.Trim(name, "0123456789") == "" {
		_, err = user.LookupId(name)
	} else {
		_, err = user.Lookup(name)
	}
	return err
}

// CheckUser refuses a --user this host has no account for (lookup says
// which exist): the unit would be written, and the service would fail at
// its first start with status 217/USER. "" (root) is always there.
func CheckUser(name string, lookup func(string) error) error {
	if name == "" {
		return nil
	}
	if err := lookup(name); err != nil {
		return inputerr.Errorf("--user %s: no such account on this host (%v); create it first (useradd --system %s) or name another", name, err, name)
	}
	return nil
}

// Warnings names what a unit for p will not carry to the service: the
// state directories of this shell (lookupEnv reads it), and, under
// o.Harden's PrivateTmp=yes, files under /tmp that the service will not
// see.
func Warnings(p *plan.Plan, o UnitOptions, lookupEnv func(string) (string, bool)) []string {
	var out []string
	for _, name := range []string{"SGLAUNCH_STATE_DIR", "SGLAUNCH_RUNTIME_DIR"} {
		if v, ok := lookupEnv(name); ok && v != "" {
			out = append(out, fmt.Sprintf("%s=%s does not reach the service (the unit has no Environment= lines): it keeps its state in systemd's StateDirectory= and RuntimeDirectory= (/var/lib/sglaunch, /run/sglaunch); read them there with %s unset", name, v, name))
		}
	}
	if !o.Harden {
		return out
	}
	for _, f := range []struct{ what, path string }{{"the sglaunch binary", o.Exe}, {"the profile", p.Source}, {"the interpreter", p.Python}} {
		if underTmp(f.path) {
			out = append(out, fmt.Sprintf("%s %s is under /tmp, which --harden's PrivateTmp=yes hides from the service: move it elsewhere, or drop --harden", f.what, f.path))
		}
	}
	return out
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

// HomeOf is the home directory of the account the service runs as (root
// when none is named), "" when unknown.
func HomeOf(name string) string {
	var u *user.User
	var err error
	switch {
	case name == "":
		u, err = user.LookupId("0")
	case strings.Trim(name, "0123456789") == "":
		u, err = user.LookupId(name)
	default:
		u, err = user.Lookup(name)
	}
	if err != nil {
		return ""
	}
	return u.HomeDir
}
