package cluster

import (
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/sglaunch/sglaunch/internal/inputerr"
	"github.com/sglaunch/sglaunch/plan"
)

// Placement is where one rank sits in its group.
type Placement struct {
	Orchestrator string `json:"orchestrator"` // slurm, lws, skypilot or static
	Nodes        int    `json:"nodes"`
	Rank         int    `json:"rank"`
	// Node names this rank's host in messages ("gpu02").
	Node string `json:"node"`
	// Leader is rank 0's host, as the orchestrator names it (a host
	// name, a DNS name that may resolve late, or an address).
	Leader string `json:"leader"`
	// Group is the orchestrator's name for this group (a job step, a
	// LeaderWorkerSet group): ranks of another group are refused.
	Group string `json:"group"`
	// From says where each derived value came from: "rank" →
	// "SLURM_NODEID (slurm)".
	From map[string]string `json:"from"`
}

// Env is what placement reads: the environment and the host's name.
type Env struct {
	Getenv   func(string) string
	Hostname func() (string, error)
}

func (e Env) get(name string) string {
	if e.Getenv == nil {
		return ""
	}
	return e.Getenv(name)
}

func (e Env) hostname() string {
	if e.Hostname != nil {
		if h, err := e.Hostname(); err == nil {
			return h
		}
	}
	return "localhost"
}

// Detect places the plan's rank, or returns nil for a single-node plan.
// An orchestrator's environment that contradicts the profile is an
// input error saying what would be right.
func Detect(p *plan.Plan, env Env) (*Placement, error) {
	m := p.MultiNode
	if !m.Enabled() {
		if p.Placed() {
			return nil, inputerr.Errorf("the profile gives --node-rank or --dist-init-addr but multinode.nodes is 1; set multinode.nodes to the group's size")
		}
		return nil, nil
	}
	orch := m.Orchestrator
	if orch == plan.OrchestratorAuto {
		orch = detectOrchestrator(p, env)
		if orch == "" {
			return nil, inputerr.Errorf("multinode.nodes is %d but no orchestrator was found (no SLURM_JOB_ID, LWS_LEADER_ADDRESS or SKYPILOT_NODE_RANK); run under srun, a LeaderWorkerSet or SkyPilot, or set multinode.orchestrator: static and give each host --set args.node-rank=R --set args.dist-init-addr=HEAD:%d", m.Nodes, m.DistInitPort)
		}
	} else if orch != plan.OrchestratorStatic && p.Placed() {
		return nil, inputerr.Errorf("the profile gives --node-rank or --dist-init-addr by hand, but multinode.orchestrator is %s, which derives them; remove them, or set multinode.orchestrator: static", orch)
	}
	var pl *Placement
	var err error
	switch orch {
	case plan.OrchestratorSlurm:
		pl, err = slurm(env)
	case plan.OrchestratorLWS:
		pl, err = lws(env)
	case plan.OrchestratorSkyPilot:
		pl, err = skypilot(env)
	case plan.OrchestratorStatic:
		pl, err = static(p, env)
	default:
		err = fmt.Errorf("multinode.orchestrator %q: want auto, slurm, lws, skypilot or static", orch)
	}
	if err != nil {
		return nil, inputerr.Wrap(err)
	}
	if pl.Nodes != m.Nodes {
		return nil, inputerr.Errorf("multinode.nodes is %d, but %s says the group has %d nodes; make them agree", m.Nodes, pl.From["nodes"], pl.Nodes)
	}
	if pl.Rank < 0 || pl.Rank >= pl.Nodes {
		return nil, inputerr.Errorf("%s: rank %d is outside 0..%d", pl.From["rank"], pl.Rank, pl.Nodes-1)
	}
	return pl, nil
}

// detectOrchestrator picks the orchestrator for auto: the profile's own
// flags first (they say static on purpose), then the environment.
func detectOrchestrator(p *plan.Plan, env Env) string {
	switch {
	case p.Placed():
		return plan.OrchestratorStatic
	case env.get("SLURM_JOB_ID") != "":
		return plan.OrchestratorSlurm
	case env.get("LWS_LEADER_ADDRESS") != "":
		return plan.OrchestratorLWS
	case env.get("SKYPILOT_NODE_RANK") != "":
		return plan.OrchestratorSkyPilot
	}
	return ""
}

