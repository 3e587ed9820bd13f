package capture

// A small SQL tokenizer and the search, in a normalised statement text of
// pg_stat_statements, for the column each parameter $n is compared with
// (`col = $n`, `$n < col`, `col IN ($n, …)`, `col BETWEEN $n AND $m`,
// `col = ANY ($n)`, `col LIKE $n`, `SET col = $n`, `INSERT INTO t (c, …)
// VALUES ($n, …)`; as an operand, not a value: `col ± $n`, `col * $n`,
// `$n + col`) and the table the column is of (FROM, JOIN, UPDATE,
// INSERT INTO, DELETE FROM, with aliases). It is not a SQL parser: what it
// cannot tell it leaves unknown, and the statement is then listed as not
// parameterised.

import (
	"strconv"
	"strings"
)

// tokKind is a token's kind.
type tokKind int

const (
	tokWord   tokKind = iota // a keyword or an unquoted identifier (lower-cased)
	tokQuoted                // a "quoted identifier" (its text, unquoted)
	tokParam                 // $n (num holds n)
	tokString                // a '…' literal
	tokNumber
	tokOp    // an operator: = < > <= >= <> != ~~ || + - * / …
	tokPunct // ( ) , . ; [ ]
)

type token struct {
	kind tokKind
	text string
	num  int // the parameter's number for tokParam
}

// isWord says whether t is the unquoted word w (lower case).
func (t token) isWord(w string) bool { return t.kind == tokWord && t.text == w }

// isIdent says whether t can name a table or a column.
func (t token) isIdent() bool {
	return t.kind == tokQuoted || (t.kind == tokWord && !reserved[t.text])
}

// reserved are the words that end a table reference or cannot be a column
// here (not SQL's whole list: the ones met next to names in DML).
var reserved = map[string]bool{
	"select": true, "from": true, "where": true, "and": true, "or": true, "not": true, "in": true,
	"between": true, "like": true, "ilike": true, "any": true, "all": true, "some": true, "is": true,
	"null": true, "join": true, "inner": true, "left": true, "right": true, "full": true, "cross": true,
	"outer": true, "natural": true, "on": true, "using": true, "group": true, "order": true, "by": true,
	"limit": true, "offset": true, "having": true, "union": true, "except": true, "intersect": true,
	"values": true, "set": true, "returning": true, "for": true, "update": true, "insert": true,
	"into": true, "delete": true, "as": true, "lateral": true, "only": true, "window": true,
	"case": true, "when": true, "then": true, "else": true, "end": true, "default": true,
	"with": true, "distinct": true, "true": true, "false": true, "fetch": true,
}

