package runstate

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/sglaunch/sglaunch/health"
	"github.com/sglaunch/sglaunch/internal/atomicfile"
	"github.com/sglaunch/sglaunch/internal/proc"
	"github.com/sglaunch/sglaunch/plan"
)

// State is one running launch.
type State struct {
	Profile     string `json:"profile"`
	Mode        string `json:"mode"`
	Fingerprint string `json:"fingerprint"`
	SglaunchPID int    `json:"sglaunch_pid"`
	ServerPID   int    `json:"server_pid"`
	Port        int    `json:"port"`
	URL         string `json:"url"`
	// StatusURL is the launch's status endpoint (--status-addr), if any.
	StatusURL string `json:"status_url,omitempty"`
	// Load is the load's timing: StartedAt is set at launch, the rest
	// (ReadyAt non-zero) once the server is ready.
	health.Load
	Plan  plan.View `json:"plan"`
	Path  string    `json:"-"`
	Stale bool      `json:"-"`
}

// File is where the state of a profile's launch lives under dir.
func File(dir, profile string) string {
	return filepath.Join(dir, strings.ReplaceAll(profile, string(os.PathSeparator), "_")+".json")
}

// Write stores s atomically under dir.
func Write(dir string, s *State) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("runtime state: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("runtime state: %w", err)
	}
	return atomicfile.Write(File(dir, s.Profile), append(b, '\n'), 0o600)
}

// Remove deletes the state file of profile if it still belongs to pid
// (sglaunch's own): a newer launch of the same profile keeps its file.
func Remove(dir, profile string, pid int) error {
	path := File(dir, profile)
	s, err := read(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return err
	}
	if s.SglaunchPID != pid {
		return nil
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove runtime state: %w", err)
	}
	return nil
}

// List returns every state file under dir, stale ones marked.
func List(dir string) ([]*State, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("runtime state: %w", err)
	}
	var out []*State
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		s, err := read(filepath.Join(dir, e.Name()))
		if err != nil {
			continue // a file being replaced, or not ours
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Profile < out[j].Profile })
	return out, nil
}

func read(path string) (*State, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var s State
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("runtime state %s: %w", path, err)
	}
	s.Path = path
	s.Stale = !proc.Alive(s.SglaunchPID)
	return &s, nil
}
