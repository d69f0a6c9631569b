// Package pyvalue says how Python reads a value SGLang takes as text:
// int(), float(), json.loads() and SGLang's human_readable_int, and which
// number a person meant by text they reject (eight, 16M, true).
//
// It reads strings only: it knows no flag, plan or process. plan judges a
// profile's typed flags with it; preflight judges flags and variables.
package pyvalue
