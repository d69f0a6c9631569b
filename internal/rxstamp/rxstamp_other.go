//go:build !linux

package rxstamp

import (
	"syscall"
	"time"
)

// OOBLen: no stamps here.
const OOBLen = 0

// Enable: the kernel stamps nothing here.
func Enable(syscall.RawConn) bool { return false }

// Recv is never called where Enable is false.
func Recv(int, []byte, []byte) (int, time.Time, error) { return 0, time.Time{}, syscall.ENOTSUP }
