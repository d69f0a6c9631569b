package status

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/sglaunch/sglaunch/internal/runstate"
)

// fetchTimeout bounds one read of a status endpoint.
const fetchTimeout = 5 * time.Second

// Fetch reads the /status of the endpoint at baseURL (http://HOST:PORT).
func Fetch(ctx context.Context, baseURL string) (*Snapshot, error) {
	ctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	url := strings.TrimRight(baseURL, "/") + "/status"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("status endpoint %s: %w", baseURL, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("status endpoint: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("status endpoint %s: %w", url, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("status endpoint %s: answered %s", url, resp.Status)
	}
	var s Snapshot
	if err := json.Unmarshal(body, &s); err != nil {
		return nil, fmt.Errorf("status endpoint %s: not sglaunch's status: %w", url, err)
	}
	if s.Profile == "" || s.Phase == "" {
		return nil, fmt.Errorf("status endpoint %s: not sglaunch's status (no profile or phase)", url)
	}
	return &s, nil
}

// FromRunState is what a launch's runtime state alone tells: who, where,
// and whether it got ready; the phase while loading, the probes and the
// rest come only from its status endpoint.
func FromRunState(st *runstate.State) *Snapshot {
	s := &Snapshot{
		Profile: st.Profile, Mode: st.Mode, Fingerprint: st.Fingerprint, URL: st.URL, StatusURL: st.StatusURL,
		PIDs: PIDs{Sglaunch: st.SglaunchPID, Server: st.ServerPID}, Load: st.Load, Stale: st.Stale, Group: st.Group,
	}
	switch {
	case st.Stale:
		s.Phase, s.Why = PhaseExited, fmt.Sprintf("stale: sglaunch (pid %d) is gone", st.SglaunchPID)
	case !st.ReadyAt.IsZero():
		s.Phase, s.Ready = PhaseReady, true
		s.SinceReadyS = round3(timeNow().Sub(st.ReadyAt).Seconds())
	default:
		s.Phase, s.Why = "loading", "loading (the phase is known only to the status endpoint: --status-addr)"
	}
	if !st.StartedAt.IsZero() && !st.Stale {
		s.ElapsedS = round3(timeNow().Sub(st.StartedAt).Seconds())
	}
	return s
}
