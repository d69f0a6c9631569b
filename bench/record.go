package bench

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/sglaunch/sglaunch/bench/workload"
	"github.com/sglaunch/sglaunch/health"
	"github.com/sglaunch/sglaunch/loadgen"
	"github.com/sglaunch/sglaunch/plan"
)

// RecordSchema is the version of the record format.
const RecordSchema = 1

// Statuses of runs, workloads and levels.
const (
	// StatusOK: everything ran and every measured request completed.
	StatusOK = "ok"
	// StatusPartial: it ran to its end, but some requests failed (a
	// server shedding load with 429, streams cut short); the metrics are
	// of the requests that completed.
	StatusPartial = "partial"
	// StatusFailed: it ended with an error (every request of a level
	// failed, the server died, a signal stopped the run).
	StatusFailed  = "failed"
	StatusSkipped = "skipped"
	// StatusInterrupted: the run has not finished. A record is saved so
	// after every level; one left in this state belongs to an sglaunch
	// that was killed, and holds the levels that completed.
	StatusInterrupted = "interrupted"
)

// Record is one benchmark run, as stored.
type Record struct {
	Schema int    `json:"schema"`
	ID     string `json:"id"`
	// Status is ok when every workload completed with every request,
	// partial when requests failed, failed on an error, interrupted while
	// the run goes on (or after sglaunch was killed); Error says why, and
	// the workloads say what completed.
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
	// Requests and FailedRequests count the measured requests of every
	// level, and those that failed.
	Requests       int       `json:"requests"`
	FailedRequests int       `json:"failed_requests"`
	Started        time.Time `json:"started"`
	Ended          time.Time `json:"ended,omitzero"`
	// Argv is the sglaunch command line, secrets redacted.
	Argv     []string `json:"argv,omitempty"`
	Sglaunch string   `json:"sglaunch_version"`
	// SGLang is the server's version; SGLangFrom says how it was learnt.
	SGLang     string `json:"sglang_version,omitempty"`
	SGLangFrom string `json:"sglang_version_from,omitempty"`
	URL        string `json:"url"`
	// Launched is true when sglaunch started the server from the plan.
	Launched    bool   `json:"launched"`
	Profile     string `json:"profile,omitempty"`
	Fingerprint string `json:"fingerprint,omitempty"`
	// Plan is the redacted plan the server ran; null when unknown.
	Plan     *plan.View `json:"plan"`
	PlanNote string     `json:"plan_note,omitempty"`
	// Observed is the server process found behind a --url, when it runs
	// on this host.
	Observed *Observed        `json:"observed,omitempty"`
	Host     Host             `json:"host"`
	Server   *ServerStart     `json:"server,omitempty"`
	Results  []WorkloadResult `json:"workloads"`

	// Speculative holds the server's speculative-decoding settings (its
	// speculative_* fields in /server_info), when it runs an algorithm.
	Speculative map[string]any `json:"speculative,omitempty"`
	// Definitions say how the metrics were measured.
	Definitions map[string]string `json:"definitions,omitempty"`
	// Details names the file of per-request lines (bench --details),
	// beside the record.
	Details string `json:"details,omitempty"`

	// file is where the record was loaded from.
	file string
}

// Definitions of the metrics, kept in every record so that its numbers
// say what they mean.
var metricDefinitions = map[string]string{
	"ttft_ms":         "time from sending the request to the first chunk that carries text",
	"itl_ms":          "per token: each chunk's gap after the previous one divided evenly among the tokens it added, as bench_serving splits it (a chunk of several tokens, as under speculative decoding, gives several equal samples); token counts from meta_info.completion_tokens, or chat usage on every chunk (continuous_usage_stats)",
	"chunk_gap_ms":    "per chunk: the gap between two chunks that added tokens, whatever their number",
	"tpot_ms":         "(e2e latency - TTFT) / (output tokens - 1), per request",
	"e2e_latency_ms":  "time from sending the request to the end of its stream",
	"request_goodput": "completed requests per second that met the workload's slo (every bound given), as vllm bench serve counts them",
	"accept_length":   "speculative decoding's accept length: the level's requests pooled, output tokens over verify steps, from each request's meta_info (spec_verify_ct; OpenAI: sglext.spec_tokens_details), exact (accept_length_source meta_info, over accept_length_requests requests); when no request carried them, the server's avg_spec_accept_length (internal_states[0] of /server_info) read after each round (source server_info), which SGLang refreshes only every --decode-log-interval decode batches",
}

// Observed is what was seen of a server sglaunch did not start.
type Observed struct {
	ServerPID int `json:"server_pid"`
	// Argv is the server's command line, secrets redacted.
	Argv []string `json:"argv,omitempty"`
	// How says how the server was found.
	How string `json:"how"`
}

