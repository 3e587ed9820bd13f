package script

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pgtrial/pgtrial/internal/prng"
)

func TestPrepare(t *testing.T) {
	s1, _ := Parse("a", "SELECT :x, ':x', :x::int, '::y', $1;\n\\set y 1\nSELECT 2;\n")
	s2, _ := Parse("b", "UPDATE t SET v = :y WHERE k = :nosuch;\n")
	n, err := s1.Prepare(Prepared, 0)
	if err != nil || n != 2 {
		t.Fatalf("Prepare = %d, %v", n, err)
	}
	if n, err = s2.Prepare(Prepared, n); err != nil || n != 3 {
		t.Fatalf("Prepare = %d, %v", n, err)
	}
	q := s1.Commands[0].Query
	if q.Name != "P_0" || q.SQL != "SELECT $1, '$2', $3::int, '::y', $1;" || strings.Join(q.Params, ",") != "x,x,x" {
		t.Errorf("query %+v", q)
	}
	if q := s1.Commands[2].Query; q.Name != "P_1" || q.SQL != "SELECT 2;" || len(q.Params) != 0 {
		t.Errorf("query %+v", q)
	}
	if q := s2.Commands[0].Query; q.Name != "P_2" || q.SQL != "UPDATE t SET v = $1 WHERE k = $2;" {
		t.Errorf("query %+v", q)
	}
	if _, err := s1.Prepare(Extended, 0); err != nil || s1.Commands[0].Query.Name != "" {
		t.Errorf("extended: %v %+v", err, s1.Commands[0].Query)
	}
	if _, err := s1.Prepare(Simple, 0); err != nil || s1.Commands[0].Query.SQL != s1.Commands[0].Text {
		t.Errorf("simple: %v %+v", err, s1.Commands[0].Query)
	}

	// At most 255 parameters.
	sql := "SELECT " + strings.Repeat(":v, ", 255) + "1;"
	s3, _ := Parse("c", sql)
	if _, err := s3.Prepare(Extended, 0); err != nil {
		t.Errorf("255 parameters: %v", err)
	}
	sql = "SELECT " + strings.Repeat(":v, ", 256) + "1;"
	s4, _ := Parse("c", sql)
	if _, err := s4.Prepare(Extended, 0); err == nil || err.Error() != "statement has too many arguments (maximum is 255): "+sql {
		t.Errorf("256 parameters: %v", err)
	}
	if _, err := s4.Prepare(Simple, 0); err != nil {
		t.Errorf("simple mode has no limit: %v", err)
	}
	for name, want := range map[string]bool{"simple": true, "extended": true, "prepared": true, "Simple": false, "": false} {
		if _, ok := ParseMode(name); ok != want {
			t.Errorf("ParseMode(%q) = %v", name, ok)
		}
	}
}

func TestSubstitution(t *testing.T) {
	src := "SELECT :a, ':b', :c, :undef, :a::text, 'x:' || :n, :d, :bool, ::a, :\xc3\xa9t\xc3\xa9 FROM t:\n"
	s, err := Parse("s", src)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Prepare(Extended, 0); err != nil {
		t.Fatal(err)
	}
	c := NewProgram(s).NewClient(0, prng.NewState(1), nil)
	_ = c.SetString("option", "a", "+3")
	_ = c.SetInt("x", "b", -7)
	_ = c.SetValue("x", "c", DoubleValue(0.1+0.2))
	_ = c.SetValue("x", "n", NullValue())
	_ = c.SetValue("x", "d", DoubleValue(1))
	_ = c.SetValue("x", "bool", BoolValue(true))
	_ = c.SetString("option", "\xc3\xa9t\xc3\xa9", "summer")
	c.Begin(0)
	got := string(c.AppendSQL(nil, 0))
	want := "SELECT +3, '-7', 0.3, :undef, +3::text, 'x:' || NULL, 1, true, ::a, summer FROM t:\n"
	if got != want {
		t.Errorf("simple:\ngot  %q\nwant %q", got, want)
	}
	q := s.Commands[0].Query
	if q.SQL != "SELECT $1, '$2', $3, $4, $5::text, 'x:' || $6, $7, $8, ::a, $9 FROM t:\n" {
		t.Errorf("extended SQL %q", q.SQL)
	}
	params := c.AppendParams(nil, 0)
	var ps []string
	for _, p := range params {
		if p == nil {
			ps = append(ps, "<nil>")
		} else {
			ps = append(ps, string(p))
		}
	}
	if strings.Join(ps, "|") != "+3|-7|0.3|<nil>|+3|NULL|1|true|summer" {
		t.Errorf("params %q", ps)
	}
}

