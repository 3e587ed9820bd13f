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
package script
