package health

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// httpClient probes the server directly: it is local, so no proxy from
// the environment applies, and each attempt has its own timeout, which
// must be above SGLang's 20 s health generation.
func httpClient(timeout time.Duration) *http.Client {
	return &http.Client{
		Timeout: timeout,
		Transport: &http.Transport{
			Proxy:               nil,
			DialContext:         (&net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}).DialContext,
			MaxIdleConns:        2,
			MaxIdleConnsPerHost: 2,
			IdleConnTimeout:     30 * time.Second,
			DisableCompression:  true,
		},
	}
}

// errNotOK reports a probe answered with a status other than 200.
type errNotOK struct{ status string }

func (e errNotOK) Error() string { return "answered " + e.status }

// probeOnce asks url once; nil means 200.
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
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode != http.StatusOK {
		return errNotOK{resp.Status}
	}
	return nil
}

// describe shortens a probe error for status lines: the cause, not the
// whole chain retryablehttp and net/http wrap around it.
func describe(err error) string {
	var nok errNotOK
	var op *net.OpError
	switch {
	case err == nil:
		return "ok"
	case errors.As(err, &nok):
		return nok.Error()
	case errors.Is(err, context.DeadlineExceeded), isTimeout(err):
		return "timed out"
	case errors.As(err, &op) && op.Err != nil:
		return op.Err.Error()
	}
	return err.Error()
}

func isTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}
