package group

import (
	"bufio"
	bs "bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"
)

// Message types.
const (
	msgChallenge   = "challenge"    // rank 0 → worker, first: rank 0's nonce
	msgHello       = "hello"        // worker → rank 0: its Report
	msgGo          = "go"           // rank 0 → worker: load, with the dist-init address
	msgRefuse      = "refuse"       // rank 0 → worker: the group does not match
	msgReady       = "ready"        // worker → rank 0: its local server is up
	msgGroupReady  = "group-ready"  // rank 0 → worker: every rank is up
	msgHeartbeat   = "hb"           // both ways
	msgFail        = "fail"         // worker → rank 0: its server ended
	msgStop        = "stop"         // rank 0 → worker: the group stops (failed, or drained)
	msgStopRequest = "stop-request" // worker → rank 0: this rank was asked to stop
	msgDrain       = "drain"        // rank 0 → worker: the group stops on request; rank 0 drains
	msgStopped     = "stopped"      // worker → rank 0: its server ended during a requested stop
	msgObserve     = "observe"      // rank 0 → worker: send an observation
	msgObservation = "observation"  // worker → rank 0
	msgObserveAll  = "observe-all"  // a local verify → rank 0
	msgObserved    = "observations" // rank 0 → a local verify
)

// Bounds on one message. Everything rank 0 reads before a connection
// authenticates (the hello, a Report of a few KiB) and everything a
// worker reads from rank 0 is at most maxHello; an authenticated
// worker's observation (its processes' environments) at most
// maxMessage; the observations of every rank, which rank 0 gives a
// local verify, at most maxObserved.
const (
	maxHello    = 1 << 20
	maxMessage  = 8 << 20
	maxObserved = 256 << 20
)

// writeTimeout bounds one message's send: a peer that does not read is
// as good as gone.
const writeTimeout = 5 * time.Second

// unsigned marks a line that carries no MAC: rank 0's challenge, a
// refusal of a connection that did not authenticate, the local socket.
const unsigned = "-"

// message is one line on the control channel.
type message struct {
	Type   string  `json:"type"`
	Rank   int     `json:"rank,omitempty"`
	Node   string  `json:"node,omitempty"`
	Report *Report `json:"report,omitempty"`
	Reason string  `json:"reason,omitempty"`
	// LostPeer, on a fail, is End.LostPeer.
	LostPeer string `json:"lost_peer,omitempty"`
	// Retry, on a refusal, says the refusal may not hold for long (the
	// rank is still present from before, the group is still ending):
	// the worker tries again until its rendezvous timeout.
	Retry        bool            `json:"retry,omitempty"`
	Table        string          `json:"table,omitempty"`
	DistInitAddr string          `json:"dist_init_addr,omitempty"`
	Data         json.RawMessage `json:"data,omitempty"`
	Items        []Observed      `json:"items,omitempty"`
	// Nonce is each end's fresh nonce: rank 0's in its challenge, the
	// worker's in its hello (see auth.go).
	Nonce string `json:"nonce,omitempty"`
	// Drained, on a stop, says the group stops as requested: rank 0's
	// server drained and ended, no failure.
	Drained bool `json:"drained,omitempty"`
}

// Observed is one rank's observation, as verify --group gets it.
type Observed struct {
	Rank  int             `json:"rank"`
	Node  string          `json:"node"`
	Data  json.RawMessage `json:"data,omitempty"`
	Error string          `json:"error,omitempty"`
}

// conn is one control connection: reads from one goroutine, writes
// serialised, each bounded. A line is the message's MAC (hex, or
// unsigned), a space and the message's JSON.
type conn struct {
	c    net.Conn
	r    *bufio.Reader
	mu   sync.Mutex
	auth *session // nil: unsigned lines (before the handshake, the local socket)
}

func newConn(c net.Conn) *conn { return &conn{c: c, r: bufio.NewReaderSize(c, 64<<10)} }

func (c *conn) send(m message) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	mac := unsigned
	if c.auth != nil {
		mac = c.auth.sign(b)
	}
	line := make([]byte, 0, len(mac)+len(b)+2)
	line = append(append(append(append(line, mac...), ' '), b...), '\n')
	c.c.SetWriteDeadline(time.Now().Add(writeTimeout))
	_, err = c.c.Write(line)
	return err
}

var errTooLong = errors.New("message too long")

// errUnsigned: an unsigned line where a signed one was due.
var errUnsigned = errors.New("unsigned message")

// recvRaw reads one line of at most limit bytes by deadline (zero:
// none) and splits it into its MAC and its JSON.
func (c *conn) recvRaw(deadline time.Time, limit int) (mac string, body []byte, err error) {
	c.c.SetReadDeadline(deadline)
	var line []byte
	for {
		chunk, err := c.r.ReadSlice('\n')
		if len(line)+len(chunk) > limit {
			return "", nil, fmt.Errorf("%w (over %d bytes)", errTooLong, limit)
		}
		line = append(line, chunk...)
		if err == nil {
			break
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return "", nil, err
		}
	}
	m, b, ok := bs.Cut(bs.TrimSuffix(line, []byte{'\n'}), []byte{' '})
	if !ok || len(m) > 64 {
		return "", nil, errors.New("not a control message")
	}
	return string(m), b, nil
}

// recv reads one message, verified when the connection is
// authenticated; deadline zero waits for ever.
func (c *conn) recv(deadline time.Time, limit int) (message, error) {
	mac, body, err := c.recvRaw(deadline, limit)
	if err != nil {
		return message{}, err
	}
	m, err := decode(body)
	if err != nil {
		return message{}, err
	}
	if c.auth != nil {
		if mac == unsigned {
			// A refusal of a hello that did not authenticate comes
			// unsigned: anyone could have sent it, so it is only a
			// reason to try again, never a verdict.
			return m, fmt.Errorf("%w: %s", errUnsigned, clean(m.Reason, maxReason))
		}
		if err := c.auth.verify(mac, body); err != nil {
			return message{}, err
		}
	}
	return m, nil
}

func decode(body []byte) (message, error) {
	var m message
	if err := json.Unmarshal(body, &m); err != nil {
		return message{}, fmt.Errorf("not a control message: %w", err)
	}
	return m, nil
}

func (c *conn) close() { c.c.Close() }

func (c *conn) remote() string { return clean(c.c.RemoteAddr().String(), maxName) }
