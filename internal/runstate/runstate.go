package runstate

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/sglaunch/sglaunch/health"
	"github.com/sglaunch/sglaunch/internal/proc"
	"github.com/sglaunch/sglaunch/internal/statefile"
	"github.com/sglaunch/sglaunch/plan"
	"github.com/sglaunch/sglaunch/profiles"
)

// maxStateBytes bounds a state file read: a plan is a few KB.
const maxStateBytes = 4 << 20

// State is one launch.
type State struct {
	// LaunchID names the launch; every process it starts carries it as
	// plan.LaunchIDVar in its environment.
	LaunchID string `json:"launch_id"`
	Profile  string `json:"profile"`
	// Source is the profile's file (absolute) or "built-in".
	Source      string `json:"source,omitempty"`
	Mode        string `json:"mode"`
	Fingerprint string `json:"fingerprint"`
	// SglaunchPID and ServerPID with their start times, in the boot
	// BootID names, identify the processes (proc.Identity); ServerPID is
	// 0 until the server runs. The executables were recorded by older
	// sglaunch versions only: a server started through a shim (pyenv's
	// python3) runs another one than was forked.
	SglaunchPID   int    `json:"sglaunch_pid"`
	SglaunchStart uint64 `json:"sglaunch_start_time,omitempty"`
	SglaunchExe   string `json:"sglaunch_exe,omitempty"`
	ServerPID     int    `json:"server_pid"`
	ServerStart   uint64 `json:"server_start_time,omitempty"`
	ServerExe     string `json:"server_exe,omitempty"`
	BootID        string `json:"boot_id,omitempty"`
	// NoServer marks a launch that starts no server (bench --url): it may
	// still start command workloads.
	NoServer bool   `json:"no_server,omitempty"`
	Port     int    `json:"port"`
	URL      string `json:"url"`
	// StatusURL is the launch's status endpoint (--status-addr), if any.
	StatusURL string `json:"status_url,omitempty"`
	// Load is the load's timing: StartedAt is set at launch, the rest
	// (ReadyAt non-zero) once the server is ready.
	health.Load
	Plan plan.View `json:"plan"`
	// Group places a rank of a multi-node server (nil: one node).
	Group *Group `json:"group,omitempty"`
	Path  string `json:"-"`
	// Stale is set when the launch's sglaunch no longer runs.
	Stale bool `json:"-"`
}

// NewLaunchID returns a fresh launch id: 16 random hex digits.
func NewLaunchID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// SetSglaunch records the identity of sglaunch's own process.
func (s *State) SetSglaunch(pid int) {
	id, _ := proc.IdentityOf(pid)
	s.SglaunchPID, s.SglaunchStart, s.BootID = pid, id.StartTime, id.BootID
}

// SourceOf is how a state names a profile's file: absolute, so that a
// later --profile ./path.yaml from another directory still matches it.
func SourceOf(source string) string {
	if source == "" || source == profiles.BuiltinSource {
		return source
	}
	if abs, err := filepath.Abs(source); err == nil {
		return abs
	}
	return source
}

// SetServer records the identity of the server's main process.
func (s *State) SetServer(pid int) {
	id, _ := proc.IdentityOf(pid)
	s.ServerPID, s.ServerStart, s.BootID = pid, id.StartTime, id.BootID
}

// Sglaunch is the identity of the launch's sglaunch.
func (s *State) Sglaunch() proc.Identity {
	return proc.Identity{PID: s.SglaunchPID, StartTime: s.SglaunchStart, BootID: s.BootID, Exe: s.SglaunchExe}
}

// Server is the identity of the launch's server (PID 0 before it runs).
func (s *State) Server() proc.Identity {
	return proc.Identity{PID: s.ServerPID, StartTime: s.ServerStart, BootID: s.BootID, Exe: s.ServerExe}
}

// ServerRunning reports whether the server this state names still runs:
// the same process, not a later one with its pid.
func (s *State) ServerRunning() bool { return s.ServerPID > 0 && s.Server().Running() }

