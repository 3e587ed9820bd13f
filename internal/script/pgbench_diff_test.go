package script

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The tests in this file compare this package with a real pgbench binary
// (differential testing). They run only with PGTRIAL_PGBENCH_DIFF=1 and a
// pgbench in PATH (or PGTRIAL_PGBENCH). Syntax errors need no server; the
// evaluation and SQL-splitting comparisons need PGTRIAL_PGBENCH_URL, a
// connection URL of a scratch server (pgtrial local start; pgtrial local url).
// They were run against pgbench 15.18.

func pgbenchForDiff(t *testing.T) (bin, url string) {
	t.Helper()
	if os.Getenv("PGTRIAL_PGBENCH_DIFF") != "1" {
		t.Skip("set PGTRIAL_PGBENCH_DIFF=1 to compare with a pgbench binary")
	}
	bin = os.Getenv("PGTRIAL_PGBENCH")
	if bin == "" {
		var err error
		if bin, err = exec.LookPath("pgbench"); err != nil {
			t.Skip("no pgbench in PATH")
		}
	}
	return bin, os.Getenv("PGTRIAL_PGBENCH_URL")
}

// keepLines filters stderr to what this package reproduces: debug() lines,
// error messages with their command line and caret, and with --debug the
// "client 0 sending" lines (which may span several lines).
func keepLines(stderr string) []string {
	var out []string
	keepRaw := false
	for _, l := range splitLines(stderr) {
		switch {
		case strings.HasPrefix(l, "debug("):
			out = append(out, l)
			keepRaw = false
		case strings.HasPrefix(l, "pgbench: error: "):
			// Server errors (SQL) are not reproduced.
			keepRaw = !strings.Contains(l, "connection") && !strings.Contains(l, "Run was aborted") &&
				!strings.Contains(l, "ERROR:")
			if keepRaw {
				out = append(out, l)
			}
		case strings.HasPrefix(l, "pgbench: client 0 sending "):
			out = append(out, l)
			keepRaw = true
		case strings.HasPrefix(l, "pgbench: "):
			keepRaw = false
		default:
			if keepRaw {
				out = append(out, l)
			}
		}
	}
	return out
}

// runPgbench runs pgbench on a script (file s.sql in a temporary directory)
// for one transaction with one client.
func runPgbench(t *testing.T, bin, url, content string, opts []string) []string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "s.sql"), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"-n", "-t", "1", "-c", "1"}, opts...)
	args = append(args, "-f", "s.sql")
	if url != "" {
		args = append(args, url)
	} else {
		args = append(args, "-h", "/nonexistent-pgtrial-socket-dir")
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "PGBENCH_RANDOM_SEED=") && !strings.HasPrefix(e, "LC_") && !strings.HasPrefix(e, "LANG") {
			cmd.Env = append(cmd.Env, e)
		}
	}
	cmd.Env = append(cmd.Env, "LC_ALL=C")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	_ = cmd.Run()
	return keepLines(stderr.String())
}

func compareWithPgbench(t *testing.T, bin, url, content string, opts []string) bool {
	t.Helper()
	want := runPgbench(t, bin, url, content, opts)
	out, _, exit := runScript("s.sql", content, opts)
	got := keepLines(out)
	if url == "" && exit != 1 {
		// Without a server only the parse-time messages are comparable.
		got = nil
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		short := content
		if len(short) > 300 {
			short = short[:300] + "…"
		}
		t.Errorf("script %q %v:\n--- pgbench\n%s\n--- pgtrial\n%s", short, opts,
			strings.Join(want, "\n"), strings.Join(got, "\n"))
		return false
	}
	return true
}

