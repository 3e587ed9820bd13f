package workload

import (
	"bufio"
	"math/rand/v2"
	"strconv"
	"time"
)

// TPC-C-like initial population (clause 4.3.3.1), generated in the client
// as COPY text rows. Every generator draws from its own PCG stream, seeded
// from (seed, table, warehouse), so a load is reproducible for a seed
// whatever the number of parallel connections.

// TPCC cardinalities (clause 4.3.3.1), per warehouse unless noted.
const (
	TPCCItems             = 100000 // not scaled
	TPCCDistricts         = 10
	TPCCCustomers         = 3000 // per district
	TPCCOrders            = 3000 // per district
	TPCCFirstUndelivered  = 2101 // orders 2101..3000 have no carrier and a NEW_ORDER row
	TPCCStockPerWarehouse = 100000
)

// TPCCMark is the table comment marking a TPC-C-like table as pgtrial's.
const TPCCMark = "pgtrial:tpcc"

// TPCCTables are the TPC-C-like tables, tpcc_meta included.
var TPCCTables = []string{"warehouse", "district", "customer", "history", "new_order", "orders", "order_line", "item", "stock", "tpcc_meta"}

// TPCCConstants are the load-time NURand constants C (clause 2.1.6), drawn
// from the seed and stored in tpcc_meta.
type TPCCConstants struct {
	CLast, CID, OLIID int64 // in [0,255], [0,1023], [0,8191]
}

// NewTPCCConstants draws the constants for a seed.
func NewTPCCConstants(seed uint64) TPCCConstants {
	r := tpccRand(seed, 0xC0, 0)
	return TPCCConstants{CLast: r.Int64N(256), CID: r.Int64N(1024), OLIID: r.Int64N(8192)}
}

// tpccRand is the stream of one (table, warehouse).
func tpccRand(seed uint64, table, w int64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, uint64(table)<<32|uint64(w)))
}

// TPCCNURand is NURand(A, x, y) = (((rand(0, A) | rand(x, y)) + C) % (y − x + 1)) + x.
func TPCCNURand(r *rand.Rand, a, x, y, c int64) int64 {
	return (((uniform(r, 0, a) | uniform(r, x, y)) + c) % (y - x + 1)) + x
}

func uniform(r *rand.Rand, lo, hi int64) int64 { return lo + r.Int64N(hi-lo+1) }

var tpccSyllableList = [10]string{"BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING"}

// TPCCLastName is C_LAST for a number 0..999: the syllables of its three digits.
func TPCCLastName(n int64) string {
	return tpccSyllableList[n/100] + tpccSyllableList[(n/10)%10] + tpccSyllableList[n%10]
}

const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// tpccRow writes one COPY text row.
type tpccRow struct {
	w     *bufio.Writer
	r     *rand.Rand
	first bool
}

func (t *tpccRow) sep() {
	if !t.first {
		t.w.WriteByte('\t')
	}
	t.first = false
}
func (t *tpccRow) int(v int64)  { t.sep(); t.w.WriteString(strconv.FormatInt(v, 10)) }
func (t *tpccRow) str(s string) { t.sep(); t.w.WriteString(s) }
func (t *tpccRow) null()        { t.sep(); t.w.WriteString(`\N`) }
func (t *tpccRow) end()         { t.w.WriteByte('\n'); t.first = true }
func (t *tpccRow) cents(v int64) {
	t.sep()
	t.w.WriteString(strconv.FormatInt(v/100, 10))
	t.w.WriteByte('.')
	t.two(v % 100)
}
func (t *tpccRow) two(v int64) { t.w.WriteByte(byte('0' + v/10)); t.w.WriteByte(byte('0' + v%10)) }
func (t *tpccRow) frac4(v int64) {
	t.sep()
	t.w.WriteString(strconv.FormatFloat(float64(v)/10000, 'f', 4, 64))
}
func (t *tpccRow) astr(lo, hi int) { t.sep(); t.rawA(int(uniform(t.r, int64(lo), int64(hi)))) }
func (t *tpccRow) rawA(n int) {
	for range n {
		t.w.WriteByte(alnum[t.r.IntN(len(alnum))])
	}
}
func (t *tpccRow) nstr(n int) {
	t.sep()
	for range n {
		t.w.WriteByte(byte('0' + t.r.IntN(10)))
	}
}

// dataWithOriginal is I_DATA/S_DATA: a-string [26..50], 10 % with "ORIGINAL"
// at a random position.
func (t *tpccRow) dataWithOriginal() {
	t.sep()
	n := int(uniform(t.r, 26, 50))
	if t.r.IntN(10) == 0 {
		at := t.r.IntN(n - 8 + 1)
		t.rawA(at)
		t.w.WriteString("ORIGINAL")
		t.rawA(n - 8 - at)
		return
	}
	t.rawA(n)
}

func (t *tpccRow) address() { // street 1, street 2, city, state, zip
	t.astr(10, 20)
	t.astr(10, 20)
	t.astr(10, 20)
	t.sep()
	t.w.WriteByte(byte('A' + t.r.IntN(26)))
	t.w.WriteByte(byte('A' + t.r.IntN(26)))
	t.nstr(4)
	t.w.WriteString("11111")
}

