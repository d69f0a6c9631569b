package loadgen

import "testing"

// TestSpecFromRequests: SGLang's per-request speculative decoding figures
// come on the finished chunk only: in /generate's meta_info, and on the
// OpenAI endpoints in the sglext chunk before usage (an object, or a list
// when n > 1). They are read into the sample and pooled as output tokens
// over verify steps.
func TestSpecFromRequests(t *testing.T) {
	tests := []struct {
		name   string
		api    API
		chunks []string
		want   Spec
	}{
		{"generate, last chunk", Generate, []string{
			`{"text":" a","meta_info":{"completion_tokens":1,"finish_reason":null}}`,
			`{"text":" a b c d","meta_info":{"completion_tokens":4,"finish_reason":{"type":"length"},"spec_accept_rate":0.5,"spec_accept_length":4.0,"spec_verify_ct":1}}`,
		}, Spec{VerifyCt: 1, AcceptLength: 4}},
		{"generate without speculative decoding", Generate, []string{
			`{"text":" a","meta_info":{"completion_tokens":1}}`,
		}, Spec{}},
		{"chat sglext object", Chat, []string{
			`{"choices":[{"delta":{"content":" a"}}],"usage":{"prompt_tokens":3,"completion_tokens":1}}`,
			`{"choices":[],"usage":null,"sglext":{"routed_experts":null,"spec_tokens_details":{"spec_accept_length":3.1,"spec_verify_ct":10}}}`,
			`{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":31}}`,
		}, Spec{VerifyCt: 10, AcceptLength: 3.1}},
		{"chat sglext list", Chat, []string{
			`{"choices":[{"delta":{"content":" a"}}]}`,
			`{"choices":[],"sglext":{"spec_tokens_details":[{"spec_accept_length":2.5,"spec_verify_ct":4}]}}`,
		}, Spec{VerifyCt: 4, AcceptLength: 2.5}},
		{"chat sglext without details", Chat, []string{
			`{"choices":[{"delta":{"content":" a"}}]}`,
			`{"choices":[],"sglext":{"routed_experts":"x"}}`,
		}, Spec{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s Sample
			st := &stream{s: &s, start: at(0), onToken: func(int) {}}
			for i, c := range tt.chunks {
				var err error
				if tt.api == Chat {
					err = st.chatChunk([]byte(c), at(10*(i+1)))
				} else {
					err = st.generateChunk([]byte(c), at(10*(i+1)))
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			if s.Spec != tt.want {
				t.Errorf("got %+v, want %+v", s.Spec, tt.want)
			}
		})
	}

	var tot SpecTotals
	for _, s := range []Sample{
		{OK: true, OutputTokens: 31, Spec: Spec{VerifyCt: 10}},
		{OK: true, OutputTokens: 301, Spec: Spec{VerifyCt: 100}},
		{OK: false, OutputTokens: 5, Spec: Spec{VerifyCt: 1}}, // failed: not counted
		{OK: true, OutputTokens: 8},                           // no figures: not counted
	} {
		tot.Add(&s)
	}
	if tot.Requests != 2 || tot.AcceptLength() != 332.0/110 {
		t.Errorf("pooled: %d requests, accept length %v; want 2 and 332/110", tot.Requests, tot.AcceptLength())
	}
}
