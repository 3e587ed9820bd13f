package libm

import (
	"math"
	"math/big"
	"sync"
)

// The slow path: exp, log, sin and pow evaluated with math/big to any
// precision, rounded to double by Ziv's strategy (raise the precision until
// the rounding is certain). It decides the cases the fast paths cannot and
// generates the tables (tables_test.go).

// guard is the number of extra bits each big evaluation carries beyond the
// precision it promises; every series and reduction below loses far fewer.
const guard = 40

// maxPrec bounds Ziv's loop: past it the value is taken to be an exact
// midpoint between two doubles (true for pow's exact cases) and rounded to
// even.
const maxPrec = 4096

// roundZiv returns f rounded to the nearest double, given f(prec), an
// approximation with relative error below 2^-prec.
func roundZiv(f func(prec uint) *big.Float) float64 {
	for prec := uint(128); ; prec *= 2 {
		v := f(prec)
		if v.Sign() == 0 {
			return 0
		}
		d := new(big.Float).SetPrec(prec+64).SetMantExp(big.NewFloat(1), v.MantExp(nil)-int(prec))
		lo := new(big.Float).SetPrec(prec+64).Sub(v, d)
		hi := new(big.Float).SetPrec(prec+64).Add(v, d)
		a, _ := lo.Float64()
		b, _ := hi.Float64()
		if a == b {
			return a
		}
		if prec >= maxPrec {
			// Within 2^-4096 of the midpoint of a and b: it is the midpoint.
			m := new(big.Float).SetPrec(200).SetFloat64(a)
			m.Add(m, new(big.Float).SetPrec(200).SetFloat64(b))
			m.SetMantExp(m, -1)
			r, _ := m.Float64() // ties to even
			return r
		}
	}
}

func newF(prec uint) *big.Float { return new(big.Float).SetPrec(prec) }

// A constCache keeps the most precise value of a constant computed so far.
type constCache struct {
	mu      sync.Mutex
	v       *big.Float
	compute func(prec uint) *big.Float
}

func (c *constCache) get(prec uint) *big.Float {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.v == nil || c.v.Prec() < prec {
		c.v = c.compute(prec + 64)
	}
	return newF(prec).Set(c.v)
}

// ln 2 = 2·atanh(1/3) = 2·Σ 3^−(2k+1)/(2k+1).
var ln2Cache = constCache{compute: func(prec uint) *big.Float {
	third := newF(prec).Quo(newF(prec).SetInt64(1), newF(prec).SetInt64(3))
	v := atanhSeries(third, prec)
	return v.SetMantExp(v, 1)
}}

// π = 16·atan(1/5) − 4·atan(1/239) (Machin).
var piCache = constCache{compute: func(prec uint) *big.Float {
	a := atanInv(5, prec)
	b := atanInv(239, prec)
	a.Mul(a, newF(prec).SetInt64(16))
	b.Mul(b, newF(prec).SetInt64(4))
	return a.Sub(a, b)
}}

// atanhSeries returns atanh(f) = Σ f^(2k+1)/(2k+1) for |f| <= 1/3, relative
// error below 2^-(prec−8).
func atanhSeries(f *big.Float, prec uint) *big.Float {
	sum := newF(prec).Set(f)
	if f.Sign() == 0 {
		return sum
	}
	f2 := newF(prec).Mul(f, f)
	p := newF(prec).Set(f)
	limit := f.MantExp(nil) - int(prec) - 4
	term := newF(prec)
	for k := int64(1); ; k++ {
		p.Mul(p, f2)
		if p.Sign() == 0 || p.MantExp(nil) < limit {
			return sum
		}
		term.Quo(p, newF(prec).SetInt64(2*k+1))
		sum.Add(sum, term)
	}
}

