package proc

import "strings"

// Getenv reads one variable of a live process's environment as it was
// at exec (Environ), the last assignment winning as for getenv(3). ok is
// false when the variable is absent or the environment cannot be read
// (the process is gone, or belongs to another user).
func Getenv(pid int, name string) (value string, ok bool) {
	env, err := Environ(pid)
	if err != nil {
		return "", false
	}
	prefix := name + "="
	for _, kv := range env {
		if v, found := strings.CutPrefix(kv, prefix); found {
			value, ok = v, true
		}
	}
	return value, ok
}
