package health

import (
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/catalog/sglangtab"
)

// TestMarkersFromTables: every start-up marker the tracker matches comes
// from a log_formats row of the generated SGLang tables, which cites the
// SGLang file and line; only the embedded HTTP servers' lines, which are
// not SGLang's, are listed by hand.
func TestMarkersFromTables(t *testing.T) {
	sets, err := sglangtab.All()
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string][]sglangtab.LogFormat{}
	for _, s := range sets {
		for _, f := range s.LogFormats {
			rows[f.Marker] = append(rows[f.Marker], f)
		}
	}
	cite := regexp.MustCompile(`^python/sglang/[^:]+\.py:[1-9][0-9]*$`)
	for _, g := range markerGroups() {
		for _, m := range g.markers {
			if slices.ContainsFunc(serverMarkers, func(s marker) bool { return string(s.text) == string(m.text) }) {
				continue
			}
			rs := rows[string(m.text)]
			if len(rs) == 0 {
				t.Errorf("marker %q: in no table row", m.text)
				continue
			}
			for _, r := range rs {
				if !cite.MatchString(r.Source) || r.Phase != m.name || r.Last != m.last {
					t.Errorf("marker %q: row %+v, want a cited row of phase %q last %v", m.text, r, m.name, m.last)
				}
			}
		}
	}
	for _, want := range []string{string(captureAnchor), ReadyLine} {
		if len(rows[want]) == 0 {
			t.Errorf("%q: in no table row", want)
		}
	}
}

// TestTableLogLinesTracked: each start-up line of every table set, with
// its holes filled, is read as the phase its row names.
func TestTableLogLinesTracked(t *testing.T) {
	sets, err := sglangtab.All()
	if err != nil {
		t.Fatal(err)
	}
	holes := regexp.MustCompile(`\{[^{}]*\}|%[-0-9.]*[sdf]`)
	for _, s := range sets {
		for _, f := range s.LogFormats {
			line := holes.ReplaceAllString(f.Format, "7")
			tr := NewTracker(time.Now())
			tr.Observe([]byte("[2026-08-22 10:00:00 TP0] " + line + "\n"))
			got := tr.Phases()
			if len(got) != 1 || got[0].Name != f.Phase {
				t.Errorf("SGLang %s %s: %q read as %v, want phase %q", s.Meta.Version, f.Source, line, got, f.Phase)
			}
		}
	}
}

// TestGroupsFromTablesRejects: a row naming a phase the tracker does not
// have, or a marker two rows give different phases, is a table defect.
func TestGroupsFromTablesRejects(t *testing.T) {
	for name, rows := range map[string][]sglangtab.LogFormat{
		"unknown phase": {{Marker: "Load weight begin", Phase: "loading", Source: "python/sglang/a.py:1"}},
		"two phases": {
			{Marker: "Load weight end", Phase: PhaseWeightsLoaded, Last: true, Source: "python/sglang/a.py:1"},
			{Marker: "Load weight end", Phase: PhaseLoadingWeights, Source: "python/sglang/a.py:2"},
		},
		"none": nil,
	} {
		if _, err := groupsFromTables([]*sglangtab.Tables{{LogFormats: rows}}); err == nil {
			t.Errorf("%s: got no error", name)
		}
	}
}
