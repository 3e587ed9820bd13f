package workload

import (
	"fmt"
	"strconv"
	"strings"
)

// YCSB is the YCSB-like workload's table, usertable (YCSB's JDBC schema:
// ycsb_key text primary key "user<n>", field0..field{F−1} text of L
// characters; a record is about F·L bytes, 10 × 100 by default), and its
// meta table ycsb_meta, which tells runs the record count.
type YCSB struct {
	Records     int64 // keys 0..Records−1 are loaded
	Fields      int   // YCSB's fieldcount
	FieldLength int   // YCSB's fieldlength, in characters (bytes: ASCII)
	Seed        uint64
}

// YCSB's defaults (CoreWorkload: fieldcount, fieldlength).
const (
	YCSBDefaultFields      = 10
	YCSBDefaultFieldLength = 100
	// YCSBComment marks the tables pgtrial made (the loader's ownership check).
	YCSBComment = "pgtrial:ycsb"
)

// YCSB's tables, in creation order.
const (
	YCSBTable = "usertable"
	YCSBMeta  = "ycsb_meta"
	YCSBSeq   = "ycsb_key_seq" // the next inserted key number, unique across clients
)

// Validate says what is wrong with the configuration.
func (y YCSB) Validate() error {
	switch {
	case y.Records < 1:
		return fmt.Errorf("invalid --records %d: it must be at least 1", y.Records)
	case y.Fields < 1 || y.Fields > YCSBMaxFields:
		return fmt.Errorf("invalid --fields %d: it must be in 1..%d", y.Fields, YCSBMaxFields)
	case y.FieldLength < 1 || y.FieldLength > 1<<20:
		return fmt.Errorf("invalid --field-length %d: it must be in 1..1048576", y.FieldLength)
	}
	return nil
}

// CreateSQL is the DDL of usertable (without its key, added after the load),
// the key sequence and ycsb_meta. The fields' DEFAULT is L pseudo-random
// characters drawn by the server, so the insert operation names only the key.
func (y YCSB) CreateSQL() []string {
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE TABLE %s (ycsb_key text NOT NULL", YCSBTable)
	// md5 gives 32 hex characters: repeat it ⌈L/32⌉ times and cut at L.
	def := fmt.Sprintf("substr(repeat(md5(random()::text), %d), 1, %d)", (y.FieldLength+31)/32, y.FieldLength)
	for i := range y.Fields {
		fmt.Fprintf(&b, ", field%d text DEFAULT %s", i, def)
	}
	b.WriteString(")")
	return []string{
		b.String(),
		fmt.Sprintf("COMMENT ON TABLE %s IS '%s'", YCSBTable, YCSBComment),
		fmt.Sprintf("CREATE TABLE %s (records bigint NOT NULL, fields int NOT NULL, field_length int NOT NULL, seed text NOT NULL, loaded_at timestamptz NOT NULL DEFAULT now())", YCSBMeta),
		fmt.Sprintf("COMMENT ON TABLE %s IS '%s'", YCSBMeta, YCSBComment),
		fmt.Sprintf("CREATE SEQUENCE %s START %d", YCSBSeq, y.Records),
		fmt.Sprintf("COMMENT ON SEQUENCE %s IS '%s'", YCSBSeq, YCSBComment),
		fmt.Sprintf("INSERT INTO %s (records, fields, field_length, seed) VALUES (%d, %d, %d, '%d')",
			YCSBMeta, y.Records, y.Fields, y.FieldLength, y.Seed),
	}
}

// YCSBKey is record n's key, "user<n>" (YCSB's insertorder=ordered form;
// the request distributions scramble which keys are hot).
func YCSBKey(n int64) string { return "user" + strconv.FormatInt(n, 10) }

// fieldAlphabet are the characters of generated fields.
const fieldAlphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// AppendRow appends record n in COPY's text format: the key and the fields,
// tab-separated, newline-terminated. The fields depend on (Seed, n) only
// (splitmix64 of the pair), so a load is reproducible for a seed whatever
// the split between connections.
func (y YCSB) AppendRow(dst []byte, n int64) []byte {
	dst = append(dst, "user"...)
	dst = strconv.AppendInt(dst, n, 10)
	x := y.Seed ^ (uint64(n) * 0x9E3779B97F4A7C15)
	var w uint64
	left := 0 // characters left in w: 10 of 6 bits each
	for range y.Fields {
		dst = append(dst, '\t')
		for range y.FieldLength {
			if left == 0 {
				w = splitmix(&x)
				left = 10
			}
			dst = append(dst, fieldAlphabet[(w&63)%uint64(len(fieldAlphabet))])
			w >>= 6
			left--
		}
	}
	return append(dst, '\n')
}

// splitmix is splitmix64's step.
func splitmix(x *uint64) uint64 {
	*x += 0x9E3779B97F4A7C15
	z := *x
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}
