package preflight

import (
	"strings"
	"testing"
)

// TestSGLangTablesForVersion: preflight names the SGLang tables it and
// verify judge the installed SGLang by (issue 20, version-aware), and warns
// when they are the nearest older version's rather than its own.
func TestSGLangTablesForVersion(t *testing.T) {
	sg := subject{check: CheckPython, name: "sglang"}
	for _, tt := range []struct {
		version, want, warn string
	}{
		{"0.5.4.post3", "0.5.4.post3", ""},
		{"0.5.19.dev0+sim", "0.5.19.dev0", ""},
		{"0.5.10", "0.5.6.post2", "no tables for SGLang 0.5.10; using the nearest older"},
		{"", "0.5.19.dev0", "SGLang version unknown; using the newest tables"},
	} {
		got, findings := sglangTables(sg, tt.version)
		if got != tt.want {
			t.Errorf("%q: tables %q, want %q", tt.version, got, tt.want)
		}
		switch {
		case tt.warn == "" && len(findings) != 0:
			t.Errorf("%q: got %+v, want no finding", tt.version, findings)
		case tt.warn != "" && (len(findings) != 1 || findings[0].Status != Warn || !strings.Contains(findings[0].Reason, tt.warn)):
			t.Errorf("%q: got %+v, want one WARN %q", tt.version, findings, tt.warn)
		}
	}
	r := &Report{Profile: "p", Mode: "serve", Python: "/py", SGLang: SGLangInfo{Version: "0.5.10", Flags: "--help", Tables: "0.5.4.post3"}}
	if got, want := r.header(), "preflight p (serve): python /py, sglang 0.5.10, flags from --help, SGLang tables 0.5.4.post3"; got != want {
		t.Errorf("header %q, want %q", got, want)
	}
}
