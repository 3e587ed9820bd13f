package script

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/pgtrial/pgtrial/internal/prng"
	"github.com/pgtrial/pgtrial/internal/prng/libm"
)

// evalError is a run-time expression error with pgbench's message.
type evalError struct{ msg string }

func (e *evalError) Error() string {
	if e.msg == "" {
		return "evaluation failed"
	}
	return e.msg
}

func evalErrorf(format string, args ...any) error {
	return &evalError{msg: fmt.Sprintf(format, args...)}
}

// errSilent is a failure pgbench reports without a message of its own (an
// empty string variable used in an expression).
var errSilent = &evalError{}

// Fixed messages, allocated once.
var (
	errAddRange     = &evalError{msg: "bigint add out of range"}
	errSubRange     = &evalError{msg: "bigint sub out of range"}
	errMulRange     = &evalError{msg: "bigint mul out of range"}
	errDivRange     = &evalError{msg: "bigint div out of range"}
	errDivZero      = &evalError{msg: "division by zero"}
	errTooManyArgs  = &evalError{msg: "too many function arguments, maximum is 16"}
	errEmptyRange   = &evalError{msg: "empty range given to random"}
	errRangeTooWide = &evalError{msg: "random range is too large"}
	errPermuteSize  = &evalError{msg: "permute size parameter must be greater than zero"}
)

// maxFArgs is pgbench's MAX_FARGS.
const maxFArgs = 16

// pgbench's distribution parameter limits.
const (
	minGaussianParam = 2.0
	minZipfianParam  = 1.001
	maxZipfianParam  = 1000.0
)

func coerceError(k Kind, to string) error {
	return &evalError{msg: "cannot coerce " + k.String() + " to " + to}
}

// toBool is coerceToBool: only booleans are accepted.
func toBool(v Value) (bool, error) {
	if v.kind == KindBool {
		return v.bits != 0, nil
	}
	return false, coerceError(v.kind, "boolean")
}

// toInt is coerceToInt: doubles are rounded half to even (rint) and must fit
// in int64 (-2^63 <= d < 2^63).
func toInt(v Value) (int64, error) {
	if v.kind == KindInt {
		return v.Int(), nil
	}
	return toIntSlow(v)
}

func toIntSlow(v Value) (int64, error) {
	switch v.kind {
	case KindDouble:
		d := math.RoundToEven(v.Double())
		if math.IsNaN(d) || !(d >= -0x1p63 && d < 0x1p63) {
			return 0, &evalError{msg: "double to int overflow for " + formatCf(d, 6)}
		}
		return int64(d), nil
	}
	return 0, coerceError(v.kind, "int")
}

// toDouble is coerceToDouble.
func toDouble(v Value) (float64, error) {
	switch v.kind {
	case KindDouble:
		return v.Double(), nil
	case KindInt:
		return float64(v.Int()), nil
	}
	return 0, coerceError(v.kind, "double")
}

// variable returns the value of a variable by script-local slot.
func (c *Client) variable(slot int32) (Value, error) {
	v := &c.vars[c.slots[slot]]
	if !v.defined {
		return Value{}, evalErrorf("undefined variable \"%s\"", v.name)
	}
	if v.val.kind != KindNone {
		return v.val, nil
	}
	return v.value()
}

// eval is pgbench's evaluateExpr.
func (c *Client) eval(n *node) (Value, error) {
	switch n.op {
	case nConst:
		return n.val, nil
	case nVar:
		return c.variable(n.slot)
	}
	switch n.fn {
	case fnAnd, fnOr, fnCase:
		return c.evalLazy(n)
	}
	// Standard function: evaluate the arguments (at most 16) left to right,
	// then apply. Up to three arguments (all but least/greatest) are held
	// in a local array; more go on the client's argument stack.
	if len(n.args) <= 3 {
		var buf [3]Value
		hasNull := false
		for k, a := range n.args {
			// Constants and typed variables are read in place, without a
			// recursive call.
			var v Value
			switch a.op {
			case nConst:
				v = a.val
			case nVar:
				if vr := &c.vars[c.slots[a.slot]]; vr.defined && vr.val.kind != KindNone {
					v = vr.val
					break
				}
				fallthrough
			default:
				var err error
				if v, err = c.eval(a); err != nil {
					return Value{}, err
				}
			}
			buf[k] = v
			hasNull = hasNull || v.kind == KindNull
		}
		if hasNull && n.fn != fnIs && n.fn != fnDebug {
			return NullValue(), nil
		}
		return c.apply(n.fn, buf[:len(n.args)])
	}
	base := len(c.stack)
	hasNull := false
	for k, a := range n.args {
		if k == maxFArgs {
			c.stack = c.stack[:base]
			return Value{}, errTooManyArgs
		}
		v, err := c.eval(a)
		if err != nil {
			c.stack = c.stack[:base]
			return Value{}, err
		}
		hasNull = hasNull || v.kind == KindNull
		c.stack = append(c.stack, v)
	}
	var v Value
	var err error
	if hasNull && n.fn != fnIs && n.fn != fnDebug {
		v = NullValue()
	} else {
		v, err = c.apply(n.fn, c.stack[base:])
	}
	c.stack = c.stack[:base]
	return v, err
}

