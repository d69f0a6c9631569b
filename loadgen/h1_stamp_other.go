//go:build !linux || race

package loadgen

import "time"

// arrivalStamps: no kernel receive stamps here (or, under the race
// detector, not read: see h1_stamp_linux.go).
type arrivalStamps struct{}

// enableStamps: reads are stamped when they return.
func (hc *h1Conn) enableStamps() {}

// readNC reads nc once into p; no arrival time.
func (hc *h1Conn) readNC(p []byte) (int, error) {
	hc.arrived = time.Time{}
	return hc.nc.Read(p)
}
