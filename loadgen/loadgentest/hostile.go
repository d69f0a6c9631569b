package loadgentest

import (
	"bytes"
	"fmt"
	"net/http"
)

// HostileModes are the broken or hostile answers Server.Hostile selects,
// each one event (or line) a client must survive without holding what
// it claims or sends:
//
//   - huge-count: completion_tokens 20000000 in the first event
//   - huge-digits: completion_tokens with 18 digits
//   - negative-count: completion_tokens -5
//   - huge-line: one data: line of HugeLine bytes (256 MiB)
//   - endless: tokens past the requested count, without end
var HostileModes = []string{"huge-count", "huge-digits", "negative-count", "huge-line", "endless"}

// defaultHugeLine is the size of the huge-line mode's line.
const defaultHugeLine = 256 << 20

// hostile answers a generation request in mode s.Hostile. It allocates
// next to nothing itself, so that a test measuring the process's memory
// measures the client.
func (s *Server) hostile(w http.ResponseWriter, chat bool) {
	flusher := w.(http.Flusher)
	event := func(tokens string) string {
		if chat {
			return `data: {"id":"x","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":" tok"}}],"usage":{"prompt_tokens":8,"completion_tokens":` + tokens + "}}\n\n"
		}
		return `data: {"text":" tok","meta_info":{"id":"x","prompt_tokens":8,"completion_tokens":` + tokens + "}}\n\n"
	}
	switch s.Hostile {
	case "huge-count":
		fmt.Fprint(w, event("20000000"), "data: [DONE]\n\n")
	case "huge-digits":
		fmt.Fprint(w, event("999999999999999999"), "data: [DONE]\n\n")
	case "negative-count":
		fmt.Fprint(w, event("1"), event("-5"), "data: [DONE]\n\n")
	case "huge-line":
		size := s.HugeLine
		if size <= 0 {
			size = defaultHugeLine
		}
		if _, err := fmt.Fprint(w, `data: {"text":"`); err != nil {
			return
		}
		chunk := bytes.Repeat([]byte("x"), 64<<10)
		for sent := int64(0); sent < size; sent += int64(len(chunk)) {
			if _, err := w.Write(chunk); err != nil {
				return // the client hung up, as it should
			}
		}
		fmt.Fprint(w, "\"}\n\n", "data: [DONE]\n\n")
	case "endless":
		for i := 1; ; i++ {
			if _, err := fmt.Fprint(w, event(fmt.Sprint(i))); err != nil {
				return
			}
			if i%64 == 0 {
				flusher.Flush()
			}
		}
	default:
		http.Error(w, "unknown hostile mode "+s.Hostile, http.StatusInternalServerError)
		return
	}
	flusher.Flush()
}