// evalLazy evaluates AND, OR and CASE (evalLazyFunc). Unlike SQL, a NULL
// first operand of AND or OR gives NULL without evaluating the second.
func (c *Client) evalLazy(n *node) (Value, error) {
	a1, err := c.eval(n.args[0])
	if err != nil {
		return Value{}, err
	}
	switch n.fn {
	case fnAnd, fnOr:
		if a1.kind == KindNull {
			return NullValue(), nil
		}
		b1, err := toBool(a1)
		if err != nil {
			return Value{}, err
		}
		if b1 == (n.fn == fnOr) {
			// FALSE AND x is FALSE; TRUE OR x is TRUE.
			return a1, nil
		}
		a2, err := c.eval(n.args[1])
		if err != nil {
			return Value{}, err
		}
		if a2.kind == KindNull {
			return NullValue(), nil
		}
		b2, err := toBool(a2)
		if err != nil {
			return Value{}, err
		}
		return BoolValue(b2), nil
	}
	// CASE: args are c1, v1, c2, v2, …, else.
	args := n.args
	for {
		if a1.truth() {
			return c.eval(args[1])
		}
		args = args[2:]
		if len(args) == 1 {
			return c.eval(args[0])
		}
		if a1, err = c.eval(args[0]); err != nil {
			return Value{}, err
		}
	}
}

