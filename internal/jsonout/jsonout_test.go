package jsonout

import (
	"bytes"
	"testing"
)

func TestWrite(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, map[string]any{"a": []int{1}}); err != nil {
		t.Fatal(err)
	}
	if want := "{\n  \"a\": [\n    1\n  ]\n}\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
	if err := Write(&b, func() {}); err == nil {
		t.Error("a value JSON cannot hold: got no error")
	}
}
