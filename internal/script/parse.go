package script

import (
	"fmt"
	"strings"

	"github.com/pgtrial/pgtrial/internal/cnum"
)

// CommandKind tells SQL commands from meta-commands.
type CommandKind uint8

const (
	SQLCommand  CommandKind = iota + 1 // a SQL statement (possibly compound, with \;)
	MetaCommand                        // a backslash command
)

// Meta is the meta-command of a command (pgbench's MetaCommand). SQL
// commands have MetaNone, or MetaGset/MetaAset when a \gset or \aset was
// merged into them.
type Meta uint8

const (
	MetaNone Meta = iota
	MetaSet
	MetaSetShell
	MetaShell
	MetaSleep
	MetaGset
	MetaAset
	MetaIf
	MetaElif
	MetaElse
	MetaEndif
	MetaStartPipeline
	MetaSyncPipeline
	MetaEndPipeline
	// pgtrial's extensions (docs/script-extensions.md); the pgbench front
	// end (ParsePgbench) does not know them.
	MetaWhile
	MetaEndwhile
	MetaThink
	MetaTally
)

var metaNames = [...]string{
	MetaNone: "", MetaSet: "set", MetaSetShell: "setshell", MetaShell: "shell",
	MetaSleep: "sleep", MetaGset: "gset", MetaAset: "aset", MetaIf: "if",
	MetaElif: "elif", MetaElse: "else", MetaEndif: "endif",
	MetaStartPipeline: "startpipeline", MetaSyncPipeline: "syncpipeline",
	MetaEndPipeline: "endpipeline",
	MetaWhile:       "while", MetaEndwhile: "endwhile", MetaThink: "think", MetaTally: "tally",
}

// String returns the meta-command's canonical (lower-case) name.
func (m Meta) String() string {
	if int(m) < len(metaNames) {
		return metaNames[m]
	}
	return "?"
}

// metaByName is getMetaCommand: a case-insensitive match; pgtrial's
// extensions only when ext is set.
func metaByName(word string, ext bool) Meta {
	last := MetaEndPipeline
	if ext {
		last = MetaTally
	}
	for m := MetaSet; m <= last; m++ {
		if equalFoldASCII(word, metaNames[m]) {
			return m
		}
	}
	return MetaNone
}

// maxArgs is pgbench's MAX_ARGS: the command word plus at most 255
// arguments, and at most 255 parameters in a SQL statement.
const maxArgs = 256

// Command is one command of a script. It is read-only once the script is
// prepared.
type Command struct {
	Index int         // 0-based number in the script (pgbench's command number)
	Kind  CommandKind // SQL or meta
	Meta  Meta        // the meta-command; for SQL MetaNone, MetaGset or MetaAset
	Line  int         // 1-based line of the command's first character (of the '\' for meta)
	// Column is the 1-based byte column of a meta-command's '\' on Line (0 for SQL).
	Column int

	// Text is the full command: for SQL the statement as sent in simple mode
	// before substitution (leading blanks and -- lines removed, the ';'
	// kept); for a meta-command the whole backslash line including
	// continuation lines, trailing newline removed.
	Text string
	// FirstLine is pgbench's first_line, shown in reports and messages: the
	// first line of a SQL statement (at most 127 bytes), or Text for a
	// meta-command.
	FirstLine string
	// Args are a meta-command's words, Args[0] the command name as written.
	// For \set, \if and \elif only the name (and \set's variable) are
	// words; the expression is compiled.
	Args []string
	// VarPrefix is the \gset or \aset prefix of a SQL command ("" if none
	// or empty); meaningful when Meta is MetaGset or MetaAset.
	VarPrefix string

	// Query is the SQL as sent under the protocol mode set by Prepare.
	Query Query

	expr     *node     // \set, \if, \elif
	setSlot  int32     // \set target (script-local slot)
	setValid bool      // \set target is a valid variable name
	refs     []sqlRef  // SQL: :name occurrences in Text
	sleep    sleepSpec // \sleep, \think
	jump     int32     // \while: the index after its \endwhile; \endwhile: its \while's
	tally    int32     // \tally: the script-local tally slot
	words    []wordArg // \setshell, \shell: the command words
}

// Script is a parsed pgbench script. It is immutable once Prepare has run
// and is shared by all clients.
type Script struct {
	Name     string
	Commands []*Command
	syms     symbols
	tallies  symbols // \tally names
	// txStart and txEnd bound the transaction (think.go): commands
	// [0, txStart) run before it, [txEnd, len) after; 0 and len(Commands)
	// without \think.
	txStart, txEnd int
	hasThink       bool
}

// symbols interns the variable names a script refers to; a name's index is
// its script-local slot.
type symbols struct {
	names []string
	index map[string]int32
}

