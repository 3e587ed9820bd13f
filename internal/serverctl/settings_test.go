package serverctl

import (
	"strings"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/localpg"
	"github.com/pgtrial/pgtrial/internal/pgtest"
)

// The tests in this file change the cluster's configuration and restart it: none
// calls t.Parallel.

func TestApplyReloadRestoresPreviousValue(t *testing.T) {
	url := pgtest.ConnString(t)
	ctx := testCtx(t, 2*time.Minute)
	resetLater(t, url, "work_mem")
	// An earlier ALTER SYSTEM value, which Undo must write back (not RESET).
	mustExec(t, url, "ALTER SYSTEM SET work_mem = '8MB'")
	reload(t, url)
	if got := show(t, url, "work_mem"); got != "8MB" {
		t.Fatalf("work_mem before = %q, want 8MB", got)
	}
	before := autoConf(t, url)

	a, err := Apply(ctx, url, nil, Change{Settings: []Setting{{Name: "Work_Mem", Value: "64MB"}}})
	if err != nil {
		t.Fatal(err)
	}
	if a.Restarted {
		t.Error("Restarted = true for work_mem, want a reload")
	}
	if got := a.Effective["work_mem"]; got != "64MB" {
		t.Errorf("Effective[work_mem] = %q, want 64MB", got)
	}
	if got := show(t, url, "work_mem"); got != "64MB" {
		t.Errorf("work_mem in a new session after Apply = %q, want 64MB", got)
	}
	s := a.Settings[0]
	if s.Name != "work_mem" || !s.PreviousKnown || !s.HadPrevious || s.Previous != "8MB" || s.Before != "8MB" || s.Context != "user" {
		t.Errorf("Settings[0] = %+v, want work_mem, context user, previous 8MB (known), before 8MB", s)
	}
	if got := autoConf(t, url); !strings.Contains(got, "work_mem=64MB") {
		t.Errorf("postgresql.auto.conf after Apply = %q, want work_mem=64MB", got)
	}

	if err := a.Undo(ctx); err != nil {
		t.Fatal(err)
	}
	if got := autoConf(t, url); got != before {
		t.Errorf("postgresql.auto.conf after Undo = %q, want %q as before Apply", got, before)
	}
	if got := show(t, url, "work_mem"); got != "8MB" {
		t.Errorf("work_mem after Undo = %q, want 8MB", got)
	}
	if a.UndoRestarted {
		t.Error("UndoRestarted = true for work_mem")
	}
	if err := a.Undo(ctx); err != nil {
		t.Errorf("second Undo: %v, want nil (no-op)", err)
	}
}

func TestApplyReloadWithoutPreviousValueResets(t *testing.T) {
	url := pgtest.ConnString(t)
	ctx := testCtx(t, 2*time.Minute)
	resetLater(t, url, "work_mem", "log_min_duration_statement")
	before := autoConf(t, url)
	wmBefore, ldBefore := show(t, url, "work_mem"), show(t, url, "log_min_duration_statement")

	// log_min_duration_statement has context superuser: a reload, no restart.
	a, err := Apply(ctx, url, nil, Change{Settings: []Setting{
		{Name: "work_mem", Value: "32MB"}, {Name: "log_min_duration_statement", Value: "250ms"}}})
	if err != nil {
		t.Fatal(err)
	}
	if a.Effective["work_mem"] != "32MB" || a.Effective["log_min_duration_statement"] != "250ms" {
		t.Errorf("Effective = %v, want work_mem 32MB, log_min_duration_statement 250ms", a.Effective)
	}
	for _, s := range a.Settings {
		if s.HadPrevious || !s.PreviousKnown {
			t.Errorf("%s: HadPrevious %v PreviousKnown %v, want false, true", s.Name, s.HadPrevious, s.PreviousKnown)
		}
	}
	if err := a.Undo(ctx); err != nil {
		t.Fatal(err)
	}
	if got := autoConf(t, url); got != before {
		t.Errorf("postgresql.auto.conf after Undo = %q, want %q", got, before)
	}
	if got := show(t, url, "work_mem"); got != wmBefore {
		t.Errorf("work_mem after Undo = %q, want %q", got, wmBefore)
	}
	if got := show(t, url, "log_min_duration_statement"); got != ldBefore {
		t.Errorf("log_min_duration_statement after Undo = %q, want %q", got, ldBefore)
	}
}

