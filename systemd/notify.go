package systemd

import (
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-systemd/v22/daemon"
)

// Notifier sends sd_notify messages to systemd from sglaunch's own
// process (the unit's main pid, as NotifyAccess=main requires). Without
// NOTIFY_SOCKET every method does nothing. The zero value and nil are
// disabled notifiers.
type Notifier struct {
	enabled bool
	log     *slog.Logger

	mu       sync.Mutex
	warned   bool
	stopping bool
}

// NewNotifier returns a notifier for the NOTIFY_SOCKET in sglaunch's own
// environment. log receives one warning if a message cannot be sent.
func NewNotifier(log *slog.Logger) *Notifier {
	return &Notifier{enabled: os.Getenv("NOTIFY_SOCKET") != "", log: log}
}

// Enabled reports whether systemd is listening.
func (n *Notifier) Enabled() bool { return n != nil && n.enabled }

// send writes one datagram of newline-separated assignments.
func (n *Notifier) send(lines ...string) {
	if !n.Enabled() {
		return
	}
	// go-systemd: (false, nil) means no socket; an error means it could
	// not be reached. Neither is worth stopping the server for.
	if _, err := daemon.SdNotify(false, strings.Join(lines, "\n")); err != nil {
		n.mu.Lock()
		warned := n.warned
		n.warned = true
		n.mu.Unlock()
		if !warned && n.log != nil {
			n.log.Warn("cannot notify systemd: "+err.Error(), "socket", os.Getenv("NOTIFY_SOCKET"))
		}
	}
}

// Status sets the text systemctl status shows.
func (n *Notifier) Status(text string) { n.send("STATUS=" + oneLine(text)) }

// Extend asks systemd to wait d longer than the current timeout allows.
func (n *Notifier) Extend(d time.Duration) {
	if d <= 0 {
		return
	}
	n.send(fmt.Sprintf("EXTEND_TIMEOUT_USEC=%d", d.Microseconds()))
}

// Ready announces that the service is up; status goes with it.
func (n *Notifier) Ready(status string) {
	n.send(daemon.SdNotifyReady, "STATUS="+oneLine(status))
}

// Watchdog pings the service watchdog.
func (n *Notifier) Watchdog() { n.send(daemon.SdNotifyWatchdog) }

// Stopping announces the shutdown, once.
func (n *Notifier) Stopping(status string) {
	if !n.Enabled() {
		return
	}
	n.mu.Lock()
	already := n.stopping
	n.stopping = true
	n.mu.Unlock()
	if !already {
		n.send(daemon.SdNotifyStopping, "STATUS="+oneLine(status))
	}
}

// WatchdogInterval is systemd's watchdog interval for this process, or 0
// when the watchdog is off (or meant for another pid).
func WatchdogInterval() time.Duration {
	d, err := daemon.SdWatchdogEnabled(false)
	if err != nil {
		return 0
	}
	return d
}

func oneLine(s string) string { return strings.ReplaceAll(s, "\n", " ") }