// TPCCGen generates one table's rows for one warehouse (item: w ignored).
type TPCCGen struct {
	Seed  uint64
	Const TPCCConstants
	Now   time.Time
}

// TPCCTableRows is the row count of table for one warehouse (item: total).
func TPCCTableRows(table string) int64 {
	switch table {
	case "item", "stock":
		return 100000
	case "warehouse":
		return 1
	case "district":
		return TPCCDistricts
	case "customer", "history", "orders":
		return TPCCDistricts * TPCCCustomers
	case "new_order":
		return TPCCDistricts * (TPCCOrders - TPCCFirstUndelivered + 1)
	case "order_line":
		return TPCCDistricts * TPCCOrders * 10 // mean of 5..15
	}
	return 0
}

// Write writes table's rows of warehouse w, adding to *count every row.
func (g TPCCGen) Write(bw *bufio.Writer, table string, w int64, count func(int64)) {
	ts := g.Now.UTC().Format("2006-01-02 15:04:05")
	switch table {
	case "item":
		t := tpccRow{w: bw, r: tpccRand(g.Seed, 1, 0), first: true}
		for i := int64(1); i <= TPCCItems; i++ {
			t.int(i)
			t.int(uniform(t.r, 1, 10000))
			t.astr(14, 24)
			t.cents(uniform(t.r, 100, 10000))
			t.dataWithOriginal()
			t.end()
			count(1)
		}
	case "warehouse":
		t := tpccRow{w: bw, r: tpccRand(g.Seed, 2, w), first: true}
		t.int(w)
		t.astr(6, 10)
		t.address()
		t.frac4(uniform(t.r, 0, 2000))
		t.str("300000.00")
		t.end()
		count(1)
	case "district":
		t := tpccRow{w: bw, r: tpccRand(g.Seed, 3, w), first: true}
		for d := int64(1); d <= TPCCDistricts; d++ {
			t.int(d)
			t.int(w)
			t.astr(6, 10)
			t.address()
			t.frac4(uniform(t.r, 0, 2000))
			t.str("30000.00")
			t.int(TPCCOrders + 1)
			t.end()
			count(1)
		}
	case "stock":
		t := tpccRow{w: bw, r: tpccRand(g.Seed, 4, w), first: true}
		for i := int64(1); i <= TPCCStockPerWarehouse; i++ {
			t.int(i)
			t.int(w)
			t.int(uniform(t.r, 10, 100))
			for range 10 {
				t.astr(24, 24)
			}
			t.int(0)
			t.int(0)
			t.int(0)
			t.dataWithOriginal()
			t.end()
			count(1)
		}
	case "customer":
		t := tpccRow{w: bw, r: tpccRand(g.Seed, 5, w), first: true}
		for d := int64(1); d <= TPCCDistricts; d++ {
			for c := int64(1); c <= TPCCCustomers; c++ {
				t.int(c)
				t.int(d)
				t.int(w)
				t.astr(8, 16)
				t.str("OE")
				if c <= 1000 {
					t.str(TPCCLastName(c - 1))
				} else {
					t.str(TPCCLastName(TPCCNURand(t.r, 255, 0, 999, g.Const.CLast)))
				}
				t.address()
				t.nstr(16)
				t.str(ts)
				if t.r.IntN(10) == 0 {
					t.str("BC")
				} else {
					t.str("GC")
				}
				t.str("50000.00")
				t.frac4(uniform(t.r, 0, 5000))
				t.str("-10.00")
				t.str("10.00")
				t.int(1)
				t.int(0)
				t.astr(300, 500)
				t.end()
				count(1)
			}
		}
	case "history":
		t := tpccRow{w: bw, r: tpccRand(g.Seed, 6, w), first: true}
		for d := int64(1); d <= TPCCDistricts; d++ {
			for c := int64(1); c <= TPCCCustomers; c++ {
				t.int(c)
				t.int(d)
				t.int(w)
				t.int(d)
				t.int(w)
				t.str(ts)
				t.str("10.00")
				t.astr(12, 24)
				t.end()
				count(1)
			}
		}
	case "orders", "new_order", "order_line":
		g.writeOrders(bw, table, w, ts, count)
	}
}