// apply computes a standard function on evaluated arguments
// (evalStandardFunc after argument evaluation). NULL arguments were handled
// by the caller except for IS and debug.
func (c *Client) apply(fn fnID, args []Value) (Value, error) {
	switch fn {
	case fnAdd, fnSub, fnMul, fnDiv, fnMod, fnEq, fnNe, fnLe, fnLt:
		l, r := args[0], args[1]
		if (l.kind == KindDouble || r.kind == KindDouble) && fn != fnMod {
			// Any double operand: IEEE arithmetic, no overflow errors.
			ld, err := toDouble(l)
			if err != nil {
				return Value{}, err
			}
			rd, err := toDouble(r)
			if err != nil {
				return Value{}, err
			}
			switch fn {
			case fnAdd:
				return DoubleValue(ld + rd), nil
			case fnSub:
				return DoubleValue(ld - rd), nil
			case fnMul:
				return DoubleValue(ld * rd), nil
			case fnDiv:
				return DoubleValue(ld / rd), nil
			case fnEq:
				return BoolValue(ld == rd), nil
			case fnNe:
				return BoolValue(ld != rd), nil
			case fnLe:
				return BoolValue(ld <= rd), nil
			default:
				return BoolValue(ld < rd), nil
			}
		}
		li, ri := l.Int(), r.Int()
		if l.kind != KindInt || r.kind != KindInt {
			var err error
			if li, err = toInt(l); err != nil {
				return Value{}, err
			}
			if ri, err = toInt(r); err != nil {
				return Value{}, err
			}
		}
		switch fn {
		case fnAdd:
			s := li + ri
			if (s > li) != (ri > 0) {
				return Value{}, errAddRange
			}
			return IntValue(s), nil
		case fnSub:
			d := li - ri
			if (d < li) != (ri > 0) {
				return Value{}, errSubRange
			}
			return IntValue(d), nil
		case fnMul:
			hi, lo := bits.Mul64(uint64(abs64(li)), uint64(abs64(ri)))
			neg := (li < 0) != (ri < 0)
			// |li·ri| must fit: below 2^63, or exactly 2^63 when negative.
			if hi != 0 || (lo > math.MaxInt64 && !(neg && lo == 1<<63)) {
				return Value{}, errMulRange
			}
			return IntValue(li * ri), nil
		case fnEq:
			return BoolValue(li == ri), nil
		case fnNe:
			return BoolValue(li != ri), nil
		case fnLe:
			return BoolValue(li <= ri), nil
		case fnLt:
			return BoolValue(li < ri), nil
		}
		// fnDiv, fnMod: C semantics, truncation toward zero.
		if ri == 0 {
			return Value{}, errDivZero
		}
		if ri == -1 {
			if fn == fnMod {
				return IntValue(0), nil
			}
			if li == math.MinInt64 {
				return Value{}, errDivRange
			}
			return IntValue(-li), nil
		}
		if fn == fnDiv {
			return IntValue(li / ri), nil
		}
		return IntValue(li % ri), nil

	case fnBitAnd, fnBitOr, fnBitXor, fnLShift, fnRShift:
		li, err := toInt(args[0])
		if err != nil {
			return Value{}, err
		}
		ri, err := toInt(args[1])
		if err != nil {
			return Value{}, err
		}
		switch fn {
		case fnBitAnd:
			return IntValue(li & ri), nil
		case fnBitOr:
			return IntValue(li | ri), nil
		case fnBitXor:
			return IntValue(li ^ ri), nil
		case fnLShift:
			// C leaves shift counts outside [0, 63] undefined; like x86-64
			// (where pgbench gives 1 << 64 = 1 and 1 << -1 = INT64_MIN) the
			// count is taken modulo 64.
			return IntValue(li << (uint64(ri) & 63)), nil
		default:
			return IntValue(li >> (uint64(ri) & 63)), nil
		}

	case fnNot:
		b, err := toBool(args[0])
		if err != nil {
			return Value{}, err
		}
		return BoolValue(!b), nil

	case fnPi:
		return DoubleValue(math.Pi), nil

	case fnAbs:
		a := args[0]
		switch a.kind {
		case KindInt:
			// Unchecked, as in pgbench: abs(INT64_MIN) is INT64_MIN.
			if i := a.Int(); i < 0 {
				return IntValue(-i), nil
			}
			return a, nil
		case KindDouble:
			if d := a.Double(); d < 0 {
				return DoubleValue(-d), nil
			}
			return a, nil
		}
		// A boolean: pgbench reads the value's storage as a double, which
		// gives the bits 0 or 1 (verified with pgbench 15: abs(true) is
		// double 4.94065645841247e-324, abs(false) double 0).
		return DoubleValue(math.Float64frombits(a.bits)), nil

	case fnDebug:
		c.writeDebug(args[0])
		return args[0], nil

	case fnDouble, fnSqrt, fnLn, fnExp:
		d, err := toDouble(args[0])
		if err != nil {
			return Value{}, err
		}
		// C's sqrt, log and exp: sqrt is correctly rounded in Go too; log
		// and exp come from libm, which matches glibc (Go's math differs in
		// the last bit for a few per cent of arguments).
		switch fn {
		case fnSqrt:
			d = math.Sqrt(d)
		case fnLn:
			d = libm.Log(d)
		case fnExp:
			d = libm.Exp(d)
		}
		return DoubleValue(d), nil

	case fnInt:
		i, err := toInt(args[0])
		if err != nil {
			return Value{}, err
		}
		return IntValue(i), nil

	case fnLeast, fnGreatest:
		haveDouble := false
		for _, a := range args {
			if a.kind == KindDouble {
				haveDouble = true
				break
			}
		}
		if haveDouble {
			ext, err := toDouble(args[0])
			if err != nil {
				return Value{}, err
			}
			for _, a := range args[1:] {
				d, err := toDouble(a)
				if err != nil {
					return Value{}, err
				}
				// The C Min/Max macros: x < y ? x : y, x > y ? x : y.
				if fn == fnLeast {
					if !(ext < d) {
						ext = d
					}
				} else if !(ext > d) {
					ext = d
				}
			}
			return DoubleValue(ext), nil
		}
		ext, err := toInt(args[0])
		if err != nil {
			return Value{}, err
		}
		for _, a := range args[1:] {
			i, err := toInt(a)
			if err != nil {
				return Value{}, err
			}
			if (fn == fnLeast && i < ext) || (fn == fnGreatest && i > ext) {
				ext = i
			}
		}
		return IntValue(ext), nil

	case fnRandom, fnRandomExponential, fnRandomGaussian, fnRandomZipfian:
		return c.random(fn, args)

	case fnPow:
		x, err := toDouble(args[0])
		if err != nil {
			return Value{}, err
		}
		y, err := toDouble(args[1])
		if err != nil {
			return Value{}, err
		}
		return DoubleValue(libm.Pow(x, y)), nil // glibc's pow, not Go's (which is off by ulps)

	case fnIs:
		// Same type and same boolean byte: in practice x IS NULL holds only
		// for NULL, and 1 IS TRUE is false.
		a, b := args[0], args[1]
		return BoolValue(a.kind == b.kind && byte(a.bits) == byte(b.bits)), nil

	case fnHashMurmur2, fnHashFNV1a:
		v, err := toInt(args[0])
		if err != nil {
			return Value{}, err
		}
		seed, err := toInt(args[1])
		if err != nil {
			return Value{}, err
		}
		if fn == fnHashMurmur2 {
			return IntValue(prng.HashMurmur2(v, seed)), nil
		}
		return IntValue(prng.HashFNV1a(v, seed)), nil

	case fnPermute:
		v, err := toInt(args[0])
		if err != nil {
			return Value{}, err
		}
		size, err := toInt(args[1])
		if err != nil {
			return Value{}, err
		}
		seed, err := toInt(args[2])
		if err != nil {
			return Value{}, err
		}
		if size <= 0 {
			return Value{}, errPermuteSize
		}
		return IntValue(prng.Permute(v, size, seed)), nil
	}
	return Value{}, fmt.Errorf("internal error: function %d", fn)
}

