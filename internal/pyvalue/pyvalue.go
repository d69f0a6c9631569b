package pyvalue

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
)

// Types TypeError knows, as the catalog names them; HumanInt is an int
// SGLang parses with human_readable_int.
const (
	TypeInt      = "int"
	TypeHumanInt = "human-int"
	TypeFloat    = "float"
	TypeJSON     = "json"
)

// TypeError says why Python's int(), float() or json.loads() (or
// SGLang's human_readable_int) would reject v, or "" when it accepts v or
// typ is none of those.
func TypeError(typ, v string) string {
	s := strings.TrimSpace(v)
	switch typ {
	case TypeInt:
		if Int(s) {
			return ""
		}
		return strconv.Quote(v) + " is not an integer"
	case TypeHumanInt:
		if Int(s) || reHumanInt.MatchString(s) {
			return ""
		}
		return strconv.Quote(v) + " is not an integer (128k and 4K forms are accepted too)"
	case TypeFloat:
		if Float(s) {
			return ""
		}
		return strconv.Quote(v) + " is not a number"
	case TypeJSON:
		if json.Valid([]byte(s)) {
			return ""
		}
		return strconv.Quote(v) + " is not valid JSON"
	}
	return ""
}

// reHumanInt is what SGLang's human_readable_int takes besides a plain
// integer: k/m/g/t for powers of 1000, K/M/G/T for powers of 1024.
var reHumanInt = regexp.MustCompile(`^\d+(?:\.\d+)?[kKmMgGtT]$`)

// Int reports whether Python's int(s) accepts s: an optional sign,
// decimal digits, single underscores between digits.
func Int(s string) bool {
	s = strings.TrimLeft(s, "+-")
	if s == "" || s[0] == '_' || s[len(s)-1] == '_' || strings.Contains(s, "__") {
		return false
	}
	for _, r := range s {
		if (r < '0' || r > '9') && r != '_' {
			return false
		}
	}
	return true
}

// Float reports whether Python's float(s) accepts s.
func Float(s string) bool {
	switch strings.ToLower(strings.TrimLeft(s, "+-")) {
	case "inf", "infinity", "nan":
		return true
	}
	if strings.Contains(s, "__") || strings.HasPrefix(s, "_") || strings.HasSuffix(s, "_") || strings.Contains(strings.ToLower(s), "0x") {
		return false
	}
	_, err := strconv.ParseFloat(strings.ReplaceAll(s, "_", ""), 64)
	return err == nil
}