// diffScripts are hand-written scripts exercising syntax errors, splitting
// and evaluation corner cases.
var diffScripts = []string{
	// syntax errors
	"\\set i 1 +\n", "\\set i 1 +", "\\set i\n", "\\set\n", "\\set i 1 2\n", "\\set i (1\n", "\\set i 1)\n",
	"\\set i foo\n", "\\set i foo(1)\n", "\\set i pi\n", "\\set i pi(1)\n", "\\set i abs()\n",
	"\\set i least()\n", "\\set i hash(1,2,3)\n", "\\set i permute(1)\n", "\\set i 99999999999999999999\n",
	"\\set i 1.0E309\n", "\\set i 1e-400\n", "\\set i 1e-310\n", "\\set i ;\n", "\\set i 1 + ) ; 99999999999999999999\n",
	"\\set i 1 < 2 < 3\n", "\\set i 1 = 2 <> 3\n", "\\set i 1 IS 5\n", "\\set i 1 IS NOT 5\n",
	"\\set i CASE 1 WHEN 1 THEN 2 END\n", "\\set i CASE WHEN 1 THEN 2\n", "\\set i CASE WHEN 1 THEN 2 ELSE 3\n",
	"\\set i CASE END\n", "\\set i 9223372036854775808\n", "\\set i -(9223372036854775808)\n",
	"\\set i :\n", "\\set i :1x + 1 +\n", "\\set i 1 !\n", "\\set i 1 @ 2\n", "\\set i \"a\"\n", "\\set i 'a'\n",
	"\\set i 1..2\n", "\\set i 1.2.3\n", "\\set i least(,)\n", "\\set i least(1,,2)\n", "\\set i NOT\n",
	"\\set i and\n", "\\set i 1 +\\\n 2 )\n", "\\if\n", "\\else x\n", "\\endif x y\n", "\\sleep\n",
	"\\sleep 1 2 3\n", "\\sleep x\n", "\\sleep 1x\n", "\\sleep 10 xs\n", "\\sleep 10xs\n", "\\sleep +x\n",
	"\\sleep :x y\n", "\\setshell\n", "\\setshell x\n", "\\shell\n", "\\gset\n", "SELECT 1 \\gset a b\n",
	"\\set x 1\n\\gset\n", "SELECT 1 \\gset\n\\gset\n", "\\foo\n", "\\SET i 1 +\n", "\\ set i 1 +\n",
	"\\startpipeline x\n", "\\set i 1 + \\\n\\\n )\n", "\\set i debug(1\n", "\\set i debug(1,2)\n",
	"\\set i mod(1)\n", "\\set i random(1)\n", "SELECT 1;\n\n  \\set x 1 +\n", "\\set i 1 +\r\n",
	"\\set i 1 + (2 * \\\r\n 3\n", "\\set x 1 \\\n\\set y 2\n", "\\set i abc + + )\n", "\\set i 1 IS\n",
	"\\set i -\n", "\\set i ~\n", "\\set i (\n", "\\set i CASE WHEN\n", "\\set i 1 ISNULL ISNULL ISNULL +\n",
	"\\set i 0x10\n", "\\set i 1e\n", "\\set i .\n", "\\set i 1 = = 2\n", "\\set i 1 != 2 != 3\n",
	"\\if 1\n\\elif +\n\\endif\n", "\\if 0\n\\else BAD\n\\endif\n", "\\if 1\n\\else\n\\elif 0\n\\endif\n",
	"\\elif 1\n", "\\endif\n", "\\if 1\n\\if 2\n\\endif\n", "", "-- only a comment\n", "\\\n",
	"SELECT 1 \\gset\nCREATE FUNCTION pg_temp.f() RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT 1; SELECT 2; END;\n\\endif\n",
	"CREATE FUNCTION pg_temp.f() RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT 1; SELECT 2; END;\n\\endif\n",
	"CREATE OR REPLACE PROCEDURE pg_temp.p() LANGUAGE sql BEGIN ATOMIC SELECT CASE WHEN true THEN 1 END; END;\n\\endif\n",
	"SELECT (1;\n\\endif\n", "SELECT 1 \\; SELECT 2;\n\\endif\n", "SELECT ';' ; SELECT 2\n\\endif\n",
	"SELECT $a$;$a$; SELECT $$;$$;\n\\endif\n", "SELECT /* ; /* ; */ ; */ 1; SELECT 2;\n\\endif\n",
	"SELECT E'\\';'; SELECT 'a\\';\n\\endif\n", "SELECT \"a;\"; SELECT U&\"b;\";\n\\endif\n",
	"\\set a 1\n\\set b 2\nSELECT 1; \\set c 3\n\\endif\n",
	"CREATE FUNCTION f() BEGIN ATOMIC SELECT 1end; SELECT 2; END;\n\\endif\n",
	"CREATE FUNCTION f() BEGIN ATOMIC SELECT 1e+end; SELECT 2; END;\n\\endif\n",
	"CREATE FUNCTION f() BEGIN ATOMIC SELECT 1..end; SELECT 2; END;\n\\endif\n",
	"CREATE FUNCTION f() BEGIN ATOMIC SELECT $1end; SELECT 2; END;\n\\endif\n",
	"CREATE FUNCTION f() BEGIN ATOMIC SELECT .5e-end; SELECT 2; END;\n\\endif\n",
	"SELECT 1E'\\'; SELECT 2;'\n\\endif\n", "SELECT 1 E'\\'; SELECT 2;'\n\\endif\n",
	"SELECT $a$ \\endif $a$;\n\\endif\n", "SELECT $a \\endif $a;\n\\endif\n",
	"SELECT 'a' -- \\endif\n\\endif\n", "/* \\endif */ \\endif\n", "SELECT \"\\\";\n\\endif\n",
	// evaluation
	"\\set a debug(abs(true))\n\\set b debug(abs(false))\n\\set d debug(~1+2)\n\\set e debug(1<<64)\n\\set f debug(1 << -1)\n\\set g debug(debug(1) > debug(2))\n\\set h debug(1 IS TRUE)\n",
	"\\set i debug(1.0/0)\n\\set j debug(-1.0/0)\n\\set k debug(0.0/0)\n\\set l debug(-0.0)\n\\set m debug(1e15)\n\\set n debug(1e14 + 0.5)\n\\set o debug(123456789012345678 * 1.0)\n",
	"\\set a debug(NULL AND debug(1))\n\\set b debug(NULL OR FALSE)\n\\set c debug(TRUE AND NULL)\n\\set d debug(FALSE OR NULL)\n\\set e debug(NOT NULL)\n\\set f debug(NULL IS NULL)\n\\set g debug(NULL = NULL)\n",
	"\\set a debug(int(2.5))\n\\set b debug(int(3.5))\n\\set c debug(int(-2.5))\n\\set d debug(5.5 % 2)\n\\set e debug(-7 % 3)\n\\set f debug(5 % -3)\n\\set g debug(7 / -2)\n\\set h debug(-2 >> 1)\n",
	"\\set a debug(least(1, 2.0, NULL))\n\\set b debug(greatest(1, 2, 3.5))\n\\set c debug(least(0.0/0, 1.0))\n\\set d debug(greatest(1.0, 0.0/0))\n\\set e debug(pow(0, 0))\n\\set f debug(sqrt(-1))\n\\set g debug(ln(0))\n",
	"\\set a debug(hash(10, 5432))\n\\set b debug(hash_fnv1a(10))\n\\set c debug(permute(5, 10, 1))\n\\set d debug(permute(-5, 10))\n\\set e debug(random(1, 10))\n\\set f debug(random_zipfian(1, 100, 1.5))\n",
	"\\set a debug(random_gaussian(1, 1000, 2.5))\n\\set b debug(random_exponential(1, 1000, 0.5))\n\\set c debug(random(-9223372036854775808, -9223372036854775807))\n",
	"\\set a debug(CASE WHEN NULL THEN 1 WHEN 0.0 THEN 2 WHEN 3 THEN 3 END)\n\\set b debug(CASE WHEN false THEN 1 END)\n\\set c debug(case when 1 then 2 else 1/0 end)\n",
	"\\set a 1 / 0\n", "\\set a 1.0 / 0\n\\set b debug(:a)\n\\set c :a + 1\n\\set d debug(int(:c))\n",
	"\\set a debug(:t)\n\\set b debug(:f)\n\\set c debug(:i)\n\\set d debug(:d)\n\\set e debug(:n)\n\\set g debug(:s)\n",
	"\\set a debug(:bad)\n", "\\set a debug(:big)\n", "\\set a debug(:nosuch)\n", "\\set . 1\n", "\\set a random(5, 1)\n",
	"\\set a random(0, 9223372036854775807)\n", "\\set a random_gaussian(1, 10, 1.9)\n",
	"\\set a random_zipfian(1, 10, 1000.5)\n", "\\set a random_exponential(1, 10, -1)\n", "\\set a permute(1, 0)\n",
	"\\set a int(1e300)\n", "\\set a int(0.0/0)\n", "\\set a 9223372036854775807 + 1\n", "\\set a -9223372036854775807 - 2\n",
	"\\set a 4611686018427387904 * 2\n", "\\set a -4611686018427387904 * 2\n\\set b debug(:a)\n\\set c debug(-:a)\n",
	"\\set a debug(-9223372036854775808 / -1)\n", "\\set a debug(-9223372036854775808 % -1)\n",
	"\\set a debug(abs(-9223372036854775808))\n", "\\set a NOT 1\n", "\\set a 1 AND TRUE\n", "\\set a TRUE OR 1\n",
	"\\set a FALSE OR 1\n", "\\set a TRUE + 1\n", "\\set a least(TRUE, 1.0)\n", "\\set a hash(TRUE)\n",
	"\\set a debug(least(0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15))\n\\set b least(0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16)\n",
	"\\if :t\n\\set a debug(1)\n\\elif debug(2)\n\\set b debug(3)\n\\else\n\\set c debug(4)\n\\endif\n\\set d debug(5)\n",
	"\\if 0\n\\if debug(1)\n\\endif\n\\elif debug(0)\n\\elif debug(2.5)\n\\set x debug(3)\n\\elif debug(4)\n\\else\n\\endif\n",
	"\\if NULL\n\\set a debug(1)\n\\else\n\\set b debug(2)\n\\endif\n",
	"\\set a debug(1)\n\\sleep :nosuch\n", "\\set z 0\n\\sleep :s\n", "\\sleep :i\n\\set a debug(1)\n",
	"\\setshell v echo 42\n\\set a debug(:v)\n", "\\setshell v echo '  -7  '\n\\set a debug(:v)\n",
	"\\setshell v echo 4294967297\n\\set a debug(:v)\n", "\\setshell v echo x1\n", "\\setshell v true\n",
	"\\shell echo :nosuch\n", "\\shell false\n", "\\setshell v echo ::x :i\n",
	"\\set a debug(9223372036854775807 * 1.0)\n\\set b debug(0.1 + 0.2)\n\\set c debug(1.0)\n\\set d debug(2.0 ^ 2)\n",
	"\\set a debug(pi())\n\\set b debug(exp(1))\n\\set c debug(pow(2, 0.5))\n\\set d debug(1e-5)\n\\set e debug(0.0001)\n\\set f debug(1234567.125)\n",
	"\\set a debug(mod(-13, 5))\n\\set b debug(mod(13.7, 5))\n\\set c debug(3 # 5 & 6 | 8)\n\\set d debug(~ 0 << 3 >> 1)\n",
	"\\set x 5\n\\set y debug(:x * 2)\nSELECT :x, ':y', ':nosuch';\n", "\\set a debug(double(3))\n\\set b debug(double(:t))\n",
}

