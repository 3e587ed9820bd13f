// Package pgbenchfmt is pgbench's face: its command line (options, validation and the
// exact messages, in pgbench's order), its help and version text, its built-in script
// listing, its final report (report.go), progress lines (progress.go) and transaction
// and aggregate logs (txlog.go), byte for byte pgbench's. What it parses is an
// Options value that the engine runs (through internal/trial, like every run).
package pgbenchfmt

import (
	"errors"
	"fmt"
	"math"
	"os"
	"strings"

	"github.com/pgtrial/pgtrial/internal/cnum"
	"github.com/pgtrial/pgtrial/internal/engine"
	"github.com/pgtrial/pgtrial/internal/prng"
	"github.com/pgtrial/pgtrial/internal/script"
)

// Mode is what pgbench was asked to do.
type Mode int

const (
	ModeRun  Mode = iota // benchmarking
	ModeInit             // -i: create and load the tables
)

// Partition methods (--partition-method).
const (
	PartitionNone  = ""
	PartitionRange = "range"
	PartitionHash  = "hash"
)

// pgbench's defaults and limits.
const (
	DefaultInitSteps   = "dtgvp"
	AllInitSteps       = "dtgGvpf"
	DefaultNxacts      = 10
	DefaultLogPrefix   = "pgbench_log"
	MaxScripts         = engine.MaxScripts
	weightSeparator    = '@'
	maxInt             = math.MaxInt32
	defaultBuiltinName = "tpcb-like"
)

// Script is one script to run, with its weight.
type Script struct {
	// Desc is pgbench's description of the script: "<builtin: …>" for a built-in,
	// the file name as given for a file ("-" for stdin). It is what the report shows
	// after "transaction type:" and "SQL script N:".
	Desc    string
	Builtin string // the built-in's name, "" for a file
	Weight  int    // 0..2147483647; 0 means never chosen
	Source  string // the script text
	Parsed  *script.Script
}

// Variable is a -D definition. Values stay strings, as pgbench keeps them until used.
type Variable struct {
	Name, Value string
}

// Options is a parsed pgbench command line: what to do and every setting, validated
// as pgbench validates them. Durations are in pgbench's units (seconds, µs).
type Options struct {
	Mode Mode

	// Connection (neutral options). DBName is resolved as pgbench does: -d, the first
	// operand, PGDATABASE, PGUSER, the OS user. It may be a conninfo string or URI.
	DBName   string
	Host     string // -h, "" if not given
	Port     string // -p, "" if not given
	Username string // -U, "" if not given
	Debug    bool   // --debug

	Scale      int  // -s, default 1
	ScaleGiven bool // -s was given (a run with built-in scripts then warns)
	NoVacuum   bool // -n

	// Initialization.
	InitSteps       string // the steps to run: -I (default dtgvp), minus v under -n, plus f under --foreign-keys
	Fillfactor      int    // -F, 10..100, default 100
	Quiet           bool   // -q
	Unlogged        bool   // --unlogged-tables
	Tablespace      string // --tablespace
	IndexTablespace string // --index-tablespace
	ForeignKeys     bool   // --foreign-keys
	Partitions      int    // --partitions, 0 = not partitioned
	PartitionMethod string // PartitionRange or PartitionHash when Partitions > 0

	// Benchmarking.
	Scripts           []Script
	TotalWeight       int64
	BuiltinUsed       bool // a built-in script is run: the scale comes from pgbench_branches
	PerScriptStats    bool // more than one script: the report has per-script blocks
	Clients           int  // -c, default 1
	Threads           int  // -j, default 1, capped at Clients
	Transactions      int  // -t per client; DefaultNxacts when neither -t nor -T is given; 0 under -T
	Duration          int  // -T in seconds, 0 if not given
	Connect           bool // -C
	Variables         []Variable
	Log               bool        // -l
	LogPrefix         string      // --log-prefix, default "pgbench_log"
	LatencyLimit      int64       // -L in µs, 0 if not given
	QueryMode         script.Mode // -M; the scripts' SQL is prepared for it
	Progress          int         // -P in seconds, 0 if not given
	ProgressTimestamp bool        // --progress-timestamp
	ReportPerCommand  bool        // -r
	Rate              float64     // -R in transactions per second, 0 if not given
	// ThrottleDelay is pgbench's per-thread mean delay between scheduled
	// transactions, in µs: 1e6 / Rate × Threads (0 without -R).
	ThrottleDelay     float64
	VacuumAll         bool    // -v
	AggregateInterval int     // --aggregate-interval in seconds, 0 if not given
	SamplingRate      float64 // --sampling-rate, 0 if not given (then every transaction is logged)
	MaxTries          uint32  // --max-tries, default 1; 0 = unlimited
	FailuresDetailed  bool
	VerboseErrors     bool
	ExitOnAbort       bool
	ContinueOnError   bool // --continue-on-error (PostgreSQL 19)

	// pgtrial's additions; they add output, never change pgbench's.
	Percentiles bool   // --percentiles: latency percentiles after the report
	RunDir      string // --run-dir: also write a pgtrial run directory
	// MetricsAddr is --metrics-addr: serve the live metrics there;
	// MetricsAllowRemote --metrics-allow-remote: also beyond loopback.
	MetricsAddr        string
	MetricsAllowRemote bool
	// Segment is --segment i/n: run segment i of n generators that
	// together make the one schedule of -c, -j and -R (as `pgtrial run
	// --segment`); StartAt is --start-at, the instant (RFC 3339) they all
	// begin. Both are checked by the command, not here.
	Segment, StartAt string

	// Seed is the base random seed: --random-seed, else PGBENCH_RANDOM_SEED, else the
	// clock (then Seed.Explicit is false).
	Seed prng.Seed
}

