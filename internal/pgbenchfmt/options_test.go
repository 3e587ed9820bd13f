package pgbenchfmt

import (
	"bytes"
	"io/fs"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/pgtrial/pgtrial/internal/script"
)

// fakeSys is a System with an environment, files and limits of the test's choosing.
type fakeSys struct {
	env    map[string]string
	files  map[string]string
	stdin  string
	nofile uint64
}

func (f fakeSys) system(stdout, stderr *bytes.Buffer) System {
	nofile := f.nofile
	if nofile == 0 {
		nofile = 1 << 20
	}
	return System{
		Stdin:  strings.NewReader(f.stdin),
		Stdout: stdout,
		Stderr: stderr,
		LookupEnv: func(k string) (string, bool) {
			v, ok := f.env[k]
			return v, ok
		},
		ReadFile: func(name string) ([]byte, error) {
			if s, ok := f.files[name]; ok {
				return []byte(s), nil
			}
			if name == "/a/dir" {
				return nil, &fs.PathError{Op: "read", Path: name, Err: syscall.EISDIR}
			}
			return nil, &fs.PathError{Op: "open", Path: name, Err: syscall.ENOENT}
		},
		NoFileLimit: func() (uint64, error) { return nofile, nil },
		UserName:    func() (string, error) { return "osuser", nil },
		ToolVersion: "1.2.3",
	}
}

func parseArgs(t *testing.T, f fakeSys, args ...string) (*Options, int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	o, err := Parse(args, f.system(&out, &errb))
	code := ExitCode(err)
	if (o == nil) != (err != nil) {
		t.Fatalf("Parse(%q) returned options %v and error %v", args, o != nil, err)
	}
	return o, code, out.String(), errb.String()
}

const tryHelp = "pgbench: hint: Try \"pgbench --help\" for more information.\n"

var builtinList = `Available builtin scripts:
      tpcb-like: <builtin: TPC-B (sort of)>
  simple-update: <builtin: simple update>
    select-only: <builtin: select only>

`

