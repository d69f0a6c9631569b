package launcher

import (
	"strings"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/internal/redact"
	"github.com/sglaunch/sglaunch/internal/tail"
	"github.com/sglaunch/sglaunch/internal/testkit"
	"github.com/sglaunch/sglaunch/plan"
)

func testPlan() *plan.Plan {
	return &plan.Plan{
		Argv:    []string{"/usr/bin/python3", "-m", "sglang.launch_server", "--api-key", "sk-live-123456", "--admin-api-key=adm-abcdef", "--tp", "8"},
		Environ: []string{"HF_TOKEN=hf_zyxwvu", "PATH=/bin", "MY_PASSWORD=abc"},
	}
}

// TestShortSecretNotMasked pins issue 12 defect 3: values under 6
// characters were never masked in the server's output (MY_PASSWORD=abc
// was printed as is). Only a 1-character value is left alone now (see
// redact.MinLen).
func TestShortSecretNotMasked(t *testing.T) {
	m := newMasker(secretBytes(testPlan().SecretValues()))
	tests := []struct{ in, want string }{
		{"server_args=ServerArgs(api_key='sk-live-123456', tp_size=8)\n", "server_args=ServerArgs(api_key='" + redact.Mask + "', tp_size=8)\n"},
		{"admin adm-abcdef token hf_zyxwvu\n", "admin " + redact.Mask + " token " + redact.Mask + "\n"},
		{"short secrets too: abc\n", "short secrets too: " + redact.Mask + "\n"},
		{"nothing here\n", "nothing here\n"},
	}
	for _, tt := range tests {
		if got := string(m.Block([]byte(tt.in))) + string(m.Flush()); got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
	}
	if m := newMasker(secretBytes([]string{"x"})); m != nil {
		t.Error("a 1-character value is masked everywhere")
	}
}

// TestSecretSplitAcrossFlushNotMasked pins issue 12 defect 3: a secret
// that a partial-line flush (or a pty read) cut in two went out in the
// clear, each half too short to match. The relay now holds back a tail
// that could begin a secret until the rest arrives, and only such a tail:
// a partial line that cannot be one still goes out at once.
func TestSecretSplitAcrossFlushNotMasked(t *testing.T) {
	for _, mode := range []string{"lines", "raw"} {
		t.Run(mode, func(t *testing.T) {
			r, w, err := pipe()
			if err != nil {
				t.Fatal(err)
			}
			dst := &writes{}
			o := &output{tail: &tail.Buffer{}, secrets: secretBytes(testPlan().SecretValues())}
			if mode == "lines" {
				o.relayLines(r, dst)
			} else {
				o.relayRaw(r, dst)
			}
			w.Write([]byte("progress 10%"))
			testkit.WaitFor(t, launchTimeout, "the partial line", func() bool { return len(dst.get()) >= 1 })
			w.Write([]byte(" api_key='sk-live"))
			time.Sleep(3 * partialFlush) // past the partial-line flush
			w.Write([]byte("-123456' token hf_"))
			time.Sleep(3 * partialFlush)
			w.Write([]byte("zyxwvu\nend hf_zy"))
			w.Close()
			o.drain(time.Minute)
			got := strings.Join(dst.get(), "")
			want := "progress 10% api_key='" + redact.Mask + "' token " + redact.Mask + "\nend hf_zy"
			if got != want {
				t.Errorf("relayed %q, want %q", got, want)
			}
			if tail := strings.Join(o.tail.Lines(100), "\n"); strings.Contains(tail, "sk-live") || strings.Contains(tail, "zyxwvu") {
				t.Errorf("tail holds a secret: %q", tail)
			}
		})
	}
}
