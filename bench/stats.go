package bench

import "math"

// Statistics for telling a real difference from noise: Welch's t-test on
// two sets of round results (unequal variances, unequal counts), with the
// Student t distribution computed from the regularized incomplete beta
// function (Numerical Recipes' continued fraction).

// welch compares the means of b and a: their difference, a 95 % interval
// of it, and the confidence that they differ (1 - the two-sided p-value).
// ok is false with fewer than two values on either side.
func welch(a, b []float64) (diff, lo, hi, conf float64, ok bool) {
	if len(a) < 2 || len(b) < 2 {
		return 0, 0, 0, 0, false
	}
	ma, va := meanVar(a)
	mb, vb := meanVar(b)
	diff = mb - ma
	sa, sb := va/float64(len(a)), vb/float64(len(b))
	se := math.Sqrt(sa + sb)
	if se == 0 {
		if diff == 0 {
			return 0, 0, 0, 0, true
		}
		return diff, diff, diff, 1, true
	}
	df := (sa + sb) * (sa + sb) / (sa*sa/float64(len(a)-1) + sb*sb/float64(len(b)-1))
	t := math.Abs(diff) / se
	conf = 1 - 2*(1-studentCDF(t, df))
	q := studentQuantile(0.975, df)
	return diff, diff - q*se, diff + q*se, conf, true
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
	for m := 1; m <= 300; m++ {
		fm := float64(m)
		aa := fm * (b - fm) * x / ((qam + 2*fm) * (a + 2*fm))
		d = 1 + aa*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + aa/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		h *= d * c
		aa = -(a + fm) * (qab + fm) * x / ((a + 2*fm) * (qap + 2*fm))
		d = 1 + aa*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + aa/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		del := d * c
		h *= del
		if math.Abs(del-1) < eps {
			break
		}
	}
	return h
}
