package preflight

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/sglaunch/sglaunch/catalog"
	"github.com/sglaunch/sglaunch/internal/hostprobe"
	"github.com/sglaunch/sglaunch/internal/pyvalue"
)

// ncclSpecial are the variables with their own parser in NCCL.
var ncclSpecial = map[string]envCheck{
	"NCCL_ALGO":                   checkAlgoProto,
	"NCCL_PROTO":                  checkAlgoProto,
	"NCCL_P2P_LEVEL":              checkLevel,
	"NCCL_NET_GDR_LEVEL":          checkLevel,
	"NCCL_P2P_DISABLE":            checkP2PDisable,
	"NCCL_DEBUG":                  checkDebugLevel,
	"NCCL_DEBUG_SUBSYS":           checkTypedList,
	"NCCL_DEBUG_TIMESTAMP_LEVELS": checkTypedList,
	"NCCL_CTA_POLICY":             checkCTAPolicy,
	"NCCL_NETDEVS_POLICY":         checkNetdevsPolicy,
	"NCCL_NET_MERGE_LEVEL":        checkMergeLevel,
	"NCCL_SYM_KERNEL":             checkSymKernel,
	"NCCL_SOCKET_MAGIC":           checkSocketMagic,
	"NCCL_COMM_ID":                checkHostPort,
	"NCCL_RAS_ADDR":               checkHostPort,
	"NCCL_SOCKET_IFNAME":          checkSocketIfname,
	"NCCL_GRAPH_FILE":             checkInputFile,
	"NCCL_TOPO_FILE":              checkInputFile,
	"NCCL_CONF_FILE":              checkInputFile,
	"NCCL_DEBUG_FILE":             checkOutputFile,
	"NCCL_TOPO_DUMP_FILE":         checkOutputFile,
	"NCCL_GRAPH_DUMP_FILE":        checkOutputFile,
	"NCCL_PROXY_CPUSET":           checkCPUSet,
	"NCCL_THREAD_THRESHOLDS":      checkThresholds,
	"NCCL_NO_CACHE":               checkNoCache,
	"NCCL_NET":                    checkNetName,
	"NCCL_IB_ADDR_RANGE":          checkAddrRange,
}

// checkNCCL validates every NCCL_* variable of the environment against
// the NCCL 2.30.7 catalog, and those NCCL's config files would set.
func checkNCCL(items []envItem, o *Options) []Finding {
	cat := catalog.NCCLEnv()
	conf, out := ncclConfItems(items, o)
	items = append(items[:len(items):len(items)], conf...)
	env := envMap(items)
	for _, it := range items {
		if !strings.HasPrefix(it.name, "NCCL_") {
			out = append(out, lowerCaseNCCL(it)...)
			continue
		}
		s := subject{CheckNCCL, it.name, it.where}
		v, ok := cat.Lookup(it.name)
		if !ok {
			out = append(out, unknownNCCL(s, it.value)...)
			continue
		}
		c := &verdicts{subject: s}
		switch check := ncclSpecial[it.name]; {
		case check != nil:
			check(c, v, it.value, env, o)
		case v.Parse == catalog.ParseStrtoll || v.Parse == catalog.ParseStrtol:
			checkNCCLInt(c, v, it.value, env)
		case v.Parse == catalog.ParseTyped && v.Type == "bool":
			checkTypedBool(c, v, it.value)
		case len(v.Tokens) > 0:
			checkTokenEnum(c, v, it.value)
		default:
			c.pass("free-form value; NCCL reads it as written")
		}
		if v.Dead {
			c.warn(fmt.Sprintf("NCCL %s defines it but never reads it: setting it has no effect", "2.30.7"), "remove it")
		}
		if v.Deprecated {
			fix := "remove it"
			if v.Replacement != "" {
				fix = "use " + v.Replacement + " instead"
			}
			c.warn("deprecated: "+ncclDeprecation(v), fix)
		}
		out = append(out, c.findings()...)
	}
	return out
}

