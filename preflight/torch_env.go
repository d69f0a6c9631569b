package preflight

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/sglaunch/sglaunch/catalog"
)

// torchSpecial are the variables of other-env.tsv with a check of their own.
var torchSpecial = map[string]envCheck{
	"CUDA_VISIBLE_DEVICES":             checkVisibleDevices,
	"CUDA_DEVICE_MAX_CONNECTIONS":      checkMaxConnections,
	"CUDA_LAUNCH_BLOCKING":             checkLaunchBlocking,
	"TORCH_NCCL_ASYNC_ERROR_HANDLING":  checkTorchInt,
	"TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC": checkTorchInt,
	"TORCH_NCCL_TRACE_BUFFER_SIZE":     checkTorchInt,
	"PYTORCH_CUDA_ALLOC_CONF":          checkAllocConf,
	"GLOO_SOCKET_IFNAME":               checkGlooIfname,
	"VLLM_NCCL_SO_PATH":                checkLibPath,
}

// checkTorchEnv checks the CUDA, PyTorch, OpenMP and vLLM variables of
// other-env.tsv (NCCL_CUMEM_ENABLE is NCCL's, checked there), and warns
// about likely typos of TORCH_NCCL_* names.
func checkTorchEnv(items []envItem, o *Options) []Finding {
	cat := catalog.OtherEnv()
	env := envMap(items)
	var out []Finding
	for _, it := range items {
		if strings.HasPrefix(it.name, "NCCL_") {
			continue
		}
		s := subject{CheckTorch, it.name, it.where}
		v, ok := cat.Lookup(it.name)
		if !ok {
			// PYTORCH_ALLOC_CONF is the newer name of PYTORCH_CUDA_ALLOC_CONF.
			if a, isAlias := cat.LookupAlias(it.name); isAlias && !strings.HasPrefix(it.name, "NCCL_") {
				v = a
			} else {
				if f, typo := torchTypo(s, it.name); typo {
					out = append(out, f)
				}
				continue
			}
		}
		c := &verdicts{subject: s}
		switch check := torchSpecial[v.Name]; {
		case check != nil:
			check(c, v, it.value, env, o)
		case v.Type == "bool" && strings.HasPrefix(v.Component, "PyTorch c10d"):
			checkCvarBool(c, v, it.value, env)
		case len(v.Tokens) > 0:
			if slices.Contains(v.Tokens, it.value) {
				c.pass("valid: " + it.value)
			} else {
				fix := useOneOf(v.Tokens)
				if m := matchFold(it.value, v.Tokens); m != "" {
					fix = "write " + it.name + "=" + m
				}
				c.fail(fmt.Sprintf("%s is not one of %s: %s rejects it or ignores it", strconv.Quote(it.value), orList(v.Tokens), v.Component), fix)
			}
		case v.Closed:
			if n, err := strconv.ParseInt(strings.TrimSpace(it.value), 10, 64); err == nil && containsInt(v.Ints, n) {
				c.pass("valid")
			} else {
				c.warn(fmt.Sprintf("%s is not a documented value (%s)", strconv.Quote(it.value), v.Valid), useOneOf(intStrings(v.Ints)))
			}
		case v.Type == "int":
			n, err := strconv.ParseInt(strings.TrimSpace(it.value), 10, 64)
			switch {
			case err != nil:
				c.warn(fmt.Sprintf("%s is not an integer", strconv.Quote(it.value)), "write a plain integer")
			case v.Range != (catalog.IntRange{}) && !v.Range.Contains(n):
				c.warn(fmt.Sprintf("%d is outside the valid range %s", n, v.Range), "use a value in "+v.Range.String())
			default:
				c.pass("valid")
			}
		default:
			c.pass("valid")
		}
		if strings.Contains(v.Notes, "this environment variable is thus deprecated") {
			c.warn("deprecated: in recent PyTorch this is the default behaviour, and setting it only prints a deprecation warning", "remove it")
		}
		out = append(out, c.findings()...)
	}
	return out
}

// torchTypo warns about a TORCH_NCCL_*/TORCH_*/CUDA_* name one or two
// edits from a catalogued one. The catalog is not exhaustive, so other
// unknown names pass unremarked.
func torchTypo(s subject, name string) (Finding, bool) {
	if !strings.HasPrefix(name, "TORCH_") && !strings.HasPrefix(name, "CUDA_") && !strings.HasPrefix(name, "PYTORCH_") {
		return Finding{}, false
	}
	prefix := name[:strings.Index(name, "_")+1]
	for _, n := range closestAfter(prefix, name, catalog.OtherEnv().Names()) {
		if catalog.Distance(name, n) <= 2 {
			return s.warn("not a variable the catalog knows, and one or two letters from "+n+": a typo is ignored silently", didYouMean([]string{n})), true
		}
	}
	return Finding{}, false
}

