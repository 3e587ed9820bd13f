// Package experiment reads and validates experiment files, the input of
// `pgtrial experiment FILE.yaml`: the target, the workload, the load, the
// protocol (warm-up, measured window, repeats, interleaving), the variants
// to compare, injected stalls, SLOs and capacity search; and runs them:
// Execute (and Demo, the demo's fixed plan) makes each run through
// internal/trial, puts the server's settings back on every way out and writes
// experiment.json with the analysis. Load and Parse check the whole file
// before anything touches the database, and report every problem at once,
// each with the file, line, column and the key's path, sorted by line:
//
//	mix.yaml:14:5: variants[1].settings.shared_buffers: ...
//
// # The file
//
// A complete file, every key shown (the defaults in the comments):
//
//	name: sync-commit            # default: the file's name without .yaml
//	description: synchronous_commit off vs on for tpcb-like at 500 tx/s
//
//	target:                      # default: the libpq environment (PGHOST, …) if set, else the local cluster "default"
//	  local: true                # true: the local cluster "default"; or its name
//	  # url: postgres://bench@db1:5432/bench   # a server instead of the local cluster
//	  # restart_command: ssh db1 sudo systemctl restart postgresql@17-main
//	  # node_exporter: db1:9100  # OS metrics of a remote server (--node-exporter)
//
//	workload:                    # default: builtin tpcb-like
//	  builtin: tpcb-like         # tpcb-like, simple-update, select-only (-b; a prefix works)
//	  scale: 75                  # pgbench scale to load (pgtrial init -s); unset: read from pgbench_branches
//	  # warehouses: 4            # builtin tpcc: loaded as pgtrial init -w tpcc --warehouses 4 unless tpcc_meta has 4; unset: tpcc_meta's
//	  # mode: spec               # builtin tpcc: spec (keying/think times, 10 terminals per warehouse) or throughput (default)
//	  # scripts:                 # instead of builtin (-f): files relative to this file
//	  #   - {file: mix.sql, weight: 9}     # weight: default 1
//	  #   - {file: report.sql, weight: 1}
//	  variables: {delta: 5000}   # -D NAME=VALUE
//	  protocol: prepared         # query protocol (--protocol/-M): simple, extended, prepared
//	  max_tries: 1               # --max-tries (0: unlimited)
//	  continue_on_error: false   # --continue-on-error
//
//	load:
//	  clients: 16                # -c, default 4
//	  threads: 2                 # -j, default 0: min(clients, CPUs)
//	  rate: 500                  # open model, tx/s (--rate); or closed: true; or ramp: below
//	  # closed: true             # closed model (--closed)
//	  # ramp: {by: rate, from: 100, to: 800, steps: 4, spacing: geometric, step_duration: 2m}
//	  arrival: poisson           # open model: poisson or uniform (--arrival)
//	  overload: queue            # open model: queue or drop (--overload)
//	  latency_limit: 100ms       # -L
//	  # segments: 2              # each run as 2 segments of its load (run --segment i/2) begun at
//	                             # one instant and merged (pgtrial merge); threads a multiple of 2
//
//	protocol:
//	  warmup: 2m                 # default 30s, before every run, excluded
//	  window: 2m                 # measured window; default max(2 × checkpoint_timeout, 60s)
//	  repeats: 6                 # runs per variant; default 5 when variants are compared (a fixed load), else 3
//	  interleave: true           # default true: A B A B …; false: A A … B B …
//	                             # interleaved: each comparison is also made round by
//	                             # round (B_r/A_r, Wilcoxon signed-rank), and a drift
//	                             # of the first variant across rounds is reported
//	  primary: p99               # the metric the verdict is about, tested at α = 0.05; default the first
//	                             # SLO's quantile, else tps (closed) or p99 (open); the others are
//	                             # exploratory, under Holm's correction
//	  equivalence: 0.05          # margin δ: "equivalent within ±5 %" needs two one-sided tests to pass
//	  calibrate: 4               # A/A runs of the first variant first (true: 4; default none); see Calibration
//	  # calibrate: {runs: 4, adjust: true}   # adjust: raise repeats to the runs needed (at most 30)
//
//	variants:                    # default: one variant "baseline" with nothing to change
//	  - name: sync-on
//	    settings: {synchronous_commit: "on"}
//	  - name: sync-off
//	    settings: {synchronous_commit: "off"}   # ALTER SYSTEM SET, then reload or restart
//	    setup: ["CREATE INDEX ON pgbench_history (mtime)"]   # SQL before the variant's runs
//	    teardown: ["DROP INDEX pgbench_history_mtime_idx"]  # SQL after them
//
//	injections:                  # times from the start of the measured window
//	  - {at: 20s, kind: lock, table: pgbench_branches, duration: 5s}  # ACCESS EXCLUSIVE
//	  - {at: 60s, kind: checkpoint}
//	  - {at: 90s, kind: vacuum, table: pgbench_accounts}  # no table: the whole database
//
//	slo:                         # open model only; at_rate: the load's rate, or within a ramp
//	  - {p99: 100ms, at_rate: 500}   # p50, p90, p95, p99 or p99.9; at_rate default: the load's rate(s)
//
//	gate: "p99>+10%,p99.9>+20%"  # a CI gate over each variant against the first, as compare --fail-on
//	                             # (or a list of rules): pgtrial experiment exits 3 when a real change
//	                             # crosses a threshold, 4 when the runs cannot decide (docs/ci-gate.md)
//
//	seed: 42                     # unsigned integer (--random-seed); default: chosen and recorded
//	interval: 1s                 # --interval
//	collect: [waits, statements, server, os]   # --collect; false: none; default: all
//	# collect: {kinds: [waits], wait_interval: 100ms, wait_source: auto}
//
//	data:                        # done to the tables once, after loading, before the runs: shape, then age
//	  shape:                     # as pgtrial shape, in order, each then VACUUM FULL ANALYZE: experiment.json's "shaped"
//	    - {table: pgbench_accounts, column: bid, dist: "zipf:s=1.1", max: 10, seed: 1}  # dist as --dist
//	    # - {table: tasks, column: project_id, dist: "loguniform:n=20000", permute: true, min: 1, force: true}
//	    # - {table: events, json: payload, size: 1KB-8KB, key: id, batch: 1000}  # or pad: COL (text)
//	                             # a primary-key column is refused; force: true for a table pgtrial did not create
//	  age:                       # as pgtrial age: experiment.json's "aged" has the state achieved
//	    days: 30                 # the most days (default 30); until_size / until_free stop earlier
//	    until_size: 1.5          # × the starting pages
//	    # until_free: 40         # % free per pgstattuple
//	    daily: 0.333             # share of the rows updated a day (default 1/3)
//	    vacuum_every: 7          # plain VACUUM every 7 days (default; -1: never)
//	    # table: orders          # default pgbench_accounts; another needs set (and key without a primary key)
//	    # set: "qty = qty + 1"   # default for pgbench_accounts: abalance = abalance + 1
//	    # key: code              # default: the one-column primary key
//	    # batch: 10000           # keys per UPDATE statement
//	    # no_autovacuum: true    # autovacuum off on the table while aging
//	    # i_own_this_data: true  # needed for a table pgtrial did not create
//	                             # tables already there age again each time: load fresh (workload.scale) to start from fresh data
//
// Capacity search replaces the load model (no rate, closed or ramp): the
// closed-model ceiling (ceiling_repeats runs with load.clients), open-model
// steps at fractions of it, bisection between the highest rate that meets
// the SLO with no growing lag and the lowest that misses it, then
// bracket_repeats runs at each end; the answer is an interval (see
// internal/capacity):
//
//	search:
//	  slo: {p99: 50ms}
//	  fractions: [0.3, 0.6, 0.9]   # default
//	  ceiling_repeats: 3           # default
//	  bracket_repeats: 3           # default: runs at each end of the interval, all agreeing
//	  precision: 0.05              # default: stop bisecting when (high − low)/low ≤ 5 % (the search's resolution)
//	  max_steps: 8                 # default: at most 8 bisection steps
//
// Concurrent scenarios replace the workload's scripts and the load's
// clients and model (`pgtrial run --scenario`): each scenario runs its own
// scripts with its own clients, open at its rate or closed, all at the same
// time in every run; run.json has each scenario's figures, and the summary
// a line per scenario. workload's other keys (scale, variables, protocol,
// …) apply to all; load keeps latency_limit and ramp. A ramp by clients
// splits each level's clients in the scenarios' proportions (largest
// remainder, at least one each); a ramp by rate shares each level's rate
// among the open scenarios in proportion to their rates, the closed ones
// unchanged (trial.ScaleScenarios):
//
//	scenarios:
//	  - name: reader             # letters, digits, '-', '_'
//	    builtin: select-only     # or scripts: [{file: read.sql, weight: 3}]; default tpcb-like
//	    clients: 4               # default 1
//	    threads: 2               # default 0: min(clients, CPUs)
//	    rate: 300                # open model, tx/s of the scenario's clients together
//	    arrival: poisson         # open scenario: poisson or uniform
//	    overload: queue          # open scenario: queue or drop
//	  - {name: writer, builtin: simple-update, clients: 2, closed: true}
//	load: {ramp: {by: clients, from: 6, to: 24, steps: 3}}   # optional
//
// # Calibration
//
// protocol.calibrate (or --calibrate) makes A/A runs of the first variant
// before the real runs, with the protocol's warm-up, window and injections
// (Kalibera & Jones 2013: measure the machine's noise before choosing the
// repeats). They are run directories in runs/ like the others, recorded in
// experiment.json's calibration object (not in runs: no comparison, SLO or
// checklist item counts them). From their values of the primary metric
// (protocol.primary, else the SLO's quantile, else tps closed and p99 open)
// it computes the run-to-run coefficient of variation, the sample standard
// deviation of the logarithms (≈ sd/mean for small spreads), and the runs a
// side that detect the equivalence margin δ (protocol.equivalence, default
// 5 %) at 80 % power with the two-sided Mann-Whitney test at α = 0.05
// (stats.RunsNeeded with δ = ln(1 + margin)). When protocol.repeats is
// fewer, the runner warns, or with adjust raises the repeats (at most 30).
// For tps it also splits the spread, from the runs' per-interval rates,
// into the part a longer window averages away (within-run noise, with the
// intervals' lag-1 autocorrelation) and the part it does not (between
// runs), and says what CV a window twice as long would give.
//
// Top-level keys starting with "x-" are ignored: a place for YAML anchors
// (&name, *name, and merge keys "<<: *name" work everywhere).
//
// # Rules
//
// Durations use Go syntax (90s, 2m, 1m30s, 250ms); a bare number is an
// error, since it has no unit. Counts are positive integers. Setting values
// are kept as written (shared_buffers: 1GB is "1GB"; quote "on" and "off"
// only for readability, both forms give the same text). Errors name
// unknown keys with the closest known one, and a key that belongs to
// another section with its place.
//
// The measured window's default needs the server (checkpoint_timeout), so
// Protocol.Window is 0 when the file leaves it out: the runner calls
// Protocol.WindowFor and then Spec.CheckWindow to check the injections
// against it. A shorter window than the default is allowed; the checklist
// warns about it.
//
// Settings that need a restart: which ones do depends on the server
// (pg_settings.context = 'postmaster'), so Parse only knows the usual ones
// (NeedsRestart) and rejects them on a remote target without a
// restart_command; the runner checks pg_settings.context for the others.
//
// Where the server listens (listen_addresses, port, unix_socket_directories)
// is pgtrial's on the local cluster, which stays on loopback: Parse rejects
// them in a variant unless the target is target.url (the default target is
// the local cluster, and a server from the libpq environment could not be
// restarted for them either), and the runner again when the target turns
// out to be the local cluster (localguard.go).
package experiment
