package bench

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/sglaunch/sglaunch/internal/inputerr"
	"github.com/sglaunch/sglaunch/internal/statefile"
)

// Modes of what the store writes: records and server logs can hold what
// the server printed, so only their owner reads them (records are
// written by statefile, in the same modes).
const (
	FileMode os.FileMode = statefile.FileMode
	DirMode  os.FileMode = statefile.DirMode
)

// RecordsDir is where records live under the state directory.
func RecordsDir(stateDir string) string { return filepath.Join(stateDir, "records") }

// Store is a directory of records, one JSON file per run.
type Store struct {
	Dir string
	// Shared are records directories read beside Dir, never written: a
	// systemd unit's own state directory sits below the host's shared
	// one (statedir.Shared), whose records the operator's bench wrote.
	Shared []string
}

// OpenStore opens the records directory dir. A directory that does not
// exist yet is an empty store; Save creates it.
func OpenStore(dir string) (*Store, error) {
	fi, err := os.Stat(dir)
	switch {
	case err == nil && !fi.IsDir():
		return nil, inputerr.Errorf("records directory %s is a file", dir)
	case err != nil && !os.IsNotExist(err):
		return nil, fmt.Errorf("open records: %w", err)
	}
	return &Store{Dir: dir}, nil
}

// fileName is a record's file name: its start time, then its ID, so that
// a directory listing sorts by time.
func fileName(r *Record) string {
	return r.Started.UTC().Format("20060102T150405Z") + "-" + r.ID + ".json"
}

// idOf returns the ID part of a record file name.
func idOf(name string) string {
	stem := strings.TrimSuffix(name, ".json")
	if i := strings.LastIndexByte(stem, '-'); i >= 0 {
		return stem[i+1:]
	}
	return stem
}

// Path is where Save writes r.
func (s *Store) Path(r *Record) string { return filepath.Join(s.Dir, fileName(r)) }

// LogPath is where the server's output of r's run goes, beside the record.
func (s *Store) LogPath(r *Record) string {
	return strings.TrimSuffix(s.Path(r), ".json") + ".server.log"
}

// DetailsPath is where bench --details writes r's per-request lines,
// beside the record.
func (s *Store) DetailsPath(r *Record) string {
	return strings.TrimSuffix(s.Path(r), ".json") + ".details.jsonl"
}

// Save writes r atomically (a temporary file renamed into place) and
// returns its path. A record holds the server's command line and output,
// so it is 0600 in a 0700 directory (FileMode, DirMode).
func (s *Store) Save(r *Record) (string, error) {
	path := s.Path(r)
	if err := statefile.Write(path, r); err != nil {
		return "", fmt.Errorf("save record: %w", err)
	}
	return path, nil
}

// Entry is one record as listed.
type Entry struct {
	ID      string    `json:"id"`
	Path    string    `json:"path"`
	Started time.Time `json:"started"`
	Status  string    `json:"status"`
	// Requests and FailedRequests count the run's measured requests and
	// those that failed.
	Requests       int      `json:"requests"`
	FailedRequests int      `json:"failed_requests"`
	Profile        string   `json:"profile,omitempty"`
	Fingerprint    string   `json:"fingerprint,omitempty"`
	URL            string   `json:"url,omitempty"`
	Workloads      []string `json:"workloads,omitempty"`
	// Headline is the run's first level in one phrase (decode rate or
	// output throughput).
	Headline string `json:"headline,omitempty"`
	// Err says why the file could not be read.
	Err string `json:"error,omitempty"`
}

// List returns every record, oldest first. Files that cannot be read are
// listed with Err set.
func (s *Store) List() ([]Entry, error) {
	files, err := s.files()
	if err != nil {
		return nil, err
	}
	var out []Entry
	for _, f := range files {
		e := Entry{ID: idOf(filepath.Base(f)), Path: f}
		r, err := Load(f)
		if err != nil {
			e.Err = err.Error()
		} else {
			e.ID, e.Started, e.Status, e.Profile, e.Fingerprint, e.URL = r.ID, r.Started, r.Status, r.Profile, r.PlanFingerprint(), r.URL
			e.Requests, e.FailedRequests = r.Requests, r.FailedRequests
			for _, w := range r.Results {
				e.Workloads = append(e.Workloads, w.Workload.Name)
			}
			e.Headline = Headline(r)
		}
		out = append(out, e)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Started.Before(out[j].Started) })
	return out, nil
}

