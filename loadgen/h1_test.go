package loadgen

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// sseBody is a /generate stream of two tokens.
const sseBody = "data: {\"text\":\" tok\",\"meta_info\":{\"prompt_tokens\":4,\"completion_tokens\":1}}\n\n" +
	"data: {\"text\":\" tok tok\",\"meta_info\":{\"prompt_tokens\":4,\"completion_tokens\":2}}\n\n" +
	"data: [DONE]\n\n"

// chunked frames s as chunks of at most n bytes, with an extension on
// the first and a trailer after the last.
func chunked(s string, n int) string {
	var b strings.Builder
	for i := 0; i < len(s); i += n {
		part := s[i:min(i+n, len(s))]
		ext := ""
		if i == 0 {
			ext = ";name=value"
		}
		fmt.Fprintf(&b, "%x%s\r\n%s\r\n", len(part), ext, part)
	}
	b.WriteString("0\r\nX-Trailer: 1\r\n\r\n")
	return b.String()
}

// rawServer answers each request it reads with answer(i) for the i-th
// connection's requests in turn, then closes the connection when close
// says so. It counts the connections it accepted.
type rawServer struct {
	ln       net.Listener
	accepted atomic.Int64
	answer   func(conn, req int) (resp string, closeAfter bool)
	// split, when > 0, writes each answer in pieces of that many bytes,
	// gap apart.
	split int
	gap   time.Duration
}

func newRawServer(t *testing.T, answer func(conn, req int) (string, bool)) *rawServer {
	return newSplitServer(t, 0, 0, answer)
}

// newSplitServer is newRawServer writing its answers in pieces of split
// bytes, gap apart.
func newSplitServer(t *testing.T, split int, gap time.Duration, answer func(conn, req int) (string, bool)) *rawServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &rawServer{ln: ln, answer: answer, split: split, gap: gap}
	t.Cleanup(func() { ln.Close() })
	go s.serve()
	return s
}

func (s *rawServer) url() string { return "http://" + s.ln.Addr().String() }

func (s *rawServer) serve() {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		n := int(s.accepted.Add(1)) - 1
		go s.conn(c, n)
	}
}

func (s *rawServer) conn(c net.Conn, n int) {
	defer c.Close()
	br := bufio.NewReader(c)
	for req := 0; ; req++ {
		r, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		_, _ = io.Copy(io.Discard, r.Body)
		resp, closeAfter := s.answer(n, req)
		for len(resp) > 0 {
			k := len(resp)
			if s.split > 0 {
				k = min(k, s.split)
			}
			if _, err := io.WriteString(c, resp[:k]); err != nil {
				return
			}
			resp = resp[k:]
			if s.gap > 0 && len(resp) > 0 {
				time.Sleep(s.gap)
			}
		}
		if closeAfter {
			return
		}
	}
}

func okHead(framing string) string {
	return "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n" + framing + "\r\n"
}

