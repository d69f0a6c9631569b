package cluster

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/sglaunch/sglaunch/internal/inputerr"
	"github.com/sglaunch/sglaunch/plan"
	"github.com/sglaunch/sglaunch/profiles"
)

// testPlan resolves a profile written as YAML, with --set overrides.
func testPlan(t *testing.T, yaml string, sets ...string) *plan.Plan {
	t.Helper()
	prof, err := profiles.Parse("t.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	prof.Name = "t"
	p, err := plan.Resolve(plan.Request{Profile: prof, Mode: plan.ModeServe, Sets: sets,
		LookPath: func(string) (string, error) { return "/usr/bin/python3", nil }})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

const twoNodes = "args: {model-path: /m, tp: 16}\nmultinode: {nodes: 2}\n"

func envOf(kv map[string]string) Env {
	return Env{Getenv: func(k string) string { return kv[k] }, Hostname: func() (string, error) { return "host-a", nil }}
}

func TestDetect(t *testing.T) {
	tests := []struct {
		name   string
		yaml   string
		sets   []string
		env    map[string]string
		want   Placement
		leader string
	}{
		{
			name: "slurm step",
			yaml: twoNodes,
			env: map[string]string{"SLURM_JOB_ID": "42", "SLURM_STEP_ID": "0", "SLURM_NODEID": "1", "SLURM_STEP_NUM_NODES": "2",
				"SLURM_STEP_NUM_TASKS": "2", "SLURM_STEP_NODELIST": "gpu[01-02]", "SLURMD_NODENAME": "gpu02",
				// The job's variables are there too, and say something else.
				"SLURM_NNODES": "3", "SLURM_JOB_NODELIST": "gpu[01-03]"},
			want: Placement{Orchestrator: "slurm", Nodes: 2, Rank: 1, Node: "gpu02", Leader: "gpu01", Group: "slurm:42.0"},
		},
		{
			name: "lws worker",
			yaml: twoNodes,
			env:  map[string]string{"LWS_LEADER_ADDRESS": "sgl-0.sgl.default", "LWS_GROUP_SIZE": "2", "LWS_WORKER_INDEX": "1"},
			want: Placement{Orchestrator: "lws", Nodes: 2, Rank: 1, Node: "host-a", Leader: "sgl-0.sgl.default", Group: "lws:sgl-0.sgl.default"},
		},
		{
			name: "skypilot head",
			yaml: twoNodes,
			env:  map[string]string{"SKYPILOT_NODE_RANK": "0", "SKYPILOT_NUM_NODES": "2", "SKYPILOT_NODE_IPS": "10.0.0.1\n10.0.0.2\n", "SKYPILOT_TASK_ID": "t-1"},
			want: Placement{Orchestrator: "skypilot", Nodes: 2, Rank: 0, Node: "10.0.0.1", Leader: "10.0.0.1", Group: "skypilot:t-1"},
		},
		{
			name: "static by hand",
			yaml: twoNodes,
			sets: []string{"args.node-rank=1", "args.dist-init-addr=10.0.0.1:20000"},
			// A Slurm job around it does not matter: the flags say static.
			env:  map[string]string{"SLURM_JOB_ID": "42"},
			want: Placement{Orchestrator: "static", Nodes: 2, Rank: 1, Node: "host-a", Leader: "10.0.0.1", Group: "static:10.0.0.1:20000"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := testPlan(t, tt.yaml, tt.sets...)
			got, err := Detect(p, envOf(tt.env))
			if err != nil {
				t.Fatal(err)
			}
			got.From = nil
			if !reflect.DeepEqual(*got, tt.want) {
				t.Errorf("got %+v, want %+v", *got, tt.want)
			}
		})
	}
}

// TestSlurmBatchContextRefused: in the batch script outside srun every
// host reads SLURM_NODEID=0 (sglang#36116); sglaunch must refuse, not
// start a rank 0 on every host.
func TestSlurmBatchContextRefused(t *testing.T) {
	p := testPlan(t, twoNodes)
	env := map[string]string{"SLURM_JOB_ID": "42", "SLURM_NODEID": "0", "SLURM_NNODES": "2", "SLURM_JOB_NODELIST": "gpu[01-02]"}
	_, err := Detect(p, envOf(env))
	if !errors.Is(err, ErrBatchContext) || !inputerr.Is(err) {
		t.Fatalf("got %v, want ErrBatchContext as an input error", err)
	}
	if !strings.Contains(err.Error(), "srun --nodes=") {
		t.Errorf("the error does not say what to do: %v", err)
	}
}

func TestDetectErrors(t *testing.T) {
	step := func(extra ...string) map[string]string {
		m := map[string]string{"SLURM_JOB_ID": "42", "SLURM_STEP_ID": "0", "SLURM_NODEID": "0", "SLURM_STEP_NUM_NODES": "2", "SLURM_STEP_NODELIST": "gpu[01-02]"}
		for i := 0; i+1 < len(extra); i += 2 {
			m[extra[i]] = extra[i+1]
		}
		return m
	}
	tests := []struct {
		name string
		yaml string
		sets []string
		env  map[string]string
		want string
	}{
		{"no orchestrator", twoNodes, nil, nil, "no orchestrator was found"},
		{"size differs", "args: {model-path: /m}\nmultinode: {nodes: 3}\n", nil, step(), "multinode.nodes is 3, but SLURM_STEP_NUM_NODES (slurm) says the group has 2"},
		{"two tasks per node", twoNodes, nil, step("SLURM_STEP_NUM_TASKS", "4"), "--ntasks-per-node=1"},
		{"nodename disagrees", twoNodes, nil, step("SLURMD_NODENAME", "gpu07"), "SLURMD_NODENAME=gpu07"},
		{"bad hostlist", twoNodes, nil, step("SLURM_STEP_NODELIST", "gpu[01-"), "SLURM_STEP_NODELIST"},
		{"lws index not a number", twoNodes, nil, map[string]string{"LWS_LEADER_ADDRESS": "x", "LWS_GROUP_SIZE": "2", "LWS_WORKER_INDEX": "one"}, `LWS_WORKER_INDEX="one"`},
		{"lws rank outside", twoNodes, nil, map[string]string{"LWS_LEADER_ADDRESS": "x", "LWS_GROUP_SIZE": "2", "LWS_WORKER_INDEX": "2"}, "rank 2 is outside 0..1"},
		{"skypilot ips short", twoNodes, nil, map[string]string{"SKYPILOT_NODE_RANK": "0", "SKYPILOT_NUM_NODES": "2", "SKYPILOT_NODE_IPS": "10.0.0.1"}, "has 1 addresses"},
		{"static without rank", "args: {model-path: /m}\nmultinode: {nodes: 2, orchestrator: static}\n", nil, nil, "no --node-rank"},
		{"hand flags with slurm", "args: {model-path: /m}\nmultinode: {nodes: 2, orchestrator: slurm}\n", []string{"args.node-rank=1"}, step(), "by hand"},
		{"hand flags single node", "args: {model-path: /m}\n", []string{"args.node-rank=1"}, nil, "multinode.nodes is 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Detect(testPlan(t, tt.yaml, tt.sets...), envOf(tt.env))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error with %q", err, tt.want)
			}
			if !inputerr.Is(err) {
				t.Errorf("not an input error (exit 2): %v", err)
			}
		})
	}
}

