#!/usr/bin/env bash
# init-vs-pgbench.sh: wall time of "pgtrial init" against "pgbench -i" on one cluster, for
# the plain tables and for partitioned accounts, and the TPC-C load rate, in one run.
#
# Usage: bench/init-vs-pgbench.sh [-n PAIRS] [-s SCALE] [-p PARTITIONS] [-w WAREHOUSES] [-u URL] [-- EXTRA_INIT_ARGS...]
#   -n PAIRS       interleaved pairs (pgbench, pgtrial) of each case, default 9 (at least 3)
#   -s SCALE       scale factor, default 20
#   -p PARTITIONS  partitions of the second case (--partitions, pgbench's default method:
#                  range), default 4; 0 skips the case
#   -w WAREHOUSES  TPC-C warehouses (pgtrial init -w tpcc), default 10; 0 skips it
#   -u URL         server URL (any database on it); default $PGTRIAL_BENCH_URL, else the
#                  "pgtrial local" cluster ("pgtrial local url"), else libpq's environment.
# EXTRA_INIT_ARGS go to every pgtrial init of the pgbench cases (e.g. -j 4).
#
# Cases and targets (issue 18): plain, pgtrial/pgbench <= 0.9; --partitions 4, <= 0.6.
# Each tool owns a database (bench_pgbench, bench_pgtrial), so pgtrial's refusal to drop
# tables it did not create never interferes, and both run in steady state: the tables of
# the previous round exist and are dropped by the run. One untimed warm-up run of each
# tool and case creates them. A CHECKPOINT runs before every timed run, so neither
# inherits the other's dirty buffers or WAL. Wall time is taken around the whole process.
# A pair's order alternates (pgbench first in odd pairs, pgtrial first in even ones) and
# the cases alternate within a round, so a drift of the machine falls on all equally.
# The verdict of a case is the median of the per-pair ratios pgtrial/pgbench, with their
# min-max: the anchor is pgbench measured in the same run, on the same machine state.
# The TPC-C load (database bench_tpcc) runs once after a warm-up, if the binary knows
# "-w tpcc"; its rate is the rows of every table it made over the wall time.
set -euo pipefail

pairs=9 scale=20 parts=4 warehouses=10 url="${PGTRIAL_BENCH_URL:-}"
while getopts "n:s:p:w:u:" opt; do
	case $opt in
	n) pairs=$OPTARG ;;
	s) scale=$OPTARG ;;
	p) parts=$OPTARG ;;
	w) warehouses=$OPTARG ;;
	u) url=$OPTARG ;;
	*) sed -n '2,14p' "$0"; exit 1 ;;
	esac
done
shift $((OPTIND - 1))
[ "${1:-}" = "--" ] && shift
if [ "$pairs" -lt 3 ]; then echo "need at least 3 pairs" >&2; exit 1; fi

root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
bin=$tmp/pgtrial
trap 'rm -rf "$tmp"' EXIT
(cd "$root" && go build -o "$bin" ./cmd/pgtrial)

if [ -z "$url" ] && "$bin" local url >/dev/null 2>&1; then
	url=$("$bin" local url)