// TestH1Responses runs one /generate request against answers framed in
// each way a server may frame them, and broken in each way the client
// must fail on.
func TestH1Responses(t *testing.T) {
	bigHeader := "X-Big: " + strings.Repeat("a", h1MaxHead) + "\r\n"
	tests := []struct {
		name    string
		resp    string
		split   int
		gap     time.Duration // between the pieces: each read finds one
		wantErr string        // "" for a completed request
	}{
		{"chunked", okHead("Transfer-Encoding: chunked\r\n") + chunked(sseBody, 1<<20), 0, 0, ""},
		{"chunked small chunks", okHead("Transfer-Encoding: chunked\r\n") + chunked(sseBody, 5), 0, 0, ""},
		{"chunked written a byte at a time", okHead("Transfer-Encoding: chunked\r\n") + chunked(sseBody, 40), 1, 0, ""},
		// Every read brings one byte: a stream the reactor follows stops
		// for data at every place in the framing and the events, and
		// takes up again where it stopped.
		{"chunked, a byte per read", okHead("Transfer-Encoding: chunked\r\n") + chunked(sseBody, 40), 1, 300 * time.Microsecond, ""},
		{"content length", okHead("Content-Length: "+strconv.Itoa(len(sseBody))+"\r\n") + sseBody, 3, 0, ""},
		{"to the close", "HTTP/1.0 200 OK\r\n\r\n" + sseBody, 0, 0, ""},
		{"interim 100 first", "HTTP/1.1 100 Continue\r\n\r\n" + okHead("Transfer-Encoding: chunked\r\n") + chunked(sseBody, 64), 0, 0, ""},
		{"cut mid-chunk", okHead("Transfer-Encoding: chunked\r\n") + chunked(sseBody, 1<<20)[:60], 0, 0, "the server closed the connection mid-response"},
		{"cut before the last chunk", okHead("Transfer-Encoding: chunked\r\n") + strings.TrimSuffix(chunked(sseBody, 1<<20), "0\r\nX-Trailer: 1\r\n\r\n"), 0, 0, "the server closed the connection mid-response"},
		{"cut within the length", okHead("Content-Length: 1000\r\n") + sseBody, 0, 0, "the server closed the connection mid-response"},
		{"headers too large", "HTTP/1.1 200 OK\r\n" + bigHeader + "\r\n", 0, 0, "response headers over"},
		{"bad chunk size", okHead("Transfer-Encoding: chunked\r\n") + "zz\r\n", 0, 0, "chunk size"},
		{"chunk overruns its size", okHead("Transfer-Encoding: chunked\r\n") + "2\r\nabc\r\n", 0, 0, "overruns"},
		{"endless chunk size line", okHead("Transfer-Encoding: chunked\r\n") + strings.Repeat("1", 2*h1MaxChunkLine), 0, 0, "framing line"},
		{"gzip", okHead("Transfer-Encoding: gzip\r\n"), 0, 0, "unsupported transfer encoding"},
		{"not HTTP", "SSH-2.0-OpenSSH\r\n\r\n", 0, 0, "malformed HTTP response"},
		{"HTTP error", "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 28\r\n\r\n{\"message\":\"stub failure\"}\r\n", 0, 0, "HTTP 500: stub failure"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newSplitServer(t, tt.split, tt.gap, func(int, int) (string, bool) { return tt.resp, true })
			c := NewClient(srv.url(), "", 1)
			defer c.Close()
			if c.h1 == nil {
				t.Fatal("a loopback http URL does not use the HTTP/1.1 client")
			}
			s := c.do(runCtx(t), Generate, []byte(`{}`), 4, 2, func(int) {})
			switch {
			case tt.wantErr == "" && (!s.OK || s.OutputTokens != 2):
				t.Errorf("got OK %v, %d tokens, error %q; want a completed request of 2 tokens", s.OK, s.OutputTokens, s.Err)
			case tt.wantErr != "" && (s.OK || !strings.Contains(s.Err, tt.wantErr)):
				t.Errorf("got OK %v, error %q; want an error with %q", s.OK, s.Err, tt.wantErr)
			}
		})
	}
}

// TestH1KeepAlive: requests one after another share one connection, and
// a connection the server closed while it was idle is replaced without
// failing the request sent on it.
func TestH1KeepAlive(t *testing.T) {
	resp := okHead("Transfer-Encoding: chunked\r\n") + chunked(sseBody, 64)
	for _, tt := range []struct {
		name         string
		closeAfter   bool
		wantAccepted int64
	}{
		{"kept", false, 1},
		{"closed while idle", true, 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := newRawServer(t, func(int, int) (string, bool) { return resp, tt.closeAfter })
			c := NewClient(srv.url(), "", 1)
			defer c.Close()
			for i := range 3 {
				if s := c.do(runCtx(t), Generate, []byte(`{}`), 4, 2, func(int) {}); !s.OK {
					t.Fatalf("request %d: %s", i, s.Err)
				}
				time.Sleep(10 * time.Millisecond) // the server's close arrives
			}
			if got := srv.accepted.Load(); got != tt.wantAccepted {
				t.Errorf("server accepted %d connections, want %d", got, tt.wantAccepted)
			}
		})
	}
}

// TestH1RequestHead: the request carries what net/http sent for it.
func TestH1RequestHead(t *testing.T) {
	c := newH1Client("http://127.0.0.1:30000/base/", "secret", 4)
	got := string(c.requestHead(http.MethodPost, "/generate", []byte(`{"a":1}`)))
	want := "POST /base/generate HTTP/1.1\r\nHost: 127.0.0.1:30000\r\nUser-Agent: Go-http-client/1.1\r\n" +
		"Authorization: Bearer secret\r\nContent-Type: application/json\r\nAccept: text/event-stream\r\nContent-Length: 7\r\n\r\n"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	for _, url := range []string{"https://127.0.0.1:30000", "http://user:pw@127.0.0.1:1"} {
		if newH1Client(url, "", 1) != nil {
			t.Errorf("%s: got the HTTP/1.1 client, want net/http", url)
		}
	}
}
