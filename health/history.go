package health

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"time"

	"github.com/sglaunch/sglaunch/internal/statefile"
)

// keepLoads is how many successful loads History remembers per plan.
const keepLoads = 10

// maxHistoryBytes bounds a history file read: keepLoads loads with their
// phases are a few KB.
const maxHistoryBytes = 1 << 20

// History remembers how long earlier successful loads of the same plan
// (same fingerprint) took, in Dir/loads/<fingerprint>.json, to estimate
// the time left during the next load. An empty Dir remembers nothing.
type History struct {
	Dir string
}

type historyFile struct {
	Fingerprint string `json:"fingerprint"`
	Loads       []Load `json:"loads"`
}

// Estimate is what earlier loads say about this one.
type Estimate struct {
	Typical time.Duration // median load time; 0 when there is no history
	Loads   int           // how many loads it is based on
}

func (h History) path(fingerprint string) string {
	return filepath.Join(h.Dir, "loads", fingerprint+".json")
}

func (h History) read(fingerprint string) (historyFile, error) {
	f := historyFile{Fingerprint: fingerprint}
	if h.Dir == "" || fingerprint == "" {
		return f, nil
	}
	err := statefile.Read(h.path(fingerprint), maxHistoryBytes, &f)
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return historyFile{Fingerprint: fingerprint}, fmt.Errorf("load history: %w", err)
	}
	return f, nil
}

// Estimate returns the median of the remembered load times. A missing or
// unreadable history gives an empty estimate (and the error, to log).
func (h History) Estimate(fingerprint string) (Estimate, error) {
	f, err := h.read(fingerprint)
	if len(f.Loads) == 0 {
		return Estimate{}, err
	}
	var secs []float64
	for _, l := range f.Loads {
		if l.Seconds > 0 { // entries of an older format have none
			secs = append(secs, l.Seconds)
		}
	}
	if len(secs) == 0 {
		return Estimate{}, err
	}
	slices.Sort(secs)
	mid := secs[len(secs)/2]
	if len(secs)%2 == 0 {
		mid = (secs[len(secs)/2-1] + mid) / 2
	}
	return Estimate{Typical: time.Duration(mid * float64(time.Second)), Loads: len(secs)}, err
}

// Last returns the latest remembered load of the plan, false when there
// is none (an unreadable history counts as none).
func (h History) Last(fingerprint string) (Load, bool) {
	f, _ := h.read(fingerprint)
	if len(f.Loads) == 0 {
		return Load{}, false
	}
	return f.Loads[len(f.Loads)-1], true
}

// Record remembers one successful load, keeping the latest keepLoads.
func (h History) Record(fingerprint string, l Load) error {
	if h.Dir == "" || fingerprint == "" {
		return nil
	}
	f, _ := h.read(fingerprint) // a damaged file is replaced
	l.StartedAt, l.ReadyAt = l.StartedAt.UTC(), l.ReadyAt.UTC()
	f.Loads = append(f.Loads, l)
	if len(f.Loads) > keepLoads {
		f.Loads = f.Loads[len(f.Loads)-keepLoads:]
	}
	if err := statefile.Write(h.path(fingerprint), f); err != nil {
		return fmt.Errorf("record load: %w", err)
	}
	return nil
}

// Remaining is the estimated time left after elapsed, or false without
// history. A load that runs past the typical time has "unknown" left.
func (e Estimate) Remaining(elapsed time.Duration) (time.Duration, bool) {
	if e.Loads == 0 || elapsed > e.Typical {
		return 0, false
	}
	return e.Typical - elapsed, true
}
