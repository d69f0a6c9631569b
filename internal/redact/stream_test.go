package redact

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestMaskerAnySplit cuts a text holding secrets at every pair of points
// and checks that the masked stream is the masked whole.
func TestMaskerAnySplit(t *testing.T) {
	secrets := []string{"sk-123456", "hf_abc", "ab"}
	text := "key sk-123456 and hf_abc, ab, a lone a, sk-12 then hf_abchf_abc end hf_"
	whole := NewMasker(secrets).String(text)
	if strings.Contains(whole, "sk-123456") || strings.Contains(whole, "hf_abc") {
		t.Fatalf("whole text not masked: %q", whole)
	}
	for i := 0; i <= len(text); i++ {
		for j := i; j <= len(text); j++ {
			m := NewMasker(secrets)
			var b bytes.Buffer
			for _, part := range []string{text[:i], text[i:j], text[j:]} {
				b.Write(m.Block([]byte(part)))
			}
			b.Write(m.Flush())
			if b.String() != whole {
				t.Fatalf("split at %d,%d: got %q, want %q", i, j, b.String(), whole)
			}
		}
	}
}

func TestMaskerNoCopyWhenClean(t *testing.T) {
	m := NewMasker([]string{"secret-value"})
	in := []byte("an ordinary log line\n")
	if out := m.Block(in); &out[0] != &in[0] || len(out) != len(in) {
		t.Error("a block with nothing to mask was copied")
	}
	var nilMasker *Masker
	if out := nilMasker.Block(in); len(out) != len(in) {
		t.Error("a nil masker changed the block")
	}
}

func TestWriterRandomWrites(t *testing.T) {
	secrets := []string{"OPENAI-KEY-0123456789"}
	var src strings.Builder
	for i := range 200 {
		src.WriteString("line ")
		if i%7 == 0 {
			src.WriteString(secrets[0])
		}
		src.WriteString("\n")
	}
	text := src.String()
	r := rand.New(rand.NewPCG(1, 2))
	var out bytes.Buffer
	w := &Writer{W: &out, M: NewMasker(secrets)}
	for rest := text; rest != ""; {
		n := min(len(rest), 1+r.IntN(30))
		w.Write([]byte(rest[:n]))
		rest = rest[n:]
	}
	w.Close()
	if want := strings.ReplaceAll(text, secrets[0], Mask); out.String() != want {
		t.Errorf("got %d bytes, want %d; a secret leaked: %v", out.Len(), len(want), strings.Contains(out.String(), "0123456789"))
	}
}
