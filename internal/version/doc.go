// Package version says which sglaunch this is: the version set at link
// time, else the module's build info.
//
// It reports sglaunch's own version only; the SGLang version of a server
// is learnt elsewhere (bench, preflight).
package version
