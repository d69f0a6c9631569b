//go:build !linux

package proc

import "errors"

// listeningDiag needs Linux's NETLINK_SOCK_DIAG.
func listeningDiag(int) (map[string]bool, error) { return nil, errors.ErrUnsupported }