// Option codes of long-only options (above any byte).
const (
	optUnloggedTables = 256 + iota
	optTablespace
	optIndexTablespace
	optSamplingRate
	optAggregateInterval
	optProgressTimestamp
	optLogPrefix
	optForeignKeys
	optRandomSeed
	optShowScript
	optPartitions
	optPartitionMethod
	optFailuresDetailed
	optMaxTries
	optVerboseErrors
	optExitOnAbort
	optDebug
	optContinueOnError
	optPercentiles
	optRunDir
	optMetricsAddr
	optMetricsAllowRemote
	optSegment
	optStartAt
)

// optFirstAddition is the code of pgtrial's first addition to pgbench's
// options; the additions' codes follow it (longOption.addition).
const optFirstAddition = optPercentiles

// optString is pgbench's getopt string.
const optString = "b:c:Cd:D:f:F:h:iI:j:lL:M:nNp:P:qrR:s:St:T:U:v"

// longOptions is pgbench's table, in pgbench's order (glibc lists ambiguous
// abbreviations in this order).
var longOptions = []longOption{
	{"builtin", requiredArgument, 'b'},
	{"client", requiredArgument, 'c'},
	{"connect", noArgument, 'C'},
	{"dbname", requiredArgument, 'd'},
	{"define", requiredArgument, 'D'},
	{"file", requiredArgument, 'f'},
	{"fillfactor", requiredArgument, 'F'},
	{"host", requiredArgument, 'h'},
	{"initialize", noArgument, 'i'},
	{"init-steps", requiredArgument, 'I'},
	{"jobs", requiredArgument, 'j'},
	{"log", noArgument, 'l'},
	{"latency-limit", requiredArgument, 'L'},
	{"no-vacuum", noArgument, 'n'},
	{"port", requiredArgument, 'p'},
	{"progress", requiredArgument, 'P'},
	{"protocol", requiredArgument, 'M'},
	{"quiet", noArgument, 'q'},
	{"report-per-command", noArgument, 'r'},
	{"rate", requiredArgument, 'R'},
	{"scale", requiredArgument, 's'},
	{"select-only", noArgument, 'S'},
	{"skip-some-updates", noArgument, 'N'},
	{"time", requiredArgument, 'T'},
	{"transactions", requiredArgument, 't'},
	{"username", requiredArgument, 'U'},
	{"vacuum-all", noArgument, 'v'},
	{"unlogged-tables", noArgument, optUnloggedTables},
	{"tablespace", requiredArgument, optTablespace},
	{"index-tablespace", requiredArgument, optIndexTablespace},
	{"sampling-rate", requiredArgument, optSamplingRate},
	{"aggregate-interval", requiredArgument, optAggregateInterval},
	{"progress-timestamp", noArgument, optProgressTimestamp},
	{"log-prefix", requiredArgument, optLogPrefix},
	{"foreign-keys", noArgument, optForeignKeys},
	{"random-seed", requiredArgument, optRandomSeed},
	{"show-script", requiredArgument, optShowScript},
	{"partitions", requiredArgument, optPartitions},
	{"partition-method", requiredArgument, optPartitionMethod},
	{"failures-detailed", noArgument, optFailuresDetailed},
	{"max-tries", requiredArgument, optMaxTries},
	{"verbose-errors", noArgument, optVerboseErrors},
	{"exit-on-abort", noArgument, optExitOnAbort},
	{"debug", noArgument, optDebug},
	{"continue-on-error", noArgument, optContinueOnError},
	// pgtrial's additions: an abbreviation reaches them only when it is no
	// abbreviation of pgbench's own ("--m" stays --max-tries).
	{"percentiles", noArgument, optPercentiles},
	{"run-dir", requiredArgument, optRunDir},
	{"metrics-addr", requiredArgument, optMetricsAddr},
	{"metrics-allow-remote", noArgument, optMetricsAllowRemote},
	{"segment", requiredArgument, optSegment},
	{"start-at", requiredArgument, optStartAt},
}