// ncclConfItems lists what NCCL's config files set for the server:
// $NCCL_CONF_FILE (relative to the server's directory) or ~/.nccl.conf,
// then /etc/nccl.conf, each variable the environment leaves unset, read
// by hostprobe.NCCLConf as verify reads them. NCCL applies them at its first
// call, so they are checked like the environment: a typo in the file
// fails as it would in env:.
func ncclConfItems(items []envItem, o *Options) ([]envItem, []Finding) {
	env := envMap(items)
	if f := env["NCCL_CONF_FILE"]; f != "" && !strings.HasPrefix(f, "~") {
		env["NCCL_CONF_FILE"] = resolvePath(f, o)
	}
	entries, err := hostprobe.NCCLConf(env)
	if err != nil {
		s := subject{CheckNCCL, "NCCL_CONF_FILE", "nccl.conf"}
		return nil, []Finding{s.warn("cannot read NCCL's config file: "+err.Error()+"; its settings are not checked", "make it a readable text file of NAME=VALUE lines")}
	}
	var out []envItem
	for _, e := range entries {
		out = append(out, envItem{name: e.Name, value: e.Value, where: "nccl.conf " + e.File})
	}
	return out, nil
}

func ncclDeprecation(v *catalog.EnvVar) string {
	if strings.HasPrefix(v.Valid, "legacy alias of ") {
		return v.Valid + "; " + v.Notes
	}
	return v.Notes
}

var reNCCLName = regexp.MustCompile(`NCCL_[A-Z0-9_]+`)

// unknownNCCL explains a name NCCL 2.30.7 does not read: a PyTorch legacy
// alias, a name an older NCCL read, or a typo NCCL silently ignores.
func unknownNCCL(s subject, value string) []Finding {
	if a, ok := catalog.OtherEnv().LookupAlias(s.name); ok {
		return []Finding{s.warn(
			fmt.Sprintf("PyTorch's legacy name for %s: PyTorch still reads it but warns that it is deprecated, and %s wins when both are set", a.Name, a.Name),
			"rename it to "+a.Name)}
	}
	if r, ok := catalog.NCCLEnv().LookupRemoved(s.name); ok {
		when := "up to NCCL " + r.LastSeen
		if strings.HasPrefix(r.LastSeen, "(") {
			when = "only by NCCL releases " + strings.Trim(r.LastSeen, "()")
		}
		fix := "remove it"
		for _, n := range reNCCLName.FindAllString(r.Note, -1) {
			if n != s.name {
				fix = "use " + n + " instead"
			}
		}
		return []Finding{s.warn(fmt.Sprintf("read %s, not by NCCL 2.30.7: setting it has no effect", when), fix)}
	}
	fix := "remove it; NCCL 2.30.7 reads no variable of that name"
	if near := closestAfter("NCCL_", s.name, catalog.NCCLEnv().Names()); len(near) > 0 {
		fix = didYouMean(near)
	}
	return []Finding{s.fail("not a variable NCCL 2.30.7 reads: NCCL ignores unknown names silently, so this setting does nothing", fix)}
}

