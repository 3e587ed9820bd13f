package workload

import "strconv"

// ycsbMixes are YCSB's core workloads A–F (YCSB's workloads/workload[a-f]),
// one script per operation type, so that the per-script figures are the
// figures per operation: read, update, insert, scan, rmw.
//
// Variables (from ycsbProbe, each overridable with -D):
//   - records, fields, field_length: ycsb_meta's;
//   - maxkey: the highest key number in usertable when the run starts (the
//     key sequence's last value); an insert sets it to the key it made, so a
//     client's "latest" follows its inserts and, at every insert, everyone
//     else's before it;
//   - uniform, latest: the request distribution; both 0 is YCSB's scrambled
//     zipfian (θ = 0.99 over 10^10 items, FNV-1a-hashed onto the loaded
//     keys 0..records−1: the modulus must not move with the inserts, or
//     the hot keys would move at every insert; YCSB hashes onto
//     records + the expected inserts and redraws beyond the last),
//     uniform=1 uniform over the keys, latest=1 YCSB's SkewedLatest (the
//     newest keys hottest: maxkey − zipfian(θ = 0.99 over maxkey+1)).
//
// Every operation that names an existing key counts it with `\tally key :k`
// (the share of operations on the hottest keys, report/ycsb.go).
func ycsbMixes() []Mix {
	type op struct {
		name   string
		weight int
	}
	mk := func(name, desc, dist string, ops ...op) Mix {
		m := Mix{Name: name, Desc: desc, Probe: ycsbProbe(dist)}
		for _, o := range ops {
			m.Scripts = append(m.Scripts, MixScript{Name: o.name, Desc: ycsbOpDesc[o.name], Script: ycsbScripts[o.name], Weight: o.weight})
		}
		return m
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

// ycsbProbe reads the run's variables from ycsb_meta and the key sequence;
// dist is the mix's default request distribution.
func ycsbProbe(dist string) string {
	latest := "0"
	if dist == "latest" {
		latest = "1"
	}
	return "SELECT records, fields, field_length, " +
		"(SELECT CASE WHEN is_called THEN last_value ELSE last_value - 1 END FROM " + YCSBSeq + ") AS maxkey, " +
		"0 AS uniform, " + latest + " AS latest FROM " + YCSBMeta
}

// YCSBScanMax is YCSB's maxscanlength: a scan reads uniform 1..100 rows.
const YCSBScanMax = 100

// ycsbKey draws :k by the request distribution and tallies it.
const ycsbKey = `\if :uniform
\set k random(0, :maxkey)
\elif :latest
\set k :maxkey - random_zipfian(0, :maxkey, 0.99)
\else
\set k abs(hash_fnv1a(random_zipfian(0, 9999999999, 0.99))) % :records
\endif
\tally key :k
`

// ycsbValue is a new field value of field_length characters, by the server.
const ycsbValue = `substr(repeat(md5(random()::text), (:field_length + 31) / 32), 1, :field_length)`

var ycsbOpDesc = map[string]string{
	"read":   "YCSB read (one record, all fields)",
	"update": "YCSB update (one field of one record)",
	"insert": "YCSB insert (a new key from ycsb_key_seq)",
	"scan":   "YCSB scan (1–100 records from a key, in key order)",
	"rmw":    "YCSB read-modify-write (read a record, update one field)",
}

var ycsbScripts = map[string]string{
	"read": "-- " + ycsbOpDesc["read"] + "\n" + ycsbKey +
		"SELECT * FROM usertable WHERE ycsb_key = 'user' || :k;\n",
	// YCSB writes one field (writeallfields=false); PostgreSQL writes a
	// new row version whichever field it is, so field0 stands for a
	// random one.
	"update": "-- " + ycsbOpDesc["update"] + "\n" + ycsbKey +
		"UPDATE usertable SET field0 = " + ycsbValue + " WHERE ycsb_key = 'user' || :k;\n",
	"insert": "-- " + ycsbOpDesc["insert"] + "\n" +
		"INSERT INTO usertable (ycsb_key) SELECT 'user' || n FROM nextval('ycsb_key_seq') AS n RETURNING substr(ycsb_key, 5)::bigint AS maxkey \\gset\n",
	"scan": "-- " + ycsbOpDesc["scan"] + "\n" + ycsbKey +
		"\\set len random(1, " + strconv.Itoa(YCSBScanMax) + ")\n" +
		"SELECT * FROM usertable WHERE ycsb_key >= 'user' || :k ORDER BY ycsb_key LIMIT :len;\n",
	"rmw": "-- " + ycsbOpDesc["rmw"] + "\n" + ycsbKey +
		"SELECT * FROM usertable WHERE ycsb_key = 'user' || :k;\n" +
		"UPDATE usertable SET field0 = " + ycsbValue + " WHERE ycsb_key = 'user' || :k;\n",
}