func (s *Store) files() ([]string, error) {
	out, err := recordFiles(s.Dir)
	if err != nil {
		return nil, err
	}
	for _, d := range s.Shared {
		// A shared directory that cannot be read adds nothing; the
		// store's own is the one that must work.
		more, _ := recordFiles(d)
		out = append(out, more...)
	}
	return out, nil
}

func recordFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list records: %w", err)
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() || strings.HasPrefix(e.Name(), ".") || filepath.Ext(e.Name()) != ".json" {
			continue
		}
		out = append(out, filepath.Join(dir, e.Name()))
	}
	return out, nil
}

// Get loads a record by ID, unique ID prefix, "latest", or the path of a
// record file.
func (s *Store) Get(ref string) (*Record, error) {
	if ref == "" {
		return nil, inputerr.Errorf("no record given; `sglaunch bench list` shows the IDs")
	}
	if strings.ContainsRune(ref, os.PathSeparator) || strings.HasSuffix(ref, ".json") {
		r, err := Load(ref)
		if err != nil {
			return nil, inputerr.Wrap(err)
		}
		return r, nil
	}
	files, err := s.files()
	if err != nil {
		return nil, err
	}
	if ref == "latest" {
		list, err := s.List()
		if err != nil {
			return nil, err
		}
		for i := len(list) - 1; i >= 0; i-- {
			if list[i].Err == "" {
				return Load(list[i].Path)
			}
		}
		return nil, inputerr.Errorf("record latest: %w: no records in %s", ErrNotFound, s.Dir)
	}
	var hits []string
	for _, f := range files {
		name := filepath.Base(f)
		if id := idOf(name); id == ref {
			hits = []string{f}
			break
		} else if strings.HasPrefix(id, ref) || strings.HasPrefix(name, ref) {
			hits = append(hits, f)
		}
	}
	switch len(hits) {
	case 0:
		return nil, inputerr.Errorf("record %q: %w in %s; `sglaunch bench list` shows the IDs", ref, ErrNotFound, s.Dir)
	case 1:
		return Load(hits[0])
	}
	var ids []string
	for _, h := range hits {
		ids = append(ids, idOf(filepath.Base(h)))
	}
	return nil, inputerr.Errorf("record %q is %w: it starts %d records (%s); give more of the ID", ref, ErrAmbiguous, len(ids), strings.Join(ids, ", "))
}

// MaxRecordSize bounds a record file read: a record keeps at most 64 KiB
// of a command's output and 4 MiB of its result per workload.
const MaxRecordSize = 64 << 20

// Load reads one record file.
func Load(path string) (*Record, error) {
	var r Record
	var pathErr *fs.PathError
	switch err := statefile.Read(path, MaxRecordSize, &r); {
	case err == nil:
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("record file %s: %w", path, ErrNotFound)
	case inputerr.Is(err):
		return nil, err
	case errors.As(err, &pathErr):
		return nil, fmt.Errorf("read record: %w", err)
	default:
		return nil, fmt.Errorf("not a record: %w", err)
	}
	if r.Schema == 0 || r.ID == "" {
		return nil, fmt.Errorf("record file %s: not a record (no schema or id)", path)
	}
	if r.Schema > RecordSchema {
		return nil, fmt.Errorf("record file %s: format %d is newer than this sglaunch reads (%d); upgrade sglaunch", path, r.Schema, RecordSchema)
	}
	r.file = path
	return &r, nil
}

// CheckRecordsDir refuses a records directory given on the command line
// (--dir) that a command reads but that is not there: `bench list --dir
// /nonexistent` printed an empty table and exited 0 (issue 24).
func CheckRecordsDir(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return inputerr.Errorf("--dir %s: no records directory there (%v); bench writes its records to $SGLAUNCH_STATE_DIR/records unless given --dir", dir, err)
	}
	if !fi.IsDir() {
		return inputerr.Errorf("--dir %s: not a directory; give the directory that holds the records (a record file is given as the ID)", dir)
	}
	return nil
}

// OpenRecords opens the records under the state directory, with the
// shared state directory's (statedir.Shared, "" for none) read beside
// them.
func OpenRecords(stateDir, sharedDir string) (*Store, error) {
	store, err := OpenStore(RecordsDir(stateDir))
	if err != nil {
		return nil, err
	}
	if sharedDir != "" {
		store.Shared = []string{RecordsDir(sharedDir)}
	}
	return store, nil
}
