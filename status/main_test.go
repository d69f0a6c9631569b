package status

import _ "github.com/sglaunch/sglaunch/internal/testkit" // -update