// TestApplyKeepsFingerprint: the derived flags are perf-neutral, so every
// rank of a group has the fingerprint of the one-node plan.
func TestApplyKeepsFingerprint(t *testing.T) {
	var fps []string
	for rank := range 2 {
		p := testPlan(t, twoNodes)
		before := p.Fingerprint
		env := map[string]string{"LWS_LEADER_ADDRESS": "lead", "LWS_GROUP_SIZE": "2", "LWS_WORKER_INDEX": string(rune('0' + rank))}
		pl, err := Detect(p, envOf(env))
		if err != nil {
			t.Fatal(err)
		}
		Apply(p, pl)
		tail := plan.ArgvTail(p.Argv)
		for _, want := range []string{"--nnodes", "2", "--node-rank", "--dist-init-addr", "lead:20000"} {
			if !slices.Contains(tail, want) {
				t.Errorf("rank %d argv %q lacks %q", rank, tail, want)
			}
		}
		if got := plan.Fingerprint(p); got != before {
			t.Errorf("rank %d: the derived flags changed the fingerprint", rank)
		}
		if got := p.Provenance["args.node-rank"]; got != "LWS_WORKER_INDEX (lws)" {
			t.Errorf("provenance of node-rank: got %q", got)
		}
		fps = append(fps, p.Fingerprint)
	}
	if fps[0] != fps[1] {
		t.Errorf("ranks differ in fingerprint: %v", fps)
	}
}

func TestLeaderPorts(t *testing.T) {
	tests := []struct {
		name string
		sets []string
		want []int
	}{
		{"plain", nil, []int{20000}},
		{"dp attention", []string{"args.enable-dp-attention=true"}, []int{20000, 20001, 20002, 20003, 20004, 20005, 20006}},
		{"dp attention near the top", []string{"args.enable-dp-attention=true", "multinode.dist_init_port=65533"}, []int{65533, 65526, 65527, 65528, 65529, 65530, 65531}},
		{"static port", []string{"args.dist-init-addr=10.0.0.1:21000", "args.node-rank=0"}, []int{21000}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := LeaderPorts(testPlan(t, twoNodes, tt.sets...))
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}
