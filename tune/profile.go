package tune

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// plainYAML is a value that YAML reads back as the same text unquoted.
var plainYAML = regexp.MustCompile(`^[A-Za-z0-9_./+-][A-Za-z0-9_.:/+-]*$`)

// ProfileYAML is the winner's profile: it extends the base and sets only
// sets (env.NAME=V and args.flag=V), with a comment naming the tune
// record it came from.
func ProfileYAML(rec *Record, winner *Point, sets []string) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# Written by sglaunch tune: record %s (%s).\n", rec.ID, rec.Path())
	if v := rec.Verdict; v != nil {
		fmt.Fprintf(&b, "# %s\n", v.Text)
	}
	fmt.Fprintf(&b, "# Objective: %s %s of workload %s.\n", rec.Space.Objective.DirectionText(), rec.Space.Objective.Metric, rec.Space.Objective.Workload)
	fmt.Fprintf(&b, "name: %s\n", quote(rec.BaseName+"-tuned"))
	fmt.Fprintf(&b, "extends: %s\n", quote(rec.Base))
	for _, section := range []string{"env", "args"} {
		var lines []string
		for _, s := range sets {
			key, val, _ := strings.Cut(s, "=")
			sec, name, _ := strings.Cut(key, ".")
			if sec == section {
				lines = append(lines, fmt.Sprintf("  %s: %s\n", name, quote(val)))
			}
		}
		if len(lines) > 0 {
			b.WriteString(section + ":\n")
			b.WriteString(strings.Join(lines, ""))
		}
	}
	return []byte(b.String())
}

// quote writes v plain when YAML reads it back as the same text, else
// double-quoted.
func quote(v string) string {
	switch strings.ToLower(v) {
	case "null", "~", "yes", "no", "on", "off", "y", "n":
		return strconv.Quote(v)
	}
	if plainYAML.MatchString(v) {
		return v
	}
	return strconv.Quote(v)
}
