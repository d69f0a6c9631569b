package redact

import (
	"strings"
	"testing"
)

func TestRedactCommandLine(t *testing.T) {
	in := []string{"sglaunch", "bench", "--set", "env.HF_TOKEN=hf_abc", "--set=env.MY_SECRET=x", "--set", "args.tp=8", "--", "--api-key", "k"}
	want := "sglaunch bench --set env.HF_TOKEN=<redacted> --set=env.MY_SECRET=<redacted> --set args.tp=8 -- --api-key <redacted>"
	if got := strings.Join(CommandLine(in), " "); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestSingleDashSetLeaksSecret pins issue 12 defect 3: Go's flag parsing
// takes -set as --set, but the record's command line masked only --set,
// so `-set env.HF_TOKEN=...` was stored in the clear; an abbreviated
// secret flag (args.api-k) was not masked either.
func TestSingleDashSetLeaksSecret(t *testing.T) {
	in := []string{"sglaunch", "bench", "-set", "env.HF_TOKEN=hf_abc", "-set=args.api-k=k1", "--set", "args.max-total-tokens=8192", "--", "--api-k", "k2"}
	want := "sglaunch bench -set env.HF_TOKEN=<redacted> -set=args.api-k=<redacted> --set args.max-total-tokens=8192 -- --api-k <redacted>"
	if got := strings.Join(CommandLine(in), " "); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
