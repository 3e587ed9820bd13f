#!/usr/bin/env bash
# collect-overhead.sh: what the collectors cost the measured server. "pgtrial run" with
# every collector on (the default: wait sampling every 100 ms, pg_stat_statements at the
# phase marks, server counters and OS metrics every second) against --no-collect.
#
# Usage: bench/collect-overhead.sh [-n PAIRS] [-T SECONDS] [-s SCALE] [-u URL]
#   -n PAIRS    interleaved pairs (off, on), default 3 (at least 3)
#   -T SECONDS  measured phase of each run, default 20 (after a 3 s warm-up)
#   -s SCALE    scale of the tables "pgtrial init" creates once, default 10
#   -u URL      server (loopback or unix socket); default $PGTRIAL_BENCH_URL, else the
#               "pgtrial local" cluster (started if needed)
#
# Runs: pgtrial run --closed -b select-only -M prepared -c 4 -j 2 (select-only: the
# shortest transactions, so a fixed cost per second weighs most). tps of each run from
# --json (achieved_rate: committed / measured seconds); the verdict is the median of the
# pairs' ratios on/off (target >= 0.98).
set -euo pipefail

pairs=3 dur=20 scale=10 url="${PGTRIAL_BENCH_URL:-}"
while getopts "n:T:s:u:" opt; do
	case $opt in
	n) pairs=$OPTARG ;;
	T) dur=$OPTARG ;;
	s) scale=$OPTARG ;;
	u) url=$OPTARG ;;
	*) sed -n '2,12p' "$0"; exit 1 ;;
	esac
done
for v in "$pairs" "$dur" "$scale"; do
	[[ $v =~ ^[1-9][0-9]*$ ]] || { echo "not a positive integer: $v" >&2; exit 1; }
done
if [ "$pairs" -lt 3 ]; then echo "need at least 3 pairs" >&2; exit 1; fi
command -v psql >/dev/null || { echo "psql not found in PATH (apt-get install -y postgresql-client)" >&2; exit 1; }

root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin=$tmp/pgtrial
(cd "$root" && go build -o "$bin" ./cmd/pgtrial)
if [ -z "$url" ]; then
	"$bin" local start >/dev/null
	url=$("$bin" local url)
fi
# shellcheck source=bench/lib.sh
. "$root/bench/lib.sh"
admin=$(dburl "$url" postgres)
db=$(dburl "$url" bench_collect)
psql -X -q "$admin" -c "create database bench_collect" 2>/dev/null || true
"$bin" init -q -s "$scale" -d "$db" 2>"$tmp/init.err" || { cat "$tmp/init.err" >&2; exit 1; }
psql -X -q "$db" -c "create extension if not exists pg_stat_statements" 2>/dev/null || true

echo "== collect-overhead: pgtrial run with collectors against --no-collect"
echo "server:  $(psql -X -At "$db" -c 'select version()')"
echo "client:  $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "options: $pairs pairs, -T $dur s after 3 s of warm-up, scale $scale"
printf '%-6s %-8s %12s  %s\n' pair mode tps collectors
ratios=
for i in $(seq "$pairs"); do
	modes="off on"
	[ $((i % 2)) = 0 ] && modes="on off" # A B, B A, …: the order's own effect cancels
	for mode in $modes; do
		args=(run --closed -b select-only -M prepared -c 4 -j 2 -T "$dur" --warmup 3s --quiet --json --run-dir "$tmp/run-$mode-$i" "$db")
		[ $mode = off ] && args+=(--no-collect)
		timeout --foreground -k 10 $((dur + 90)) "$bin" "${args[@]}" >"$tmp/$mode.json" 2>"$tmp/$mode.err" || {
			echo "pgtrial failed ($mode):" >&2; cat "$tmp/$mode.err" >&2; exit 1; }
		tps=$(sed -n 's/^  "achieved_rate": \([0-9.e+-]*\),*$/\1/p' "$tmp/$mode.json")
		cols=$(sed -n 's/.*"collectors": \[\(.*\)\].*/\1/p' "$tmp/run-$mode-$i/run.json" | tr -d '" ')
		[ -z "$cols" ] && cols=$(tr -d '\n ' <"$tmp/run-$mode-$i/run.json" | sed -n 's/.*"collectors":\[\([^]]*\)\].*/\1/p' | tr -d '"')
		printf '%-6s %-8s %12.1f  %s\n' "$i" "$mode" "$tps" "${cols:--}"
		eval "tps_$mode=\$tps"
	done
	# shellcheck disable=SC2154
	ratios+="$(awk -v a="$tps_on" -v b="$tps_off" 'BEGIN {printf "%.4f", a / b}') "
done
# shellcheck disable=SC2086
r=$(printf '%s\n' $ratios | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}')
mark=$(awk -v r="$r" 'BEGIN {print (r >= 0.98 ? "PASS" : "MISS")}')
echo
echo "RATIO tps on/off (median of pairs' ratios: $ratios) = $r  $mark  (target ≥ 0.98)"