func TestPgbenchDiffScripts(t *testing.T) {
	bin, url := pgbenchForDiff(t)
	opts := []string{"--random-seed=5432", "-Dt=yes", "-Df=off", "-Di= -42", "-Dd=1.5e3", "-Dn=NULL",
		"-Ds=zzz", "-Dbad=trueX", "-Dbig=9999999999999999999"}
	for _, s := range append(diffScripts, deepScripts()...) {
		compareWithPgbench(t, bin, url, s, opts)
	}
}

// deepScripts nest expressions up to bison's stack limit (YYMAXDEPTH), where
// pgbench fails with "memory exhausted" at a precise token.
func deepScripts() []string {
	r := strings.Repeat
	exprs := []string{
		r("(", 10001) + "1" + r(")", 10001), r("(", 9996) + "1" + r(")", 9996), r("(", 9997) + "1" + r(")", 9997),
		r("(", 9998) + "1" + r(")", 9998), r("abs(", 4998) + "1" + r(")", 4998),
		r("-", 20000) + "1", r("- ", 9998) + "9223372036854775808", r("~", 9999) + "1",
		r("abs(", 5000) + "1" + r(")", 5000), r("abs(", 4999) + "1" + r(")", 4999),
		r("1+(", 3333) + "1" + r(")", 3333), r("1+(", 3334) + "1" + r(")", 3334),
		r("least(,", 2500) + "1" + r(")", 2500), r("least(", 4999) + r(")", 4999), r("least(1,", 3333) + "1" + r(")", 3333),
		r("CASE WHEN ", 5000) + "1" + r(" THEN 1 END", 5000), r("CASE WHEN 1 THEN ", 2500) + "1" + r(" END", 2500),
		r("CASE WHEN 1 THEN 1 ELSE ", 2500) + "1" + r(" END", 2500),
		r("NOT ", 9998) + "TRUE", r("NOT ", 9999) + "TRUE", r("(", 9997) + "1 IS NOT NULL" + r(")", 9997),
		r("(", 9996) + "1 IS NOT NULL" + r(")", 9996), r("(", 9998) + "1 ISNULL" + r(")", 9998),
		r("1 + ", 20000) + "1", r("1 < (", 4999) + "1" + r(")", 4999),
	}
	var out []string
	for _, e := range exprs {
		out = append(out, "\\set x "+e+"\n")
	}
	return out
}

