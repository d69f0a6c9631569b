package inputerr

import (
	"errors"
	"fmt"
	"testing"
)

func TestIs(t *testing.T) {
	base := errors.New("boom")
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"plain", base, false},
		{"wrapped input", fmt.Errorf("serve: %w", Wrap(base)), true},
		{"errorf", Errorf("bad flag %q", "--x"), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Is(tt.err); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
	if !errors.Is(Wrap(base), base) {
		t.Error("Wrap hides the wrapped error from errors.Is")
	}
	if Wrap(nil) != nil {
		t.Error("Wrap(nil) is not nil")
	}
}
