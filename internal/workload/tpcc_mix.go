package workload

import (
	"fmt"
	"strings"
)

// TPC-C-like (TPC-C 5.11, not audited, not comparable with published tpmC):
// the five transactions in pgbench's script language, so that `pgtrial run
// -b tpcc` runs them and a user can copy and edit them.
//
// Variables the scripts read (set by the Probe from tpcc_meta; a -D of the
// same name wins):
//
//	warehouses       the loaded warehouses (W)
//	c_load_c_last    C of NURand(255, 0, 999) used at load for C_LAST
//	c_load_c_id      C of NURand(1023, 1, 3000) (c_id), the same at run time
//	c_load_ol_i_id   C of NURand(8191, 1, 100000) (ol_i_id), the same at run time
//	c_run_c_last     C_RUN for C_LAST: C_LOAD + 70 when that is ≤ 255, else
//	                 C_LOAD − 70, so |C_RUN − C_LOAD| = 70, inside [65, 119] and
//	                 neither 96 nor 112 (clause 2.1.6.1)
//	all_warehouses   0 (default): every client has a fixed home warehouse,
//	                 (client_id % W) + 1, spreading clients evenly over all
//	                 warehouses (the spec's terminal binding); 1: every
//	                 transaction draws its warehouse uniformly over 1..W
//	                 (HammerDB's "use all warehouses", drawn at random rather
//	                 than in turn)
//
// Stock-Level's district is fixed per client too: ((client_id / W) % 10) + 1,
// so 10 clients per warehouse cover its 10 districts.
//
// NURand(A, x, y) = (((random(0, A) | random(x, y)) + C) % (y − x + 1)) + x
// (clause 2.1.6) is written out in each script with pgbench's `|`.
//
// Isolation: read committed, the server's default, with the row locks the
// UPDATEs take (as HammerDB and BenchBase run it); deadlocks between
// New-Orders (stock rows locked in random item order) and serialization
// failures are retried with --max-tries.
//
// Delivery delivers the 10 districts in one transaction (one statement);
// the spec's deferred execution is not needed and not done.
//
// The order-line loop of New-Order is pgtrial's \while EXPR … \endwhile
// (docs/script-extensions.md); spec mode's keying and think times are its
// \think, which is outside the transaction (not in the latency) and works in
// the closed model only.

// tpccSyllables are C_LAST's syllables (clause 4.3.2.3) as an SQL array,
// indexed 1..10 by a digit + 1.
const tpccSyllables = `(ARRAY['BAR','OUGHT','ABLE','PRI','PRES','ESE','ANTI','CALLY','ATION','EING'])`

// TPCCUnusedItem is the item id the rolled-back New-Orders ask for: one past
// the 100,000 items, so the lookup finds nothing (clause 2.4.1.5).
const TPCCUnusedItem = 100001

// tpccMixes are TPC-C-like's mixes (throughput and spec mode).
func tpccMixes() []Mix {
	return []Mix{tpccMix(false), tpccMix(true)}
}

// tpccTxn is one transaction type with its spec-mode keying time and mean
// think time (clause 5.2.5, in seconds).
type tpccTxn struct {
	name, desc string
	weight     int
	keying     int // s, constant
	thinkMean  int // s, mean of the negative exponential, truncated at 10×
	body       func() string
}

var tpccTxns = []tpccTxn{
	{"new-order", "TPC-C-like New-Order", 45, 18, 12, tpccNewOrder},
	{"payment", "TPC-C-like Payment", 43, 3, 12, tpccPayment},
	{"order-status", "TPC-C-like Order-Status", 4, 2, 10, tpccOrderStatus},
	{"delivery", "TPC-C-like Delivery", 4, 2, 5, tpccDelivery},
	{"stock-level", "TPC-C-like Stock-Level", 4, 2, 5, tpccStockLevel},
}

// TPCCProbe reads the load's constants; c_run_c_last follows the delta rule
// above and all_warehouses defaults to 0.
const TPCCProbe = `SELECT warehouses, c_load_c_last, c_load_c_id, c_load_ol_i_id,
       CASE WHEN c_load_c_last + 70 <= 255 THEN c_load_c_last + 70 ELSE c_load_c_last - 70 END AS c_run_c_last,
       0 AS all_warehouses
  FROM tpcc_meta`

func tpccMix(spec bool) Mix {
	m := Mix{Name: "tpcc", Desc: "TPC-C-like, throughput mode: no keying or think times, any number of clients", Probe: TPCCProbe}
	if spec {
		m.Name, m.Desc = "tpcc-spec", "TPC-C-like, spec mode: keying and think times per the specification, 10 clients per warehouse"
	}
	for _, t := range tpccTxns {
		var b strings.Builder
		fmt.Fprintf(&b, "-- %s (%s)\n", t.desc, m.Name)
		if spec {
			fmt.Fprintf(&b, "-- keying time %d s, then think time: negative exponential, mean %d s, truncated at %d s\n\\think %d s\n", t.keying, t.thinkMean, 10*t.thinkMean, t.keying)
		}
		b.WriteString(tpccHome)
		b.WriteString(t.body())
		if spec {
			fmt.Fprintf(&b, "\\set think random_exponential(0, %d, 10)\n\\think :think ms\n", 10*1000*t.thinkMean)
		}
		m.Scripts = append(m.Scripts, MixScript{Name: t.name, Desc: t.desc, Script: b.String(), Weight: t.weight})
	}
	return m
}

