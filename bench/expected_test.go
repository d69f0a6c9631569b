package bench

import (
	"strings"
	"testing"

	"github.com/sglaunch/sglaunch/internal/inputerr"
	"github.com/sglaunch/sglaunch/plan"
)

// TestRecordExpected: a record's plan is what verify --record expects and
// diff compares, labelled with the record and the SGLang it benchmarked;
// a record of a --url run has none, an input error.
func TestRecordExpected(t *testing.T) {
	view := plan.View{Profile: "demo", Fingerprint: "f1", Python: "python3", Module: "sglang.launch_server",
		Argv: []string{"python3", "-m", "sglang.launch_server", "--tp-size", "2"}, Env: map[string]string{"NCCL_PROTO": "LL"}, EnvOrder: []string{"NCCL_PROTO"}}
	rec := &Record{ID: "abcd1234", Plan: &view, SGLang: "0.5.10"}
	exp, side, err := rec.Expected()
	if err != nil {
		t.Fatal(err)
	}
	if exp.Label != "record abcd1234" || !exp.Redacted || exp.SGLang != "0.5.10" || exp.Env["NCCL_PROTO"] != "LL" {
		t.Errorf("expected %+v: want the record's plan, labelled, redacted, with its SGLang", exp)
	}
	if side.Label != "record abcd1234" || len(side.Args["--tp-size"]) != 1 || side.Env["NCCL_PROTO"] != "LL" {
		t.Errorf("side %+v: want the record's plan, labelled", side)
	}
	url := &Record{ID: "ef567890", URL: "http://10.0.0.1:30000"}
	if _, _, err := url.Expected(); !inputerr.Is(err) || !strings.Contains(err.Error(), "record ef567890 benchmarked http://10.0.0.1:30000 without a known plan") {
		t.Errorf("a --url record: got %v, want an input error naming it", err)
	}
}