var cvarBools = []string{"y", "yes", "1", "t", "true", "n", "no", "0", "f", "false"}

// checkCvarBool: PyTorch's getCvarBool accepts y/yes/1/t/true and
// n/no/0/f/false in any case; anything else is a hard error when the
// process group is created, after the model load has begun.
func checkCvarBool(c *verdicts, v *catalog.EnvVar, value string, env map[string]string) {
	if !slices.Contains(cvarBools, strings.ToLower(value)) {
		c.fail(fmt.Sprintf("%s is not a bool PyTorch reads (y/yes/1/t/true or n/no/0/f/false): it raises 'Invalid value for environment variable' when the process group is created", strconv.Quote(value)),
			fmt.Sprintf("write %s=1 or %s=0", v.Name, v.Name))
		return
	}
	c.pass("valid")
	on := slices.Contains(cvarBools[:5], strings.ToLower(value))
	if v.Name == "TORCH_NCCL_DUMP_ON_TIMEOUT" && on {
		if n, err := strconv.Atoi(env["TORCH_NCCL_TRACE_BUFFER_SIZE"]); err == nil && n == 0 {
			c.warn("TORCH_NCCL_TRACE_BUFFER_SIZE=0 turns the flight recorder off, so there is nothing to dump", "set TORCH_NCCL_TRACE_BUFFER_SIZE above 0 (e.g. 2000)")
		}
	}
}

// checkTorchInt: std::stoi reads a leading integer; no digits at all is
// a hard error at process-group creation, trailing junk is dropped.
func checkTorchInt(c *verdicts, v *catalog.EnvVar, value string, _ map[string]string, _ *Options) {
	r := strtoll(value)
	if r.none() || r.base == 16 {
		c.fail(fmt.Sprintf("%s is not an integer: PyTorch (std::stoi) raises 'Invalid value for environment variable' when the process group is created", strconv.Quote(value)), "write a plain integer")
		return
	}
	if r.rest != "" {
		c.warn(fmt.Sprintf("%s has trailing characters: PyTorch reads %d", strconv.Quote(value), r.n), fmt.Sprintf("write %s=%d", v.Name, r.n))
		return
	}
	if v.Closed && !containsInt(v.Ints, r.n) {
		c.warn(fmt.Sprintf("%d is not one of PyTorch's values (%s)", r.n, v.Valid), useOneOf(intStrings(v.Ints)))
		return
	}
	if v.Range != (catalog.IntRange{}) && !v.Range.Contains(r.n) {
		c.warn(fmt.Sprintf("%d is outside %s", r.n, v.Range), "use a value in "+v.Range.String())
		return
	}
	c.pass("valid")
}

var (
	reGPUUUID = regexp.MustCompile(`^GPU-[0-9a-fA-F-]+$`)
	reMIG     = regexp.MustCompile(`^MIG-[0-9A-Za-z/-]+$`)
)

// visibleTokens reads CUDA_VISIBLE_DEVICES as CUDA does: the list stops at
// the first entry that is not an index, a GPU UUID (prefix) or a MIG id.
func visibleTokens(value string) (kept []string, stop string) {
	if value == "" {
		return nil, ""
	}
	for _, tok := range strings.Split(value, ",") {
		_, err := strconv.ParseUint(tok, 10, 32)
		if err != nil && !reGPUUUID.MatchString(tok) && !reMIG.MatchString(tok) {
			return kept, tok
		}
		kept = append(kept, tok)
	}
	return kept, ""
}

func checkVisibleDevices(c *verdicts, v *catalog.EnvVar, value string, _ map[string]string, _ *Options) {
	kept, stop := visibleTokens(value)
	switch {
	case value == "":
		c.warn("empty: CUDA shows no GPU at all", "list the GPU indices to use, or remove it to see every GPU")
	case stop != "" && len(kept) == 0:
		c.warn(fmt.Sprintf("%s hides every GPU (CUDA stops reading at %s)", strconv.Quote(value), strconv.Quote(stop)), "list the GPU indices to use, like 0,1,2,3")
	case stop != "":
		c.fail(fmt.Sprintf("CUDA stops reading at %s, so only %s are visible", strconv.Quote(stop), strings.Join(kept, ",")),
			"write comma-separated GPU indices or UUIDs, with no spaces")
	default:
		seen := map[string]bool{}
		for _, k := range kept {
			if seen[k] {
				c.fail(fmt.Sprintf("GPU %s is listed twice: CUDA fails to initialise with a repeated device", k), "list each GPU once")
				return
			}
			seen[k] = true
		}
		c.pass(fmt.Sprintf("%d GPU(s) visible: %s", len(kept), value))
	}
}

