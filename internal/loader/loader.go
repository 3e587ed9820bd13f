// Package loader creates and loads a workload's schema into PostgreSQL: pgbench's init
// steps (drop, create, client-side COPY, server-side generation, vacuum, primary keys,
// foreign keys), faster than pgbench -i and with the same result.
//
// Where the time goes (pgbench -i -s 20 on 2 cores, client and server on one box): the
// server backend that runs COPY is the bottleneck (one core busy, pgbench itself uses
// ~0.4 s of CPU), then the primary key on pgbench_accounts, then the vacuum. The loader
// therefore keeps the server busy on every core it can use: see generate.go and
// maintain.go for what was measured and kept.
package loader

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgtrial/pgtrial/internal/workload"
)

// AllSteps are the step letters init understands (pgbench's).
const AllSteps = "dtgGvpf"

// DefaultSteps is pgbench's default step string.
const DefaultSteps = "dtgvp"

// ParseSteps validates an -I string and applies -n (drop every v) and --foreign-keys
// (append f when there is none), in pgbench's order. Spaces are ignored.
func ParseSteps(steps string, noVacuum, foreignKeys bool) (string, error) {
	var b strings.Builder
	for _, ch := range steps {
		switch {
		case ch == ' ':
		case strings.ContainsRune(AllSteps, ch):
			b.WriteRune(ch)
		default:
			return "", fmt.Errorf("unrecognized initialization step %q: allowed step characters are %q", string(ch), AllSteps)
		}
	}
	out := b.String()
	if out == "" {
		return "", errors.New("no initialization steps specified: give -I with some of " + AllSteps)
	}
	if noVacuum {
		out = strings.ReplaceAll(out, "v", "")
	}
	if foreignKeys && !strings.Contains(out, "f") {
		out += "f"
	}
	return out, nil
}

// Config is one init run.
type Config struct {
	Conn   *pgconn.Config   // target server and database
	Schema workload.Pgbench // what to create
	Steps  string           // from ParseSteps
	Force  bool             // drop or truncate tables that pgtrial did not create
	// Jobs is how many connections may work at once (COPY streams, index builds);
	// 0 chooses AutoJobs().
	Jobs int
	// Format is the COPY format of client-side generation.
	Format   workload.CopyFormat
	Out      io.Writer // messages and progress, pgbench's stderr lines
	TTY      bool      // Out is a terminal: progress rewrites one line
	Progress ProgressMode
}

// DefaultJobs is the least parallelism AutoJobs chooses. Two streams keep two server
// cores busy; more gave nothing on a 2-core machine (see generate.go).
const DefaultJobs = 2

// MaxAutoJobs caps AutoJobs: every job is a server backend, and the server (perhaps
// another machine) may have fewer cores than this one.
const MaxAutoJobs = 8

// AutoJobs is the parallelism used when Config.Jobs is 0: this machine's CPUs, at least
// DefaultJobs and at most MaxAutoJobs. A step never opens more connections than it has
// tasks (partitions to load, keys to build), so --partitions 4 loads on min(4, AutoJobs).
func AutoJobs() int { return min(max(runtime.NumCPU(), DefaultJobs), MaxAutoJobs) }

// StepTime is the duration of one step, named as pgbench names it in its summary.
type StepTime struct {
	Op       string
	Duration time.Duration
}

// Result is what a run did and how long each step took.
type Result struct {
	Total time.Duration
	Steps []StepTime
}

// Summary is pgbench's closing line: "done in 1.23 s (drop tables 0.01 s, …).".
func (r Result) Summary() string {
	parts := make([]string, len(r.Steps))
	for i, s := range r.Steps {
		parts[i] = fmt.Sprintf("%s %.2f s", s.Op, s.Duration.Seconds())
	}
	return fmt.Sprintf("done in %.2f s (%s).", r.Total.Seconds(), strings.Join(parts, ", "))
}

// loader is the state of one run.
type loader struct {
	cfg     Config
	schema  workload.Pgbench
	jobs    int
	main    *pgconn.PgConn // the connection steps run on unless they fan out
	version int            // server_version_num rounded to the major: 150000
	prog    *progress
	// background holds work started by one step that Run waits for before returning.
	background []chan error
}

