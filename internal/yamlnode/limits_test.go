package yamlnode

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestBadInputLimits pins issue 12 defect 9 at the parser: a BOM gave
// "\ufeffname: unknown key"; [ x 50,000 (100 KB) took 3.85 GB; 40,000 env
// entries took 12 s (the YAML parser is quadratic in one block
// mapping's keys); a NUL or an ESC written as an escape passed into
// values. Each is now accepted (the BOM) or an input error at file:line:col,
// in bounded time.
func TestBadInputLimits(t *testing.T) {
	keys := func(n int) string {
		var b strings.Builder
		b.WriteString("env:\n")
		for i := range n {
			fmt.Fprintf(&b, "  V%d: x\n", i)
		}
		return b.String()
	}
	tests := []struct {
		name, data, want string
	}{
		{"brackets", strings.Repeat("[", 50000), "f.yaml:1:65: more than 64 nested [ ] or { }"},
		{"braces", "a: " + strings.Repeat("{b: ", 100), "f.yaml:1:" + fmt.Sprint(4+64*4) + ": more than 64 nested [ ] or { }"},
		{"keys", keys(40000), fmt.Sprintf("f.yaml:%d:3: more than 4096 keys in one file", 4096+1)},
		{"list in list", strings.Repeat("- ", 50000) + "x\n", "f.yaml:1:257: nested too deep: an entry at column 257, past 256"},
		{"indentation", "a:\n" + strings.Repeat(" ", 300) + "b: 1\n", "f.yaml:2:301: nested too deep"},
		{"tokens", "a: [" + strings.Repeat("1,", 70000) + "]\n", "more than 65536 YAML tokens"},
		{"raw NUL", "a: x\x00y\n", "f.yaml:1:5: control character U+0000"},
		{"raw ESC on line 2", "a: 1\nb: \x1b[31m\n", "f.yaml:2:4: control character U+001B"},
		{"not UTF-8", "a: \xff\n", "f.yaml:1:4: not UTF-8 text (byte 0xff)"},
		{"escaped NUL", "a: \"x\\0y\"\n", "f.yaml:1:4: a: the value holds control character U+0000"},
		{"escaped ESC", "a: \"\\e[2J\"\n", "f.yaml:1:4: a: the value holds control character U+001B"},
		{"escaped CR", "a: \"x\\ry\"\n", "a: the value holds control character U+000D"},
		{"a long key", strings.Repeat("k", 300) + ": 1\n", "f.yaml:1:1: a key of 300 bytes; keys are at most 256"},
		{"an escape in a key", "\"k\\e\": 1\n", `f.yaml:1:1: key "k\x1b" holds control character U+001B`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			err := readAll(tt.data)
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("took %v", d)
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want %q", err, tt.want)
			}
		})
	}
}

// readAll parses data and reads every mapping and scalar in it, as the
// formats' decoders do.
func readAll(data string) error {
	root, err := Document("f.yaml", []byte(data), "a test file", "empty")
	if err != nil {
		return err
	}
	d := &Decoder{File: "f.yaml", NullOK: true}
	entries, err := d.Mapping(root, "", nil)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if _, err := d.Scalar(e.Value, e.Key); err != nil && !strings.Contains(err.Error(), "want a single value") {
			return err
		}
	}
	return nil
}

func TestBOMAndCRLFAccepted(t *testing.T) {
	if err := readAll("\xef\xbb\xbfname: x\r\nb: |\r\n  line one\r\n  line two\r\n\tc\n"); err != nil && !strings.Contains(err.Error(), "yaml syntax") {
		t.Errorf("a BOM and CRLF line ends: %v", err)
	}
	if err := readAll("\xef\xbb\xbfname: x\n"); err != nil {
		t.Errorf("a BOM: %v", err)
	}
	if err := readAll("a: \"tab\\there\\nnewline\"\n"); err != nil {
		t.Errorf("tab and newline in a value: %v", err)
	}
}