// parser is the state of one Parse: pgbench's main() locals.
type parser struct {
	sys System
	log logger
	o   *Options

	initMode     bool
	initSteps    string
	initStepsSet bool
	benchOption  bool // benchmarking_option_set
	initOption   bool // initialization_option_set
	dbNameSet    bool
	logPrefixSet bool
}

// Parse parses pgbench's command line (args without the program name) as pgbench 18
// does, with PostgreSQL 19's --continue-on-error. Everything pgbench prints while
// parsing goes to sys.Stderr (help and version to sys.Stdout) as it happens, in
// pgbench's order. It returns the options, or an *Exit when pgbench would exit
// (code 0 after help, version, "-b list" and --show-script; 1 for a rejected command
// line). It never connects to a server.
func Parse(args []string, sys System) (*Options, error) {
	sys = sys.withDefaults()
	p := &parser{sys: sys, log: logger{sys.Stderr}}
	p.o = &Options{
		Scale:      1,
		Fillfactor: 100,
		Clients:    1,
		Threads:    1,
		LogPrefix:  DefaultLogPrefix,
		MaxTries:   1,
		QueryMode:  script.Simple,
	}
	if err := p.parse(args); err != nil {
		return nil, err
	}
	return p.o, nil
}

func (p *parser) parse(args []string) error {
	o := p.o
	if len(args) > 0 {
		switch args[0] {
		case "--help", "-?":
			fmt.Fprint(p.sys.Stdout, Usage())
			return &Exit{Code: 0}
		case "--version", "-V":
			fmt.Fprintln(p.sys.Stdout, VersionLine(p.sys.ToolVersion))
			return &Exit{Code: 0}
		}
	}

	// The seed is set before the options are read: PGBENCH_RANDOM_SEED, or the clock.
	if spec, ok := p.sys.LookupEnv("PGBENCH_RANDOM_SEED"); ok {
		if !p.setRandomSeed(spec) {
			return p.log.fatal("error while setting random seed from PGBENCH_RANDOM_SEED environment variable")
		}
	} else {
		o.Seed = prng.TimeSeed()
	}

	_, posixly := p.sys.LookupEnv("POSIXLY_CORRECT")
	g := newGetopt(args, optString, longOptions, posixly)
	for {
		ev, ok, err := g.nextOption()
		if err != nil {
			// glibc prints its complaint with argv[0]; pgbench's argv[0] is "pgbench".
			fmt.Fprintf(p.sys.Stderr, "pgbench: %v\n", err)
			p.log.Hint(`Try "pgbench --help" for more information.`)
			return &Exit{Code: 1}
		}
		if !ok {
			break
		}
		if err := p.option(ev); err != nil {
			return err
		}
	}
	return p.finish(g.operands)
}

