package proc

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/sglaunch/sglaunch/internal/redact"
)

// Listeners are the processes holding a TCP socket that listens on one
// port (IPv4 or IPv6).
type Listeners struct {
	Port int
	// PIDs hold a listening socket, lowest first (a forked worker may
	// share its parent's socket).
	PIDs []int
	// Hidden is set when a listening socket was found in /proc/net but no
	// process this user may inspect holds it (another user's, or another
	// PID namespace's).
	Hidden bool
}

// Any reports whether anything listens on the port.
func (l Listeners) Any() bool { return len(l.PIDs) > 0 || l.Hidden }

// ListenersOn finds who listens on port.
func ListenersOn(port int) (Listeners, error) {
	out := Listeners{Port: port}
	inodes, err := listening(port)
	if err != nil || len(inodes) == 0 {
		return out, err
	}
	all, err := All()
	if err != nil {
		return out, err
	}
	found := map[string]bool{}
	for pid := range all {
		if socketsOf(pid, inodes, found) {
			out.PIDs = append(out.PIDs, pid)
		}
	}
	slices.Sort(out.PIDs)
	out.Hidden = len(found) < len(inodes)
	return out, nil
}

// listening returns the inodes of the sockets listening on port: from
// sock_diag, or /proc/net/tcp{,6} where netlink is not to be had.
func listening(port int) (map[string]bool, error) {
	if inodes, err := listeningDiag(port); err == nil {
		return inodes, nil
	}
	inodes := map[string]bool{}
	for _, f := range []string{"net/tcp", "net/tcp6"} {
		if err := listeningInodes(filepath.Join(Root, f), port, inodes); err != nil && !os.IsNotExist(err) {
			return nil, err
		}
	}
	return inodes, nil
}

// socketsOf reports whether pid holds one of the inodes, adding those it
// holds to found.
func socketsOf(pid int, inodes, found map[string]bool) bool {
	dir := filepath.Join(Root, strconv.Itoa(pid), "fd")
	fds, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	holds := false
	for _, fd := range fds {
		link, err := os.Readlink(filepath.Join(dir, fd.Name()))
		if err != nil || !strings.HasPrefix(link, "socket:[") {
			continue
		}
		if ino := strings.TrimSuffix(strings.TrimPrefix(link, "socket:["), "]"); inodes[ino] {
			found[ino], holds = true, true
		}
	}
	return holds
}

// ListeningPID returns the pid of a process holding a TCP socket that
// listens on port (IPv4 or IPv6). It returns 0 and no error when nobody
// listens; a socket owned by a process we may not inspect is not found.
func ListeningPID(port int) (int, error) {
	l, err := ListenersOn(port)
	if err != nil || len(l.PIDs) == 0 {
		return 0, err
	}
	return l.PIDs[0], nil // the lowest pid is the listener's parent
}

// ErrNotListening: no socket listens on the port (yet).
var ErrNotListening = errors.New("nothing listens on the port")

// PortError says that the port is held by a process outside the tree
// that was expected to hold it.
type PortError struct {
	Port int
	// Root is the process whose tree should hold the port.
	Root int
	// PID is the holder (0 when Hidden), Argv its command line, secrets
	// masked.
	PID    int
	Argv   []string
	Hidden bool
}

func (e *PortError) Error() string {
	if e.PID == 0 {
		return fmt.Sprintf("port %d is held by a process sglaunch may not inspect (another user's), not by the server (pid %d)", e.Port, e.Root)
	}
	cmd := "command line unreadable"
	if len(e.Argv) > 0 {
		cmd = strings.Join(e.Argv, " ")
		if len(cmd) > 200 {
			cmd = cmd[:200] + "..."
		}
	}
	return fmt.Sprintf("port %d is held by pid %d (%s), not by the server (pid %d) or its processes", e.Port, e.PID, cmd, e.Root)
}

// CheckPortOwner confirms that a socket listening on port belongs to
// root or one of its descendants. It returns nil when one does,
// ErrNotListening (wrapped) when no socket listens on the port, and a
// *PortError naming the holder when only other processes hold it.
func CheckPortOwner(port, root int) error {
	inodes, err := listening(port)
	if err != nil {
		return fmt.Errorf("find who listens on port %d: %w", port, err)
	}
	if len(inodes) == 0 {
		return fmt.Errorf("port %d: %w", port, ErrNotListening)
	}
	// The server's own descriptors first (SGLang's main process holds
	// the listener), then its descendants': the common answer costs one
	// fd table, not the whole host's.
	if socketsOf(root, inodes, map[string]bool{}) {
		return nil
	}
	tree := []int{root}
	if kids, err := Descendants(root); err == nil {
		tree = append(tree, kids...)
	}
	for _, pid := range tree[1:] {
		if socketsOf(pid, inodes, map[string]bool{}) {
			return nil
		}
	}
	l, err := ListenersOn(port)
	if err != nil {
		return fmt.Errorf("find who listens on port %d: %w", port, err)
	}
	if !l.Any() {
		return fmt.Errorf("port %d: %w", port, ErrNotListening) // closed meanwhile
	}
	pe := &PortError{Port: port, Root: root, Hidden: l.Hidden}
	for _, pid := range l.PIDs {
		if slices.Contains(tree, pid) {
			return nil // it bound the port meanwhile
		}
	}
	if len(l.PIDs) > 0 {
		pe.PID = l.PIDs[0]
		if argv, err := Cmdline(pe.PID); err == nil {
			pe.Argv = redact.Argv(argv)
		}
	}
	return pe
}

// listeningInodes adds the inodes of sockets in LISTEN state on port.
func listeningInodes(path string, port int, out map[string]bool) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	want := fmt.Sprintf(":%04X", port)
	sc := bufio.NewScanner(f)
	sc.Scan() // header
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		// sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
		if len(fields) < 10 || fields[3] != "0A" || !strings.HasSuffix(fields[1], want) {
			continue
		}
		out[fields[9]] = true
	}
	return sc.Err()
}