// TestParseErrors: every rejection, with pgbench's exact stderr and exit status.
func TestParseErrors(t *testing.T) {
	files := map[string]string{
		"empty.sql":   "",
		"comment.sql": "-- nothing here\n\n",
		"ok.sql":      "select 1;\n",
		"name@x.sql":  "select 2;\n",
	}
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want string // stderr
		code int
	}{
		{"bad long option", []string{"-h", "home", "-p", "5432", "-U", "calvin", "---debug", "--bad-option"}, nil,
			"pgbench: unrecognized option '---debug'\n" + tryHelp, 1},
		{"bad short option", []string{"-x"}, nil, "pgbench: invalid option -- 'x'\n" + tryHelp, 1},
		{"missing argument", []string{"-n", "-c"}, nil, "pgbench: option requires an argument -- 'c'\n" + tryHelp, 1},
		{"missing long argument", []string{"--client"}, nil, "pgbench: option '--client' requires an argument\n" + tryHelp, 1},
		{"argument not allowed", []string{"--connect=yes"}, nil, "pgbench: option '--connect' doesn't allow an argument\n" + tryHelp, 1},
		{"ambiguous", []string{"--pro", "1"}, nil, "pgbench: option '--pro' is ambiguous; possibilities: '--progress' '--protocol' '--progress-timestamp'\n" + tryHelp, 1},
		{"-V not first", []string{"-S", "-V"}, nil, "pgbench: invalid option -- 'V'\n" + tryHelp, 1},
		{"--help not first", []string{"-S", "--help"}, nil, "pgbench: unrecognized option '--help'\n" + tryHelp, 1},
		{"no file", []string{"-f", "no-such-file"}, nil, "pgbench: error: could not open file \"no-such-file\": No such file or directory\n", 1},
		{"file is a directory", []string{"-f", "/a/dir"}, nil, "pgbench: error: could not read file \"/a/dir\": Is a directory\n", 1},
		{"no file, weight", []string{"-f", "no-such@file@3"}, nil, "pgbench: error: could not open file \"no-such@file\": No such file or directory\n", 1},
		{"invalid weight", []string{"--builtin=select-only@one"}, nil, "pgbench: error: invalid weight specification: @one\n", 1},
		{"empty weight", []string{"-b", "se@"}, nil, "pgbench: error: invalid weight specification: @\n", 1},
		{"weight with blank", []string{"-b", "se@1 "}, nil, "pgbench: error: invalid weight specification: @1 \n", 1},
		{"weight overflow", []string{"-b", "se@99999999999999999999"}, nil, "pgbench: error: invalid weight specification: @99999999999999999999\n", 1},
		{"negative weight", []string{"-b", "select-only@-1"}, nil, "pgbench: error: weight specification out of range (0 .. 2147483647): -1\n", 1},
		{"weight too big", []string{"-b", "select-only@2147483648"}, nil, "pgbench: error: weight specification out of range (0 .. 2147483647): 2147483648\n", 1},
		{"weight checked before the file", []string{"-f", "no-such-file@x"}, nil, "pgbench: error: invalid weight specification: @x\n", 1},
		{"bad clients", []string{"-c", "three"}, nil, "pgbench: error: invalid value \"three\" for option -c/--client\n", 1},
		{"zero clients", []string{"-c", "0"}, nil, "pgbench: error: -c/--client must be in range 1..2147483647\n", 1},
		{"empty clients", []string{"-c", ""}, nil, "pgbench: error: -c/--client must be in range 1..2147483647\n", 1},
		{"bad threads", []string{"-j", "eleven"}, nil, "pgbench: error: invalid value \"eleven\" for option -j/--jobs\n", 1},
		{"bad scale", []string{"-i", "-s", "two"}, nil, "pgbench: error: invalid value \"two\" for option -s/--scale\n", 1},
		{"bad transactions", []string{"-t", "zil"}, nil, "pgbench: error: invalid value \"zil\" for option -t/--transactions\n", 1},
		{"bad time", []string{"-T", "0"}, nil, "pgbench: error: -T/--time must be in range 1..2147483647\n", 1},
		{"bad fillfactor", []string{"-F", "1"}, nil, "pgbench: error: -F/--fillfactor must be in range 10..100\n", 1},
		{"bad fillfactor 101", []string{"-i", "--fillfactor=101"}, nil, "pgbench: error: -F/--fillfactor must be in range 10..100\n", 1},
		{"bad progress", []string{"--progress=0"}, nil, "pgbench: error: -P/--progress must be in range 1..2147483647\n", 1},
		{"bad aggregate interval", []string{"--aggregate-interval=-3"}, nil, "pgbench: error: --aggregate-interval must be in range 1..2147483647\n", 1},
		{"bad partitions", []string{"-i", "--partitions", "-1"}, nil, "pgbench: error: --partitions must be in range 0..2147483647\n", 1},
		{"bad query mode", []string{"-M", "no-such-mode"}, nil, "pgbench: error: invalid query mode (-M): \"no-such-mode\"\n", 1},
		{"query mode is case-sensitive", []string{"-M", "Simple"}, nil, "pgbench: error: invalid query mode (-M): \"Simple\"\n", 1},
		{"bad rate", []string{"--rate=0.0"}, nil, "pgbench: error: invalid rate limit: \"0.0\"\n", 1},
		{"rate nan", []string{"--rate=nan"}, nil, "pgbench: error: invalid rate limit: \"nan\"\n", 1},
		{"bad latency", []string{"--latency-limit=0.0"}, nil, "pgbench: error: invalid latency limit: \"0.0\"\n", 1},
		{"bad latency word", []string{"-L", "abc"}, nil, "pgbench: error: invalid latency limit: \"abc\"\n", 1},
		{"bad sampling", []string{"--sampling-rate=2"}, nil, "pgbench: error: invalid sampling rate: \"2\"\n", 1},
		{"bad sampling zero", []string{"--sampling-rate=0"}, nil, "pgbench: error: invalid sampling rate: \"0\"\n", 1},
		{"bad max tries", []string{"--max-tries", "-10"}, nil, "pgbench: error: invalid number of maximum tries: \"-10\"\n", 1},
		{"max tries overflow", []string{"--max-tries=99999999999999999999"}, nil, "pgbench: error: invalid number of maximum tries: \"99999999999999999999\"\n", 1},
		{"unlimited tries", []string{"--max-tries", "0"}, nil, "pgbench: error: an unlimited number of transaction tries can only be used with --latency-limit or a duration (-T)\n", 1},
		{"max tries junk is 0", []string{"--max-tries=abc"}, nil, "pgbench: error: an unlimited number of transaction tries can only be used with --latency-limit or a duration (-T)\n", 1},
		{"bad variable", []string{"-Dfoo"}, nil, "pgbench: error: invalid variable definition: \"foo\"\n", 1},
		{"empty variable name", []string{"-D=x"}, nil, "pgbench: error: invalid variable definition: \"=x\"\n", 1},
		{"empty variable value", []string{"-Dx="}, nil, "pgbench: error: invalid variable definition: \"x=\"\n", 1},
		{"bad variable name", []string{"-D1a=x"}, nil, "pgbench: error: option: invalid variable name: \"1a\"\n", 1},
		{"bad variable name char", []string{"-Da-b=x"}, nil, "pgbench: error: option: invalid variable name: \"a-b\"\n", 1},
		{"no init steps", []string{"-i", "-I", ""}, nil, "pgbench: error: no initialization steps specified\n", 1},
		{"bad init step", []string{"-i", "-I", "dtx"}, nil, "pgbench: error: unrecognized initialization step \"x\"\npgbench: detail: Allowed step characters are: \"dtgGvpf\".\n", 1},
		{"bad partition method", []string{"-i", "--partition-method=foo"}, nil, "pgbench: error: invalid partition method, expecting \"range\" or \"hash\", got: \"foo\"\n", 1},
		{"partition method without partitions", []string{"-i", "--partition-method=HASH"}, nil, "pgbench: error: --partition-method requires greater than zero --partitions\n", 1},
		{"builtin not found", []string{"-b", "zzz"}, nil, "pgbench: error: no builtin script found for name \"zzz\"\n" + builtinList, 1},
		{"builtin ambiguous", []string{"-b", "s"}, nil, "pgbench: error: ambiguous builtin name: 2 builtin scripts found for prefix \"s\"\n" + builtinList, 1},
		{"builtin ambiguous empty", []string{"-b", "@2"}, nil, "pgbench: error: ambiguous builtin name: 3 builtin scripts found for prefix \"\"\n" + builtinList, 1},
		{"list with weight", []string{"-b", "list@1"}, nil, "pgbench: error: no builtin script found for name \"list\"\n" + builtinList, 1},
		{"show-script ambiguous", []string{"--show-script=s"}, nil, "pgbench: error: ambiguous builtin name: 2 builtin scripts found for prefix \"s\"\n" + builtinList, 1},
		{"weight zero", []string{"-b", "se@0", "-b", "si@0", "-b", "tpcb@0"}, nil, "pgbench: error: total script weight must not be zero\n", 1},
		{"empty script", []string{"-f", "empty.sql"}, nil, "pgbench: error: empty command list for script \"empty.sql\"\n", 1},
		{"comment-only script", []string{"-f", "comment.sql"}, nil, "pgbench: error: empty command list for script \"comment.sql\"\n", 1},
		{"empty stdin", []string{"-f", "-"}, nil, "pgbench: error: empty command list for script \"-\"\n", 1},
		{"init vs run", []string{"-i", "-S"}, nil, "pgbench: error: some of the specified options cannot be used in initialization (-i) mode\n", 1},
		{"init vs file", []string{"-i", "-f", "ok.sql"}, nil, "pgbench: error: some of the specified options cannot be used in initialization (-i) mode\n", 1},
		{"init vs random seed", []string{"-i", "--random-seed=1"}, nil, "pgbench: setting random seed to 1\npgbench: error: some of the specified options cannot be used in initialization (-i) mode\n", 1},
		{"init, weight zero is not checked", []string{"-i", "-b", "se@0"}, nil, "pgbench: error: some of the specified options cannot be used in initialization (-i) mode\n", 1},
		{"run vs init", []string{"-S", "-F", "90"}, nil, "pgbench: error: some of the specified options cannot be used in benchmarking mode\n", 1},
		{"-I without -i", []string{"-I", "dtg"}, nil, "pgbench: error: some of the specified options cannot be used in benchmarking mode\n", 1},
		{"-q without -i", []string{"-q"}, nil, "pgbench: error: some of the specified options cannot be used in benchmarking mode\n", 1},
		{"t and T", []string{"-N", "-l", "--aggregate-interval=5", "--log-prefix=notused", "-t", "1000", "-T", "1"}, nil,
			"pgbench: error: specify either a number of transactions (-t) or a duration (-T), not both\n", 1},
		{"T and t", []string{"-P", "1", "--progress-timestamp", "-l", "--sampling-rate=0.001", "-T", "10", "-t", "1000"}, nil,
			"pgbench: error: specify either a number of transactions (-t) or a duration (-T), not both\n", 1},
		{"progress timestamp", []string{"--progress-timestamp"}, nil, "pgbench: error: --progress-timestamp is allowed only under --progress\n", 1},
		{"sampling without log", []string{"--sampling-rate=0.01"}, nil, "pgbench: error: log sampling (--sampling-rate) is allowed only when logging transactions (-l)\n", 1},
		{"sampling and aggregation", []string{"-l", "--sampling-rate=0.1", "--aggregate-interval=3"}, nil,
			"pgbench: error: log sampling (--sampling-rate) and aggregation (--aggregate-interval) cannot be used at the same time\n", 1},
		{"aggregation without log", []string{"--aggregate-interval=3"}, nil, "pgbench: error: log aggregation is allowed only when actually logging transactions\n", 1},
		{"prefix without log", []string{"--log-prefix=x"}, nil, "pgbench: error: log file prefix (--log-prefix) is allowed only when logging transactions (-l)\n", 1},
		{"aggregation longer than run", []string{"-l", "--aggregate-interval=20", "-T", "10"}, nil,
			"pgbench: error: number of seconds for aggregation (20) must not be higher than test duration (10)\n", 1},
		{"duration not a multiple", []string{"-l", "--aggregate-interval=3", "-T", "10"}, nil,
			"pgbench: error: duration (10) must be a multiple of aggregation interval (3)\n", 1},
		{"bad random seed", []string{"--random-seed=one"}, nil,
			"pgbench: error: unrecognized random seed option \"one\"\npgbench: detail: Expecting an unsigned integer, \"time\" or \"rand\".\npgbench: error: error while setting random seed from --random-seed option\n", 1},
		{"bad seed env", []string{"-S"}, map[string]string{"PGBENCH_RANDOM_SEED": ""},
			"pgbench: error: unrecognized random seed option \"\"\npgbench: detail: Expecting an unsigned integer, \"time\" or \"rand\".\npgbench: error: error while setting random seed from PGBENCH_RANDOM_SEED environment variable\n", 1},
		{"seed env, then option", []string{"--random-seed", "6", "-c", "x"}, map[string]string{"PGBENCH_RANDOM_SEED": "5"},
			"pgbench: setting random seed to 5\npgbench: setting random seed to 6\npgbench: error: invalid value \"x\" for option -c/--client\n", 1},
		{"seed wraps", []string{"--random-seed=-1", "-c", "x"}, nil,
			"pgbench: setting random seed to 18446744073709551615\npgbench: error: invalid value \"x\" for option -c/--client\n", 1},
		{"too many arguments", []string{"a", "b", "c"}, nil, "pgbench: error: too many command-line arguments (first is \"b\")\n" + tryHelp, 1},
		{"too many with -d", []string{"-d", "db", "other"}, nil, "pgbench: error: too many command-line arguments (first is \"other\")\n" + tryHelp, 1},
		{"after --", []string{"db", "--", "-S"}, nil, "pgbench: error: too many command-line arguments (first is \"-S\")\n" + tryHelp, 1},
		{"POSIXLY_CORRECT", []string{"db", "-c", "x"}, map[string]string{"POSIXLY_CORRECT": "1"},
			"pgbench: error: too many command-line arguments (first is \"-c\")\n" + tryHelp, 1},
		{"order: options before operands are checked", []string{"a", "b", "-c", "x"}, nil, "pgbench: error: invalid value \"x\" for option -c/--client\n", 1},
		{"order: file before later option", []string{"-f", "nofile", "-c", "x"}, nil, "pgbench: error: could not open file \"nofile\": No such file or directory\n", 1},
		{"order: weight zero before arguments", []string{"-b", "se@0", "a", "b"}, nil, "pgbench: error: total script weight must not be zero\n", 1},
		{"order: arguments before init checks", []string{"-i", "-S", "a", "b"}, nil, "pgbench: error: too many command-line arguments (first is \"b\")\n" + tryHelp, 1},
		{"order: init option before -t/-T", []string{"-F", "50", "-t", "1", "-T", "1"}, nil, "pgbench: error: some of the specified options cannot be used in benchmarking mode\n", 1},
		{"too many clients for the limit", []string{"-c", "2000000"}, nil,
			"pgbench: error: need at least 2000003 open files, but system limit is 1048576\npgbench: hint: Reduce number of clients, or use limit/ulimit to increase the system limit.\n", 1},
		{"INT_MAX clients wraps", []string{"-c", "2147483647"}, nil,
			"pgbench: error: need at least -2147483646 open files, but system limit is 1048576\npgbench: hint: Reduce number of clients, or use limit/ulimit to increase the system limit.\n", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, code, out, errOut := parseArgs(t, fakeSys{env: tt.env, files: files}, tt.args...)
			if code != tt.code || errOut != tt.want || out != "" {
				t.Errorf("pgbench %q:\nexit %d, want %d\nstderr:\n%s\nwant:\n%s\nstdout: %q", tt.args, code, tt.code, errOut, tt.want, out)
			}
		})
	}
}

