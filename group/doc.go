// Package group runs sglaunch's control channel between the ranks of one
// multi-node server: rank 0 (the leader) listens on
// multinode.control_port; every other rank (a worker) connects to it.
// Over it the ranks hold the distributed preflight (each rank's plan,
// SGLang version, model files and GPUs against rank 0's, before anyone
// loads), group readiness (READY=1 only once every rank is up and rank
// 0's /health passes), heartbeats both ways, and the group's end: the
// first failure, named, stops every rank at once; a requested stop (a
// signal to any rank) stops the group as one, every worker keeping its
// server up until rank 0 has drained. verify --group asks rank 0 for
// every rank's observation over it.
//
// The channel is authenticated: every connection opens with rank 0's
// fresh nonce, the worker's hello carries one of its own, and every
// message after carries HMAC-SHA256 under a key derived from the
// group's secret and both nonces, over its direction and sequence
// number (auth.go). A peer without the secret takes no rank's place,
// fails no group and names no rank: its connection is refused with
// nothing of rank 0's in the refusal, and logged with its address. A
// worker believes nothing unsigned from "rank 0" either: an unsigned
// refusal only makes it try again. The group's secret comes from the
// orchestrator (LoadSecret); without one, only a profile that accepts
// an unauthenticated channel runs.
//
// Rank 0 listens on its cluster address only, holds at most nodes*2+8
// connections, reads at most 1 MiB before a connection authenticates
// (an observation at most 8 MiB after), times each message out, and
// keeps accepting after an error that passes. Peers' words are cleaned
// of control characters before they are logged. Observations, which
// hold the servers' environments, are answered on an owner-only unix
// socket under the runtime directory, never over TCP.
//
// Rendezvous is a rank's whole part in the group's start (rank 0's
// address check, listening or dialling, the wait), as package launch
// calls it.
//
// The package must not start or signal processes: supervise acts on
// what it reports.
package group
