package bench

import (
	"net"
	"net/url"
	"strconv"
)

// hostPort splits a base URL's host and port (80 or 443 by scheme when
// the URL gives none).
func hostPort(base string) (string, int) {
	u, err := url.Parse(base)
	if err != nil {
		return "", 0
	}
	host, port, err := net.SplitHostPort(u.Host)
	if err != nil {
		host = u.Host
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	n, _ := strconv.Atoi(port)
	return host, n
}