func TestTooManyScripts(t *testing.T) {
	var args []string
	for i := 0; i < MaxScripts; i++ {
		args = append(args, "-S")
	}
	if o, code, _, errOut := parseArgs(t, fakeSys{}, args...); code != 0 || len(o.Scripts) != MaxScripts {
		t.Fatalf("128 scripts: exit %d: %s", code, errOut)
	}
	_, code, _, errOut := parseArgs(t, fakeSys{}, append(args, "-N")...)
	if want := "pgbench: error: at most 128 SQL scripts are allowed\n"; code != 1 || errOut != want {
		t.Errorf("129 scripts: exit %d, stderr %q, want %q", code, errOut, want)
	}
}

// TestParseExits: help, version, -b list and --show-script print and exit 0.
func TestParseExits(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"-?"}, {"--help", "-x"}} {
		_, code, out, errOut := parseArgs(t, fakeSys{}, args...)
		if code != 0 || out != Usage() || errOut != "" {
			t.Errorf("%q: exit %d, stdout %.40q…, stderr %q", args, code, out, errOut)
		}
	}
	for _, args := range [][]string{{"--version"}, {"-V"}, {"-V", "--bad"}} {
		_, code, out, errOut := parseArgs(t, fakeSys{}, args...)
		if want := "pgbench (PostgreSQL) 18.0 (pgtrial 1.2.3)\n"; code != 0 || out != want || errOut != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
	// -b list stops at once, even before a bad option later on the line, but after
	// the options before it.
	_, code, out, errOut := parseArgs(t, fakeSys{}, "-n", "-b", "list", "-c", "x")
	if code != 0 || out != "" || errOut != builtinList {
		t.Errorf("-b list: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	_, code, _, errOut = parseArgs(t, fakeSys{}, "-c", "x", "-b", "list")
	if code != 1 {
		t.Errorf("-c x -b list: exit %d, stderr %q", code, errOut)
	}
	_, code, out, errOut = parseArgs(t, fakeSys{}, "--show-script", "se")
	want := "-- select-only: <builtin: select only>\n\\set aid random(1, 100000 * :scale)\nSELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n\n"
	if code != 0 || out != "" || errOut != want {
		t.Errorf("--show-script se: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

func TestUsageText(t *testing.T) {
	u := Usage()
	for _, want := range []string{"benchmarking tool for PostgreSQL", "Usage:\n  pgbench [OPTION]... [DBNAME]\n",
		"Initialization options:", "Common options:", "Report bugs to", "--continue-on-error", "--exit-on-abort"} {
		if !strings.Contains(u, want) {
			t.Errorf("usage lacks %q", want)
		}
	}
	for _, line := range strings.Split(u, "\n") {
		if len(line) > 95 { // program_help_ok
			t.Errorf("usage line longer than 95 characters: %q", line)
		}
	}
	// Every long option is documented.
	for _, lo := range longOptions {
		if !strings.Contains(u, "--"+lo.name) {
			t.Errorf("usage does not mention --%s", lo.name)
		}
	}
}

// TestParseValues: what a successful parse yields.
func TestParseValues(t *testing.T) {
	files := map[string]string{"a.sql": "select 1;\n", "b@c.sql": "select 2;\n"}
	env := map[string]string{"PGBENCH_RANDOM_SEED": "77"}
	t.Run("defaults", func(t *testing.T) {
		o, code, _, errOut := parseArgs(t, fakeSys{env: map[string]string{"PGUSER": "u"}})
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		if o.Mode != ModeRun || o.Clients != 1 || o.Threads != 1 || o.Transactions != 10 || o.Duration != 0 ||
			o.Scale != 1 || o.ScaleGiven || o.QueryMode != script.Simple || o.MaxTries != 1 || o.LogPrefix != "pgbench_log" ||
			!o.BuiltinUsed || o.PerScriptStats || o.TotalWeight != 1 || o.DBName != "u" || o.Seed.Explicit {
			t.Errorf("defaults: %+v", o)
		}
		if len(o.Scripts) != 1 || o.Scripts[0].Builtin != "tpcb-like" || o.Scripts[0].Desc != "<builtin: TPC-B (sort of)>" ||
			o.Scripts[0].Weight != 1 || o.Scripts[0].Parsed == nil {
			t.Errorf("default script: %+v", o.Scripts)
		}
	})
	t.Run("run", func(t *testing.T) {
		o, code, _, errOut := parseArgs(t, fakeSys{env: env, files: files},
			"-c4", "mydb", "-j", "8", "-nS", "--file=b@c.sql@3", "-f", "a.sql", "-M", "prepared", "--rate", "100",
			"-L", "2.5", "-T", "60", "-P", "5", "--progress-timestamp", "-l", "--log-prefix=/tmp/x",
			"--aggregate-interval=10", "-Dfoo=1", "-Dbar=x=y", "-Dfoo=2", "--max-tries=0", "--failures-detailed",
			"--verbose-errors", "--exit-on-abort", "--continue-on-error", "-r", "-C", "-v", "-s", "7",
			"-h", "host", "-p", "5433", "-U", "user", "--debug")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		if errOut != "pgbench: setting random seed to 77\n" {
			t.Errorf("stderr %q", errOut)
		}
		got := *o
		got.Scripts = nil
		want := Options{
			Mode: ModeRun, DBName: "mydb", Host: "host", Port: "5433", Username: "user", Debug: true,
			Scale: 7, ScaleGiven: true, NoVacuum: true, Fillfactor: 100,
			TotalWeight: 5, BuiltinUsed: true, PerScriptStats: true, Clients: 4, Threads: 4, Duration: 60,
			Connect: true, Variables: []Variable{{"foo", "2"}, {"bar", "x=y"}}, Log: true, LogPrefix: "/tmp/x",
			LatencyLimit: 2500, QueryMode: script.Prepared, Progress: 5, ProgressTimestamp: true, ReportPerCommand: true,
			Rate: 100, ThrottleDelay: 40000, VacuumAll: true, AggregateInterval: 10, MaxTries: 0,
			FailuresDetailed: true, VerboseErrors: true, ExitOnAbort: true, ContinueOnError: true,
		}
		want.Seed.Value, want.Seed.Explicit = 77, true
		if !reflect.DeepEqual(got, want) {
			t.Errorf("options:\n got %+v\nwant %+v", got, want)
		}
		var descs []string
		for _, s := range o.Scripts {
			descs = append(descs, s.Desc+"@"+string(rune('0'+s.Weight)))
		}
		if strings.Join(descs, " ") != "<builtin: select only>@1 b@c.sql@3 a.sql@1" {
			t.Errorf("scripts %q", descs)
		}
		if o.Scripts[1].Source != "select 2;\n" || o.Scripts[1].Builtin != "" {
			t.Errorf("file script %+v", o.Scripts[1])
		}
	})
	t.Run("init", func(t *testing.T) {
		o, code, _, errOut := parseArgs(t, fakeSys{env: map[string]string{"PGDATABASE": "pgdb", "PGUSER": "u"}},
			"--initialize", "--init-steps=dtpvg", "--scale=3", "--unlogged-tables", "--fillfactor=98", "--foreign-keys",
			"--quiet", "--tablespace=ts", "--index-tablespace=its", "--partitions=2", "-n")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		if o.Mode != ModeInit || o.InitSteps != "dtp gf" || o.Scale != 3 || !o.Unlogged || o.Fillfactor != 98 ||
			!o.ForeignKeys || !o.Quiet || o.Tablespace != "ts" || o.IndexTablespace != "its" || o.Partitions != 2 ||
			o.PartitionMethod != PartitionRange || o.DBName != "pgdb" || len(o.Scripts) != 0 {
			t.Errorf("init options: %+v", o)
		}
		o, _, _, _ = parseArgs(t, fakeSys{}, "-i", "--partitions=3", "--partition-method=Hash", "-I", "dtf", "--foreign-keys", "-d", "x")
		if o.InitSteps != "dtf" || o.PartitionMethod != PartitionHash || o.DBName != "x" {
			t.Errorf("init options: %+v", o)
		}
		o, _, _, _ = parseArgs(t, fakeSys{}, "-i")
		if o.InitSteps != "dtgvp" || o.PartitionMethod != PartitionNone || o.DBName != "osuser" {
			t.Errorf("init defaults: %+v", o)
		}
		o, _, _, _ = parseArgs(t, fakeSys{}, "-i", "--partitions=0", "-s", "2")
		if o == nil || o.Partitions != 0 || o.Scale != 2 {
			t.Errorf("--partitions=0: %+v", o)
		}
	})
	t.Run("stdin script", func(t *testing.T) {
		o, code, _, errOut := parseArgs(t, fakeSys{stdin: "select 3;\n"}, "-f", "-")
		if code != 0 || o.Scripts[0].Desc != "-" || o.Scripts[0].Source != "select 3;\n" {
			t.Errorf("exit %d %s: %+v", code, errOut, o)
		}
	})
	t.Run("threads capped", func(t *testing.T) {
		o, _, _, _ := parseArgs(t, fakeSys{}, "-j", "8", "-c", "3", "-R", "10")
		if o.Threads != 3 || o.ThrottleDelay != 300000 {
			t.Errorf("threads %d, throttle delay %v", o.Threads, o.ThrottleDelay)
		}
	})
	t.Run("dbname from -d is kept even if empty", func(t *testing.T) {
		o, _, _, _ := parseArgs(t, fakeSys{env: map[string]string{"PGDATABASE": "pgdb"}}, "-d", "")
		if o.DBName != "" {
			t.Errorf("dbname %q", o.DBName)
		}
	})
	t.Run("empty PGDATABASE is skipped", func(t *testing.T) {
		o, _, _, _ := parseArgs(t, fakeSys{env: map[string]string{"PGDATABASE": "", "PGUSER": "pu"}})
		if o.DBName != "pu" {
			t.Errorf("dbname %q", o.DBName)
		}
	})
	t.Run("latency limit truncates to µs", func(t *testing.T) {
		o, _, _, _ := parseArgs(t, fakeSys{}, "-L", "0.0015ms")
		if o.LatencyLimit != 1 {
			t.Errorf("latency limit %d", o.LatencyLimit)
		}
	})
}

// A condition error, or a script error whose text shows no column, is pgbench's
// message plus a detail that says where the command is.
func TestConditionErrorDetail(t *testing.T) {
	files := map[string]string{
		"else.sql":  "select 1;\n  \\else\n",
		"if.sql":    "\\if 1\nselect 1;\n",
		"sleep.sql": "select 1;\n\\sleep\n",
		"set.sql":   "\\set x 1 +\n",
	}
	for name, want := range map[string]string{
		"else.sql": "pgbench: error: condition error in script \"else.sql\" command 2: \\else without matching \\if\n" +
			"pgbench: detail: the command is at else.sql:2:3\n",
		"if.sql": "pgbench: error: condition error in script \"if.sql\" command 3: \\if without matching \\endif\n" +
			"pgbench: detail: the unclosed \\if is at if.sql:1:1\n",
		// An argument error has no caret in pgbench's text: the detail gives the place.
		"sleep.sql": "pgbench: error: sleep.sql:2: missing argument in command \"sleep\"\n\\sleep\n" +
			"pgbench: detail: the command is at sleep.sql:2:1\n",
		// The caret shows the column already: no detail.
		"set.sql": "pgbench: error: set.sql:1: syntax error in command \"set\"\n\\set x 1 +\n          ^ error found here\n",
	} {
		_, code, _, errOut := parseArgs(t, fakeSys{files: files}, "-f", name)
		if code != 1 || errOut != want {
			t.Errorf("%s: exit %d, stderr\n%s\nwant\n%s", name, code, errOut, want)
		}
	}
}
