package loadgen

import (
	"context"
	"io"
	"net/http"
	"net/http/httptrace"
	"sync"
	"time"
)

// warmConnsTimeout bounds the opening of a level's connections: a server
// that accepts slowly delays the level by at most this much.
const warmConnsTimeout = 15 * time.Second

// warmConns leaves n connections to the server open and idle in the pool,
// so that none of a level's first wave pays the TCP handshake (and the
// server's accept) inside its TTFT. Each of n light requests (GET
// /v1/models) holds the connection it got until all n have one, so they
// cannot share: the pool ends with n distinct connections, or as many as
// could be opened before the timeout. Failures are not errors; the level's
// own requests say whether the server is reachable.
func (c *Client) warmConns(ctx context.Context, n int) {
	if n < 1 {
		return
	}
	if c.h1 != nil {
		c.h1.warm(ctx, n)
		return
	}
	ctx, cancel := context.WithTimeout(ctx, warmConnsTimeout)
	defer cancel()
	var held sync.WaitGroup
	held.Add(n)
	release := make(chan struct{})
	go func() {
		held.Wait()
		close(release)
	}()
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			var once sync.Once
			got := func() { once.Do(held.Done) }
			defer got() // a request that never got a connection
			trace := &httptrace.ClientTrace{GotConn: func(httptrace.GotConnInfo) {
				got()
				select {
				case <-release:
				case <-ctx.Done():
				}
			}}
			req, err := c.api.NewRequest(httptrace.WithClientTrace(ctx, trace), http.MethodGet, "/v1/models", nil)
			if err != nil {
				return
			}
			resp, err := c.api.Do(req)
			if err != nil {
				return
			}
			// Read to the end, so the connection goes back to the pool.
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
			resp.Body.Close()
		})
	}
	wg.Wait()
	<-release // every request has called got(): the closer is done
}
