package launcher

import (
	"fmt"
	"strings"
	"sync"
)

const (
	// tailBytes bounds the output kept for error messages.
	tailBytes = 64 << 10
	// tailLineMax shortens a very long line (SGLang's server_args line)
	// in an error message.
	tailLineMax = 1000
)

// tail keeps the last tailBytes of the server's output.
type tail struct {
	mu        sync.Mutex
	buf       []byte
	truncated bool // bytes were dropped from the front
}

func (t *tail) write(b []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(b) >= tailBytes {
		t.buf = append(t.buf[:0], b[len(b)-tailBytes:]...)
		t.truncated = true
		return
	}
	if over := len(t.buf) + len(b) - tailBytes; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
		t.truncated = true
	}
	t.buf = append(t.buf, b...)
}

// lines returns the last n lines, each as a terminal would show it: the
// text after the last carriage return, without colour escapes.
func (t *tail) lines(n int) []string {
	t.mu.Lock()
	data := string(t.buf)
	truncated := t.truncated
	t.mu.Unlock()
	parts := strings.Split(strings.TrimRight(data, "\r\n"), "\n")
	if truncated && len(parts) > 1 {
		parts = parts[1:] // the first line is cut
	}
	if len(parts) > n {
		parts = parts[len(parts)-n:]
	}
	var out []string
	for _, p := range parts {
		p = strings.TrimRight(p, "\r")
		if i := strings.LastIndexByte(p, '\r'); i >= 0 {
			p = p[i+1:]
		}
		if strings.IndexByte(p, 0x1b) >= 0 {
			p = string(appendStripped(nil, []byte(p)))
		}
		if len(p) > tailLineMax {
			p = fmt.Sprintf("%s... [%d more bytes]", p[:tailLineMax], len(p)-tailLineMax)
		}
		out = append(out, p)
	}
	if len(out) == 1 && out[0] == "" {
		return nil
	}
	return out
}
