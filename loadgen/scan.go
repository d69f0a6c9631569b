package loadgen

import (
	"bytes"
	"errors"
	"fmt"
)

// A small JSON member scanner. Native /generate chunks repeat the whole
// text generated so far, so a 512-token stream carries kilobytes per
// chunk; walking the members without decoding the text keeps the client
// cheap at hundreds of streams. It trusts the server for well-formedness
// and checks only what it needs to find members.

var errBadJSON = errors.New("malformed JSON")

// eachMember calls fn with the raw key (without quotes) and raw value of
// every member of the JSON object in data, until fn returns false.
func eachMember(data []byte, fn func(key, value []byte) bool) error {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return errBadJSON
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return nil
	}
	for {
		if i >= len(data) || data[i] != '"' {
			return errBadJSON
		}
		end, err := skipString(data, i)
		if err != nil {
			return err
		}
		key := data[i+1 : end-1]
		i = skipSpace(data, end)
		if i >= len(data) || data[i] != ':' {
			return errBadJSON
		}
		i = skipSpace(data, i+1)
		vend, err := skipValue(data, i)
		if err != nil {
			return err
		}
		if !fn(key, data[i:vend]) {
			return nil
		}
		i = skipSpace(data, vend)
		if i >= len(data) {
			return errBadJSON
		}
		switch data[i] {
		case ',':
			i = skipSpace(data, i+1)
		case '}':
			return nil
		default:
			return errBadJSON
		}
	}
}

func skipSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\r', '\n':
			i++
		default:
			return i
		}
	}
	return i
}

// skipString returns the index just past the string starting at data[i].
func skipString(data []byte, i int) (int, error) {
	j := i + 1
	for {
		k := bytes.IndexByte(data[j:], '"')
		if k < 0 {
			return 0, errBadJSON
		}
		q := j + k
		// The quote ends the string unless an odd run of backslashes
		// escapes it.
		n := 0
		for b := q - 1; b > i && data[b] == '\\'; b-- {
			n++
		}
		if n%2 == 0 {
			return q + 1, nil
		}
		j = q + 1
	}
}

// skipValue returns the index just past the value starting at data[i].
func skipValue(data []byte, i int) (int, error) {
	if i >= len(data) {
		return 0, errBadJSON
	}
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(data); j++ {
			switch data[j] {
			case '"':
				end, err := skipString(data, j)
				if err != nil {
					return 0, err
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, nil
				}
			}
		}
		return 0, errBadJSON
	}
	j := i
	for j < len(data) {
		switch data[j] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			if j == i {
				return 0, errBadJSON
			}
			return j, nil
		}
		j++
	}
	if j == i {
		return 0, errBadJSON
	}
	return j, nil
}

// scanInt parses a raw JSON number that holds a count; null is -1. A
// negative count, or one of more than 18 digits, is a protocol error:
// no stream has that many tokens.
func scanInt(raw []byte) (int, error) {
	if string(raw) == "null" {
		return -1, nil
	}
	if len(raw) > 1 && raw[0] == '-' {
		return 0, fmt.Errorf("%w: negative token count %.40s", errProtocol, raw)
	}
	if len(raw) > 18 {
		return 0, fmt.Errorf("%w: token count %.40s out of range", errProtocol, raw)
	}
	if len(raw) == 0 {
		return 0, errBadJSON
	}
	n := 0
	for _, c := range raw {
		if c < '0' || c > '9' {
			return 0, errBadJSON
		}
		n = n*10 + int(c-'0')
	}
	return n, nil
}
