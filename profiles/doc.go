// Package profiles reads sglaunch profiles: the YAML format, strict
// validation with file:line:column errors, lookup by name along the search
// path, the built-in profiles embedded in the binary, and `extends`
// inheritance (a child's args replace its parent's by SGLang setting, so
// tp-size replaces tp; the catalog says which spellings are one setting).
//
// A profile keeps every scalar exactly as written (0.88 stays 0.88,
// 16777216 never becomes 1.6777216e+07) and remembers where each value
// came from. The package does not know about modes beyond carrying the
// serve and bench overlays, does not read SGLAUNCH_* settings, and never
// starts processes: turning a profile into a launch plan is the launcher's
// job.
package profiles
