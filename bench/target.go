package bench

import (
	"net"
	"net/url"
	"strconv"

	"github.com/sglaunch/sglaunch/internal/inputerr"
	"github.com/sglaunch/sglaunch/plan"
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

// CheckLocal refuses a plan bench cannot launch: bench starts a server
// on this host only, so a multi-node plan is served by every node and
// measured with --url.
func CheckLocal(p *plan.Plan) error {
	if n := p.MultiNode.Nodes; n > 1 {
		return inputerr.Errorf("profile %s spans %d nodes (multinode.nodes) and bench starts a server on this host only; serve the group on every node (sglaunch slurm, sglaunch lws) and measure it here with: sglaunch bench --profile %s --url http://RANK0:PORT", p.Profile, n, p.Profile)
	}
	return nil
}

// CheckURL refuses a --url that is not a server's base URL.
func CheckURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") {
		return inputerr.Errorf("--url %q: want the server's base URL, like http://127.0.0.1:30000", raw)
	}
	return nil
}
