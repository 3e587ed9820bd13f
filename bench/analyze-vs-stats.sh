#!/usr/bin/env bash
# analyze-vs-stats.sh: "pgtrial analyze" against the seed's stats.py (seed 000: the
# percentiles of pgbench -l logs by a sort in Python) on the same generated log, in one
# run: the wall time of each, their p50/p95/p99/max (which must be identical: both take
# the nearest rank v[ceil(n*q/100)-1] of the sorted latencies), the time ratio and
# pgtrial's peak resident memory.
#
# Usage: bench/analyze-vs-stats.sh [-n LINES] [-j THREADS] [-d DIR]
#   -n LINES    lines of the log, default 10000000
#   -j THREADS  files (pgbench threads) the lines are split into, default 8
#   -d DIR      where the log goes (default a new temporary directory, removed at the end)
#
# The log is written by bench/analyze-genlog.go (deterministic: the same arguments give
# the same files; -R -L format, 7 columns, 1 % skipped and 0.1 % failed lines). Targets:
# time ratio stats.py/pgtrial >= 10, identical percentiles, pgtrial's max RSS < 100 MB.
# Needs python3 and /usr/bin/time (GNU time, for the maximum resident set size).
set -euo pipefail

lines=10000000 threads=8 dir=""
while getopts "n:j:d:" opt; do
	case $opt in
	n) lines=$OPTARG ;;
	j) threads=$OPTARG ;;
	d) dir=$OPTARG ;;
	*) sed -n '2,16p' "$0"; exit 1 ;;
	esac
done
for v in "$lines" "$threads"; do
	[[ $v =~ ^[1-9][0-9]*$ ]] || { echo "not a positive integer: $v" >&2; exit 1; }
done
command -v python3 >/dev/null || { echo "needs python3" >&2; exit 1; }
[[ -x /usr/bin/time ]] || { echo "needs GNU time as /usr/bin/time (apt-get install time)" >&2; exit 1; }

root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [[ -z $dir ]]; then dir=$work/log; fi
mkdir -p "$dir"

echo "building pgtrial"
(cd "$root" && go build -o "$work/pgtrial" ./cmd/pgtrial)

# stats.py, verbatim from seed 000 ("Нагрузочное тестирование PostgreSQL честно: pgbench,
# прогрев, перцентили и coordinated omission", Справочник DBA, article 14.3), which reads
# the logs on stdin: cat pgbench_log.* | python3 -I stats.py
cat >"$work/stats.py" <<'PY'
import sys
v = sorted(int(f[2]) for f in map(str.split, sys.stdin) if len(f) > 2 and f[2].isdigit())
p = lambda q: v[-(-len(v) * q // 100) - 1] / 1000
print(f"n={len(v)} mean={sum(v)/len(v)/1000:.1f} p50={p(50):.1f} p95={p(95):.1f} p99={p(99):.1f} max={v[-1]/1000:.1f} мс")
PY

echo "generating $lines lines in $threads files"
(cd "$root" && go run bench/analyze-genlog.go "$dir" "$lines" "$threads")
files=("$dir"/pgbench_log.*)
du -ch "${files[@]}" | tail -1
cat "${files[@]}" >/dev/null # both read from the page cache

now() { date +%s.%N; }
echo "stats.py"
t0=$(now)
stats=$(cat "${files[@]}" | /usr/bin/time -v -o "$work/time-py.txt" python3 -I "$work/stats.py")
t1=$(now)
echo "  $stats"

echo "pgtrial analyze"
t2=$(now)
/usr/bin/time -v -o "$work/time.txt" "$work/pgtrial" analyze --json --dir "$work/run" "${files[@]}" >"$work/summary.json"
t3=$(now)
rss_kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$work/time.txt")
cpu() { awk -F': ' '/User time|System time/ {s += $2} END {printf "%.2f", s}' "$1"; }
cpu_py=$(cpu "$work/time-py.txt") cpu_ours=$(cpu "$work/time.txt")
ours=$(python3 - "$work/summary.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["total"]
r = s["response_ms"]
print(f"n={s['committed']} mean={r['mean']:.1f} p50={r['p50']:.1f} p95={r['p95']:.1f} p99={r['p99']:.1f} max={r['max']:.1f} мс")
print(f"exact µs: p50={r['p50']*1000:.0f} p95={r['p95']*1000:.0f} p99={r['p99']*1000:.0f} max={r['max']*1000:.0f}")
PY
)
echo "  ${ours%%$'\n'*}"
echo "  ${ours#*$'\n'}"

ts=$(echo "$t1 - $t0" | bc -l)
ta=$(echo "$t3 - $t2" | bc -l)
ratio=$(echo "$ts / $ta" | bc -l)
same=MISS
[[ ${stats} == "${ours%%$'\n'*}" ]] && same=PASS
echo
echo "RESULTS ($lines lines, $threads files, $(nproc) CPUs, load average $(cut -d' ' -f1 /proc/loadavg))"
printf '  stats.py         %8.2f s (CPU %s s)\n' "$ts" "$cpu_py"
printf '  pgtrial analyze  %8.2f s (CPU %s s)\n' "$ta" "$cpu_ours"
printf '  ratio            %8.1f x   %s (target >= 10)\n' "$ratio" "$( (( $(echo "$ratio >= 10" | bc -l) )) && echo PASS || echo MISS)"
printf '  percentiles      identical  %s\n' "$same"
printf '  pgtrial max RSS  %8.1f MB  %s (target < 100)\n' "$(echo "$rss_kb / 1024" | bc -l)" "$( (( rss_kb < 102400 )) && echo PASS || echo MISS)"
