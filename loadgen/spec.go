package loadgen

import (
	"encoding/json"
	"strconv"
)

// Speculative decoding's per-request figures, as SGLang reports them
// (srt/managers/tokenizer_manager.py, _calculate_spec_decoding_metrics):
// only once a request has finished, so on the last chunk of a stream, in
// /generate's meta_info (spec_verify_ct, spec_accept_length =
// completion_tokens / spec_verify_ct, the bonus token counted), and on the
// OpenAI endpoints in the sglext.spec_tokens_details of a chunk without
// choices, sent before the usage chunk when the request asked for
// return_spec_tokens_details (srt/entrypoints/openai/serving_chat.py).
// These are exact, where /server_info's avg_spec_accept_length is
// refreshed only every --decode-log-interval decode batches.

// Spec is one request's speculative decoding figures; zero without them.
type Spec struct {
	// VerifyCt is the number of verify steps (spec_verify_ct).
	VerifyCt int
	// AcceptLength is the server's spec_accept_length.
	AcceptLength float64
}

// specMember reads one meta_info member of a /generate chunk, when it
// is one of the speculative decoding figures.
func (st *stream) specMember(key, value []byte) error {
	switch string(key) {
	case "spec_verify_ct":
		n, err := scanInt(value)
		if err != nil {
			return err
		}
		st.s.Spec.VerifyCt = max(n, 0)
	case "spec_accept_length":
		f, err := strconv.ParseFloat(string(value), 64)
		if err == nil && f >= 0 {
			st.s.Spec.AcceptLength = f
		}
	}
	return nil
}

// specDetails is SGLang's SpecTokensDetails, the part read here.
type specDetails struct {
	AcceptLength float64 `json:"spec_accept_length"`
	VerifyCt     int     `json:"spec_verify_ct"`
}

// chatSpec reads an OpenAI chunk's sglext.spec_tokens_details: one
// object, or a list of them when the request asked for n > 1 (the first
// is this stream's, as the load asks for n = 1).
func (st *stream) chatSpec(raw json.RawMessage) {
	if len(raw) == 0 || string(raw) == "null" {
		return
	}
	var one specDetails
	if raw[0] == '[' {
		var many []specDetails
		if json.Unmarshal(raw, &many) != nil || len(many) == 0 {
			return
		}
		one = many[0]
	} else if json.Unmarshal(raw, &one) != nil {
		return
	}
	if one.VerifyCt > 0 {
		st.s.Spec = Spec{VerifyCt: one.VerifyCt, AcceptLength: one.AcceptLength}
	}
}

// SpecTotals pools the requests' speculative decoding figures: the
// accept length over every request that has them, as SGLang's own
// average weighs them (accepted tokens over verify steps): the sum of
// their output tokens over the sum of their verify steps.
type SpecTotals struct {
	Requests int
	Tokens   int
	VerifyCt int
}

// Add counts one completed request's figures, if it has them.
func (t *SpecTotals) Add(s *Sample) {
	if !s.OK || s.Spec.VerifyCt <= 0 {
		return
	}
	t.Requests++
	t.Tokens += s.OutputTokens
	t.VerifyCt += s.Spec.VerifyCt
}

// AcceptLength is the pooled accept length; 0 without any request.
func (t SpecTotals) AcceptLength() float64 {
	if t.VerifyCt == 0 {
		return 0
	}
	return float64(t.Tokens) / float64(t.VerifyCt)
}