// parseNCCLInt reads a value the way NCCL_PARAM does, failing on anything
// strtoll(v, NULL, 0) would silently turn into another number.
func parseNCCLInt(c *verdicts, v *catalog.EnvVar, raw string) (int64, bool) {
	name := v.Name
	if raw == "" {
		c.warn("empty: NCCL treats an empty value as unset and uses the default ("+v.Default+")", "remove it, or give a value")
		return 0, false
	}
	r := strtoll(raw)
	size := func(n int64) string {
		if strings.Contains(v.Valid, "bytes") {
			return sizeNote(n)
		}
		return ""
	}
	fix := "write a plain decimal integer"
	if r.overflow {
		fix = "write a smaller number (at most 9223372036854775807)"
	} else if want, ok := pyvalue.Intended(raw); ok {
		n, _ := strconv.ParseInt(want, 10, 64)
		fix = fmt.Sprintf("write %s=%s%s", name, want, size(n))
	}
	switch {
	case r.overflow:
		c.fail(fmt.Sprintf("%s overflows a 64-bit integer: NCCL logs 'Invalid value' and uses the default (%s)", strconv.Quote(raw), v.Default), fix)
		return 0, false
	case r.none():
		c.fail(fmt.Sprintf("%s is not a number: NCCL parses integers with strtoll(v, NULL, 0), so it silently uses 0", strconv.Quote(raw)), fix)
		return 0, false
	case strings.TrimSpace(r.rest) != "":
		c.fail(fmt.Sprintf("%s is not a plain integer: NCCL parses it with strtoll(v, NULL, 0), which keeps only the numeric prefix, so it silently uses %d%s", strconv.Quote(raw), r.n, size(r.n)), fix)
		return r.n, false
	case r.base == 8 && len(r.digits) > 1:
		dec := strings.TrimLeft(r.digits, "0")
		c.fail(fmt.Sprintf("%s has a leading zero: strtoll(v, NULL, 0) reads it as octal, so NCCL uses %d", strconv.Quote(raw), r.n),
			fmt.Sprintf("write %s=%s (or %d, if octal was meant)", name, dec, r.n))
		return r.n, false
	case r.lead || r.rest != "":
		c.warn(fmt.Sprintf("%s has white space around the number; NCCL reads %d", strconv.Quote(raw), r.n), fmt.Sprintf("write %s=%d", name, r.n))
	}
	return r.n, true
}

// leadingInt reads the integer a default starts with ("-2 -> 4194304").
func leadingInt(s string) (int64, bool) {
	f := strings.Fields(s)
	if len(f) == 0 {
		return 0, false
	}
	n, err := strconv.ParseInt(f[0], 10, 64)
	return n, err == nil
}

// checkNCCLInt checks an NCCL_PARAM integer: the text, then what NCCL does
// with the number (clamps, acts only at 1, ranges).
func checkNCCLInt(c *verdicts, v *catalog.EnvVar, raw string, env map[string]string) {
	n, ok := parseNCCLInt(c, v, raw)
	if !ok {
		return
	}
	reads := fmt.Sprintf("NCCL reads %d", n)
	if strings.Contains(v.Valid, "bytes") {
		reads += sizeNote(n)
	}
	if r := strtoll(raw); r.base == 16 {
		reads = fmt.Sprintf("hex %s: ", raw) + reads
	}
	c.pass(reads)
	if def, ok := leadingInt(v.Default); ok && n == def {
		c.pass(reads + ", the default")
		return
	}
	if rule, ok := ncclClamps[v.Name]; ok {
		if used, why := rule(n); why != "" {
			fix := "use a valid value: " + v.Valid
			if _, err := strconv.ParseInt(strings.Fields(used)[0], 10, 64); err == nil {
				fix = fmt.Sprintf("write %s=%s, what NCCL uses anyway, or another valid value: %s", v.Name, strings.Fields(used)[0], v.Valid)
			}
			c.warn(fmt.Sprintf("%d is %s: NCCL uses %s instead", n, why, used), fix)
		}
		crossChecks(c, v, n, env)
		return
	}
	switch {
	case v.OnlyOne && n != 0 && n != 1:
		c.fail(fmt.Sprintf("NCCL acts on it only when it is exactly 1 (it compares == 1), so %d does nothing", n), fmt.Sprintf("write %s=1 to turn it on, or remove it", v.Name))
	case v.NonzeroOn && n != 0 && n != 1:
		c.warn(fmt.Sprintf("any nonzero value means on; %d works as 1", n), fmt.Sprintf("write %s=1", v.Name))
	case v.Closed && !containsInt(v.Ints, n):
		c.warn(fmt.Sprintf("%d is not one of NCCL's values (%s); NCCL does not check it", n, v.Valid), useOneOf(intStrings(v.Ints)))
	case v.Range != (catalog.IntRange{}) && !v.Range.Contains(n) && !containsInt(v.Ints, n):
		c.warn(fmt.Sprintf("%d is outside NCCL's valid range (%s); NCCL does not check it", n, v.Valid), "use a value in "+v.Range.String())
	case strings.Contains(v.Valid, "power of 2") && n > 0 && n&(n-1) != 0:
		c.warn(fmt.Sprintf("%d is not a power of 2, which NCCL recommends (%s)", n, v.Valid), "use a power of 2, e.g. "+strconv.FormatInt(pow2Below(n), 10))
	}
	if v.Name == "NCCL_BUFFSIZE" && n > 0 && n < 64<<10 {
		c.warn(fmt.Sprintf("%d bytes is a tiny buffer (the default is 4 MiB): it hurts or breaks NCCL's performance", n), "use 4194304 (4 MiB) or more")
	}
	crossChecks(c, v, n, env)
}

