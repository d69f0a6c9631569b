package preflight

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/sglaunch/sglaunch/catalog"
	"github.com/sglaunch/sglaunch/internal/pyvalue"
)

var reCollectives = regexp.MustCompile(`Broadcast(?:,[A-Za-z]+)+`)

// checkAlgoProto follows NCCL's parseList (graph/tuning.cc): entries
// separated by ';', each "[func:][^]tok,tok"; only the first may omit
// the collective; tokens and collectives match case-insensitively, and
// nothing else, white space included, is accepted. A bad token fails
// communicator init, after the model load.
func checkAlgoProto(c *verdicts, v *catalog.EnvVar, value string, _ map[string]string, _ *Options) {
	kind := map[string]string{"NCCL_ALGO": "algorithm", "NCCL_PROTO": "protocol"}[v.Name]
	algo, _ := catalog.NCCLEnv().Lookup("NCCL_ALGO")
	funcs := strings.Split(reCollectives.FindString(algo.Valid), ",")
	if strings.TrimSpace(value) == "" {
		c.warn("empty: NCCL treats it as unset and chooses "+kind+"s itself", "remove it")
		return
	}
	var problems []string
	fixed, resolved := []string{}, true
	used := map[string]bool{}
	entry := 0
	for _, e := range strings.Split(value, ";") {
		if e == "" {
			continue // strtok skips empty fields
		}
		prefix, list, hasPrefix := strings.Cut(e, ":")
		if !hasPrefix {
			list, prefix = prefix, ""
		}
		out := ""
		if hasPrefix {
			p := strings.TrimSpace(prefix)
			switch m := matchFold(p, funcs); {
			case m != "" && p == prefix:
				out = prefix + ":"
			case m != "":
				problems = append(problems, fmt.Sprintf("collective %s has white space (NCCL allows none)", strconv.Quote(prefix)))
				out = p + ":"
			default:
				problems = append(problems, fmt.Sprintf("unknown collective %s (want %s)", strconv.Quote(prefix), orList(funcs)))
				if near := closestFold(p, funcs); len(near) == 1 {
					out = near[0] + ":"
				} else {
					resolved = false
				}
			}
		} else if entry > 0 {
			problems = append(problems, fmt.Sprintf("entry %s has no collective: every entry after the first needs one, like allgather:%s", strconv.Quote(e), list))
			resolved = false
		}
		entry++
		if strings.HasPrefix(list, "^") {
			out += "^"
			list = list[1:]
		}
		var toks []string
		for _, tok := range strings.Split(list, ",") {
			if tok == "" {
				continue
			}
			t := strings.TrimSpace(tok)
			switch m := matchFold(t, v.Tokens); {
			case m != "" && t == tok:
				toks = append(toks, tok)
				used[m] = true
			case m != "":
				problems = append(problems, fmt.Sprintf("%s has white space (NCCL allows none)", strconv.Quote(tok)))
				toks = append(toks, t)
				used[m] = true
			case strings.EqualFold(t, "collnet") && v.Name == "NCCL_ALGO":
				problems = append(problems, `"`+tok+`" is the name NCCL 2.13 and older used; it is now CollNetDirect or CollNetChain`)
				resolved = false
				toks = append(toks, t)
			default:
				problems = append(problems, fmt.Sprintf("unknown %s %s", kind, strconv.Quote(tok)))
				if near := closestFold(t, v.Tokens); len(near) == 1 {
					toks = append(toks, near[0])
				} else {
					resolved = false
					toks = append(toks, t)
				}
			}
		}
		fixed = append(fixed, out+strings.Join(toks, ","))
	}
	if len(problems) > 0 {
		fix := fmt.Sprintf("use a comma list of %s, with no spaces", orList(v.Tokens))
		if resolved {
			fix = "write " + v.Name + "=" + strings.Join(fixed, ";")
		}
		c.fail(fmt.Sprintf("%s: %s; NCCL rejects the whole value ('Unrecognized element token') and communicator init fails after the model has loaded",
			strconv.Quote(value), strings.Join(problems, "; ")), fix)
		return
	}
	c.pass(fmt.Sprintf("valid %s list %s", kind, strconv.Quote(value)))
	if v.Name == "NCCL_PROTO" && used["LL128"] && !strings.Contains(value, "^") {
		c.warn("forces LL128: NCCL enables LL128 only where it knows it is safe, and forcing it elsewhere can corrupt data (NCCL docs)", "leave LL128 to NCCL unless this platform supports it")
	}
}

