package sim

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The start-up contract: connections are refused until the load is done,
// /health answers 503 through the warm-up while the model endpoints answer,
// then the ready line and 200; the log follows SGLang's order; the workers
// are separate execs with their own environments.
func TestStartupSequence(t *testing.T) {
	t.Parallel()
	record := filepath.Join(t.TempDir(), "record.json")
	p := startSim(t, []string{
		"SGLANG_SIM_LOAD_SECONDS=1.0",
		"SGLANG_SIM_WARMUP_SECONDS=3.0",
		"SGLANG_SIM_RECORD=" + record,
		"SGLANG_SIM_WORKER_ENV=SIM_TEST_WORKER_VAR=on,SIM_TEST_OTHER=2",
		"SIM_TEST_MARKER=42",
	}, "--tp", "2", "--cuda-graph-max-bs", "16")

	// 1. Refused until bound, and bound only after the graphs are captured.
	refused := 0
	addr := fmt.Sprintf("127.0.0.1:%d", p.port)
	for {
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			conn.Close()
			break
		}
		if !errors.Is(err, syscall.ECONNREFUSED) {
			t.Fatalf("dial during load: %v (want connection refused)", err)
		}
		refused++
		select {
		case <-p.done:
			t.Fatalf("sim exited during load: %v", p.err)
		case <-time.After(pollInterval):
		}
	}
	if refused == 0 {
		t.Errorf("the port accepted the first connection; want it refused during the load")
	}
	if !p.stderr.waitFor("Capture target decode CUDA graph end", 2*time.Second) {
		t.Errorf("port bound before \"Capture target decode CUDA graph end\" was logged")
	}

	// 2. Warm-up: /health is 503, the model endpoints are already up.
	if code, _ := get(t, p.url("/health")); code != http.StatusServiceUnavailable {
		t.Errorf("/health during warm-up: got %d, want 503", code)
	}
	for _, path := range []string{"/model_info", "/get_model_info", "/v1/models"} {
		if code, _ := get(t, p.url(path)); code != http.StatusOK {
			t.Errorf("%s during warm-up: got %d, want 200", path, code)
		}
	}
	if code, _ := get(t, p.url("/health_generate")); code != http.StatusServiceUnavailable {
		t.Errorf("/health_generate during warm-up: got %d, want 503", code)
	}

	// 3. Ready.
	p.waitReady()
	for _, path := range []string{"/health", "/health_generate"} {
		if code, _ := get(t, p.url(path)); code != http.StatusOK {
			t.Errorf("%s after ready: got %d, want 200", path, code)
		}
	}

	// 4. The log, in SGLang's order.
	logs := p.stderr.String()
	order := []string{
		"'--cuda-graph-max-bs' is deprecated and will be removed in a future release. Use '--cuda-graph-max-bs-decode' instead.",
		"] server_args=ServerArgs(model_path='" + testModel + "'",
		" TP0] Load weight begin.",
		" TP0] Load weight end.",
		" TP0] KV Cache is allocated. dtype: torch.bfloat16, #tokens: ",
		" TP0] Capture target prefill CUDA graph begin. backend=breakable, num_tokens=[",
		" TP0] Capture target prefill CUDA graph end. elapsed=",
		" TP0] Capture target decode CUDA graph begin. backend=full, num_tokens_per_req=1, bs=[1, 2, 4, 8, 16], avail mem=",
		" TP0] Capture target decode CUDA graph end. elapsed=",
		"] INFO:     Uvicorn running on http://127.0.0.1:",
		"] The server is fired up and ready to roll!",
	}
	last := -1
	for _, s := range order {
		i := strings.Index(logs, s)
		if i < 0 {
			t.Errorf("log lacks %q", s)
			continue
		}
		if i < last {
			t.Errorf("log line %q out of order", s)
		}
		last = i
	}
	// Every rank logs its load and its captures (logger.info in each
	// scheduler process), not only rank 0.
	for _, s := range []string{" TP1] Load weight begin.", " TP1] Capture target decode CUDA graph begin.", " TP1] Capture target decode CUDA graph end."} {
		if !strings.Contains(logs, s) {
			t.Errorf("rank 1 did not log %q", s)
		}
	}

	// 5. The invocation record.
	raw, err := os.ReadFile(record)
	if err != nil {
		t.Fatalf("record: %v", err)
	}
	var rec struct {
		Argv []string          `json:"argv"`
		Env  map[string]string `json:"env"`
		Pid  int               `json:"pid"`
	}
	if err := json.Unmarshal(raw, &rec); err != nil {
		t.Fatalf("record: %v", err)
	}
	if rec.Pid != p.pid() {
		t.Errorf("record pid: got %d, want %d", rec.Pid, p.pid())
	}
	if want := p.cmd.Args[1:]; !slices.Equal(rec.Argv[1:], want) {
		t.Errorf("record argv: got %q, want python3 then %q", rec.Argv, want)
	}
	if rec.Env["SIM_TEST_MARKER"] != "42" || rec.Env["SGLANG_SIM_RECORD"] != record {
		t.Errorf("record env lacks the launch environment: %v", rec.Env["SIM_TEST_MARKER"])
	}

	// 6. /server_info carries every arg, typed, plus scheduler facts.
	for _, path := range []string{"/server_info", "/get_server_info"} {
		code, body := get(t, p.url(path))
		if code != http.StatusOK {
			t.Fatalf("%s: got %d", path, code)
		}
		var info map[string]any
		if err := json.Unmarshal(body, &info); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		checks := map[string]any{
			"tp_size": 2.0, "cuda_graph_max_bs_decode": 16.0, "model_path": testModel,
			"version": Version, "port": float64(p.port), "trust_remote_code": false,
			"speculative_algorithm": nil, "served_model_name": testModel,
		}
		for k, want := range checks {
			if got, ok := info[k]; !ok || got != want {
				t.Errorf("%s %s: got %#v, want %#v", path, k, got, want)
			}
		}
		if n, _ := info["max_total_num_tokens"].(float64); n <= 0 {
			t.Errorf("%s max_total_num_tokens: got %v", path, info["max_total_num_tokens"])
		}
		states, _ := info["internal_states"].([]any)
		if len(states) != 1 {
			t.Fatalf("%s internal_states: got %v", path, info["internal_states"])
		}
		// get_internal_state: the resolved args and the scheduler's state;
		// avg_spec_accept_length only under speculative decoding.
		st, _ := states[0].(map[string]any)
		if _, ok := st["avg_spec_accept_length"]; ok {
			t.Errorf("%s internal_states[0] has avg_spec_accept_length without speculative decoding", path)
		}
		if st["tp_size"] != 2.0 || st["memory_usage"] == nil {
			t.Errorf("%s internal_states[0]: got tp_size=%v memory_usage=%v, want the args and the scheduler's state", path, st["tp_size"], st["memory_usage"])
		}
	}

	// 7. The process tree: one scheduler per rank and a detokenizer, each
	// its own exec with its own environment.
	kids := children(p.pid())
	byTitle := map[string]procInfo{}
	for _, k := range kids {
		for _, a := range k.cmdline {
			if strings.HasPrefix(a, "sglang::") {
				byTitle[a] = k
			}
		}
		if k.comm != "sglang::schedul" && k.comm != "sglang::detoken" {
			t.Errorf("child %d comm %q: want a sglang:: title", k.pid, k.comm)
		}
	}
	tp0, ok0 := byTitle["sglang::scheduler_TP0"]
	tp1, ok1 := byTitle["sglang::scheduler_TP1"]
	if !ok0 || !ok1 || len(kids) != 3 {
		t.Fatalf("children: got %d %v, want scheduler_TP0, scheduler_TP1 and a detokenizer", len(kids), byTitle)
	}
	if tp1.environ["SIM_TEST_WORKER_VAR"] != "on" || tp1.environ["SIM_TEST_OTHER"] != "2" {
		t.Errorf("rank 1 environment lacks SGLANG_SIM_WORKER_ENV's variables")
	}
	if _, ok := tp0.environ["SIM_TEST_WORKER_VAR"]; ok {
		t.Errorf("rank 0 environment has rank 1's variable")
	}
	if tp0.environ["NCCL_CUMEM_ENABLE"] != "0" || tp0.environ["CUDA_DEVICE_MAX_CONNECTIONS"] != "8" {
		t.Errorf("workers lack the environment SGLang sets for them: %q %q",
			tp0.environ["NCCL_CUMEM_ENABLE"], tp0.environ["CUDA_DEVICE_MAX_CONNECTIONS"])
	}
	if !strings.HasPrefix(tp0.environ["SGLANG_RUN_ID"], "sglang-run-") || tp0.environ["SGLANG_RUN_ID"] != tp1.environ["SGLANG_RUN_ID"] {
		t.Errorf("SGLANG_RUN_ID: got %q and %q, want one sglang-run-... for the whole server", tp0.environ["SGLANG_RUN_ID"], tp1.environ["SGLANG_RUN_ID"])
	}
	main, err := readProc(p.pid())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := main.environ["NCCL_CUMEM_ENABLE"]; ok {
		t.Errorf("the server's own /proc environ changed; want only its children's")
	}
}