// tpccHome chooses the home warehouse w_id.
const tpccHome = `\if :all_warehouses
\set w_id random(1, :warehouses)
\else
\set w_id (:client_id % :warehouses) + 1
\endif
`

// tpccCustomer picks the customer (c_w_id, c_d_id) and c_id, by last name
// 60 % of the time (the one at position ceil(n/2) by c_first) or by
// NURand(1023, 1, 3000). by_name is 1 or 0. A uniform other warehouse is
// random(1, W − 1), plus 1 from the home warehouse on.
const tpccCustomer = `\set by_name case when random(1, 100) <= 60 then 1 else 0 end
\if :by_name
\set c_last_n (((random(0, 255) | random(0, 999)) + :c_run_c_last) % 1000) + 0
\set syl1 :c_last_n / 100 + 1
\set syl2 (:c_last_n / 10) % 10 + 1
\set syl3 :c_last_n % 10 + 1
SELECT c_id FROM (SELECT c_id, row_number() OVER (ORDER BY c_first) AS pos, count(*) OVER () AS n
                    FROM customer
                   WHERE c_w_id = :c_w_id AND c_d_id = :c_d_id
                     AND c_last = ` + tpccSyllables + `[:syl1] || ` + tpccSyllables + `[:syl2] || ` + tpccSyllables + `[:syl3]) AS named
 WHERE pos = (n + 1) / 2 \gset
\else
\set c_id (((random(0, 1023) | random(1, 3000)) + :c_load_c_id) % 3000) + 1
\endif
`

func tpccNewOrder() string {
	var b strings.Builder
	b.WriteString(`\set d_id random(1, 10)
\set c_id (((random(0, 1023) | random(1, 3000)) + :c_load_c_id) % 3000) + 1
\set ol_cnt random(5, 15)
\set rbk random(1, 100)
\set all_local 1
\set item_found 1
BEGIN;
SELECT c_discount, c_last, c_credit, w_tax FROM customer, warehouse
 WHERE w_id = :w_id AND c_w_id = w_id AND c_d_id = :d_id AND c_id = :c_id;
UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = :w_id AND d_id = :d_id
RETURNING d_next_o_id - 1 AS o_id, d_tax \gset
`)
	fmt.Fprintf(&b, `\set ol_number 1
\while :ol_number <= :ol_cnt
\set ol_i_id (((random(0, 8191) | random(1, 100000)) + :c_load_ol_i_id) %% 100000) + 1
\if :rbk = 1 and :ol_number = :ol_cnt
\set ol_i_id %d
\endif
\set ol_supply_w_id :w_id
\if :warehouses > 1 and random(1, 100) = 1
\set ol_supply_w_id random(1, :warehouses - 1)
\set ol_supply_w_id :ol_supply_w_id + case when :ol_supply_w_id >= :w_id then 1 else 0 end
\set all_local 0
\endif
\set ol_quantity random(1, 10)
SELECT count(*) AS item_found, coalesce(max(i_price), 0) AS i_price FROM item WHERE i_id = :ol_i_id \gset
\if :item_found
WITH s AS (
  UPDATE stock SET s_quantity = CASE WHEN s_quantity >= :ol_quantity + 10 THEN s_quantity - :ol_quantity
                                     ELSE s_quantity - :ol_quantity + 91 END,
                   s_ytd = s_ytd + :ol_quantity, s_order_cnt = s_order_cnt + 1,
                   s_remote_cnt = s_remote_cnt + (:ol_supply_w_id::int <> :w_id::int)::int
   WHERE s_i_id = :ol_i_id AND s_w_id = :ol_supply_w_id
  RETURNING (ARRAY[s_dist_01, s_dist_02, s_dist_03, s_dist_04, s_dist_05,
                   s_dist_06, s_dist_07, s_dist_08, s_dist_09, s_dist_10])[:d_id] AS dist, s_data)
INSERT INTO order_line (ol_w_id, ol_d_id, ol_o_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)
SELECT :w_id::int, :d_id::int, :o_id::int, :ol_number::int, :ol_i_id::int, :ol_supply_w_id::int, NULL, :ol_quantity::int,
       :ol_quantity::int * :i_price::numeric, dist FROM s;
\endif
\set ol_number :ol_number + 1
\endwhile
`, TPCCUnusedItem)
	b.WriteString(`\if :item_found
INSERT INTO orders (o_w_id, o_d_id, o_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
VALUES (:w_id, :d_id, :o_id, :c_id, now(), NULL, :ol_cnt, :all_local);
INSERT INTO new_order (no_w_id, no_d_id, no_o_id) VALUES (:w_id, :d_id, :o_id);
END;
\else
ROLLBACK;
\endif
`)
	return b.String()
}

