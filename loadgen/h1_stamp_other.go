//go:build !linux

package loadgen

import "time"

// arrivalStamps: no kernel receive stamps here.
type arrivalStamps struct{}

// enableStamps: reads are stamped when they return.
func (hc *h1Conn) enableStamps() {}

// read reads once into p; no arrival time.
func (hc *h1Conn) read(p []byte) (int, error) {
	hc.arrived = time.Time{}
	return hc.nc.Read(p)
}