// sseEvents reads an SSE body and returns the payload of each data: line.
func sseEvents(t *testing.T, body io.Reader) []string {
	t.Helper()
	var out []string
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			out = append(out, d)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read stream: %v", err)
	}
	return out
}

func TestGenerateAndOpenAIEndpoints(t *testing.T) {
	t.Parallel()
	cfg := filepath.Join(t.TempDir(), "server.yaml")
	if err := os.WriteFile(cfg, []byte("tp-size: 2\nenable-metrics: true\nserved-model-name: from-config\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startSim(t, []string{"SGLANG_SIM_ITL_MS=2", "SGLANG_SIM_TTFT_MS=5"}, "--config", cfg, "--tp-size", "1")
	p.waitReady()

	t.Run("config file and command line", func(t *testing.T) {
		_, body := get(t, p.url("/server_info"))
		var info map[string]any
		if err := json.Unmarshal(body, &info); err != nil {
			t.Fatal(err)
		}
		if info["tp_size"] != 1.0 || info["enable_metrics"] != true || info["served_model_name"] != "from-config" {
			t.Errorf("got tp_size=%v enable_metrics=%v served_model_name=%v; want the flag to win over the file (1), the file's true and from-config",
				info["tp_size"], info["enable_metrics"], info["served_model_name"])
		}
		if code, body := get(t, p.url("/metrics")); code != 200 || !strings.Contains(string(body), "sglang:generation_tokens_total") {
			t.Errorf("/metrics: got %d %q", code, body)
		}
	})

	t.Run("native stream", func(t *testing.T) {
		const n = 20
		resp := postJSON(t, p.url("/generate"), map[string]any{
			"input_ids":       []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10},
			"sampling_params": map[string]any{"max_new_tokens": n, "ignore_eos": true, "temperature": 0},
			"stream":          true,
		})
		defer resp.Body.Close()
		if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
			t.Errorf("content-type: got %q", ct)
		}
		if te := resp.TransferEncoding; len(te) != 1 || te[0] != "chunked" {
			t.Errorf("transfer-encoding: got %v, want chunked", te)
		}
		events := sseEvents(t, resp.Body)
		if len(events) != n+1 || events[n] != "[DONE]" {
			t.Fatalf("got %d events ending %q, want %d chunks then [DONE]", len(events), events[len(events)-1], n)
		}
		prev := ""
		for i, e := range events[:n] {
			var c struct {
				Text string `json:"text"`
				Meta struct {
					ID               string `json:"id"`
					PromptTokens     int    `json:"prompt_tokens"`
					CompletionTokens int    `json:"completion_tokens"`
					FinishReason     *struct {
						Type string `json:"type"`
					} `json:"finish_reason"`
				} `json:"meta_info"`
			}
			if err := json.Unmarshal([]byte(e), &c); err != nil {
				t.Fatalf("chunk %d: %v: %s", i, err, e)
			}
			if !strings.HasPrefix(c.Text, prev) || len(c.Text) <= len(prev) {
				t.Errorf("chunk %d text %q does not extend %q", i, c.Text, prev)
			}
			prev = c.Text
			if c.Meta.CompletionTokens != i+1 || c.Meta.PromptTokens != 10 || c.Meta.ID == "" {
				t.Errorf("chunk %d meta_info: %+v", i, c.Meta)
			}
			if last := i == n-1; last != (c.Meta.FinishReason != nil) {
				t.Errorf("chunk %d finish_reason: %+v", i, c.Meta.FinishReason)
			} else if last && c.Meta.FinishReason.Type != "length" {
				t.Errorf("finish_reason type: got %q, want length", c.Meta.FinishReason.Type)
			}
		}
	})

	t.Run("native whole", func(t *testing.T) {
		resp := postJSON(t, p.url("/generate"), map[string]any{
			"text": "The capital city of France is", "sampling_params": map[string]any{"max_new_tokens": 7},
		})
		defer resp.Body.Close()
		var out struct {
			Text string `json:"text"`
			Meta struct {
				CompletionTokens int `json:"completion_tokens"`
				PromptTokens     int `json:"prompt_tokens"`
			} `json:"meta_info"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
			t.Fatal(err)
		}
		if out.Meta.CompletionTokens != 7 || out.Meta.PromptTokens < 1 || len(strings.Fields(out.Text)) != 7 {
			t.Errorf("got %+v", out)
		}
	})

	t.Run("chat stream with usage", func(t *testing.T) {
		const n = 12
		resp := postJSON(t, p.url("/v1/chat/completions"), map[string]any{
			"model": "x", "messages": []map[string]any{{"role": "user", "content": "Say hello"}},
			"max_tokens": n, "stream": true, "stream_options": map[string]any{"include_usage": true},
		})
		defer resp.Body.Close()
		events := sseEvents(t, resp.Body)
		content, finish := 0, ""
		var usage map[string]int
		for _, e := range events {
			if e == "[DONE]" {
				continue
			}
			var c struct {
				Object  string `json:"object"`
				Choices []struct {
					Delta struct {
						Content *string `json:"content"`
					} `json:"delta"`
					FinishReason *string `json:"finish_reason"`
				} `json:"choices"`
				Usage map[string]int `json:"usage"`
			}
			if err := json.Unmarshal([]byte(e), &c); err != nil {
				t.Fatalf("%v: %s", err, e)
			}
			if c.Object != "chat.completion.chunk" {
				t.Errorf("object: got %q", c.Object)
			}
			for _, ch := range c.Choices {
				if ch.Delta.Content != nil && *ch.Delta.Content != "" {
					content++
				}
				if ch.FinishReason != nil {
					finish = *ch.FinishReason
				}
			}
			if c.Usage != nil {
				usage = c.Usage
			}
		}
		if content != n || finish != "length" || events[len(events)-1] != "[DONE]" {
			t.Errorf("got %d content chunks, finish %q; want %d and length, then [DONE]", content, finish, n)
		}
		if usage["completion_tokens"] != n || usage["total_tokens"] != usage["prompt_tokens"]+n || usage["prompt_tokens"] < 1 {
			t.Errorf("usage: got %v", usage)
		}
	})

	t.Run("chat whole", func(t *testing.T) {
		resp := postJSON(t, p.url("/v1/chat/completions"), map[string]any{
			"messages": []map[string]any{{"role": "user", "content": "hi"}}, "max_completion_tokens": 4,
		})
		defer resp.Body.Close()
		var out struct {
			Choices []struct {
				Message struct {
					Content string `json:"content"`
				} `json:"message"`
			} `json:"choices"`
			Usage struct {
				CompletionTokens int `json:"completion_tokens"`
			} `json:"usage"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
			t.Fatal(err)
		}
		if len(out.Choices) != 1 || out.Usage.CompletionTokens != 4 {
			t.Errorf("got %+v", out)
		}
	})

	t.Run("errors", func(t *testing.T) {
		tests := []struct {
			method, path, body string
			want               int
		}{
			{"GET", "/no/such/route", "", 404},
			{"GET", "/generate", "", 405},
			{"POST", "/generate", "{not json", 400},
			{"POST", "/generate", `{"sampling_params":{"max_new_tokens":1}}`, 400},
		}
		for _, tt := range tests {
			req, _ := http.NewRequest(tt.method, p.url(tt.path), strings.NewReader(tt.body))
			resp, err := client.Do(req)
			if err != nil {
				t.Fatalf("%s %s: %v", tt.method, tt.path, err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.want {
				t.Errorf("%s %s: got %d, want %d", tt.method, tt.path, resp.StatusCode, tt.want)
			}
		}
	})
}

func TestCrashDuringLoad(t *testing.T) {
	t.Parallel()
	p := startSim(t, []string{
		"SGLANG_SIM_LOAD_SECONDS=1.0",
		"SGLANG_SIM_CRASH_DURING_LOAD=0.3",
		"SGLANG_SIM_CRASH_EXIT_CODE=3",
	}, "--tp", "2")
	ws := p.waitExit()
	if !ws.Exited() || ws.ExitStatus() != 3 {
		t.Errorf("exit: got %v, want status 3", ws)
	}
	logs := p.stderr.String()
	for _, want := range []string{
		" TP0] Scheduler hit an exception: Traceback (most recent call last):",
		"torch.OutOfMemoryError: CUDA out of memory.",
		"Received sigquit from a child process. It usually means the child failed.",
	} {
		if !strings.Contains(logs, want) {
			t.Errorf("log lacks %q", want)
		}
	}
	if strings.Contains(logs, "Uvicorn running on") {
		t.Errorf("the port was bound before the crash")
	}
	if conn, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", p.port)); err == nil {
		conn.Close()
		t.Errorf("port %d accepts connections after the crash", p.port)
	}
	if left := p.processes(); len(left) > 0 {
		t.Errorf("processes left after the crash: %v", left)
	}
}

// SIGTERM drains: /health turns 503, the stream in flight completes, and
// the server ends as SGLang does, by SIGKILLing itself after killing its
// workers (or with SGLANG_SIM_SIGTERM_EXIT_CODE).
func TestSIGTERMDrains(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		env      []string
		signaled bool
		code     int
	}{
		{"as SGLang", nil, true, 0},
		{"exit code override", []string{"SGLANG_SIM_SIGTERM_EXIT_CODE=0"}, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			const n = 40
			p := startSim(t, tt.env, "--tp", "2")
			p.waitReady()
			resp := postJSON(t, p.url("/generate"), map[string]any{
				"input_ids": []int{1, 2, 3}, "sampling_params": map[string]any{"max_new_tokens": n}, "stream": true,
			})
			defer resp.Body.Close()
			r := bufio.NewReader(resp.Body)
			if _, err := r.ReadString('\n'); err != nil {
				t.Fatal(err)
			}
			p.signal(syscall.SIGTERM)
			if !p.stderr.waitFor("SIGTERM received", exitTimeout) {
				t.Fatal("no SIGTERM log line")
			}
			if code, _ := get(t, p.url("/health")); code != http.StatusServiceUnavailable {
				t.Errorf("/health while draining: got %d, want 503", code)
			}
			events := sseEvents(t, r)
			if events[len(events)-1] != "[DONE]" || len(events) != n {
				t.Errorf("stream after SIGTERM: got %d more events, want the remaining %d and [DONE]", len(events), n-1)
			}
			ws := p.waitExit()
			if tt.signaled && (!ws.Signaled() || ws.Signal() != syscall.SIGKILL) {
				t.Errorf("exit: got %v, want killed by SIGKILL", ws)
			}
			if !tt.signaled && (!ws.Exited() || ws.ExitStatus() != tt.code) {
				t.Errorf("exit: got %v, want status %d", ws, tt.code)
			}
			if !strings.Contains(p.stderr.String(), "Gracefully exiting... Remaining number of requests 0.") {
				t.Errorf("no drain log line")
			}
			if left := p.processes(); len(left) > 0 {
				t.Errorf("processes left after SIGTERM: %v", left)
			}
		})
	}
}