func (s *symbols) intern(name string) int32 {
	if i, ok := s.index[name]; ok {
		return i
	}
	if s.index == nil {
		s.index = make(map[string]int32)
	}
	i := int32(len(s.names))
	s.names = append(s.names, name)
	s.index[name] = i
	return i
}

// Variables returns the names of the variables the script refers to, in
// first-use order (expressions, \set targets, SQL :names, \sleep and shell
// arguments).
func (s *Script) Variables() []string { return append([]string(nil), s.syms.names...) }

// ParseError is a script syntax error, formatted by Pgbench exactly as
// pgbench prints it after "pgbench: error: " (syntax_error):
//
//	FILE:LINE: MSG[ (DETAIL)][ at column C][ in command "CMD"]
//	[TEXT
//	[<C-1 spaces>^ error found here]]
//
// "at column" appears only when there is no Text; the caret line only with
// a Text and a known column. Error is the same for pgtrial's own messages,
// safe to print: TEXT cut to about 200 characters around the column (with
// "…"), the other parts cut shorter, non-printable bytes escaped (\x00,
// \r, \xff), the caret under the same character.
type ParseError struct {
	File    string
	Line    int    // 1-based line of the command
	Column  int    // 1-based byte column within Text (0: unknown)
	Msg     string // e.g. "syntax error"
	Detail  string // pgbench's "more", e.g. the function name ("" if none)
	Command string // the backslash command name as written ("" if none)
	Text    string // the whole command line ("" if not shown)
	// AtLine and AtColumn are where the error is in the file (1-based): the
	// offending token when known, else the command's '\'. pgbench's text does not
	// always show it (no caret for most argument errors; a misleading line for
	// \gset); the front end adds it then.
	AtLine, AtColumn int
}

// Where is "FILE:LINE:COLUMN" of the error.
func (e *ParseError) Where() string {
	return fmt.Sprintf("%s:%d:%d", e.File, e.AtLine, e.AtColumn)
}

func (e *ParseError) Error() string {
	text, pad := shownText(e.Text, e.Column-1, shownWidth)
	return e.format(shortText(e.File, shownWidth), shortText(e.Msg, shownWidth), shortText(e.Detail, 80), shortText(e.Command, 80), text, pad)
}

// Pgbench is the error as pgbench prints it, byte for byte (the whole line,
// raw), for pgbench's front end.
func (e *ParseError) Pgbench() string {
	return e.format(e.File, e.Msg, e.Detail, e.Command, e.Text, strings.Repeat(" ", max(e.Column-1, 0)))
}

func (e *ParseError) format(file, msg, detail, command, text, pad string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s:%d: %s", file, e.Line, msg)
	if detail != "" {
		fmt.Fprintf(&b, " (%s)", detail)
	}
	if e.Column > 0 && text == "" {
		fmt.Fprintf(&b, " at column %d", e.Column)
	}
	if command != "" {
		fmt.Fprintf(&b, " in command \"%s\"", command)
	}
	if text != "" {
		b.WriteByte('\n')
		b.WriteString(text)
		if e.Column > 0 {
			b.WriteByte('\n')
			b.WriteString(pad)
			b.WriteString("^ error found here")
		}
	}
	return b.String()
}

// parser holds the state of one Parse call.
type parser struct {
	name     string
	src      string
	lines    []int // offsets of '\n' bytes, for line numbers
	sc       sqlScanner
	s        *Script
	gsetLine int  // line of "\gset must follow an SQL command" (see Parse)
	ext      bool // pgtrial's extensions are known (Parse, not ParsePgbench)
}

// lineAt returns the 1-based line of offset off (counting '\n' bytes before
// it, as pgbench does).
// columnAt is the 1-based byte column of offset off on its line.
func (p *parser) columnAt(off int) int {
	line := p.lineAt(off)
	if line == 1 {
		return off + 1
	}
	return off - p.lines[line-2]
}