// option handles one option, as the switch in pgbench's main().
func (p *parser) option(ev getoptEvent) error {
	o := p.o
	arg := ev.arg
	var err error
	switch ev.code {
	case 'b':
		if arg == "list" {
			listBuiltins(p.sys.Stderr)
			return &Exit{Code: 0}
		}
		name, weight, err := p.parseScriptWeight(arg)
		if err != nil {
			return err
		}
		bi, err := p.findBuiltin(name)
		if err != nil {
			return err
		}
		if err := p.addBuiltin(bi, weight); err != nil {
			return err
		}
		p.benchOption = true
		o.BuiltinUsed = true
	case 'c':
		p.benchOption = true
		if o.Clients, err = p.parseInt(arg, "-c/--client", 1, maxInt); err != nil {
			return err
		}
		if err := p.checkNoFile(o.Clients); err != nil {
			return err
		}
	case 'C':
		p.benchOption = true
		o.Connect = true
	case 'd':
		o.DBName = arg
		p.dbNameSet = true
	case 'D':
		p.benchOption = true
		name, value, found := script.CutDefine(arg)
		if !found || value == "" {
			return p.log.fatal("invalid variable definition: \"%s\"", arg)
		}
		if err := p.putVariable(name, value); err != nil {
			return err
		}
	case 'f':
		name, weight, err := p.parseScriptWeight(arg)
		if err != nil {
			return err
		}
		if err := p.addFile(name, weight); err != nil {
			return err
		}
		p.benchOption = true
	case 'F':
		p.initOption = true
		if o.Fillfactor, err = p.parseInt(arg, "-F/--fillfactor", 10, 100); err != nil {
			return err
		}
	case 'h':
		o.Host = arg
	case 'i':
		p.initMode = true
	case 'I':
		if err := p.checkInitSteps(arg); err != nil {
			return err
		}
		p.initSteps = arg
		p.initStepsSet = true
		p.initOption = true
	case 'j':
		p.benchOption = true
		if o.Threads, err = p.parseInt(arg, "-j/--jobs", 1, maxInt); err != nil {
			return err
		}
	case 'l':
		p.benchOption = true
		o.Log = true
	case 'L':
		limit := cnum.Atof(arg)
		if !(limit > 0) {
			return p.log.fatal("invalid latency limit: \"%s\"", arg)
		}
		p.benchOption = true
		o.LatencyLimit = int64(limit * 1000)
	case 'M':
		p.benchOption = true
		mode, ok := script.ParseMode(arg)
		if !ok {
			return p.log.fatal("invalid query mode (-M): \"%s\"", arg)
		}
		o.QueryMode = mode
	case 'n':
		o.NoVacuum = true
	case 'N':
		if err := p.addBuiltin(mustBuiltin("simple-update"), 1); err != nil {
			return err
		}
		p.benchOption = true
		o.BuiltinUsed = true
	case 'p':
		o.Port = arg
	case 'P':
		p.benchOption = true
		if o.Progress, err = p.parseInt(arg, "-P/--progress", 1, maxInt); err != nil {
			return err
		}
	case 'q':
		p.initOption = true
		o.Quiet = true
	case 'r':
		p.benchOption = true
		o.ReportPerCommand = true
	case 'R':
		p.benchOption = true
		rate := cnum.Atof(arg)
		if !(rate > 0) {
			return p.log.fatal("invalid rate limit: \"%s\"", arg)
		}
		o.Rate = rate
	case 's':
		o.ScaleGiven = true
		if o.Scale, err = p.parseInt(arg, "-s/--scale", 1, maxInt); err != nil {
			return err
		}
	case 'S':
		if err := p.addBuiltin(mustBuiltin("select-only"), 1); err != nil {
			return err
		}
		p.benchOption = true
		o.BuiltinUsed = true
	case 't':
		p.benchOption = true
		if o.Transactions, err = p.parseInt(arg, "-t/--transactions", 1, maxInt); err != nil {
			return err
		}
	case 'T':
		p.benchOption = true
		if o.Duration, err = p.parseInt(arg, "-T/--time", 1, maxInt); err != nil {
			return err
		}
	case 'U':
		o.Username = arg
	case 'v':
		p.benchOption = true
		o.VacuumAll = true
	case optUnloggedTables:
		p.initOption = true
		o.Unlogged = true
	case optTablespace:
		p.initOption = true
		o.Tablespace = arg
	case optIndexTablespace:
		p.initOption = true
		o.IndexTablespace = arg
	case optSamplingRate:
		p.benchOption = true
		rate := cnum.Atof(arg)
		if !(rate > 0) || rate > 1 {
			return p.log.fatal("invalid sampling rate: \"%s\"", arg)
		}
		o.SamplingRate = rate
	case optAggregateInterval:
		p.benchOption = true
		if o.AggregateInterval, err = p.parseInt(arg, "--aggregate-interval", 1, maxInt); err != nil {
			return err
		}
	case optProgressTimestamp:
		o.ProgressTimestamp = true
		p.benchOption = true
	case optLogPrefix:
		p.benchOption = true
		o.LogPrefix = arg
		p.logPrefixSet = true
	case optForeignKeys:
		p.initOption = true
		o.ForeignKeys = true
	case optRandomSeed:
		p.benchOption = true
		if !p.setRandomSeed(arg) {
			return p.log.fatal("error while setting random seed from --random-seed option")
		}
	case optShowScript:
		bi, err := p.findBuiltin(arg)
		if err != nil {
			return err
		}
		fmt.Fprintf(p.sys.Stderr, "-- %s: %s\n%s\n", bi.Name, bi.Desc, bi.Script)
		return &Exit{Code: 0}
	case optPartitions:
		p.initOption = true
		if o.Partitions, err = p.parseInt(arg, "--partitions", 0, maxInt); err != nil {
			return err
		}
	case optPartitionMethod:
		p.initOption = true
		switch strings.ToLower(arg) { // pg_strcasecmp: ASCII only, as ToLower on these words
		case PartitionRange:
			o.PartitionMethod = PartitionRange
		case PartitionHash:
			o.PartitionMethod = PartitionHash
		default:
			return p.log.fatal("invalid partition method, expecting \"range\" or \"hash\", got: \"%s\"", arg)
		}
	case optFailuresDetailed:
		p.benchOption = true
		o.FailuresDetailed = true
	case optMaxTries:
		n := cnum.Atoi(arg) // pgbench uses atoi: junk is 0, i.e. unlimited
		if n < 0 {
			return p.log.fatal("invalid number of maximum tries: \"%s\"", arg)
		}
		p.benchOption = true
		o.MaxTries = uint32(n)
	case optVerboseErrors:
		p.benchOption = true
		o.VerboseErrors = true
	case optExitOnAbort:
		p.benchOption = true
		o.ExitOnAbort = true
	case optDebug:
		o.Debug = true
	case optContinueOnError:
		p.benchOption = true
		o.ContinueOnError = true
	case optPercentiles:
		p.benchOption = true
		o.Percentiles = true
	case optRunDir:
		p.benchOption = true
		o.RunDir = ev.arg
	case optMetricsAddr:
		p.benchOption = true
		o.MetricsAddr = ev.arg
	case optMetricsAllowRemote:
		p.benchOption = true
		o.MetricsAllowRemote = true
	case optSegment:
		p.benchOption = true
		o.Segment = ev.arg
	case optStartAt:
		p.benchOption = true
		o.StartAt = ev.arg
	default:
		panic(fmt.Sprintf("pgbenchfmt: option code %d has no handler", ev.code))
	}
	return nil
}

