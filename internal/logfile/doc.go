// Package logfile writes a server's output to a log file that may fill
// its disk: the first failed write (ENOSPC, EIO) is reported once, with
// where the log was cut, and everything after it is dropped, so that the
// server's output keeps flowing everywhere else and the log never holds
// a silent gap. It knows nothing of servers or processes.
package logfile
