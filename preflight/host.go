package preflight

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/sglaunch/sglaunch/catalog"
	"github.com/sglaunch/sglaunch/internal/proc"
	"github.com/sglaunch/sglaunch/plan"
)

// modelFlags are the flags that name a model SGLang loads.
var modelFlags = []string{"--model-path", "--speculative-draft-model-path"}

// lastValue returns the value argparse keeps for a flag: the last one.
func lastValue(uses []catalog.Use, canonical string) (string, bool) {
	val, ok := "", false
	for _, u := range uses {
		if u.Canonical == canonical && u.Flag != nil && len(u.Values) > 0 {
			val, ok = u.Values[len(u.Values)-1], true
		}
	}
	return val, ok
}

// checkModels checks that a local model path exists and holds a
// config.json. A Hugging Face hub id (org/name, not a local path) is left
// to SGLang to download.
func checkModels(plan *plan.Plan, uses []catalog.Use, items []envItem, o *Options) []Finding {
	where := argWhere(plan, uses)
	var out []Finding
	for _, flag := range modelFlags {
		val, ok := lastValue(uses, flag)
		if !ok {
			continue
		}
		w := ""
		for i, u := range uses {
			if u.Canonical == flag {
				w = where[i]
			}
		}
		s := subject{CheckModel, flag, w}
		out = append(out, checkModelPath(s, val, envMap(items), o))
	}
	return out
}

func checkModelPath(s subject, val string, env map[string]string, o *Options) Finding {
	if strings.HasPrefix(val, "~") {
		return s.fail(fmt.Sprintf("%s starts with ~, which SGLang does not expand (only a shell does)", val), "write the full path")
	}
	path := resolvePath(val, o)
	st, err := os.Stat(path)
	local := filepath.IsAbs(val) || strings.HasPrefix(val, ".") || strings.Count(val, "/") > 1
	switch {
	case errors.Is(err, fs.ErrNotExist) && !local:
		if v := env["HF_HUB_OFFLINE"]; v == "1" || strings.EqualFold(v, "true") {
			return s.warn(fmt.Sprintf("%s is a hub id and HF_HUB_OFFLINE is set: it loads only if it is already in the Hugging Face cache", val), "download it first, or point at a local copy")
		}
		return s.pass(fmt.Sprintf("%s is a Hugging Face hub id, not a local path: SGLang downloads it (not checked here)", val))
	case errors.Is(err, fs.ErrNotExist):
		return s.fail(fmt.Sprintf("%s does not exist on this host: SGLang would fail after its imports, before loading anything", path),
			"copy or mount the model there, or point "+s.name+" at where it is")
	case err != nil:
		return s.fail(fmt.Sprintf("cannot read %s: %v", path, unwrapPathErr(err)), "make it readable by the user the server runs as")
	case !st.IsDir():
		if strings.HasSuffix(path, ".gguf") {
			return s.pass("GGUF file " + path)
		}
		return s.fail(fmt.Sprintf("%s is a file, not a model directory", path), "point "+s.name+" at the directory that holds config.json")
	}
	if _, err := os.Stat(filepath.Join(path, "config.json")); err != nil {
		fix := "point " + s.name + " at the directory that holds config.json"
		if sub := findConfigBelow(path); sub != "" {
			fix = "did you mean " + sub + "? It holds a config.json"
		}
		return s.fail(fmt.Sprintf("%s holds no config.json, so it is not a model directory SGLang can load", path), fix)
	}
	return s.pass("model directory with config.json: " + path)
}

// findConfigBelow looks one level down, and in a hub cache's snapshots,
// for the directory the user probably meant.
func findConfigBelow(dir string) string {
	for _, pattern := range []string{"*/config.json", "snapshots/*/config.json"} {
		m, _ := filepath.Glob(filepath.Join(dir, pattern))
		if len(m) == 1 {
			return filepath.Dir(m[0])
		}
	}
	return ""
}

// checkPort binds the server's address for a moment: a port another
// process listens on would make the server fail only after the load.
func checkPort(ctx context.Context, plan *plan.Plan) []Finding {
	host, port := plan.Host(), plan.Port()
	addr := net.JoinHostPort(host, strconv.Itoa(port))
	s := subject{CheckPort, addr, ""}
	if w, ok := plan.Provenance["args.port"]; ok {
		s.where = "args.port (" + w + ")"
	}
	c := proc.CheckPort(ctx, addr)
	switch c.State {
	case proc.PortFree:
		return []Finding{s.pass("free")}
	case proc.PortInUse:
		who := ""
		if h := c.Holder.String(); h != "" {
			who = " by " + h
		}
		return []Finding{s.fail(fmt.Sprintf("port %d is in use%s: the server would load the model and then fail to bind", port, who),
			"stop what listens there, or choose another port (--set args.port=N)")}
	case proc.PortNotLocal:
		return []Finding{s.fail(fmt.Sprintf("%s is not an address of this host", host), "bind 127.0.0.1, 0.0.0.0 or one of this host's addresses")}
	case proc.PortDenied:
		return []Finding{s.fail(fmt.Sprintf("binding port %d needs privileges this user lacks", port), "use a port above 1023")}
	}
	return []Finding{s.fail(fmt.Sprintf("cannot bind %s: %v", addr, c.Err), "check --host and --port")}
}
