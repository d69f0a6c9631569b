package proc

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
)

// Getenv reads one variable of a live process's environment as it was
// at exec, the last assignment winning as for getenv(3). ok is false when
// the variable is absent or the environment cannot be read (the process
// is gone, or belongs to another user).
func Getenv(pid int, name string) (value string, ok bool) {
	env, err := os.ReadFile(filepath.Join(Root, strconv.Itoa(pid), "environ"))
	if err != nil {
		return "", false
	}
	prefix := []byte(name + "=")
	for _, kv := range bytes.Split(env, []byte{0}) {
		if v, found := bytes.CutPrefix(kv, prefix); found {
			value, ok = string(v), true
		}
	}
	return value, ok
}
