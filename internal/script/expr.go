package script

// This file is pgbench's exprparse.y as a precedence-climbing parser. The
// grammar's yacc precedences, lowest to highest, are
//
//	%left     OR
//	%left     AND
//	%right    NOT
//	%nonassoc IS ISNULL NOTNULL
//	%nonassoc < > = <= >= <> !=        a = b = c is a syntax error
//	%left     | # & << >> ~            all bitwise operators share one level
//	%left     + -
//	%left     * / %
//	%right    UNARY                    unary + and -
//
// and the parser reproduces the yacc conflict resolution exactly: an operand
// of an operator at level p absorbs operators of level > p; "~x" has the
// bitwise level (so ~1+2 is ~(1+2)), NOT the NOT level. The tree is desugared
// as exprparse.y does it, which fixes evaluation order and edge cases:
// -x is 0 - x, ~x is -1 # x, a > b is b < a (right operand first), a >= b is
// b <= a, x % y is mod(x, y), x ISNULL / x IS NULL is !is(x, NULL), IS NOT
// wraps !not around it, and hash/permute without a seed get :default_seed as
// their last argument.

// fnID identifies an operator or function (pgbench's PgBenchFunction).
type fnID uint8

const (
	fnAdd fnID = iota
	fnSub
	fnMul
	fnDiv
	fnMod
	fnAbs
	fnLeast
	fnGreatest
	fnDebug
	fnPi
	fnSqrt
	fnLn
	fnExp
	fnInt
	fnDouble
	fnRandom
	fnRandomGaussian
	fnRandomExponential
	fnRandomZipfian
	fnPow
	fnAnd
	fnOr
	fnNot
	fnBitAnd
	fnBitOr
	fnBitXor
	fnLShift
	fnRShift
	fnEq
	fnNe
	fnLe
	fnLt
	fnIs
	fnCase
	fnHashMurmur2
	fnHashFNV1a
	fnPermute
)

// Special argument counts of the function table.
const (
	nargsVariable = -1 // least, greatest: at least one
	nargsHash     = -3 // one or two (seed defaults to :default_seed)
	nargsPermute  = -4 // two or three (seed defaults to :default_seed)
)

// functions is the callable part of PGBENCH_FUNCTIONS, in table order (the
// name in error messages is the table's, e.g. "power" or "hash").
var functions = []struct {
	name  string
	nargs int
	fn    fnID
}{
	{"mod", 2, fnMod},
	{"abs", 1, fnAbs},
	{"least", nargsVariable, fnLeast},
	{"greatest", nargsVariable, fnGreatest},
	{"debug", 1, fnDebug},
	{"pi", 0, fnPi},
	{"sqrt", 1, fnSqrt},
	{"ln", 1, fnLn},
	{"exp", 1, fnExp},
	{"int", 1, fnInt},
	{"double", 1, fnDouble},
	{"random", 2, fnRandom},
	{"random_gaussian", 3, fnRandomGaussian},
	{"random_exponential", 3, fnRandomExponential},
	{"random_zipfian", 3, fnRandomZipfian},
	{"pow", 2, fnPow},
	{"power", 2, fnPow},
	{"hash", nargsHash, fnHashMurmur2},
	{"hash_murmur2", nargsHash, fnHashMurmur2},
	{"hash_fnv1a", nargsHash, fnHashFNV1a},
	{"permute", nargsPermute, fnPermute},
}

var fnNames = [...]string{
	fnAdd: "+", fnSub: "-", fnMul: "*", fnDiv: "/", fnMod: "mod", fnAbs: "abs",
	fnLeast: "least", fnGreatest: "greatest", fnDebug: "debug", fnPi: "pi",
	fnSqrt: "sqrt", fnLn: "ln", fnExp: "exp", fnInt: "int", fnDouble: "double",
	fnRandom: "random", fnRandomGaussian: "random_gaussian",
	fnRandomExponential: "random_exponential", fnRandomZipfian: "random_zipfian",
	fnPow: "pow", fnAnd: "!and", fnOr: "!or", fnNot: "!not", fnBitAnd: "&",
	fnBitOr: "|", fnBitXor: "#", fnLShift: "<<", fnRShift: ">>", fnEq: "=",
	fnNe: "<>", fnLe: "<=", fnLt: "<", fnIs: "!is", fnCase: "!case_end",
	fnHashMurmur2: "hash_murmur2", fnHashFNV1a: "hash_fnv1a", fnPermute: "permute",
}

