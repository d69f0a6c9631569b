package preflight

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"

	"github.com/sglaunch/sglaunch/catalog"
)

var reCUnsigned = regexp.MustCompile(`^(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)$`)

// checkSocketMagic: strtoull base 0 over the whole string, or NCCL logs
// it and uses its built-in magic. Every rank must agree.
func checkSocketMagic(c *verdicts, v *catalog.EnvVar, value string, _ map[string]string, _ *Options) {
	if !reCUnsigned.MatchString(value) {
		c.warn(fmt.Sprintf("%s is not an unsigned integer (decimal, 0x hex or 0 octal): NCCL logs 'NCCL_SOCKET_MAGIC invalid value' and uses its built-in magic", strconv.Quote(value)), "write a plain integer, the same on every rank")
		return
	}
	base := 10
	switch {
	case strings.HasPrefix(strings.ToLower(value), "0x"):
		base = 16
		value = value[2:]
	case len(value) > 1 && value[0] == '0':
		base = 8
	}
	if _, err := strconv.ParseUint(value, base, 64); err != nil {
		c.warn("out of range for a 64-bit unsigned integer: NCCL uses its built-in magic", "write a smaller number")
		return
	}
	c.pass("valid; every rank must use the same value")
}

// checkHostPort: <host>:<port> or [<ipv6>]:<port>. A bad NCCL_COMM_ID
// fails init; a bad NCCL_RAS_ADDR silently leaves RAS without a socket.
func checkHostPort(c *verdicts, v *catalog.EnvVar, value string, _ map[string]string, _ *Options) {
	host, port, err := net.SplitHostPort(value)
	n, perr := strconv.Atoi(port)
	if err == nil && (perr != nil || n < 1 || n > 65535) {
		err = fmt.Errorf("port %s is not in 1-65535", strconv.Quote(port))
	}
	if err == nil && host == "" {
		err = fmt.Errorf("no host")
	}
	if err == nil {
		c.pass("valid address")
		return
	}
	reason := fmt.Sprintf("%s is not <host>:<port> or [<ipv6>]:<port>: %v", strconv.Quote(value), err)
	if v.Name == "NCCL_COMM_ID" {
		c.fail(reason+"; NCCL fails with 'Invalid NCCL_COMM_ID'", "write it like 10.0.0.1:29500")
		return
	}
	c.warn(reason+"; NCCL silently runs RAS without its client socket", "write it like localhost:28028")
}

// interfaces lists the host's network interfaces (a seam for tests).
var interfaces = func() ([]string, error) {
	ifs, err := net.Interfaces()
	var names []string
	for _, i := range ifs {
		names = append(names, i.Name)
	}
	return names, err
}

// checkSocketIfname: comma-separated name prefixes, "^" excludes, "="
// makes them exact; a value of one character is ignored. No matching
// interface fails the bootstrap.
func checkSocketIfname(c *verdicts, v *catalog.EnvVar, value string, _ map[string]string, _ *Options) {
	if len(value) <= 1 {
		c.fail(fmt.Sprintf("%s is too short: NCCL ignores values of one character", strconv.Quote(value)), "give an interface name or prefix, like eth0 or ^docker")
		return
	}
	body := value
	exclude := strings.HasPrefix(body, "^")
	body = strings.TrimPrefix(body, "^")
	exact := strings.HasPrefix(body, "=")
	body = strings.TrimPrefix(body, "=")
	if strings.ContainsAny(body, `"' `) {
		c.fail(fmt.Sprintf("%s holds quotes or spaces, which NCCL takes as part of the name", strconv.Quote(value)), "remove them")
		return
	}
	names, err := interfaces()
	if err != nil {
		c.pass("interfaces of this host not listed: " + err.Error())
		return
	}
	var matched []string
	for _, n := range names {
		for _, want := range strings.Split(body, ",") {
			if want != "" && (n == want || !exact && strings.HasPrefix(n, want)) {
				matched = append(matched, n)
				break
			}
		}
	}
	switch {
	case !exclude && len(matched) == 0:
		c.fail(fmt.Sprintf("no interface of this host matches %s (it has %s): NCCL's bootstrap fails with 'no socket interface found'", strconv.Quote(value), strings.Join(names, ", ")),
			"name an interface this host has, e.g. "+firstNonLoopback(names))
	case exclude && len(matched) == len(names):
		c.fail(fmt.Sprintf("%s excludes every interface of this host: NCCL's bootstrap fails with 'no socket interface found'", strconv.Quote(value)), "exclude fewer interfaces")
	case exclude:
		c.pass("excludes " + strings.Join(matched, ", "))
	default:
		c.pass("matches " + strings.Join(matched, ", "))
	}
}

func firstNonLoopback(names []string) string {
	for _, n := range names {
		if n != "lo" {
			return n
		}
	}
	return "lo"
}

// resolvePath makes a path relative to the server's working directory
// absolute.
func resolvePath(p string, o *Options) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(o.dir(), p)
}

