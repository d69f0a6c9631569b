package bench

import "math"

// Statistics for telling a real difference from noise: Welch's t-test on
// two sets of round results (unequal variances, unequal counts), with the
// Student t distribution computed from the regularized incomplete beta
// function (Numerical Recipes' continued fraction).

// spread is what two sets of round values show of the noise in a
// difference between them: the difference of their means, its standard
// error (Welch's, for unequal variances and counts) and the degrees of
// freedom of that error.
type spread struct{ diff, se, df float64 }

// welch is the spread of b against a; ok is false with fewer than two
// values on either side.
func welch(a, b []float64) (s spread, ok bool) {
	if len(a) < 2 || len(b) < 2 {
		return spread{}, false
	}
	ma, va := meanVar(a)
	mb, vb := meanVar(b)
	sa, sb := va/float64(len(a)), vb/float64(len(b))
	s = spread{diff: mb - ma, se: math.Sqrt(sa + sb)}
	if s.se > 0 {
		s.df = (sa + sb) * (sa + sb) / (sa*sa/float64(len(a)-1) + sb*sb/float64(len(b)-1))
	}
	return s, true
}

// interval is a 95 % interval of a difference measured as center, with
// this spread's noise.
func (s spread) interval(center float64) (lo, hi float64) {
	if s.se == 0 {
		return center, center
	}
	q := studentQuantile(0.975, s.df)
	return center - q*s.se, center + q*s.se
}

// confidence is how sure a difference measured as center is not zero:
// 1 - the two-sided p-value of Student's t.
func (s spread) confidence(center float64) float64 {
	switch {
	case center == 0:
		return 0
	case s.se == 0:
		return 1
	}
	return 1 - 2*(1-studentCDF(math.Abs(center)/s.se, s.df))
}

// meanVar is the mean and the sample variance (n - 1).
func meanVar(v []float64) (mean, variance float64) {
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	for _, x := range v {
		variance += (x - mean) * (x - mean)
	}
	return mean, variance / float64(len(v)-1)
}

// studentCDF is P(T <= t) for Student's t with df degrees of freedom.
func studentCDF(t, df float64) float64 {
	x := df / (df + t*t)
	tail := 0.5 * incBeta(df/2, 0.5, x)
	if t >= 0 {
		return 1 - tail
	}
	return tail
}

// studentQuantile inverts studentCDF for p in (0.5, 1) by bisection.
func studentQuantile(p, df float64) float64 {
	lo, hi := 0.0, 1.0
	for studentCDF(hi, df) < p {
		hi *= 2
		if hi > 1e9 {
			return hi
		}
	}
	for range 200 {
		mid := (lo + hi) / 2
		if studentCDF(mid, df) < p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// incBeta is the regularized incomplete beta function I_x(a, b).
func incBeta(a, b, x float64) float64 {
	switch {
	case x <= 0:
		return 0
	case x >= 1:
		return 1
	}
	la, _ := math.Lgamma(a + b)
	lb, _ := math.Lgamma(a)
	lc, _ := math.Lgamma(b)
	front := math.Exp(la - lb - lc + a*math.Log(x) + b*math.Log(1-x))
	if x < (a+1)/(a+b+2) {
		return front * betaCF(a, b, x) / a
	}
	return 1 - front*betaCF(b, a, 1-x)/b
}

// betaCF evaluates the continued fraction of the incomplete beta function
// by the modified Lentz method.
func betaCF(a, b, x float64) float64 {
	const tiny, eps = 1e-300, 1e-15
	qab, qap, qam := a+b, a+1, a-1
	c, d := 1.0, 1-qab*x/qap
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	h := d
	// step takes one term aa of the fraction into d and c and returns
	// the factor it changes h by; each iteration takes an even and an
	// odd term.
	step := func(aa float64) float64 {
		d = 1 + aa*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + aa/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		return d * c
	}
	for m := 1; m <= 300; m++ {
		fm := float64(m)
		h *= step(fm * (b - fm) * x / ((qam + 2*fm) * (a + 2*fm)))
		del := step(-(a + fm) * (qab + fm) * x / ((a + 2*fm) * (qap + 2*fm)))
		h *= del
		if math.Abs(del-1) < eps {
			break
		}
	}
	return h
}