func abs64(i int64) int64 {
	if i < 0 {
		return -i // MinInt64 stays MinInt64; as uint64 it is 2^63
	}
	return i
}

// random evaluates random(), random_exponential(), random_gaussian() and
// random_zipfian() on the client's stream. Bounds are coerced to int and
// must satisfy lb <= ub and ub - lb + 1 <= INT64_MAX; the parameter is
// checked before drawing.
func (c *Client) random(fn fnID, args []Value) (Value, error) {
	lo, hi := args[0].Int(), args[1].Int()
	if args[0].kind != KindInt || args[1].kind != KindInt {
		var err error
		if lo, err = toInt(args[0]); err != nil {
			return Value{}, err
		}
		if hi, err = toInt(args[1]); err != nil {
			return Value{}, err
		}
	}
	if lo > hi {
		return Value{}, errEmptyRange
	}
	if d := hi - lo; d < 0 || d == math.MaxInt64 {
		// hi - lo or hi - lo + 1 overflows int64.
		return Value{}, errRangeTooWide
	}
	if fn == fnRandom {
		return IntValue(c.Rand.Uniform(lo, hi)), nil
	}
	p, err := toDouble(args[2])
	if err != nil {
		return Value{}, err
	}
	switch fn {
	case fnRandomGaussian:
		if p < minGaussianParam {
			return Value{}, evalErrorf("gaussian parameter must be at least %s (not %s)", formatCf(minGaussianParam, 6), formatCf(p, 6))
		}
		return IntValue(c.Rand.Gaussian(lo, hi, p)), nil
	case fnRandomZipfian:
		if p > 0 && p < 1 && c.prog.ZipfianBelowOne {
			// pgtrial's extension: Gray et al.'s generator over ranks
			// 0..n−1, its ζ(n, s) computed once per (n, s) and kept.
			n := hi - lo + 1
			if !c.zipf.Matches(n, p) {
				c.zipf = prng.NewGrayZipf(n, p)
			}
			return IntValue(lo + c.zipf.Draw(&c.Rand)), nil
		}
		// A NaN parameter passes pgbench's check and then loops forever in
		// its rejection sampler; pgtrial rejects it with the same message.
		if !(p >= minZipfianParam && p <= maxZipfianParam) {
			return Value{}, evalErrorf("zipfian parameter must be in range [%s, %s] (not %s)",
				formatCf(minZipfianParam, 3), formatCf(maxZipfianParam, 0), formatCf(p, 6))
		}
		return IntValue(c.Rand.Zipfian(lo, hi, p)), nil
	}
	if p <= 0 {
		return Value{}, evalErrorf("exponential parameter must be greater than zero (not %s)", formatCf(p, 6))
	}
	return IntValue(c.Rand.Exponential(lo, hi, p)), nil
}
