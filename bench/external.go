package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sglaunch/sglaunch/bench/workload"
	"github.com/sglaunch/sglaunch/internal/childproc"
	"github.com/sglaunch/sglaunch/internal/leftovers"
	"github.com/sglaunch/sglaunch/internal/redact"
	"github.com/sglaunch/sglaunch/internal/tail"
)

// ExternalResult is what an external workload left behind.
type ExternalResult struct {
	// Command is the command as run, secrets redacted.
	Command  []string `json:"command"`
	ExitCode int      `json:"exit_code"`
	// Output is the tail of the command's stdout and stderr together.
	Output        string `json:"output"`
	OutputDropped int64  `json:"output_dropped_bytes,omitempty"`
	// Result is the result file: JSON as written, JSON lines as a list,
	// other text as a string; absent when the command wrote none.
	Result json.RawMessage `json:"result,omitempty"`
	// Metrics are the numeric fields of the result's last JSON object
	// (bench_serving's median_ttft_ms, output_throughput, ...).
	Metrics map[string]float64 `json:"metrics,omitempty"`
}

// Limits on what an external workload leaves in a record.
const (
	outputKeep      = 64 << 10
	resultKeep      = 4 << 20
	stopGrace       = 5 * time.Second
	externalWaitCap = 5 * time.Second // for pipes a detached grandchild holds
)

// runExternal runs a command workload to its end. The command runs in its
// own process group, which is killed when it ends, times out or ctx is
// cancelled (SIGTERM, then SIGKILL after stopGrace), so nothing it
// started outlives it.
//
// The scratch directory's name carries the launch id, so that a later
// sglaunch removes it if this one is killed before it could.
func runExternal(ctx context.Context, w workload.Workload, data workload.TemplateData, environ []string, launchID string, live io.Writer) (*ExternalResult, error) {
	scratch := leftovers.ScratchPrefix
	if launchID != "" {
		scratch += launchID + "-"
	}
	dir, err := os.MkdirTemp("", scratch)
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", w.Name, err)
	}
	defer os.RemoveAll(dir)
	data.Dir, data.ResultFile, data.Workload = dir, filepath.Join(dir, "result.json"), w.Name
	var argv []string
	for _, t := range w.Command {
		s, err := workload.Expand(t, data)
		if err != nil {
			return nil, fmt.Errorf("run %s: %w", w.Name, err)
		}
		argv = append(argv, s)
	}
	if w.Shell {
		argv = []string{"/bin/sh", "-c", argv[0]}
	}
	res := &ExternalResult{Command: redactCommand(argv), ExitCode: -1}
	kept := &tail.Buffer{Max: outputKeep}
	var to io.Writer = kept
	if live != nil {
		to = io.MultiWriter(live, kept)
	}
	// The command gets the plan's secrets (OPENAI_API_KEY, HF_TOKEN) and
	// may print them: its output is masked before it is shown or stored.
	masker := redact.NewMasker(append(redact.EnvironSecrets(environ), redact.CommandSecrets(argv)...))
	out := &redact.Writer{W: to, M: masker}
	cmd, err := childproc.Start(ctx, childproc.Spec{
		Argv: argv,
		Env: append(append([]string(nil), environ...),
			"SGLAUNCH_BENCH_URL="+data.URL, "SGLAUNCH_BENCH_RESULT_FILE="+data.ResultFile),
		// One writer for both streams: one pipe, in the order printed.
		Stdout: out, Stderr: out,
		Timeout:   time.Duration(w.Timeout),
		Grace:     stopGrace,
		WaitDelay: externalWaitCap,
	})
	if err != nil {
		return res, fmt.Errorf("run %s: %w", w.Name, err)
	}
	ran := cmd.Wait()
	_ = out.Close()
	res.Output, res.OutputDropped = kept.String(), kept.Dropped()
	res.ExitCode = ran.ExitCode
	res.Result, res.Metrics = readResult(data.ResultFile)
	res.Result = maskResult(res.Result, masker)
	switch {
	case errors.Is(ran.Err, childproc.ErrTimeout):
		return res, fmt.Errorf("%s: command timed out after %v", w.Name, time.Duration(w.Timeout))
	case ctx.Err() != nil:
		return res, fmt.Errorf("%s: %w", w.Name, context.Cause(ctx))
	case ran.Err != nil && res.ExitCode == -1:
		return res, fmt.Errorf("%s: %w", w.Name, ran.Err)
	case res.ExitCode != 0:
		why := fmt.Sprintf("%s: command exited with status %d", w.Name, res.ExitCode)
		if l := tail.Line([]byte(res.Output), 1); l != "" {
			why += ": " + l
		}
		return res, errors.New(why)
	}
	return res, nil
}

