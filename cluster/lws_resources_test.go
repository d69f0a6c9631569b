package cluster

import (
	"encoding/json"
	"testing"

	"github.com/sglaunch/sglaunch/internal/inputerr"
)

// TestLWSPodIsNotBestEffort: the manifest's pods had no cpu or memory
// requests (BestEffort, the first evicted under memory pressure), an
// unbounded /dev/shm and no preStop. Now each pod requests cpu and
// memory (defaults per GPU, or the options), bounds /dev/shm, and waits
// in preStop for the Service to stop sending before the drain, inside
// a grace period that covers it.
func TestLWSPodIsNotBestEffort(t *testing.T) {
	tests := []struct {
		name          string
		opts          LWSOptions
		cpu, mem, shm string
	}{
		{"defaults for 8 GPUs", LWSOptions{Image: "img"}, "32", "256Gi", "32Gi"},
		{"given", LWSOptions{Image: "img", CPU: "48", Memory: "1500Gi", ShmSize: "64Gi"}, "48", "1500Gi", "64Gi"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ds := docs(t, lwsFor(t, lwsProfile, tt.opts))
			spec := get(t, ds[1], "spec", "leaderWorkerTemplate", "workerTemplate", "spec")
			c := get(t, spec, "containers", 0)
			if got := get(t, c, "resources", "requests", "cpu"); got != tt.cpu {
				t.Errorf("cpu request %v, want %s", got, tt.cpu)
			}
			if got := get(t, c, "resources", "requests", "memory"); got != tt.mem {
				t.Errorf("memory request %v, want %s", got, tt.mem)
			}
			if got := get(t, spec, "volumes", 0, "emptyDir", "sizeLimit"); got != tt.shm {
				t.Errorf("/dev/shm sizeLimit %v, want %s", got, tt.shm)
			}
			pre, _ := json.Marshal(get(t, c, "lifecycle", "preStop"))
			if want := `{"exec":{"command":["sleep","5"]}}`; string(pre) != want {
				t.Errorf("preStop %s, want %s", pre, want)
			}
			// 5 s preStop + stop_timeout 60 s + 30 s slack.
			if got := get(t, spec, "terminationGracePeriodSeconds"); got != uint64(95) {
				t.Errorf("terminationGracePeriodSeconds %v, want 95", got)
			}
		})
	}
	for _, bad := range []LWSOptions{{Image: "img", CPU: "lots"}, {Image: "img", Memory: "1.5 TB"}, {Image: "img", ShmSize: "-1Gi"}} {
		p, prof := jobProfile(t, "big", "/p/big.yaml", lwsProfile)
		bad.Profile = prof
		_, err := LWSManifest(p, bad)
		if !inputerr.Is(err) {
			t.Errorf("%+v: got %v, want an input error", bad, err)
		}
	}
}
