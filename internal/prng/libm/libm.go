// Package libm provides exp, log, pow and sin as PostgreSQL's pgbench gets
// them from glibc on Linux, so that pgbench's distributions and expression
// functions can be reproduced bit for bit.
//
// glibc's exp, log, pow and sin are accurate to about half an ulp: they round
// correctly except for rare inputs (measured on glibc 2.36: about 0.1% of
// random arguments for each function). Go's math package is accurate to 1–2
// ulp for Exp, Log and Sin and much less for Pow (hundreds of ulp for large
// exponents): it differs from glibc on 7–30% of arguments. The functions here
// are correctly rounded (round to nearest, ties to even), which is the
// closest one can get to glibc without its code: they agree with glibc
// wherever glibc rounds correctly (see libm_test.go for the measured rate).
//
// Method: a fast path evaluates the function in double-double arithmetic
// (error below about 2^-70 relative) and returns the rounded value when
// Ziv's test shows that the error cannot change the rounding; otherwise (about
// one call in 10^4) a slow path in math/big raises the precision until it can
// (big.go). Special values follow C99 Annex F, as glibc does.
package libm

import "math"

// dd arithmetic: a value is an unevaluated sum hi + lo with |lo| <= ulp(hi)/2.

// twoSum returns s = fl(a+b) and e with s + e = a + b exactly (Knuth).
func twoSum(a, b float64) (s, e float64) {
	s = a + b
	bb := s - a
	e = (a - (s - bb)) + (b - bb)
	return
}

// fastTwoSum is twoSum for |a| >= |b| (Dekker).
func fastTwoSum(a, b float64) (s, e float64) {
	s = a + b
	e = b - (s - a)
	return
}

// twoProd returns p = fl(a·b) and e with p + e = a·b exactly.
func twoProd(a, b float64) (p, e float64) {
	p = a * b
	e = math.FMA(a, b, -p)
	return
}

// zivRound rounds h + l to double if every value within err of it rounds the
// same way.
func zivRound(h, l, err float64) (float64, bool) {
	a := h + (l - err)
	b := h + (l + err)
	return a, a == b
}

// Exp returns e^x, correctly rounded.
func Exp(x float64) float64 {
	switch {
	case x != x:
		return x
	case x > 709.79: // > ln(MaxFloat64) = 709.7827…
		return math.Inf(1)
	case x < -745.2: // < ln(2^-1075) = -745.1332…: rounds to +0
		return 0
	case math.Abs(x) < 0x1p-60:
		return 1
	}
	h, l, k := expCore(x, 0)
	if v, ok := zivRound(h, l, h*0x1p-72); ok && k > -1022 {
		return math.Ldexp(v, k) // exact, or +Inf on overflow
	}
	return slowExp(x)
}

// expCore returns h, l, k with e^(xh+xl) ≈ 2^k·(h+l), h ∈ [1, 2], relative
// error below 2^-76, for |xh| < 746 and |xl| <= ulp(xh):
// xh + xl = (128k' + j)·ln2/128 + r with |r| <= ln2/256,
// e^(xh+xl) = 2^k' · 2^(j/128) · (1 + expm1(r)).
func expCore(xh, xl float64) (h, l float64, k int) {
	kf := math.RoundToEven(xh * expInvL)
	ki := int(kf)
	r1 := xh - kf*expL1 // exact: kf·expL1 is exact and close to xh
	p2, p2e := twoProd(kf, expL2)
	rh, rl := twoSum(r1, -p2)
	rl += xl - p2e - kf*expL3
	rh, rl = fastTwoSum(rh, rl)

	// expm1(r) = r + r²/2 + r³/6 + r⁴·(1/24 + r/120 + r²/720 + r³/5040 + r⁴/40320)
	sq, sqe := twoProd(rh, rh)
	half := 0.5 * sq
	q := ((((0x1.a01a01a01a01ap-16*rh+0x1.a01a01a01a01ap-13)*rh+0x1.6c16c16c16c17p-10)*rh+0x1.1111111111111p-7)*rh + 0x1.5555555555555p-5)
	cube := rh * sq
	eh, el := fastTwoSum(rh, half)
	el += rl + (0.5*sqe + rh*rl) + cube*0x1.5555555555555p-3 + sq*sq*q

	th, tl := expTab[ki&127][0], expTab[ki&127][1]
	ph, pl := twoProd(th, eh)
	h, l = fastTwoSum(th, ph)
	l += pl + tl + th*el + tl*eh
	h, l = fastTwoSum(h, l)
	return h, l, ki >> 7
}

