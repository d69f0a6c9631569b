// Package group runs sglaunch's control channel between the ranks of one
// multi-node server: rank 0 (the leader) listens on
// multinode.control_port; every other rank (a worker) connects to it.
// Over it the ranks hold the distributed preflight (each rank's plan,
// SGLang version, model files and GPUs against rank 0's, before anyone
// loads), group readiness (READY=1 only once every rank is up and rank
// 0's /health passes), heartbeats both ways, and the group's stop (the
// first failure, named, stops every rank). verify --group asks rank 0
// for every rank's observation over it.
//
// Rendezvous is a rank's whole part in the group's start (rank 0's
// address check, listening or dialling, the wait), as package launch
// calls it.
//
// Messages are JSON lines, bounded in size. A connection that names
// another group, a rank out of range or a rank already present is
// refused; observations are answered only to loopback clients. The
// package must not start or signal processes: supervise acts on what it
// reports.
package group
