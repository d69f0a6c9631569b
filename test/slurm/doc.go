// Package slurm is sglaunch's real-Slurm suite: each test starts a real
// Slurm 22.05 cluster on one machine, one slurmd per node of
// internal/testkit/netns (a network namespace with its own address and
// loopback), slurmctld in the root namespace on the bridge's address, and
// one munged whose socket every node reaches through the shared file
// system. slurm.conf is generated into a temporary directory (proctrack
// linuxproc, task/none, no cgroups, SlurmUser root) and srun, sbatch and
// scontrol find it through SLURM_CONF.
//
// The smoke tests pin what the multi-node launcher relies on: what Slurm
// really sets inside an srun step and in a batch script outside one, the
// compressed hostlist syntax, and how fast --kill-on-bad-exit ends a
// step. On top of them, sglaunch itself: two and three ranks come up
// and stop through a real srun step, the batch-script context is refused,
// the script `sglaunch slurm` writes runs as written, and a lost rank
// ends the step. The nodes' names resolve inside the nodes (each slurmd
// and its tasks see a /etc/hosts of the test's own, in a mount
// namespace of their own), and each node claims 8 GPUs (gres.conf with
// plain files as devices) so that job files ask for GPUs as they would.
//
// TestScancelDrainsStream runs two nodes and a 100-token stream; with
// SGLAUNCH_SLURM_FULL=1 it runs issue 22's own case, four nodes and a
// 1,500-token stream under Slurm's default KillWait of 30 s.
//
// Run it alone with `go test ./test/slurm -v` (as root: namespaces and
// Slurm's daemons need it; Debian: slurmctld, slurmd, slurm-client,
// munge, iproute2). A machine where Slurm cannot start fails the suite
// with the daemons' logs; no test is skipped. Every process, namespace
// and directory a test made is gone when it ends, also when it fails.
package slurm
