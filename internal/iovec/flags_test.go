package iovec

// testkit registers the -update flag that go test ./... -update passes
// to every package.
import _ "github.com/sglaunch/sglaunch/internal/testkit"