// Log returns ln x, correctly rounded.
func Log(x float64) float64 {
	switch {
	case x != x || x > math.MaxFloat64:
		return x // NaN, +Inf
	case x < 0:
		return math.NaN()
	case x == 0:
		return math.Inf(-1)
	case x == 1:
		return 0
	}
	h, l, err := logDD(x)
	if v, ok := zivRound(h, l, err); ok {
		return v
	}
	return slowLog(x)
}

// logDD returns h + l ≈ ln x for finite x > 0, with absolute error below err.
func logDD(x float64) (h, l, err float64) {
	if math.Abs(x-1) < 0x1p-7 {
		r := x - 1 // exact (Sterbenz)
		h, l = log1pDD(r)
		return h, l, 0x1p-73 * math.Abs(r)
	}
	bits := math.Float64bits(x)
	e := int(bits>>52) - 1023
	if e == -1023 { // subnormal
		bits = math.Float64bits(x * 0x1p54)
		e = int(bits>>52) - 1023 - 54
	}
	// x = 2^e·m, m ∈ [1, 2); i = the top 7 bits of m's fraction.
	i := int(bits>>45) & 127
	m := math.Float64frombits(bits&(1<<52-1) | 1023<<52)
	// r = m·invc − 1 is exact: invc = k/256 has 8 significant bits, |r| < 2^-7.
	r := math.FMA(m, logTab[i][0], -1)
	ph, pl := log1pDD(r)
	// ln x = e·ln2 + (−ln invc) + log1p(r)
	fe := float64(e)
	b, be := twoProd(fe, ln2Mid)
	s, t := twoSum(fe*ln2Hi, logTab[i][1])
	s, t2 := twoSum(s, ph)
	lo := t + t2 + b + be + logTab[i][2] + pl + fe*ln2Lo
	h, l = fastTwoSum(s, lo)
	return h, l, 0x1p-80 + 0x1p-73*math.Abs(r)
}

// log1pDD returns h + l ≈ ln(1+r) for |r| <= 2^-7, absolute error below
// 2^-75·|r|: r − r²/2 + r³/3 in double-double, r⁴·(−1/4 + r/5 − … − r^8/12)
// in double.
func log1pDD(r float64) (h, l float64) {
	sq, sqe := twoProd(r, r)
	h, l = fastTwoSum(r, -0.5*sq)
	c3, c3e := twoProd(r, sq) // r³ ≈ c3 + c3e + r·sqe
	q, qe := twoProd(c3, third)
	qe += c3*thirdLo + (c3e+r*sqe)*third
	h, t := twoSum(h, q)
	p := ((((((((-0x1.5555555555555p-4*r+0x1.745d1745d1746p-4)*r-0x1.999999999999ap-4)*r+0x1.c71c71c71c71cp-4)*r-0x1p-3)*r+0x1.2492492492492p-3)*r-0x1.5555555555555p-3)*r+0x1.999999999999ap-3)*r - 0x1p-2)
	l += t - 0.5*sqe + qe + sq*sq*p
	return h, l
}

// 1/3 = third + thirdLo.
const (
	third   = 0x1.5555555555555p-2
	thirdLo = 0x1.5555555555555p-56
)

// Sin returns sin x (x in radians), correctly rounded.
func Sin(x float64) float64 {
	ax := math.Abs(x)
	switch {
	case x != x || ax > math.MaxFloat64:
		return math.NaN()
	case ax < 0x1p-27: // |x³/6| < ulp(x)/4: sin x rounds to x (±0 included)
		return x
	case ax >= 0x1p20:
		return slowSin(x)
	}
	h, l, err := sinDD(x)
	if v, ok := zivRound(h, l, err); ok {
		return v
	}
	return slowSin(x)
}

