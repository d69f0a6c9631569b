// Package redact hides secrets (API keys, tokens, passwords) in everything
// sglaunch prints or writes.
//
// It judges by name alone (a flag or variable whose name holds key, token,
// secret, password, ...); it never logs, stores or compares the values it
// hides.
package redact