// Before the port is bound SGLang has no SIGTERM handler: the server dies of
// the signal and its workers follow through their parent-death SIGKILL.
func TestSIGTERMDuringLoad(t *testing.T) {
	t.Parallel()
	p := startSim(t, []string{"SGLANG_SIM_LOAD_SECONDS=5"}, "--tp", "2")
	if !p.stderr.waitFor(" TP1] Load weight begin.", startTimeout) {
		t.Fatal("the load did not start")
	}
	p.signal(syscall.SIGTERM)
	if ws := p.waitExit(); !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
		t.Errorf("exit: got %v, want killed by SIGTERM", ws)
	}
	deadline := time.Now().Add(exitTimeout)
	for len(p.processes()) > 0 && time.Now().Before(deadline) {
		time.Sleep(pollInterval)
	}
	if left := p.processes(); len(left) > 0 {
		t.Errorf("workers left after the server died during load: %v", left)
	}
}

// SIGINT is uvicorn's graceful shutdown: stop accepting, finish what is in
// flight, kill the workers, exit 0.
func TestSIGINTShutsDownGracefully(t *testing.T) {
	t.Parallel()
	const n = 30
	p := startSim(t, nil, "--tp", "2")
	p.waitReady()
	resp := postJSON(t, p.url("/generate"), map[string]any{
		"input_ids": []int{1}, "sampling_params": map[string]any{"max_new_tokens": n}, "stream": true,
	})
	defer resp.Body.Close()
	r := bufio.NewReader(resp.Body)
	if _, err := r.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	p.signal(syscall.SIGINT)
	if !p.stderr.waitFor("INFO:     Shutting down", exitTimeout) {
		t.Fatal("no shutdown log line")
	}
	if conn, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", p.port)); err == nil {
		conn.Close()
		t.Errorf("new connections accepted after SIGINT")
	}
	if events := sseEvents(t, r); len(events) != n || events[n-1] != "[DONE]" {
		t.Errorf("stream after SIGINT: got %d more events, want the remaining %d and [DONE]", len(events), n-1)
	}
	if ws := p.waitExit(); !ws.Exited() || ws.ExitStatus() != 0 {
		t.Errorf("exit: got %v, want status 0", ws)
	}
	if !strings.Contains(p.stderr.String(), "INFO:     Finished server process") {
		t.Errorf("no final uvicorn line")
	}
	if left := p.processes(); len(left) > 0 {
		t.Errorf("processes left after SIGINT: %v", left)
	}
}