// redactCommand masks secret option values, in an argv and inside a
// shell command line alike. The command is not SGLang: options are judged
// by their names as written (redact.CommandArgv).
func redactCommand(argv []string) []string {
	out := redact.CommandArgv(argv)
	for i, a := range out {
		if strings.ContainsAny(a, " \t") {
			out[i] = strings.Join(redact.CommandArgv(strings.Fields(a)), " ")
		}
	}
	return out
}

// maskResult masks secrets in a result file's content; content that
// masking leaves invalid JSON (a secret inside a number) is kept as a
// JSON string.
func maskResult(raw json.RawMessage, m *redact.Masker) json.RawMessage {
	if raw == nil || m == nil {
		return raw
	}
	s := m.String(string(raw))
	if s == string(raw) {
		return raw
	}
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	b, _ := json.Marshal(s)
	return b
}

// readResult reads the result file, if the command wrote one.
func readResult(path string) (json.RawMessage, map[string]float64) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil
	}
	defer f.Close()
	data, _ := io.ReadAll(io.LimitReader(f, resultKeep+1))
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, nil
	}
	data = quoteNonFinite(data)
	if len(data) <= resultKeep && json.Valid(data) {
		return json.RawMessage(data), numbers(data)
	}
	var items []json.RawMessage
	for _, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if !json.Valid(line) {
			items = nil
			break
		}
		items = append(items, line)
	}
	if len(items) > 0 && len(data) <= resultKeep {
		raw, _ := json.Marshal(items)
		return raw, numbers(items[len(items)-1])
	}
	text := string(data)
	if len(text) > resultKeep {
		text = text[len(text)-resultKeep:]
	}
	raw, _ := json.Marshal(text)
	return raw, nil
}

// quoteNonFinite makes JSON of the text Python's json module writes for
// the floats JSON has no words for: the bare NaN, Infinity and -Infinity
// (bench_serving's default request rate is inf, written "request_rate":
// Infinity) become the strings "NaN", "Infinity" and "-Infinity", so the
// file is kept as JSON and its finite numbers become metrics. Text inside
// strings is left alone.
func quoteNonFinite(data []byte) []byte {
	if !bytes.Contains(data, []byte("NaN")) && !bytes.Contains(data, []byte("Infinity")) {
		return data
	}
	out := make([]byte, 0, len(data)+16)
	inString := false
	for i := 0; i < len(data); i++ {
		c := data[i]
		if inString {
			out = append(out, c)
			switch c {
			case '\\':
				if i+1 < len(data) {
					i++
					out = append(out, data[i])
				}
			case '"':
				inString = false
			}
			continue
		}
		if c == '"' {
			inString = true
			out = append(out, c)
			continue
		}
		word := ""
		for _, w := range []string{"-Infinity", "Infinity", "NaN"} {
			if bytes.HasPrefix(data[i:], []byte(w)) {
				word = w
				break
			}
		}
		if word == "" {
			out = append(out, c)
			continue
		}
		out = append(out, '"')
		out = append(out, word...)
		out = append(out, '"')
		i += len(word) - 1
	}
	return out
}

// numbers returns the numeric top-level fields of a JSON object, or of
// the last object of a JSON list.
func numbers(data []byte) map[string]float64 {
	var list []json.RawMessage
	if json.Unmarshal(data, &list) == nil && len(list) > 0 {
		data = list[len(list)-1]
	}
	var obj map[string]any
	if json.Unmarshal(data, &obj) != nil {
		return nil
	}
	out := map[string]float64{}
	for k, v := range obj {
		if f, ok := v.(float64); ok {
			out[k] = f
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
