package preflight

import "github.com/sglaunch/sglaunch/plan"

// checkRepeats warns about each setting the plan was given twice in one
// layer through two spellings (args.tp and args.tp-size): the plan passes
// it once, so the flag check below never sees the repeat, but one of the
// two values the user wrote is lost.
func checkRepeats(p *plan.Plan) []Finding {
	var out []Finding
	for _, r := range p.Repeats {
		out = append(out, subject{CheckFlags, r.Setting, r.Again}.warn(
			"given again (first as "+r.First+"): one setting in SGLang, so only this last value is passed",
			"give it once"))
	}
	return out
}
