package bench

import (
	"github.com/sglaunch/sglaunch/internal/inputerr"
	"github.com/sglaunch/sglaunch/plan"
	"github.com/sglaunch/sglaunch/verify"
)

// Expected is the record's plan as verify --record expects it and as diff
// compares it (plan.Side), labelled "record ID", its secrets masked, with
// the SGLang that was benchmarked. A --url run of a server sglaunch did
// not start has no known plan: an input error.
func (r *Record) Expected() (verify.Expected, plan.Side, error) {
	if r.Plan == nil {
		return verify.Expected{}, plan.Side{}, inputerr.Errorf("record %s benchmarked %s without a known plan (a --url run of a server sglaunch did not start); compare against a profile instead", r.ID, r.URL)
	}
	label := "record " + r.ID
	exp := verify.FromView(*r.Plan, label, true)
	exp.SGLang = r.SGLang
	return exp, plan.SideOfView(*r.Plan, label), nil
}
