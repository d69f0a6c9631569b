package launch

import "github.com/sglaunch/sglaunch/internal/runstate"

// State is a launch's runtime state as a later command finds it (the
// launch verify and diff locate): the type, for the CLI, which keeps
// away from internal/runstate itself.
type State = runstate.State
