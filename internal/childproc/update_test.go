package childproc

// testkit registers -update, which go test ./... -update passes to every
// test binary: without it this package's binary would refuse the flag.
import _ "github.com/sglaunch/sglaunch/internal/testkit"
