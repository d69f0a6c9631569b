// Package statedir says where sglaunch keeps what outlives one run
// (records, load timings, caches) and what lives only while a server runs
// (runtime state files).
//
// It only computes paths from the environment it is given: it creates no
// directory and reads no file.
package statedir