// checkInputFile: a file NCCL reads. A missing graph file fails init; a
// missing topology or config file is skipped, the config file silently.
func checkInputFile(c *verdicts, v *catalog.EnvVar, value string, _ map[string]string, o *Options) {
	if strings.HasPrefix(value, "~") {
		c.fail(fmt.Sprintf("%s starts with ~, which NCCL does not expand", strconv.Quote(value)), "write the full path")
		return
	}
	f, err := os.Open(resolvePath(value, o))
	if err == nil {
		f.Close()
		c.pass("readable file")
		return
	}
	reason := fmt.Sprintf("cannot read %s: %v", value, unwrapPathErr(err))
	switch v.Name {
	case "NCCL_GRAPH_FILE":
		c.fail(reason+"; NCCL init fails (ncclSystemError)", "point it at an existing graph XML file, or remove it")
	case "NCCL_TOPO_FILE":
		c.warn(reason+"; NCCL logs 'Could not open XML topology file' and detects the topology itself", "point it at an existing topology XML file, or remove it")
	default:
		c.fail(reason+"; NCCL silently skips it, so none of its settings apply", "point it at an existing file, or remove it")
	}
}

// checkOutputFile: a file NCCL writes; its directory must exist.
func checkOutputFile(c *verdicts, v *catalog.EnvVar, value string, _ map[string]string, o *Options) {
	dir := filepath.Dir(resolvePath(value, o))
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		c.warn(fmt.Sprintf("directory %s does not exist: NCCL cannot create the file and silently keeps writing to stdout", dir), "create the directory, or point it elsewhere")
		return
	}
	c.pass("directory exists")
}

func unwrapPathErr(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// checkCPUSet: comma-separated CPU numbers (decimal or 0x); a range or
// any other token silently becomes CPU 0.
func checkCPUSet(c *verdicts, v *catalog.EnvVar, value string, _ map[string]string, _ *Options) {
	for _, tok := range strings.Split(value, ",") {
		r := strtoll(strings.TrimSpace(tok))
		switch {
		case strings.Contains(tok, "-") && !r.none():
			c.fail(fmt.Sprintf("%s is a range, which NCCL does not support: it reads CPU %d", strconv.Quote(tok), r.n), "list every CPU: 0,1,2,3")
			return
		case r.none() || r.rest != "":
			c.fail(fmt.Sprintf("%s is not a CPU number: NCCL silently uses CPU 0", strconv.Quote(tok)), "list CPU numbers separated by commas")
			return
		case r.n >= int64(runtime.NumCPU()):
			c.warn(fmt.Sprintf("CPU %d does not exist on this host (%d CPUs)", r.n, runtime.NumCPU()), "list CPUs this host has")
			return
		}
	}
	c.pass("valid CPU list")
}

// checkThresholds: up to six integers separated by spaces; sscanf stops
// at the first non-number.
func checkThresholds(c *verdicts, v *catalog.EnvVar, value string, _ map[string]string, _ *Options) {
	f := strings.Fields(value)
	for i, tok := range f {
		if _, err := strconv.ParseInt(tok, 10, 64); err != nil {
			c.warn(fmt.Sprintf("%s is not an integer: NCCL stops reading there, so thresholds %d and on keep their defaults", strconv.Quote(tok), i+1), "write up to six integers separated by spaces")
			return
		}
	}
	if len(f) > 6 {
		c.warn(fmt.Sprintf("%d values: NCCL reads only the first six", len(f)), "write at most six integers")
		return
	}
	c.pass("valid thresholds")
}

// checkNoCache: full NCCL variable names, or ALL; unknown names are never
// matched.
func checkNoCache(c *verdicts, v *catalog.EnvVar, value string, _ map[string]string, _ *Options) {
	names := catalog.NCCLEnv().Names()
	for _, tok := range strings.Split(value, ",") {
		t := strings.TrimSpace(tok)
		if t == "ALL" {
			continue
		}
		if _, ok := catalog.NCCLEnv().Lookup(t); !ok {
			fix := "list full variable names, like NCCL_PROTO, or ALL"
			if near := closestAfter("NCCL_", t, names); len(near) > 0 {
				fix = didYouMean(near)
			}
			c.warn(fmt.Sprintf("%s is not an NCCL variable: it never matches", strconv.Quote(t)), fix)
		}
	}
	c.pass("valid list")
}

// checkNetName: IB and Socket are built in; other names need a plugin.
func checkNetName(c *verdicts, v *catalog.EnvVar, value string, _ map[string]string, _ *Options) {
	if strings.EqualFold(value, "IB") || strings.EqualFold(value, "Socket") {
		c.pass("built-in network " + value)
		return
	}
	c.warn(fmt.Sprintf("%s is not a built-in network (IB, Socket): a net plugin must provide it, or init fails with 'Failed to initialize any NET plugin'", strconv.Quote(value)), "write IB or Socket unless a plugin provides this name")
}

// checkAddrRange: a CIDR; without '/' NCCL silently ignores it.
func checkAddrRange(c *verdicts, v *catalog.EnvVar, value string, _ map[string]string, _ *Options) {
	if !strings.Contains(value, "/") {
		c.fail(fmt.Sprintf("%s has no /prefix: NCCL silently ignores it", strconv.Quote(value)), "write a CIDR, like 10.0.0.0/16")
		return
	}
	if _, _, err := net.ParseCIDR(value); err != nil {
		c.warn(fmt.Sprintf("%s is not a valid CIDR: NCCL logs it and ignores it", strconv.Quote(value)), "write a CIDR, like 10.0.0.0/16")
		return
	}
	c.pass("valid CIDR")
}
