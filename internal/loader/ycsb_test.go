package loader

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgtrial/pgtrial/internal/pgtest"
	"github.com/pgtrial/pgtrial/internal/workload"
)

// TestYCSBLoad loads 5,000 records of 3 fields × 20 characters on 3
// connections and checks the cardinalities, the key set, the field sizes,
// the primary key, ycsb_meta, the sequence, reproducibility for a seed,
// and the refusal to drop a usertable pgtrial did not make.
func TestYCSBLoad(t *testing.T) {
	url := pgtest.ConnString(t)
	cfg, err := pgconn.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	schema := workload.YCSB{Records: 5000, Fields: 3, FieldLength: 20, Seed: 9}
	var out bytes.Buffer
	if _, err := RunYCSB(ctx, YCSBConfig{Conn: cfg, Schema: schema, Jobs: 3, Out: &out, TTY: true}); err != nil {
		t.Fatalf("load: %v\n%s", err, out.String())
	}
	c := dbConn(t, url)
	for sql, want := range map[string]int64{
		"select count(*) from usertable":                                                      5000,
		"select count(distinct ycsb_key) from usertable":                                      5000,
		"select count(*) from usertable where length(field0)=20 and length(field2)=20":        5000,
		"select count(*) from usertable where substr(ycsb_key,5)::bigint between 0 and 4999":  5000,
		"select count(*) from information_schema.columns where table_name='usertable'":        4,
		"select count(*) from pg_index where indrelid='usertable'::regclass and indisprimary": 1,
		"select records from ycsb_meta":                                                       5000,
		"select field_length from ycsb_meta":                                                  20,
		"select nextval('ycsb_key_seq')":                                                      5000,
	} {
		if got := queryInt(t, c, sql); got != want {
			t.Errorf("%s = %d, want %d", sql, got, want)
		}
	}
	var f0 string
	if err := c.QueryRow(ctx, "select field1 from usertable where ycsb_key='user1234'").Scan(&f0); err != nil {
		t.Fatal(err)
	}
	row := string(schema.AppendRow(nil, 1234))
	if want := strings.Split(strings.TrimSuffix(row, "\n"), "\t")[2]; f0 != want {
		t.Errorf("user1234.field1 = %q, the generator's %q (rows must depend on the seed and key only)", f0, want)
	}
	if !strings.Contains(out.String(), "of usertable done") {
		t.Errorf("no progress line:\n%s", out.String())
	}
	// A usertable without pgtrial's comment is refused.
	if _, err := c.Exec(ctx, "comment on table usertable is null"); err != nil {
		t.Fatal(err)
	}
	_, err = RunYCSB(ctx, YCSBConfig{Conn: cfg, Schema: schema, Out: &out})
	if err == nil || !strings.Contains(err.Error(), "refusing to drop usertable") {
		t.Errorf("foreign usertable: err = %v, want a refusal", err)
	}
}
