package cluster

import (
	"slices"
	"strings"
	"testing"
)

func TestExpandHostlist(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"gpu01", []string{"gpu01"}},
		{"gpu[01-02,05]", []string{"gpu01", "gpu02", "gpu05"}},
		{"gpu[01-02,05],cpu1", []string{"gpu01", "gpu02", "gpu05", "cpu1"}},
		{"n[8-11]", []string{"n8", "n9", "n10", "n11"}},
		{"n[098-101]", []string{"n098", "n099", "n100", "n101"}},
		{"a,b,c", []string{"a", "b", "c"}},
		{"r[1-2]n[1-2]", []string{"r1n1", "r1n2", "r2n1", "r2n2"}},
		{"node[1-2]-ib", []string{"node1-ib", "node2-ib"}},
		{"sgl[3]", []string{"sgl3"}},
		{"gpu-a[1,3],gpu-b[2-3]", []string{"gpu-a1", "gpu-a3", "gpu-b2", "gpu-b3"}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ExpandHostlist(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestExpandHostlistErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "no host"},
		{"gpu[01-02", "'[' without ']'"},
		{"gpu01]", "']' without '['"},
		{"gpu[02-01]", "upper bound is below"},
		{"gpu[a-b]", "want N or N-M"},
		{"gpu[1-]", "want N or N-M"},
		{"gpu[[1]]", "nested"},
		{"gpu[0-99999999]", "more than 65536"},
		{"a[0-999]b[0-999]", "more than 65536"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			_, err := ExpandHostlist(tt.in)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an error with %q", err, tt.want)
			}
		})
	}
}
