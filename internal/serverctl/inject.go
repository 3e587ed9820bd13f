package serverctl

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// InjectionKind is what an injection does (experiment.InjectionKind is this
// type).
type InjectionKind int

const (
	InjectLock       InjectionKind = iota + 1 // LOCK TABLE … IN ACCESS EXCLUSIVE MODE, held for Duration
	InjectCheckpoint                          // CHECKPOINT
	InjectVacuum                              // VACUUM [table]
)

func (k InjectionKind) String() string {
	switch k {
	case InjectLock:
		return "lock"
	case InjectCheckpoint:
		return "checkpoint"
	case InjectVacuum:
		return "vacuum"
	}
	return fmt.Sprintf("InjectionKind(%d)", int(k))
}

// Injection is one event to cause during a run.
type Injection struct {
	Kind InjectionKind
	At   time.Duration // from the origin given to Schedule (≥ 0)
	// Table: lock: required; vacuum: "" for the whole database; checkpoint: "". A
	// name, optionally schema-qualified (public.pgbench_accounts), taken exactly as
	// written (each part is quoted: case matters); a part may be double-quoted to hold
	// a dot ("my.table").
	Table    string
	Duration time.Duration // lock: how long it is held once granted (> 0)
}

// Injected is what happened to one injection.
type Injected struct {
	Kind    string    `json:"kind"` // "lock", "checkpoint", "vacuum"
	Table   string    `json:"table,omitempty"`
	Planned time.Time `json:"planned"` // origin + At
	// Start is when the statement was sent (for a lock, the LOCK TABLE: from then on
	// other sessions queue behind it even before it is granted); End is when it
	// finished (for a lock, when ROLLBACK released it). Zero when it never started.
	Start time.Time `json:"start,omitzero"`
	End   time.Time `json:"end,omitzero"`
	// Acquired is when the lock was granted (lock only; zero otherwise or when it was
	// not). The lock is held from Acquired for Duration, so End ≈ Acquired + Duration.
	Acquired time.Time `json:"acquired,omitzero"`
	Err      string    `json:"error,omitempty"` // "" when it ran as planned; otherwise what went wrong
}

// injectionSettings are set on every injection connection: the lock must wait for as
// long as it takes and then be held for its whole Duration, whatever defaults the
// server or role has (a lock_timeout would cut the wait short, an
// idle_in_transaction_session_timeout would end the session while it holds the lock,
// a statement_timeout would cancel a long VACUUM or CHECKPOINT).
var injectionSettings = map[string]string{
	"application_name":                    "pgtrial-injection",
	"lock_timeout":                        "0",
	"statement_timeout":                   "0",
	"idle_in_transaction_session_timeout": "0",
}

// Scheduled is a set of injections in progress.
type Scheduled struct {
	done    chan struct{}
	results []Injected
}

// Schedule runs the injections at origin + At each (origin: the start of a run's
// measured phase, with its monotonic clock reading), each in its own goroutine on its
// own connection, opened before its time so that the statement starts on time. lock:
// BEGIN; LOCK TABLE t IN ACCESS EXCLUSIVE MODE (waiting for it however long it takes);
// hold for Duration; ROLLBACK (nothing was changed). checkpoint: CHECKPOINT. vacuum:
// VACUUM [t]. Cancelling ctx ends them at once: a held lock is released (ROLLBACK), a
// waiting LOCK, a CHECKPOINT or a VACUUM is cancelled on the server. Bad input is
// reported in the injection's Err, never by a panic.
func Schedule(ctx context.Context, connString string, origin time.Time, inj []Injection) *Scheduled {
	s := &Scheduled{done: make(chan struct{}), results: make([]Injected, len(inj))}
	cfg, cfgErr := parseConfig(connString)
	if cfgErr == nil {
		if cfg.RuntimeParams == nil {
			cfg.RuntimeParams = map[string]string{}
		}
		for k, v := range injectionSettings {
			cfg.RuntimeParams[k] = v
		}
	}
	var wg sync.WaitGroup
	for i, in := range inj {
		planned := origin.Add(in.At)
		s.results[i] = Injected{Kind: in.Kind.String(), Table: in.Table, Planned: planned}
		if cfgErr != nil {
			s.results[i].Err = fmt.Sprintf("%s: %v", describeInjection(in), cfgErr)
			continue
		}
		wg.Go(func() { runInjection(ctx, cfg, in, &s.results[i]) }) // each goroutine writes only its own element
	}
	go func() {
		wg.Wait()
		close(s.done)
	}()
	return s
}