// ServerStart is how the server's start went.
type ServerStart struct {
	PID int `json:"pid,omitempty"`
	// Load is the load's timing (started_at, ready_at, load_time_s,
	// phases), stored as everywhere else.
	health.Load
	// Stop says how the server ended after the run.
	Stop string `json:"stop,omitempty"`
	// Log is the file holding the server's output; LogCut says why and
	// where it was cut (a full disk), when it was.
	Log    string `json:"log,omitempty"`
	LogCut string `json:"log_cut,omitempty"`
}

// WorkloadResult is one workload's definition and outcome.
type WorkloadResult struct {
	Workload workload.Workload `json:"workload"`
	Status   string            `json:"status"`
	Error    string            `json:"error,omitempty"`
	Started  time.Time         `json:"started,omitzero"`
	Ended    time.Time         `json:"ended,omitzero"`
	// Levels hold the generator's results, one per level that ran.
	Levels   []LevelRecord   `json:"levels,omitempty"`
	External *ExternalResult `json:"external,omitempty"`
}

// LevelRecord is one level's result and what the server said after it.
// With rounds, the metrics pool every round's requests and Rounds keeps
// each round's own.
type LevelRecord struct {
	loadgen.LevelResult
	// Status is ok when every request completed, partial when some
	// failed (Errors says how).
	Status string `json:"status"`
	// AcceptLength is speculative decoding's accept length: the level's
	// requests pooled (output tokens over verify steps, from each
	// request's meta_info) when they carried the figures; else the
	// server's avg_spec_accept_length from /server_info after each round:
	// the mean of the rounds' (each since its /flush_cache), or the last
	// reading when the cache was not flushed; 0 when absent.
	AcceptLength float64 `json:"accept_length,omitempty"`
	// AcceptSource says which: AcceptFromRequests or AcceptFromServer.
	AcceptSource string `json:"accept_length_source,omitempty"`
	// AcceptRequests is how many requests the pooled value covers.
	AcceptRequests int `json:"accept_length_requests,omitempty"`
	// FlushError says why a round's /flush_cache failed; the accept length
	// then counts from an earlier flush or the server's start.
	FlushError string        `json:"flush_error,omitempty"`
	Rounds     []RoundRecord `json:"rounds,omitempty"`
}

// RoundRecord is one round of a level run more than once.
type RoundRecord struct {
	Started      time.Time       `json:"started"`
	Ended        time.Time       `json:"ended"`
	Metrics      loadgen.Metrics `json:"metrics"`
	AcceptLength float64         `json:"accept_length,omitempty"`
}

// NewRecord starts a record.
func NewRecord(started time.Time) *Record {
	return &Record{Schema: RecordSchema, ID: newID(), Status: StatusFailed, Started: started.UTC(), Definitions: metricDefinitions}
}

// newID returns 8 random hex digits.
func newID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Finish closes the record: failed with an error; else partial when
// requests failed, ok when none did.
func (r *Record) Finish(ended time.Time, err error) {
	r.Ended = ended.UTC()
	r.count()
	switch {
	case err != nil:
		r.Status, r.Error = StatusFailed, err.Error()
	case r.FailedRequests > 0:
		r.Status, r.Error = StatusPartial, fmt.Sprintf("%d of %d requests failed", r.FailedRequests, r.Requests)
	default:
		r.Status, r.Error = StatusOK, ""
	}
}

// Checkpoint marks the record as a run in progress, to be saved after
// each level: a run that is killed keeps what completed.
func (r *Record) Checkpoint() {
	r.count()
	r.Status, r.Error, r.Ended = StatusInterrupted, "the run did not finish (sglaunch stopped before it could save the result); the levels recorded completed", time.Time{}
}

// count totals the measured and failed requests of every level.
func (r *Record) count() {
	r.Requests, r.FailedRequests = 0, 0
	for _, w := range r.Results {
		for _, l := range w.Levels {
			r.Requests += l.Metrics.Completed + l.Metrics.Failed
			r.FailedRequests += l.Metrics.Failed
		}
	}
}

// JSON is the record as stored.
func (r *Record) JSON() []byte {
	b, _ := json.MarshalIndent(r, "", "  ")
	return append(b, '\n')
}

// Duration is how long the run took.
func (r *Record) Duration() time.Duration {
	if r.Ended.IsZero() {
		return 0
	}
	return r.Ended.Sub(r.Started)
}

// File is the file the record was loaded from; empty for a record that
// was not loaded from a store.
func (r *Record) File() string { return r.file }

// PlanFingerprint is the fingerprint of the record's plan by the current
// rules, recomputed from the stored plan (records written by an older
// sglaunch hashed differently); the stored string when the plan is
// unknown.
func (r *Record) PlanFingerprint() string {
	if r.Plan == nil {
		return r.Fingerprint
	}
	return plan.FingerprintOf(*r.Plan)
}