func TestApplyRestartSetting(t *testing.T) {
	cluster := pgtest.Cluster(t)
	url := pgtest.ConnString(t)
	ctx := testCtx(t, 3*time.Minute)
	resetLater(t, url, "shared_buffers")
	before := autoConf(t, url)
	sbBefore := show(t, url, "shared_buffers")
	want := "144MB"
	if sbBefore == want {
		want = "160MB"
	}
	start0 := postmasterStartText(t, url)

	a, err := Apply(ctx, url, cluster, Change{Settings: []Setting{{Name: "shared_buffers", Value: want}}})
	if err != nil {
		t.Fatal(err)
	}
	if !a.Restarted {
		t.Error("Restarted = false for shared_buffers")
	}
	if got := a.Effective["shared_buffers"]; got != want {
		t.Errorf("Effective[shared_buffers] = %q, want %q", got, want)
	}
	if got := show(t, url, "shared_buffers"); got != want {
		t.Errorf("shared_buffers after Apply = %q, want %q", got, want)
	}
	start1 := postmasterStartText(t, url)
	if start1 == start0 {
		t.Errorf("pg_postmaster_start_time() unchanged (%s): the server was not restarted", start1)
	}

	if err := a.Undo(ctx); err != nil {
		t.Fatal(err)
	}
	if !a.UndoRestarted {
		t.Error("UndoRestarted = false, want a restart to put shared_buffers back")
	}
	if got := show(t, url, "shared_buffers"); got != sbBefore {
		t.Errorf("shared_buffers after Undo = %q, want %q", got, sbBefore)
	}
	if got := postmasterStartText(t, url); got == start1 {
		t.Errorf("pg_postmaster_start_time() unchanged by Undo (%s)", got)
	}
	if got := autoConf(t, url); got != before {
		t.Errorf("postgresql.auto.conf after Undo = %q, want %q", got, before)
	}
}

// unchanged checks that Apply's failure left the configuration alone.
func unchanged(t *testing.T, url, autoBefore, workMemBefore string) {
	t.Helper()
	if got := autoConf(t, url); got != autoBefore {
		t.Errorf("postgresql.auto.conf = %q after a failed Apply, want %q", got, autoBefore)
	}
	if got := show(t, url, "work_mem"); got != workMemBefore {
		t.Errorf("work_mem = %q after a failed Apply, want %q", got, workMemBefore)
	}
}

