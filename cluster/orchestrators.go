package cluster

import (
	"fmt"
	"strings"

	"github.com/sglaunch/sglaunch/plan"
)

// ErrBatchContext is sglaunch run in a Slurm batch script outside an
// srun step, where every host would read "rank 0" (sgl-project/sglang#36116).
var ErrBatchContext = fmt.Errorf("running in a Slurm job outside an srun step")

// slurm places the rank inside an srun step: the rank is SLURM_NODEID,
// the leader the first host of SLURM_STEP_NODELIST. In the batch script
// outside a step SLURM_NNODES, SLURM_JOB_NODELIST and SLURM_NODEID=0 are
// set too, on the one host that runs the script, so reading them would
// make every rank 0: the step's variables are the ones trusted, and
// without them sglaunch refuses.
func slurm(env Env) (*Placement, error) {
	const o = plan.OrchestratorSlurm
	if env.get("SLURM_STEP_NODELIST") == "" || env.get("SLURM_STEP_NUM_NODES") == "" || env.get("SLURM_STEP_ID") == "" {
		return nil, fmt.Errorf("%w (SLURM_JOB_ID=%s is set, SLURM_STEP_NODELIST is not): here every host would read rank 0 and the group would hang at init; start sglaunch on every node with srun: srun --nodes=$SLURM_NNODES --ntasks-per-node=1 --kill-on-bad-exit=1 sglaunch serve --profile NAME (sglaunch slurm writes such a script)",
			ErrBatchContext, env.get("SLURM_JOB_ID"))
	}
	nodes, err := intVar(env, "SLURM_STEP_NUM_NODES")
	if err != nil {
		return nil, err
	}
	rank, err := intVar(env, "SLURM_NODEID")
	if err != nil {
		return nil, err
	}
	if tasks := env.get("SLURM_STEP_NUM_TASKS"); tasks != "" && tasks != env.get("SLURM_STEP_NUM_NODES") {
		return nil, fmt.Errorf("the srun step runs %s tasks on %d nodes (SLURM_STEP_NUM_TASKS); sglaunch runs one per node: srun --ntasks-per-node=1", tasks, nodes)
	}
	hosts, err := ExpandHostlist(env.get("SLURM_STEP_NODELIST"))
	if err != nil {
		return nil, fmt.Errorf("SLURM_STEP_NODELIST: %w", err)
	}
	if len(hosts) != nodes {
		return nil, fmt.Errorf("SLURM_STEP_NODELIST=%s names %d hosts but SLURM_STEP_NUM_NODES is %d", env.get("SLURM_STEP_NODELIST"), len(hosts), nodes)
	}
	if rank >= len(hosts) {
		return nil, fmt.Errorf("SLURM_NODEID=%d: the step has %d nodes", rank, len(hosts))
	}
	node := hosts[rank]
	if n := env.get("SLURMD_NODENAME"); n != "" && n != node {
		return nil, fmt.Errorf("SLURMD_NODENAME=%s, but SLURM_NODEID=%d is %s in SLURM_STEP_NODELIST=%s", n, rank, node, env.get("SLURM_STEP_NODELIST"))
	}
	return &Placement{
		Orchestrator: o, Nodes: nodes, Rank: rank, Node: node, Leader: hosts[0],
		Group: "slurm:" + env.get("SLURM_JOB_ID") + "." + env.get("SLURM_STEP_ID"),
		From: map[string]string{
			"nodes":  from("SLURM_STEP_NUM_NODES", o),
			"rank":   from("SLURM_NODEID", o),
			"leader": from("SLURM_STEP_NODELIST", o),
		},
	}, nil
}

// lws places the rank in a Kubernetes LeaderWorkerSet group: the rank is
// LWS_WORKER_INDEX (0 is the leader), the size LWS_GROUP_SIZE, the
// leader LWS_LEADER_ADDRESS (its headless-service name, which resolves
// late: the group package resolves it with retries).
func lws(env Env) (*Placement, error) {
	const o = plan.OrchestratorLWS
	leader := strings.TrimSpace(env.get("LWS_LEADER_ADDRESS"))
	if leader == "" {
		return nil, fmt.Errorf("LWS_LEADER_ADDRESS is not set; is this a LeaderWorkerSet pod?")
	}
	nodes, err := intVar(env, "LWS_GROUP_SIZE")
	if err != nil {
		return nil, err
	}
	rank, err := intVar(env, "LWS_WORKER_INDEX")
	if err != nil {
		return nil, err
	}
	return &Placement{
		Orchestrator: o, Nodes: nodes, Rank: rank, Node: env.hostname(), Leader: leader,
		Group: "lws:" + leader,
		From: map[string]string{
			"nodes":  from("LWS_GROUP_SIZE", o),
			"rank":   from("LWS_WORKER_INDEX", o),
			"leader": from("LWS_LEADER_ADDRESS", o),
		},
	}, nil
}

// skypilot places the rank in a SkyPilot cluster: SKYPILOT_NODE_RANK,
// SKYPILOT_NUM_NODES, and the head's address, the first line of
// SKYPILOT_NODE_IPS.
func skypilot(env Env) (*Placement, error) {
	const o = plan.OrchestratorSkyPilot
	nodes, err := intVar(env, "SKYPILOT_NUM_NODES")
	if err != nil {
		return nil, err
	}
	rank, err := intVar(env, "SKYPILOT_NODE_RANK")
	if err != nil {
		return nil, err
	}
	var ips []string
	for _, l := range strings.Split(env.get("SKYPILOT_NODE_IPS"), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			ips = append(ips, l)
		}
	}
	if len(ips) == 0 {
		return nil, fmt.Errorf("SKYPILOT_NODE_IPS is empty; want one address per line, the head first")
	}
	if len(ips) != nodes {
		return nil, fmt.Errorf("SKYPILOT_NODE_IPS has %d addresses but SKYPILOT_NUM_NODES is %d", len(ips), nodes)
	}
	node := env.hostname()
	if rank < len(ips) {
		node = ips[rank]
	}
	group := env.get("SKYPILOT_TASK_ID")
	if group == "" {
		group = strings.Join(ips, ",")
	}
	return &Placement{
		Orchestrator: o, Nodes: nodes, Rank: rank, Node: node, Leader: ips[0],
		Group: "skypilot:" + group,
		From: map[string]string{
			"nodes":  from("SKYPILOT_NUM_NODES", o),
			"rank":   from("SKYPILOT_NODE_RANK", o),
			"leader": from("SKYPILOT_NODE_IPS", o),
		},
	}, nil
}
