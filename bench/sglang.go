package bench

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/sglaunch/sglaunch/internal/sglangapi"
)

// versionProbe asks the package metadata, which never imports sglang (an
// import would initialise CUDA and take seconds).
const versionProbe = `import importlib.metadata as m
try:
    print(m.version("sglang"))
except m.PackageNotFoundError:
    print("")
`

// versionTimeout bounds the interpreter's start.
const versionTimeout = 30 * time.Second

// SGLangVersion asks python, run with environ (the plan's environment,
// so PYTHONPATH and the venv apply), which sglang it would import. An
// empty version with a nil error means sglang is not installed there.
func SGLangVersion(ctx context.Context, python string, environ []string) (string, error) {
	out, msg, err := probe(ctx, versionTimeout, environ, python, "-c", versionProbe)
	if err != nil {
		if i := strings.LastIndexByte(msg, '\n'); i >= 0 {
			msg = msg[i+1:]
		}
		if msg != "" {
			return "", fmt.Errorf("sglang version from %s: %v: %s", python, err, msg)
		}
		return "", fmt.Errorf("sglang version from %s: %w", python, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// ServerVersion asks a running server its version (/server_info, or
// /get_server_info on older SGLang), for a server sglaunch did not start;
// it returns the version and how it was learnt, or "" and why not.
func ServerVersion(ctx context.Context, baseURL, apiKey string) (string, string) {
	c := sglangapi.New(baseURL, sglangapi.Options{APIKey: apiKey, InfoTimeout: 10 * time.Second})
	defer c.Close()
	info, path, err := c.ServerInfo(ctx)
	if err != nil {
		return "", "unknown: " + err.Error()
	}
	v, _ := info["version"].(string)
	if v == "" {
		return "", "unknown: " + path + " has no version"
	}
	return v, path
}
