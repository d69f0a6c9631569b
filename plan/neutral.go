package plan

import (
	"sync"

	"github.com/sglaunch/sglaunch/catalog"
)

// PerfNeutralFlags are SGLang flags that do not change how fast the server
// runs: where it listens, how it names, parses and logs. They are left out
// of the fingerprint, so serve (which adds a host and parsers) and bench
// of one profile share it, and verify groups them apart from the
// perf-relevant settings. Canonical names.
var PerfNeutralFlags = []string{
	"--host", "--port", "--nccl-port", "--grpc-port",
	"--api-key", "--admin-api-key",
	"--served-model-name", "--tool-call-parser", "--reasoning-parser",
	"--chat-template", "--hf-chat-template-name", "--completion-template",
	"--log-level", "--log-level-http", "--log-requests", "--log-requests-level",
	"--log-requests-format", "--log-requests-target", "--decode-log-interval",
	"--uvicorn-access-log-exclude-prefixes", "--crash-dump-folder", "--file-storage-path",
	"--ssl-keyfile", "--ssl-certfile", "--ssl-ca-certs", "--ssl-keyfile-password", "--enable-ssl-refresh",
	"--watchdog-timeout", "--soft-watchdog-timeout", "--dist-timeout",
	// A rank's place in a multi-node group, derived per rank (MultiNode).
	FlagNNodes, FlagNodeRank, FlagDistInitAddr,
}

// IsPerfNeutral reports whether a flag (canonical name) is perf-neutral.
func IsPerfNeutral(canonical string) bool {
	for _, f := range PerfNeutralFlags {
		if f == canonical {
			return true
		}
	}
	return false
}

var sglangArgs = sync.OnceValue(catalog.SGLangArgs)

// CanonicalFlag returns the canonical SGLang name of a flag written
// without dashes (tp → --tp-size), or --NAME when the catalog does not
// know it.
func CanonicalFlag(name string) string {
	if f, _, err := sglangArgs().Resolve("--" + name); err == nil {
		return sglangArgs().Setting(f).Name
	}
	return "--" + name
}
