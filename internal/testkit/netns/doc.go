// Package netns gives a test several "nodes" on one Linux machine: each
// node is a network namespace with its own loopback and one address on a
// private /24, joined by a veth pair to a bridge in the root namespace.
// Multi-node tests (Slurm, LeaderWorkerSet, SkyPilot stand-ins) run one
// process per node as if on separate hosts: 127.0.0.1 and every port are
// a node's own, and a node can be cut off the network and healed.
//
// Only the network is separate. The nodes share the machine's mount, pid,
// uts and user namespaces: a file written in one node is seen by all
// (unix sockets in the file system too), and every node has the host's
// hostname. Tests that need more isolation need more than this package.
//
// It needs root (CAP_NET_ADMIN and CAP_SYS_ADMIN) and iproute2's ip, and
// nsenter (util-linux). Without them New fails the test, saying why; it
// never skips.
//
// It must not touch anything it did not create: every name it makes
// carries the prefix "sgk", the creating process's pid (base 36, to fit
// interface names in 15 bytes) and a sequence number, its subnet is one of 10.213.0.0/24 … 10.213.255.0/24 that no
// address or route of the root namespace uses yet, and the leftovers it
// sweeps are only those whose pid is dead (a run killed before its
// cleanup). It kills no process outside its own namespaces, and nothing
// it starts outlives the cluster: Close kills every process in every
// node before it deletes the namespaces. It is for tests only: no
// production package may import it.
package netns
