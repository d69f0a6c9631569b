package yamlnode

import (
	"bytes"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/goccy/go-yaml/token"
)

// Limits on what a file may hold, so that a hostile or broken file is an
// input error in bounded time and memory, never an exhausted machine: the
// YAML parser needs memory quadratic in the keys of one block mapping and
// stack linear in nesting. Real profiles and workload files hold a few
// hundred keys and nest a few levels.
const (
	// MaxFileSize bounds a profile or workload file (callers read with it).
	MaxFileSize = 1 << 20
	// MaxTokens bounds the YAML tokens of a file.
	MaxTokens = 65536
	// MaxKeys bounds the keys (key: value pairs) of a file.
	MaxKeys = 4096
	// MaxFlowDepth bounds the nesting of [ ] and { }.
	MaxFlowDepth = 64
	// MaxIndent bounds the column of a block entry (a key or a "- "), which
	// bounds the nesting of block mappings and lists.
	MaxIndent = 256
	// MaxKeyLen bounds a key's length in bytes.
	MaxKeyLen = 256
)

var bom = []byte("\xef\xbb\xbf")

// checkText refuses what a YAML stream may not hold (YAML 1.2 allows only
// printable characters): invalid UTF-8 and control characters other than
// tab, line feed and carriage return. They would otherwise reach a value
// and the terminal.
func checkText(file string, data []byte) error {
	line, col := 1, 1
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			return Errorf(Pos{file, line, col}, "", "not UTF-8 text (byte 0x%02x); a profile is UTF-8 YAML", data[i])
		case r == '\n':
			line, col = line+1, 0
		case r != '\t' && r != '\r' && isControl(r):
			return Errorf(Pos{file, line, col}, "", "control character %s; write it as an escape in a double-quoted string if it is meant (values may hold only tab and newline)", quoteRune(r))
		}
		i += n
		col++
	}
	return nil
}

// checkTokens applies the limits on tokens, keys and nesting before the
// parser sees the tokens.
func checkTokens(file string, tokens token.Tokens) error {
	depth, keys, lastLine := 0, 0, 0
	for i, tk := range tokens {
		if i == MaxTokens {
			return Errorf(TokenPos(file, tk), "", "more than %d YAML tokens in one file; split it (extends: builds one profile on another)", MaxTokens)
		}
		switch tk.Type {
		case token.SequenceStartType, token.MappingStartType:
			if depth++; depth > MaxFlowDepth {
				return Errorf(TokenPos(file, tk), "", "more than %d nested [ ] or { }", MaxFlowDepth)
			}
		case token.SequenceEndType, token.MappingEndType:
			depth = max(0, depth-1)
		case token.MappingValueType:
			if keys++; keys > MaxKeys {
				at := tk // the colon; the key before it, where there is one
				if i > 0 {
					at = tokens[i-1]
				}
				return Errorf(TokenPos(file, at), "", "more than %d keys in one file; split it (extends: builds one profile on another)", MaxKeys)
			}
		}
		if tk.Position == nil || depth > 0 || tk.Type == token.CommentType {
			continue
		}
		// The first token of a line, and every "- ", open a block entry.
		if (tk.Position.Line != lastLine || tk.Type == token.SequenceEntryType) && tk.Position.Column > MaxIndent {
			return Errorf(TokenPos(file, tk), "", "nested too deep: an entry at column %d, past %d", tk.Position.Column, MaxIndent)
		}
		lastLine = tk.Position.Line
	}
	return nil
}

// checkKey refuses a key that is too long or holds a control character.
func checkKey(pos Pos, path, key string) error {
	if len(key) > MaxKeyLen {
		return Errorf(pos, path, "a key of %d bytes; keys are at most %d", len(key), MaxKeyLen)
	}
	if i := controlIndex(key, false); i >= 0 {
		r, _ := utf8.DecodeRuneInString(key[i:])
		return Errorf(pos, path, "key %s holds control character %s", strconv.QuoteToASCII(key), quoteRune(r))
	}
	return nil
}

// checkValue refuses a scalar whose text holds a control character
// other than tab and newline (a CR only before a newline): written as an
// escape in a double-quoted string, a NUL fails at exec and an ESC
// reaches the terminal.
func checkValue(pos Pos, path, text string) error {
	if i := controlIndex(text, true); i >= 0 {
		r, _ := utf8.DecodeRuneInString(text[i:])
		return Errorf(pos, path, "the value holds control character %s; values may hold only tab and newline", quoteRune(r))
	}
	return nil
}

// ValueControl is the first control character a value may not hold (all
// but tab, newline and CR-LF), and whether there is one: for values that
// come from elsewhere than a file (--set).
func ValueControl(s string) (rune, bool) {
	i := controlIndex(s, true)
	if i < 0 {
		return 0, false
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return r, true
}

// QuoteRune names a character as U+001B.
func QuoteRune(r rune) string { return quoteRune(r) }

// controlIndex is the byte index of the first control character in s,
// -1 when none; with text set, tab, newline and CR-LF are allowed.
func controlIndex(s string, text bool) int {
	for i, r := range s {
		if !isControl(r) {
			continue
		}
		if text && (r == '\t' || r == '\n' || r == '\r' && i+1 < len(s) && s[i+1] == '\n') {
			continue
		}
		return i
	}
	return -1
}

// isControl: C0, DEL and C1 (terminals act on all of them).
func isControl(r rune) bool { return r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f }

func quoteRune(r rune) string { return fmt.Sprintf("U+%04X", r) }

// stripBOM drops a byte order mark, which YAML allows at the start.
func stripBOM(data []byte) []byte { return bytes.TrimPrefix(data, bom) }