// tokenize splits sql into tokens, dropping whitespace and comments.
func tokenize(sql string) []token {
	var out []token
	i, n := 0, len(sql)
	for i < n {
		c := sql[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			i++
		case c == '-' && i+1 < n && sql[i+1] == '-':
			for i < n && sql[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < n && sql[i+1] == '*':
			depth := 0
			for i < n {
				if strings.HasPrefix(sql[i:], "/*") {
					depth++
					i += 2
				} else if strings.HasPrefix(sql[i:], "*/") {
					depth--
					i += 2
					if depth == 0 {
						break
					}
				} else {
					i++
				}
			}
		case c == '\'':
			j := i + 1
			for j < n {
				if sql[j] == '\'' {
					if j+1 < n && sql[j+1] == '\'' {
						j += 2
						continue
					}
					break
				}
				j++
			}
			out = append(out, token{kind: tokString, text: sql[i+1 : min(j, n)]})
			i = j + 1
		case c == '"':
			j := i + 1
			var b strings.Builder
			for j < n {
				if sql[j] == '"' {
					if j+1 < n && sql[j+1] == '"' {
						b.WriteByte('"')
						j += 2
						continue
					}
					break
				}
				b.WriteByte(sql[j])
				j++
			}
			out = append(out, token{kind: tokQuoted, text: b.String()})
			i = j + 1
		case c == '$' && i+1 < n && isDigit(sql[i+1]):
			j := i + 1
			for j < n && isDigit(sql[j]) {
				j++
			}
			num, _ := strconv.Atoi(sql[i+1 : j])
			out = append(out, token{kind: tokParam, text: sql[i:j], num: num})
			i = j
		case isDigit(c):
			j := i
			for j < n && (isDigit(sql[j]) || sql[j] == '.') {
				j++
			}
			out = append(out, token{kind: tokNumber, text: sql[i:j]})
			i = j
		case isWordStart(c):
			j := i
			for j < n && (isWordStart(sql[j]) || isDigit(sql[j]) || sql[j] == '$') {
				j++
			}
			out = append(out, token{kind: tokWord, text: strings.ToLower(sql[i:j])})
			i = j
		case strings.IndexByte("(),.;[]", c) >= 0:
			out = append(out, token{kind: tokPunct, text: string(c)})
			i++
		default:
			j := i
			for j < n && strings.IndexByte("+-*/<>=~!@#%^&|`?:", sql[j]) >= 0 {
				j++
			}
			if j == i {
				j = i + 1
			}
			out = append(out, token{kind: tokOp, text: sql[i:j]})
			i = j
		}
	}
	return out
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isWordStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80
}

// tableRef is a table the statement names: its name as written (schema
// qualified or not) and its alias ("" when none).
type tableRef struct {
	name  string // "public.t" or "t"
	alias string
}

// columnRef is a column a parameter is compared with: its qualifier as
// written ("" when none) and its name.
type columnRef struct {
	qualifier string
	name      string
	// arith: the parameter is an operand of col ± $n, $n + col or col * $n
	// (a delta or a factor, not a value of the column: pg_stats says
	// nothing of its distribution).
	arith bool
}

// paramColumns finds, for each parameter number in toks, the column it is
// compared with (parameters it cannot place are absent), and the tables of
// the statement.
func paramColumns(toks []token) (map[int]columnRef, []tableRef) {
	tables := findTables(toks)
	cols := map[int]columnRef{}
	for i, t := range toks {
		if t.kind != tokParam {
			continue
		}
		if _, ok := cols[t.num]; ok {
			continue
		}
		if inArith(toks, i) {
			// col = $n + x: $n is an operand, not a value of col.
			if c, ok := arithColumn(toks, i); ok {
				cols[t.num] = c
			}
		} else if c, ok := columnBefore(toks, i); ok {
			cols[t.num] = c
		} else if c, ok := columnAfter(toks, i); ok {
			cols[t.num] = c
		} else if c, ok := arithColumn(toks, i); ok {
			cols[t.num] = c
		}
	}
	insertColumns(toks, cols)
	return cols, tables
}

// comparison says whether t compares its two sides (or assigns, in SET).
func comparison(t token) bool {
	if t.kind == tokOp {
		switch t.text {
		case "=", "<", ">", "<=", ">=", "<>", "!=", "~~", "!~~", "~~*":
			return true
		}
	}
	return t.isWord("like") || t.isWord("ilike")
}

// columnAt reads a column reference ending at toks[j] (name, or
// qualifier.name): the reference and whether there is one.
func columnAt(toks []token, j int) (columnRef, bool) {
	if j < 0 || !toks[j].isIdent() {
		return columnRef{}, false
	}
	c := columnRef{name: toks[j].text}
	if j >= 2 && toks[j-1].kind == tokPunct && toks[j-1].text == "." && toks[j-2].isIdent() {
		c.qualifier = toks[j-2].text
	}
	return c, true
}

// columnBefore places the parameter at toks[i] by what precedes it.
func columnBefore(toks []token, i int) (columnRef, bool) {
	j := i - 1
	if j < 0 {
		return columnRef{}, false
	}
	p := toks[j]
	switch {
	case comparison(p):
		if j >= 1 && toks[j-1].isWord("not") {
			j-- // NOT LIKE
		}
		return columnAt(toks, j-1)
	case p.isWord("between"):
		return columnAt(toks, j-1)
	case p.isWord("and") && j >= 2 && toks[j-1].kind == tokParam && toks[j-2].isWord("between"):
		return columnAt(toks, j-3)
	case p.kind == tokPunct && (p.text == "(" || p.text == ","):
		// col IN ($1, $2, …), col = ANY ($1)
		k := j
		for k >= 0 && !(toks[k].kind == tokPunct && toks[k].text == "(") {
			if !(toks[k].kind == tokParam || (toks[k].kind == tokPunct && toks[k].text == ",")) {
				return columnRef{}, false
			}
			k--
		}
		if k < 1 {
			return columnRef{}, false
		}
		w := toks[k-1]
		switch {
		case w.isWord("in"):
			k -= 2
			if k >= 0 && toks[k].isWord("not") {
				k--
			}
			return columnAt(toks, k)
		case w.isWord("any") || w.isWord("some") || w.isWord("all"):
			if k >= 3 && comparison(toks[k-2]) {
				return columnAt(toks, k-3)
			}
		}
	}
	return columnRef{}, false
}

// columnAfter places the parameter at toks[i] by what follows it ($n = col).
func columnAfter(toks []token, i int) (columnRef, bool) {
	if i+2 >= len(toks) || !comparison(toks[i+1]) {
		return columnRef{}, false
	}
	j := i + 2
	if j+2 < len(toks) && toks[j+1].kind == tokPunct && toks[j+1].text == "." {
		j += 2 // qualifier.name
	}
	if j+1 < len(toks) && (toks[j+1].kind == tokOp || (toks[j+1].kind == tokPunct && (toks[j+1].text == "(" || toks[j+1].text == "."))) {
		return columnRef{}, false // an expression or a function call, not a bare column
	}
	return columnAt(toks, j)
}

// inArith says whether the parameter at toks[i] is followed by an
// arithmetic operator ($n + …, $n * …).
func inArith(toks []token, i int) bool {
	if i+1 >= len(toks) || toks[i+1].kind != tokOp {
		return false
	}
	switch toks[i+1].text {
	case "+", "-", "*", "/", "%", "^", "||":
		return true
	}
	return false
}

// arithColumn places the parameter at toks[i] as an operand of arithmetic
// with a column: col + $n, col - $n, col * $n, $n + col, $n * col.
func arithColumn(toks []token, i int) (columnRef, bool) {
	arithOp := func(j int) bool {
		return j >= 0 && j < len(toks) && toks[j].kind == tokOp && (toks[j].text == "+" || toks[j].text == "-" || toks[j].text == "*")
	}
	if arithOp(i - 1) {
		if c, ok := columnAt(toks, i-2); ok {
			c.arith = true
			return c, true
		}
	}
	if arithOp(i+1) && i+1 < len(toks) && toks[i+1].text != "-" {
		j := i + 2
		if j+2 < len(toks) && toks[j+1].kind == tokPunct && toks[j+1].text == "." {
			j += 2
		}
		if j < len(toks) && !(j+1 < len(toks) && toks[j+1].kind == tokPunct && toks[j+1].text == "(") {
			if c, ok := columnAt(toks, j); ok {
				c.arith = true
				return c, true
			}
		}
	}
	return columnRef{}, false
}

// insertColumns places the parameters of INSERT INTO t (c1, c2, …) VALUES
// ($1, $2, …) (one row or several) by position.
func insertColumns(toks []token, cols map[int]columnRef) {
	if len(toks) < 4 || !toks[0].isWord("insert") {
		return
	}
	i := 0
	for i < len(toks) && !(toks[i].kind == tokPunct && toks[i].text == "(") {
		if toks[i].isWord("values") || toks[i].isWord("select") {
			return
		}
		i++
	}
	var names []string
	for i++; i < len(toks) && !(toks[i].kind == tokPunct && toks[i].text == ")"); i++ {
		if toks[i].isIdent() {
			names = append(names, toks[i].text)
		} else if !(toks[i].kind == tokPunct && toks[i].text == ",") {
			return
		}
	}
	if i+1 >= len(toks) || !toks[i+1].isWord("values") {
		return
	}
	for i += 2; i < len(toks) && toks[i].kind == tokPunct && toks[i].text == "("; {
		pos := 0
		for i++; i < len(toks) && !(toks[i].kind == tokPunct && toks[i].text == ")"); i++ {
			switch {
			case toks[i].kind == tokPunct && toks[i].text == ",":
				pos++
			case toks[i].kind == tokParam && pos < len(names):
				if _, ok := cols[toks[i].num]; !ok {
					cols[toks[i].num] = columnRef{name: names[pos]}
				}
			}
		}
		i++ // ")"
		if i < len(toks) && toks[i].kind == tokPunct && toks[i].text == "," {
			i++
		}
	}
}

// findTables lists the tables named after FROM, JOIN, UPDATE, INTO and
// DELETE FROM, with their aliases (a subquery in FROM is skipped).
func findTables(toks []token) []tableRef {
	var out []tableRef
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if !(t.isWord("from") || t.isWord("join") || t.isWord("update") || t.isWord("into")) {
			continue
		}
		if t.isWord("update") && i > 0 && toks[i-1].isWord("for") {
			continue // SELECT … FOR UPDATE
		}
		j := i + 1
		for {
			if j < len(toks) && toks[j].isWord("only") {
				j++
			}
			ref, next, ok := tableAt(toks, j, t.isWord("into"))
			if !ok {
				break
			}
			out = append(out, ref)
			j = next
			if j < len(toks) && toks[j].kind == tokPunct && toks[j].text == "," && (t.isWord("from")) {
				j++
				continue
			}
			break
		}
	}
	return out
}

