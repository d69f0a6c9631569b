// Package benchtest builds records from fixed values for the tests of
// bench and of the packages that read records (bench/report).
//
// What it must not do: be imported outside tests, or start, reach or
// measure a server.
package benchtest
