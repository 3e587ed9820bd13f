package script

import "github.com/pgtrial/pgtrial/internal/cnum"

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
	op    nodeOp
	fn    fnID
	val   Value
	slot  int32
	depth int32 // height of the tree (1 for a leaf)
	args  []*node
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

// yyMaxDepth is bison's YYMAXDEPTH: pgbench's parser fails with "memory
// exhausted" when its stack (one entry per pending symbol, plus one) would
// reach 10000 entries, e.g. at the 9999th of nested parentheses or prefix
// minus signs. The parser below counts the same entries (see shift and
// reduce) so that the error appears at the same token.
const yyMaxDepth = 10000

// maxTreeDepth bounds the depth of a compiled expression, which is
// evaluated recursively. Left-associative chains (1+1+…) do not grow
// bison's stack, so pgbench accepts them at any length (and its recursive
// evaluation overflows the C stack somewhere past ten thousand levels);
// pgtrial rejects trees deeper than this with the same "memory exhausted".
const maxTreeDepth = 100000

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
	stack int // bison's stack entries: 1 + pending symbols
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

// shift consumes the current token as bison shifts it: one more stack
// entry.
func (p *exprParser) shift() bool {
	t := p.tok
	p.have = false
	p.stack++
	if p.stack >= yyMaxDepth {
		p.fail("memory exhausted", "", t)
		return false
	}
	return true
}

// reduce replaces n stack symbols by one nonterminal; an empty rule (n = 0)
// grows the stack, the current lookahead being the last token read.
func (p *exprParser) reduce(n int) bool {
	p.stack += 1 - n
	if n == 0 && p.stack >= yyMaxDepth {
		p.fail("memory exhausted", "", p.tok)
		return false
	}
	return true
}

// tooDeep checks a new node against maxTreeDepth.
func (p *exprParser) tooDeep(n *node) bool {
	if n.depth > maxTreeDepth {
		p.fail("memory exhausted", "", p.tok)
		return true
	}
	return false
}

func (p *exprParser) syntaxError(t token) { p.fail("syntax error", "", t) }

// parse parses a complete expression up to the end of the line.
func (p *exprParser) parse() *node {
	p.stack = 1
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
// above minPrec. On return the expression is one symbol on bison's stack.
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
			if !p.shift() {
				return nil
			}
			rhs := p.parseExpr(prec)
			if p.err != nil {
				return nil
			}
			p.reduce(3) // expr: expr OP expr
			if swap {
				lhs, rhs = rhs, lhs
			}
			lhs = call(fn, lhs, rhs)
			if p.tooDeep(lhs) {
				return nil
			}
			lastCmp = prec == precCmp
			continue
		}
		switch t.kind {
		case tIsNull, tNotNull, tIs:
			if precIs <= minPrec {
				return lhs
			}
			if !p.shift() {
				return nil
			}
			negate := t.kind == tNotNull
			rhs := constNode(NullValue())
			n := 2 // expr ISNULL
			if t.kind == tIs {
				u := p.peek()
				if p.err != nil {
					return nil
				}
				if u.kind == tNot {
					negate = true
					if !p.shift() {
						return nil
					}
					n++
					if u = p.peek(); p.err != nil {
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
				if !p.shift() {
					return nil
				}
				n++
			}
			p.reduce(n)
			lhs = call(fnIs, lhs, rhs)
			if negate {
				lhs = call(fnNot, lhs)
			}
			if p.tooDeep(lhs) {
				return nil
			}
			lastCmp = false
			continue
		}
		return lhs
	}
}

func call(fn fnID, args ...*node) *node {
	n := &node{op: nCall, fn: fn, args: args, depth: 1}
	for _, a := range args {
		if a.depth >= n.depth {
			n.depth = a.depth + 1
		}
	}
	return n
}

func constNode(v Value) *node { return &node{op: nConst, val: v, depth: 1} }

// leaf shifts a constant or variable token and reduces it to expr.
func (p *exprParser) leaf(n *node) *node {
	if !p.shift() {
		return nil
	}
	return n
}

// prefix parses the operand of a prefix operator (already current) whose
// rule has level prec, and reduces "OP expr".
func (p *exprParser) prefix(prec int) *node {
	if !p.shift() {
		return nil
	}
	x := p.parseExpr(prec)
	if p.err != nil {
		return nil
	}
	p.reduce(2)
	return x
}