// crossChecks are the limits that involve two variables.
func crossChecks(c *verdicts, v *catalog.EnvVar, n int64, env map[string]string) {
	other := func(name string) (int64, bool) {
		r := strtoll(env[name])
		return r.n, env[name] != "" && !r.none() && !r.overflow
	}
	switch v.Name {
	case "NCCL_NSOCKS_PERTHREAD":
		if t, ok := other("NCCL_SOCKET_NTHREADS"); ok && t > 0 && n*t > 64 {
			c.warn(fmt.Sprintf("NCCL_NSOCKS_PERTHREAD × NCCL_SOCKET_NTHREADS = %d × %d = %d exceeds 64: NCCL warns and reduces the sockets per thread to %d", n, t, n*t, 64/t), "keep the product at 64 or below")
		}
	case "NCCL_MIN_CTAS":
		if m, ok := other("NCCL_MAX_CTAS"); ok && m > 0 && n > m {
			c.warn(fmt.Sprintf("NCCL_MIN_CTAS %d is above NCCL_MAX_CTAS %d: NCCL lowers the minimum to %d", n, m, m), "keep NCCL_MIN_CTAS <= NCCL_MAX_CTAS")
		}
	case "NCCL_MIN_NCHANNELS":
		if m, ok := other("NCCL_MAX_NCHANNELS"); ok && m > 0 && n > m {
			c.warn(fmt.Sprintf("NCCL_MIN_NCHANNELS %d is above NCCL_MAX_NCHANNELS %d", n, m), "keep NCCL_MIN_NCHANNELS <= NCCL_MAX_NCHANNELS")
		}
	}
}

// ncclClamps say what NCCL really uses for a value it corrects; why is
// empty when the value stands.
var ncclClamps = map[string]func(n int64) (used, why string){
	"NCCL_NTHREADS":                         threads(64, 512),
	"NCCL_LL128_NTHREADS":                   threads(160, 640),
	"NCCL_MAX_NCHANNELS":                    clamp(1, 64, "", "MAXCHANNELS"),
	"NCCL_MIN_NCHANNELS":                    clamp(0, 64, "", ""),
	"NCCL_MAX_CTAS":                         clamp(1, 64, "nothing: it is ignored", ""),
	"NCCL_MIN_CTAS":                         clamp(1, 64, "nothing: it is ignored", ""),
	"NCCL_CGA_CLUSTER_SIZE":                 clamp(0, 8, "nothing: it is ignored", ""),
	"NCCL_SOCKET_NTHREADS":                  clamp(1, 16, "", ""),
	"NCCL_NCHANNELS_PER_NET_PEER":           atLeast(1, "nothing: it is ignored"),
	"NCCL_P2P_MAX_PEERS":                    atLeast(1, "nothing: it is ignored"),
	"NCCL_NVLS_NCHANNELS":                   atLeast(1, "its automatic choice"),
	"NCCL_NUM_RMA_CTX":                      atLeast(0, "nothing: it is ignored"),
	"NCCL_WORK_FIFO_BYTES":                  fifoBytes,
	"NCCL_GIN_PROXY_QUEUE_SIZE":             queueSize,
	"NCCL_RMA_PROXY_QUEUE_SIZE":             queueSize,
	"NCCL_COLLNET_ENABLE":                   zeroOrOne("0"),
	"NCCL_COMM_SPLIT_SHARE_RESOURCES":       zeroOrOne("0"),
	"NCCL_GRAPH_MIXING_SUPPORT":             zeroOrOne("nothing: it is ignored"),
	"NCCL_GRAPH_STREAM_ORDERING":            zeroOrOne("nothing: it is ignored"),
	"NCCL_NVLINK_UTIL_CENTRIC_SCHED_ENABLE": zeroOrOne("nothing: it is ignored"),
	"NCCL_COMM_BLOCKING":                    zeroOrOne("nothing: it is ignored"),
}

