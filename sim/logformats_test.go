package sim

import (
	"regexp"
	"strings"
	"testing"

	"github.com/sglaunch/sglaunch/catalog/sglangtab"
)

// TestStartupLinesMatchTheTables: every start-up line the sim prints that
// carries one of the markers sglaunch reads phases by is a line SGLang's
// source writes at the sim's version (the generated log_formats table:
// each row's format with its holes as wildcards), so the sim's hand-written
// log lines cannot drift from the table the phases are read by. The
// speculative run prints the draft captures too.
func TestStartupLinesMatchTheTables(t *testing.T) {
	tabs, err := sglangtab.For(Version)
	if err != nil {
		t.Fatal(err)
	}
	holes := regexp.MustCompile(`\{[^{}]*(\{[^{}]*\}[^{}]*)*\}|%[-0-9.]*[sdf]`)
	byMarker := map[string][]*regexp.Regexp{}
	for _, f := range tabs.LogFormats {
		parts := holes.Split(f.Format, -1)
		for i := range parts {
			parts[i] = regexp.QuoteMeta(parts[i])
		}
		byMarker[f.Marker] = append(byMarker[f.Marker], regexp.MustCompile("^"+strings.Join(parts, ".*?")+"$"))
	}
	stamp := regexp.MustCompile(`^\[[0-9-]+ [0-9:]+(?: [A-Z]+[0-9]+)*\] `)
	for _, run := range []struct {
		name string
		args []string
	}{
		{"tp 2", []string{"--tp", "2"}},
		{"speculative", []string{"--speculative-algorithm", "EAGLE3", "--speculative-draft-model-path", "sim/draft"}},
	} {
		t.Run(run.name, func(t *testing.T) {
			t.Parallel()
			p := startSim(t, nil, run.args...)
			p.waitReady()
			checked := map[string]bool{}
			for _, line := range strings.Split(p.stderr.String(), "\n") {
				msg := stamp.ReplaceAllString(line, "")
				for marker, formats := range byMarker {
					if !strings.HasPrefix(msg, marker) {
						continue
					}
					ok := false
					for _, re := range formats {
						ok = ok || re.MatchString(msg)
					}
					if !ok {
						t.Errorf("the sim's line %q carries %q but matches no format of SGLang %s's log_formats table", msg, marker, tabs.Meta.Version)
					}
					checked[marker] = true
				}
			}
			for _, m := range []string{"Load weight begin", "Load weight end", "KV Cache is allocated", "Capture ", "The server is fired up and ready to roll!"} {
				if !checked[m] {
					t.Errorf("the sim printed no line with %q", m)
				}
			}
		})
	}
}