// atanInv returns atan(1/n) = Σ (−1)^k / ((2k+1)·n^(2k+1)).
func atanInv(n int64, prec uint) *big.Float {
	x := newF(prec).Quo(newF(prec).SetInt64(1), newF(prec).SetInt64(n))
	x2 := newF(prec).Mul(x, x)
	sum := newF(prec).Set(x)
	p := newF(prec).Set(x)
	term := newF(prec)
	for k := int64(1); ; k++ {
		p.Mul(p, x2)
		if p.MantExp(nil) < -int(prec)-4 {
			return sum
		}
		term.Quo(p, newF(prec).SetInt64(2*k+1))
		if k%2 == 1 {
			sum.Sub(sum, term)
		} else {
			sum.Add(sum, term)
		}
	}
}

// bigLog returns ln x for x > 0, relative error below 2^-prec:
// x = m·2^e with m ∈ [2/3, 4/3), ln x = 2·atanh((m−1)/(m+1)) + e·ln 2, where
// |(m−1)/(m+1)| <= 1/5 and the two terms never cancel by more than a factor 3.
func bigLog(x *big.Float, prec uint) *big.Float {
	wp := prec + guard
	m := newF(wp)
	e := x.MantExp(m) // m ∈ [0.5, 1)
	if m.Cmp(big.NewFloat(2.0/3)) < 0 {
		m.SetMantExp(m, 1)
		e--
	}
	num := newF(wp).Sub(m, big.NewFloat(1))
	den := newF(wp).Add(m, big.NewFloat(1))
	s := atanhSeries(num.Quo(num, den), wp)
	s.SetMantExp(s, 1)
	if e != 0 {
		l := ln2Cache.get(wp)
		s.Add(s, l.Mul(l, newF(wp).SetInt64(int64(e))))
	}
	return s
}

// bigExp returns e^x, relative error below 2^-prec, for |x| < 2^20:
// x = k·ln 2 + r with |r| <= ln2/2, e^r = (Taylor(r/2^s))^(2^s), times 2^k.
func bigExp(x *big.Float, prec uint) *big.Float {
	const s = 20
	wp := prec + guard + s + 24
	if x.Sign() == 0 {
		return newF(prec).SetInt64(1)
	}
	l := ln2Cache.get(wp)
	q := newF(wp).Quo(x, l)
	kf, _ := q.Float64()
	k := int64(math.RoundToEven(kf))
	r := newF(wp).Sub(x, newF(wp).Mul(l, newF(wp).SetInt64(k)))
	r.SetMantExp(r, -s)
	sum := newF(wp).SetInt64(1)
	term := newF(wp).SetInt64(1)
	for n := int64(1); ; n++ {
		term.Mul(term, r)
		term.Quo(term, newF(wp).SetInt64(n))
		if term.Sign() == 0 || term.MantExp(nil) < -int(wp)-4 {
			break
		}
		sum.Add(sum, term)
	}
	for range s {
		sum.Mul(sum, sum)
	}
	return sum.SetMantExp(sum, int(k))
}

// bigSin returns sin x for a finite double x, relative error below 2^-prec:
// x = q·π/2 + r with |r| <= π/4 (π carried to enough bits for any double),
// then the Taylor series of sin r or cos r by the quadrant q mod 4.
func bigSin(x float64, prec uint) *big.Float {
	_, ex := math.Frexp(x)
	// A double is never closer than 2^-62·|x| to a multiple of π/2 (> 2^-1200
	// absolutely), so 2·1200 bits beyond prec cover any cancellation.
	wp := prec + guard + uint(max(ex, 0)) + 160
	bx := newF(wp).SetFloat64(x)
	halfPi := piCache.get(wp + uint(max(ex, 0)))
	halfPi.SetMantExp(halfPi, -1)
	qf := newF(wp).Quo(bx, halfPi)
	qi, _ := qf.Int(nil)
	// round to nearest: compare the remainder with π/4
	r := newF(wp).Sub(bx, newF(wp+uint(max(ex, 0))).Mul(halfPi, newF(wp).SetInt(qi)))
	quarter := newF(wp).SetMantExp(halfPi, -1)
	one := new(big.Int).SetInt64(1)
	if r.Cmp(quarter) > 0 {
		qi.Add(qi, one)
		r.Sub(r, halfPi)
	} else if r.Cmp(newF(wp).Neg(quarter)) < 0 {
		qi.Sub(qi, one)
		r.Add(r, halfPi)
	}
	quadrant := new(big.Int).And(qi, big.NewInt(3)).Int64()
	var v *big.Float
	if quadrant%2 == 0 {
		v = sinSeries(r, wp)
	} else {
		v = cosSeries(r, wp)
	}
	if quadrant >= 2 {
		v.Neg(v)
	}
	return v
}

