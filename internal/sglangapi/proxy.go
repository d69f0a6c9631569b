package sglangapi

import (
	"net"
	"net/http"
	"net/url"
	"strings"
)

// envProxy is the environment's proxy policy; tests replace it, since
// net/http reads the variables once per process.
var envProxy = http.ProxyFromEnvironment

// proxyFor sends requests to a loopback server directly and leaves every
// other host to the environment's proxy variables (HTTP_PROXY,
// HTTPS_PROXY, NO_PROXY). A proxy in front of the local server would
// measure, or break, the proxy rather than the server.
func proxyFor(req *http.Request) (*url.URL, error) {
	if IsLoopback(req.URL.Hostname()) {
		return nil, nil
	}
	return envProxy(req)
}

// IsLoopback reports whether host (a name or an address, without port or
// brackets) is this machine: 127.0.0.0/8, ::1, localhost and names under
// .localhost, and the unspecified addresses 0.0.0.0 and ::, which connect
// to this machine too.
func IsLoopback(host string) bool {
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && (ip.IsLoopback() || ip.IsUnspecified())
}

// hostOf is the host:port of a base URL, "" when it has none.
func hostOf(base string) string {
	u, err := url.Parse(base)
	if err != nil {
		return ""
	}
	return u.Host
}