func (p *parser) lineAt(off int) int {
	lo, hi := 0, len(p.lines)
	for lo < hi {
		m := (lo + hi) / 2
		if p.lines[m] < off {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo + 1
}

// Parse parses one script (a file's contents or a built-in script); name is
// what messages and reports call it: the file path as given, or the
// built-in's description such as "<builtin: TPC-B (sort of)>".
//
// Like pgbench it splits SQL with psql's lexer rules, parses meta-commands
// and their expressions, merges \gset/\aset into the preceding SQL command,
// and stops at the first syntax error, returned as a *ParseError. The
// checks pgbench makes after parsing are separate: CheckEmpty,
// CheckConditionals, and Prepare for the protocol mode. As in pgbench, the
// text is cut at the first NUL byte.
//
// Parse knows pgtrial's extensions (\while, \think, \tally:
// docs/script-extensions.md); ParsePgbench is pgbench's language alone.
func Parse(name, src string) (*Script, error) { return parse(name, src, true) }

// ParsePgbench parses pgbench's language exactly: pgtrial's extensions are
// "invalid command", as pgbench says of any meta-command it does not know.
func ParsePgbench(name, src string) (*Script, error) { return parse(name, src, false) }

func parse(name, src string, ext bool) (*Script, error) {
	if i := strings.IndexByte(src, 0); i >= 0 {
		src = src[:i]
	}
	p := &parser{name: name, src: src, sc: sqlScanner{src: src}, s: &Script{Name: name}, ext: ext}
	for i := 0; i < len(src); i++ {
		if src[i] == '\n' {
			p.lines = append(p.lines, i)
		}
	}
	pos := 0
	var buf []byte
	for iter := 0; ; iter++ {
		// pgbench 13–15 reports "\gset must follow an SQL command" at a
		// line computed before scanning on: the line of the script's last
		// byte in the first round, else the line where the previous
		// command's scan stopped (expr_scanner_get_lineno up to the NUL
		// flex leaves after the last token).
		if iter == 0 {
			p.gsetLine = p.lineAt(max(len(src)-1, 0))
		} else {
			p.gsetLine = p.lineAt(min(len(src)-1, pos))
		}
		res, next, text, first := p.sc.scan(pos, buf[:0])
		buf = text
		pos = next
		p.addSQL(text, first)
		if res == scanEOF {
			break
		}
		if res == scanBackslash {
			var err error
			if pos, err = p.backslash(pos - 1); err != nil {
				return nil, err
			}
		}
	}
	p.s.link()
	return p.s, nil
}

// addSQL turns a scanned buffer into a SQL command unless it holds only
// white space and -- comments (pgbench's skip_sql_comments).
func (p *parser) addSQL(text []byte, first int) {
	i := 0
	for {
		if i < len(text) && cnum.IsSpace(text[i]) {
			i++
		} else if i+1 < len(text) && text[i] == '-' && text[i+1] == '-' {
			k := strings.IndexByte(string(text[i:]), '\n')
			if k < 0 {
				return
			}
			i += k + 1
		} else {
			break
		}
	}
	if i >= len(text) {
		return
	}
	body := string(text[i:])
	line := p.lineAt(first) + strings.Count(string(text[:i]), "\n")
	fl := body
	if len(fl) > 127 {
		fl = fl[:127]
	}
	if k := strings.IndexAny(fl, "\n\r"); k >= 0 {
		fl = fl[:k]
	}
	c := &Command{
		Index:     len(p.s.Commands),
		Kind:      SQLCommand,
		Line:      line,
		Text:      body,
		FirstLine: fl,
	}
	c.refs = p.sqlRefs(body)
	p.s.Commands = append(p.s.Commands, c)
}

// chomp removes trailing newlines and carriage returns.
func chomp(s string) string {
	return strings.TrimRight(s, "\r\n")
}

// backslash parses the meta-command whose '\' is at bs and returns the
// position after it (pgbench's process_backslash_command and the \gset
// merging of ParseScript).
func (p *parser) backslash(bs int) (int, error) {
	src := p.src
	line := p.lineAt(bs)
	word, wstart, pos, ok := lexWord(src, bs+1)
	if !ok {
		return pos, nil // a lone backslash: no command
	}
	c := &Command{Kind: MetaCommand, Line: line, Column: p.columnAt(bs), Args: []string{word}, Meta: metaByName(word, p.ext)}
	perr := func(msg, more, text string, col int) *ParseError {
		at := bs
		if col > 0 {
			at = bs + col - 1
		}
		return &ParseError{File: p.name, Line: line, Msg: msg, Detail: more, Command: word, Text: text, Column: col,
			AtLine: p.lineAt(at), AtColumn: p.columnAt(at)}
	}
	offsets := []int{wstart}
	switch c.Meta {
	case MetaSet, MetaIf, MetaElif, MetaWhile, MetaTally:
		if c.Meta == MetaSet || c.Meta == MetaTally {
			v, _, next, ok := lexWord(src, pos)
			if !ok {
				return 0, perr("missing argument", "", "", 0)
			}
			c.Args = append(c.Args, v)
			pos = next
			if c.Meta == MetaTally {
				c.tally = p.s.tallies.intern(v)
			} else {
				c.setSlot = p.s.syms.intern(v)
				c.setValid = ValidVarName(v)
			}
		}
		ep := exprParser{lx: exprLexer{src: src, pos: pos}, syms: &p.s.syms}
		c.expr = ep.parse()
		if ep.err != nil {
			return 0, p.exprError(&ep, c, bs, line)
		}
		// The parser stopped after the end-of-line token.
		pos = ep.lx.pos
		c.Text = chomp(src[bs:pos])
		c.FirstLine = c.Text
		c.Index = len(p.s.Commands)
		p.s.Commands = append(p.s.Commands, c)
		return pos, nil
	}

	for {
		w, ws, next, ok := lexWord(src, pos)
		pos = next
		if !ok {
			break
		}
		if len(c.Args) >= maxArgs {
			return 0, perr("too many arguments", "", "", 0)
		}
		c.Args = append(c.Args, w)
		offsets = append(offsets, ws)
	}
	c.Text = chomp(src[bs:pos])
	c.FirstLine = c.Text
	argc := len(c.Args)
	switch c.Meta {
	case MetaSleep, MetaThink:
		if argc < 2 {
			return 0, perr("missing argument", "", c.Text, 0)
		}
		if argc > 3 {
			return 0, perr("too many arguments", "", c.Text, offsets[3]-bs+1)
		}
		if a := c.Args[1]; a[0] != ':' {
			// Split "10ms" into number and unit.
			k := 0
			if a[0] == '+' || a[0] == '-' {
				k++
			}
			haveDigit := k < len(a) && isDigit(a[k])
			for k < len(a) && isDigit(a[k]) {
				k++
			}
			if k < len(a) {
				if argc == 2 && haveDigit {
					c.Args = append(c.Args, a[k:])
					offsets = append(offsets, offsets[1]+k)
					argc = 3
				} else {
					return 0, perr("invalid "+c.Meta.String()+" time, must be an integer", a, c.Text, offsets[1]-bs+1)
				}
			}
		}
		if argc == 3 {
			u := c.Args[2]
			if !equalFoldASCII(u, "us") && !equalFoldASCII(u, "ms") && !equalFoldASCII(u, "s") {
				return 0, perr("unrecognized time unit, must be us, ms or s", u, c.Text, offsets[2]-bs+1)
			}
		}
		c.sleep = p.sleepSpec(c.Args)
	case MetaSetShell:
		if argc < 3 {
			return 0, perr("missing argument", "", c.Text, 0)
		}
		c.words = p.wordArgs(c.Args[2:])
	case MetaShell:
		if argc < 2 {
			return 0, perr("missing command", "", c.Text, 0)
		}
		c.words = p.wordArgs(c.Args[1:])
	case MetaElse, MetaEndif, MetaStartPipeline, MetaEndPipeline, MetaSyncPipeline, MetaEndwhile:
		if argc != 1 {
			return 0, perr("unexpected argument", "", c.Text, 0)
		}
	case MetaGset, MetaAset:
		if argc > 2 {
			return 0, perr("too many arguments", "", c.Text, 0)
		}
		// Merge into the preceding SQL command.
		gerr := &ParseError{File: p.name, Line: p.gsetLine, Msg: "\\gset must follow an SQL command",
			AtLine: line, AtColumn: p.columnAt(bs)}
		n := len(p.s.Commands)
		if n == 0 {
			return 0, gerr
		}
		prev := p.s.Commands[n-1]
		if prev.Kind != SQLCommand || prev.Meta != MetaNone {
			if prev.Kind == MetaCommand {
				// pgbench shows the previous command's first_line, which
				// SQL commands do not have yet at this point.
				gerr.Detail = prev.FirstLine
			}
			return 0, gerr
		}
		prev.Meta = c.Meta
		if argc > 1 {
			prev.VarPrefix = c.Args[1]
		}
		return pos, nil
	default:
		return 0, perr("invalid command", "", c.Text, 0)
	}
	c.Index = len(p.s.Commands)
	p.s.Commands = append(p.s.Commands, c)
	return pos, nil
}

// exprError builds the ParseError for an expression error. As in pgbench,
// the rest of the line is lexed to show the whole line, and a lexer error
// found there (an unexpected character, a constant overflow) replaces the
// error: the last one on the line is reported.
func (p *parser) exprError(ep *exprParser, c *Command, bs, line int) error {
	e := *ep.err
	lx := &ep.lx
	if !(ep.have && ep.tok.kind == tEnd) {
		for !lx.newline {
			t := lx.next()
			if t.kind == tError {
				e = exprError{msg: t.msg, more: t.text, at: t.end - 1}
			}
			if t.kind == tEnd {
				break
			}
		}
	}
	return &ParseError{
		File:     p.name,
		Line:     line,
		Msg:      e.msg,
		Detail:   e.more,
		Command:  c.Args[0],
		Text:     chomp(p.src[bs:lx.pos]),
		Column:   e.at - bs + 1,
		AtLine:   p.lineAt(e.at),
		AtColumn: p.columnAt(e.at),
	}
}
