package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/sglaunch/sglaunch/bench/workload"
	"github.com/sglaunch/sglaunch/loadgen"
)

// roundStride numbers a round's requests after the earlier rounds' when a
// round is bound by time (its request count unknown), so that every round
// draws its own inputs.
const roundStride = 1 << 32

// runLevel runs one level into res.Levels: its rounds one after another,
// each started by a POST /flush_cache (unless the workload turns it off:
// the flush resets the prefix cache, so no round or level warms the next,
// and the server's speculative-decoding totals) and followed by the
// round's accept length (its requests', else the server's: accept.go). The warm-up runs before the first round only. The
// level record pools the rounds; it is in res.Levels from the end of the
// first round, and each round goes into it, and the record to disk, before
// the progress line says the round is done: whatever a kill -9 cuts short,
// a round reported done is kept. No round ended: no level record.
func (r *Runner) runLevel(ctx context.Context, client *loadgen.Client, model string, w workload.Workload, lvl loadgen.Level, prog loadgen.Observer, res *WorkloadResult) error {
	idx := -1
	var rounds []loadgen.LevelResult
	var accepts []roundAccept
	flushErr := ""
	// put sets the level's record from the rounds so far and checkpoints.
	put := func(err error) {
		l := LevelRecord{LevelResult: loadgen.Pool(rounds, w.SLO), FlushError: flushErr}
		l.Samples = nil
		l.Status = levelStatus(l.LevelResult, err)
		l.AcceptLength, l.AcceptSource, l.AcceptRequests = levelAcceptLength(accepts, w.Flush() && flushErr == "")
		if w.RoundCount() > 1 {
			for j, lr := range rounds {
				l.Rounds = append(l.Rounds, RoundRecord{Started: lr.Started, Ended: lr.Ended, Metrics: lr.Metrics, AcceptLength: accepts[j].value()})
			}
		}
		if idx < 0 {
			res.Levels = append(res.Levels, l)
			idx = len(res.Levels) - 1
		} else {
			res.Levels[idx] = l
		}
		r.checkpoint()
	}
	var err error
	for i := range w.RoundCount() {
		load := w.Load(lvl, model)
		load.Offset = i * load.Requests
		if load.Requests == 0 {
			load.Offset = i * roundStride
		}
		if i > 0 {
			load.Warmup = 0
		}
		if w.Flush() {
			load.BeforeMeasure = func(ctx context.Context) error {
				if ferr := client.API().FlushCache(ctx); ferr != nil && flushErr == "" {
					flushErr = ferr.Error()
					r.note("%s %s: /flush_cache failed (%v); the accept length counts from an earlier flush", w.Name, lvl, ferr)
				}
				return nil
			}
		}
		// The round's accept length is read after it ends; until then it
		// is unknown (0).
		obs := &recordLevel{next: prog, done: func(lr loadgen.LevelResult) {
			rounds, accepts = append(rounds, lr), append(accepts, roundAccept{})
			put(nil)
		}}
		lr, rerr := client.Run(ctx, load, lvl, obs)
		if !obs.ended {
			err = rerr
			break
		}
		rounds[len(rounds)-1] = lr
		accepts[len(accepts)-1] = newRoundAccept(ctx, client, lr)
		if derr := r.writeDetails(w.Name, lvl, i, lr); derr != nil && rerr == nil {
			rerr = derr
		}
		put(rerr)
		if rerr != nil {
			err = rerr
			break
		}
		if r.AfterRound != nil && i+1 < w.RoundCount() && !r.AfterRound(w.Name, res.Levels[idx]) {
			break
		}
	}
	return err
}

// levelAccept is a level's accept length from its rounds' readings: their
// mean when each counts since its own flush, else the last (cumulative).
func levelAccept(v []float64, flushed bool) float64 {
	if len(v) == 0 {
		return 0
	}
	if !flushed {
		return v[len(v)-1]
	}
	sum := 0.0
	for _, x := range v {
		if x == 0 {
			return 0 // some round had none: no mean to give
		}
		sum += x
	}
	return sum / float64(len(v))
}

// note tells the user something about the run on the progress stream.
func (r *Runner) note(format string, args ...any) {
	if r.Progress != nil {
		fmt.Fprintf(r.Progress, "sglaunch: "+format+"\n", args...)
	}
}