// splitScripts check SQL splitting and substitution against pgbench's
// "client 0 sending" debug lines (a server is needed).
var splitScripts = []string{
	"SELECT 1; SELECT 2;", "SELECT ';' AS a;", "SELECT $$;$$; SELECT $a$ ; $b$ ; $a$;",
	"SELECT /* ; /* nested ; */ ; */ 1;", "SELECT 1 -- ; comment\n;", "-- leading comment\n  \n\tSELECT 1;",
	"SELECT E'\\';' ;", "SELECT \"a;b\" FROM (SELECT 1 AS \"a;b\") t;", "SELECT (1\n\n);", "SELECT 1 \\; SELECT 2;",
	"SELECT 1", "SELECT 1 AS one \\gset\nSELECT 2;", "SELECT 'a'\n'b';", "SELECT U&'d\\0061t\\+000061' ;",
	"SELECT :x, ':x', :x::int, '::x', ':::x';", "SELECT 1;\\set x 2\nSELECT :x;", "SELECT 1 AS a\\:x;",
	"CREATE FUNCTION pg_temp.f() RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT 1; SELECT 2; END;",
	"/* only a comment */", "SELECT 1; -- trailing\n", "SELECT\n  1\n  -- inner comment\n  + 2;",
	"SELECT B'101', X'1F', N'n;';", "SELECT 1 AS \"::x\", ':t', ':f', :i, :d, :n;",
}

