#!/usr/bin/env bash
# init-vs-pgbench.sh: wall time of "pgtrial init" against "pgbench -i" on one cluster.
#
# Usage: bench/init-vs-pgbench.sh [-n PAIRS] [-s SCALE] [-u URL] [-- EXTRA_INIT_ARGS...]
#   -n PAIRS  interleaved pairs (pgbench, pgtrial), default 5 (at least 3)
#   -s SCALE  scale factor, default 20
#   -u URL    server URL (any database on it); default $PGTRIAL_BENCH_URL, else the
#             "pgtrial local" cluster ("pgtrial local url"), else libpq's environment.
#
# Each tool owns a database (bench_pgbench, bench_pgtrial), so pgtrial's refusal to drop
# tables it did not create never interferes, and both run in steady state: the tables of
# the previous round exist and are dropped by the run. One untimed warm-up run of each
# tool creates them. A CHECKPOINT runs before every timed run, so neither inherits the
# other's dirty buffers or WAL. Wall time is taken around the whole process.
# Prints every run, each tool's median and the ratio pgtrial/pgbench (medians).
set -euo pipefail

pairs=5 scale=20 url="${PGTRIAL_BENCH_URL:-}"
while getopts "n:s:u:" opt; do
	case $opt in
	n) pairs=$OPTARG ;;
	s) scale=$OPTARG ;;
	u) url=$OPTARG ;;
	*) sed -n '2,10p' "$0"; exit 1 ;;
	esac
done
shift $((OPTIND - 1))
[ "${1:-}" = "--" ] && shift
if [ "$pairs" -lt 3 ]; then echo "need at least 3 pairs" >&2; exit 1; fi

root=$(cd "$(dirname "$0")/.." && pwd)
bin=$(mktemp -d)/pgtrial
trap 'rm -rf "$(dirname "$bin")"' EXIT
(cd "$root" && go build -o "$bin" ./cmd/pgtrial)

if [ -z "$url" ] && "$bin" local url >/dev/null 2>&1; then
	url=$("$bin" local url)
fi
command -v pgbench >/dev/null || { echo "pgbench not found in PATH" >&2; exit 1; }
command -v psql >/dev/null || { echo "psql not found in PATH" >&2; exit 1; }

# shellcheck source=bench/lib.sh
. "$root/bench/lib.sh"

admin=$(dburl "${url:-dbname=postgres}" postgres)
pgb=$(dburl "${url:-}" bench_pgbench)
pgt=$(dburl "${url:-}" bench_pgtrial)
for db in bench_pgbench bench_pgtrial; do
	psql -X -q "$admin" -c "create database $db" 2>/dev/null || true
done
psql -X -At "$admin" -c "select 'server: ' || version()"
echo "pgbench: $(pgbench --version); pgtrial: $("$bin" version); scale $scale; $pairs pairs"

now() { date +%s.%N; }
run_pgbench() { pgbench -i -s "$scale" "$@" "$pgb" 2>"$log"; }
run_pgtrial() { "$bin" init -s "$scale" "$@" -d "$pgt" 2>"$log"; }
log=$(mktemp)

# Warm-up (untimed): creates each tool's tables so that every timed run drops a full set.
run_pgbench || { cat "$log"; exit 1; }
run_pgtrial "$@" || { cat "$log"; exit 1; }

declare -a tb tt
for i in $(seq "$pairs"); do
	for tool in pgbench pgtrial; do
		psql -X -q "$admin" -c checkpoint
		t0=$(now)
		if [ $tool = pgbench ]; then run_pgbench; else run_pgtrial "$@"; fi || { cat "$log"; exit 1; }
		t=$(echo "$(now) - $t0" | bc)
		if [ $tool = pgbench ]; then tb+=("$t"); else tt+=("$t"); fi
		printf '%d %-8s %6.3f s  %s\n' "$i" $tool "$t" "$(grep '^done in' "$log")"
	done
done
rm -f "$log"

median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
mb=$(median "${tb[@]}")
mt=$(median "${tt[@]}")
printf 'median pgbench -i: %.3f s\nmedian pgtrial init: %.3f s\nratio pgtrial/pgbench: %.3f\n' \
	"$mb" "$mt" "$(echo "$mt / $mb" | bc -l)"
