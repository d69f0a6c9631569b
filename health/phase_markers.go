package health

import (
	"fmt"
	"sort"
	"sync"

	"github.com/sglaunch/sglaunch/catalog/sglangtab"
)

// markerGroup is a marker text searched for first (its anchor), with the
// markers that share it. During a log flood a block of output is mostly
// decode lines: one fast pass per anchor keeps the tracker far cheaper
// than the copy through the pipe.
type markerGroup struct {
	anchor  []byte
	markers []marker
}

// serverMarkers are the lines that say the port is bound. They come from
// the HTTP servers SGLang embeds, not from SGLang's own source, so the
// generated tables do not hold them: uvicorn's "Uvicorn running on" and,
// under --enable-http2, the embedded Granian server's "Listening at:
// http://..." (granian/server/embed.py).
var serverMarkers = []marker{
	{[]byte("Uvicorn running on"), PhasePortBound, false},
	{[]byte("Listening at: http"), PhasePortBound, false},
}

// markerGroups are the start-up markers of every embedded SGLang table
// set (their log_formats rows, each citing SGLang's file and line: "Load
// weight begin", "KV Cache is allocated", the ready line...), one group
// per marker, then serverMarkers. The "Capture " lines, which begin or end
// the captures by their verb, are read by captureMarkers instead. They
// are built on first use, not at start-up: decoding the tables costs tens
// of milliseconds of CPU that a command which tracks no server (bench
// --url, verify, diff) must not pay.
var markerGroups = sync.OnceValue(mustMarkerGroups)

func mustMarkerGroups() []markerGroup {
	sets, err := sglangtab.All()
	if err == nil {
		var g []markerGroup
		if g, err = groupsFromTables(sets); err == nil {
			return g
		}
	}
	// The tables are part of the binary; a failure is a build defect the
	// package tests catch, never input.
	panic(fmt.Sprintf("health: start-up markers from the SGLang tables: %v", err))
}

// groupsFromTables collects the distinct markers of the tables' log
// formats, with the phase each row names.
func groupsFromTables(sets []*sglangtab.Tables) ([]markerGroup, error) {
	byText := map[string]marker{}
	for _, t := range sets {
		for _, f := range t.LogFormats {
			if string(captureAnchor) == f.Marker {
				continue
			}
			if !knownPhase(f.Phase) {
				return nil, fmt.Errorf("SGLang %s %s: phase %q is none of the tracker's", t.Meta.Version, f.Source, f.Phase)
			}
			m := marker{[]byte(f.Marker), f.Phase, f.Last}
			if old, ok := byText[f.Marker]; ok && (old.name != m.name || old.last != m.last) {
				return nil, fmt.Errorf("SGLang %s %s: marker %q is %q (last %v) here, %q (last %v) elsewhere", t.Meta.Version, f.Source, f.Marker, m.name, m.last, old.name, old.last)
			}
			byText[f.Marker] = m
		}
	}
	if len(byText) == 0 {
		return nil, fmt.Errorf("no start-up log formats")
	}
	var texts []string
	for k := range byText {
		texts = append(texts, k)
	}
	sort.Strings(texts)
	var out []markerGroup
	for _, k := range texts {
		out = append(out, markerGroup{[]byte(k), []marker{byText[k]}})
	}
	for _, m := range serverMarkers {
		out = append(out, markerGroup{m.text, []marker{m}})
	}
	return out, nil
}

func knownPhase(name string) bool {
	switch name {
	case PhaseLoadingWeights, PhaseWeightsLoaded, PhaseKVCache, PhaseCapturingGraphs, PhaseGraphsCaptured, PhasePortBound, PhaseWarmupDone:
		return true
	}
	return false
}