// finish applies pgbench's checks after the options, in pgbench's order (reference
// §3.5), given the operands.
func (p *parser) finish(operands []string) error {
	o := p.o
	if len(o.Scripts) == 0 && !p.initMode {
		if err := p.addBuiltin(mustBuiltin(defaultBuiltinName), 1); err != nil {
			return err
		}
		p.benchOption = true
		o.BuiltinUsed = true
	}
	// The SQL is post-processed for -M now that all options are known (so -M may
	// follow -f); prepared statements are numbered across the scripts.
	prepNum := 0
	for _, s := range o.Scripts {
		var err error
		if prepNum, err = s.Parsed.Prepare(o.QueryMode, prepNum); err != nil {
			return p.log.fatal("%v", err)
		}
		o.TotalWeight += int64(s.Weight)
	}
	if o.TotalWeight == 0 && !p.initMode {
		return p.log.fatal("total script weight must not be zero")
	}
	o.PerScriptStats = len(o.Scripts) > 1
	if o.Threads > o.Clients {
		o.Threads = o.Clients
	}
	if o.Rate > 0 {
		o.ThrottleDelay = 1e6 / o.Rate * float64(o.Threads)
	}

	if !p.dbNameSet {
		switch {
		case len(operands) > 0:
			o.DBName = operands[0]
			operands = operands[1:]
		default:
			if v, _ := p.sys.LookupEnv("PGDATABASE"); v != "" {
				o.DBName = v
			} else if v, _ := p.sys.LookupEnv("PGUSER"); v != "" {
				o.DBName = v
			} else {
				name, err := p.sys.UserName()
				if err != nil {
					return p.log.fatal("could not look up effective user ID %d: %v", os.Geteuid(), err)
				}
				o.DBName = name
			}
		}
	}
	if len(operands) > 0 {
		p.log.Error("too many command-line arguments (first is \"%s\")", operands[0])
		p.log.Hint(`Try "pgbench --help" for more information.`)
		return &Exit{Code: 1}
	}

	if p.initMode {
		o.Mode = ModeInit
		if p.benchOption {
			return p.log.fatal("some of the specified options cannot be used in initialization (-i) mode")
		}
		if o.Partitions == 0 && o.PartitionMethod != PartitionNone {
			return p.log.fatal("--partition-method requires greater than zero --partitions")
		}
		if o.Partitions > 0 && o.PartitionMethod == PartitionNone {
			o.PartitionMethod = PartitionRange
		}
		steps := DefaultInitSteps
		if p.initStepsSet {
			steps = p.initSteps
		}
		if o.NoVacuum {
			steps = strings.ReplaceAll(steps, "v", " ")
		}
		if o.ForeignKeys && !strings.Contains(steps, "f") {
			steps += "f"
		}
		o.InitSteps = steps
		return nil
	}

	o.Mode = ModeRun
	if p.initOption {
		return p.log.fatal("some of the specified options cannot be used in benchmarking mode")
	}
	if o.Transactions > 0 && o.Duration > 0 {
		return p.log.fatal("specify either a number of transactions (-t) or a duration (-T), not both")
	}
	if o.Transactions <= 0 && o.Duration <= 0 {
		o.Transactions = DefaultNxacts
	}
	if o.SamplingRate > 0 && !o.Log {
		return p.log.fatal("log sampling (--sampling-rate) is allowed only when logging transactions (-l)")
	}
	if o.SamplingRate > 0 && o.AggregateInterval > 0 {
		return p.log.fatal("log sampling (--sampling-rate) and aggregation (--aggregate-interval) cannot be used at the same time")
	}
	if o.AggregateInterval > 0 && !o.Log {
		return p.log.fatal("log aggregation is allowed only when actually logging transactions")
	}
	if !o.Log && p.logPrefixSet {
		return p.log.fatal("log file prefix (--log-prefix) is allowed only when logging transactions (-l)")
	}
	if o.Duration > 0 && o.AggregateInterval > o.Duration {
		return p.log.fatal("number of seconds for aggregation (%d) must not be higher than test duration (%d)", o.AggregateInterval, o.Duration)
	}
	if o.Duration > 0 && o.AggregateInterval > 0 && o.Duration%o.AggregateInterval != 0 {
		return p.log.fatal("duration (%d) must be a multiple of aggregation interval (%d)", o.Duration, o.AggregateInterval)
	}
	if o.ProgressTimestamp && o.Progress == 0 {
		return p.log.fatal("--progress-timestamp is allowed only under --progress")
	}
	if o.MaxTries == 0 && o.LatencyLimit == 0 && o.Duration <= 0 {
		return p.log.fatal("an unlimited number of transaction tries can only be used with --latency-limit or a duration (-T)")
	}
	return nil
}

