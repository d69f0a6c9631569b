package profiles

import (
	"errors"

	"github.com/sglaunch/sglaunch/internal/yamlnode"
)

// ErrNotFound is returned when no profile answers to a name.
var ErrNotFound = errors.New("profile not found")

// Error is a problem at one place of a profile, with what would be right:
// file:line:col: key: msg.
type Error = yamlnode.Error
