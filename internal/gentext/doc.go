// Package gentext renders values into the files sglaunch generates for
// other programs to read (systemd units, sbatch scripts, manifests), so
// that no value, a path with a newline included, can end a line and
// start a directive of its own.
//
// It must not know which file it writes for beyond the rule it is asked
// for, nor import anything of the project's.
package gentext
