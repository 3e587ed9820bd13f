package engine

import (
	"testing"

	"github.com/pgtrial/pgtrial/internal/metrics"
	"github.com/pgtrial/pgtrial/internal/script"
)

// A statement timeout (57014) under --continue-on-error is a failure of its
// own class, metrics.FailedTimeout (it was counted as "other"); another SQL
// error stays "other".
func TestStatementTimeoutClass(t *testing.T) {
	conn := plainConn(t)
	timeout := parse(t, "SET statement_timeout = '20ms';\nSELECT pg_sleep(1);\n", script.Simple)
	other := parse(t, "SELECT 1/0;\n", script.Simple)
	cfg, _ := config(conn, 1, 1, script.Simple, timeout, other)
	cfg.Transactions, cfg.ContinueOnError, cfg.Reconnect = 6, true, true
	res, iv := runToEnd(t, cfg)
	s0, s1 := &iv.Scripts[0].Stats, &iv.Scripts[1].Stats
	if s0.Outcome[metrics.FailedTimeout] != s0.Failed() || s0.Failed() == 0 || s0.Outcome[metrics.FailedOther] != 0 {
		t.Errorf("pg_sleep under statement_timeout: by outcome %v, want every failure a timeout", s0.Outcome)
	}
	if s1.Outcome[metrics.FailedOther] != s1.Failed() || s1.Failed() == 0 {
		t.Errorf("division by zero: by outcome %v, want every failure other", s1.Outcome)
	}
	if n := s0.Failed() + s1.Failed(); n != 6 || res.Aborted != 0 {
		t.Errorf("%d failed, %d aborted; want 6 failed", n, res.Aborted)
	}
}
