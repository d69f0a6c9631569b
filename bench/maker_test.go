package bench

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/internal/version"
)

// TestRecordMaker pins what bench and tune stamp on every record they
// start: the command line with its secrets masked, the version, the
// host's facts gathered once, a fresh ID and start each.
func TestRecordMaker(t *testing.T) {
	looked := 0
	lookPath := func(string) (string, error) { looked++; return "", errors.New("not found") }
	args := []string{"sglaunch", "bench", "--profile", "demo", "--", "--api-key", "K-secret"}
	before := time.Now().UTC()
	newRecord := RecordMaker(t.Context(), args, nil, lookPath)
	a, b := newRecord(), newRecord()
	if looked != 1 {
		t.Errorf("the host was probed %d times for two records, want once", looked)
	}
	for _, r := range []*Record{a, b} {
		if slices.Contains(r.Argv, "K-secret") || !slices.Contains(r.Argv, "--profile") {
			t.Errorf("argv %q: want the command line with the key masked", r.Argv)
		}
		if r.Sglaunch != version.String() || r.Host.CPUs < 1 || r.Started.Before(before) || r.Status != StatusFailed {
			t.Errorf("record %+v: want the version, the host's facts, a start from now, status failed until it runs", r)
		}
	}
	if a.ID == b.ID {
		t.Errorf("two records share ID %s", a.ID)
	}
}