type nodeOp uint8

const (
	nConst nodeOp = iota
	nVar
	nCall
)

// node is a compiled expression: a constant, a variable (a script-local
// slot, mapped to the client's slot at run time) or a call with its
// arguments. CASE is a call of fnCase with arguments c1, v1, c2, v2, …, else.
type node struct {
	op   nodeOp
	fn   fnID
	val  Value
	slot int32
	args []*node
}

// format renders the desugared tree, for tests and debugging, e.g.
// +(1, *(2, d3.5)) or !case_end(:c, 1, NULL); names gives variable names by
// script-local slot.
func (n *node) format(names []string) string {
	switch n.op {
	case nConst:
		if n.val.kind == KindDouble {
			return "d" + n.val.String()
		}
		return n.val.String()
	case nVar:
		return ":" + names[n.slot]
	}
	s := fnNames[n.fn] + "("
	for i, a := range n.args {
		if i > 0 {
			s += ", "
		}
		s += a.format(names)
	}
	return s + ")"
}

// Precedence levels (higher binds tighter).
const (
	precOr = 1 + iota
	precAnd
	precNot
	precIs
	precCmp
	precBit
	precAdd
	precMul
	precUnary
)

// maxExprDepth bounds nesting. bison's parser stack (YYMAXDEPTH 10000) makes
// pgbench fail with "memory exhausted" on expressions nested roughly this
// deep; the exact threshold depends on the parser states and is not
// reproduced.
const maxExprDepth = 10000

func binaryOp(k tokKind) (prec int, fn fnID, swap bool, ok bool) {
	switch k {
	case tOr:
		return precOr, fnOr, false, true
	case tAnd:
		return precAnd, fnAnd, false, true
	case tLt:
		return precCmp, fnLt, false, true
	case tGt:
		return precCmp, fnLt, true, true
	case tLe:
		return precCmp, fnLe, false, true
	case tGe:
		return precCmp, fnLe, true, true
	case tEq:
		return precCmp, fnEq, false, true
	case tNe:
		return precCmp, fnNe, false, true
	case tBar:
		return precBit, fnBitOr, false, true
	case tHash:
		return precBit, fnBitXor, false, true
	case tAmp:
		return precBit, fnBitAnd, false, true
	case tLs:
		return precBit, fnLShift, false, true
	case tRs:
		return precBit, fnRShift, false, true
	case tPlus:
		return precAdd, fnAdd, false, true
	case tMinus:
		return precAdd, fnSub, false, true
	case tStar:
		return precMul, fnMul, false, true
	case tSlash:
		return precMul, fnDiv, false, true
	case tPercent:
		return precMul, fnMod, false, true
	}
	return 0, 0, false, false
}

// exprError is the first error met while parsing an expression: its message,
// optional detail, and the offset pgbench's column is computed from (the
// last byte of the last token lexed).
type exprError struct {
	msg, more string
	at        int
}

type exprParser struct {
	lx    exprLexer
	tok   token
	have  bool
	err   *exprError
	depth int
	syms  *symbols
}

func (p *exprParser) fail(msg, more string, t token) {
	if p.err == nil {
		p.err = &exprError{msg: msg, more: more, at: t.end - 1}
	}
}

func (p *exprParser) peek() token {
	if !p.have {
		p.tok = p.lx.next()
		p.have = true
		if p.tok.kind == tError {
			p.fail(p.tok.msg, p.tok.text, p.tok)
		}
	}
	return p.tok
}

func (p *exprParser) advance() { p.have = false }

func (p *exprParser) syntaxError(t token) { p.fail("syntax error", "", t) }

