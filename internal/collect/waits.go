package collect

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgtrial/pgtrial/internal/results"
)

// The wait-event collector writes waits.csv: per interval of Config.Interval
// and per (class, wait_event_type, wait_event), how many samples saw a
// session in that state. Two sources:
//
//   - activity: pg_stat_activity sampled once every Config.WaitInterval, at
//     a random instant of the period (no aliasing with a periodic load), one
//     autocommit query per sample (the view is snapshotted once per
//     transaction). Counted: client backends whose state is active (or
//     fastpath function call), and background processes that are not idle
//     (state not idle…, wait type not Activity, which is a background
//     process's idle main loop). Active without a wait event is "CPU"/"CPU"
//     (on CPU or in an uninstrumented code path). Our own sessions
//     (application_name = ApplicationName) and the sampling backend are left
//     out. ticks = samples taken in the interval; avg_sessions = samples /
//     ticks is the average number of sessions in that state. The same
//     query's rows of client backends, by pid, go into activity.csv
//     (activity.go), which the tail's finding joins to slow.csv.
//   - pg_wait_sampling: deltas of pg_wait_sampling_profile read every
//     Config.Interval. The extension samples every process in the server
//     every pg_wait_sampling.profile_period (10 ms by default) and keeps
//     cumulative counts per (pid, event_type, event, queryid). It has no
//     state column, so idle processes cannot be told from active ones the way
//     pg_stat_activity can: the Activity type (background idle loops) is left
//     out, and so is Client:ClientRead of client backends, which is where an
//     idle client session sits (this approximates the activity source's
//     "active client backends"; an active COPY FROM STDIN reading from the
//     client is lost with it). Sessions on CPU are in the profile only
//     when pg_wait_sampling.sample_cpu is on (releases without that setting,
//     such as 1.1.4, record waiting processes only: a warning says so).
//     ticks = the extension's own probes in the interval, counted on the
//     auxiliary processes it samples on nearly every probe (checkpointer,
//     background writer, walwriter: always there, and almost always in a
//     wait event): the largest of their sample deltas. Probes come
//     noticeably less often than profile_period (each one waits
//     profile_period after the previous one ended, in whole ms; ~20–30 %
//     fewer measured on a busy 2-CPU machine), so real time / profile_period
//     would read avg_sessions that much low. Only when the probes cannot be
//     counted (profile_pid off, none of those processes in the profile) are
//     ticks estimated as round(real time between the reads /
//     profile_period), with a warning.
//
// Rows are long format, one per (interval, class, type, event) with
// samples > 0; an interval in which no client backend was seen gets a row
// of its primary class ("client", or "all" when the source cannot classify)
// with empty type and event, so every sampled interval appears in the
// client series.

// Classes of processes in waits.csv.
const (
	WaitClassClient     = "client"     // backend_type 'client backend'
	WaitClassBackground = "background" // every other backend_type (autovacuum, checkpointer, parallel workers, …)
	WaitClassAll        = "all"        // pg_wait_sampling samples that could not be attributed to a process type
)

// sampleTimeout bounds one sample's query: a server that does not answer
// within it costs one tick (the connection is dropped and reopened on the
// next), never the whole collector.
const sampleTimeout = 10 * time.Second

// The activity source's query is sessionsQuery (activity.go): one row per
// session counted, summed here per (class, type, event).

// profileQuery reads pg_wait_sampling_profile summed over queryid, per
// (pid, event_type, event), with the process type of pids that still exist
// and whether the pid is one of ours; and rows with pid probePID and the
// backend_type as event_type: the samples of every event of the auxiliary
// processes that count the extension's probes. %[1]s is the extension's
// schema. $1 is ApplicationName.
const profileQuery = CollectorSQLMarker + ` SELECT p.pid, coalesce(p.event_type, 'CPU'), coalesce(p.event, CASE WHEN p.event_type IS NULL THEN 'CPU' ELSE '' END),
       sum(p.count)::int8, a.backend_type,
       coalesce(p.pid = pg_backend_pid() OR a.application_name = $1, false)
FROM %[1]s.pg_wait_sampling_profile p
LEFT JOIN pg_stat_activity a ON a.pid = p.pid AND p.pid <> 0
WHERE p.event_type IS DISTINCT FROM 'Activity'
GROUP BY p.pid, p.event_type, p.event, a.backend_type, a.application_name
UNION ALL
SELECT -1, a.backend_type, '', sum(p.count)::int8, NULL, false
FROM %[1]s.pg_wait_sampling_profile p
JOIN pg_stat_activity a ON a.pid = p.pid
WHERE p.pid <> 0 AND a.backend_type IN ('checkpointer', 'background writer', 'walwriter')
GROUP BY a.backend_type`

