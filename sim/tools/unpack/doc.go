// Command unpack writes the simulated SGLang server, with the embedded flag
// catalog, into a cache directory and prints the directory to put on
// PYTHONPATH:
//
//	PYTHONPATH=$(go run ./sim/tools/unpack) python3 -m sglang.launch_server --model-path m
//
// It is a development aid; sglaunch itself calls sim.Ensure. It starts no
// server.
package main
