package workload

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"

	"github.com/sglaunch/sglaunch/internal/inputerr"
	"github.com/sglaunch/sglaunch/loadgen"
)

// entry is one usable prompt of a file, with its output length.
type entry struct {
	text string
	out  int
}

// reservoir keeps a uniform random sample of at most k entries of a
// stream (Algorithm R), seeded: the same file and seed give the same
// sample. It stands in for bench_serving's shuffle of the whole file,
// without holding the whole file (ShareGPT is hundreds of MB).
type reservoir struct {
	k     int
	rng   *rand.Rand
	seen  int
	bytes int64
	items []entry
}

func (r *reservoir) add(e entry) {
	r.seen++
	if len(r.items) < r.k {
		r.items = append(r.items, e)
		r.bytes += int64(len(e.text))
		return
	}
	if j := r.rng.IntN(r.seen); j < r.k {
		r.bytes += int64(len(e.text)) - int64(len(r.items[j].text))
		r.items[j] = e
	}
}

// filePrompts reads a sharegpt or jsonl dataset: n prompts at most,
// sampled uniformly with the workload's seed, then shuffled.
func filePrompts(w *Workload, n int) ([]loadgen.Prompt, error) {
	d := w.Dataset
	f, err := os.Open(d.Path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, inputerr.Errorf("workload %s: dataset %s: no such file", w.Name, d.Path)
		}
		return nil, inputerr.Errorf("workload %s: dataset: %w", w.Name, err)
	}
	defer f.Close()
	h := sha256.New()
	in := io.TeeReader(f, h)
	res := &reservoir{k: n, rng: seeded(w.Seed, streamSample)}
	keep := func(prompt, completion string, out int) error {
		if len(prompt) > maxPromptBytes {
			return fmt.Errorf("a prompt of %d bytes; the most is %d", len(prompt), maxPromptBytes)
		}
		switch {
		case d.OutputLen > 0:
			out = d.OutputLen
		case out == 0 && completion != "":
			out = approxTokens(completion)
		case out == 0:
			out = DefaultOutputLen
		}
		// bench_serving prunes prompts and completions under 2 tokens.
		if approxTokens(prompt) < 2 || out < 2 {
			return nil
		}
		res.add(entry{text: prompt, out: out})
		if res.bytes > maxDatasetBytes {
			return fmt.Errorf("the prompts kept hold more than %d MiB; sample fewer requests", maxDatasetBytes>>20)
		}
		return nil
	}
	if d.Name == DatasetShareGPT {
		err = readShareGPT(in, keep)
	} else {
		err = readJSONL(in, keep)
	}
	if err != nil {
		return nil, inputerr.Errorf("workload %s: dataset %s: %w", w.Name, d.Path, err)
	}
	_, _ = io.Copy(h, f) // the digest covers the whole file
	if len(res.items) == 0 {
		return nil, inputerr.Errorf("workload %s: dataset %s: no usable prompt (each needs a prompt and a completion of at least 2 tokens)", w.Name, d.Path)
	}
	d.SHA256, d.Offered = hex.EncodeToString(h.Sum(nil)), res.seen
	ps := make([]loadgen.Prompt, len(res.items))
	for i, e := range res.items {
		ps[i] = loadgen.Prompt{Text: e.text, InputLen: approxTokens(e.text), OutputLen: e.out}
	}
	shuffle(seeded(w.Seed, streamShuffle), ps)
	return ps, nil
}

// turn is one message of a conversation: ShareGPT's {"from", "value"},
// or {"role", "content"} as bench_serving's custom dataset also takes.
type turn struct {
	Value   *string `json:"value"`
	Content *string `json:"content"`
}

func (t turn) text() string {
	if t.Value != nil {
		return *t.Value
	}
	if t.Content != nil {
		return *t.Content
	}
	return ""
}

// conversation is a ShareGPT entry, or a JSONL line in its format.
type conversation struct {
	Conversations []turn `json:"conversations"`
	Conversation  []turn `json:"conversation"`
}

// firstTwo returns the first two turns: prompt and completion; ok is
// false for an entry of fewer turns (bench_serving skips those).
func (c conversation) firstTwo() (string, string, bool) {
	turns := c.Conversations
	if turns == nil {
		turns = c.Conversation
	}
	if len(turns) < 2 {
		return "", "", false
	}
	return turns[0].text(), turns[1].text(), true
}

// readShareGPT streams a ShareGPT JSON file: a list of conversations,
// decoded one at a time.
func readShareGPT(r io.Reader, keep func(prompt, completion string, out int) error) error {
	dec := json.NewDecoder(bufio.NewReaderSize(r, 1<<20))
	tok, err := dec.Token()
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return errors.New("want a JSON list of conversations ({\"conversations\": [{\"from\": ..., \"value\": ...}, ...]})")
	}
	for i := 0; dec.More(); i++ {
		var c conversation
		if err := dec.Decode(&c); err != nil {
			return fmt.Errorf("entry %d: %w", i, err)
		}
		if p, comp, ok := c.firstTwo(); ok {
			if err := keep(p, comp, 0); err != nil {
				return fmt.Errorf("entry %d: %w", i, err)
			}
		}
	}
	if _, err := dec.Token(); err != nil {
		return fmt.Errorf("the list does not end: %w", err)
	}
	return nil
}

// jsonlLine is one line of a jsonl dataset: {"prompt": ..., "output_len":
// N}, or a conversation as bench_serving's custom dataset reads it.
type jsonlLine struct {
	Prompt    *string `json:"prompt"`
	OutputLen int     `json:"output_len"`
	conversation
}

// readJSONL reads one prompt per line: a JSON string, an object with a
// prompt (and optionally an output_len), or a conversation. Blank lines
// are skipped; anything else is an error naming the line.
func readJSONL(r io.Reader, keep func(prompt, completion string, out int) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLineBytes)
	for line := 1; sc.Scan(); line++ {
		raw := bytes.TrimSpace(sc.Bytes())
		if len(raw) == 0 {
			continue
		}
		prompt, completion, out, err := parseLine(raw)
		if err == nil {
			err = keep(prompt, completion, out)
		}
		if err != nil {
			return fmt.Errorf("line %d: %w", line, err)
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return fmt.Errorf("a line longer than %d MiB", maxLineBytes>>20)
		}
		return err
	}
	return nil
}

func parseLine(raw []byte) (prompt, completion string, out int, err error) {
	if raw[0] == '"' {
		err = json.Unmarshal(raw, &prompt)
		return prompt, "", 0, err
	}
	var l jsonlLine
	if err := json.Unmarshal(raw, &l); err != nil {
		return "", "", 0, fmt.Errorf("not JSON: %w", err)
	}
	if l.OutputLen < 0 {
		return "", "", 0, fmt.Errorf("output_len %d: want at least 1", l.OutputLen)
	}
	if l.Prompt != nil {
		return *l.Prompt, "", l.OutputLen, nil
	}
	if p, c, ok := l.firstTwo(); ok {
		return p, c, l.OutputLen, nil
	}
	return "", "", 0, errors.New(`want a JSON string, {"prompt": "...", "output_len": N} or {"conversations": [{"value": ...}, {"value": ...}]}`)
}