// probePID marks profileQuery's rows that count the probes.
const probePID = -1

// waitKey is one series of waits.csv.
type waitKey struct {
	class, typ, event string
}

// waits is the wait-event source.
type waits struct {
	cfg    *Config
	warn   warnFunc
	source string // WaitSourceActivity or WaitSourceProfile
	conn   lazyConn
	out    *results.CSVWriter

	// The interval being accumulated: index cur of
	// (RunStart + (cur−1)·Interval, RunStart + cur·Interval].
	pending bool
	cur     int64
	written int64 // index of the last interval written (0: none)
	counts  map[waitKey]int64
	ticks   int64     // samples taken in the interval (pg_wait_sampling: its probes)
	lastT   time.Time // grid time of the last sample

	prof *profile  // pg_wait_sampling only
	act  *activity // pg_stat_activity only: its per-session rows and activity.csv
}

// profile is the state of the pg_wait_sampling source between reads.
type profile struct {
	query    string               // profileQuery in the extension's schema
	period   time.Duration        // pg_wait_sampling.profile_period
	byPID    bool                 // pg_wait_sampling.profile_pid: the profile is kept per process
	prev     map[profileKey]int64 // cumulative counts at the last read
	probes   map[string]int64     // cumulative samples of the probe-counting processes by backend_type, at the last read
	pidClass map[int32]string     // class of each pid seen ("" = one of ours, left out)
	lastRead time.Time            // when the last read was sent (monotonic)

	resetWarned, estimateWarned bool
}

// profileKey is one cumulative counter of pg_wait_sampling_profile (summed
// over queryid).
type profileKey struct {
	pid        int32
	typ, event string
}

// profileRow is one row of profileQuery.
type profileRow struct {
	key         profileKey
	count       int64
	backendType *string // nil when the pid no longer exists (or pid 0)
	own         bool
}

// newWaits opens the wait source cfg.WaitSource asks for (WaitSourceAuto:
// pg_wait_sampling when the extension is in the target database and its
// profile is readable, else pg_stat_activity) and creates waits.csv.
func newWaits(ctx context.Context, cfg *Config, warn warnFunc) (*waits, error) {
	if cfg.Interval <= 0 || cfg.WaitInterval <= 0 {
		return nil, fmt.Errorf("waits: intervals must be positive (interval %v, wait interval %v)", cfg.Interval, cfg.WaitInterval)
	}
	w := &waits{
		cfg:    cfg,
		warn:   warn,
		conn:   lazyConn{connString: cfg.ConnString},
		counts: map[waitKey]int64{},
	}
	conn, err := w.conn.get(ctx)
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*waits, error) {
		w.conn.close()
		return nil, err
	}
	switch cfg.WaitSource {
	case WaitSourceActivity:
		w.source = WaitSourceActivity
	case WaitSourceProfile, WaitSourceAuto, "":
		if cfg.CreateExtensions {
			if _, err := ensureExtension(ctx, conn, extWaitSampling); err != nil {
				warn("waits: %v", err)
			}
		}
		prof, err := openProfile(ctx, conn, w)
		switch {
		case err == nil:
			w.source, w.prof = WaitSourceProfile, prof
		case cfg.WaitSource == WaitSourceProfile:
			return fail(err)
		case errors.Is(err, errProfileNotInstalled):
			w.source = WaitSourceActivity // the usual case: nothing to say
		default:
			if conn.IsClosed() {
				return fail(err)
			}
			warn("waits: %v; sampling pg_stat_activity instead", err)
			w.source = WaitSourceActivity
		}
	default:
		return fail(fmt.Errorf("wait source %q: want %s, %s or %s", cfg.WaitSource, WaitSourceAuto, WaitSourceActivity, WaitSourceProfile))
	}
	out, err := results.CreateWaits(cfg.Dir)
	if err != nil {
		return fail(err)
	}
	w.out = out
	if w.source == WaitSourceActivity {
		if w.act, err = openActivity(ctx, conn, cfg.Dir); err != nil {
			return fail(errors.Join(err, out.Close()))
		}
	}
	return w, nil
}