func TestSIGTERMIgnored(t *testing.T) {
	t.Parallel()
	p := startSim(t, []string{"SGLANG_SIM_IGNORE_SIGTERM=1"})
	p.waitReady()
	before := p.processes()
	if err := syscall.Kill(-p.pid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.done:
		t.Fatalf("sim exited on SIGTERM: %v", p.err)
	case <-time.After(time.Second):
	}
	if code, _ := get(t, p.url("/health")); code != http.StatusOK {
		t.Errorf("/health after an ignored SIGTERM: got %d, want 200", code)
	}
	if after := p.processes(); len(after) != len(before) {
		t.Errorf("processes: %d before SIGTERM, %d after; want none to exit", len(before), len(after))
	}
	if err := syscall.Kill(-p.pid(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if ws := p.waitExit(); !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Errorf("exit: got %v, want killed by SIGKILL", ws)
	}
}

func TestSIGQUITKillsTheTree(t *testing.T) {
	t.Parallel()
	p := startSim(t, nil, "--tp", "2")
	p.waitReady()
	p.signal(syscall.SIGQUIT)
	if ws := p.waitExit(); !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Errorf("exit: got %v, want killed by SIGKILL", ws)
	}
	if !strings.Contains(p.stderr.String(), "SIGQUIT received.") {
		t.Errorf("no SIGQUIT log line")
	}
	if left := p.processes(); len(left) > 0 {
		t.Errorf("processes left after SIGQUIT: %v", left)
	}
}

