// Package inputfile reads a file a user names (a profile, a workload file,
// a record) with bounds: regular files only, opened without blocking (a
// named pipe never hangs the read), and at most a given size (a device
// like /dev/zero is refused before any read).
//
// It reads one file into memory and says why it will not; it does not
// parse anything.
package inputfile