// errProfileNotInstalled: the pg_wait_sampling extension is not in the
// target database.
var errProfileNotInstalled = errors.New("the pg_wait_sampling extension is not installed in the target database " +
	"(install the server package, e.g. postgresql-NN-pg-wait-sampling, add pg_wait_sampling to " +
	"shared_preload_libraries, restart the server, then run CREATE EXTENSION pg_wait_sampling in the database; " +
	"or use --wait-source activity)")

// openProfile checks that pg_wait_sampling is installed in the database and
// its profile readable, reads its settings and takes the baseline read.
func openProfile(ctx context.Context, conn *pgx.Conn, w *waits) (*profile, error) {
	ctx, cancel := context.WithTimeout(ctx, sampleTimeout)
	defer cancel()
	var schema string
	err := conn.QueryRow(ctx, CollectorSQLMarker+` SELECT extnamespace::regnamespace::text FROM pg_extension WHERE extname = 'pg_wait_sampling'`).Scan(&schema)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, errProfileNotInstalled
	}
	if err != nil {
		return nil, fmt.Errorf("look for the pg_wait_sampling extension: %w", err)
	}
	// The settings exist only when the library was preloaded.
	var period, unit, byPID, sampleCPU *string
	err = conn.QueryRow(ctx, CollectorSQLMarker+` SELECT (SELECT setting FROM pg_settings WHERE name = 'pg_wait_sampling.profile_period'),
		(SELECT unit FROM pg_settings WHERE name = 'pg_wait_sampling.profile_period'),
		current_setting('pg_wait_sampling.profile_pid', true),
		current_setting('pg_wait_sampling.sample_cpu', true)`).Scan(&period, &unit, &byPID, &sampleCPU)
	if err != nil {
		return nil, fmt.Errorf("read the pg_wait_sampling settings: %w", err)
	}
	if period == nil {
		return nil, errors.New("pg_wait_sampling is installed in the database but its library is not loaded " +
			"(add pg_wait_sampling to shared_preload_libraries and restart the server)")
	}
	p := &profile{
		query:    fmt.Sprintf(profileQuery, schema),
		byPID:    byPID == nil || *byPID == "on",
		prev:     map[profileKey]int64{},
		probes:   map[string]int64{},
		pidClass: map[int32]string{},
	}
	p.period, err = settingDuration(*period, unit)
	if err != nil || p.period <= 0 {
		return nil, fmt.Errorf("pg_wait_sampling.profile_period = %q %v: not a positive duration", *period, unit)
	}
	rows, err := p.read(ctx, conn)
	if err != nil {
		return nil, fmt.Errorf("read pg_wait_sampling_profile: %w", err)
	}
	p.deltas(rows, 0) // the baseline
	if !p.byPID {
		w.warn("waits: pg_wait_sampling.profile_pid is off, so its samples cannot be split into client backends and background processes (class %q in %s)", WaitClassAll, results.WaitsFile)
	}
	if sampleCPU == nil || *sampleCPU != "on" {
		w.warn("waits: pg_wait_sampling does not sample sessions on CPU (pg_wait_sampling.sample_cpu is off, or this release has no such setting): CPU does not appear in %s", results.WaitsFile)
	}
	return p, nil
}