func TestPgbenchDiffSplit(t *testing.T) {
	bin, url := pgbenchForDiff(t)
	if url == "" {
		t.Skip("PGTRIAL_PGBENCH_URL not set")
	}
	for _, mode := range []string{"simple", "extended", "prepared"} {
		opts := []string{"--debug", "-M", mode, "-Dx=7", "-Dt=yes", "-Df=off", "-Di= -42", "-Dd=1.5e3", "-Dn=NULL"}
		for _, s := range splitScripts {
			compareWithPgbench(t, bin, url, s, opts)
		}
	}
}

// TestPgbenchDiffRandom compares random expressions (PGTRIAL_PGBENCH_DIFF_N
// scripts of 12 expressions, default 200; generator seed
// PGTRIAL_PGBENCH_DIFF_SEED, default 1).
func TestPgbenchDiffRandom(t *testing.T) {
	bin, url := pgbenchForDiff(t)
	if url == "" {
		t.Skip("PGTRIAL_PGBENCH_URL not set")
	}
	n := 200
	if v := os.Getenv("PGTRIAL_PGBENCH_DIFF_N"); v != "" {
		fmt.Sscan(v, &n)
	}
	var seed uint64 = 1
	if v := os.Getenv("PGTRIAL_PGBENCH_DIFF_SEED"); v != "" {
		fmt.Sscan(v, &seed)
	}
	r := rand.New(rand.NewPCG(seed, 2))
	opts := []string{"--random-seed=77", "-Dt=yes", "-Df=off", "-Di= -42", "-Dd=1.5e3", "-Dn=NULL",
		"-Dbig=9223372036854775807", "-Dneg=-9223372036854775808", "-Dz=0"}
	fails, lines, errs := 0, 0, 0
	for k := 0; k < n && fails < 10; k++ {
		var b strings.Builder
		for j := 0; j < 12; j++ {
			var e string
			switch k := r.IntN(100); {
			case k < 3:
				e = genExpr(r, 4)
			case k < 55:
				e = genNum(r, 4)
			default:
				e = genBool(r, 4)
			}
			fmt.Fprintf(&b, "\\set v%d debug(%s)\n", j, e)
		}
		if !compareWithPgbench(t, bin, url, b.String(), opts) {
			fails++
		}
		out, dbg, _ := runScript("s.sql", b.String(), opts)
		lines += len(dbg)
		if strings.Contains(out, "pgbench: error:") {
			errs++
		}
	}
	t.Logf("%d scripts, %d debug() lines compared, %d scripts ended with an error", n, lines, errs)
}

