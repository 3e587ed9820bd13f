// Package script implements pgbench's script language (PostgreSQL 15–18):
// splitting a script into SQL commands and meta-commands with psql's lexer
// rules, the meta-commands (\set \setshell \shell \sleep \gset \aset \if
// \elif \else \endif \startpipeline \syncpipeline \endpipeline) with their
// parse-time checks, the expression language of \set/\if/\elif with its
// precedences, types, NULL rules and functions, per-client variables with
// pgbench's string/typed semantics, and variable substitution for the three
// protocol modes. Messages are pgbench's, byte for byte.
//
// Use:
//
//	s, err := script.Parse("bench.sql", text)     // *ParseError on syntax errors
//	err = s.CheckEmpty(); err = s.CheckConditionals()
//	next, err := s.Prepare(script.Prepared, 0)     // P_n numbering across scripts
//	prog := script.NewProgram(s)                   // all scripts of the run
//	c := prog.NewClient(id, streams.Clients[id], os.Stderr)
//	c.SetString("option", "foo", "bar")            // -D
//	c.SetInt("startup", "scale", 1)                // automatic variables
//	c.Begin(0)                                     // a transaction of script 0
//	for i := 0; i < len(s.Commands); i = c.Next(i) {
//		switch cmd := s.Commands[i]; {
//		case cmd.Kind == script.SQLCommand:       // c.AppendSQL / c.AppendParams
//		case cmd.Meta == script.MetaSleep:        // c.SleepMicros
//		case cmd.Meta == script.MetaShell, cmd.Meta == script.MetaSetShell:
//			// c.ShellCommand, c.StoreShellResult
//		default:
//			err = c.Exec(i) // \set \if \elif \else \endif
//		}
//	}
//
// Variable names are resolved to slots when scripts are parsed and bound by
// NewProgram, so evaluating an expression and substituting variables does
// not allocate.
//
// # Fidelity
//
// Besides the TAP cases of PostgreSQL's pgbench tests, the package was
// compared with pgbench 15.18 (pgbench_diff_test.go, run with
// PGTRIAL_PGBENCH_DIFF=1): syntax errors with their caret, the splitting of
// random SQL-like text, the SQL sent in the three modes, and the debug()
// output and run-time errors of thousands of random expressions. Behaviour
// reproduced on purpose, though odd:
//
//   - "f(,x)" is f(x) (the grammar's elist allows a leading comma);
//   - bison's stack limit: "memory exhausted" at the same token;
//   - after a syntax error the rest of the line is lexed and the last lexer
//     error there (unexpected character, constant overflow) is reported;
//   - an unknown function name is reported before its '(' is read;
//   - the SQL lexer's state (parenthesis and BEGIN ATOMIC depth) carries
//     over from one command to the next, and the CREATE FUNCTION detection is
//     not reset by a meta-command;
//   - "\gset must follow an SQL command" is reported at pgbench 15's line,
//     which pgbench computes before its lexer reaches the \gset;
//   - abs() of a boolean is the double with bits 0 or 1, as pgbench computes
//     it when the memory it reads (undefined behaviour) is zero;
//   - glibc's strtod (its syntax and ERANGE on inexact subnormal results), its
//     exp, log and pow (package prng/libm; Go's math differs in the last
//     bits), and PostgreSQL's snprintf spelling of NaN and Infinity.
//
// Deviations (pgbench's behaviour is undefined or does not terminate):
//
//   - shift counts outside [0, 63] are taken modulo 64 (x86-64's behaviour,
//     which pgbench shows there);
//   - random_zipfian with a NaN parameter is rejected with pgbench's range
//     message (pgbench loops forever);
//   - a ':' ending a SQL command's text is not a variable reference (pgbench
//     reads past the end of the string);
//   - expression trees deeper than 100000 levels (long left-associative
//     chains, which pgbench parses but whose recursive evaluation overflows
//     its stack) fail with "memory exhausted".
package script