// speculativeSettings returns the server's speculative_* settings from
// /server_info when it runs a speculative algorithm, else nil.
func speculativeSettings(ctx context.Context, c *loadgen.Client) map[string]any {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	info, _, err := c.API().ServerInfo(ctx)
	if err != nil || info["speculative_algorithm"] == nil {
		return nil
	}
	out := map[string]any{}
	for k, v := range info {
		if strings.HasPrefix(k, "speculative_") && v != nil {
			out[k] = v
		}
	}
	return out
}

// detailsFile is bench --details' output.
type detailsFile struct {
	f   *os.File
	w   *bufio.Writer
	err error
}

// openDetails creates the details file (empty until a round ends), so
// that the record never names a file that is not there.
func openDetails(path string) (*detailsFile, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("details: %w", err)
	}
	return &detailsFile{f: f, w: bufio.NewWriterSize(f, 256<<10)}, nil
}

func (d *detailsFile) close() {
	_ = d.w.Flush()
	_ = d.f.Close()
}

// writeDetails appends one line per request of a round and flushes, so a
// run cut short keeps what completed.
func (r *Runner) writeDetails(workload string, lvl loadgen.Level, round int, lr loadgen.LevelResult) error {
	d := r.details
	if d == nil {
		return nil
	}
	if d.err != nil {
		return d.err
	}
	var b []byte
	for i := range lr.Samples {
		b = detailLine(b[:0], workload, lvl, round, &lr.Samples[i])
		if _, err := d.w.Write(b); err != nil {
			d.err = fmt.Errorf("details: %w", err)
			return d.err
		}
	}
	if err := d.w.Flush(); err != nil {
		d.err = fmt.Errorf("details: %w", err)
	}
	return d.err
}

// detailLine is one request as a JSON line: its timings in milliseconds
// (to the microsecond), token counts, the per-token ITL list, the gaps
// between chunks with the tokens each brought, and its error.
func detailLine(b []byte, workload string, lvl loadgen.Level, round int, s *loadgen.Sample) []byte {
	b = append(b, `{"workload":`...)
	b = appendString(b, workload)
	b = append(b, `,"level":`...)
	b = appendString(b, lvl.String())
	b = append(b, `,"round":`...)
	b = strconv.AppendInt(b, int64(round), 10)
	b = append(b, `,"request":`...)
	b = strconv.AppendInt(b, int64(s.Index), 10)
	b = append(b, `,"started":`...)
	b = appendString(b, s.Start.UTC().Format(time.RFC3339Nano))
	b = append(b, `,"ok":`...)
	b = strconv.AppendBool(b, s.OK)
	b = append(b, `,"error":`...)
	b = appendString(b, s.Err)
	b = append(b, `,"input_tokens":`...)
	b = strconv.AppendInt(b, int64(s.InputTokens), 10)
	b = append(b, `,"output_tokens":`...)
	b = strconv.AppendInt(b, int64(s.OutputTokens), 10)
	b = append(b, `,"ttft_ms":`...)
	b = appendMS(b, s.TTFT)
	tpot := time.Duration(0)
	if s.OutputTokens > 1 {
		tpot = (s.Latency - s.TTFT) / time.Duration(s.OutputTokens-1)
	}
	b = append(b, `,"tpot_ms":`...)
	b = appendMS(b, tpot)
	b = append(b, `,"e2e_latency_ms":`...)
	b = appendMS(b, s.Latency)
	b = append(b, `,"itl_ms":`...)
	b = appendMSList(b, s.ITL)
	b = append(b, `,"chunk_gaps_ms":`...)
	b = appendMSList(b, s.ChunkGaps)
	b = append(b, `,"chunk_tokens":[`...)
	for i, n := range s.ChunkTokens {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(n), 10)
	}
	b = append(b, `],"tokens_estimated":`...)
	b = strconv.AppendBool(b, s.TokensEstimated)
	return append(b, "}\n"...)
}

// appendString appends s as a JSON string.
func appendString(b []byte, s string) []byte {
	q, _ := json.Marshal(s)
	return append(b, q...)
}

func appendMS(b []byte, d time.Duration) []byte {
	return strconv.AppendFloat(b, float64(d.Microseconds())/1000, 'f', -1, 64)
}

func appendMSList(b []byte, ds []time.Duration) []byte {
	b = append(b, '[')
	for i, d := range ds {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendMS(b, d)
	}
	return append(b, ']')
}
