//go:build unix

package atomicfile

import (
	"os"
	"syscall"
)

func ownerOf(fi os.FileInfo) int {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid)
	}
	return -1
}
