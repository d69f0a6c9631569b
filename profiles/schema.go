package profiles

import (
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"
)

// SettingType says how a scalar setting is validated.
type SettingType int

const (
	TString SettingType = iota
	TDuration
	TPositiveInt
	TEnum
	// TAddr is a listen address: HOST:PORT, :PORT or PORT (loopback), or
	// empty for off.
	TAddr
	// TPort is a TCP port, 1-65535.
	TPort
	// TOptString is a string that may be empty (off).
	TOptString
)

// Setting describes one scalar profile key.
type Setting struct {
	Key     string
	Type    SettingType
	Default string
	Enum    []string
	Doc     string
}

// Schema lists every scalar setting a profile may hold, in display order.
// health.* and stop_timeout are read by the supervisor; they sit here so
// that profiles, --set and the printed config validate them alike.
var Schema = []Setting{
	{Key: "python", Type: TString, Default: "python3", Doc: "interpreter; resolved to an absolute path"},
	{Key: "module", Type: TString, Default: "sglang.launch_server", Doc: "module run with python -m"},
	{Key: "stop_timeout", Type: TDuration, Default: "60s", Doc: "grace between the stop signal to the main process and SIGKILL to the tree; SGLang drains in 5 s polls, then gives its schedulers up to 15 s"},
	{Key: "health.start_timeout", Type: TDuration, Default: "30m", Doc: "budget for the whole load"},
	{Key: "health.stall_timeout", Type: TDuration, Default: "10m", Doc: "fail when the server prints nothing for this long while loading"},
	{Key: "health.poll_interval", Type: TDuration, Default: "500ms", Doc: "readiness probe interval"},
	{Key: "health.request_timeout", Type: TDuration, Default: "30s", Doc: "per-probe timeout; above SGLang's 20 s health generation"},
	{Key: "health.interval", Type: TDuration, Default: "10s", Doc: "liveness probe interval after ready; 0 turns liveness off"},
	{Key: "health.failure_threshold", Type: TPositiveInt, Default: "3", Doc: "consecutive liveness failures before acting"},
	{Key: "health.on_unhealthy", Type: TEnum, Default: "exit", Enum: []string{"exit", "log"}, Doc: "exit: stop the server and exit 1; log: only log"},
	{Key: "multinode.nodes", Type: TPositiveInt, Default: "1", Doc: "nodes (hosts) the server spans; above 1, sglaunch derives --nnodes, --node-rank and --dist-init-addr per rank"},
	{Key: "multinode.orchestrator", Type: TEnum, Default: "auto", Enum: []string{"auto", "slurm", "lws", "skypilot", "static"}, Doc: "where the rank and the leader come from: auto picks by environment (Slurm, LeaderWorkerSet, SkyPilot); static: the profile or --set gives --node-rank and --dist-init-addr"},
	{Key: "multinode.dist_init_port", Type: TPort, Default: "20000", Doc: "port on rank 0 for SGLang's --dist-init-addr (it also takes the ports just above it)"},
	{Key: "multinode.control_port", Type: TPort, Default: "19900", Doc: "port on rank 0 for sglaunch's own control channel (group preflight, readiness, heartbeats)"},
	{Key: "multinode.interface", Type: TOptString, Default: "", Doc: "network interface whose address rank 0 gives as --dist-init-addr and binds the control channel on; empty: the leader's name as the orchestrator gives it"},
	{Key: "multinode.secret_file", Type: TOptString, Default: "", Doc: "file holding the group's secret, which authenticates every control message (SGLAUNCH_GROUP_SECRET or SGLAUNCH_GROUP_SECRET_FILE, set by `sglaunch slurm` and `sglaunch lws`, come first); not readable by other users"},
	{Key: "multinode.insecure_channel", Type: TEnum, Default: "false", Enum: []string{"false", "true"}, Doc: "true: a rank without a group secret runs an unauthenticated control channel (anyone who reaches rank 0's control port can join or stop the group); false: it refuses to start"},
	{Key: "multinode.rendezvous_timeout", Type: TDuration, Default: "10m", Doc: "how long rank 0 waits for every rank to report, and a worker for rank 0"},
	{Key: "multinode.heartbeat.interval", Type: TDuration, Default: "1s", Doc: "heartbeat between every worker and rank 0"},
	{Key: "multinode.heartbeat.threshold", Type: TPositiveInt, Default: "3", Doc: "missed heartbeats before a rank counts as lost and the group stops"},
	{Key: "status_addr", Type: TAddr, Default: "", Doc: "sglaunch's status endpoint (/livez, /readyz, /status, /metrics): HOST:PORT, or PORT / :PORT for loopback; empty: off"},
}

// LookupSetting finds a setting by dotted key.
func LookupSetting(key string) (Setting, bool) {
	for _, s := range Schema {
		if s.Key == key {
			return s, true
		}
	}
	return Setting{}, false
}

// settingKeys returns the keys under prefix ("health.") without it, and
// the names of the sections nested under it ("heartbeat" of
// "multinode."), each once, in schema order.
func settingKeys(prefix string) []string {
	var keys []string
	for _, s := range Schema {
		rest, ok := strings.CutPrefix(s.Key, prefix)
		if !ok {
			continue
		}
		rest, _, _ = strings.Cut(rest, ".")
		if !slices.Contains(keys, rest) {
			keys = append(keys, rest)
		}
	}
	return keys
}

// isSection reports whether key ("multinode.heartbeat") names a section
// of settings rather than one setting.
func isSection(key string) bool {
	for _, s := range Schema {
		if strings.HasPrefix(s.Key, key+".") {
			return true
		}
	}
	return false
}

// Check validates text against the setting's type and says what would be right.
func (s Setting) Check(text string) error {
	switch s.Type {
	case TString:
		if text == "" {
			return fmt.Errorf("want a non-empty string")
		}
	case TDuration:
		d, err := time.ParseDuration(text)
		if err != nil || d < 0 {
			return fmt.Errorf("want a duration like 30s, 10m or 1h30m, got %q", text)
		}
	case TPositiveInt:
		n, err := strconv.Atoi(text)
		if err != nil || n < 1 {
			return fmt.Errorf("want a whole number of at least 1, got %q", text)
		}
	case TEnum:
		for _, e := range s.Enum {
			if text == e {
				return nil
			}
		}
		return fmt.Errorf("want one of %s, got %q", strings.Join(s.Enum, ", "), text)
	case TAddr:
		if _, err := ListenAddr(text); err != nil {
			return err
		}
	case TPort:
		n, err := strconv.Atoi(text)
		if err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("want a TCP port from 1 to 65535, got %q", text)
		}
	case TOptString:
	}
	return nil
}

// ListenAddr reads a TAddr setting: "" stays "" (off), a bare port or
// ":PORT" means loopback (127.0.0.1:PORT), HOST:PORT is kept; port 0
// picks a free port.
func ListenAddr(text string) (string, error) {
	if text == "" {
		return "", nil
	}
	addr := text
	if _, err := strconv.Atoi(text); err == nil {
		addr = ":" + text
	}
	host, port, err := net.SplitHostPort(addr)
	n, perr := strconv.Atoi(port)
	if err != nil || perr != nil || n < 0 || n > 65535 {
		return "", fmt.Errorf("want HOST:PORT, :PORT or PORT (loopback), like 127.0.0.1:9400, got %q", text)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port), nil
}

// Duration returns a validated duration setting's value.
func Duration(v Value) time.Duration {
	d, _ := time.ParseDuration(v.Text)
	return d
}
