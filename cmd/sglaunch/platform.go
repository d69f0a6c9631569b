package main

import (
	"runtime"

	"github.com/sglaunch/sglaunch/internal/inputerr"
)

// needsLinux refuses, off Linux, a command that runs or inspects a
// server: the parent-death signal, the child subreaper and /proc have no
// portable equivalent. Reading plans and records works everywhere.
func needsLinux(what string) error {
	if runtime.GOOS == "linux" {
		return nil
	}
	return inputerr.Errorf("%s needs Linux (this is %s); config, profiles, preflight --catalog, diff of profiles and records, bench list/show/compare and unit work here", what, runtime.GOOS)
}
