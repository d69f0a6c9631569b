package cluster

import (
	"strconv"
	"testing"

	"github.com/sglaunch/sglaunch/internal/version"
	"github.com/sglaunch/sglaunch/plan"
	"github.com/sglaunch/sglaunch/profiles"
)

// jobProfile parses a profile as if read from source and resolves its
// serve plan; the version is pinned so that golden files do not follow
// the build.
func jobProfile(t *testing.T, name, source, text string, sets ...string) (*plan.Plan, *profiles.Profile) {
	t.Helper()
	old := version.Version
	version.Version = "0.0.0-test"
	t.Cleanup(func() { version.Version = old })
	prof, err := profiles.Parse(source, []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if prof.Name == "" {
		prof.Name = name
	}
	return resolveJob(t, prof, sets...), prof
}

func resolveJob(t *testing.T, prof *profiles.Profile, sets ...string) *plan.Plan {
	t.Helper()
	p, err := plan.Resolve(plan.Request{Profile: prof, Mode: plan.ModeServe, Sets: sets,
		LookPath: func(string) (string, error) { return "/usr/bin/python3", nil }})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestGPUsPerNode(t *testing.T) {
	tests := []struct {
		name     string
		args     string
		nodes    int
		override int
		want     int
		wantErr  bool
	}{
		{"tp over nodes", "{tp: 16}", 2, 0, 8, false},
		{"tp times pp", "{tp-size: 8, pp-size: 2}", 4, 0, 4, false},
		{"pipeline-parallel-size alias", "{tp: 8, pipeline-parallel-size: 2}", 2, 0, 8, false},
		{"unknown without tp", "{model-path: /m}", 2, 0, 0, false},
		{"override wins", "{tp: 16}", 2, 4, 4, false},
		{"uneven split", "{tp: 8}", 3, 0, 0, true},
		{"uneven split with override", "{tp: 8}", 3, 2, 2, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, _ := jobProfile(t, "g", "/p/g.yaml", "args: "+tt.args+"\nmultinode: {nodes: "+strconv.Itoa(tt.nodes)+"}\n")
			got, err := gpusPerNode(p, tt.override)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("got %d, %v; want %d, error %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}
