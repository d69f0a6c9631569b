// Package yamlnode is the strict YAML reading shared by sglaunch's file
// formats (profiles, workload files): positions and file:line:col errors
// marked as input errors, one document per file, mappings read in order
// with unknown keys (and a suggestion) and duplicate keys refused, tags
// and anchors looked through, aliases refused, and scalars kept exactly
// as written. Limits (limits.go) keep a hostile file in bounded time and
// memory: size, tokens, keys, nesting, key length, and no control
// characters in the text or in a value.
//
// It knows nothing of any format's keys or values, never converts a
// scalar's text (0.88 stays "0.88"), and never reads files: callers pass
// the bytes and the name to report.
package yamlnode