// intVar reads a whole-number variable, naming it when it is wrong.
func intVar(env Env, name string) (int, error) {
	v := env.get(name)
	if v == "" {
		return 0, fmt.Errorf("%s is not set", name)
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%s=%q: want a whole number", name, v)
	}
	return n, nil
}

func from(name, orch string) string { return name + " (" + orch + ")" }

// static reads the rank from the profile's own --node-rank and
// --dist-init-addr.
func static(p *plan.Plan, env Env) (*Placement, error) {
	rankText, ok := p.Arg(plan.FlagNodeRank)
	if !ok {
		return nil, fmt.Errorf("multinode.orchestrator is static but the plan has no --node-rank; give each host --set args.node-rank=R (0 on the leader)")
	}
	addr, ok := p.Arg(plan.FlagDistInitAddr)
	if !ok {
		return nil, fmt.Errorf("multinode.orchestrator is static but the plan has no --dist-init-addr; give --set args.dist-init-addr=HEAD:%d", p.MultiNode.DistInitPort)
	}
	rank, err := strconv.Atoi(rankText)
	if err != nil {
		return nil, fmt.Errorf("args.node-rank %q: want a whole number", rankText)
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil || host == "" {
		return nil, fmt.Errorf("args.dist-init-addr %q: want HOST:PORT", addr)
	}
	nodes := p.MultiNode.Nodes
	fromNodes := "multinode.nodes (profile)"
	if v, ok := p.Arg(plan.FlagNNodes); ok {
		if nodes, err = strconv.Atoi(v); err != nil {
			return nil, fmt.Errorf("args.nnodes %q: want a whole number", v)
		}
		fromNodes = "args.nnodes (static)"
	}
	return &Placement{
		Orchestrator: plan.OrchestratorStatic, Nodes: nodes, Rank: rank, Node: env.hostname(), Leader: host,
		Group: "static:" + addr,
		From:  map[string]string{"nodes": fromNodes, "rank": "args.node-rank (static)", "leader": "args.dist-init-addr (static)"},
	}, nil
}

// Apply adds the rank's flags to the plan: --nnodes, --node-rank and
// --dist-init-addr (the leader and multinode.dist_init_port), each from
// the layer of its source. A static plan has them already.
func Apply(p *plan.Plan, pl *Placement) {
	if pl == nil || pl.Orchestrator == plan.OrchestratorStatic {
		return
	}
	p.AddDerived("nnodes", strconv.Itoa(pl.Nodes), pl.From["nodes"])
	p.AddDerived("node-rank", strconv.Itoa(pl.Rank), pl.From["rank"])
	p.AddDerived("dist-init-addr", DistInitAddr(pl.Leader, p.MultiNode.DistInitPort), pl.From["leader"])
}

// DistInitAddr is host:port as SGLang's --dist-init-addr takes it.
func DistInitAddr(host string, port int) string {
	return net.JoinHostPort(host, strconv.Itoa(port))
}

// ControlAddr is where rank 0's control channel listens.
func (pl *Placement) ControlAddr(port int) string { return DistInitAddr(pl.Leader, port) }

// LeaderPorts are the ports SGLang takes from --dist-init-addr's port D
// (PortArgs.init_new in srt/server_args.py): D itself for the
// rendezvous; with --enable-dp-attention the internal channels are TCP
// too, on base … base+5 where base is D+1 (D-7 when D+6 would pass
// 65535): tokenizer, detokenizer, rpc, metrics, scheduler input and,
// across nodes, the load collector.
func LeaderPorts(p *plan.Plan) []int {
	port := p.MultiNode.DistInitPort
	if addr, ok := p.Arg(plan.FlagDistInitAddr); ok {
		if _, ps, err := net.SplitHostPort(addr); err == nil {
			if n, err := strconv.Atoi(ps); err == nil {
				port = n
			}
		}
	}
	ports := []int{port}
	if !p.HasFlag("--enable-dp-attention") {
		return ports
	}
	const k = 6
	base := port + 1
	if port+k > 65535 {
		base = port - k - 1
	}
	for i := range k {
		ports = append(ports, base+i)
	}
	return ports
}
