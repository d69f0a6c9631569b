package verify

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/sglaunch/sglaunch/internal/childproc"
	"github.com/sglaunch/sglaunch/internal/proc"
	"github.com/sglaunch/sglaunch/internal/runstate"
	"github.com/sglaunch/sglaunch/internal/tail"
	"github.com/sglaunch/sglaunch/plan"
)

// Target says where the deployment is: at most one of PID, Port, URL,
// Unit; none means "the running sglaunch launch", from the runtime state.
type Target struct {
	PID     int
	Port    int
	URL     string
	Unit    string
	Profile string // with no other target: pick this profile's launch (its name or file)
	// RuntimeDir holds the runtime state files.
	RuntimeDir string
	// APIKey is the bearer token for the server's API when neither the
	// server's command line nor the expected plan tells it (a remote
	// --url, a record's redacted plan); sglaunch passes OPENAI_API_KEY,
	// as bench --url does. See APIKey for the one rule.
	APIKey string
	// Group: the server is rank 0 of a multi-node server running on this
	// host, and Read observes every other rank too.
	Group bool
}

// Located is the server a target resolved to.
type Located struct {
	ServerPID int
	URL       string
	State     *runstate.State // the sglaunch launch, when one is known
	How       string          // how it was found, for the report
	// APIKey is the bearer token the reading's requests carry ("":
	// none); Read sets it.
	APIKey string
	// UnitPID is the main process of the systemd unit the target named
	// (--unit; 0 otherwise): sglaunch, whose command line pins python.
	UnitPID int
}

// Locate finds the server process and its HTTP address.
func Locate(ctx context.Context, t Target) (*Located, error) {
	states, err := runstate.ListAll(t.RuntimeDir)
	if err != nil {
		return nil, err
	}
	switch {
	case t.Unit != "":
		pid, err := unitMainPID(ctx, t.Unit)
		if err != nil {
			return nil, err
		}
		l, err := fromPID(pid, states, "unit "+t.Unit)
		if l != nil {
			l.UnitPID = pid
		}
		return l, err
	case t.PID > 0:
		return fromPID(t.PID, states, "pid "+strconv.Itoa(t.PID))
	case t.Port > 0:
		pid, err := proc.ListeningPID(t.Port)
		if err != nil {
			return nil, fmt.Errorf("find the process listening on port %d: %w", t.Port, err)
		}
		if pid == 0 {
			return nil, fmt.Errorf("nothing listens on port %d that can be inspected (a server still loading has not bound its port yet): %w", t.Port, ErrNoTarget)
		}
		l, err := fromPID(pid, states, "port "+strconv.Itoa(t.Port))
		if err == nil {
			l.URL = "http://127.0.0.1:" + strconv.Itoa(t.Port)
		}
		return l, err
	case t.URL != "":
		u, err := url.Parse(t.URL)
		if err != nil || u.Host == "" {
			return nil, fmt.Errorf("--url %q: want http://HOST:PORT", t.URL)
		}
		l := &Located{URL: strings.TrimRight(t.URL, "/"), How: "url " + t.URL}
		if port, _ := strconv.Atoi(u.Port()); port > 0 && isLocal(u.Hostname()) {
			if pid, _ := proc.ListeningPID(port); pid > 0 {
				if found, err := fromPID(pid, states, l.How); err == nil {
					found.URL = l.URL
					return found, nil
				}
			}
		}
		return l, nil
	}
	return fromState(states, t.Profile, t.RuntimeDir)
}