// matchFold returns the candidate equal to s ignoring case, or "".
func matchFold(s string, candidates []string) string {
	for _, c := range candidates {
		if strings.EqualFold(s, c) {
			return c
		}
	}
	return ""
}

// legacyLevels are the numbers NCCL still accepts for path levels.
var legacyLevels = []string{"LOC", "PIX", "PXB", "PHB", "SYS"}

// checkLevel follows ncclGetLevel: an exact upper-case level name, or a
// legacy number (0..4; 5 and above mean SYS). Anything else, lower case
// included, is silently treated as unset.
func checkLevel(c *verdicts, v *catalog.EnvVar, value string, _ map[string]string, _ *Options) {
	tokens := v.Tokens
	if len(tokens) == 0 {
		p2p, _ := catalog.NCCLEnv().Lookup("NCCL_P2P_LEVEL")
		tokens = p2p.Tokens
	}
	if value == "" {
		c.warn("empty: NCCL treats it as unset", "remove it")
		return
	}
	if value[0] >= '0' && value[0] <= '9' {
		r := strtoll(value)
		level := "SYS"
		if r.n < int64(len(legacyLevels)) {
			level = legacyLevels[r.n]
		}
		if r.rest != "" || r.base != 10 && len(r.digits) > 1 {
			c.warn(fmt.Sprintf("%s is not a plain number: NCCL reads %d (%s)", strconv.Quote(value), r.n, level), "write "+v.Name+"="+level)
			return
		}
		c.pass(fmt.Sprintf("legacy number %d means %s", r.n, level))
		return
	}
	if slices.Contains(tokens, value) {
		c.pass("valid level " + value)
		return
	}
	if m := matchFold(strings.TrimSpace(value), tokens); m != "" {
		c.fail(fmt.Sprintf("%s is not %s: NCCL compares level names exactly (strcmp) and silently treats anything else as unset (auto)", strconv.Quote(value), m),
			"write "+v.Name+"="+m)
		return
	}
	fix := "use one of " + orList(tokens) + " (exact upper case) or 0-5"
	if near := closestFold(value, tokens); len(near) > 0 {
		fix = didYouMean(near)
	}
	c.fail(fmt.Sprintf("%s is not a level NCCL knows: NCCL silently treats it as unset (auto)", strconv.Quote(value)), fix)
}

// checkP2PDisable: NCCL disables P2P only when strtol reads exactly 1.
func checkP2PDisable(c *verdicts, v *catalog.EnvVar, value string, _ map[string]string, _ *Options) {
	switch r := strtoll(value); {
	case value == "1":
		c.pass("P2P transport disabled")
	case value == "0":
		c.pass("P2P transport left enabled (the default)")
	case r.n == 1:
		c.warn(fmt.Sprintf("%s is read as 1: P2P is disabled", strconv.Quote(value)), "write NCCL_P2P_DISABLE=1")
	default:
		c.fail(fmt.Sprintf("only exactly 1 disables P2P; %s does nothing", strconv.Quote(value)), "write NCCL_P2P_DISABLE=1 to disable P2P, or remove it")
	}
}

