package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/pgtrial/pgtrial/internal/collect"
	"github.com/pgtrial/pgtrial/internal/trial"
)

// collectOptions are the collector flags of `pgtrial run`.
type collectOptions struct {
	off          bool
	kinds        []string
	waitInterval durationFlag
	waitSource   string
	nodeExporter string
	allStmts     bool
}

func (c *collectOptions) addFlags(f *pflag.FlagSet) {
	c.waitInterval = durationFlag{d: 100 * time.Millisecond, unit: time.Millisecond}
	c.waitSource = collect.WaitSourceAuto
	f.BoolVar(&c.off, "no-collect", false, "collect no server or OS evidence (wait events, pg_stat_statements, server counters, OS metrics)")
	f.StringSliceVar(&c.kinds, "collect", nil, "collectors to run, comma-separated: "+strings.Join(collect.AllKinds, ",")+" (default all)")
	f.Var(&c.waitInterval, "wait-interval", "pg_stat_activity sampling period for wait events, 10ms to 1s (a bare number is ms)")
	f.StringVar(&c.waitSource, "wait-source", c.waitSource, `wait events from "pg_stat_activity" samples ("activity"), the "pg_wait_sampling" extension, or "auto" (the extension when installed)`)
	f.BoolVar(&c.allStmts, "all-statements", false, "keep every role's and database's statements in statements.csv, with their texts (passwords redacted); by default other sessions are one row without text")
	f.StringVar(&c.nodeExporter, "node-exporter", "", "OS metrics from this node_exporter (host:port or URL) instead of /proc; needed when the server is on another machine")
}

// check validates the flags before anything connects.
func (c *collectOptions) check() error {
	if c.off {
		return nil
	}
	for _, k := range c.kinds {
		if !containsString(collect.AllKinds, k) {
			return fmt.Errorf("--collect %s: unknown collector; choose from %s", k, strings.Join(collect.AllKinds, ","))
		}
	}
	if d := c.waitInterval.d; d < 10*time.Millisecond || d > time.Second {
		return fmt.Errorf("--wait-interval %v: must be between 10ms and 1s", d)
	}
	switch c.waitSource {
	case collect.WaitSourceAuto, collect.WaitSourceActivity, collect.WaitSourceProfile:
	case "pg_stat_activity":
		c.waitSource = collect.WaitSourceActivity
	default:
		return fmt.Errorf("--wait-source %q: want auto, activity or pg_wait_sampling", c.waitSource)
	}
	return nil
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// config is the collectors' part of a trial.Config.
// localCluster: the target is pgtrial's local cluster, whose databases get
// the extensions the collectors read (collect.Config.CreateExtensions).
func (c *collectOptions) config(localCluster bool) trial.Collect {
	return trial.Collect{Off: c.off, Kinds: c.kinds, WaitInterval: c.waitInterval.d, WaitSource: c.waitSource, NodeExporter: c.nodeExporter,
		CreateExtensions: localCluster, AllStatements: c.allStmts}
}
