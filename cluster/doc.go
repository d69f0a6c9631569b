// Package cluster places one rank of a multi-node server in its group:
// from the orchestrator's environment (Slurm, Kubernetes LeaderWorkerSet,
// SkyPilot) or the profile's own flags (static), it derives the rank, the
// group size and the leader, with where each came from, and adds
// --nnodes, --node-rank and --dist-init-addr to the plan. It also writes
// the orchestrators' job files from a profile (an sbatch script, a
// LeaderWorkerSet manifest).
//
// It reads only the environment it is given and never invents a
// rendezvous of its own: the orchestrator says who is rank 0. It must not
// start processes or open connections; the group package runs the
// control channel between the ranks.
package cluster
