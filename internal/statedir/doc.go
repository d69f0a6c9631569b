// Package statedir says where sglaunch keeps what outlives one run
// (records, load timings, caches) and what lives only while a server runs
// (runtime state files).
//
// It computes paths from the environment it is given; Private, for a
// directory sglaunch runs code from (the simulator's cache), creates it
// and refuses one that another user could have planted or could change.
package statedir