// The escaped worker leaves the server's session and process group, so a
// group kill misses it and it outlives the server.
func TestSetsidWorkerEscapes(t *testing.T) {
	t.Parallel()
	p := startSim(t, []string{"SGLANG_SIM_SETSID_WORKER=1"})
	p.waitReady()
	self, err := readProc(p.pid())
	if err != nil {
		t.Fatal(err)
	}
	var escaped []procInfo
	for _, k := range children(p.pid()) {
		if k.sid == k.pid && k.sid != self.sid {
			escaped = append(escaped, k)
		}
	}
	if len(escaped) != 1 {
		t.Fatalf("children in their own session: got %d, want 1", len(escaped))
	}
	esc := escaped[0]
	if esc.pgid == self.pgid {
		t.Errorf("escaped worker is still in the server's process group")
	}
	if err := syscall.Kill(-self.pgid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	p.waitExit()
	// It inherited the server's stdout and stderr and keeps them open, so
	// only cmd.WaitDelay lets Wait return: a supervisor needs it too.
	for _, fd := range []string{"1", "2"} {
		if link, err := os.Readlink(filepath.Join("/proc", fmt.Sprint(esc.pid), "fd", fd)); err != nil || !strings.HasPrefix(link, "pipe:") {
			t.Errorf("escaped worker fd %s: got %q, %v; want the server's output pipe", fd, link, err)
		}
	}
	if !alive(esc.pid) {
		t.Errorf("escaped worker %d died with the server's group", esc.pid)
	}
	if !slices.Contains(p.processes(), esc.pid) {
		t.Errorf("escaped worker %d not found by its environment", esc.pid)
	}
}

func TestHangAfterReady(t *testing.T) {
	t.Parallel()
	p := startSim(t, []string{"SGLANG_SIM_HANG_AFTER_READY=1.0", "SGLANG_HEALTH_CHECK_TIMEOUT=60"})
	p.waitReady()
	if code, _ := get(t, p.url("/health")); code != http.StatusOK {
		t.Fatalf("/health before the hang: got %d, want 200", code)
	}
	time.Sleep(1500 * time.Millisecond)
	conn, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", p.port), time.Second)
	if err != nil {
		t.Fatalf("dial a hung server: %v (want the connection accepted)", err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte("GET /health HTTP/1.1\r\nHost: x\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(time.Second))
	n, err := conn.Read(make([]byte, 64))
	var ne net.Error
	if n != 0 || !errors.As(err, &ne) || !ne.Timeout() {
		t.Errorf("/health on a hung server: read %d bytes, err %v; want no answer", n, err)
	}
	if code, _ := get(t, p.url("/model_info")); code != http.StatusOK {
		t.Errorf("/model_info on a hung server: got %d, want 200", code)
	}
	if !alive(p.pid()) {
		t.Errorf("hung server exited")
	}
}

func TestLogFlood(t *testing.T) {
	t.Parallel()
	const n = 8<<20 + 123
	code, stdout, stderr := runOnce(t, []string{
		fmt.Sprintf("SGLANG_SIM_LOG_FLOOD_BYTES=%d", n), "SGLANG_SIM_EXIT_AFTER_FLOOD=1",
	}, "--model-path", testModel)
	if code != 0 {
		t.Fatalf("exit status %d: %s", code, tail(stderr, 5))
	}
	if len(stdout) != n || !strings.HasSuffix(stdout, "\n") {
		t.Fatalf("stdout: got %d bytes, want exactly %d ending in a newline", len(stdout), n)
	}
	lines := strings.Count(stdout, "\n")
	if avg := n / lines; avg < 100 || avg > 140 {
		t.Errorf("average line length %d bytes, want about 120", avg)
	}
	if !strings.Contains(stdout[:200], "] Decode batch, #running-req:") {
		t.Errorf("flood lines do not look like SGLang's: %q", stdout[:120])
	}
}

// TestAPIKeyAsSGLang checks the sim's --api-key/--admin-api-key rules
// against SGLang's decide_request_auth (srt/utils/auth.py).
func TestAPIKeyAsSGLang(t *testing.T) {
	t.Parallel()
	p := startSim(t, nil, "--api-key", "user-k", "--admin-api-key", "admin-k", "--enable-metrics")
	p.waitReady()
	tests := []struct {
		name, method, path string
		header             [2]string
		want               int
	}{
		{"health is open", "GET", "/health", [2]string{}, 200},
		{"health_generate is open", "GET", "/health_generate", [2]string{}, 200},
		{"metrics is open", "GET", "/metrics", [2]string{}, 200},
		{"server_info wants the key", "GET", "/server_info", [2]string{}, 401},
		{"wrong key", "GET", "/server_info", [2]string{"Authorization", "Bearer nope"}, 401},
		{"bearer", "GET", "/server_info", [2]string{"Authorization", "Bearer user-k"}, 200},
		{"scheme in any case", "GET", "/v1/models", [2]string{"Authorization", "bearer user-k"}, 200},
		{"x-api-key", "GET", "/model_info", [2]string{"X-Api-Key", "user-k"}, 200},
		{"unknown path is 401 before 404", "GET", "/nope", [2]string{}, 401},
		{"unknown path with the key", "GET", "/nope", [2]string{"Authorization", "Bearer user-k"}, 404},
		{"flush_cache wants the admin key", "POST", "/flush_cache", [2]string{"Authorization", "Bearer user-k"}, 401},
		{"flush_cache with the admin key", "POST", "/flush_cache", [2]string{"Authorization", "Bearer admin-k"}, 200},
		{"the admin key is not the api key", "GET", "/server_info", [2]string{"Authorization", "Bearer admin-k"}, 401},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(tt.method, p.url(tt.path), nil)
			if err != nil {
				t.Fatal(err)
			}
			if tt.header[0] != "" {
				req.Header.Set(tt.header[0], tt.header[1])
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.want {
				t.Errorf("%s %s: got %d, want %d", tt.method, tt.path, resp.StatusCode, tt.want)
			}
		})
	}
}