func TestApplyRefusesAndChangesNothing(t *testing.T) {
	url := pgtest.ConnString(t)
	resetLater(t, url, "work_mem", "shared_buffers", "maintenance_work_mem")
	before := autoConf(t, url)
	wm := show(t, url, "work_mem")
	start0 := postmasterStartText(t, url)

	var nilCluster *localpg.Cluster
	cases := []struct {
		name     string
		r        Restarter
		settings []Setting
		want     []string // in the error
	}{
		{"postmaster setting without restarter", nil,
			[]Setting{{"work_mem", "64MB"}, {"shared_buffers", "144MB"}},
			[]string{"shared_buffers", "restart_command", "nothing was changed"}},
		{"typed nil restarter", nilCluster,
			[]Setting{{"shared_buffers", "144MB"}},
			[]string{"shared_buffers", "restart_command"}},
		{"unknown setting", nil,
			[]Setting{{"work_mem", "64MB"}, {"no_such_setting", "1"}},
			[]string{`"no_such_setting"`, "pg_settings", "nothing was changed"}},
		{"invalid name", nil,
			[]Setting{{"work_mem; DROP TABLE x", "1"}},
			[]string{"not a valid setting name"}},
		{"read-only setting", nil,
			[]Setting{{"server_version", "99"}},
			[]string{"server_version", "read-only"}},
		{"twice", nil,
			[]Setting{{"work_mem", "1MB"}, {"WORK_MEM", "2MB"}},
			[]string{"work_mem is given twice"}},
		{"rejected value after a good one", nil,
			[]Setting{{"work_mem", "64MB"}, {"maintenance_work_mem", "lots"}},
			[]string{"maintenance_work_mem", `"lots"`, "SQLSTATE", "written back, nothing was changed"}},
		{"empty list", nil,
			[]Setting{{"work_mem", "64MB"}, {"search_path", " , "}},
			[]string{"search_path", "empty list"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := testCtx(t, time.Minute)
			a, err := Apply(ctx, url, tc.r, Change{Settings: tc.settings})
			if err == nil {
				a.Undo(ctx)
				t.Fatal("Apply succeeded, want an error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			unchanged(t, url, before, wm)
		})
	}
	if got := postmasterStartText(t, url); got != start0 {
		t.Errorf("the server was restarted (start time %s, was %s)", got, start0)
	}
}

func TestApplySetupAndTeardown(t *testing.T) {
	url := pgtest.ConnString(t)
	ctx := testCtx(t, 2*time.Minute)
	resetLater(t, url, "work_mem")
	mustExec(t, url, "CREATE TABLE t (a int)", "INSERT INTO t SELECT generate_series(1, 1000)")
	wm := show(t, url, "work_mem")
	indexExists := func() string { return queryString(t, url, "SELECT (to_regclass('t_a') IS NOT NULL)::text") }

	a, err := Apply(ctx, url, nil, Change{
		Settings: []Setting{{"work_mem", "64MB"}},
		Setup:    []string{"CREATE INDEX t_a ON t (a)", "ANALYZE t"},
		Teardown: []string{"DROP INDEX t_a"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if indexExists() != "true" {
		t.Error("index t_a missing after Apply's setup")
	}
	if err := a.Undo(ctx); err != nil {
		t.Fatal(err)
	}
	if indexExists() != "false" {
		t.Error("index t_a still there after Undo's teardown")
	}
	if got := show(t, url, "work_mem"); got != wm {
		t.Errorf("work_mem after Undo = %q, want %q", got, wm)
	}
}

func TestApplyFailingSetupPutsSettingsBack(t *testing.T) {
	url := pgtest.ConnString(t)
	ctx := testCtx(t, 2*time.Minute)
	resetLater(t, url, "work_mem")
	mustExec(t, url, "CREATE TABLE t (a int)")
	before := autoConf(t, url)
	wm := show(t, url, "work_mem")

	_, err := Apply(ctx, url, nil, Change{
		Settings: []Setting{{"work_mem", "64MB"}},
		Setup:    []string{"CREATE INDEX t_a ON t (a)", "CREATE INDEX ON no_such_table (a)"},
		Teardown: []string{"DROP INDEX t_a"},
	})
	if err == nil {
		t.Fatal("Apply succeeded with a failing setup statement")
	}
	for _, w := range []string{"setup statement 2 of 2", "no_such_table", "42P01", "settings were put back"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not contain %q", err, w)
		}
	}
	unchanged(t, url, before, wm)
	// Teardown is not run after a failed setup: the first statement's index stays.
	if got := queryString(t, url, "SELECT (to_regclass('t_a') IS NOT NULL)::text"); got != "true" {
		t.Errorf("index t_a exists = %s, want true (teardown is not run after a failed setup)", got)
	}
}

func TestApplySetupOneStatementPerElement(t *testing.T) {
	url := pgtest.ConnString(t)
	ctx := testCtx(t, time.Minute)
	_, err := Apply(ctx, url, nil, Change{Setup: []string{"CREATE TABLE x (); CREATE TABLE y ()"}})
	if err == nil || !strings.Contains(err.Error(), "own list element") {
		t.Fatalf("error = %v, want one about one statement per element", err)
	}
	if got := queryString(t, url, "SELECT (to_regclass('x') IS NULL)::text"); got != "true" {
		t.Error("table x was created")
	}
	// Setup and teardown without settings: no reload, nothing to put back.
	a, err := Apply(ctx, url, nil, Change{Setup: []string{"CREATE TABLE z (a int)"}, Teardown: []string{"DROP TABLE z", "DROP TABLE no_such"}})
	if err != nil {
		t.Fatal(err)
	}
	err = a.Undo(ctx)
	if err == nil || !strings.Contains(err.Error(), "teardown statement 2 of 2") {
		t.Errorf("Undo error = %v, want teardown statement 2 of 2 failing", err)
	}
	if got := queryString(t, url, "SELECT (to_regclass('z') IS NULL)::text"); got != "true" {
		t.Error("table z still there: teardown statement 1 did not run")
	}
}

func TestApplyBadInput(t *testing.T) {
	ctx := testCtx(t, time.Minute)
	for _, tc := range []struct {
		name, url string
		c         Change
		want      string
	}{
		{"no connection string", "", Change{Setup: []string{"SELECT 1"}}, "no connection string"},
		{"bad connection string", "postgres://u:secret@[::1", Change{}, "parse the connection string"},
		{"empty setup statement", "postgres://x/y", Change{Setup: []string{"SELECT 1", "  "}}, "setup statement 2 of 2 is empty"},
		{"NUL in teardown", "postgres://x/y", Change{Teardown: []string{"SELECT '\x00'"}}, "NUL"},
		{"NUL in value", "postgres://x/y", Change{Settings: []Setting{{"work_mem", "1\x00"}}}, "NUL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Apply(ctx, tc.url, nil, tc.c)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want one containing %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "secret") {
				t.Errorf("error %q shows the password", err)
			}
		})
	}
	var nilApplied *Applied
	if err := nilApplied.Undo(ctx); err != nil {
		t.Errorf("nil Undo: %v", err)
	}
	if err := (&Applied{Teardown: []string{"SELECT 1"}}).Undo(ctx); err == nil {
		t.Error("Undo of an Applied not made by Apply succeeded")
	}
}

func TestExec(t *testing.T) {
	url := pgtest.ConnString(t)
	ctx := testCtx(t, time.Minute)
	err := Exec(ctx, url, "CREATE TABLE e (a int)", "INSERT INTO e VALUES (1)", "SELECT 1/0", "INSERT INTO e VALUES (2)")
	if err == nil {
		t.Fatal("Exec succeeded with a failing statement")
	}
	for _, w := range []string{"statement 3 of 4", "SELECT 1/0", "division by zero", "22012"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not contain %q", err, w)
		}
	}
	if got := queryString(t, url, "SELECT count(*)::text FROM e"); got != "1" {
		t.Errorf("rows in e = %s, want 1 (statements before the failure stay, none after it runs)", got)
	}
	if err := Exec(ctx, url); err != nil {
		t.Errorf("Exec with no statements: %v", err)
	}
}
