package preflight

// subject is what a finding is about: a check, a name and where the
// setting came from.
type subject struct{ check, name, where string }

func (s subject) pass(reason string) Finding {
	return Finding{Check: s.check, Status: Pass, Subject: s.name, Reason: reason, Where: s.where}
}

func (s subject) skip(reason string) Finding {
	return Finding{Check: s.check, Status: Skip, Subject: s.name, Reason: reason, Where: s.where}
}

func (s subject) warn(reason, fix string) Finding {
	return Finding{Check: s.check, Status: Warn, Subject: s.name, Reason: reason, Fix: fix, Where: s.where}
}

func (s subject) fail(reason, fix string) Finding {
	return Finding{Check: s.check, Status: Fail, Subject: s.name, Reason: reason, Fix: fix, Where: s.where}
}

// verdicts collects one subject's problems, or the reason it passes.
type verdicts struct {
	subject
	out []Finding
	ok  string
}

func (v *verdicts) warn(reason, fix string) { v.out = append(v.out, v.subject.warn(reason, fix)) }
func (v *verdicts) fail(reason, fix string) { v.out = append(v.out, v.subject.fail(reason, fix)) }

// pass sets the reason shown when nothing is wrong.
func (v *verdicts) pass(reason string) { v.ok = reason }

// failed reports whether a problem was recorded.
func (v *verdicts) failed() bool { return len(v.out) > 0 }

// findings returns the problems, or one PASS.
func (v *verdicts) findings() []Finding {
	if len(v.out) > 0 {
		return v.out
	}
	ok := v.ok
	if ok == "" {
		ok = "valid"
	}
	return []Finding{v.subject.pass(ok)}
}
