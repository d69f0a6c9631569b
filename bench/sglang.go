package bench

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/sglaunch/sglaunch/internal/hostprobe"
	"github.com/sglaunch/sglaunch/internal/sglangapi"
	"github.com/sglaunch/sglaunch/plan"
)

// versionTimeout bounds the interpreter's start.
const versionTimeout = 30 * time.Second

// SGLangVersion asks the plan's interpreter, run with the plan's
// environment (so PYTHONPATH and the venv apply), which sglang it would
// import, from the package metadata: sglang is never imported (that would
// initialise CUDA and take seconds). It is hostprobe's Python probe, the
// one preflight runs, so probes (nil: none) answers it when preflight ran
// earlier in the same command. An empty version with a nil error means
// sglang is not installed there.
func SGLangVersion(ctx context.Context, probes *hostprobe.Memo, plan *plan.Plan) (string, error) {
	p := probes.Python(ctx, hostprobe.PythonSpec{Python: plan.Python, Environ: plan.Environ, Module: plan.Module, Timeout: versionTimeout})
	if p.Err != nil {
		msg := strings.TrimSpace(string(p.Run.Stderr))
		if i := strings.LastIndexByte(msg, '\n'); i >= 0 {
			msg = msg[i+1:]
		}
		if msg != "" {
			return "", fmt.Errorf("sglang version from %s: %v: %s", plan.Python, p.Err, msg)
		}
		return "", fmt.Errorf("sglang version from %s: %w", plan.Python, p.Err)
	}
	if p.Facts.SGLangVersion == "" && p.Facts.Error != "" {
		// Not "not installed": the interpreter could not tell.
		return "", fmt.Errorf("sglang version from %s: %s", plan.Python, p.Facts.Error)
	}
	return p.Facts.SGLangVersion, nil
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
