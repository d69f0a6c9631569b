package tune

import (
	"errors"
	"strings"
	"testing"

	"github.com/sglaunch/sglaunch/bench/workload"
	"github.com/sglaunch/sglaunch/internal/inputerr"
	"github.com/sglaunch/sglaunch/plan"
)

// TestCheck pins what a tune refuses before any launch: a base, or a
// value of the space, whose plan spans nodes (saying what to do
// instead), and a value of the space its plan cannot take (named by
// file, key and value).
func TestCheck(t *testing.T) {
	rec := &Record{Space: Space{File: "s.yaml", Objective: Objective{Workload: "w"},
		Params: []Param{{Key: "args.mem-fraction-static", Values: []string{"0.8", "1.5"}}}}}
	profile := []workload.Workload{{Name: "w", InputLen: 8, OutputLen: 8}}
	tests := []struct {
		name  string
		nodes int
		bad   string // the set the resolver refuses
		want  string
	}{
		{"fits", 1, "", ""},
		{"spans nodes", 2, "", "profile base spans 2 nodes (multinode.nodes), and tune starts each point's server on one host, with --slurm too"},
		{"a value spans nodes", 1, "spans:args.mem-fraction-static=0.8", "s.yaml: parameters.args.mem-fraction-static: 0.8: profile base spans 2 nodes"},
		{"bad value", 1, "args.mem-fraction-static=1.5", "s.yaml: parameters.args.mem-fraction-static: 1.5: out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resolve := func(sets []string) (*plan.Plan, error) {
				if len(sets) == 1 && sets[0] == tt.bad {
					return nil, errors.New("out of range")
				}
				p := &plan.Plan{Profile: "base"}
				p.MultiNode.Nodes = tt.nodes
				if len(sets) == 1 && "spans:"+sets[0] == tt.bad {
					p.MultiNode.Nodes = 2
				}
				return p, nil
			}
			w, base, err := Check(rec, profile, resolve)
			if tt.want == "" {
				if err != nil || w.Name != "w" || base == nil {
					t.Fatalf("Check: %v, %q, %v", err, w.Name, base)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) || !inputerr.Is(err) {
				t.Fatalf("err %v, want an input error with %q", err, tt.want)
			}
		})
	}
}

func TestStoreDir(t *testing.T) {
	r := NewRecord("/t/1", timeNow())
	if got := r.StoreDir("/records"); got != "/records" {
		t.Errorf("own tune: %s", got)
	}
	r.Shared = true
	if got := r.StoreDir("/records"); got != r.RecordsDir() {
		t.Errorf("shared tune: %s, want %s", got, r.RecordsDir())
	}
}
