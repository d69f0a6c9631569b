package cluster

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/sglaunch/sglaunch/internal/gentext"
	"github.com/sglaunch/sglaunch/internal/inputerr"
	"github.com/sglaunch/sglaunch/plan"
)

// checkMultiNode refuses a plan that an orchestrator's job file cannot
// run: one on a single node, or one whose profile names another
// orchestrator (its ranks would look for that orchestrator's environment
// and refuse to start).
func checkMultiNode(p *plan.Plan, what, orch string) error {
	m := p.MultiNode
	if !m.Enabled() {
		return inputerr.Errorf("%s: profile %s has multinode.nodes 1, a single-node server; set multinode.nodes to the number of nodes the server spans (multinode: {nodes: 2}), or run one node with sglaunch serve or sglaunch unit",
			what, p.Profile)
	}
	if m.Orchestrator != plan.OrchestratorAuto && m.Orchestrator != orch {
		return inputerr.Errorf("%s: profile %s has multinode.orchestrator %s, so its ranks would not read the placement %s gives them; set multinode.orchestrator: %s (or auto)",
			what, p.Profile, m.Orchestrator, orch, orch)
	}
	return nil
}

// gpusPerNode is the GPUs each rank needs: the override when given, else
// --tp-size × --pp-size over the nodes when the profile gives --tp-size,
// else 0 (unknown). A product the nodes do not divide is an input error:
// SGLang puts the same number of ranks on every node.
func gpusPerNode(p *plan.Plan, override int) (int, error) {
	if override < 0 {
		return 0, inputerr.Errorf("--gpus-per-node %d: want a positive number", override)
	}
	if override > 0 {
		return override, nil
	}
	tp, pp, given, err := GPURanks(p)
	if err != nil || !given {
		return 0, err
	}
	nodes := p.MultiNode.Nodes
	if (tp*pp)%nodes != 0 {
		return 0, inputerr.Errorf("--tp-size %d × --pp-size %d = %d GPUs do not split evenly over multinode.nodes %d; fix the profile, or give --gpus-per-node", tp, pp, tp*pp, nodes)
	}
	return tp * pp / nodes, nil
}

// GPURanks is the server's TP and PP sizes, whose product is its GPU
// ranks (each SGLang's default 1 when absent); given says whether the
// profile gives --tp-size. A value that is no positive integer is an
// input error.
func GPURanks(p *plan.Plan) (tp, pp int, given bool, err error) {
	tp, given, err = intArg(p, "--tp-size")
	if err != nil {
		return 0, 0, false, err
	}
	pp, ok, err := intArg(p, "--pp-size")
	if err != nil {
		return 0, 0, false, err
	}
	if !given {
		tp = 1
	}
	if !ok {
		pp = 1
	}
	return tp, pp, given, nil
}

func intArg(p *plan.Plan, flag string) (int, bool, error) {
	v, ok := p.Arg(flag)
	if !ok {
		return 0, false, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, false, inputerr.Errorf("%s %q: want a positive integer", flag, v)
	}
	return n, true, nil
}

// header is the comment lines that start a job file, each "# "-prefixed
// and made comment-safe.
func header(lines ...string) string {
	var b strings.Builder
	for _, l := range lines {
		if l == "" {
			b.WriteString("#\n")
			continue
		}
		fmt.Fprintf(&b, "# %s\n", gentext.Comment(l))
	}
	return b.String()
}
