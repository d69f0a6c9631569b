package health

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"syscall"
	"time"

	"github.com/hashicorp/go-retryablehttp"

	"github.com/sglaunch/sglaunch/internal/sglangapi"
)

// httpClient is the HTTP client probes of rawURL go through: the SGLang
// API client's transport (no proxy for a local server, the environment's
// for a remote one), with timeout per attempt, which must be above
// SGLang's 20 s health generation.
func httpClient(rawURL string, timeout time.Duration) *http.Client {
	base := rawURL
	if u, err := url.Parse(rawURL); err == nil && u.Host != "" {
		base = u.Scheme + "://" + u.Host
	}
	hc := sglangapi.New(base, sglangapi.Options{HealthTimeout: timeout, DialTimeout: timeout}).HTTPClient()
	hc.Timeout = timeout
	return hc
}

// probeOnce asks url once; nil means 200, a *sglangapi.StatusError
// another answer.
func probeOnce(ctx context.Context, client *retryablehttp.Client, url string) error {
	req, err := retryablehttp.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return fmt.Errorf("probe %s: %w", url, err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if err := sglangapi.CheckResponse(resp); err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	return nil
}

// notOK is how a probe answered with a status other than 200 is noted.
func notOK(resp *http.Response) string {
	return describe(&sglangapi.StatusError{Code: resp.StatusCode, Status: resp.Status})
}

// describe shortens a probe error for status lines: the cause, not the
// whole chain retryablehttp and net/http wrap around it.
func describe(err error) string {
	var se *sglangapi.StatusError
	var op *net.OpError
	switch {
	case err == nil:
		return "ok"
	case errors.As(err, &se):
		return "answered " + se.Status
	case errors.Is(err, context.DeadlineExceeded), isTimeout(err):
		return "timed out"
	case errors.As(err, &op) && op.Err != nil:
		return op.Err.Error()
	}
	return err.Error()
}

// How a probe ended, in the words Check.Result uses.
const (
	ResultOK          = "ok"          // 200
	ResultRefused     = "refused"     // connection refused: the port is not bound
	ResultUnavailable = "unavailable" // 503: loading, warming up, shutting down or a rank hung
	ResultTimeout     = "timeout"     // no answer within the request timeout
	ResultHTTPError   = "http_error"  // another HTTP status
	ResultError       = "error"       // anything else (reset, DNS, a bad URL)
)

// Results lists every word Check.Result may return.
var Results = []string{ResultOK, ResultRefused, ResultUnavailable, ResultTimeout, ResultHTTPError, ResultError}

func result(err error) string {
	var se *sglangapi.StatusError
	switch {
	case err == nil:
		return ResultOK
	case errors.As(err, &se) && se.Code == http.StatusServiceUnavailable:
		return ResultUnavailable
	case errors.As(err, &se):
		return ResultHTTPError
	case errors.Is(err, context.DeadlineExceeded), isTimeout(err):
		return ResultTimeout
	case errors.Is(err, syscall.ECONNREFUSED):
		return ResultRefused
	}
	return ResultError
}

func isTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}
