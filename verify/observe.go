package verify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/sglaunch/sglaunch/internal/hostprobe"
	"github.com/sglaunch/sglaunch/internal/proc"
	"github.com/sglaunch/sglaunch/internal/redact"
	"github.com/sglaunch/sglaunch/internal/sglangapi"
	"github.com/sglaunch/sglaunch/plan"
)

// serverInfoTimeout bounds the /server_info request.
const serverInfoTimeout = 15 * time.Second

// Process is one observed process of the deployment.
type Process struct {
	PID    int               `json:"pid"`
	PPID   int               `json:"ppid"`
	Comm   string            `json:"comm"`
	Argv   []string          `json:"argv"`
	Env    map[string]string `json:"env,omitempty"`
	EnvErr string            `json:"env_error,omitempty"`
	// EnvUnreadable: the environ area was overwritten (setproctitle), so
	// the process's variables cannot be known, which is not drift.
	EnvUnreadable bool `json:"env_unreadable,omitempty"`
	// NCCLConf lists what NCCL's config files would fill in for this
	// process's environment.
	NCCLConf []hostprobe.ConfEntry `json:"nccl_conf,omitempty"`
}

// MarshalJSON writes the process with secret values masked in its argv
// and environment, as the text report shows them.
func (p Process) MarshalJSON() ([]byte, error) {
	type plain Process
	q := plain(p)
	q.Argv = redact.Argv(p.Argv)
	q.Env = redactEnv(p.Env)
	return json.Marshal(q)
}

// Observation is what verify saw of a live deployment.
type Observation struct {
	ServerPID     int                    `json:"server_pid"`
	Procs         []Process              `json:"processes"` // the server first, then its descendants
	URL           string                 `json:"url,omitempty"`
	ServerInfo    map[string]any         `json:"-"`
	ServerInfoAt  string                 `json:"server_info_endpoint,omitempty"`
	ServerInfoErr string                 `json:"server_info_error,omitempty"`
	Version       string                 `json:"server_version,omitempty"`
	Site          []hostprobe.SiteChange `json:"site_changes"`
	SiteErr       string                 `json:"site_probe_error,omitempty"`
	Python        string                 `json:"python,omitempty"`
	// Interpreter is what the server process runs (/proc/PID/exe).
	Interpreter *Interpreter `json:"interpreter,omitempty"`
}

// Server returns the server process, when one was observed.
func (o *Observation) Server() (Process, bool) {
	if len(o.Procs) == 0 {
		return Process{}, false
	}
	return o.Procs[0], true
}

// Observe reads the deployment whose server is pid (0: none, only url)
// and whose HTTP address is url ("" when unknown): its processes, their
// NCCL config files, what site initialisation does in its interpreter,
// and /server_info, asked with apiKey ("": none; Read chooses it by the
// one rule, apiKey). managed names the variables the site probe watches.
func Observe(ctx context.Context, pid int, url string, managed []string, apiKey string) (*Observation, error) {
	o := &Observation{ServerPID: pid, URL: url, Site: []hostprobe.SiteChange{}}
	if pid > 0 {
		if !proc.Alive(pid) {
			return nil, fmt.Errorf("server pid %d: %w", pid, ErrGone)
		}
		pids, err := proc.Descendants(pid)
		if err != nil {
			return nil, fmt.Errorf("list descendants of %d: %w", pid, err)
		}
		for _, p := range append([]int{pid}, pids...) {
			o.Procs = append(o.Procs, readProcess(p))
		}
		o.Interpreter = observedInterpreter(o.Procs[0])
		o.probeSite(ctx, managed)
	}
	if url != "" {
		o.serverInfo(ctx, apiKey)
	}
	return o, nil
}

// ObserveRank is a worker rank's observation of its own server (pid),
// for rank 0's verify --group: its processes, site hooks and NCCL config
// files (a worker serves no /server_info), as JSON.
func ObserveRank(ctx context.Context, pid int, managed []string) ([]byte, error) {
	if pid == 0 {
		return nil, errors.New("its server is not running")
	}
	o, err := Observe(ctx, pid, "", managed, "")
	if err != nil {
		return nil, err
	}
	return json.Marshal(o)
}

func readProcess(pid int) Process {
	p := Process{PID: pid}
	if st, err := proc.ReadStat(pid); err == nil {
		p.PPID, p.Comm = st.PPID, st.Comm
	}
	p.Argv, _ = proc.Cmdline(pid)
	env, err := proc.Environ(pid)
	if err != nil {
		p.EnvErr = err.Error()
		return p
	}
	if overwritten(env) {
		// Not "no variables": the variables are there, the kernel just
		// cannot show them. Comparing nothing beats reporting MISSING.
		p.EnvErr = fmt.Sprintf("pid %d (%s): environment unreadable: its environ area was overwritten when SGLang retitled it with setproctitle (without SPT_NOENV=1 in the server's environment, /proc/%d/environ reads back as NUL bytes); its variables are not compared. Start the server with SPT_NOENV=1, as sglaunch does, to verify every rank", pid, title(p), pid)
		p.EnvUnreadable = true
		return p
	}
	p.Env = proc.EnvMap(env)
	if conf, err := hostprobe.NCCLConf(p.Env); err == nil {
		p.NCCLConf = conf
	}
	return p
}

// probeSite runs the server's own interpreter with the server's own
// environment and working directory to see what site initialisation does.
func (o *Observation) probeSite(ctx context.Context, managed []string) {
	srv := o.Procs[0]
	if srv.Env == nil || len(srv.Argv) == 0 {
		o.SiteErr = "no environment to probe with"
		return
	}
	python := srv.Argv[0]
	if !filepath.IsAbs(python) {
		if exe, err := os.Readlink(filepath.Join(proc.Root, strconv.Itoa(srv.PID), "exe")); err == nil {
			python = exe
		}
	}
	o.Python = python
	cwd, err := os.Readlink(filepath.Join(proc.Root, strconv.Itoa(srv.PID), "cwd"))
	if err != nil {
		cwd = "/"
	}
	var environ []string
	for k, v := range srv.Env {
		environ = append(environ, k+"="+v)
	}
	if len(managed) == 0 {
		managed = plan.DefaultManaged
	}
	changes, err := hostprobe.ProbeSite(ctx, python, environ, cwd, managed)
	if err != nil {
		o.SiteErr = err.Error()
		return
	}
	o.Site = changes
}

// serverInfo asks the server for its parsed arguments: /server_info, or
// /get_server_info on older SGLang, with apiKey as the bearer token.
func (o *Observation) serverInfo(ctx context.Context, apiKey string) {
	c := sglangapi.New(o.URL, sglangapi.Options{APIKey: apiKey, InfoTimeout: serverInfoTimeout})
	defer c.Close()
	info, path, err := c.ServerInfo(ctx)
	if err != nil {
		o.ServerInfoErr = err.Error()
		return
	}
	o.ServerInfo, o.ServerInfoAt = info, path
	if v, ok := info["version"].(string); ok {
		o.Version = v
	}
}

// overwritten reports an environ area that holds no NAME=value entry:
// setproctitle without SPT_NOENV moves the environment away and clears
// the area the kernel reads /proc/PID/environ from. Every process SGLang
// starts has a PATH at least, so an empty environment means this.
func overwritten(environ []string) bool {
	for _, kv := range environ {
		if strings.Contains(kv, "=") {
			return false
		}
	}
	return true
}

// title is how a process names itself: its argv[0] (a retitled worker's
// title), else its comm.
func title(p Process) string {
	if len(p.Argv) > 0 && p.Argv[0] != "" {
		return p.Argv[0]
	}
	return p.Comm
}
