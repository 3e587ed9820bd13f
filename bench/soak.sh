#!/usr/bin/env bash
# soak.sh: does pgtrial stay flat over a long run? A long open-model "pgtrial run" at half
# the capacity, with every collector and --txlog; its resident memory, open descriptors,
# threads and run directory sampled from outside once a minute.
#
# Usage: [SOAK_MINUTES=30] bench/soak.sh [-b BUILTIN] [-c CLIENTS] [-j THREADS] [-s SCALE] [-u URL]
#   SOAK_MINUTES  measured phase of the long run in minutes, default 30 (after a 10 s warm-up)
#   SOAK_SAMPLE_S seconds between samples, default 10 (the verdicts use per-minute medians)
#   SOAK_KEEP=1   keep the temporary directory (the run directory is in it)
#   -b BUILTIN    built-in workload, default select-only (the most transactions per second,
#                 so a per-transaction leak shows soonest)
#   -c CLIENTS    clients, default 4;  -j THREADS  client threads, default 2
#   -s SCALE      scale of the tables "pgtrial init" creates once, default 10
#   -u URL        server (loopback or unix socket); default $PGTRIAL_BENCH_URL, else the
#                 "pgtrial local" cluster (started if needed)
#
# The capacity: a 20 s closed-model run of the same workload (-M prepared, same -c and
# -j, --no-collect, 3 s warm-up); its tps from --json (achieved_rate: committed + failed
# per measured second). The soak runs the open model (--rate, Poisson arrivals) at
# rate = capacity / 2, -T SOAK_MINUTES m, all collectors (the default), --txlog.
#
# Sampled every SOAK_SAMPLE_S seconds from the start of the process, from outside:
#   rss_kB    VmRSS of /proc/PID/status
#   fds       entries of /proc/PID/fd
#   threads   Threads of /proc/PID/status (OS threads; see below)
#   dir_B     du -sb of the run directory
# Goroutines are not visible from outside, and pgtrial has no debug hook that would show
# them (no pprof or expvar server, no debug flag; SIGQUIT's goroutine dump ends the
# process): the OS thread count stands in for them, and a goroutine leak that does not
# also hold threads, memory or descriptors goes unseen.
#
# A single RSS sample lands anywhere in a garbage-collection cycle (the heap grows to
# twice the live heap before the next collection: a few MB here, ±10 % of the RSS), so
# the verdicts use each minute's median of its samples, not one sample a minute.
#
# Verdicts: RSS, descriptors and threads are flat when every minute's median from minute
# 3 on (the samples with 120 < t ≤ 180 s are minute 3) lies within ±10 % of minute 3's:
# PASS when 0.90 <= min/first and max/first <= 1.10; the raw samples' extremes are
# printed too. Trend: the least-squares slope of the RSS minute medians from minute 3 on,
# in % of minute 3's per hour (a leak shows as a steady slope, noise does not). The run
# directory's growth: the least-squares slope of dir_B over the sample times (bytes/s) ×
# 3600 = bytes per hour, and its final size per transaction.
# The long run is bounded: SIGINT at SOAK_MINUTES + 2 min, SIGKILL 30 s later.
set -euo pipefail

minutes=${SOAK_MINUTES:-30} every=${SOAK_SAMPLE_S:-10}
builtin=select-only clients=4 threads=2 scale=10 url="${PGTRIAL_BENCH_URL:-}"
while getopts "b:c:j:s:u:" opt; do
	case $opt in
	b) builtin=$OPTARG ;;
	c) clients=$OPTARG ;;
	j) threads=$OPTARG ;;
	s) scale=$OPTARG ;;
	u) url=$OPTARG ;;
	*) sed -n '5,15p' "$0"; exit 1 ;;
	esac
done
for v in "$minutes" "$every" "$clients" "$threads" "$scale"; do
	[[ $v =~ ^[1-9][0-9]*$ ]] || { echo "not a positive integer: $v" >&2; exit 1; }
done
if [ "$minutes" -lt 3 ]; then echo "SOAK_MINUTES must be at least 3 (the verdict starts at minute 2)" >&2; exit 1; fi
command -v psql >/dev/null || { echo "psql not found in PATH (apt-get install -y postgresql-client)" >&2; exit 1; }

