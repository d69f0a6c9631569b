// Package systemd holds everything sglaunch says to systemd: sd_notify
// messages (READY, STATUS, EXTEND_TIMEOUT_USEC, WATCHDOG, STOPPING) from
// sglaunch's own pid, the watchdog interval, and the text of the unit
// that runs `sglaunch serve`.
//
// It must not probe the server or touch processes; it renders and sends
// what its callers decide.
package systemd
