package gentext

import (
	"strings"
	"testing"
)

func TestComment(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/etc/sglaunch/kimi.yaml", "/etc/sglaunch/kimi.yaml"},
		{"/p/a\nExecStartPre=/bin/sh", `/p/a\nExecStartPre=/bin/sh`},
		{"/p/a\rb", `/p/a\rb`},
		{"/p/ä b", "/p/ä b"},
		{"x\u2028y", `x\u2028y`},
	}
	for _, tt := range tests {
		got := Comment(tt.in)
		if got != tt.want {
			t.Errorf("Comment(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if strings.ContainsAny(got, "\r\n") {
			t.Errorf("Comment(%q) = %q holds a line break", tt.in, got)
		}
	}
}
