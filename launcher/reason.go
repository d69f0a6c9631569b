package launcher

// reason is why a session is being stopped: a sentinel for errors.Is,
// with the words an operator reads.
type reason struct {
	sentinel error
	msg      string
}

func (r *reason) Error() string { return r.msg }
func (r *reason) Unwrap() error { return r.sentinel }

func newReason(sentinel error, msg string) error { return &reason{sentinel: sentinel, msg: msg} }
