package plan

import (
	"strconv"
	"strings"
	"time"

	"github.com/sglaunch/sglaunch/profiles"
)

// MultiNode is how one server spans several nodes, from the multinode.*
// settings. Where each rank sits (its rank, the leader's address) is not
// here: the cluster package derives it from the orchestrator's
// environment and adds the flags with cluster.Apply.
type MultiNode struct {
	Nodes             int    // 1: a single-node server
	Orchestrator      string // auto, slurm, lws, skypilot or static
	DistInitPort      int    // rank 0's port for --dist-init-addr
	ControlPort       int    // rank 0's port for sglaunch's control channel
	Interface         string // "" or the interface rank 0 advertises
	SecretFile        string // "" or the file of the group's secret
	InsecureChannel   bool   // without a secret, run an unauthenticated channel
	RendezvousTimeout time.Duration
	HeartbeatInterval time.Duration
	HeartbeatMissed   int // heartbeats missed before a rank counts as lost
}

// What multinode.orchestrator may say.
const (
	OrchestratorAuto     = "auto"
	OrchestratorSlurm    = "slurm"
	OrchestratorLWS      = "lws"
	OrchestratorSkyPilot = "skypilot"
	OrchestratorStatic   = "static"
)

// The flags that place one rank in its group: derived per rank, so
// perf-neutral (every rank of a group has one fingerprint).
const (
	FlagNNodes       = "--nnodes"
	FlagNodeRank     = "--node-rank"
	FlagDistInitAddr = "--dist-init-addr"
)

// GroupSecretVar holds a multi-node group's secret (see the group
// package): sglaunch's own, never passed to the server.
const GroupSecretVar = "SGLAUNCH_GROUP_SECRET"

// Enabled reports whether the plan spans more than one node.
func (m MultiNode) Enabled() bool { return m.Nodes > 1 }

// LostAfter is how long a silent rank is given before it counts as lost.
func (m MultiNode) LostAfter() time.Duration {
	return m.HeartbeatInterval * time.Duration(m.HeartbeatMissed)
}

func multiNodeOf(values map[string]profiles.Value) MultiNode {
	n := func(key string) int { v, _ := strconv.Atoi(values[key].Text); return v }
	d := func(key string) time.Duration { return profiles.Duration(values[key]) }
	return MultiNode{
		Nodes:             max(n("multinode.nodes"), 1),
		Orchestrator:      values["multinode.orchestrator"].Text,
		DistInitPort:      n("multinode.dist_init_port"),
		ControlPort:       n("multinode.control_port"),
		Interface:         values["multinode.interface"].Text,
		SecretFile:        values["multinode.secret_file"].Text,
		InsecureChannel:   values["multinode.insecure_channel"].Text == "true",
		RendezvousTimeout: d("multinode.rendezvous_timeout"),
		HeartbeatInterval: d("multinode.heartbeat.interval"),
		HeartbeatMissed:   max(n("multinode.heartbeat.threshold"), 1),
	}
}

// showSetting reports whether the printed config lists a setting: the
// multinode.* ones only for a plan that uses them.
func (p *Plan) showSetting(key string) bool {
	if !strings.HasPrefix(key, "multinode.") {
		return true
	}
	return p.MultiNode.Enabled() || p.Settings[key].From != "default"
}

// Placed reports whether the plan's server flags already place the rank
// (a static profile writes --node-rank and --dist-init-addr itself).
func (p *Plan) Placed() bool { return p.HasFlag(FlagNodeRank) || p.HasFlag(FlagDistInitAddr) }

// AddDerived appends a flag that sglaunch derived (a rank's place in its
// group) to the plan's args, from a layer named for its source, and
// renders the argv again. The fingerprint does not change: such flags
// are perf-neutral.
func (p *Plan) AddDerived(name, value, from string) {
	v := profiles.Value{Kind: profiles.Scalar, Text: value, From: from}
	p.Args = setEntry(p.Args, profiles.Entry{Name: name, Value: v}, sameFlag)
	p.Provenance["args."+name] = from
	p.renderArgv()
}
