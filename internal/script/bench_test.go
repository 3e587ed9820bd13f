package script

import (
	"testing"

	"github.com/pgtrial/pgtrial/internal/prng"
	"github.com/pgtrial/pgtrial/internal/workload"
)

// tpcbLike is pgbench's built-in tpcb-like script, from its one copy in workload.
var tpcbLike = workload.BuiltinScripts[0].Script

func benchClient(b *testing.B, src string, mode Mode) (*Script, *Client) {
	b.Helper()
	s, err := Parse("<builtin: TPC-B (sort of)>", src)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := s.Prepare(mode, 0); err != nil {
		b.Fatal(err)
	}
	c := NewProgram(s).NewClient(0, prng.NewState(5432), nil)
	_ = c.SetInt("startup", "scale", 100)
	c.Begin(0)
	return s, c
}

// BenchmarkSetRandom is one \set aid random(1, 100000 * :scale): evaluate
// the expression on the client's stream and store the result.
func BenchmarkSetRandom(b *testing.B) {
	_, c := benchClient(b, tpcbLike, Prepared)
	b.ReportAllocs()
	for b.Loop() {
		if err := c.Exec(0); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSetArith is \set x :a * 3 + abs(:b - 7) % 5 (no randomness).
func BenchmarkSetArith(b *testing.B) {
	_, c := benchClient(b, "\\set x :scale * 3 + abs(:scale - 7) % 5\n", Prepared)
	b.ReportAllocs()
	for b.Loop() {
		if err := c.Exec(0); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTPCBTransaction runs the meta-commands of one tpcb-like
// transaction and builds the parameters of its SQL commands (prepared
// mode), as the engine does per transaction.
func BenchmarkTPCBTransaction(b *testing.B) {
	s, c := benchClient(b, tpcbLike, Prepared)
	params := make([][]byte, 0, 8)
	b.ReportAllocs()
	for b.Loop() {
		c.Begin(0)
		for i := 0; i < len(s.Commands); i = c.Next(i) {
			if s.Commands[i].Kind == SQLCommand {
				params = c.AppendParams(params[:0], i)
			} else if err := c.Exec(i); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkAppendSQLSimple substitutes the variables of the tpcb-like
// INSERT in simple mode.
func BenchmarkAppendSQLSimple(b *testing.B) {
	s, c := benchClient(b, tpcbLike, Simple)
	for i := 0; i < 4; i++ {
		if err := c.Exec(i); err != nil {
			b.Fatal(err)
		}
	}
	buf := make([]byte, 0, 256)
	b.ReportAllocs()
	for b.Loop() {
		buf = c.AppendSQL(buf[:0], len(s.Commands)-2)
	}
}

// BenchmarkParseTPCB parses the tpcb-like script.
func BenchmarkParseTPCB(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse("tpcb", tpcbLike); err != nil {
			b.Fatal(err)
		}
	}
}