// Run executes cfg.Steps in order. Before any step that could drop, truncate or fail on
// existing tables it checks that those tables are pgtrial's (or that Force is set).
func Run(ctx context.Context, cfg Config) (Result, error) {
	if err := cfg.Schema.Validate(); err != nil {
		return Result{}, err
	}
	if _, err := ParseSteps(cfg.Steps, false, false); err != nil {
		return Result{}, err
	}
	l := &loader{
		cfg:    cfg,
		schema: cfg.Schema,
		jobs:   cfg.Jobs,
		prog:   newProgress(cfg.Out, cfg.TTY, cfg.Progress),
	}
	if l.jobs <= 0 {
		l.jobs = AutoJobs()
	}
	start := time.Now()
	var err error
	l.main, err = connect(ctx, cfg.Conn, sessionSettings)
	if err != nil {
		return Result{}, err
	}
	defer closeAll(l.main)
	l.version = serverVersionNum(l.main)

	if err := l.checkTablespaces(ctx); err != nil {
		return Result{}, err
	}
	// Every step acts on the pgbench tables (v, p and f change them too: a
	// VACUUM ANALYZE, a primary key, foreign keys), so none runs on tables
	// pgtrial did not create without Force.
	if err := l.checkOwnership(ctx); err != nil {
		return Result{}, err
	}

	var res Result
	defer l.waitBackground()
	for _, step := range cfg.Steps {
		t0 := time.Now()
		var op string
		switch step {
		case 'd':
			op, err = "drop tables", l.dropTables(ctx)
		case 't':
			op, err = "create tables", l.createTables(ctx)
		case 'g':
			op, err = "client-side generate", l.generateClient(ctx)
		case 'G':
			op, err = "server-side generate", l.generateServer(ctx)
		case 'v':
			op, err = "vacuum", l.vacuum(ctx)
		case 'p':
			op, err = "primary keys", l.primaryKeys(ctx)
		case 'f':
			op, err = "foreign keys", l.foreignKeys(ctx)
		}
		if err != nil {
			return res, fmt.Errorf("%s: %w", op, err)
		}
		res.Steps = append(res.Steps, StepTime{Op: op, Duration: time.Since(t0)})
	}
	if err := l.waitBackground(); err != nil {
		return res, err
	}
	res.Total = time.Since(start)
	return res, nil
}

// waitBackground waits for background work and returns its first error.
func (l *loader) waitBackground() error {
	var first error
	for _, ch := range l.background {
		if err := <-ch; err != nil && first == nil {
			first = err
		}
	}
	l.background = nil
	return first
}

// sessionSettings apply to every loader connection. synchronous_commit is forced on:
// VACUUM marks a page all-visible only when every tuple's inserting transaction has its
// "committed" hint bit, and a hint bit for an asynchronously committed transaction may
// not be set until its commit record is flushed. With synchronous_commit=off (measured
// here on PostgreSQL 15) the VACUUM that follows a non-frozen load left every page
// not all-visible, unlike pgbench's; the flush it saves is one per transaction.
var sessionSettings = []string{"set synchronous_commit = on"}

// checkTablespaces fails before anything is dropped when --tablespace or
// --index-tablespace names a tablespace the server does not have.
func (l *loader) checkTablespaces(ctx context.Context) error {
	for _, ts := range []struct{ name, flag, steps string }{
		{l.schema.Tablespace, "--tablespace", "t"},
		{l.schema.IndexTablespace, "--index-tablespace", "p"},
	} {
		if ts.name == "" || !strings.ContainsAny(l.cfg.Steps, ts.steps) {
			continue
		}
		rows, err := queryStrings(ctx, l.main, "select 1 from pg_tablespace where spcname = $1", ts.name)
		if err != nil {
			return err
		}
		if len(rows) == 0 {
			return fmt.Errorf("tablespace %q does not exist (%s): create it first (CREATE TABLESPACE) or leave out %s", ts.name, ts.flag, ts.flag)
		}
	}
	return nil
}

// checkOwnership refuses to touch existing pgbench tables that lack pgtrial's mark,
// naming what the steps would have done to them.
func (l *loader) checkOwnership(ctx context.Context) error {
	_, foreign, err := existingAndForeign(ctx, l.main, workload.PgbenchTables, workload.PgbenchMark)
	if err != nil {
		return err
	}
	if len(foreign) == 0 || l.cfg.Force {
		return nil
	}
	if strings.ContainsAny(l.cfg.Steps, "dtgG") {
		return fmt.Errorf("refusing to drop or overwrite %s in database %q: not created by pgtrial (no %q table comment; made by pgbench -i or by hand?); use --force to replace them",
			strings.Join(foreign, ", "), l.cfg.Conn.Database, workload.PgbenchMark)
	}
	var acts []string
	for _, step := range l.cfg.Steps {
		act := map[rune]string{'v': "vacuum", 'p': "add primary keys to", 'f': "add foreign keys to"}[step]
		if act != "" && !slices.Contains(acts, act) {
			acts = append(acts, act)
		}
	}
	return fmt.Errorf("init -I %s: refusing to %s %s in database %q: not created by pgtrial (no %q table comment; made by pgbench -i or by hand?); use --force to change them anyway, or load pgtrial's own tables first (pgtrial init -s SCALE, which needs --force to replace these)",
		l.cfg.Steps, strings.Join(acts, " and "), strings.Join(foreign, ", "), l.cfg.Conn.Database, workload.PgbenchMark)
}

