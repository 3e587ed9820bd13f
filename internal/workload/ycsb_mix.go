package workload

import (
	"fmt"
	"strconv"
	"strings"
)

// ycsbMixes are YCSB's core workloads A–F (YCSB's workloads/workload[a-f]),
// one script per operation type, so that the per-script figures are the
// figures per operation: read, update, insert, scan, rmw.
//
// Variables (from ycsbProbe, each overridable with -D):
//   - records, fields, field_length: ycsb_meta's;
//   - maxkey: the highest key number in usertable when the run starts (the
//     key sequence's last value); an insert sets it to the key it made.
//     It is the uniform's range and latest's offset range;
//   - uniform, latest, scrambled: the request distribution (latest wins
//     over uniform, uniform over zipfian):
//   - zipfian (uniform=0, latest=0, scrambled=1, the default): YCSB's
//     scrambled zipfian, θ = 0.99 over 10^10 items, FNV-1a-hashed onto the
//     loaded keys 0..records−1 (the modulus must not move with the
//     inserts, or the hot keys would move at every insert; YCSB hashes
//     onto records + the expected inserts and redraws beyond the last);
//   - scrambled=0: the plain zipfian over the keys 0..records−1, key 0
//     hottest, the hot keys adjacent (BenchBase's YCSB);
//   - uniform=1: uniform over 0..maxkey;
//   - latest=1: YCSB's SkewedLatest, the newest keys hottest, for every
//     client the same: key = the key sequence's last value (read in SQL
//     at each operation, so another client's insert counts at once) −
//     zipfian(θ = 0.99 over 0..maxkey).
//
// Every operation that names an existing key counts it with `\tally key :k`
// (the share of operations on the hottest keys, report/ycsb.go).
//
// The update (and rmw's write) sets one field chosen uniformly among the
// table's F fields (YCSB's writeallfields=false): the scripts branch over
// the field number with \if … \elif, so they are made for F (YCSBScripts);
// the mixes' Scripts are made for YCSBDefaultFields and ForVars makes them
// again for the probe's fields.
func ycsbMixes() []Mix {
	type op struct {
		name   string
		weight int
	}
	mk := func(name, desc, dist string, ops ...op) Mix {
		build := func(fields int) []MixScript {
			texts := YCSBScripts(fields)
			var out []MixScript
			for _, o := range ops {
				out = append(out, MixScript{Name: o.name, Desc: ycsbOpDesc[o.name], Script: texts[o.name], Weight: o.weight})
			}
			return out
		}
		return Mix{Name: name, Desc: desc, Probe: ycsbProbe(dist), Scripts: build(YCSBDefaultFields),
			ForVars: func(vars map[string]string) ([]MixScript, error) {
				f, err := ycsbFieldsVar(vars)
				if err != nil {
					return nil, fmt.Errorf("built-in mix %s: %w", name, err)
				}
				return build(f), nil
			}}
	}
	return []Mix{
		mk("ycsb-a", "YCSB A: update heavy, read 50 % / update 50 %, zipfian", "zipfian", op{"read", 50}, op{"update", 50}),
		mk("ycsb-b", "YCSB B: read mostly, read 95 % / update 5 %, zipfian", "zipfian", op{"read", 95}, op{"update", 5}),
		mk("ycsb-c", "YCSB C: read only, read 100 %, zipfian", "zipfian", op{"read", 100}),
		mk("ycsb-d", "YCSB D: read latest, read 95 % / insert 5 %, latest", "latest", op{"read", 95}, op{"insert", 5}),
		mk("ycsb-e", "YCSB E: short ranges, scan 95 % (1–100 rows) / insert 5 %, zipfian", "zipfian", op{"scan", 95}, op{"insert", 5}),
		mk("ycsb-f", "YCSB F: read-modify-write, read 50 % / rmw 50 %, zipfian", "zipfian", op{"read", 50}, op{"rmw", 50}),
	}
}

// ycsbFieldsVar is the fields variable as the clients get it (the probe's
// ycsb_meta.fields, or -D fields=F).
func ycsbFieldsVar(vars map[string]string) (int, error) {
	v, ok := vars["fields"]
	if !ok {
		return YCSBDefaultFields, nil
	}
	f, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || f < 1 || f > YCSBMaxFields {
		return 0, fmt.Errorf("invalid fields %q (ycsb_meta's or -D fields): expecting a number of fields in 1..%d", v, YCSBMaxFields)
	}
	return f, nil
}

// ycsbProbe reads the run's variables from ycsb_meta and the key sequence;
// dist is the mix's default request distribution.
func ycsbProbe(dist string) string {
	latest := "0"
	if dist == "latest" {
		latest = "1"
	}
	return "SELECT records, fields, field_length, " +
		"(SELECT " + ycsbNewest + " FROM " + YCSBSeq + ") AS maxkey, " +
		"0 AS uniform, " + latest + " AS latest, 1 AS scrambled FROM " + YCSBMeta
}

// ycsbNewest is the key sequence's newest key: its last value once a
// nextval has been called, else the start (records) − 1.
const ycsbNewest = "CASE WHEN is_called THEN last_value ELSE last_value - 1 END"

