package status

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sglaunch/sglaunch/internal/statefile"
)

// Launches counts the launches of one profile on this host, in
// <state dir>/launches/<profile>.json: how many since when, and how the
// latest one that ended, ended. Under systemd's Restart=on-failure every
// restart is a new launch, so the count tells an operator how often the
// server came back. Two launches of one profile at the same moment may
// count once: the file is a counter, not a lock.
type Launches struct {
	Profile string    `json:"profile"`
	Count   int       `json:"launches"`
	Since   time.Time `json:"since"`
	// LastExit is how the latest launch that ended, ended.
	LastExit *Exit `json:"last_exit,omitempty"`
}

// Restarts is the launches before this one.
func (l Launches) Restarts() int { return max(l.Count-1, 0) }

// maxLaunchesBytes bounds a launch count's file read: it is a few lines.
const maxLaunchesBytes = 64 << 10

func launchesFile(dir, profile string) string {
	return filepath.Join(dir, "launches", strings.ReplaceAll(profile, string(os.PathSeparator), "_")+".json")
}

// ReadLaunches returns what dir remembers of profile's launches; none
// when there is no file.
func ReadLaunches(dir, profile string) (Launches, error) {
	l := Launches{Profile: profile}
	err := statefile.Read(launchesFile(dir, profile), maxLaunchesBytes, &l)
	if errors.Is(err, fs.ErrNotExist) {
		return l, nil
	}
	if err != nil {
		return Launches{Profile: profile}, fmt.Errorf("launch count: %w", err)
	}
	return l, nil
}

// CountLaunch counts one more launch of profile and returns the count,
// this launch included, with the last run's end. A damaged file starts
// the count again.
func CountLaunch(dir, profile string) (Launches, error) {
	l, _ := ReadLaunches(dir, profile)
	if l.Count == 0 || l.Since.IsZero() {
		l = Launches{Profile: profile, Since: timeNow().UTC()}
	}
	l.Count++
	return l, writeLaunches(dir, l)
}

// RecordExit stores how this launch of profile ended, for the next one.
func RecordExit(dir, profile string, x Exit) error {
	l, err := ReadLaunches(dir, profile)
	if err != nil {
		return err
	}
	l.LastExit = &x
	return writeLaunches(dir, l)
}

func writeLaunches(dir string, l Launches) error {
	if err := statefile.Write(launchesFile(dir, l.Profile), l); err != nil {
		return fmt.Errorf("launch count: %w", err)
	}
	return nil
}
