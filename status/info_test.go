package status

import (
	"strings"
	"testing"

	"github.com/sglaunch/sglaunch/plan"
)

// TestNewInfoCountsServesOnly: each serve is one more launch of its
// profile and records its end; a bench reads the count and leaves it.
func TestNewInfoCountsServesOnly(t *testing.T) {
	dir := t.TempDir()
	p := &plan.Plan{Profile: "demo", Mode: plan.ModeServe, Python: "python3", Fingerprint: strings.Repeat("a", 64),
		Argv: []string{"python3", "-m", "sglang.launch_server", "--port", "30000"}}
	steps := []struct {
		mode        string
		wantCount   int
		wantRecords bool
	}{
		{plan.ModeServe, 1, true},
		{plan.ModeBench, 1, false},
		{plan.ModeServe, 2, true},
	}
	for i, st := range steps {
		p.Mode = st.mode
		info, err := NewInfo(p, dir, Known{SGLangVersion: "0.5.9"})
		if err != nil {
			t.Fatalf("step %d (%s): %v", i, st.mode, err)
		}
		if info.Launches.Count != st.wantCount {
			t.Errorf("step %d (%s): %d launches, want %d", i, st.mode, info.Launches.Count, st.wantCount)
		}
		if (info.LaunchesDir != "") != st.wantRecords {
			t.Errorf("step %d (%s): LaunchesDir %q", i, st.mode, info.LaunchesDir)
		}
		if info.Profile != "demo" || info.Mode != st.mode || info.SGLangVersion != "0.5.9" || info.URL != "http://127.0.0.1:30000" || info.SglaunchPID == 0 {
			t.Errorf("step %d: info %+v", i, info)
		}
	}
}