// Wait returns what happened to each injection, in the order given, once all have
// finished (promptly after ctx was cancelled).
func (s *Scheduled) Wait() []Injected {
	if s == nil {
		return nil
	}
	<-s.done
	return slices.Clone(s.results)
}

// Done is closed when all injections have finished.
func (s *Scheduled) Done() <-chan struct{} {
	if s == nil {
		c := make(chan struct{})
		close(c)
		return c
	}
	return s.done
}

// describeInjection names an injection for messages: "lock public.t at +20s".
func describeInjection(in Injection) string {
	d := in.Kind.String()
	if in.Table != "" {
		d += " " + in.Table
	}
	return fmt.Sprintf("%s at +%v", d, in.At)
}

// checkInjection validates one injection and renders its table ("" when none).
func checkInjection(in Injection) (string, error) {
	if in.At < 0 {
		return "", fmt.Errorf("negative time %v: injections are timed from the start of the measured phase", in.At)
	}
	var table string
	if in.Table != "" {
		t, err := tableSQL(in.Table)
		if err != nil {
			return "", err
		}
		table = t
	}
	switch in.Kind {
	case InjectLock:
		if table == "" {
			return "", errors.New("a lock needs a table")
		}
		if in.Duration <= 0 {
			return "", fmt.Errorf("a lock needs a positive duration, got %v", in.Duration)
		}
	case InjectCheckpoint:
		if table != "" {
			return "", fmt.Errorf("a checkpoint takes no table (got %q)", in.Table)
		}
	case InjectVacuum:
	default:
		return "", fmt.Errorf("unknown injection kind %d (want lock, checkpoint or vacuum)", int(in.Kind))
	}
	return table, nil
}

// runInjection runs one injection and fills res.
func runInjection(ctx context.Context, cfg *pgx.ConnConfig, in Injection, res *Injected) {
	fail := func(format string, args ...any) {
		res.Err = describeInjection(in) + ": " + fmt.Sprintf(format, args...)
	}
	table, err := checkInjection(in)
	if err != nil {
		fail("%v", err)
		return
	}
	// The session is opened before the injection's time; a cancellation
	// that cuts the connecting short is still one before its time (on a
	// loaded machine connecting can take longer than the wait).
	early := func() bool { return ctx.Err() != nil && time.Now().Before(res.Planned) }
	conn, err := connect(ctx, cfg)
	if err != nil {
		if early() {
			fail("cancelled before its time (%v)", context.Cause(ctx))
			return
		}
		fail("%v", err)
		return
	}
	defer closeConn(conn)
	// idle_session_timeout (PostgreSQL 14+) could end the session while it waits for
	// its time; it cannot go into the startup parameters, which older servers reject.
	if _, err := conn.Exec(ctx, `SELECT set_config(name, '0', false) FROM pg_settings WHERE name = 'idle_session_timeout'`); err != nil {
		if early() {
			fail("cancelled before its time (%v)", context.Cause(ctx))
			return
		}
		fail("turn off idle_session_timeout: %s", serverMessage(err))
		return
	}

	timer := time.NewTimer(time.Until(res.Planned))
	select {
	case <-ctx.Done():
		timer.Stop()
		fail("cancelled before its time (%v)", context.Cause(ctx))
		return
	case <-timer.C:
	}

	switch in.Kind {
	case InjectCheckpoint:
		res.Start = time.Now()
		err = execOne(ctx, conn, "CHECKPOINT")
		res.End = time.Now()
		if err != nil {
			fail("CHECKPOINT: %v", cancelled(ctx, err))
		}
	case InjectVacuum:
		sql := "VACUUM"
		if table != "" {
			sql += " " + table
		}
		res.Start = time.Now()
		err = execOne(ctx, conn, sql)
		res.End = time.Now()
		if err != nil {
			fail("%s: %v", sql, cancelled(ctx, err))
		}
	case InjectLock:
		holdLock(ctx, conn, table, in.Duration, res, fail)
	}
}