// dropTables is step d. Dropping a loaded table is mostly the kernel freeing its files
// (~0.1 s for scale 20); the loader moves the old tables into a schema of their own
// (a catalog change: milliseconds), and drops them on another connection while the
// next steps run. A trial DROP inside a rolled-back savepoint first checks, as pgbench's
// DROP would, that nothing else (a view, a foreign key from another table) depends on
// them; without the rights to create a schema it falls back to pgbench's plain DROP.
func (l *loader) dropTables(ctx context.Context) error {
	l.prog.Line("dropping old tables...")
	if err := l.dropStaleTrash(ctx); err != nil {
		return err
	}
	rels, err := queryStrings(ctx, l.main,
		`select c.oid::regclass::text, n.nspname
		   from pg_class c join pg_namespace n on n.oid = c.relnamespace
		  where c.oid in (select to_regclass(t) from unnest($1::text[]) as t
		                  union all
		                  select i.inhrelid from pg_inherits i where i.inhparent = to_regclass($2))`,
		"{"+strings.Join(workload.PgbenchTables, ",")+"}", workload.Accounts)
	if err != nil {
		return err
	}
	if len(rels) == 0 {
		return nil
	}
	trash := fmt.Sprintf("pgtrial_trash_%d", l.main.PID())
	moved := []string{"begin", "create schema " + trash}
	var names []string
	for _, r := range rels {
		moved = append(moved, fmt.Sprintf("alter table %s set schema %s", r[0], trash))
		// oid::regclass::text is schema-qualified only when not on the search_path.
		base := r[0][strings.LastIndex(r[0], ".")+1:]
		names = append(names, trash+"."+base)
	}
	dropOld := "drop table if exists " + strings.Join(names, ", ")
	moved = append(moved, "savepoint dependencies", dropOld, "rollback to savepoint dependencies", "commit")
	for i, sql := range moved {
		if err := exec(ctx, l.main, sql); err != nil {
			exec(context.Background(), l.main, "rollback")
			if i == 1 && sqlState(err) == "42501" { // insufficient_privilege: no CREATE on the database
				return exec(ctx, l.main, l.schema.DropTables())
			}
			return err
		}
	}
	done := make(chan error, 1)
	l.background = append(l.background, done)
	go func() {
		c, err := connect(context.WithoutCancel(ctx), l.cfg.Conn, sessionSettings)
		if err == nil {
			err = exec(ctx, c, dropOld+"; drop schema "+trash)
			closeAll(c)
		}
		if err != nil {
			err = fmt.Errorf("drop old tables in schema %s: %w", trash, err)
		}
		done <- err
	}()
	return nil
}

// dropStaleTrash drops the trash schemas of earlier runs that were killed before their
// background drop finished: pgtrial_trash_<pid> whose backend pid is no longer alive.
// They hold only old pgbench tables that an earlier dropTables moved there.
func (l *loader) dropStaleTrash(ctx context.Context) error {
	stale, err := queryStrings(ctx, l.main,
		`select quote_ident(nspname) from pg_namespace
		  where nspname ~ '^pgtrial_trash_[0-9]{1,9}$'
		    and substr(nspname, 15)::int not in (select pid from pg_stat_activity)`)
	if err != nil {
		return fmt.Errorf("look for leftover trash schemas: %w", err)
	}
	for _, r := range stale {
		if err := exec(ctx, l.main, "drop schema "+r[0]+" cascade"); err != nil {
			return fmt.Errorf("drop leftover schema %s: %w", r[0], err)
		}
	}
	return nil
}

func (l *loader) createTables(ctx context.Context) error {
	l.prog.Line("creating tables...")
	if l.schema.Partitioned() {
		l.prog.Line("creating %d partitions...", l.schema.Partitions)
	}
	// One transaction: a failure (an unknown tablespace, a table that exists) leaves
	// nothing half-created.
	if err := exec(ctx, l.main, "begin"); err != nil {
		return err
	}
	for _, sql := range l.schema.CreateTables(l.version / 10000) {
		if err := exec(ctx, l.main, sql); err != nil {
			exec(context.Background(), l.main, "rollback")
			if sqlState(err) == "42704" && l.schema.Tablespace != "" {
				return fmt.Errorf("%w; create the tablespace first or drop --tablespace", err)
			}
			return err
		}
	}
	return exec(ctx, l.main, "commit")
}

func (l *loader) foreignKeys(ctx context.Context) error {
	l.prog.Line("creating foreign keys...")
	for _, sql := range l.schema.ForeignKeys() {
		if err := exec(ctx, l.main, sql); err != nil {
			return err
		}
	}
	return nil
}
