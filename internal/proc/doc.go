// Package proc reads process facts from /proc: parent links, sessions,
// command lines, environments and listening sockets. It is the one place
// that knows who holds a port: CheckPort binds an address for a moment
// and classifies the answer (free, in use and by whom, not this host's
// address, a privileged port) for preflight and group alike.
//
// It only reads and binds for a moment; it never signals or changes a
// process, and never sends traffic.
package proc