// checkDebugLevel: 2.30.7's typed parser trims and ignores case; any
// other value silently means no logging.
func checkDebugLevel(c *verdicts, v *catalog.EnvVar, value string, _ map[string]string, _ *Options) {
	t := strings.TrimSpace(value)
	if m := matchFold(t, v.Tokens); m != "" {
		c.pass("log level " + m)
		return
	}
	if strings.EqualFold(t, "NONE") {
		c.warn("NONE is not a level: NCCL ignores it, which leaves logging off, as unset does", "remove it")
		return
	}
	fix := "use one of " + orList(v.Tokens)
	if near := closestFold(t, v.Tokens); len(near) > 0 {
		fix = didYouMean(near)
	}
	c.fail(fmt.Sprintf("%s is not a level NCCL knows: NCCL 2.30.7 silently falls back to no logging", strconv.Quote(value)), fix)
}

// checkTypedList: a comma list with an optional leading ^ for the whole
// list; in 2.30.7 one unknown token rejects the whole value silently.
func checkTypedList(c *verdicts, v *catalog.EnvVar, value string, _ map[string]string, _ *Options) {
	body := strings.TrimPrefix(value, "^")
	var problems []string
	for _, tok := range strings.Split(body, ",") {
		t := strings.TrimSpace(tok)
		switch {
		case strings.HasPrefix(t, "^"):
			problems = append(problems, fmt.Sprintf("%s: ^ applies only to the whole list, as its first character", strconv.Quote(t)))
		case matchFold(t, v.Tokens) == "":
			p := "unknown token " + strconv.Quote(t)
			if near := closestFold(t, v.Tokens); len(near) > 0 {
				p += " (" + didYouMean(near) + ")"
			}
			problems = append(problems, p)
		}
	}
	if len(problems) > 0 {
		c.fail(fmt.Sprintf("%s; NCCL 2.30.7 then rejects the whole value and silently uses the default (%s)", strings.Join(problems, "; "), v.Default),
			"use a comma list of "+orList(v.Tokens))
		return
	}
	c.pass("valid list")
}

// checkTypedBool: 2.30.7's typed bool takes 1, T, TRUE, 0, F or FALSE in
// any case; anything else silently means the default.
func checkTypedBool(c *verdicts, v *catalog.EnvVar, value string) {
	if matchFold(strings.TrimSpace(value), v.Tokens) != "" {
		c.pass("valid")
		return
	}
	fix := fmt.Sprintf("write %s=1 or %s=0", v.Name, v.Name)
	if w, ok := pyvalue.BoolWord(value); ok {
		fix = fmt.Sprintf("write %s=%s", v.Name, w)
	}
	c.fail(fmt.Sprintf("%s is not one of %s: NCCL 2.30.7 silently uses the default (%s)", strconv.Quote(value), strings.Join(v.Tokens, "|"), v.Default), fix)
}

var reTokenDeprecated = regexp.MustCompile(`([A-Z]+) deprecated since ([\d.]+)`)

// checkTokenEnum: one of the catalog's words, in the case the catalog
// says. A silently ignored bad value fails; a logged one warns.
func checkTokenEnum(c *verdicts, v *catalog.EnvVar, value string) {
	t := value
	if v.CaseInsensitive {
		t = matchFold(value, v.Tokens)
	} else if !slices.Contains(v.Tokens, value) {
		t = ""
	}
	if t != "" {
		c.pass("valid: " + t)
		if m := reTokenDeprecated.FindStringSubmatch(v.Notes); m != nil && m[1] == t {
			c.warn(fmt.Sprintf("%s is deprecated since NCCL %s", t, m[2]), "remove it")
		}
		return
	}
	silent := strings.Contains(strings.ToUpper(v.OnInvalid), "SILENT")
	reason := fmt.Sprintf("%s is not one of %s", strconv.Quote(value), orList(v.Tokens))
	if m := matchFold(value, v.Tokens); m != "" {
		reason = fmt.Sprintf("%s is not %s: NCCL compares it case-sensitively", strconv.Quote(value), m)
	}
	fix := "use one of " + orList(v.Tokens)
	if near := closestFold(value, v.Tokens); len(near) > 0 {
		fix = "write " + v.Name + "=" + near[0]
	}
	if silent {
		c.fail(reason+": "+strings.TrimPrefix(strings.TrimPrefix(v.OnInvalid, "SILENT-ish: "), "SILENT: "), fix)
		return
	}
	c.warn(reason+": "+v.OnInvalid, fix)
}