// parse parses a complete expression up to the end of the line.
func (p *exprParser) parse() *node {
	n := p.parseExpr(0)
	if p.err != nil {
		return nil
	}
	if t := p.peek(); p.err == nil && t.kind != tEnd {
		p.syntaxError(t)
	}
	if p.err != nil {
		return nil
	}
	return n
}

// parseExpr parses an operand and the following operators whose level is
// above minPrec.
func (p *exprParser) parseExpr(minPrec int) *node {
	lhs := p.parseUnary()
	if p.err != nil {
		return nil
	}
	lastCmp := false
	for {
		t := p.peek()
		if p.err != nil {
			return nil
		}
		if prec, fn, swap, ok := binaryOp(t.kind); ok {
			if prec <= minPrec {
				return lhs
			}
			if prec == precCmp && lastCmp {
				// expr CMP expr . CMP: %nonassoc
				p.syntaxError(t)
				return nil
			}
			p.advance()
			rhs := p.parseExpr(prec)
			if p.err != nil {
				return nil
			}
			if swap {
				lhs, rhs = rhs, lhs
			}
			lhs = call(fn, lhs, rhs)
			lastCmp = prec == precCmp
			continue
		}
		switch t.kind {
		case tIsNull, tNotNull, tIs:
			if precIs <= minPrec {
				return lhs
			}
			p.advance()
			negate := t.kind == tNotNull
			rhs := constNode(NullValue())
			if t.kind == tIs {
				u := p.peek()
				if p.err != nil {
					return nil
				}
				if u.kind == tNot {
					negate = true
					p.advance()
					u = p.peek()
					if p.err != nil {
						return nil
					}
				}
				switch u.kind {
				case tNull:
				case tTrue:
					rhs = constNode(BoolValue(true))
				case tFalse:
					rhs = constNode(BoolValue(false))
				default:
					p.syntaxError(u)
					return nil
				}
				p.advance()
			}
			lhs = call(fnIs, lhs, rhs)
			if negate {
				lhs = call(fnNot, lhs)
			}
			lastCmp = false
			continue
		}
		return lhs
	}
}

func call(fn fnID, args ...*node) *node { return &node{op: nCall, fn: fn, args: args} }

func constNode(v Value) *node { return &node{op: nConst, val: v} }

// parseUnary parses a prefix operator application or a primary.
func (p *exprParser) parseUnary() *node {
	p.depth++
	defer func() { p.depth-- }()
	t := p.peek()
	if p.err != nil {
		return nil
	}
	if p.depth > maxExprDepth {
		p.fail("memory exhausted", "", t)
		return nil
	}
	switch t.kind {
	case tLParen:
		p.advance()
		n := p.parseExpr(0)
		if p.err != nil {
			return nil
		}
		if u := p.peek(); p.err == nil && u.kind != tRParen {
			p.syntaxError(u)
		}
		if p.err != nil {
			return nil
		}
		p.advance()
		return n
	case tPlus:
		p.advance()
		return p.parseExpr(precUnary)
	case tMinus:
		p.advance()
		if u := p.peek(); p.err == nil && u.kind == tMaxIntPlusOne {
			p.advance()
			return constNode(IntValue(minInt64))
		}
		if p.err != nil {
			return nil
		}
		x := p.parseExpr(precUnary)
		if p.err != nil {
			return nil
		}
		return call(fnSub, constNode(IntValue(0)), x)
	case tTilde:
		p.advance()
		x := p.parseExpr(precBit)
		if p.err != nil {
			return nil
		}
		return call(fnBitXor, constNode(IntValue(-1)), x)
	case tNot:
		p.advance()
		x := p.parseExpr(precNot)
		if p.err != nil {
			return nil
		}
		return call(fnNot, x)
	case tNull:
		p.advance()
		return constNode(NullValue())
	case tTrue:
		p.advance()
		return constNode(BoolValue(true))
	case tFalse:
		p.advance()
		return constNode(BoolValue(false))
	case tInt:
		p.advance()
		return constNode(IntValue(t.ival))
	case tDouble:
		p.advance()
		return constNode(DoubleValue(t.dval))
	case tVar:
		p.advance()
		return &node{op: nVar, slot: p.syms.intern(t.text)}
	case tFunc:
		return p.parseCall(t)
	case tCase:
		return p.parseCase()
	}
	p.syntaxError(t)
	return nil
}