// holdLock takes the ACCESS EXCLUSIVE lock, holds it for d from when it was granted
// (or until ctx is cancelled), and rolls back.
func holdLock(ctx context.Context, conn *pgx.Conn, table string, d time.Duration, res *Injected, fail func(string, ...any)) {
	res.Start = time.Now()
	if err := execOne(ctx, conn, "BEGIN"); err != nil {
		res.End = time.Now()
		fail("BEGIN: %v", cancelled(ctx, err))
		return
	}
	lockSQL := "LOCK TABLE " + table + " IN ACCESS EXCLUSIVE MODE"
	lockErr := execOne(ctx, conn, lockSQL)
	if lockErr == nil {
		res.Acquired = time.Now()
		hold := time.NewTimer(d)
		select {
		case <-ctx.Done():
			hold.Stop()
		case <-hold.C:
		}
	}
	// ROLLBACK on a context of its own: the caller's may be the one just cancelled.
	rctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
	defer cancel()
	rbErr := execOne(rctx, conn, "ROLLBACK")
	if rbErr != nil {
		// Closing the session ends the transaction and releases the lock as well.
		conn.PgConn().Close(rctx)
	}
	res.End = time.Now()
	switch {
	case lockErr != nil:
		fail("%s: %v", lockSQL, cancelled(ctx, lockErr))
	case ctx.Err() != nil:
		fail("cancelled after holding the lock for %v of %v (%v)", res.End.Sub(res.Acquired).Round(time.Millisecond), d, context.Cause(ctx))
	case rbErr != nil:
		fail("ROLLBACK: %v (the session was closed, which releases the lock)", rbErr)
	}
}

// cancelled says so when err comes from ctx being cancelled (the server reports a
// cancel request as "canceling statement due to user request").
func cancelled(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("cancelled (%v): %w", context.Cause(ctx), err)
	}
	return err
}

// tableSQL quotes a table name, optionally qualified (schema.table or
// database.schema.table), part by part with pgx.Identifier. Parts are taken exactly as
// written; a part in double quotes may hold dots, with "" for a quote.
func tableSQL(name string) (string, error) {
	if strings.ContainsRune(name, 0) {
		return "", fmt.Errorf("table name %q contains a NUL byte", name)
	}
	var parts []string
	rest := strings.TrimSpace(name)
	for {
		var part string
		if strings.HasPrefix(rest, `"`) {
			var b strings.Builder
			i := 1
			for {
				j := strings.IndexByte(rest[i:], '"')
				if j < 0 {
					return "", fmt.Errorf("table name %q: unterminated double quote", name)
				}
				b.WriteString(rest[i : i+j])
				i += j + 1
				if i < len(rest) && rest[i] == '"' {
					b.WriteByte('"')
					i++
					continue
				}
				break
			}
			part, rest = b.String(), rest[i:]
			if rest != "" && rest[0] != '.' {
				return "", fmt.Errorf("table name %q: text after a quoted part, want a dot", name)
			}
		} else {
			j := strings.IndexByte(rest, '.')
			if j < 0 {
				j = len(rest)
			}
			part, rest = rest[:j], rest[j:]
			if strings.ContainsAny(part, "\" \t\r\n") {
				return "", fmt.Errorf("table name %q: part %q has a quote or blank inside (quote the whole part: \"my table\")", name, part)
			}
		}
		if part == "" {
			return "", fmt.Errorf("table name %q: empty part (want table or schema.table)", name)
		}
		parts = append(parts, part)
		if rest == "" {
			break
		}
		rest = rest[1:] // the dot
		if rest == "" {
			return "", fmt.Errorf("table name %q: empty part after the last dot", name)
		}
	}
	if len(parts) > 3 {
		return "", fmt.Errorf("table name %q has %d parts; want table, schema.table or database.schema.table", name, len(parts))
	}
	return pgx.Identifier(parts).Sanitize(), nil
}
