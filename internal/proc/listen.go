package proc

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ListeningPID returns the pid of a process holding a TCP socket that
// listens on port (IPv4 or IPv6). It returns 0 and no error when nobody
// listens; a socket owned by a process we may not inspect is not found.
func ListeningPID(port int) (int, error) {
	inodes := map[string]bool{}
	for _, f := range []string{"net/tcp", "net/tcp6"} {
		if err := listeningInodes(filepath.Join(Root, f), port, inodes); err != nil && !os.IsNotExist(err) {
			return 0, err
		}
	}
	if len(inodes) == 0 {
		return 0, nil
	}
	all, err := All()
	if err != nil {
		return 0, err
	}
	best := 0
	for pid := range all {
		fds, err := os.ReadDir(filepath.Join(Root, strconv.Itoa(pid), "fd"))
		if err != nil {
			continue
		}
		for _, fd := range fds {
			link, err := os.Readlink(filepath.Join(Root, strconv.Itoa(pid), "fd", fd.Name()))
			if err != nil || !strings.HasPrefix(link, "socket:[") {
				continue
			}
			if inodes[strings.TrimSuffix(strings.TrimPrefix(link, "socket:["), "]")] && (best == 0 || pid < best) {
				best = pid // a forked worker may share the socket; the lowest pid is the listener's parent
			}
		}
	}
	return best, nil
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
