// Package jsonout writes a value as the commands print JSON: indented
// by two spaces, a newline after it.
//
// It must not know any of sglaunch's types, nor mask anything: a type
// that holds secrets masks them in its own MarshalJSON.
package jsonout