// parseInt is option_parse_int with pgbench's logging.
func (p *parser) parseInt(arg, optname string, min, max int) (int, error) {
	v, err := optionParseInt(arg, optname, min, max)
	if err != nil {
		return 0, p.log.fatal("%v", err)
	}
	return v, nil
}

// setRandomSeed is pgbench's set_random_seed for a given spec; it logs what pgbench
// logs and reports success.
func (p *parser) setRandomSeed(spec string) bool {
	seed, err := prng.ParseSeed(spec)
	if err != nil {
		var se *prng.SeedError
		if errors.As(err, &se) {
			p.log.Error("%s", se.Msg)
			p.log.Detail("%s", se.Detail)
		} else {
			p.log.Error("could not generate random seed")
		}
		return false
	}
	p.log.Info("setting random seed to %d", seed.Value)
	p.o.Seed = seed
	return true
}

// checkNoFile is pgbench's RLIMIT_NOFILE check for -c: each client needs a socket,
// plus stdin, stdout and stderr. (pgbench raises the soft limit when it is too low;
// Go's runtime has already raised it to the hard limit.)
func (p *parser) checkNoFile(clients int) error {
	hard, err := p.sys.NoFileLimit()
	if err != nil {
		return p.log.fatal("getrlimit failed: %s", strerror(err))
	}
	// pgbench computes nclients + 3 in a C int, which wraps for the largest values;
	// the comparison is then made with the wrapped value as an unsigned long.
	need := int32(clients) + 3
	if hard < uint64(int64(need)) {
		p.log.Error("need at least %d open files, but system limit is %d", need, int64(hard))
		p.log.Hint("Reduce number of clients, or use limit/ulimit to increase the system limit.")
		return &Exit{Code: 1}
	}
	return nil
}

// checkInitSteps is pgbench's checkInitSteps.
func (p *parser) checkInitSteps(steps string) error {
	if steps == "" {
		return p.log.fatal("no initialization steps specified")
	}
	for i := 0; i < len(steps); i++ {
		if !strings.ContainsRune(AllInitSteps+" ", rune(steps[i])) || steps[i] >= 0x80 {
			p.log.Error("unrecognized initialization step \"%s\"", steps[i:i+1])
			p.log.Detail("Allowed step characters are: \"%s\".", AllInitSteps)
			return &Exit{Code: 1}
		}
	}
	return nil
}

// putVariable is putVariable(&variables, "option", name, value): a new variable's
// name must be valid; a repeated -D replaces the value.
func (p *parser) putVariable(name, value string) error {
	for i := range p.o.Variables {
		if p.o.Variables[i].Name == name {
			p.o.Variables[i].Value = value
			return nil
		}
	}
	if !script.ValidVarName(name) {
		return p.log.fatal("option: invalid variable name: \"%s\"", name)
	}
	p.o.Variables = append(p.o.Variables, Variable{Name: name, Value: value})
	return nil
}