// YCSBScanMax is YCSB's maxscanlength: a scan reads uniform 1..100 rows.
const YCSBScanMax = 100

// ycsbKeyFixed draws :k by the distributions of a fixed key space
// (uniform, scrambled or plain zipfian).
const ycsbKeyFixed = `\if :uniform
\set k random(0, :maxkey)
\elif :scrambled
\set k abs(hash_fnv1a(random_zipfian(0, 9999999999, 0.99))) % :records
\else
\set k random_zipfian(0, :records - 1, 0.99)
\endif
`

// ycsbOffset is latest's zipfian offset from the newest key.
const ycsbOffset = "\\set off random_zipfian(0, :maxkey, 0.99)\n"

// ycsbKey draws :k by the request distribution and tallies it; under
// latest it reads the key sequence (one statement more).
const ycsbKey = "\\if :latest\n" + ycsbOffset +
	"SELECT " + ycsbNewest + " - :off AS k FROM " + YCSBSeq + " \\gset\n" +
	"\\else\n" + ycsbKeyFixed + "\\endif\n" +
	"\\tally key :k\n"

// ycsbRead reads one record, all its fields (YCSB's readallfields=true:
// its JDBC binding's SELECT *). Under latest the newest key is read in the
// same statement: the LEFT JOIN gives one row even when that key's insert
// has not committed yet (its fields NULL: a read that found nothing), and
// \gset returns :k for the tally. Such misses were 0.4 % of ycsb-d's reads
// with 4 clients and 1.0 % with 8 (100,000 records, 10 s closed runs);
// YCSB's own latest reads only acknowledged inserts and has none.
const ycsbRead = "\\if :latest\n" + ycsbOffset +
	"SELECT s.k, u.* FROM (SELECT " + ycsbNewest + " - :off AS k FROM " + YCSBSeq + ") AS s " +
	"LEFT JOIN usertable AS u ON u.ycsb_key = 'user' || s.k \\gset\n" +
	"\\else\n" + ycsbKeyFixed +
	"SELECT * FROM usertable WHERE ycsb_key = 'user' || :k;\n" +
	"\\endif\n" +
	"\\tally key :k\n"

// ycsbValue is a new field value of field_length characters, by the server.
const ycsbValue = `substr(repeat(md5(random()::text), (:field_length + 31) / 32), 1, :field_length)`

// YCSBMaxFields is the most fields a usertable may have (--fields).
const YCSBMaxFields = 1000

// ycsbUpdate writes one field of record :k chosen uniformly among fields
// 0..fields−1 (YCSB's writeallfields=false): :f = random(0, :fields − 1)
// and one branch per field, since a column cannot be a parameter.
func ycsbUpdate(fields int) string {
	upd := func(f int) string {
		return "UPDATE usertable SET field" + strconv.Itoa(f) + " = " + ycsbValue + " WHERE ycsb_key = 'user' || :k;\n"
	}
	if fields <= 1 {
		return upd(0)
	}
	var b strings.Builder
	b.WriteString("\\set f random(0, :fields - 1)\n")
	for f := range fields {
		if f == 0 {
			b.WriteString("\\if :f = 0\n")
		} else {
			fmt.Fprintf(&b, "\\elif :f = %d\n", f)
		}
		b.WriteString(upd(f))
	}
	b.WriteString("\\endif\n")
	return b.String()
}

var ycsbOpDesc = map[string]string{
	"read":   "YCSB read (one record, all fields)",
	"update": "YCSB update (one field of one record, chosen uniformly)",
	"insert": "YCSB insert (a new key from ycsb_key_seq)",
	"scan":   "YCSB scan (1–100 records from a key, in key order)",
	"rmw":    "YCSB read-modify-write (read a record, update one field chosen uniformly)",
}

// YCSBScripts are the operations' scripts for a usertable of fields
// fields, by operation name (read, update, insert, scan, rmw).
func YCSBScripts(fields int) map[string]string {
	gen := ""
	if fields > 1 {
		gen = "-- made for " + strconv.Itoa(fields) + " fields (ycsb_meta's, at the run's start)\n"
	}
	return map[string]string{
		"read": "-- " + ycsbOpDesc["read"] + "\n" + ycsbRead,
		"update": "-- " + ycsbOpDesc["update"] + "\n" + gen + ycsbKey +
			ycsbUpdate(fields),
		"insert": "-- " + ycsbOpDesc["insert"] + "\n" +
			"INSERT INTO usertable (ycsb_key) SELECT 'user' || n FROM nextval('ycsb_key_seq') AS n RETURNING substr(ycsb_key, 5)::bigint AS maxkey \\gset\n",
		"scan": "-- " + ycsbOpDesc["scan"] + "\n" + ycsbKey +
			"\\set len random(1, " + strconv.Itoa(YCSBScanMax) + ")\n" +
			"SELECT * FROM usertable WHERE ycsb_key >= 'user' || :k ORDER BY ycsb_key LIMIT :len;\n",
		"rmw": "-- " + ycsbOpDesc["rmw"] + "\n" + gen + ycsbRead +
			ycsbUpdate(fields),
	}
}
