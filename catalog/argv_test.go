package catalog

import (
	"fmt"
	"testing"
)

func TestSplit(t *testing.T) {
	a := SGLangArgs()
	uses := a.Split([]string{"--model-path", "/m", "--tp=8", "--trust-remote-code", "--cuda-graph-bs", "1", "2", "--bogus", "x"})
	got := ""
	for _, u := range uses {
		got += fmt.Sprintf("%s%v;", u.Canonical, u.Values)
	}
	// --cuda-graph-bs is a deprecated alias storing into cuda_graph_bs_decode:
	// one setting with --cuda-graph-bs-decode.
	want := "--model-path[/m];--tp-size[8];--trust-remote-code[];--cuda-graph-bs-decode[1 2];--bogus[x];"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if uses[4].Flag != nil || uses[4].Err == nil {
		t.Errorf("--bogus: got flag %v err %v, want unknown", uses[4].Flag, uses[4].Err)
	}
}