// genExpr generates a random expression of the given depth.
func genExpr(r *rand.Rand, depth int) string {
	leaves := []string{"0", "1", "2", "-1", "7", "3.5", "-0.5", "0.0", "1e3", "9223372036854775807",
		"-9223372036854775808", "TRUE", "FALSE", "NULL", ":t", ":f", ":i", ":d", ":n", ":big", ":neg", ":z",
		":v0", ":v1", "pi()", "2.5", "1e300", ".5"}
	if depth == 0 || r.IntN(4) == 0 {
		return leaves[r.IntN(len(leaves))]
	}
	d := depth - 1
	switch r.IntN(9) {
	case 0, 1, 2:
		ops := []string{"+", "-", "*", "/", "%", "=", "<>", "!=", "<", "<=", ">", ">=", "&", "|", "#", "<<", ">>",
			"AND", "OR", "and", "Or"}
		return genExpr(r, d) + " " + ops[r.IntN(len(ops))] + " " + genExpr(r, d)
	case 3:
		pre := []string{"-", "+", "~", "NOT ", "- -"}
		return pre[r.IntN(len(pre))] + genExpr(r, d)
	case 4:
		post := []string{" IS NULL", " IS NOT NULL", " ISNULL", " NOTNULL", " IS TRUE", " IS NOT FALSE"}
		return genExpr(r, d) + post[r.IntN(len(post))]
	case 5:
		return "(" + genExpr(r, d) + ")"
	case 6:
		s := "CASE"
		for k := 0; k <= r.IntN(2); k++ {
			s += " WHEN " + genExpr(r, d) + " THEN " + genExpr(r, d)
		}
		if r.IntN(2) == 0 {
			s += " ELSE " + genExpr(r, d)
		}
		return s + " END"
	default:
		fns := []struct {
			name string
			n    int
		}{{"abs", 1}, {"int", 1}, {"double", 1}, {"sqrt", 1}, {"ln", 1}, {"exp", 1}, {"least", 3},
			{"greatest", 2}, {"pow", 2}, {"power", 2}, {"mod", 2}, {"hash", 1}, {"hash", 2}, {"hash_fnv1a", 2},
			{"hash_murmur2", 1}, {"permute", 2}, {"permute", 3}, {"random", 2}, {"random_exponential", 3},
			{"random_gaussian", 3}, {"random_zipfian", 3}, {"debug", 1}}
		f := fns[r.IntN(len(fns))]
		args := make([]string, f.n)
		for k := range args {
			args[k] = genExpr(r, d)
			if f.name == "abs" {
				// abs() of a boolean reads uninitialized memory in pgbench.
				args[k] = genNum(r, d)
			}
		}
		return f.name + "(" + strings.Join(args, ", ") + ")"
	}
}

