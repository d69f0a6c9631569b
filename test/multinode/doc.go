// Package multinode tests multi-node serving through the real binary:
// network namespaces joined by a bridge are the nodes (each with its own
// loopback), every rank runs `sglaunch serve` in its node against the
// simulator, placed by LeaderWorkerSet's or SkyPilot's variables. It
// pins group readiness, the distributed preflight, and that a worker
// crash, a killed rank 0 and a network partition each end the whole
// group within the heartbeat bound, the first failure named. Root only
// (network namespaces); test/slurm does the same under a real Slurm.
package multinode
