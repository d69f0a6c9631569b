package main

import (
	"strings"
	"testing"
)

func TestRedactCommandLine(t *testing.T) {
	in := []string{"sglaunch", "bench", "--set", "env.HF_TOKEN=hf_abc", "--set=env.MY_SECRET=x", "--set", "args.tp=8", "--", "--api-key", "k"}
	want := "sglaunch bench --set env.HF_TOKEN=<redacted> --set=env.MY_SECRET=<redacted> --set args.tp=8 -- --api-key <redacted>"
	if got := strings.Join(redactCommandLine(in), " "); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
