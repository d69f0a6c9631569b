package group

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
)

// The channel's authentication. Every connection starts with rank 0's
// challenge (a fresh nonce); the worker's hello carries a fresh nonce of
// its own, and both ends derive the connection's key from the group's
// secret and the two nonces. Every message after the challenge carries
// HMAC-SHA256 under that key over its direction, its sequence number
// (counted by each end, never sent) and its bytes: a message without
// the secret, replayed from another connection or session, reordered,
// or reflected back to its sender does not verify, and is refused.

// keyLabel separates this key derivation from any other use of the
// secret.
const keyLabel = "sglaunch group control channel v1"

// The directions of a message, each with its own sequence.
const (
	toLeader byte = 'L' // worker → rank 0
	toWorker byte = 'W' // rank 0 → worker
)

// errBadMAC: a message that does not verify under the connection's key.
var errBadMAC = errors.New("message does not authenticate (another group secret, or not sglaunch)")

// session is one connection's authentication state; nil on the local
// unix socket, whose file permissions are its authentication.
type session struct {
	key      []byte
	sendDir  byte
	recvDir  byte
	sendSeq  uint64 // guarded by conn.mu
	recvSeq  uint64 // read by one goroutine only
	verified bool   // the peer's first message verified
}

// newNonce returns a fresh random nonce (crypto/rand's Text: 128 bits
// and more; it cannot fail).
func newNonce() string { return rand.Text() }

// deriveKey is the connection's key: the secret, keyed over both
// nonces, so that no message of another connection verifies on this one.
func deriveKey(secret []byte, leaderNonce, workerNonce string) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(keyLabel))
	m.Write([]byte{0})
	m.Write([]byte(leaderNonce))
	m.Write([]byte{0})
	m.Write([]byte(workerNonce))
	return m.Sum(nil)
}

// newSession is the state of one end: rank 0 (leader true) or a worker.
func newSession(secret []byte, leaderNonce, workerNonce string, leader bool) *session {
	s := &session{key: deriveKey(secret, leaderNonce, workerNonce), sendDir: toLeader, recvDir: toWorker}
	if leader {
		s.sendDir, s.recvDir = toWorker, toLeader
	}
	return s
}

func (s *session) mac(dir byte, seq uint64, body []byte) []byte {
	m := hmac.New(sha256.New, s.key)
	var hdr [9]byte
	hdr[0] = dir
	binary.BigEndian.PutUint64(hdr[1:], seq)
	m.Write(hdr[:])
	m.Write(body)
	return m.Sum(nil)
}

// sign returns the hex MAC of the next message sent; the caller holds
// the connection's send lock.
func (s *session) sign(body []byte) string {
	sum := s.mac(s.sendDir, s.sendSeq, body)
	s.sendSeq++
	return hex.EncodeToString(sum)
}

// verify checks the MAC of the next message received.
func (s *session) verify(macHex string, body []byte) error {
	got, err := hex.DecodeString(macHex)
	if err != nil || !hmac.Equal(got, s.mac(s.recvDir, s.recvSeq, body)) {
		return errBadMAC
	}
	s.recvSeq++
	s.verified = true
	return nil
}
