package pyvalue

import (
	"math"
	"regexp"
	"strconv"
	"strings"
)

// reUnit is a size with a binary unit: 16M, 4MiB, 1.5K.
var reUnit = regexp.MustCompile(`^(\d+(?:\.\d+)?)\s*([KkMmGgTt])(?:i?[Bb])?$`)

// Intended guesses the integer a person meant by text that int() or C's
// strtoll reads otherwise: 16M, 1e6, true, 010, eight. It returns the
// decimal text, or false when it cannot tell.
func Intended(raw string) (string, bool) {
	s := strings.TrimSpace(raw)
	if _, err := strconv.ParseInt(s, 10, 64); err == nil {
		return strings.TrimLeft(s, "0+"), true
	}
	if m := reUnit.FindStringSubmatch(s); m != nil {
		f, _ := strconv.ParseFloat(m[1], 64)
		shift := map[string]float64{"k": 10, "m": 20, "g": 30, "t": 40}[strings.ToLower(m[2])]
		if n := f * math.Pow(2, shift); n == math.Trunc(n) && n < math.MaxInt64 {
			return strconv.FormatInt(int64(n), 10), true
		}
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && f == math.Trunc(f) && math.Abs(f) < math.MaxInt64 {
		return strconv.FormatInt(int64(f), 10), true
	}
	if w, ok := boolWords[strings.ToLower(s)]; ok {
		return w, true
	}
	if w, ok := numberWords[strings.ToLower(s)]; ok {
		return w, true
	}
	return "", false
}

// BoolWord is 1 or 0 for a word people write for a switch (yes, off,
// enabled).
func BoolWord(s string) (string, bool) {
	w, ok := boolWords[strings.ToLower(strings.TrimSpace(s))]
	return w, ok
}

// numberWords are the spelled-out numbers a profile might hold where an
// integer belongs (tp: eight).
var numberWords = map[string]string{
	"zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5",
	"six": "6", "seven": "7", "eight": "8", "nine": "9", "ten": "10", "eleven": "11",
	"twelve": "12", "thirteen": "13", "fourteen": "14", "fifteen": "15", "sixteen": "16",
	"thirty-two": "32", "sixty-four": "64",
}

// boolWords maps the words people write for a switch to 1 or 0.
var boolWords = map[string]string{
	"true": "1", "yes": "1", "on": "1", "y": "1", "t": "1", "enable": "1", "enabled": "1",
	"false": "0", "no": "0", "off": "0", "n": "0", "f": "0", "disable": "0", "disabled": "0",
}
