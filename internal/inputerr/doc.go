// Package inputerr marks errors caused by the user's input (a profile, a
// flag, a file), which sglaunch reports with exit status 2, apart from
// failures of the run itself (exit status 1).
//
// It only marks and recognises such errors: the message must already say
// what is wrong and what would be right, and choosing the exit status is
// cmd/sglaunch's job.
package inputerr
