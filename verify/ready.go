package verify

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/sglaunch/sglaunch/internal/proc"
	"github.com/sglaunch/sglaunch/internal/sglangapi"
)

// upTimeout bounds the "is it up" request: an introspection endpoint,
// answered without the GPUs.
const upTimeout = 15 * time.Second

// CheckReady fails with ErrLoading while the server is still loading (its
// launch not ready yet, connections refused, or 503) and with ErrGone
// when it no longer runs. It asks nothing that generates: /ready where
// the server has it, else /v1/models (sglangapi.Up), never /health,
// which on SGLang runs a one-token generation on the GPUs of the
// deployment being checked.
func CheckReady(ctx context.Context, l *Located) error {
	if l.State != nil && l.State.ReadyAt.IsZero() && l.ServerPID == 0 {
		return fmt.Errorf("the server of profile %s (sglaunch pid %d) is starting (since %s): it is %w; verify once it is ready", l.State.Profile, l.State.SglaunchPID, l.State.StartedAt.Format(time.RFC3339), ErrLoading)
	}
	if l.State != nil && l.State.ReadyAt.IsZero() {
		return fmt.Errorf("server pid %d (profile %s) started %s and is %w; verify once it is ready", l.ServerPID, l.State.Profile, l.State.StartedAt.Format(time.RFC3339), ErrLoading)
	}
	if l.URL == "" {
		return nil
	}
	c := sglangapi.New(l.URL, sglangapi.Options{APIKey: l.APIKey, InfoTimeout: upTimeout})
	defer c.Close()
	path, err := c.Up(ctx)
	switch code := sglangapi.StatusCode(err); {
	case err == nil:
		return nil
	case code == http.StatusServiceUnavailable:
		return fmt.Errorf("%s%s answers 503: the server is %w (or shutting down); verify once it is ready", l.URL, path, ErrLoading)
	case code != 0:
		// Any other answer: the server is up; what it says about itself
		// comes from the observation.
		return nil
	case l.ServerPID > 0 && proc.Alive(l.ServerPID):
		return fmt.Errorf("server pid %d runs but %s does not answer (%v): it is %w; verify once it is ready", l.ServerPID, l.URL, err, ErrLoading)
	case l.ServerPID == 0:
		return fmt.Errorf("%s does not answer: %v: %w", l.URL, err, ErrGone)
	}
	return fmt.Errorf("server pid %d: %w", l.ServerPID, ErrGone)
}

// CheckPort confirms that the socket behind the located server's local
// address belongs to the server's own tree: /server_info from another
// process on the port (a second launch, a leftover) would be compared as
// if it were this server's. A remote address, or no known pid, is not
// checked.
func CheckPort(l *Located) error {
	if l.ServerPID <= 0 || l.URL == "" {
		return nil
	}
	u, err := url.Parse(l.URL)
	if err != nil || !isLocal(u.Hostname()) {
		return nil
	}
	port, _ := strconv.Atoi(u.Port())
	if port <= 0 {
		return nil
	}
	err = proc.CheckPortOwner(port, l.ServerPID)
	var pe *proc.PortError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &pe):
		return fmt.Errorf("%w: %s; the located server (%s) has not bound its port, another process answers there", ErrWrongServer, pe, l.How)
	case errors.Is(err, proc.ErrNotListening):
		// It answered, yet no socket is in sight: another network
		// namespace. Nothing to tell either way.
		return nil
	}
	return err
}
