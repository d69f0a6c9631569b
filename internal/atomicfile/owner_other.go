//go:build !unix

package atomicfile

import "os"

// ownerOf is the effective user on platforms without owners, so that
// stale temporary files are still removed.
func ownerOf(os.FileInfo) int { return os.Geteuid() }
