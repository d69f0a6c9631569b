package preflight

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/internal/testkit"
)

func sampleReport() *Report {
	return &Report{
		Profile: "kimi", Mode: "serve", Python: "/opt/venv/bin/python3",
		SGLang: SGLangInfo{Version: "0.5.10", Location: "/opt/venv/lib/python3.12/site-packages/sglang", Flags: "--help (cached)"},
		Findings: []Finding{
			{Check: CheckPython, Status: Pass, Subject: "python3", Reason: "Python 3.12.3 runs (/opt/venv/bin/python3)", Where: "python (profile)"},
			{Check: CheckFlags, Status: Pass, Subject: "--tp", Reason: "argparse resolves the unique prefix --tp to --tp-size", Where: "args.tp at kimi.yaml:14:3 (profile)"},
			{Check: CheckFlags, Status: Warn, Subject: "--cuda-graph-max-bs", Reason: "deprecated alias of --cuda-graph-max-bs-decode", Fix: "write --cuda-graph-max-bs-decode 128 instead", Where: "args.cuda-graph-max-bs at kimi.yaml:16:3 (profile)"},
			{Check: CheckNCCL, Status: Fail, Subject: "NCCL_BUFFSIZE", Reason: `"16M" is not a plain integer`, Fix: "write NCCL_BUFFSIZE=16777216 (16 MiB)", Where: "env.NCCL_BUFFSIZE (kimi.yaml)"},
			{Check: CheckNCCL, Status: Fail, Subject: "NCCL_A_VERY_LONG_VARIABLE_NAME_INDEED", Reason: "not a variable NCCL 2.30.7 reads", Fix: "remove it"},
			{Check: CheckGPU, Status: Pass, Subject: "gpus", Reason: "8 visible (all GPUs); tp 8 × dp 1 × pp 1 needs 8"},
		},
		Duration: 412 * time.Millisecond,
	}
}

// TestReportText pins the printed report: grouped by check, warnings and
// failures with their fix and origin.
func TestReportText(t *testing.T) {
	var b bytes.Buffer
	if err := sampleReport().WriteText(&b); err != nil {
		t.Fatal(err)
	}
	testkit.Golden(t, t.Name(), b.String(), *testkit.Update)
}

// TestReportCompact pins what serve and bench print before a launch.
func TestReportCompact(t *testing.T) {
	var b bytes.Buffer
	if err := sampleReport().WriteCompact(&b); err != nil {
		t.Fatal(err)
	}
	testkit.Golden(t, t.Name(), b.String(), *testkit.Update)
}

// TestReportJSON pins preflight --json and checks it reads back.
func TestReportJSON(t *testing.T) {
	r := sampleReport()
	b := r.JSON()
	testkit.Golden(t, t.Name(), string(b), *testkit.Update)
	var back Report
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatalf("read back: %v", err)
	}
	if len(back.Findings) != len(r.Findings) || back.Findings[3].Status != Fail {
		t.Errorf("read back: got %+v", back.Findings)
	}
	if got := (&Report{}).JSON(); !bytes.Contains(got, []byte(`"findings": []`)) {
		t.Errorf("empty report: got %s, want an empty findings list", got)
	}
}

func TestReportCounts(t *testing.T) {
	r := sampleReport()
	if r.Count(Pass) != 3 || r.Count(Warn) != 1 || r.Count(Fail) != 2 || !r.Failed() {
		t.Errorf("got %d/%d/%d failed=%v, want 3/1/2 true", r.Count(Pass), r.Count(Warn), r.Count(Fail), r.Failed())
	}
	var s Status
	if err := s.UnmarshalText([]byte("MAYBE")); err == nil {
		t.Errorf("status MAYBE: got no error")
	}
}