// sinDD returns h + l ≈ sin x for 2^-27 <= |x| < 2^20, absolute error below
// err: x = q·π/2 + r (π/2 to 139 bits), then sin or cos of r by the quadrant,
// with r = j/64 + t, |t| <= 1/128, from the table of sin and cos of j/64 and
// Taylor series of sin t and cos t.
func sinDD(x float64) (h, l, err float64) {
	var rh, rl, errR float64
	q := 0
	if math.Abs(x) < 0.7853981633974483 {
		rh = x
	} else {
		qf := math.RoundToEven(x * invPio2)
		q = int(qf)
		r1 := x - qf*pio2P1 // exact
		p2, p2e := twoProd(qf, pio2P2)
		rh, rl = twoSum(r1, -p2)
		rl += -p2e - qf*pio2P3
		rh, rl = fastTwoSum(rh, rl)
		errR = math.Abs(qf) * 0x1p-128
	}
	// sin(±|r|), cos(±|r|): work with a = |r|.
	sign := 1.0
	if rh < 0 {
		rh, rl, sign = -rh, -rl, -1
	}
	j := int(rh*64 + 0.5)
	th, tl := twoSum(rh-float64(j)/64, rl) // rh − j/64 is exact
	S := [2]float64{sinTab[j][0], sinTab[j][1]}
	C := [2]float64{sinTab[j][2], sinTab[j][3]}
	var A, B [2]float64
	var outSign float64
	if q&1 == 0 { // ±sin r = ±(S cos t + C sin t)
		A, B = S, C
		outSign = sign
	} else { // ±cos r = ±(C cos t − S sin t)
		A, B = C, [2]float64{-S[0], -S[1]}
		outSign = 1
	}
	if q&2 != 0 {
		outSign = -outSign
	}

	// cos t − 1 = −t²/2 + t⁴/24 − t⁶/720 + t⁸/40320 − t^10/3628800
	t2, t2e := twoProd(th, th)
	t2e += 2 * th * tl
	cth := -0.5 * t2
	ctl := -0.5*t2e + t2*t2*(((-0x1.27e4fb7789f5cp-22*t2+0x1.a01a01a01a01ap-16)*t2-0x1.6c16c16c16c17p-10)*t2+0x1.5555555555555p-5)
	// sin t − t = −t³/6 + t⁵·(1/120 − t²/5040 + t⁴/362880)
	c3, c3e := twoProd(t2, th)
	c3e += t2e * th
	sq, sqe := twoProd(c3, -sixth)
	sqe += -c3*sixthLo - c3e*sixth + c3*t2*((0x1.71de3a556c734p-19*t2-0x1.a01a01a01a01ap-13)*t2+0x1.1111111111111p-7)

	// A + B·t + A·(cos t − 1) + B·(sin t − t)
	p1, p1e := twoProd(B[0], th)
	p1e += B[0]*tl + B[1]*th
	p2, p2e := twoProd(A[0], cth)
	p2e += A[0]*ctl + A[1]*cth
	p3, p3e := twoProd(B[0], sq)
	p3e += B[0]*sqe + B[1]*sq
	s1, e1 := twoSum(A[0], p1)
	s2, e2 := twoSum(s1, p2)
	s3, e3 := twoSum(s2, p3)
	lo := A[1] + e1 + e2 + e3 + p1e + p2e + p3e
	h, l = fastTwoSum(s3, lo)
	return outSign * h, outSign * l, math.Abs(h)*0x1p-76 + errR
}

// 1/6 = sixth + sixthLo.
const (
	sixth   = 0x1.5555555555555p-3
	sixthLo = 0x1.5555555555555p-57
)

// Pow returns x^y, correctly rounded, with C99's special cases.
func Pow(x, y float64) float64 {
	if x == 0 || y == 0 || x == 1 || x != x || y != y ||
		math.IsInf(x, 0) || math.IsInf(y, 0) {
		return math.Pow(x, y) // the special cases of C99 Annex F, exact
	}
	neg := false
	if x < 0 {
		if y != math.Trunc(y) {
			return math.NaN()
		}
		neg = math.Abs(y) < 0x1p53 && math.Mod(y, 2) != 0
		x = -x
	}
	v := powAbs(x, y)
	if neg {
		return -v
	}
	return v
}

// powAbs returns x^y for finite x > 0, x != 1, finite y != 0:
// e^(y·ln x) with ln x in double-double.
func powAbs(x, y float64) float64 {
	lh, ll, errL := logDD(x)
	zh, zl := twoProd(y, lh)
	zl += y * ll
	switch {
	case zh > 709.79:
		return math.Inf(1)
	case zh < -745.2:
		return 0
	case zh < -708 || zh > 709.7: // subnormal or close to overflow: slow path
		return slowPowAbs(x, y)
	}
	zh, zl = fastTwoSum(zh, zl)
	h, l, k := expCore(zh, zl)
	err := h * (0x1p-72 + 1.01*math.Abs(y)*errL + math.Abs(zh)*0x1p-100)
	if v, ok := zivRound(h, l, err); ok {
		return math.Ldexp(v, k)
	}
	return slowPowAbs(x, y)
}
