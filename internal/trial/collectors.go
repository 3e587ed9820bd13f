package trial

import (
	"context"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgtrial/pgtrial/internal/checks"
	"github.com/pgtrial/pgtrial/internal/collect"
	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/workload"
)

// Collect chooses a run's evidence collectors (`pgtrial run`'s --collect,
// --no-collect, --wait-interval, --wait-source, --node-exporter,
// --all-statements).
type Collect struct {
	Off          bool
	Kinds        []string      // nil: all (collect.AllKinds)
	WaitInterval time.Duration // pg_stat_activity sampling period
	WaitSource   string        // collect.WaitSourceAuto, WaitSourceActivity or WaitSourceProfile
	NodeExporter string        // "" : /proc when the server is local

	// CreateExtensions: the target is pgtrial's local cluster; the collectors create their extensions (collect.Config.CreateExtensions).
	CreateExtensions bool
	// AllStatements: statements.csv keeps other sessions' statements too (collect.Config.AllStatements).
	AllStatements bool
	// OnSample, if set, hears the waits' and server counters' figures of
	// each interval (collect.Config.OnSample): the live metrics.
	OnSample func(kind string, values map[string]float64)
}

// ServerIsLocal says whether the server runs on this machine: every host of
// the connection is a unix socket or a loopback address.
func ServerIsLocal(cfg *pgconn.Config) bool {
	hosts := []string{cfg.Host}
	for _, fb := range cfg.Fallbacks {
		hosts = append(hosts, fb.Host)
	}
	for _, h := range hosts {
		if strings.HasPrefix(h, "/") || h == "localhost" {
			continue
		}
		ip := net.ParseIP(h)
		if ip == nil || !ip.IsLoopback() {
			return false
		}
	}
	return true
}

// startCollectors starts the collectors of a run (nil, nil when they are
// off). Only a server that cannot be reached fails; everything else
// degrades into warnings.
// tables are the workload's tables whose sizes run.json records (nil: the
// collector's default).
func startCollectors(ctx context.Context, o *Collect, connString string, pgcfg *pgconn.Config, dir *results.Dir, run *results.Run, interval time.Duration, tables []string) (*collect.Collector, error) {
	if o.Off {
		return nil, nil
	}
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	return collect.Start(cctx, collect.Config{
		ConnString:   connString,
		Dir:          dir.Path(),
		RunStart:     run.StartedAt,
		Clock:        dir.Clock(), // the bench start: the zero of timeline.csv's elapsed_s
		Interval:     interval,
		WaitInterval: o.WaitInterval,
		WaitSource:   o.WaitSource,
		Kinds:        o.Kinds,
		Local:        ServerIsLocal(pgcfg),
		NodeExporter: o.NodeExporter,
		Events:       dir, CreateExtensions: o.CreateExtensions,
		AllStatements: o.AllStatements,
		Tables:        tables,
		OnSample:      o.OnSample,
		ThisHostOnly:  !run.Segment.Collects(),
	})
}

// WorkloadTables are the tables of the workload a run's scripts belong to,
// whose sizes the run records: the Mix's named mix (the nine TPC-C-like
// tables, usertable; "" or no mix: none) and pgbench's when a script is
// built-in; nil for custom scripts alone (the collector then takes every
// pgbench_* table and usertable it finds, collect.Config.Tables).
func WorkloadTables(scripts []Script, mix string) []string {
	var tables []string
	if m, ok := workload.FindMix(mix); ok {
		tables = m.Tables()
	}
	if NeedsPgbench(scripts) {
		tables = append(tables, workload.PgbenchTables...)
	}
	return tables
}

// tables are c.Tables, or else WorkloadTables of c's scripts and of the mix
// c.Workload names, if it names one (`run -b tpcc`).
func (c *Config) tables() []string {
	if c.Tables != nil {
		return c.Tables
	}
	return WorkloadTables(c.Scripts, c.Workload)
}

// stopCollectors ends the collectors at end and puts what they found into
// run: the collectors that ran, server and host information, the evidence
// of the measured window and the collectors' warnings. Its waits on the
// server end with ctx (at most 30 s; Run's ctx ends them at Config.Urgent,
// and soon after the end when the server did not answer).
func stopCollectors(ctx context.Context, c *collect.Collector, run *results.Run, dirPath string, end time.Time, interval time.Duration) {
	if c == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	warnings := c.Stop(ctx, end)
	run.Collectors = c.Kinds()
	run.Server = c.Server()
	if run.Segment.Collects() {
		run.Host = c.Host()
	} else {
		run.Segment.Host = c.Host() // this generator's machine, not the server's
	}
	for _, w := range warnings {
		run.Warnings = append(run.Warnings, "collector: "+w)
	}
	var from, to time.Time
	for _, p := range run.Phases {
		if p.Name == results.PhaseMeasure {
			from, to = p.Start, p.End
		}
	}
	if from.IsZero() || run.Summary == nil {
		return
	}
	run.Evidence = collect.Summarize(dirPath, from, to, interval, run.Summary.Total.Committed)
	if !run.Segment.Collects() {
		// Set before Summarize's own reasons would be; os.csv is this
		// generator's machine.
		for _, k := range []string{collect.KindServer, collect.KindWaits, collect.KindStatements} {
			delete(run.Evidence.Missing, k)
			run.Evidence.SetMissing(k, segmentNotCollected(run.Segment))
		}
	}
}

// segmentNotCollected is why a segment other than 0 has no server evidence.
func segmentNotCollected(s *results.Segment) string {
	return fmt.Sprintf("segment %d of %d: only segment 0 collects the server's evidence (pgtrial merge takes its files)", s.Index, s.Count)
}

// runChecks is the honesty checklist of the run (internal/checks) from what
// run.json will hold and the timeline and events written so far; a file
// that cannot be read is left out (its items say "unknown").
func runChecks(run *results.Run, dir string) []results.Check {
	timeline, err := results.ReadTimeline(dir)
	if err != nil {
		run.Warnings = append(run.Warnings, "checklist: "+err.Error())
	}
	events, err := results.ReadEvents(dir)
	if err != nil {
		run.Warnings = append(run.Warnings, "checklist: "+err.Error())
	}
	return checks.RunChecks(run, timeline, events)
}
