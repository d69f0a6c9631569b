//go:build linux

package multinode

import (
	"bufio"
	"encoding/json"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"
)

// streamResult is how a stream through rank 0 ended.
type streamResult struct {
	tokens int  // completion tokens of the last chunk
	done   bool // [DONE] came
	err    error
}

// stream posts a streaming /generate of n tokens to rank 0, calls
// onChunk after the k-th chunk, and returns once the stream ends.
func (g *group) stream(n, k int, onChunk func()) streamResult {
	body := fmt.Sprintf(`{"input_ids":[1,2,3],"sampling_params":{"max_new_tokens":%d,"ignore_eos":true},"stream":true}`, n)
	resp, err := httpClient(g.c.Nodes[0]).Post(fmt.Sprintf("http://127.0.0.1:%d/generate", serverPort), "application/json", strings.NewReader(body))
	if err != nil {
		return streamResult{err: err}
	}
	defer resp.Body.Close()
	var res streamResult
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	seen := 0
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		if line == "[DONE]" {
			res.done = true
			continue
		}
		var ev struct {
			Meta struct {
				Completion int `json:"completion_tokens"`
			} `json:"meta_info"`
		}
		if json.Unmarshal([]byte(line), &ev) == nil {
			res.tokens = ev.Meta.Completion
		}
		if seen++; seen == k {
			onChunk()
		}
	}
	res.err = sc.Err()
	return res
}

// stopWithStream runs a 3-node group, starts a 300-token stream through
// rank 0, signals the given ranks once 20 tokens have arrived, and
// checks that the stream is delivered whole and every rank exits 0.
func stopWithStream(t *testing.T, signalled ...int) {
	g := newGroup(t, 3, "")
	g.startAll(g.lwsEnv)
	g.waitReady()
	const tokens = 300
	var at time.Time
	res := g.stream(tokens, 20, func() {
		at = time.Now()
		for _, i := range signalled {
			syscall.Kill(g.ranks[i].pid, syscall.SIGTERM)
		}
	})
	cut := 0
	if res.tokens != tokens || !res.done {
		cut = 1
		t.Errorf("the stream ended at %d of %d tokens (done %v, %v): the group's stop cut it", res.tokens, tokens, res.done, res.err)
	}
	codes := make([]int, len(g.ranks))
	var last time.Time
	for i, r := range g.ranks {
		codes[i] = r.wait(t)
		if codes[i] != 0 {
			t.Errorf("rank %d exited %d, want 0 (a requested, drained stop):\n%s", i, codes[i], r.stderr.String())
		}
		if strings.Contains(r.stderr.String(), "group failed") {
			t.Errorf("rank %d calls a requested stop a failure:\n%s", i, r.stderr.String())
		}
		if r.endAt.After(last) {
			last = r.endAt
		}
	}
	t.Logf("SIGTERM to ranks %v: streams cut %d of 1, exit statuses %v, every rank gone %s after the signal",
		signalled, cut, codes, last.Sub(at).Round(time.Millisecond))
	g.noneLeft()
}

// TestWholeGroupSIGTERMDrainsStream pins issue 22's first defect: under
// scancel (every rank signalled at once) a stream was cut 17-69 ms
// later: each worker's server ended on its SIGTERM at once, the worker
// reported "group failed", and rank 0 killed its tree mid-drain.
func TestWholeGroupSIGTERMDrainsStream(t *testing.T) { stopWithStream(t, 0, 1, 2) }

// TestRankZeroSIGTERMStopsGroup: rank 0 alone signalled drains, and the
// workers, never signalled, exit 0 (issue 22's second defect: they
// could not tell a stop from a failure).
func TestRankZeroSIGTERMStopsGroup(t *testing.T) { stopWithStream(t, 0) }

// TestWorkerSIGTERMStopsGroup: a worker alone signalled (its pod
// deleted, its unit stopped) stops the whole group, drained, exit 0.
func TestWorkerSIGTERMStopsGroup(t *testing.T) { stopWithStream(t, 2) }

// TestNoSecretRefusesToStart: a multi-node rank without a group secret
// refuses to start (exit 2, naming the variable and the profile key),
// unless the profile accepts an unauthenticated channel.
func TestNoSecretRefusesToStart(t *testing.T) {
	g := newGroup(t, 2, "")
	g.env = func(_ int, env []string) []string {
		var out []string
		for _, kv := range env {
			if !strings.HasPrefix(kv, "SGLAUNCH_GROUP_SECRET=") {
				out = append(out, kv)
			}
		}
		return out
	}
	r := g.start(1, g.lwsEnv(1))
	if code := r.wait(t); code != 2 {
		t.Fatalf("exit %d, want 2:\n%s", code, r.stderr.String())
	}
	for _, want := range []string{"SGLAUNCH_GROUP_SECRET", "multinode.insecure_channel"} {
		if !strings.Contains(r.stderr.String(), want) {
			t.Errorf("the refusal does not name %s:\n%s", want, r.stderr.String())
		}
	}
	if strings.Contains(r.stderr.String(), "server started") {
		t.Error("the server started")
	}
}

// TestInsecureChannelAccepted: with multinode.insecure_channel: true
// and no secret, the group forms (with a warning on every rank).
func TestInsecureChannelAccepted(t *testing.T) {
	g := newGroup(t, 2, "  insecure_channel: true\n")
	g.env = func(_ int, env []string) []string {
		var out []string
		for _, kv := range env {
			if !strings.HasPrefix(kv, "SGLAUNCH_GROUP_SECRET=") {
				out = append(out, kv)
			}
		}
		return out
	}
	g.startAll(g.lwsEnv)
	g.waitReady()
	for _, r := range g.ranks {
		if !strings.Contains(r.stderr.String(), "not authenticated") {
			t.Errorf("rank %d does not warn of the unauthenticated channel", r.i)
		}
		syscall.Kill(r.pid, syscall.SIGTERM)
	}
	for _, r := range g.ranks {
		r.wait(t)
	}
}