// parseUnary parses a prefix operator application or a primary.
func (p *exprParser) parseUnary() *node {
	t := p.peek()
	if p.err != nil {
		return nil
	}
	switch t.kind {
	case tLParen:
		if !p.shift() {
			return nil
		}
		n := p.parseExpr(0)
		if p.err != nil {
			return nil
		}
		if u := p.peek(); p.err == nil && u.kind != tRParen {
			p.syntaxError(u)
		}
		if p.err != nil || !p.shift() {
			return nil
		}
		p.reduce(3)
		return n
	case tPlus:
		return p.prefix(precUnary)
	case tMinus:
		if !p.shift() {
			return nil
		}
		if u := p.peek(); p.err == nil && u.kind == tMaxIntPlusOne {
			if !p.shift() {
				return nil
			}
			p.reduce(2)
			return constNode(IntValue(minInt64))
		}
		if p.err != nil {
			return nil
		}
		x := p.parseExpr(precUnary)
		if p.err != nil {
			return nil
		}
		p.reduce(2)
		return call(fnSub, constNode(IntValue(0)), x)
	case tTilde:
		x := p.prefix(precBit)
		if x == nil {
			return nil
		}
		return call(fnBitXor, constNode(IntValue(-1)), x)
	case tNot:
		x := p.prefix(precNot)
		if x == nil {
			return nil
		}
		return call(fnNot, x)
	case tNull:
		return p.leaf(constNode(NullValue()))
	case tTrue:
		return p.leaf(constNode(BoolValue(true)))
	case tFalse:
		return p.leaf(constNode(BoolValue(false)))
	case tInt:
		return p.leaf(constNode(IntValue(t.ival)))
	case tDouble:
		return p.leaf(constNode(DoubleValue(t.dval)))
	case tVar:
		return p.leaf(&node{op: nVar, slot: p.syms.intern(t.text), depth: 1})
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
	if !p.shift() {
		return nil
	}
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
	p.reduce(1) // function: FUNCTION
	f := functions[idx]
	if t := p.peek(); p.err == nil && t.kind != tLParen {
		p.syntaxError(t)
	}
	if p.err != nil || !p.shift() {
		return nil
	}
	// elist: /* empty */ | expr | elist ',' expr  — so "f(,x)" is f(x).
	var args []*node
	t := p.peek()
	if p.err != nil {
		return nil
	}
	if t.kind == tRParen || t.kind == tComma {
		if !p.reduce(0) {
			return nil
		}
	}
	if t.kind != tRParen {
		first := t.kind != tComma
		if !first && !p.shift() {
			return nil
		}
		for {
			a := p.parseExpr(0)
			if p.err != nil {
				return nil
			}
			if first {
				p.reduce(1) // elist: expr
				first = false
			} else {
				p.reduce(3) // elist: elist ',' expr
			}
			args = append(args, a)
			t = p.peek()
			if p.err != nil {
				return nil
			}
			if t.kind != tComma {
				break
			}
			if !p.shift() {
				return nil
			}
		}
		if t.kind != tRParen {
			p.syntaxError(t)
			return nil
		}
	}
	closing := t
	if !p.shift() {
		return nil
	}
	p.reduce(4) // expr: function '(' elist ')'
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
			args = append(args, &node{op: nVar, slot: p.syms.intern("default_seed"), depth: 1})
		}
	case nargsPermute:
		if n < 2 || n > 3 {
			p.fail("unexpected number of arguments", f.name, closing)
			return nil
		}
		if n == 2 {
			args = append(args, &node{op: nVar, slot: p.syms.intern("default_seed"), depth: 1})
		}
	default:
		if n != f.nargs {
			p.fail("unexpected number of arguments", f.name, closing)
			return nil
		}
	}
	c := call(f.fn, args...)
	if p.tooDeep(c) {
		return nil
	}
	return c
}

// expect shifts the current token if it is of kind k, else reports a syntax
// error.
func (p *exprParser) expect(k tokKind) bool {
	t := p.peek()
	if p.err != nil {
		return false
	}
	if t.kind != k {
		p.syntaxError(t)
		return false
	}
	return p.shift()
}

// parseCase parses CASE WHEN c THEN v [WHEN c THEN v]… [ELSE e] END; a
// missing ELSE is ELSE NULL. The simple form CASE x WHEN … is not supported.
func (p *exprParser) parseCase() *node {
	if !p.shift() { // CASE
		return nil
	}
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
		if !p.shift() {
			return nil
		}
		c := p.parseExpr(0)
		if p.err != nil || !p.expect(tThen) {
			return nil
		}
		v := p.parseExpr(0)
		if p.err != nil {
			return nil
		}
		if len(args) == 0 {
			p.reduce(4) // when_then_list: WHEN expr THEN expr
		} else {
			p.reduce(5) // when_then_list: when_then_list WHEN expr THEN expr
		}
		args = append(args, c, v)
	}
	els := constNode(NullValue())
	if p.peek().kind == tElse {
		if !p.shift() {
			return nil
		}
		els = p.parseExpr(0)
		if p.err != nil || !p.expect(tEndKw) {
			return nil
		}
		p.reduce(5) // case_control: CASE when_then_list ELSE expr END
	} else {
		if !p.shift() { // END
			return nil
		}
		p.reduce(3) // case_control: CASE when_then_list END
	}
	p.reduce(1) // expr: case_control
	c := call(fnCase, append(args, els)...)
	if p.tooDeep(c) {
		return nil
	}
	return c
}

// equalFoldASCII is pg_strcasecmp(a, b) == 0 (ASCII case folding).
func equalFoldASCII(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		if cnum.ToLower(a[i]) != cnum.ToLower(b[i]) {
			return false
		}
	}
	return true
}