fi
pgbench=$(command -v pgbench) || { echo "pgbench not found in PATH" >&2; exit 1; }
# Debian's /usr/bin/pgbench is a perl wrapper: time the real binary.
if [ "$(head -c 2 "$(readlink -f "$pgbench")")" = '#!' ]; then
	real=$(ls -d /usr/lib/postgresql/*/bin/pgbench 2>/dev/null | sort -V | tail -1 || true)
	[ -n "$real" ] && pgbench=$real
fi
command -v psql >/dev/null || { echo "psql not found in PATH" >&2; exit 1; }

# shellcheck source=bench/lib.sh
. "$root/bench/lib.sh"

admin=$(dburl "${url:-dbname=postgres}" postgres)
pgb=$(dburl "${url:-}" bench_pgbench)
pgt=$(dburl "${url:-}" bench_pgtrial)
tpcc=$(dburl "${url:-}" bench_tpcc)
for db in bench_pgbench bench_pgtrial bench_tpcc; do
	psql -X -q "$admin" -c "create database $db" 2>/dev/null || true
done
psql -X -At "$admin" -c "select 'server: ' || version()"
echo "pgbench: $("$pgbench" --version); pgtrial: $("$bin" version); scale $scale; $pairs pairs per case; $(nproc) CPUs"

now() { date +%s.%N; }
log=$tmp/log
# run TOOL PARTITIONS: one init of TOOL (pgbench -i or pgtrial init) with that many partitions.
run() {
	local -a p=()
	[ "$2" -gt 0 ] && p=(--partitions "$2")
	if [ "$1" = pgbench ]; then
		"$pgbench" -i -s "$scale" "${p[@]}" "$pgb" 2>"$log"
	else
		"$bin" init -s "$scale" "${p[@]}" "${extra[@]}" -d "$pgt" 2>"$log"
	fi
}
extra=("$@")
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
span() { printf '%s\n' "$@" | sort -g | awk 'NR == 1 {lo = $1} {hi = $1} END {printf "%.3f-%.3f", lo, hi}'; }
order() { if [ $(($1 % 2)) = 1 ]; then echo pgbench pgtrial; else echo pgtrial pgbench; fi; }

cases=(0)
declare -A target=([0]=0.9)
if [ "$parts" -gt 0 ]; then cases+=("$parts") target[$parts]=0.6; fi

# Warm-up (untimed): creates each tool's tables so that every timed run drops a full set.
for c in "${cases[@]}"; do
	for tool in pgbench pgtrial; do run $tool "$c" || { cat "$log"; exit 1; }; done
done

declare -A times ratios
for i in $(seq "$pairs"); do
	for c in "${cases[@]}"; do
		declare -A t=()
		for tool in $(order "$i"); do
			psql -X -q "$admin" -c checkpoint
			t0=$(now)
			run $tool "$c" || { cat "$log"; exit 1; }
			t[$tool]=$(echo "$(now) - $t0" | bc)
			times[$c,$tool]+="${t[$tool]} "
			printf '%d partitions=%-2s %-8s %6.3f s  %s\n' "$i" "$c" $tool "${t[$tool]}" "$(grep '^done in' "$log")"
		done
		ratios[$c]+="$(echo "${t[pgtrial]} / ${t[pgbench]}" | bc -l) "
	done
done

echo
for c in "${cases[@]}"; do
	# shellcheck disable=SC2086 # word splitting of the space-separated lists is meant
	{
		mb=$(median ${times[$c,pgbench]})
		mt=$(median ${times[$c,pgtrial]})
		mr=$(median ${ratios[$c]})
		sr=$(span ${ratios[$c]})
	}
	verdict=$(echo "$mr <= ${target[$c]}" | bc)
	[ "$verdict" = 1 ] && verdict="met" || verdict="NOT met"
	label="plain"
	[ "$c" -gt 0 ] && label="--partitions $c"
	printf '%-15s pgbench -i %.3f s, pgtrial init %.3f s (medians); ratio pgtrial/pgbench %.3f (min-max %s over %d pairs), target <= %s: %s\n' \
		"$label" "$mb" "$mt" "$mr" "$sr" "$pairs" "${target[$c]}" "$verdict"
done

# TPC-C load: only when this pgtrial knows the workload.
if [ "$warehouses" -gt 0 ]; then
	if ! "$bin" init --help 2>&1 | grep -q -- '--warehouses'; then
		echo "tpcc: skipped: this pgtrial's init has no -w tpcc --warehouses"
	else
		tinit() { "$bin" init -w tpcc --warehouses "$warehouses" -d "$tpcc" 2>"$log"; }
		tinit || { cat "$log"; exit 1; } # warm-up: creates the tables the timed run replaces
		psql -X -q "$admin" -c checkpoint
		t0=$(now)
		tinit || { cat "$log"; exit 1; }
		t=$(echo "$(now) - $t0" | bc)
		rows=0
		for rel in $(psql -X -At "$tpcc" -c "select format('%I.%I', schemaname, relname) from pg_stat_user_tables"); do
			rows=$((rows + $(psql -X -At "$tpcc" -c "select count(*) from $rel")))
		done
		printf 'tpcc %d warehouses: %d rows in %.3f s: %.0f rows/s  %s\n' \
			"$warehouses" "$rows" "$t" "$(echo "$rows / $t" | bc -l)" "$(grep '^done in' "$log" || true)"
	fi
fi
