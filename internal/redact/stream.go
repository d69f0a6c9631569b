package redact

import (
	"bytes"
	"io"
	"slices"
	"strings"
)

// MinLen is the floor below which a secret value is not masked inside
// free text (a server's or a command's output): a secret is a secret, but
// a one-character value (an --api-key of "x") would be replaced inside
// every word that holds that letter, destroying the text. Such values are
// still masked wherever sglaunch shows them by name (config, records,
// verify), which does not depend on this floor.
const MinLen = 2

// Masker replaces secret values in a stream that arrives in blocks cut at
// arbitrary points (pipe reads, flushes of a partial line). A value split
// across two blocks is still masked: Block holds back the longest tail of
// a block that could be the start of a secret (at most the longest
// secret's length minus one bytes) and puts it before the next block.
// Only such a tail waits; other output goes out at once. A nil *Masker
// masks nothing.
type Masker struct {
	secrets [][]byte // longest first
	carry   []byte   // the held-back tail
	in, out []byte   // reused buffers
}

// NewMasker masks values of at least MinLen bytes; it returns nil when
// there are none.
func NewMasker(values []string) *Masker {
	var secrets [][]byte
	for _, v := range values {
		if len(v) >= MinLen && v != Mask && !slices.ContainsFunc(secrets, func(s []byte) bool { return string(s) == v }) {
			secrets = append(secrets, []byte(v))
		}
	}
	if len(secrets) == 0 {
		return nil
	}
	// Longest first, so that a secret holding a shorter one is replaced whole.
	slices.SortStableFunc(secrets, func(a, b []byte) int { return len(b) - len(a) })
	return &Masker{secrets: secrets}
}

// Block returns what of the stream can go out now, masked: the held-back
// tail of the last block, then b, minus a new tail that could begin a
// secret. The result is b itself when there is nothing to mask or hold
// (the common case costs no copy); otherwise it is valid until the next
// call.
func (m *Masker) Block(b []byte) []byte {
	if m == nil {
		return b
	}
	data := b
	if len(m.carry) > 0 {
		m.in = append(append(m.in[:0], m.carry...), b...)
		data = m.in
	}
	out, rest := m.scan(data, false)
	m.carry = append(m.carry[:0], rest...)
	return out
}

// Flush returns the held-back tail, masked, at the end of the stream.
func (m *Masker) Flush() []byte {
	if m == nil || len(m.carry) == 0 {
		return nil
	}
	out, _ := m.scan(m.carry, true)
	out = bytes.Clone(out)
	m.carry = m.carry[:0]
	return out
}

// String masks every secret in s, for text that is whole (a tail kept for
// an error message, a result file).
func (m *Masker) String(s string) string {
	if m == nil {
		return s
	}
	out, _ := m.scan([]byte(s), true)
	return string(out)
}

// scan masks data left to right, each secret at its leftmost occurrence
// (the longest where two start together). Unless final, it stops at the
// first place from which the rest of data could still grow into a secret
// and returns that rest to hold back. out is data itself when nothing
// changed.
func (m *Masker) scan(data []byte, final bool) (out, rest []byte) {
	out = m.out[:0]
	copied := false
	i := 0
	for {
		stop := len(data)
		if !final {
			stop = len(data) - m.partial(data[i:])
		}
		at, n := -1, 0
		for _, s := range m.secrets {
			if k := bytes.Index(data[i:], s); k >= 0 && (at < 0 || i+k < at) {
				at, n = i+k, len(s)
			}
		}
		if at < 0 || at >= stop {
			if !copied {
				return data[:stop], data[stop:]
			}
			out = append(out, data[i:stop]...)
			m.out = out
			return out, data[stop:]
		}
		out = append(append(out, data[i:at]...), Mask...)
		copied = true
		i = at + n
	}
}

// partial is the length of the longest tail of b that is a proper prefix
// of a secret: the part that must wait for the next block.
func (m *Masker) partial(b []byte) int {
	hold := 0
	for _, s := range m.secrets {
		from := max(0, len(b)-(len(s)-1))
		for i := from; i < len(b) && len(b)-i > hold; i++ {
			if b[i] == s[0] && bytes.HasPrefix(s, b[i:]) {
				hold = len(b) - i
				break
			}
		}
	}
	return hold
}

// Writer masks secrets in what it passes on to W; Close writes what is
// held back. Write reports len(p) written whatever part it held back.
type Writer struct {
	W io.Writer
	M *Masker
}

func (w *Writer) Write(p []byte) (int, error) {
	out := w.M.Block(p)
	if len(out) > 0 {
		if _, err := w.W.Write(out); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// Close writes the held-back tail; it does not close W.
func (w *Writer) Close() error {
	if rest := w.M.Flush(); len(rest) > 0 {
		_, err := w.W.Write(rest)
		return err
	}
	return nil
}

// ArgvSecrets are the values Argv masks in an SGLang argv.
func ArgvSecrets(argv []string) []string { return hidden(argv, Argv(argv)) }

// CommandSecrets are the values CommandArgv masks in a command's argv.
func CommandSecrets(argv []string) []string { return hidden(argv, CommandArgv(argv)) }

// EnvironSecrets are the values of the credential variables of a
// NAME=value list, and the passwords of URLs in the others.
func EnvironSecrets(environ []string) []string {
	var out []string
	for _, kv := range environ {
		name, v, _ := strings.Cut(kv, "=")
		switch {
		case v != "" && IsSecretVar(name):
			out = append(out, v)
		case urlSecret(v) != "":
			out = append(out, urlSecret(v))
		}
	}
	return out
}

// hidden lists what masking changed: each masked token's value, the part
// after = for --flag=value.
func hidden(orig, masked []string) []string {
	var out []string
	for i, a := range orig {
		if masked[i] == a {
			continue
		}
		if pw := urlSecret(a); pw != "" && masked[i] == URLPassword(a) {
			out = append(out, pw)
			continue
		}
		if _, v, ok := strings.Cut(a, "="); ok && strings.HasPrefix(a, "-") {
			out = append(out, v)
		} else {
			out = append(out, a)
		}
	}
	return out
}
