package supervise

import (
	"context"
	"io"
	"net/http"
	"time"

	"github.com/sglaunch/sglaunch/health"
	"github.com/sglaunch/sglaunch/internal/sglangapi"
)

// startupTimeout bounds the reads of SGLang's own start-up timings once
// the server is ready.
const startupTimeout = 5 * time.Second

// officialStartup reads SGLang's own account of its start-up phases:
// /server_info's startup_time, else (under --enable-metrics) the
// sglang:startup_time_seconds and sglang:startup_cuda_graph_time_seconds
// gauges; nil when the installed SGLang has neither, or on a worker rank
// (its dummy server has no /server_info). The log's phases stay the
// fallback (health.Load.Breakdown).
func (s *Session) officialStartup() *health.StartupTime {
	if s.isWorker() {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), startupTimeout)
	defer cancel()
	c := sglangapi.New(s.plan.BaseURL(), sglangapi.Options{APIKey: s.plan.APIKey()})
	defer c.Close()
	if info, _, err := c.ServerInfo(ctx); err == nil {
		if st, ok := health.ParseStartupTime(info["startup_time"]); ok {
			return st
		}
	}
	if !s.plan.HasFlag("--enable-metrics") {
		return nil
	}
	req, err := c.NewRequest(ctx, http.MethodGet, "/metrics", nil)
	if err != nil {
		return nil
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return nil
	}
	if st, ok := health.ParseStartupGauges(body); ok {
		return st
	}
	return nil
}
