// Package launch is the one launch sequence of sglaunch, for serve and
// for bench's server. Run takes a resolved plan and runs, always in this
// order:
//
//  1. the sweep of what launches whose sglaunch is gone left running;
//  2. preflight, or with --skip-preflight only its site-hook check;
//  3. the lookup of the benchmark the plan reproduces (serve);
//  4. the runtime state, written before anything starts and again at
//     every change (internal/runstate);
//  5. the status endpoint, when the plan asks for one;
//  6. the group rendezvous, for a rank of a multi-node server;
//  7. the start (supervise.Launch);
//  8. supervision until the server ends (serve), or the caller's
//     workloads while the server runs (bench), which stop it;
//  9. the mapping of how it ended to sglaunch's exit status (Exit).
//
// A launch that starts no server (bench --url) runs steps 1, 4 and 8.
// Every step that returns early undoes what the steps before it set up:
// the state file is removed, the endpoint closed, the group left.
//
// What it must not do: parse flags or know the command line (cmd
// does, and prints the plan); render results or records (bench and cmd
// do); start, signal or reap a process itself (it asks supervise, which
// asks launcher); hold the group's protocol (group) or the status
// endpoint's (status). No package but cmd/sglaunch imports it.
package launch
