package main

import (
	"slices"

	"github.com/urfave/cli/v2"

	"github.com/sglaunch/sglaunch/catalog"
	"github.com/sglaunch/sglaunch/internal/inputerr"
	"github.com/sglaunch/sglaunch/internal/statedir"
	"github.com/sglaunch/sglaunch/plan"
	"github.com/sglaunch/sglaunch/profiles"
	"github.com/sglaunch/sglaunch/sim"
)

// Flags shared by the commands that resolve a plan.
var (
	profileFlag = &cli.StringFlag{Name: "profile", Aliases: []string{"p"}, Usage: "profile `NAME` or path (default $SGLAUNCH_PROFILE)"}
	setFlag     = &cli.StringSliceFlag{Name: "set", Usage: "override a value; `KEY=VALUE` is args.FLAG=VALUE, env.NAME=VALUE, python=..., health.KEY=... (repeatable)"}
	unsetFlag   = &cli.StringSliceFlag{Name: "unset", Usage: "remove a flag or variable, or reset a setting; `KEY` is args.FLAG, env.NAME or a setting (repeatable)"}
	jsonFlag    = &cli.BoolFlag{Name: "json", Usage: "print JSON"}
)

func modeFlag(def string) *cli.StringFlag {
	return &cli.StringFlag{Name: "mode", Value: def, Usage: "resolve for `MODE`: serve or bench"}
}

// settings reads the SGLAUNCH_* variables.
func (e *env) settings(c *cli.Context) (plan.Config, error) {
	s, err := plan.LoadConfig(c.Context, e.lookupEnv)
	if err != nil {
		return s, inputerr.Errorf("SGLAUNCH_* environment: %w", err)
	}
	return s, nil
}

func (e *env) finder(s plan.Config) *profiles.Finder {
	return &profiles.Finder{Dirs: profiles.SearchDirs(s.ProfilePath, e.getenv)}
}

// loadProfile finds the profile named by --profile or SGLAUNCH_PROFILE.
func (e *env) loadProfile(c *cli.Context, s plan.Config) (*profiles.Profile, error) {
	ref := c.String("profile")
	if ref == "" {
		ref = s.Profile
	}
	if ref == "" {
		return nil, inputerr.Errorf("no profile given; use --profile NAME (or set SGLAUNCH_PROFILE); `sglaunch profiles list` shows them")
	}
	return e.finder(s).Load(ref)
}

// loadPlan resolves the plan for mode from the command line; a flag's
// value of the wrong type (tp: eight) is an input error.
func (e *env) loadPlan(c *cli.Context, mode string) (*plan.Plan, plan.Config, error) {
	return e.resolvePlan(c, mode, false)
}

// resolvePlan resolves the plan for mode from the command line;
// keepMistyped leaves values of the wrong type for preflight to list.
func (e *env) resolvePlan(c *cli.Context, mode string, keepMistyped bool) (*plan.Plan, plan.Config, error) {
	s, err := e.settings(c)
	if err != nil {
		return nil, s, err
	}
	if mode != plan.ModeServe && mode != plan.ModeBench {
		return nil, s, inputerr.Errorf("--mode %q: want serve or bench", mode)
	}
	p, err := e.loadProfile(c, s)
	if err != nil {
		return nil, s, err
	}
	extra, err := e.passthrough(c)
	if err != nil {
		return nil, s, err
	}
	plan, err := plan.Resolve(plan.Request{
		Profile:  p,
		Mode:     mode,
		Config:   s,
		Sets:     c.StringSlice("set"),
		Unsets:   c.StringSlice("unset"),
		Extra:    extra,
		Environ:  e.environ(),
		LookPath: e.lookPath,
		SimDir:   e.simDir(c),
		// Only serve and bench define --status-addr.
		StatusAddr:   c.String("status-addr"),
		KeepMistyped: keepMistyped,
	})
	return plan, s, err
}

// simDir unpacks the simulated SGLang server on first use.
func (e *env) simDir(c *cli.Context) func() (string, error) {
	return func() (string, error) {
		return sim.Ensure(c.Context, statedir.Cache(e.getenv), catalog.SGLangArgsJSON())
	}
}

// passthrough returns the arguments after --, which go to the server
// verbatim; any other positional argument is an error.
func (e *env) passthrough(c *cli.Context) ([]string, error) {
	args := c.Args().Slice()
	i := slices.Index(e.args, "--")
	var after []string
	if i >= 0 {
		after = e.args[i+1:]
	}
	if len(args) > len(after) {
		return nil, inputerr.Errorf("unexpected argument %q; server flags go after --, like: sglaunch %s --profile X -- --log-level debug", args[0], c.Command.Name)
	}
	return args, nil
}