// genNum generates a numeric expression that mostly evaluates without error
// (or to NULL).
func genNum(r *rand.Rand, depth int) string {
	leaves := []string{"0", "1", "2", "-1", "7", "13", "3.5", "-0.5", "0.0", "1e3", "2.5", "-2.5", ".5", "1.5e-3",
		":i", ":d", ":z", "pi()", "NULL", "100000000", "-7.25", "1e15", "123456789.125"}
	if depth == 0 || r.IntN(5) == 0 {
		return leaves[r.IntN(len(leaves))]
	}
	d := depth - 1
	switch r.IntN(12) {
	case 0, 1, 2:
		ops := []string{"+", "-", "*", "+", "-", "*", "/", "%"}
		op := ops[r.IntN(len(ops))]
		rhs := genNum(r, d)
		if op == "/" || op == "%" {
			rhs = []string{"3", "-2", "7", "2.5", "0.3", ":i"}[r.IntN(6)]
		}
		return "(" + genNum(r, d) + " " + op + " " + rhs + ")"
	case 3:
		ops := []string{"&", "|", "#", "<<", ">>"}
		return "(int(" + genNum(r, d) + ") " + ops[r.IntN(len(ops))] + " " + []string{"1", "3", "7", "12", "-1", "64"}[r.IntN(6)] + ")"
	case 4:
		return []string{"-", "+", "~", "- -"}[r.IntN(4)] + "(" + genNum(r, d) + ")"
	case 5:
		return "CASE WHEN " + genBool(r, d) + " THEN " + genNum(r, d) + " ELSE " + genNum(r, d) + " END"
	case 6:
		f := []string{"abs", "double", "sqrt", "ln", "exp", "debug"}[r.IntN(6)]
		a := genNum(r, d)
		if f == "exp" {
			a = "least(" + a + ", 50)"
		}
		return f + "(" + a + ")"
	case 7:
		return "int(least(greatest(" + genNum(r, d) + ", -1e18), 1e18))"
	case 8:
		f := []string{"least", "greatest"}[r.IntN(2)]
		return f + "(" + genNum(r, d) + ", " + genNum(r, d) + ", " + genNum(r, d) + ")"
	case 9:
		switch r.IntN(5) {
		case 0:
			return "pow(" + genNum(r, d) + ", " + []string{"2", "0.5", "-1", "3", "0"}[r.IntN(5)] + ")"
		case 1:
			return "mod(int(least(greatest(" + genNum(r, d) + ", -1e6), 1e6)), " + []string{"3", "-5", "7"}[r.IntN(3)] + ")"
		case 2:
			return []string{"hash", "hash_fnv1a", "hash_murmur2"}[r.IntN(3)] + "(" + genNum(r, d) + ", " + genNum(r, d) + ")"
		case 3:
			return "hash(" + genNum(r, d) + ")"
		default:
			return "permute(" + genNum(r, d) + ", " + []string{"1", "2", "10", "1000", "9223372036854775807"}[r.IntN(5)] + ", " + genNum(r, d) + ")"
		}
	default:
		lo := []string{"1", "-5", "0", "100"}[r.IntN(4)]
		hi := []string{"10", "1000", "1000000", "9223372036854775806"}[r.IntN(4)]
		switch r.IntN(4) {
		case 0:
			return "random(" + lo + ", " + hi + ")"
		case 1:
			return "random_exponential(" + lo + ", " + hi + ", " + []string{"0.5", "2", "10", "1e-3"}[r.IntN(4)] + ")"
		case 2:
			return "random_gaussian(" + lo + ", " + hi + ", " + []string{"2", "2.5", "10", "100"}[r.IntN(4)] + ")"
		default:
			return "random_zipfian(" + lo + ", " + hi + ", " + []string{"1.001", "1.5", "2", "100"}[r.IntN(4)] + ")"
		}
	}
}