func tpccPayment() string {
	return `\set d_id random(1, 10)
\set c_w_id :w_id
\set c_d_id :d_id
\if :warehouses > 1 and random(1, 100) > 85
\set c_w_id random(1, :warehouses - 1)
\set c_w_id :c_w_id + case when :c_w_id >= :w_id then 1 else 0 end
\set c_d_id random(1, 10)
\endif
\set h_amount random(100, 500000)
BEGIN;
UPDATE warehouse SET w_ytd = w_ytd + :h_amount / 100.0 WHERE w_id = :w_id;
UPDATE district SET d_ytd = d_ytd + :h_amount / 100.0 WHERE d_w_id = :w_id AND d_id = :d_id;
` + tpccCustomer + `UPDATE customer
   SET c_balance = c_balance - :h_amount / 100.0, c_ytd_payment = c_ytd_payment + :h_amount / 100.0,
       c_payment_cnt = c_payment_cnt + 1,
       c_data = CASE WHEN c_credit = 'BC'
                     THEN left(concat_ws(' ', c_id, c_d_id, c_w_id, :d_id::int, :w_id::int, :h_amount::int / 100.0) || ' ' || c_data, 500)
                     ELSE c_data END
 WHERE c_w_id = :c_w_id AND c_d_id = :c_d_id AND c_id = :c_id;
INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
SELECT :c_id::int, :c_d_id::int, :c_w_id::int, :d_id::int, :w_id::int, now(), :h_amount::int / 100.0, w_name || '    ' || d_name
  FROM warehouse, district WHERE w_id = :w_id AND d_w_id = :w_id AND d_id = :d_id;
END;
`
}

func tpccOrderStatus() string {
	return `\set d_id random(1, 10)
\set c_w_id :w_id
\set c_d_id :d_id
BEGIN;
` + tpccCustomer + `SELECT c_balance, c_first, c_middle, c_last FROM customer
 WHERE c_w_id = :c_w_id AND c_d_id = :c_d_id AND c_id = :c_id;
SELECT coalesce(max(o_id), 0) AS o_id FROM orders
 WHERE o_w_id = :c_w_id AND o_d_id = :c_d_id AND o_c_id = :c_id \gset
SELECT o_entry_d, o_carrier_id FROM orders WHERE o_w_id = :c_w_id AND o_d_id = :c_d_id AND o_id = :o_id;
SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line
 WHERE ol_w_id = :c_w_id AND ol_d_id = :c_d_id AND ol_o_id = :o_id;
END;
`
}

func tpccDelivery() string {
	return `\set o_carrier_id random(1, 10)
BEGIN;
WITH oldest AS (
  SELECT d AS d_id, (SELECT min(no_o_id) FROM new_order WHERE no_w_id = :w_id AND no_d_id = d) AS o_id
    FROM generate_series(1, 10) AS d),
no AS (
  DELETE FROM new_order USING oldest
   WHERE no_w_id = :w_id AND no_d_id = oldest.d_id AND no_o_id = oldest.o_id
  RETURNING no_d_id, no_o_id),
o AS (
  UPDATE orders SET o_carrier_id = :o_carrier_id FROM no
   WHERE o_w_id = :w_id AND o_d_id = no.no_d_id AND o_id = no.no_o_id
  RETURNING o_d_id, o_id, o_c_id),
ol AS (
  UPDATE order_line SET ol_delivery_d = now() FROM o
   WHERE ol_w_id = :w_id AND ol_d_id = o.o_d_id AND ol_o_id = o.o_id
  RETURNING ol_d_id, ol_o_id, ol_amount),
amount AS (
  SELECT o.o_d_id, o.o_c_id, sum(ol.ol_amount) AS total
    FROM o JOIN ol ON ol.ol_d_id = o.o_d_id AND ol.ol_o_id = o.o_id
   GROUP BY o.o_d_id, o.o_c_id)
UPDATE customer SET c_balance = c_balance + amount.total, c_delivery_cnt = c_delivery_cnt + 1
  FROM amount
 WHERE c_w_id = :w_id AND c_d_id = amount.o_d_id AND c_id = amount.o_c_id;
END;
`
}

func tpccStockLevel() string {
	return `\set sl_d_id ((:client_id / :warehouses) % 10) + 1
\set threshold random(10, 20)
SELECT count(DISTINCT s_i_id) AS low_stock
  FROM district, order_line, stock
 WHERE d_w_id = :w_id AND d_id = :sl_d_id
   AND ol_w_id = :w_id AND ol_d_id = :sl_d_id
   AND ol_o_id >= d_next_o_id - 20 AND ol_o_id < d_next_o_id
   AND s_w_id = :w_id AND s_i_id = ol_i_id AND s_quantity < :threshold;
`
}