// settingDuration converts a pg_settings time setting (setting, unit) to a
// duration.
func settingDuration(setting string, unit *string) (time.Duration, error) {
	v, err := strconv.ParseFloat(setting, 64)
	if err != nil {
		return 0, err
	}
	u := "ms"
	if unit != nil {
		u = *unit
	}
	switch u {
	case "us":
		return time.Duration(v * float64(time.Microsecond)), nil
	case "ms":
		return time.Duration(v * float64(time.Millisecond)), nil
	case "s":
		return time.Duration(v * float64(time.Second)), nil
	case "min":
		return time.Duration(v * float64(time.Minute)), nil
	}
	return 0, fmt.Errorf("unit %q", u)
}

// read takes one read of the profile.
func (p *profile) read(ctx context.Context, conn *pgx.Conn) ([]profileRow, error) {
	p.lastRead = time.Now()
	rows, err := conn.Query(ctx, p.query, ApplicationName)
	if err != nil {
		return nil, err
	}
	var out []profileRow
	for rows.Next() {
		var r profileRow
		if err := rows.Scan(&r.key.pid, &r.key.typ, &r.key.event, &r.count, &r.backendType, &r.own); err != nil {
			rows.Close()
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// deltas turns a read of the cumulative profile into the samples since the
// previous read, per (class, type, event), and the probes the extension
// took since then (the largest delta of the probe-counting processes; else
// elapsed / profile_period, estimated is then true), and makes the read the
// new baseline. A counter
// that went down was reset (pg_wait_sampling_reset_profile, a server
// restart): its new value is the delta and reset is true. A counter not seen
// before counts in full (its process started, or first waited so, since the
// previous read).
func (p *profile) deltas(rows []profileRow, elapsed time.Duration) (d map[waitKey]int64, ticks int64, estimated, reset bool) {
	d = map[waitKey]int64{}
	cur := make(map[profileKey]int64, len(rows))
	probes := map[string]int64{}
	for _, r := range rows {
		if r.key.pid == probePID {
			probes[r.key.typ] = r.count
			continue
		}
		cur[r.key] = r.count
		if r.key.pid != 0 && r.backendType != nil { // the pid's current process type
			switch {
			case r.own:
				p.pidClass[r.key.pid] = ""
			case *r.backendType == "client backend":
				p.pidClass[r.key.pid] = WaitClassClient
			default:
				p.pidClass[r.key.pid] = WaitClassBackground
			}
		}
	}
	for k, n := range cur {
		prev, seen := p.prev[k]
		delta := n - prev
		if seen && n < prev {
			delta, reset = n, true
		}
		if delta <= 0 {
			continue
		}
		class, known := p.pidClass[k.pid]
		switch {
		case !p.byPID || k.pid == 0 || !known:
			class = WaitClassAll
		case class == "":
			continue // our own session
		case class == WaitClassClient && k.typ == "Client" && k.event == "ClientRead":
			continue // an idle client session (the profile has no state)
		}
		d[waitKey{class, k.typ, k.event}] += delta
	}
	p.prev = cur
	counted := false
	for typ, n := range probes {
		prev, seen := p.probes[typ]
		if !seen || !p.byPID {
			continue
		}
		counted = true
		delta := n - prev
		if n < prev {
			delta, reset = n, true
		}
		ticks = max(ticks, delta)
	}
	if !counted {
		ticks, estimated = int64(math.Round(float64(elapsed)/float64(p.period))), true
	}
	p.probes = probes
	return d, ticks, estimated, reset
}

// period is the source's sampling period: WaitInterval for pg_stat_activity,
// Interval for pg_wait_sampling (which samples by itself).
func (w *waits) period() time.Duration {
	if w.source == WaitSourceProfile {
		return w.cfg.Interval
	}
	return w.cfg.WaitInterval
}

// randomPhase: pg_stat_activity snapshots are taken at a random instant of
// each WaitInterval (see randomPhaser); pg_wait_sampling is read at the
// grid points (it samples by itself, and its probes drift).
func (w *waits) randomPhase() bool { return w.source == WaitSourceActivity }

// sample takes one sample at grid time t and writes the rows of every
// interval it completes.
func (w *waits) sample(ctx context.Context, t time.Time) error {
	conn, err := w.conn.get(ctx)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, sampleTimeout)
	defer cancel()
	if w.source == WaitSourceProfile {
		before := w.prof.lastRead
		rows, err := w.prof.read(ctx, conn)
		if err != nil {
			w.prof.lastRead = before // the next delta spans from the last good read
			return fmt.Errorf("read pg_wait_sampling_profile: %w", err)
		}
		d, ticks, estimated, reset := w.prof.deltas(rows, w.prof.lastRead.Sub(before))
		if reset && !w.prof.resetWarned {
			w.prof.resetWarned = true
			w.warn("waits: pg_wait_sampling_profile was reset during the run (counts went down): the samples since the previous read are approximate")
		}
		if estimated && !w.prof.estimateWarned {
			w.prof.estimateWarned = true
			w.warn("waits: pg_wait_sampling's probes could not be counted on the checkpointer, background writer or walwriter; ticks are estimated as time / pg_wait_sampling.profile_period, which overstates them (avg_sessions reads low)")
		}
		return w.record(t, d, ticks)
	}
	d, instant, err := w.act.sample(ctx, conn)
	if err != nil {
		return err
	}
	if err := w.act.write(instant, w.cfg.RunStart, w.cfg.WaitInterval); err != nil {
		return err
	}
	return w.record(t, d, 1)
}

// intervalOf is the index k of the interval (RunStart + (k−1)·Interval,
// RunStart + k·Interval] that contains t (k = ⌈(t − RunStart)/Interval⌉ in
// integer nanoseconds), and whether t is its end.
func (w *waits) intervalOf(t time.Time) (k int64, atEnd bool) {
	d, iv := t.Sub(w.cfg.RunStart), w.cfg.Interval
	k = int64(d / iv)
	if d%iv == 0 {
		return k, true
	}
	if d > 0 {
		k++
	}
	return k, false
}

// record adds one sample (counts d, ticks samples) taken at grid time t to
// its interval. It writes the interval before when t is in a later one (a
// sample crossed a boundary) and t's interval when t is its end. Intervals
// with no sample at all (the sampler was late by more than an Interval, on
// a loaded machine) are written as empty rows with ticks 0, so that the
// timeline has no holes and says that nothing was seen there.
func (w *waits) record(t time.Time, d map[waitKey]int64, ticks int64) error {
	k, atEnd := w.intervalOf(t)
	if w.pending && k != w.cur {
		if err := w.writeInterval(w.cfg.RunStart.Add(time.Duration(w.cur) * w.cfg.Interval)); err != nil {
			return err
		}
		w.written = w.cur
	}
	for ; w.written+1 < k; w.written++ {
		if err := w.writeInterval(w.cfg.RunStart.Add(time.Duration(w.written+1) * w.cfg.Interval)); err != nil {
			return err
		}
	}
	w.pending, w.cur, w.lastT = true, k, t
	for key, n := range d {
		w.counts[key] += n
	}
	w.ticks += ticks
	if atEnd {
		w.written = k
		return w.writeInterval(t)
	}
	return nil
}

// writeInterval writes the accumulated interval as the rows ending at end,
// flushes them and starts a new interval.
func (w *waits) writeInterval(end time.Time) error {
	ticks := w.ticks
	primary := WaitClassClient
	if w.prof != nil && !w.prof.byPID {
		primary = WaitClassAll
	}
	keys := make([]waitKey, 0, len(w.counts)+1)
	seenPrimary := false
	for k, n := range w.counts {
		if n > 0 {
			keys = append(keys, k)
			seenPrimary = seenPrimary || k.class == primary
		}
	}
	if !seenPrimary {
		keys = append(keys, waitKey{class: primary})
	}
	slices.SortFunc(keys, func(a, b waitKey) int {
		return cmp.Or(cmp.Compare(a.class, b.class), cmp.Compare(a.typ, b.typ), cmp.Compare(a.event, b.event))
	})
	elapsed := end.Sub(w.cfg.RunStart).Seconds()
	var err error
	for _, k := range keys {
		row := results.WaitRow{Time: end, Elapsed: elapsed, Source: w.source, Class: k.class, Type: k.typ, Event: k.event,
			Samples: w.counts[k], Ticks: ticks}
		if err = w.out.Write(row.Record()); err != nil {
			break
		}
	}
	if w.cfg.OnSample != nil && ticks > 0 {
		byType := map[string]float64{}
		for k, n := range w.counts {
			if n > 0 {
				byType[k.class+":"+k.typ] += float64(n) / float64(ticks)
			}
		}
		w.cfg.OnSample(KindWaits, byType)
	}
	clear(w.counts)
	w.pending, w.ticks = false, 0
	if err != nil {
		return err
	}
	if w.act != nil {
		if err := w.act.out.Flush(); err != nil {
			return err
		}
	}
	return w.out.Flush()
}

// close writes the interval still open (its row ends at the last sample's
// grid time, so it covers less than an Interval) and closes the file and
// the connection.
func (w *waits) close() error {
	var errs []error
	if w.pending && w.ticks > 0 {
		errs = append(errs, w.writeInterval(w.lastT))
	}
	errs = append(errs, w.out.Close())
	if w.act != nil {
		errs = append(errs, w.act.out.Close())
	}
	w.conn.close()
	return errors.Join(errs...)
}

// WaitTypeClass is the wait-event type under the name it has in every
// version, for comparing runs of different servers: PostgreSQL 19 renamed
// "BufferPin" to "Buffer". waits.csv keeps the server's own name.
func WaitTypeClass(typ string) string {
	if typ == "BufferPin" {
		return "Buffer"
	}
	return typ
}

// waitsEvidence summarises the client backends' waits of the window
// (from, to]: the top wait events by samples (ties by type, then event),
// Share = samples / all client samples of the window, AvgSessions = samples
// / the ticks of the window's intervals (each interval's ticks counted
// once). A file whose window has no "client" rows but "all" rows (a
// pg_wait_sampling profile kept without pids) is summarised over those.
func waitsEvidence(dir string, from, to time.Time, interval time.Duration, top int) ([]results.WaitShare, map[string]float64, error) {
	rows, err := results.ReadWaits(dir)
	if err != nil {
		return nil, nil, err
	}
	var in []WaitRow
	hasClient := false
	for _, r := range rows {
		if inWindow(r.Time, from, to, interval) && (r.Class == WaitClassClient || r.Class == WaitClassAll) {
			in = append(in, r)
			hasClient = hasClient || r.Class == WaitClassClient
		}
	}
	class := WaitClassAll
	if hasClient {
		class = WaitClassClient
	}
	type key struct{ typ, event string }
	samples := map[key]int64{}
	names := map[key]key{} // the server's names of a key (first seen)
	ticks := map[time.Time]int64{}
	var total, allTicks int64
	for _, r := range in {
		if r.Class != class {
			continue
		}
		if _, ok := ticks[r.Time]; !ok {
			ticks[r.Time] = r.Ticks
			allTicks += r.Ticks
		}
		if r.Type == "" && r.Event == "" || r.Samples <= 0 {
			continue
		}
		k := key{WaitTypeClass(r.Type), r.Event}
		if _, ok := names[k]; !ok {
			names[k] = key{r.Type, r.Event}
		}
		samples[k] += r.Samples
		total += r.Samples
	}
	if total == 0 {
		return nil, nil, nil
	}
	out := make([]results.WaitShare, 0, len(samples))
	byType := map[string]float64{}
	for k, n := range samples {
		byType[names[k].typ] += float64(n) / float64(total)
		s := results.WaitShare{Type: names[k].typ, Event: names[k].event, Samples: n, Share: float64(n) / float64(total)}
		if allTicks > 0 {
			s.AvgSessions = float64(n) / float64(allTicks)
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b results.WaitShare) int {
		return cmp.Or(cmp.Compare(b.Samples, a.Samples), strings.Compare(a.Type, b.Type), strings.Compare(a.Event, b.Event))
	})
	if top > 0 && len(out) > top {
		out = out[:top]
	}
	return out, byType, nil
}