// parseCall parses name(args). As in bison, the name is looked up as soon as
// it is read (before the parenthesis), and the argument count is checked
// when the closing parenthesis is read.
func (p *exprParser) parseCall(name token) *node {
	idx := -1
	for i := range functions {
		if equalFoldASCII(name.text, functions[i].name) {
			idx = i
			break
		}
	}
	if idx < 0 {
		p.fail("unexpected function name", name.text, name)
		return nil
	}
	p.advance()
	f := functions[idx]
	if t := p.peek(); p.err == nil && t.kind != tLParen {
		p.syntaxError(t)
	}
	if p.err != nil {
		return nil
	}
	p.advance()
	// elist: /* empty */ | expr | elist ',' expr  — so "f(,x)" is f(x).
	var args []*node
	t := p.peek()
	if p.err != nil {
		return nil
	}
	if t.kind != tRParen {
		if t.kind == tComma {
			p.advance()
		}
		for {
			a := p.parseExpr(0)
			if p.err != nil {
				return nil
			}
			args = append(args, a)
			t = p.peek()
			if p.err != nil {
				return nil
			}
			if t.kind != tComma {
				break
			}
			p.advance()
		}
		if t.kind != tRParen {
			p.syntaxError(t)
			return nil
		}
	}
	closing := t
	p.advance()
	n := len(args)
	switch f.nargs {
	case nargsVariable:
		if n == 0 {
			p.fail("at least one argument expected", f.name, closing)
			return nil
		}
	case nargsHash:
		if n < 1 || n > 2 {
			p.fail("unexpected number of arguments", f.name, closing)
			return nil
		}
		if n == 1 {
			args = append(args, &node{op: nVar, slot: p.syms.intern("default_seed")})
		}
	case nargsPermute:
		if n < 2 || n > 3 {
			p.fail("unexpected number of arguments", f.name, closing)
			return nil
		}
		if n == 2 {
			args = append(args, &node{op: nVar, slot: p.syms.intern("default_seed")})
		}
	default:
		if n != f.nargs {
			p.fail("unexpected number of arguments", f.name, closing)
			return nil
		}
	}
	return &node{op: nCall, fn: f.fn, args: args}
}

// parseCase parses CASE WHEN c THEN v [WHEN c THEN v]… [ELSE e] END; a
// missing ELSE is ELSE NULL. The simple form CASE x WHEN … is not supported.
func (p *exprParser) parseCase() *node {
	p.advance() // CASE
	var args []*node
	for {
		t := p.peek()
		if p.err != nil {
			return nil
		}
		if t.kind != tWhen {
			if len(args) > 0 && (t.kind == tElse || t.kind == tEndKw) {
				break
			}
			p.syntaxError(t)
			return nil
		}
		p.advance()
		c := p.parseExpr(0)
		if p.err != nil {
			return nil
		}
		if t := p.peek(); p.err == nil && t.kind != tThen {
			p.syntaxError(t)
		}
		if p.err != nil {
			return nil
		}
		p.advance()
		v := p.parseExpr(0)
		if p.err != nil {
			return nil
		}
		args = append(args, c, v)
	}
	els := constNode(NullValue())
	if p.peek().kind == tElse {
		p.advance()
		els = p.parseExpr(0)
		if p.err != nil {
			return nil
		}
		if t := p.peek(); p.err == nil && t.kind != tEndKw {
			p.syntaxError(t)
		}
		if p.err != nil {
			return nil
		}
	}
	p.advance() // END
	return &node{op: nCall, fn: fnCase, args: append(args, els)}
}

// equalFoldASCII is pg_strcasecmp(a, b) == 0 (ASCII case folding).
func equalFoldASCII(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		if lowerASCII(a[i]) != lowerASCII(b[i]) {
			return false
		}
	}
	return true
}
