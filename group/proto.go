package group

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"
)

// Message types.
const (
	msgHello       = "hello"        // worker → rank 0: its Report
	msgGo          = "go"           // rank 0 → worker: load, with the dist-init address
	msgRefuse      = "refuse"       // rank 0 → worker: the group does not match
	msgReady       = "ready"        // worker → rank 0: its local server is up
	msgGroupReady  = "group-ready"  // rank 0 → worker: every rank is up
	msgHeartbeat   = "hb"           // both ways
	msgFail        = "fail"         // worker → rank 0: its server ended
	msgStop        = "stop"         // rank 0 → worker: the group stops
	msgObserve     = "observe"      // rank 0 → worker: send an observation
	msgObservation = "observation"  // worker → rank 0
	msgObserveAll  = "observe-all"  // a local verify → rank 0
	msgObserved    = "observations" // rank 0 → a local verify
)

// maxMessage bounds one message (a Report, an observation).
const maxMessage = 8 << 20

// writeTimeout bounds one message's send: a peer that does not read is
// as good as gone.
const writeTimeout = 5 * time.Second

// message is one line on the control channel.
type message struct {
	Type   string  `json:"type"`
	Rank   int     `json:"rank,omitempty"`
	Node   string  `json:"node,omitempty"`
	Report *Report `json:"report,omitempty"`
	Reason string  `json:"reason,omitempty"`
	// Retry, on a refusal, says the refusal may not hold for long (the
	// rank is still present from before, the group is still ending):
	// the worker tries again until its rendezvous timeout.
	Retry        bool            `json:"retry,omitempty"`
	Table        string          `json:"table,omitempty"`
	DistInitAddr string          `json:"dist_init_addr,omitempty"`
	Data         json.RawMessage `json:"data,omitempty"`
	Items        []Observed      `json:"items,omitempty"`
}

// Observed is one rank's observation, as verify --group gets it.
type Observed struct {
	Rank  int             `json:"rank"`
	Node  string          `json:"node"`
	Data  json.RawMessage `json:"data,omitempty"`
	Error string          `json:"error,omitempty"`
}

// conn is one control connection: reads from one goroutine, writes
// serialised, each bounded.
type conn struct {
	c  net.Conn
	r  *bufio.Reader
	mu sync.Mutex
}

func newConn(c net.Conn) *conn { return &conn{c: c, r: bufio.NewReaderSize(c, 64<<10)} }

func (c *conn) send(m message) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	c.mu.Lock()
	defer c.mu.Unlock()
	c.c.SetWriteDeadline(time.Now().Add(writeTimeout))
	_, err = c.c.Write(b)
	return err
}

var errTooLong = errors.New("message too long")

// recv reads one message; deadline zero waits for ever.
func (c *conn) recv(deadline time.Time) (message, error) {
	c.c.SetReadDeadline(deadline)
	var line []byte
	for {
		chunk, err := c.r.ReadSlice('\n')
		if len(line)+len(chunk) > maxMessage {
			return message{}, fmt.Errorf("%w (over %d bytes)", errTooLong, maxMessage)
		}
		line = append(line, chunk...)
		if err == nil {
			break
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return message{}, err
		}
	}
	var m message
	if err := json.Unmarshal(line, &m); err != nil {
		return message{}, fmt.Errorf("not a control message: %w", err)
	}
	return m, nil
}

func (c *conn) close() { c.c.Close() }

func (c *conn) remote() string { return c.c.RemoteAddr().String() }