// Matches reports whether ref names this launch's profile: its name, or
// (a path) the file it was read from.
func (s *State) Matches(ref string) bool {
	if ref == "" || ref == s.Profile {
		return true
	}
	if !profiles.IsPath(ref) || s.Source == "" || s.Source == profiles.BuiltinSource {
		return false
	}
	if abs, err := filepath.Abs(ref); err == nil && abs == s.Source {
		return true
	}
	a, err1 := os.Stat(ref)
	b, err2 := os.Stat(s.Source)
	return err1 == nil && err2 == nil && os.SameFile(a, b)
}

// File is where the state of a launch lives under dir.
func File(dir, launchID string) string {
	return filepath.Join(dir, launchID+".json")
}

// Write stores s atomically under dir, in the file of its launch.
func Write(dir string, s *State) error {
	if s.LaunchID == "" || strings.ContainsAny(s.LaunchID, `/\.`) {
		return fmt.Errorf("runtime state: bad launch id %q", s.LaunchID)
	}
	if err := statefile.Write(File(dir, s.LaunchID), s); err != nil {
		return fmt.Errorf("runtime state: %w", err)
	}
	return nil
}

// Remove deletes the state file of one launch.
func Remove(dir, launchID string) error {
	if launchID == "" {
		return nil
	}
	return RemoveFile(File(dir, launchID))
}

// RemoveFile deletes one state file (a stale one, found by List).
func RemoveFile(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove runtime state: %w", err)
	}
	return nil
}

// List returns every state file in dir, stale ones marked, sorted by
// profile and start time. Files written by an older sglaunch (one per
// profile, no launch id) are listed too.
func List(dir string) ([]*State, error) {
	out, err := list(dir)
	sortStates(out)
	return out, err
}

// ListAll is List with the state files of the units beside dir too: a
// systemd unit of another account keeps its runtime state in a directory
// of its own (/run/sglaunch-UNIT beside /run/sglaunch), which status and
// verify read. Only reading: a launch acts (sweeps leftovers) on its own
// directory alone.
func ListAll(dir string) ([]*State, error) {
	out, err := list(dir)
	if err != nil {
		return nil, err
	}
	units, _ := filepath.Glob(filepath.Join(filepath.Dir(filepath.Clean(dir)), filepath.Base(filepath.Clean(dir))+"-*"))
	for _, u := range units {
		// A unit's directory that cannot be read (another account's,
		// 0700) holds nothing this user may act on.
		if fi, err := os.Lstat(u); err == nil && fi.IsDir() {
			more, _ := list(u)
			out = append(out, more...)
		}
	}
	sortStates(out)
	return out, nil
}

func list(dir string) ([]*State, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("runtime state: %w", err)
	}
	var out []*State
	for _, e := range entries {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".json") || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		s, err := read(filepath.Join(dir, e.Name()))
		if err != nil {
			continue // a file being replaced, or not ours
		}
		out = append(out, s)
	}
	return out, nil
}

// sortStates orders states by profile, then start time.
func sortStates(out []*State) {
	sort.Slice(out, func(i, j int) bool {
		if out[i].Profile != out[j].Profile {
			return out[i].Profile < out[j].Profile
		}
		return out[i].StartedAt.Before(out[j].StartedAt)
	})
}

func read(path string) (*State, error) {
	var s State
	if err := statefile.Read(path, maxStateBytes, &s); err != nil {
		return nil, fmt.Errorf("runtime state: %w", err)
	}
	s.Path = path
	s.Stale = !s.Sglaunch().Running()
	return &s, nil
}

// Group is where a multi-node launch's rank sits.
type Group struct {
	Rank         int    `json:"rank"`
	Nodes        int    `json:"nodes"`
	Node         string `json:"node"`
	Orchestrator string `json:"orchestrator"`
	// Control is rank 0's control channel (HOST:PORT); on rank 0 itself
	// a local verify --group asks it for every rank's observation.
	Control string `json:"control"`
	// Socket, on rank 0, is the owner-only unix socket on which a local
	// verify --group asks for every rank's observation.
	Socket string `json:"socket,omitempty"`
}