// genBool generates a boolean expression that mostly evaluates without
// error (or to NULL).
func genBool(r *rand.Rand, depth int) string {
	leaves := []string{"TRUE", "FALSE", ":t", ":f", "NULL", "true", "False"}
	if depth == 0 || r.IntN(5) == 0 {
		return leaves[r.IntN(len(leaves))]
	}
	d := depth - 1
	switch r.IntN(7) {
	case 0, 1:
		ops := []string{"=", "<>", "!=", "<", "<=", ">", ">="}
		return "(" + genNum(r, d) + " " + ops[r.IntN(len(ops))] + " " + genNum(r, d) + ")"
	case 2:
		return "(" + genBool(r, d) + " " + []string{"AND", "OR", "and", "or"}[r.IntN(4)] + " " + genBool(r, d) + ")"
	case 3:
		return "NOT " + genBool(r, d)
	case 4:
		post := []string{" IS NULL", " IS NOT NULL", " ISNULL", " NOTNULL", " IS TRUE", " IS NOT FALSE", " IS FALSE"}
		x := genBool(r, d)
		if r.IntN(2) == 0 {
			x = genNum(r, d)
		}
		return "(" + x + post[r.IntN(len(post))] + ")"
	case 5:
		return "CASE WHEN " + genNum(r, d) + " THEN " + genBool(r, d) + " ELSE " + genBool(r, d) + " END"
	default:
		return "debug(" + genBool(r, d) + ")"
	}
}

// TestPgbenchDiffSplitRandom compares how random SQL-like text is split into
// commands: a final \endif makes pgbench report the number of commands
// ("\endif without matching \if" at command N+1). No server is needed.
func TestPgbenchDiffSplitRandom(t *testing.T) {
	bin, _ := pgbenchForDiff(t)
	n := 300
	if v := os.Getenv("PGTRIAL_PGBENCH_DIFF_N"); v != "" {
		fmt.Sscan(v, &n)
	}
	r := rand.New(rand.NewPCG(11, 12))
	pieces := []string{"SELECT", " ", "\n", ";", ";", "(", ")", "'", "''", "\"", "E'", "e'", "\\'", "\\", "\\;", "\\:",
		"$$", "$a$", "$b$", "$1", "$", "/*", "*/", "--", "-", "*", "begin", "BEGIN", "end", "END", "case", "atomic",
		"create", "CREATE", "or", "replace", "function", "procedure", "x", "1", "1e", "1e+", ".5", "..", "U&'", "u&\"",
		"B'", "N'", ":x", "::", ":'v'", "\\set y 1\n", "\\gset\n", "\\sleep 1\n", "\r\n", "\t", "\\\n"}
	fails := 0
	for k := 0; k < n && fails < 10; k++ {
		var b strings.Builder
		for j := r.IntN(30) + 1; j > 0; j-- {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		b.WriteString("\n\\endif\n")
		if !compareWithPgbench(t, bin, "", b.String(), nil) {
			fails++
		}
	}
}
