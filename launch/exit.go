package launch

import (
	"errors"
	"log/slog"
	"syscall"

	"github.com/sglaunch/sglaunch/bench"
	"github.com/sglaunch/sglaunch/internal/inputerr"
	"github.com/sglaunch/sglaunch/launcher"
)

// Exit ends sglaunch with exit status Code, or by Signal when it is
// set (Code is then the fallback); Msg, when not empty, is printed.
type Exit struct {
	Code   int
	Msg    string
	Signal syscall.Signal
}

func (e *Exit) Error() string { return e.Msg }

// sessionEnd logs how a session ended (as JSON under --log-format json)
// and ends sglaunch with the matching status.
func sessionEnd(log *slog.Logger, err error) error {
	if inputerr.Is(err) {
		return err
	}
	if sig, ok := launcher.StoppedBySignal(err); ok && (sig == syscall.SIGTERM || sig == syscall.SIGINT || sig == syscall.SIGHUP) {
		// A requested stop, done. (Not for SIGQUIT: Go's own SIGQUIT
		// action prints a stack dump.) One that needed the SIGKILL still
		// ends the unit inactive, not failed (B6), and says so.
		if escalated(err) {
			log.Warn(err.Error())
		} else {
			log.Info(err.Error())
		}
		return &Exit{Code: 128 + int(sig), Signal: sig}
	}
	code := launcher.ExitCode(err)
	if code == 0 {
		log.Info(err.Error())
	} else {
		log.Error(err.Error())
	}
	return &Exit{Code: code}
}

// escalated reports a stop that sglaunch had to finish with SIGKILL.
func escalated(err error) bool {
	var e *launcher.Error
	return errors.As(err, &e) && e.Escalated
}

// groupEnd is how a rank of a multi-node group ends: a requested stop
// (by signal) and bad input end as they do on one node; any other end
// (this rank's server failed, another rank did, the group was lost) is
// exit status 1, on every rank, so that the orchestrator restarts the
// whole group.
func groupEnd(err error) error {
	var x *Exit
	if errors.As(err, &x) && x.Signal == 0 && x.Code != 0 && x.Code != 2 {
		return &Exit{Code: 1, Msg: x.Msg}
	}
	return err
}

// benchEnd is how a bench run ends: 128+N when signal N cut it short,
// else 1 when it failed (its record says why).
func benchEnd(err error) error {
	var intr *bench.Interrupted
	switch {
	case errors.As(err, &intr):
		return &Exit{Code: 128 + int(intr.Signal), Msg: intr.Error()}
	case err != nil:
		return &Exit{Code: 1, Msg: err.Error()}
	}
	return nil
}
