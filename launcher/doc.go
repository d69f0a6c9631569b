// Package launcher turns a profile into one launch plan and runs it.
//
// Resolution layers, lowest first: built-in defaults < the extends chain
// < the profile < the mode overlay (serve or bench) < SGLAUNCH_*
// variables < the command line (--set, --unset, arguments after --).
// Every managed value in the plan remembers the layer it came from, and
// the plan is printed in full before anything starts.
//
// The plan is the single description of what runs: serve and bench use
// the same plan code, and the child gets exactly the plan's argv and
// environment. The package does not probe health or talk to systemd
// (package health does); it starts, supervises and stops the process tree.
package launcher