// threads is NCCL's getNthreads: not a multiple of 32 or above max gives
// max, below min gives min, zero or less the default.
func threads(lo, hi int64) func(int64) (string, string) {
	return func(n int64) (string, string) {
		switch {
		case n <= 0:
			return "its default", "not positive"
		case n%32 != 0:
			return strconv.FormatInt(hi, 10), "not a multiple of 32"
		case n > hi:
			return strconv.FormatInt(hi, 10), fmt.Sprintf("above %d", hi)
		case n < lo:
			return strconv.FormatInt(lo, 10), fmt.Sprintf("below %d", lo)
		}
		return "", ""
	}
}

// clamp corrects values below lo (to lo, or to low when given) and above
// hi (to hi).
func clamp(lo, hi int64, low, maxName string) func(int64) (string, string) {
	return func(n int64) (string, string) {
		switch {
		case n < lo && low != "":
			return low, fmt.Sprintf("below %d", lo)
		case n < lo:
			return strconv.FormatInt(lo, 10), fmt.Sprintf("below %d", lo)
		case n > hi && maxName != "":
			return strconv.FormatInt(hi, 10), fmt.Sprintf("above %d (%s)", hi, maxName)
		case n > hi:
			return strconv.FormatInt(hi, 10), fmt.Sprintf("above %d", hi)
		}
		return "", ""
	}
}

func atLeast(lo int64, used string) func(int64) (string, string) {
	return func(n int64) (string, string) {
		if n < lo {
			return used, fmt.Sprintf("below %d", lo)
		}
		return "", ""
	}
}

func zeroOrOne(used string) func(int64) (string, string) {
	return func(n int64) (string, string) {
		if n != 0 && n != 1 {
			return used, "neither 0 nor 1"
		}
		return "", ""
	}
}

func fifoBytes(n int64) (string, string) {
	switch {
	case n > 1<<30:
		return "1073741824 (1 GiB)", "above 1 GiB"
	case n <= 0 || n&(n-1) != 0:
		return "its default 1048576 (1 MiB)", "not a power of 2"
	}
	return "", ""
}

func queueSize(n int64) (string, string) {
	if n != -1 && (n <= 0 || n&(n-1) != 0) {
		return "its default", "not a power of 2 (or -1)"
	}
	return "", ""
}

func containsInt(s []int64, n int64) bool {
	for _, x := range s {
		if x == n {
			return true
		}
	}
	return false
}

func intStrings(s []int64) []string {
	var w []string
	for _, n := range s {
		w = append(w, strconv.FormatInt(n, 10))
	}
	return w
}

func pow2Below(n int64) int64 {
	p := int64(1)
	for p*2 <= n {
		p *= 2
	}
	return p
}

// lowerCaseNCCL warns of nccl_proto and the like: NCCL reads its
// variables by their upper-case names only, so such a name does nothing.
func lowerCaseNCCL(it envItem) []Finding {
	upper := strings.ToUpper(it.name)
	if !strings.HasPrefix(upper, "NCCL_") {
		return nil
	}
	s := subject{CheckNCCL, it.name, it.where}
	return []Finding{s.warn("NCCL reads its variables by their upper-case names only: "+it.name+" has no effect", "rename it to "+upper)}
}