// sinSeries: Σ (−1)^k r^(2k+1)/(2k+1)!, |r| <= 1.
func sinSeries(r *big.Float, wp uint) *big.Float {
	sum := newF(wp).Set(r)
	if r.Sign() == 0 {
		return sum
	}
	r2 := newF(wp).Mul(r, r)
	term := newF(wp).Set(r)
	limit := r.MantExp(nil) - int(wp) - 4
	for n := int64(2); ; n += 2 {
		term.Mul(term, r2)
		term.Quo(term, newF(wp).SetInt64(n*(n+1)))
		term.Neg(term)
		if term.Sign() == 0 || term.MantExp(nil) < limit {
			return sum
		}
		sum.Add(sum, term)
	}
}

// cosSeries: Σ (−1)^k r^(2k)/(2k)!, |r| <= 1.
func cosSeries(r *big.Float, wp uint) *big.Float {
	sum := newF(wp).SetInt64(1)
	r2 := newF(wp).Mul(r, r)
	term := newF(wp).SetInt64(1)
	for n := int64(1); ; n += 2 {
		term.Mul(term, r2)
		term.Quo(term, newF(wp).SetInt64(n*(n+1)))
		term.Neg(term)
		if term.Sign() == 0 || term.MantExp(nil) < -int(wp)-4 {
			return sum
		}
		sum.Add(sum, term)
	}
}

// bigPowAbs returns |x|^y for finite x != 0 and finite y with |y·ln|x|| < 2^20,
// relative error below 2^-prec. An integer y with |y| <= 64 is computed
// exactly (x^|y| has at most 64·53 bits), so that exact midpoints such as
// 3^34 round to even.
func bigPowAbs(x, y float64, prec uint) *big.Float {
	ax := math.Abs(x)
	if y == math.Trunc(y) && math.Abs(y) <= 64 {
		n := int(math.Abs(y))
		exact := newF(64*53 + 64).SetInt64(1)
		b := newF(64*53 + 64).SetFloat64(ax)
		for ; n > 0; n >>= 1 {
			if n&1 == 1 {
				exact.Mul(exact, b)
			}
			b.Mul(b, b)
		}
		if y < 0 {
			return newF(prec+guard).Quo(newF(prec+guard).SetInt64(1), exact)
		}
		return exact
	}
	wp := prec + guard + 24
	l := bigLog(newF(wp).SetFloat64(ax), wp)
	l.Mul(l, newF(wp).SetFloat64(y))
	return bigExp(l, prec+8)
}

// Slow-path entry points: the correctly rounded double (x already screened
// for special values by the callers).
func slowExp(x float64) float64 {
	return roundZiv(func(p uint) *big.Float { return bigExp(newF(p+guard).SetFloat64(x), p) })
}

func slowLog(x float64) float64 {
	return roundZiv(func(p uint) *big.Float { return bigLog(newF(p+guard).SetFloat64(x), p) })
}

func slowSin(x float64) float64 {
	return roundZiv(func(p uint) *big.Float { return bigSin(x, p) })
}

func slowPowAbs(x, y float64) float64 {
	return roundZiv(func(p uint) *big.Float { return bigPowAbs(x, y, p) })
}