// fromPID resolves a pid that may be sglaunch itself to its server.
func fromPID(pid int, states []*runstate.State, how string) (*Located, error) {
	if !proc.Alive(pid) {
		return nil, fmt.Errorf("pid %d: %w", pid, ErrGone)
	}
	for _, s := range states {
		// A state speaks for a pid only while its processes are the
		// ones it recorded: a reused pid is another process.
		if s.Stale || s.NoServer {
			continue
		}
		if s.SglaunchPID == pid || (s.ServerPID == pid && s.ServerRunning()) {
			return &Located{ServerPID: s.ServerPID, URL: s.URL, State: s, How: how}, nil
		}
	}
	if isSglaunch(pid) {
		kids, err := proc.Descendants(pid)
		if err != nil {
			return nil, err
		}
		for _, k := range kids {
			if argv, err := proc.Cmdline(k); err == nil && plan.ArgvTail(argv) != nil {
				return &Located{ServerPID: k, URL: urlFromArgv(argv), How: how + " (sglaunch; its server is pid " + strconv.Itoa(k) + ")"}, nil
			}
		}
		return nil, fmt.Errorf("pid %d is sglaunch but runs no server: %w", pid, ErrGone)
	}
	argv, err := proc.Cmdline(pid)
	if err != nil {
		return nil, fmt.Errorf("read argv of pid %d: %w", pid, err)
	}
	return &Located{ServerPID: pid, URL: urlFromArgv(argv), How: how}, nil
}

// fromState picks the running launch of profile (a name or a profile
// file's path; empty: any) from the runtime states.
func fromState(states []*runstate.State, profile, dir string) (*Located, error) {
	var live, stale []*runstate.State
	for _, s := range states {
		if s.NoServer || !s.Matches(profile) {
			continue
		}
		switch {
		case s.Stale:
			stale = append(stale, s)
		case s.ServerPID == 0 || s.ServerRunning():
			live = append(live, s) // starting, or running
		default:
			stale = append(stale, s)
		}
	}
	switch {
	case len(live) == 1:
		return &Located{ServerPID: live[0].ServerPID, URL: live[0].URL, State: live[0], How: "runtime state " + live[0].Path}, nil
	case len(live) > 1:
		var names []string
		for _, s := range live {
			names = append(names, fmt.Sprintf("%s (launch %s, server pid %d, sglaunch pid %d)", s.Profile, s.LaunchID, s.ServerPID, s.SglaunchPID))
		}
		return nil, fmt.Errorf("several launches are running: %s; choose one with --pid (the server's or its sglaunch's) or --port", strings.Join(names, ", "))
	case len(stale) > 0:
		s := stale[0]
		why := fmt.Sprintf("its sglaunch (pid %d) is gone", s.SglaunchPID)
		if !s.Stale {
			why = fmt.Sprintf("its server (pid %d) is gone", s.ServerPID)
		}
		return nil, fmt.Errorf("the launch recorded in %s is no longer running (%s); the state file is stale: %w", s.Path, why, ErrGone)
	}
	return nil, fmt.Errorf("no running sglaunch launch in %s; give --pid, --port, --url or --unit: %w", dir, ErrNoTarget)
}

// systemctlTimeout bounds `systemctl show`, which answers at once unless
// the system manager is stuck.
const systemctlTimeout = 10 * time.Second

func unitMainPID(ctx context.Context, unit string) (int, error) {
	res := childproc.Run(ctx, childproc.Spec{
		Argv:    []string{"systemctl", "show", "-p", "MainPID", "--value", unit},
		Timeout: systemctlTimeout,
	})
	if res.Err != nil {
		if t := tail.Line(res.Stderr, 2); t != "" {
			return 0, fmt.Errorf("systemctl show %s: %w: %s", unit, res.Err, t)
		}
		return 0, fmt.Errorf("systemctl show %s: %w", unit, res.Err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(res.Stdout)))
	if err != nil || pid == 0 {
		return 0, fmt.Errorf("unit %s has no main process (not running?): %w", unit, ErrGone)
	}
	return pid, nil
}

func isSglaunch(pid int) bool {
	argv, err := proc.Cmdline(pid)
	return err == nil && len(argv) > 0 && filepath.Base(argv[0]) == "sglaunch"
}

// urlFromArgv derives the server's address from its --host/--port flags.
func urlFromArgv(argv []string) string {
	host, port := "127.0.0.1", "30000"
	for _, u := range plan.Flags(plan.ArgvTail(argv)) {
		if len(u.Values) == 0 {
			continue
		}
		switch u.Name {
		case "--host":
			host = u.Values[0]
		case "--port":
			port = u.Values[0]
		}
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port)
}

func isLocal(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && (ip.IsLoopback() || ip.IsUnspecified())
}

// Argv reads the located server's command line.
func (l *Located) Argv() ([]string, error) { return proc.Cmdline(l.ServerPID) }
