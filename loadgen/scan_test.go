package loadgen

import (
	"encoding/json"
	"testing"
)

func TestEachMemberMatchesEncodingJSON(t *testing.T) {
	inputs := []string{
		`{}`,
		`{"a":1}`,
		` { "a" : 1 , "b":"x" } `,
		`{"text":" the \"quoted\" and \\ back\\\\","meta_info":{"completion_tokens":3,"prompt_tokens":10}}`,
		`{"a":[1,{"b":"]}"},[]],"c":{"d":{"e":null}},"f":true,"g":-1.5e3}`,
		`{"s":"\\"}`,
		`{"s":"a\u0022b","t":"}"}`,
	}
	for _, in := range inputs {
		var want map[string]json.RawMessage
		if err := json.Unmarshal([]byte(in), &want); err != nil {
			t.Fatalf("bad test input %s: %v", in, err)
		}
		got := map[string]string{}
		if err := eachMember([]byte(in), func(k, v []byte) bool { got[string(k)] = string(v); return true }); err != nil {
			t.Errorf("eachMember(%s): %v", in, err)
			continue
		}
		if len(got) != len(want) {
			t.Errorf("eachMember(%s): got %d members, want %d", in, len(got), len(want))
		}
		for k, v := range want {
			if got[k] != string(v) {
				t.Errorf("eachMember(%s)[%s]: got %q, want %q", in, k, got[k], v)
			}
		}
	}
}

func TestEachMemberMalformed(t *testing.T) {
	for _, in := range []string{``, `[]`, `{`, `{"a"}`, `{"a":}`, `{"a":"x}`, `{"a":1 "b":2}`, `{"a":[1,2}`, `{a:1}`} {
		if err := eachMember([]byte(in), func(k, v []byte) bool { return true }); err == nil {
			t.Errorf("eachMember(%q): got no error, want one", in)
		}
	}
}

func TestScanInt(t *testing.T) {
	tests := []struct {
		in   string
		want int
		ok   bool
	}{{"0", 0, true}, {"512", 512, true}, {"null", -1, true}, {"-3", 0, false}, {"1.5", 0, false}, {`"3"`, 0, false}, {"", 0, false}, {"1234567890123456789", 0, false}, {"-", 0, false}}
	for _, tt := range tests {
		got, err := scanInt([]byte(tt.in))
		if (err == nil) != tt.ok || (tt.ok && got != tt.want) {
			t.Errorf("scanInt(%q): got %d, %v; want %d, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

func BenchmarkGenerateChunk(b *testing.B) {
	text := make([]byte, 0, 2600)
	for range 512 {
		text = append(text, " tok"...)
	}
	data := []byte(`{"text":"` + string(text) + `","meta_info":{"id":"7acbaa43c3d349e99bfb1a0c21e7e829","finish_reason":null,"prompt_tokens":1024,"weight_version":"default","total_retractions":0,"completion_tokens":512,"cached_tokens":0,"e2e_latency":5.2}}`)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		var s Sample
		st := &stream{s: &s, onToken: func(int) {}}
		if err := st.generateChunk(data, st.start); err != nil {
			b.Fatal(err)
		}
	}
}
