package sglangapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// ErrBodyTooLarge: a response was larger than Options.MaxBodyBytes.
var ErrBodyTooLarge = errors.New("response body over the size limit")

// StatusError is an answer other than 200 OK.
type StatusError struct {
	Method string
	URL    string
	Code   int    // 503
	Status string // "503 Service Unavailable"
	// Message is what the body said, briefly: SGLang's {"error": ...},
	// {"message": ...}, {"detail": ...}, or the first line of a text
	// body; "" when it said nothing more than the status.
	Message string
}

func (e *StatusError) Error() string {
	s := e.Method + " " + e.URL + ": " + e.Status
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// StatusCode is the HTTP status carried by err (a *StatusError anywhere in
// its chain), or 0 when err is not an HTTP answer: nil, refused, timed
// out, reset...
func StatusCode(err error) int {
	var se *StatusError
	if errors.As(err, &se) {
		return se.Code
	}
	return 0
}

// errorBodyBytes is how much of an error body is read for its message.
const errorBodyBytes = 4 << 10

// CheckResponse returns nil for 200 OK. For any other status it reads the
// start of the body for its message and returns a *StatusError; the
// caller still closes the body.
func CheckResponse(resp *http.Response) error {
	if resp.StatusCode == http.StatusOK {
		return nil
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, errorBodyBytes))
	e := &StatusError{Code: resp.StatusCode, Status: resp.Status, Message: bodyMessage(body, resp.StatusCode)}
	if e.Status == "" {
		e.Status = fmt.Sprintf("%d %s", resp.StatusCode, http.StatusText(resp.StatusCode))
	}
	if req := resp.Request; req != nil {
		e.Method, e.URL = req.Method, req.URL.String()
	}
	return e
}

// maxMessage caps a StatusError's message.
const maxMessage = 200

// bodyMessage digs a short message out of an error body.
func bodyMessage(body []byte, code int) string {
	msg := strings.TrimSpace(string(body))
	var v any
	if json.Unmarshal(body, &v) == nil {
		msg = jsonMessage(v)
	}
	msg, _, _ = strings.Cut(msg, "\n")
	msg = strings.TrimSpace(msg)
	if strings.EqualFold(msg, http.StatusText(code)) {
		return ""
	}
	if len(msg) > maxMessage {
		msg = msg[:maxMessage] + "..."
	}
	return msg
}

// jsonMessage finds the message in SGLang's error shapes: {"error":
// "..."}, {"error": {"message": "..."}}, {"message": "..."} (OpenAI
// ErrorResponse), {"detail": "..."} (FastAPI).
func jsonMessage(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case map[string]any:
		for _, k := range []string{"error", "message", "detail"} {
			if inner, ok := t[k]; ok {
				if m := jsonMessage(inner); m != "" {
					return m
				}
			}
		}
	case nil:
		return ""
	}
	b, _ := json.Marshal(v)
	return string(b)
}