// writeOrders writes orders, new_order or order_line: the three share the
// order stream (O_C_ID permutation, O_OL_CNT, carrier), so each table's
// pass regenerates it identically and draws its own columns from another.
func (g TPCCGen) writeOrders(bw *bufio.Writer, table string, w int64, ts string, count func(int64)) {
	t := tpccRow{w: bw, r: tpccRand(g.Seed, 8, w), first: true} // per-table columns
	if table == "orders" {
		t.r = tpccRand(g.Seed, 9, w)
	}
	ord := tpccRand(g.Seed, 7, w) // shared: permutation, ol_cnt, carrier
	perm := make([]int64, TPCCOrders)
	for d := int64(1); d <= TPCCDistricts; d++ {
		for i := range perm {
			perm[i] = int64(i + 1)
		}
		ord.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
		for o := int64(1); o <= TPCCOrders; o++ {
			olCnt := uniform(ord, 5, 15)
			carrier := uniform(ord, 1, 10)
			delivered := o < TPCCFirstUndelivered
			switch table {
			case "orders":
				t.int(o)
				t.int(d)
				t.int(w)
				t.int(perm[o-1])
				t.str(ts)
				if delivered {
					t.int(carrier)
				} else {
					t.null()
				}
				t.int(olCnt)
				t.int(1)
				t.end()
				count(1)
			case "new_order":
				if !delivered {
					t.int(o)
					t.int(d)
					t.int(w)
					t.end()
					count(1)
				}
			case "order_line":
				for n := int64(1); n <= olCnt; n++ {
					t.int(o)
					t.int(d)
					t.int(w)
					t.int(n)
					t.int(uniform(t.r, 1, TPCCItems))
					t.int(w)
					if delivered {
						t.str(ts)
					} else {
						t.null()
					}
					t.int(5)
					if delivered {
						t.str("0.00")
					} else {
						t.cents(uniform(t.r, 1, 999999))
					}
					t.astr(24, 24)
					t.end()
					count(1)
				}
			}
		}
	}
}

// TPCCCreateTables are the tables in COPY column order (spec columns and
// types; keys come after the load, TPCCKeys).
var TPCCCreateTables = []string{
	`create table warehouse (w_id int not null, w_name varchar(10), w_street_1 varchar(20), w_street_2 varchar(20), w_city varchar(20), w_state char(2), w_zip char(9), w_tax numeric(4,4), w_ytd numeric(12,2))`,
	`create table district (d_id int not null, d_w_id int not null, d_name varchar(10), d_street_1 varchar(20), d_street_2 varchar(20), d_city varchar(20), d_state char(2), d_zip char(9), d_tax numeric(4,4), d_ytd numeric(12,2), d_next_o_id int)`,
	`create table customer (c_id int not null, c_d_id int not null, c_w_id int not null, c_first varchar(16), c_middle char(2), c_last varchar(16), c_street_1 varchar(20), c_street_2 varchar(20), c_city varchar(20), c_state char(2), c_zip char(9), c_phone char(16), c_since timestamp, c_credit char(2), c_credit_lim numeric(12,2), c_discount numeric(4,4), c_balance numeric(12,2), c_ytd_payment numeric(12,2), c_payment_cnt int, c_delivery_cnt int, c_data varchar(500))`,
	`create table history (h_c_id int, h_c_d_id int, h_c_w_id int, h_d_id int, h_w_id int, h_date timestamp, h_amount numeric(6,2), h_data varchar(24))`,
	`create table new_order (no_o_id int not null, no_d_id int not null, no_w_id int not null)`,
	`create table orders (o_id int not null, o_d_id int not null, o_w_id int not null, o_c_id int, o_entry_d timestamp, o_carrier_id int, o_ol_cnt int, o_all_local int)`,
	`create table order_line (ol_o_id int not null, ol_d_id int not null, ol_w_id int not null, ol_number int not null, ol_i_id int, ol_supply_w_id int, ol_delivery_d timestamp, ol_quantity int, ol_amount numeric(6,2), ol_dist_info char(24))`,
	`create table item (i_id int not null, i_im_id int, i_name varchar(24), i_price numeric(5,2), i_data varchar(50))`,
	`create table stock (s_i_id int not null, s_w_id int not null, s_quantity int, s_dist_01 char(24), s_dist_02 char(24), s_dist_03 char(24), s_dist_04 char(24), s_dist_05 char(24), s_dist_06 char(24), s_dist_07 char(24), s_dist_08 char(24), s_dist_09 char(24), s_dist_10 char(24), s_ytd int, s_order_cnt int, s_remote_cnt int, s_data varchar(50))`,
	`create table tpcc_meta (c_load_c_last int, c_load_c_id int, c_load_ol_i_id int, warehouses int, loaded_at timestamptz, seed bigint)`,
}

// TPCCKeys are the primary keys (spec keys) and the two secondary indexes,
// built after the load, one statement per table so they run in parallel.
var TPCCKeys = []string{
	`alter table warehouse add primary key (w_id)`,
	`alter table district add primary key (d_w_id, d_id)`,
	`alter table customer add primary key (c_w_id, c_d_id, c_id)`,
	`create index customer_name on customer (c_w_id, c_d_id, c_last, c_first)`,
	`alter table new_order add primary key (no_w_id, no_d_id, no_o_id)`,
	`alter table orders add primary key (o_w_id, o_d_id, o_id)`,
	`create index orders_customer on orders (o_w_id, o_d_id, o_c_id, o_id)`,
	`alter table order_line add primary key (ol_w_id, ol_d_id, ol_o_id, ol_number)`,
	`alter table item add primary key (i_id)`,
	`alter table stock add primary key (s_w_id, s_i_id)`,
}