// checkMaxConnections: SGLang sets CUDA_DEVICE_MAX_CONNECTIONS=8 itself
// at start-up, whatever the environment says.
func checkMaxConnections(c *verdicts, v *catalog.EnvVar, value string, _ map[string]string, _ *Options) {
	if strings.TrimSpace(value) == "8" {
		c.pass("8, what SGLang sets anyway")
		return
	}
	c.warn(fmt.Sprintf("SGLang sets CUDA_DEVICE_MAX_CONNECTIONS=8 at start-up, so %s has no effect", strconv.Quote(value)), "remove it")
}

// checkLaunchBlocking: any value but 0 makes every kernel launch
// synchronous, in CUDA and in NCCL.
func checkLaunchBlocking(c *verdicts, v *catalog.EnvVar, value string, _ map[string]string, _ *Options) {
	if value == "0" || value == "" {
		c.pass("launches stay asynchronous")
		return
	}
	c.warn("makes every kernel launch synchronous (CUDA and NCCL alike): a large serving slowdown, for debugging only", "remove it")
}

// checkAllocConf: comma-separated key:value pairs. An unknown key raises
// 'Unrecognized CachingAllocator option' at the first CUDA allocation.
func checkAllocConf(c *verdicts, v *catalog.EnvVar, value string, _ map[string]string, _ *Options) {
	if v.Name != "PYTORCH_CUDA_ALLOC_CONF" {
		v, _ = catalog.OtherEnv().Lookup("PYTORCH_CUDA_ALLOC_CONF")
	}
	var keys []string
	for _, k := range v.Keys {
		keys = append(keys, k.Key)
	}
	for _, pair := range strings.Split(value, ",") {
		if strings.TrimSpace(pair) == "" {
			continue
		}
		key, val, ok := strings.Cut(pair, ":")
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		if !ok {
			c.fail(fmt.Sprintf("%s is not key:value", strconv.Quote(pair)), "write pairs like expandable_segments:True")
			continue
		}
		if !slices.Contains(keys, key) {
			if near := closest(key, keys); len(near) > 0 {
				c.fail(fmt.Sprintf("unknown key %s: PyTorch raises 'Unrecognized CachingAllocator option' at the first CUDA allocation", strconv.Quote(key)), didYouMean(near))
			} else {
				c.warn(fmt.Sprintf("key %s is not one the catalog knows: older PyTorch rejects unknown keys at the first CUDA allocation", strconv.Quote(key)), "check it against this PyTorch's documentation")
			}
			continue
		}
		if msg := allocValueError(key, val); msg != "" {
			c.fail(fmt.Sprintf("%s:%s: %s", key, val, msg), "see PYTORCH_CUDA_ALLOC_CONF in other-env.tsv for the values each key takes")
		}
	}
	c.pass("valid allocator options")
}

// allocValueError checks one allocator option's value.
func allocValueError(key, val string) string {
	switch key {
	case "expandable_segments", "pinned_use_cuda_host_register", "release_lock_on_cudamalloc":
		if val != "True" && val != "False" {
			return "must be exactly True or False"
		}
	case "backend":
		if val != "native" && val != "cudaMallocAsync" {
			return "must be native or cudaMallocAsync"
		}
	case "max_split_size_mb", "pinned_num_register_threads":
		if n, err := strconv.Atoi(val); err != nil || n <= 0 {
			return "must be a positive integer"
		}
	case "garbage_collection_threshold":
		if f, err := strconv.ParseFloat(val, 64); err != nil || f <= 0 || f >= 1 {
			return "must be a number strictly between 0 and 1"
		}
	case "roundup_power2_divisions":
		if _, err := strconv.Atoi(val); err != nil && !strings.HasPrefix(val, "[") {
			return "must be an integer or a [..] list"
		}
	}
	return ""
}

// checkGlooIfname: exact interface names, each of which must exist.
func checkGlooIfname(c *verdicts, v *catalog.EnvVar, value string, _ map[string]string, _ *Options) {
	names, err := interfaces()
	if err != nil {
		c.pass("interfaces of this host not listed: " + err.Error())
		return
	}
	for _, n := range strings.Split(value, ",") {
		if !slices.Contains(names, n) {
			c.fail(fmt.Sprintf("this host has no interface %s (it has %s): Gloo fails to create its process group", strconv.Quote(n), strings.Join(names, ", ")), "name an interface this host has, exactly")
			return
		}
	}
	c.pass("interfaces exist")
}

func checkLibPath(c *verdicts, v *catalog.EnvVar, value string, _ map[string]string, o *Options) {
	if _, err := os.Stat(resolvePath(value, o)); err != nil {
		c.warn(fmt.Sprintf("%s: %v", value, unwrapPathErr(err)), "point it at an existing libnccl.so.2, or remove it")
		return
	}
	c.pass("file exists")
}
