package bench

import (
	"errors"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/bench/workload"
	"github.com/sglaunch/sglaunch/loadgen"
	"github.com/sglaunch/sglaunch/loadgen/loadgentest"
)

// urlRun runs the workloads against url as `bench --url` does, with the
// failure budget given, and returns the saved record.
func urlRun(t *testing.T, url string, budget string, workloads ...workload.Workload) (*Record, error) {
	t.Helper()
	b, err := ParseFailureBudget(budget)
	if err != nil {
		t.Fatal(err)
	}
	store := &Store{Dir: t.TempDir()}
	rec, err := Run(t.Context(), RunSpec{URL: url, Workloads: workloads, Store: store, Record: NewRecord(time.Now()),
		MaxFailures: b, Log: slog.New(slog.DiscardHandler)}, nil)
	saved, lerr := store.Get("latest")
	if lerr != nil {
		t.Fatalf("no record saved: %v", lerr)
	}
	if saved.Status != rec.Status {
		t.Errorf("saved status %s, returned %s", saved.Status, rec.Status)
	}
	return saved, err
}

// TestLevelWith429RecordedOK pins issue 12, defect 5 (records): a level
// where 26 of 40 requests got HTTP 429 was status ok, and bench exited
// 0. The level, the workload and the record are partial, and the run
// fails unless --max-failures allows that many.
func TestLevelWith429RecordedOK(t *testing.T) {
	srv := httptest.NewServer(&loadgentest.Server{Status: 429, StatusEvery: 2})
	defer srv.Close()
	w := workload.Workload{Name: "shed", API: loadgen.Generate, InputLen: 4, OutputLen: 4, Concurrency: []int{1}, Requests: 10}
	rec, err := urlRun(t, srv.URL, "", w)
	if !errors.Is(err, ErrTooManyFailures) || !strings.Contains(err.Error(), "5 of 10 requests failed") {
		t.Errorf("got %v, want ErrTooManyFailures counting 5 of 10", err)
	}
	res := rec.Results[0]
	if rec.Status != StatusPartial || res.Status != StatusPartial || res.Levels[0].Status != StatusPartial || rec.FailedRequests != 5 || rec.Requests != 10 {
		t.Errorf("record %s, workload %s, level %s, %d/%d failed; want partial throughout, 5/10", rec.Status, res.Status, res.Levels[0].Status, rec.FailedRequests, rec.Requests)
	}
	for _, budget := range []string{"5", "50%"} {
		if rec, err := urlRun(t, srv.URL, budget, w); err != nil || rec.Status != StatusPartial {
			t.Errorf("--max-failures %s: got %v, status %s; want no error, still partial", budget, err, rec.Status)
		}
	}
	for _, budget := range []string{"4", "49%"} {
		if _, err := urlRun(t, srv.URL, budget, w); !errors.Is(err, ErrTooManyFailures) {
			t.Errorf("--max-failures %s: got %v, want ErrTooManyFailures", budget, err)
		}
	}
	clean := httptest.NewServer(&loadgentest.Server{})
	defer clean.Close()
	if rec, err := urlRun(t, clean.URL, "", w); err != nil || rec.Status != StatusOK || rec.Results[0].Levels[0].Status != StatusOK {
		t.Errorf("a clean run: %v, %s", err, rec.Status)
	}
}

func TestParseFailureBudget(t *testing.T) {
	for _, bad := range []string{"-1", "x", "101%", "-2%", "1.5"} {
		if _, err := ParseFailureBudget(bad); err == nil {
			t.Errorf("ParseFailureBudget(%q): want an error", bad)
		}
	}
	if b, err := ParseFailureBudget("2.5%"); err != nil || !b.IsPercent || b.Percent != 2.5 || b.String() != "2.5%" {
		t.Errorf("2.5%%: got %+v, %v", b, err)
	}
}

// TestKill9LosesFinishedLevels pins issue 12, defect 6 at the package
// level: the record was written only at the end, so a kill -9 during a
// run lost every finished level. While the run goes on, the record on
// disk is status interrupted and holds each level once it completed.
func TestKill9LosesFinishedLevels(t *testing.T) {
	srv := httptest.NewServer(&loadgentest.Server{ITL: 2 * time.Millisecond})
	defer srv.Close()
	store := &Store{Dir: t.TempDir()}
	var mu sync.Mutex
	var seen []string // status and level count of each checkpoint, read back from disk
	quick := workload.Workload{Name: "quick", API: loadgen.Generate, InputLen: 4, OutputLen: 4, Concurrency: []int{1, 2}, Requests: 2}
	slow := workload.Workload{Name: "slow", API: loadgen.Generate, InputLen: 4, OutputLen: 50, Concurrency: []int{1}, Requests: 1}
	rec := NewRecord(time.Now())
	r := &Runner{Target: Target{URL: srv.URL}, Checkpoint: func() {
		rec.Checkpoint()
		if _, err := store.Save(rec); err != nil {
			t.Error(err)
			return
		}
		files, _ := filepath.Glob(filepath.Join(store.Dir, "*.json"))
		back, err := Load(files[0])
		if err != nil {
			t.Error(err)
			return
		}
		n := 0
		for _, w := range back.Results {
			n += len(w.Levels)
		}
		mu.Lock()
		seen = append(seen, back.Status+":"+string(rune('0'+n)))
		mu.Unlock()
	}}
	if err := r.Run(t.Context(), rec, []workload.Workload{quick, slow}); err != nil {
		t.Fatal(err)
	}
	// As each of the 2 workloads starts and ends, and twice for each of
	// the 3 levels: as it ends, and with what the server said after it.
	if got := strings.Join(seen, " "); got != "interrupted:0 interrupted:1 interrupted:1 interrupted:2 interrupted:2 interrupted:2 interrupted:2 interrupted:3 interrupted:3 interrupted:3" {
		t.Errorf("checkpoints on disk: %s", got)
	}
}

// TestSaveErrorPrintedTwice pins issue 12, defect 14 (records): a record
// that could not be saved (ENOSPC) had its error logged by the life
// cycle and printed again by the command. The run's error carries it;
// the log says only that the checkpoints failed, once.
func TestSaveErrorPrintedTwice(t *testing.T) {
	srv := httptest.NewServer(&loadgentest.Server{})
	defer srv.Close()
	var logs strings.Builder
	w := workload.Workload{Name: "w", API: loadgen.Generate, InputLen: 4, OutputLen: 4, Concurrency: []int{1, 2}, Requests: 2}
	store := &Store{Dir: "/dev/full/records"}
	_, err := Run(t.Context(), RunSpec{URL: srv.URL, Workloads: []workload.Workload{w}, Store: store, Record: NewRecord(time.Now()),
		Log: slog.New(slog.NewTextHandler(&logs, nil))}, nil)
	if err == nil || !strings.Contains(err.Error(), "save record") {
		t.Fatalf("got %v, want the save error", err)
	}
	if n := strings.Count(logs.String(), "save record"); n != 1 || !strings.Contains(logs.String(), "cannot save the record as the run goes") {
		t.Errorf("the log mentions the save error %d times, want once (the checkpoint warning):\n%s", n, logs.String())
	}
}