root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
pid=
cleanup() {
	if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then kill -INT "$pid" 2>/dev/null || true; fi
	if [ "${SOAK_KEEP:-}" = 1 ]; then echo "kept $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
bin=$tmp/pgtrial
commit=$(git -C "$root" rev-parse HEAD 2>/dev/null || echo unknown)
(cd "$root" && go build -ldflags "-X main.commit=${commit:0:12}" -o "$bin" ./cmd/pgtrial)
if [ -z "$url" ]; then
	"$bin" local start >/dev/null
	url=$("$bin" local url)
fi
# shellcheck source=bench/lib.sh
. "$root/bench/lib.sh"
admin=$(dburl "$url" postgres)
where=$(psql -X -At "$admin" -c "select coalesce(host(inet_server_addr()), 'unix socket')
	|| case when inet_server_addr() is null or inet_server_addr() <<= '127.0.0.0/8'
	   or inet_server_addr() = '::1' then '' else ' NOT LOOPBACK' end")
if [[ $where == *"NOT LOOPBACK" ]]; then echo "server address $where: refusing (load goes to loopback only)" >&2; exit 1; fi
db=$(dburl "$url" bench_soak)
psql -X -q "$admin" -c "create database bench_soak" 2>/dev/null || true
"$bin" init -q -s "$scale" -d "$db" 2>"$tmp/init.err" || { cat "$tmp/init.err" >&2; exit 1; }
psql -X -q "$db" -c "create extension if not exists pg_stat_statements" 2>/dev/null || true

echo "== soak: pgtrial run, open model at half the capacity, all collectors, --txlog"
echo "commit:  $commit"
echo "server:  $(psql -X -At "$db" -c 'select version()') at $where"
echo "client:  $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
others=$(pgrep -x 'pgbench|pgtrial' | tr '\n' ' ' || true)
[ -n "$others" ] && echo "WARNING: other pgbench/pgtrial processes [${others% }] share the machine"
load=(-b "$builtin" -M prepared -c "$clients" -j "$threads")

# The capacity: 20 s closed model, tps from --json.
timeout --foreground -k 10 120 "$bin" run --closed "${load[@]}" -T 20s --warmup 3s --no-collect --quiet --json \
	--run-dir "$tmp/capacity" "$db" >"$tmp/capacity.json" 2>"$tmp/capacity.err" || {
	echo "capacity run failed:" >&2; cat "$tmp/capacity.err" >&2; exit 1; }
tps=$(sed -n 's/^  "achieved_rate": \([0-9.e+-]*\),*$/\1/p' "$tmp/capacity.json")
rate=$(awk -v t="$tps" 'BEGIN {printf "%d", t / 2}')
echo "capacity: $(printf '%.1f' "$tps") tps (20 s closed, ${load[*]}); soak rate $rate/s"
echo "options: ${load[*]} --rate $rate -T ${minutes}m --warmup 10s --txlog; sample every $every s"

run=$tmp/soak
"$bin" run "${load[@]}" --rate "$rate" -T "${minutes}m" --warmup 10s --txlog --quiet --json \
	--run-dir "$run" "$db" >"$tmp/soak.json" 2>"$tmp/soak.err" &
pid=$! start=$SECONDS
limit=$((minutes * 60 + 10 + 120))
printf '%6s %10s %6s %8s %14s\n' t_s rss_kB fds threads dir_B
: >"$tmp/samples"
next=$every
while kill -0 "$pid" 2>/dev/null; do
	if [ $((SECONDS - start)) -ge $limit ]; then
		echo "pgtrial still running at $limit s: SIGINT" >&2
		kill -INT "$pid" 2>/dev/null || true
		sleep 30
		kill -KILL "$pid" 2>/dev/null || true
		break
	fi
	if [ $((SECONDS - start)) -lt $next ]; then sleep 1; continue; fi
	t=$((SECONDS - start)) next=$((next + every))
	rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
	thr=$(awk '/^Threads:/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
	fds=$(find "/proc/$pid/fd" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l || true)
	[ -z "$rss" ] && break # it exited between the check and the sample
	du=$(du -sb "$run" 2>/dev/null | cut -f1)
	printf '%6s %10s %6s %8s %14s\n' "$t" "$rss" "$fds" "$thr" "$du" >>"$tmp/samples"
	# One row a minute on the terminal (every sample is in $tmp/samples).
	[ $(((t + every - 1) / 60)) != $(((t - 1) / 60)) ] && printf '%6s %10s %6s %8s %14s\n' "$t" "$rss" "$fds" "$thr" "$du"
done
rc=0; wait "$pid" || rc=$?
pid=
[ $rc = 0 ] || { echo "pgtrial run failed (exit $rc):" >&2; cat "$tmp/soak.err" >&2; exit 1; }
final=$(du -sb "$run" | cut -f1)

num() { sed -n "s/^  \"$1\": \([0-9.e+-]*\),*$/\1/p" "$tmp/soak.json" | head -1; }
# total FIELD: the "total" block's count (4 spaces deep; the scripts' blocks are deeper).
total() { sed -n "s/^    \"$1\": \([0-9]*\),*$/\1/p" "$tmp/soak.json" | head -1; }
committed=$(total committed)
echo
echo "run: exit 0, measured $(printf '%.1f' "$(num duration_s)") s, target $rate/s, achieved $(printf '%.1f' "$(num achieved_rate)")/s ($(awk -v a="$(num achieved_rate)" -v r="$rate" 'BEGIN {printf "%.3f", a / r}') of the target), committed ${committed:-?}, failed $(total failed), skipped $(total skipped), dropped $(total dropped)"

# minutes: each minute's median of every column (minute m holds 60(m−1) < t ≤ 60m),
# "minute rss fds threads" per line.
awk '{m = int(($1 + 59) / 60); n[m]++; for (c = 2; c <= 4; c++) v[m, c, n[m]] = $c; if (m > last) last = m}
	END {
		for (m = 1; m <= last; m++) {
			if (!n[m]) continue
			line = m
			for (c = 2; c <= 4; c++) {
				k = n[m]; for (i = 1; i <= k; i++) a[i] = v[m, c, i]
				for (i = 2; i <= k; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
				med = (k % 2) ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
				line = line " " med
			}
			print line
		}
	}' "$tmp/samples" >"$tmp/minutes"
# flat COLUMN NAME: the verdict over the minute medians from minute 3 on (column of
# $tmp/minutes) and the raw samples' extremes over the same span (column c-? of samples).
flat() {
	awk -v c="$1" -v name="$2" -v raw="$(awk -v c="$1" '$1 > 120 {if (n++ == 0) {lo = $c; hi = $c} if ($c < lo) lo = $c; if ($c > hi) hi = $c} END {printf "%s–%s", lo, hi}' "$tmp/samples")" '$1 >= 3 {
			v = $c; if (n++ == 0) {first = v; min = v; max = v}
			last = v; if (v < min) min = v; if (v > max) max = v
			x[n] = $1; y[n] = v }
		END {
			if (n < 2) {printf "%-8s too few minutes after minute 2 (%d)  FAIL\n", name, n; exit}
			ok = (min >= 0.90 * first && max <= 1.10 * first)
			for (i = 1; i <= n; i++) {sx += x[i]; sy += y[i]}
			xm = sx / n; ym = sy / n
			for (i = 1; i <= n; i++) {num += (x[i] - xm) * (y[i] - ym); den += (x[i] - xm) ^ 2}
			slope = (den > 0 && first > 0) ? num / den * 60 / first * 100 : 0
			printf "%-8s minute medians: first %s, last %s, max %s, min %s (minutes 3–%d): max/first %.3f, min/first %.3f, trend %+.1f %%/h; raw samples %s  %s (within ±10 %%)\n",
				name, first, last, max, min, x[n], max / first, min / first, slope, raw, ok ? "PASS" : "FAIL" }' "$tmp/minutes"
}
echo
echo "FLAT (each minute's median of its samples, minutes 3 on, against minute 3's; commit ${commit:0:12})"
flat 2 rss_kB
flat 3 fds
flat 4 threads
# Least squares over all samples: slope = Σ(t−t̄)(b−b̄) / Σ(t−t̄)², bytes/s.
awk -v final="$final" -v n_tx="${committed:-0}" '{t[NR] = $1; b[NR] = $5; st += $1; sb += $5}
	END {
		if (NR < 2) {print "growth   too few samples"; exit}
		tm = st / NR; bm = sb / NR
		for (i = 1; i <= NR; i++) {num += (t[i] - tm) * (b[i] - bm); den += (t[i] - tm) ^ 2}
		s = num / den
		printf "growth   run directory %.0f bytes/hour (%.1f MB/h; slope of %d samples), final %d bytes = %.1f bytes per committed transaction\n",
			s * 3600, s * 3600 / 1e6, NR, final, (n_tx > 0 ? final / n_tx : 0) }' "$tmp/samples"