// run executes a script's meta-commands for one transaction as the engine
// would (SQL skipped) and returns the debug output.
func run(t *testing.T, src string, vars map[string]string) string {
	t.Helper()
	s, c, dbg := testClient(t, src, vars)
	if err := s.CheckConditionals(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(s.Commands); i = c.Next(i) {
		if s.Commands[i].Kind == MetaCommand {
			if err := c.Exec(i); err != nil {
				t.Fatalf("command %d: %v", i, err)
			}
		}
	}
	if !c.Active() || len(c.cond) != 0 {
		t.Errorf("conditional stack not empty: %v", c.cond)
	}
	return dbg.String()
}

func TestConditionals(t *testing.T) {
	tests := []struct {
		name, src string
		want      []int // commands whose debug() ran (1-based numbers)
	}{
		{"if true", "\\if 1\n\\set a debug(1)\n\\elif debug(0)\n\\set b debug(1)\n\\else\n\\set c debug(1)\n\\endif\n\\set d debug(1)\n", []int{2, 8}},
		{"elif true", "\\if 0\n\\set a debug(1)\n\\elif debug(1)\n\\set b debug(1)\n\\else\n\\set c debug(1)\n\\endif\n", []int{3, 4}},
		{"else", "\\if 0\n\\set a debug(1)\n\\elif debug(0)\n\\set b debug(1)\n\\else\n\\set c debug(1)\n\\endif\n", []int{3, 6}},
		{"NULL is false", "\\if NULL\n\\set a debug(1)\n\\else\n\\set b debug(1)\n\\endif\n", []int{4}},
		{"elif after taken branch not evaluated", "\\if 1\n\\elif debug(1)\n\\elif debug(2)\n\\endif\n", nil},
		{"nested if in false branch ignored", "\\if 0\n\\if debug(1)\n\\set a debug(1)\n\\else\n\\set b debug(1)\n\\endif\n\\set c debug(1)\n\\else\n\\set d debug(1)\n\\endif\n", []int{9}},
		{"nested true", "\\if 1\n\\if 0\n\\set a debug(1)\n\\elif 1\n\\set b debug(1)\n\\endif\n\\set c debug(1)\n\\endif\n\\set d debug(1)\n", []int{5, 7, 9}},
		{"SQL skipped in branch", "\\if 0\nSELECT 1;\n\\set a debug(1)\n\\endif\nSELECT 2;\n\\set b debug(1)\n", []int{6}},
		{"else after false elifs", "\\if 0\n\\elif 0\n\\elif 0.0\n\\else\n\\set a debug(1)\n\\endif\n", []int{5}},
		{"if in else-false branch ignored", "\\if 1\n\\else\n\\if debug(1)\n\\endif\n\\endif\n\\set z debug(1)\n", []int{6}},
	}
	for _, tt := range tests {
		out := run(t, tt.src, nil)
		var got []int
		for _, l := range splitLines(out) {
			var s, c int
			fmt.Sscanf(l, "debug(script=%d,command=%d)", &s, &c)
			if len(got) == 0 || got[len(got)-1] != c {
				got = append(got, c)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("%s: ran %v, want %v\n%s", tt.name, got, tt.want, out)
		}
	}
}

func TestSleep(t *testing.T) {
	src := "\\sleep 2\n\\sleep 10ms\n\\sleep 10 us\n\\sleep -5 s\n\\sleep :v\n\\sleep :v ms\n\\sleep :bad\n\\sleep :nosuch\n\\sleep 3000\n\\sleep :zero\n\\sleep 1 S\n"
	_, c, _ := testClient(t, src, map[string]string{"v": "7x", "bad": "x7", "zero": "0"})
	want := []string{"2000000", "10000", "10", "-5000000", "7000000", "7000",
		`sleep: invalid sleep time "x7" for variable "bad"`, `sleep: undefined variable "nosuch"`,
		"-1294967296", "0", "1000000"}
	for i, w := range want {
		us, err := c.SleepMicros(i)
		got := fmt.Sprint(us)
		if err != nil {
			got = err.Error()
		}
		if got != w {
			t.Errorf("command %d: %s, want %s", i, got, w)
		}
	}
}

func TestShell(t *testing.T) {
	src := "\\setshell v echo ::x :a literal\n\\shell echo :nosuch\n\\shell echo " + strings.Repeat("x", 250) + " y\n\\setshell w cat\n\\setshell . true\n"
	_, c, _ := testClient(t, src, map[string]string{"a": "1 2"})
	if line, err := c.ShellCommand(0); err != nil || line != "echo :x 1 2 literal" {
		t.Errorf("ShellCommand = %q, %v", line, err)
	}
	if _, err := c.ShellCommand(1); err == nil || err.Error() != `echo: undefined variable ":nosuch"` {
		t.Errorf("undefined: %v", err)
	}
	if _, err := c.ShellCommand(2); err == nil || err.Error() != "echo: shell command is too long" {
		t.Errorf("too long: %v", err)
	}
	results := []struct{ out, want string }{
		{"42\n", "int 42"},
		{"  -7  \nignored\n", "int -7"},
		{"4294967297\n", "int 1"},
		{"   \n", "int 0"},
		{"12abc\n", `cat: shell command must return an integer (not "12abc` + "\n" + `")`},
		{"", "cat: could not read result of shell command"},
		{strings.Repeat("1", 70), "int -1"},
	}
	for _, r := range results {
		err := c.StoreShellResult(3, []byte(r.out))
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			v, _ := c.Value("w")
			got = describe(v)
		}
		if got != r.want {
			t.Errorf("output %q: %s, want %s", r.out, got, r.want)
		}
	}
	if err := c.StoreShellResult(4, []byte("1\n")); err == nil || err.Error() != `setshell: invalid variable name: "."` {
		t.Errorf("invalid name: %v", err)
	}
}

// TestSetRandomAllocs checks the hot path: evaluating and storing
// \set aid random(1, 100000 * :scale) and substituting :aid allocate
// nothing.
func TestSetRandomAllocs(t *testing.T) {
	s, err := Parse("b", "\\set aid random(1, 100000 * :scale)\nSELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Prepare(Extended, 0); err != nil {
		t.Fatal(err)
	}
	c := NewProgram(s).NewClient(0, prng.NewState(1), nil)
	_ = c.SetInt("startup", "scale", 10)
	c.Begin(0)
	buf := make([]byte, 0, 256)
	params := make([][]byte, 0, 4)
	allocs := testing.AllocsPerRun(1000, func() {
		if err := c.Exec(0); err != nil {
			t.Fatal(err)
		}
		buf = c.AppendSQL(buf[:0], 1)
		params = c.AppendParams(params[:0], 1)
	})
	if allocs != 0 {
		t.Errorf("%v allocations per transaction", allocs)
	}
}

// TestClientsConcurrent runs clients of one program in parallel (for the
// race detector): scripts are shared read-only, state is per client.
func TestClientsConcurrent(t *testing.T) {
	s, err := Parse("tpcb", tpcbLike)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Prepare(Prepared, 0); err != nil {
		t.Fatal(err)
	}
	prog := NewProgram(s)
	st := prng.Derive(1, 4, 1, false)
	done := make(chan string)
	for id := 0; id < 4; id++ {
		go func(id int) {
			c := prog.NewClient(id, st.Clients[id], nil)
			_ = c.SetInt("startup", "scale", 10)
			var last []byte
			for n := 0; n < 200; n++ {
				c.Begin(0)
				for i := 0; i < len(s.Commands); i = c.Next(i) {
					if s.Commands[i].Kind == SQLCommand {
						last = c.AppendSQL(last[:0], i)
					} else if err := c.Exec(i); err != nil {
						done <- err.Error()
						return
					}
				}
			}
			done <- ""
		}(id)
	}
	for id := 0; id < 4; id++ {
		if msg := <-done; msg != "" {
			t.Error(msg)
		}
	}
}
