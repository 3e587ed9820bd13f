package workload_test

import (
	"strconv"
	"testing"

	"github.com/pgtrial/pgtrial/internal/script"
	"github.com/pgtrial/pgtrial/internal/workload"
)

// mixSim runs a mix's actual script text with the script package: \set,
// \if and \tally are evaluated, and each SQL command goes to the
// simulator's sql func, a fake step that answers as the loaded database
// would (tpccSim, ycsbSim).
type mixSim struct {
	t       *testing.T
	prog    *script.Program
	scripts []*script.Script
	names   []string
	weights []int64
}

// newMixSim parses and checks the mix's scripts.
func newMixSim(t *testing.T, mss []workload.MixScript) mixSim {
	t.Helper()
	s := mixSim{t: t}
	for _, ms := range mss {
		p, err := script.Parse(ms.Name, ms.Script)
		if err != nil {
			t.Fatalf("%s: %v", ms.Name, err)
		}
		if err := p.CheckConditionals(); err != nil {
			t.Fatalf("%s: %v", ms.Name, err)
		}
		s.scripts = append(s.scripts, p)
		s.names = append(s.names, ms.Name)
		s.weights = append(s.weights, int64(ms.Weight))
	}
	s.prog = script.NewProgram(s.scripts...)
	return s
}

func (s *mixSim) set(c *script.Client, name, value string) {
	if err := c.SetString("test", name, value); err != nil {
		s.t.Fatal(err)
	}
}

func (s *mixSim) get(c *script.Client, name string) int64 {
	v, ok := c.Get(name)
	if !ok {
		s.t.Fatalf("variable %s undefined", name)
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		s.t.Fatalf("variable %s = %q: %v", name, v, err)
	}
	return n
}

// tx executes one transaction of script k on client c: its meta commands
// by the script package, each SQL command (its text with the variables
// substituted) by sql.
func (s *mixSim) tx(c *script.Client, k int, sql func(text string)) {
	c.Begin(k)
	cmds := s.scripts[k].Commands
	for i := 0; i < len(cmds); i = c.Next(i) {
		cmd := cmds[i]
		if cmd.Kind != script.SQLCommand {
			if err := c.Exec(i); err != nil {
				s.t.Fatalf("%s command %d (%s): %v", s.names[k], i, cmd.FirstLine, err)
			}
			continue
		}
		sql(string(c.AppendSQL(nil, i)))
	}
}
