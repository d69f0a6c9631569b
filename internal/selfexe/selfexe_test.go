package selfexe

import "testing"

// TestTemporaryBuild pins B8: `go run ./cmd/sglaunch unit` wrote the
// temporary build, deleted when go run exits, into ExecStart=.
func TestTemporaryBuild(t *testing.T) {
	tests := []struct {
		exe  string
		want bool
	}{
		{"/tmp/go-build2871634/b001/exe/sglaunch", true},
		{"/var/tmp/gotmp/go-build99/b001/exe/sglaunch", true},
		{"/root/.cache/go-build/02/02acb34c68a180548e0d8922e8118c5d3b176f02360b2cbbec7859049eb10dea-d/sglaunch", true},
		{"/opt/02/02acb34c-d/sglaunch", false},
		{"/usr/local/bin/sglaunch", false},
		{"/home/u/go/bin/sglaunch", false},
		{"/opt/go-build-tools/bin/sglaunch", false},
	}
	for _, tt := range tests {
		if got := temporaryBuild(tt.exe); got != tt.want {
			t.Errorf("temporaryBuild(%q): got %v, want %v", tt.exe, got, tt.want)
		}
	}
}
