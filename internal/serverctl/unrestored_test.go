package serverctl

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/pgtest"
)

// resetMarkerLater removes the marker when the test ends (the session defines the
// placeholder first, see MarkerSetting) and reloads.
func resetMarkerLater(t *testing.T, url string) {
	t.Cleanup(func() {
		mustExec(t, url, "SET pgtrial.unrestored = ''", "ALTER SYSTEM RESET pgtrial.unrestored")
		reload(t, url)
	})
}

func marker(t *testing.T, url string) string {
	t.Helper()
	ctx := testCtx(t, 30*time.Second)
	cfg, err := parseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := connect(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer closeConn(conn)
	m, err := UnrestoredMarker(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestApplyBeforeChangeMarkerAndRestore: BeforeChange sees the earlier
// postgresql.auto.conf entries while the file is still as it was; Apply writes the
// marker with the settings; after a "crash" (no Undo) Restore puts the file back as
// it was, runs the teardown and removes the marker, and a second Restore changes
// nothing. Undo removes the marker too.
func TestApplyBeforeChangeMarkerAndRestore(t *testing.T) {
	url := pgtest.ConnString(t)
	ctx := testCtx(t, 2*time.Minute)
	resetLater(t, url, "work_mem", "random_page_cost")
	resetMarkerLater(t, url)
	mustExec(t, url, "ALTER SYSTEM SET random_page_cost = 3.5")
	reload(t, url)
	before := autoConf(t, url)
	if strings.Contains(before, "work_mem") {
		t.Fatalf("work_mem in postgresql.auto.conf before the test: %s", before)
	}

	var got []Original
	var atHook string
	ch := Change{
		Settings: []Setting{{Name: "work_mem", Value: "9MB"}, {Name: "random_page_cost", Value: "1.25"}},
		Setup:    []string{"CREATE TABLE restore_probe (x int)"},
		Teardown: []string{"DROP TABLE restore_probe"},
		Marker:   "/tmp/exp dir's",
		BeforeChange: func(o []Original) error {
			got, atHook = slices.Clone(o), autoConf(t, url)
			return nil
		},
	}
	if _, err := Apply(ctx, url, nil, ch); err != nil {
		t.Fatal(err)
	}
	if atHook != before {
		t.Errorf("postgresql.auto.conf when BeforeChange ran = %q, want it unchanged: %q", atHook, before)
	}
	want := []Original{{Name: "work_mem", Context: "user", Known: true}, {Name: "random_page_cost", Context: "user", Value: "3.5", Present: true, Known: true}}
	if !slices.Equal(got, want) {
		t.Errorf("originals %+v, want %+v", got, want)
	}
	if m := marker(t, url); m != "/tmp/exp dir's" {
		t.Errorf("marker after Apply = %q", m)
	}
	if ac := autoConf(t, url); !strings.Contains(ac, "work_mem=9MB") || !strings.Contains(ac, "pgtrial.unrestored=") {
		t.Errorf("postgresql.auto.conf after Apply: %s", ac)
	}

	// The process died here: Restore from what BeforeChange was given.
	for i := range 2 {
		res, err := Restore(ctx, url, nil, got, ch.Teardown, true)
		if err != nil {
			t.Fatalf("Restore %d: %v", i+1, err)
		}
		if ac := autoConf(t, url); ac != before {
			t.Errorf("postgresql.auto.conf after Restore %d = %q, want %q", i+1, ac, before)
		}
		if m := marker(t, url); m != "" {
			t.Errorf("marker after Restore %d = %q", i+1, m)
		}
		if !res.Reloaded || res.MarkerReset != (i == 0) || len(res.Settings) != 2 || len(res.NeedsRestart) != 0 {
			t.Errorf("Restore %d: %+v", i+1, res)
		}
		// The first drops the table; the second finds none (a teardown error, not a failure).
		if (i == 0) != (res.Teardown == 1 && len(res.TeardownErrors) == 0) {
			t.Errorf("Restore %d: teardown %d run, errors %v", i+1, res.Teardown, res.TeardownErrors)
		}
	}
	if show(t, url, "work_mem") == "9MB" || show(t, url, "random_page_cost") != "3.5" {
		t.Errorf("after Restore: work_mem %s, random_page_cost %s", show(t, url, "work_mem"), show(t, url, "random_page_cost"))
	}

	// Undo removes the marker as well.
	a, err := Apply(ctx, url, nil, Change{Settings: ch.Settings[:1], Marker: "/x"})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Undo(ctx); err != nil {
		t.Fatal(err)
	}
	if ac := autoConf(t, url); ac != before {
		t.Errorf("postgresql.auto.conf after Undo = %q, want %q", ac, before)
	}

	// A BeforeChange error changes nothing.
	_, err = Apply(ctx, url, nil, Change{Settings: ch.Settings, Setup: ch.Setup, Marker: "/y",
		BeforeChange: func([]Original) error { return errors.New("disk full") }})
	if err == nil || !strings.Contains(err.Error(), "disk full") || !strings.Contains(err.Error(), "nothing was changed") {
		t.Errorf("BeforeChange error: %v", err)
	}
	if ac := autoConf(t, url); ac != before {
		t.Errorf("postgresql.auto.conf after a refused BeforeChange = %q, want %q", ac, before)
	}
	n := len(queryString(t, url, "SELECT coalesce(string_agg(tablename, ','), '') FROM pg_tables WHERE tablename = 'restore_probe'"))
	if n != 0 {
		t.Error("restore_probe exists after a refused BeforeChange")
	}
	// Setup only: BeforeChange is called before the setup SQL, with no settings.
	called := false
	_, err = Apply(ctx, url, nil, Change{Setup: []string{"SELECT 1"}, BeforeChange: func(o []Original) error {
		called = len(o) == 0
		return nil
	}})
	if err != nil || !called {
		t.Errorf("setup only: %v, called %v", err, called)
	}
}

// TestRestoreStartsStoppedServer: a restart cut short (the second signal
// during a variant's undo) leaves the server stopped with the variant's
// settings in postgresql.auto.conf. Restore with a Restarter starts it and
// puts them back; without one it says the server is down and changes
// nothing.
func TestRestoreStartsStoppedServer(t *testing.T) {
	c := pgtest.OwnCluster(t, pgtest.Own{})
	url := c.URL("postgres")
	ctx := testCtx(t, 2*time.Minute)
	var got []Original
	ch := Change{
		Settings:     []Setting{{Name: "work_mem", Value: "9MB"}},
		Marker:       "/tmp/exp",
		BeforeChange: func(o []Original) error { got = slices.Clone(o); return nil },
	}
	if _, err := Apply(ctx, url, nil, ch); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 2*time.Second) // it would wait readyTimeout for the server
	defer cancel()
	if res, err := Restore(short, url, nil, got, nil, true); err == nil || res.Started {
		t.Fatalf("Restore without a Restarter on a stopped server: %+v, %v; want an error", res, err)
	}
	res, err := Restore(ctx, url, c, got, nil, true)
	if err != nil {
		t.Fatalf("Restore: %v", err)
	}
	if !res.Started || len(res.Settings) != 1 || !res.MarkerReset {
		t.Errorf("Restore: %+v, want started, work_mem back, the marker reset", res)
	}
	if ac := autoConf(t, url); strings.Contains(ac, "work_mem") || strings.Contains(ac, "pgtrial.unrestored") {
		t.Errorf("postgresql.auto.conf after Restore: %q", ac)
	}
	// A running server is not restarted for nothing.
	res, err = Restore(ctx, url, c, got, nil, true)
	if err != nil || res.Started || res.Restarted {
		t.Errorf("second Restore: %+v, %v; want neither started nor restarted", res, err)
	}
}