// checkCTAPolicy: DEFAULT, EFFICIENCY, ZERO joined by '|', any case, or a
// legacy digit. An unknown word is logged and ignored.
func checkCTAPolicy(c *verdicts, v *catalog.EnvVar, value string, _ map[string]string, _ *Options) {
	if value != "" && value[0] >= '0' && value[0] <= '2' {
		c.pass("legacy policy number " + value[:1])
		return
	}
	seen := map[string]bool{}
	for _, tok := range strings.Split(value, "|") {
		m := matchFold(strings.TrimSpace(tok), v.Tokens)
		if m == "" {
			c.warn(fmt.Sprintf("unknown policy %s: NCCL logs 'Unknown CTA policy' and ignores it", strconv.Quote(tok)), "use "+orList(v.Tokens)+", joined by |")
			continue
		}
		seen[m] = true
	}
	if seen["ZERO"] && seen["EFFICIENCY"] {
		c.warn("ZERO and EFFICIENCY together: NCCL warns and drops EFFICIENCY", "choose one")
	}
	c.pass("valid policy")
}

var reMaxN = regexp.MustCompile(`(?i)^MAX:([1-9][0-9]*)$`)

func checkNetdevsPolicy(c *verdicts, v *catalog.EnvVar, value string, _ map[string]string, _ *Options) {
	if strings.EqualFold(value, "AUTO") || strings.EqualFold(value, "ALL") || reMaxN.MatchString(value) {
		c.pass("valid policy")
		return
	}
	c.warn(fmt.Sprintf("%s is not AUTO, ALL or MAX:<N> with N > 0: NCCL logs 'Unable to recognize' and uses AUTO", strconv.Quote(value)), "write AUTO, ALL or MAX:2 (any N > 0)")
}

// checkMergeLevel: case-sensitive level names; an unknown one silently
// means LOC (no NIC fusion), not the default PORT.
func checkMergeLevel(c *verdicts, v *catalog.EnvVar, value string, _ map[string]string, _ *Options) {
	for _, t := range v.Tokens {
		if strings.HasPrefix(value, t) {
			c.pass("valid level " + t)
			return
		}
	}
	fix := "use one of " + orList(v.Tokens) + " (upper case)"
	if m := matchFold(value, v.Tokens); m != "" {
		fix = "write " + v.Name + "=" + m
	}
	c.fail(fmt.Sprintf("%s is not one of %s: NCCL silently falls back to LOC (no NIC fusion), not its default PORT", strconv.Quote(value), orList(v.Tokens)), fix)
}

var reKernelName = regexp.MustCompile(`\b[A-Z][A-Za-z]+_[A-Za-z0-9_]+\b`)

// checkSymKernel: one exact kernel name or ^; an unknown name silently
// disables every symmetric kernel.
func checkSymKernel(c *verdicts, v *catalog.EnvVar, value string, _ map[string]string, _ *Options) {
	names := reKernelName.FindAllString(v.Valid, -1)
	if value == "^" || slices.Contains(names, value) {
		c.pass("valid kernel selection")
		return
	}
	fix := "use one exact kernel name (see NCCL_SYM_KERNEL in nccl-env.tsv)"
	if near := closest(value, names); len(near) > 0 {
		fix = didYouMean(near)
	}
	c.fail(fmt.Sprintf("%s is not a symmetric kernel NCCL knows: NCCL silently disables all symmetric kernels", strconv.Quote(value)), fix)
}
