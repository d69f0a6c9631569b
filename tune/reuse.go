package tune

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/sglaunch/sglaunch/bench"
	"github.com/sglaunch/sglaunch/bench/workload"
)

// reuse marks the pending points whose plan already has a finished record
// of the objective's workload in the store: their rounds come from the
// newest such record, and the point is not run.
func (t *tuner) reuse() {
	entries, err := t.cfg.Store.List()
	if err != nil {
		t.logf("cannot read the records to reuse them (%v); every point runs", err)
		return
	}
	byFP := map[string][]bench.Entry{}
	for _, en := range entries {
		if en.Err == "" && en.Status == bench.StatusOK && en.Fingerprint != "" {
			byFP[en.Fingerprint] = append(byFP[en.Fingerprint], en)
		}
	}
	var used []string
	for _, pt := range t.rec.Points {
		if pt.Status != PointPending || !t.mine(pt) {
			continue
		}
		ens := byFP[pt.Fingerprint]
		for i := len(ens) - 1; i >= 0; i-- {
			rec, err := bench.Load(ens[i].Path)
			if err != nil || rec.PlanFingerprint() != pt.Fingerprint || !sameWorkload(rec, t.cfg.Workload) {
				continue
			}
			rounds := roundsOf(rec, t.cfg.Workload.Name)
			if len(rounds) == 0 {
				continue
			}
			pt.Status, pt.Rounds, pt.Records = PointReused, rounds, append(pt.Records, rec.ID)
			t.summarize(pt)
			used = append(used, fmt.Sprintf("point %d (%s) from record %s", pt.N, pt.Label(), rec.ID))
			break
		}
	}
	if len(used) > 0 {
		t.logf("reused %d finished record(s), not run again: %s", len(used), strings.Join(used, "; "))
	}
}

// sameWorkload reports whether the record ran w as defined, its rounds
// aside, to the end.
func sameWorkload(r *bench.Record, w workload.Workload) bool {
	for _, res := range r.Results {
		if res.Workload.Name != w.Name || res.Status != bench.StatusOK {
			continue
		}
		a, b := res.Workload, w
		a.Rounds, b.Rounds = 0, 0
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		return string(ja) == string(jb)
	}
	return false
}