// tableAt reads "name [[AS] alias]" or "schema.name [[AS] alias]" at j: the
// reference, the index after it, and whether there was one. A name followed
// by "(" is a function, unless into (INSERT INTO t (columns)).
func tableAt(toks []token, j int, into bool) (tableRef, int, bool) {
	if j >= len(toks) || !toks[j].isIdent() {
		return tableRef{}, j, false
	}
	ref := tableRef{name: quoteIdent(toks[j])}
	j++
	if j+1 < len(toks) && toks[j].kind == tokPunct && toks[j].text == "." && toks[j+1].isIdent() {
		ref.name += "." + quoteIdent(toks[j+1])
		j += 2
	}
	if j < len(toks) && toks[j].kind == tokPunct && toks[j].text == "(" {
		if into {
			return ref, j, true
		}
		return tableRef{}, j, false // a function in FROM
	}
	if j < len(toks) && toks[j].isWord("as") {
		j++
	}
	if j < len(toks) && toks[j].isIdent() {
		ref.alias = toks[j].text
		j++
	}
	return ref, j, true
}

// quoteIdent writes an identifier token back as SQL (a quoted one quoted).
func quoteIdent(t token) string {
	if t.kind == tokQuoted {
		return `"` + strings.ReplaceAll(t.text, `"`, `""`) + `"`
	}
	return t.text
}

// statementKind classifies a statement by its first word: "dml" for the
// ones a script can replay (SELECT, INSERT, UPDATE, DELETE, WITH, VALUES,
// TABLE, MERGE), else the reason it is not replayed.
func statementKind(toks []token) string {
	if len(toks) == 0 {
		return "empty text"
	}
	first := toks[0]
	if first.kind == tokPunct && first.text == "(" && len(toks) > 1 {
		first = toks[1]
	}
	switch first.text {
	case "select", "insert", "update", "delete", "with", "values", "table", "merge":
		return "dml"
	case "create", "alter", "drop", "truncate", "comment", "grant", "revoke", "reindex", "cluster", "refresh":
		return "DDL (" + strings.ToUpper(first.text) + ")"
	case "begin", "commit", "rollback", "end", "start", "savepoint", "release", "prepare", "abort":
		return "transaction control (" + strings.ToUpper(first.text) + ")"
	default:
		return "utility statement (" + strings.ToUpper(first.text) + ")"
	}
}
