package preflight

import (
	"context"
	"fmt"
	"strconv"

	"github.com/sglaunch/sglaunch/cluster"
	"github.com/sglaunch/sglaunch/group"
	"github.com/sglaunch/sglaunch/plan"
)

// CheckMultiNode is the multi-node checks' name.
const CheckMultiNode = "multinode"

// checkMultiNode checks what a multi-node plan needs before the load:
// SGLang's own rule that the nodes divide the TP size (it asserts it at
// start), where this rank sits, and on rank 0 the ports it will take.
func checkMultiNode(ctx context.Context, p *plan.Plan) []Finding {
	m := p.MultiNode
	if !m.Enabled() {
		return nil
	}
	s := subject{CheckMultiNode, "multinode.nodes " + strconv.Itoa(m.Nodes), "multinode.nodes (" + p.Provenance["multinode.nodes"] + ")"}
	var out []Finding
	// A TP or PP size that is no number is the flag checks' to report.
	if tp, pp, _, err := cluster.GPURanks(p); err == nil {
		if tp*pp%m.Nodes != 0 {
			out = append(out, s.fail(fmt.Sprintf("--tp-size %d × --pp-size %d is not divisible by %d nodes: SGLang refuses to start (\"tp_size must be divisible by number of nodes\")", tp, pp, m.Nodes),
				"make the TP size (times the PP size) a multiple of multinode.nodes"))
		} else {
			out = append(out, s.pass(fmt.Sprintf("%d GPU ranks per node", tp*pp/m.Nodes)))
		}
	}
	rankText, placed := p.Arg(plan.FlagNodeRank)
	r := subject{CheckMultiNode, "--node-rank", "args.node-rank (" + p.Provenance["args.node-rank"] + ")"}
	if !placed {
		return append(out, r.warn("this rank is not placed: no orchestrator's environment here (a Slurm step, LWS_*, SKYPILOT_*) and no --node-rank in the profile",
			"serve places each rank where the orchestrator starts it; to check one rank here, give --set args.node-rank=R --set args.dist-init-addr=HEAD:PORT with multinode.orchestrator: static"))
	}
	addr, _ := p.Arg(plan.FlagDistInitAddr)
	out = append(out, r.pass(fmt.Sprintf("rank %s of %d, rank 0 at %s", rankText, m.Nodes, addr)))
	if rankText != "0" {
		return out
	}
	ports := group.RankZeroPorts(p)
	ps := subject{CheckMultiNode, "rank 0 ports", "multinode.control_port, multinode.dist_init_port"}
	if err := group.CheckPorts(ctx, ports); err != nil {
		return append(out, ps.fail(err.Error(), "choose free ports below the ephemeral range (multinode.control_port, multinode.dist_init_port)"))
	}
	var list []string
	for _, x := range ports {
		list = append(list, strconv.Itoa(x.Port))
	}
	return append(out, ps.pass(fmt.Sprintf("free and outside the ephemeral range: %v", list)))
}
