// Package proc reads process facts from /proc: parent links, sessions,
// command lines, environments and listening sockets. It only reads; it
// never signals or changes a process.
package proc
