#!/usr/bin/env bash
# vs-pgbench.sh: "pgtrial pgbench" against the real pgbench on one local cluster.
#
# Usage: bench/vs-pgbench.sh [-n PAIRS] [-a PAIRS] [-t XACTS] [-T SECONDS] [-s SCALE] [-u URL] [--memory]
#   -n PAIRS    interleaved pairs (pgbench, pgtrial) of (b) and (c), default 3 (at least 3)
#   -a PAIRS    interleaved pairs of (a), default 15 (at least 3; see below)
#   -t XACTS    transactions per client in (a), default 25000 (4 clients: 100,000 a run)
#   -T SECONDS  duration of each (b) and (c) run, default 20
#   -s SCALE    scale factor of the tables "pgtrial init" creates once, default 10
#               (1,000,000 accounts: fits shared_buffers, so select-only is CPU-bound)
#   -u URL      server (any database on it; must be loopback or a unix socket); default
#               $PGTRIAL_BENCH_URL, else the "pgtrial local" cluster (started if needed)
#   --memory    also run (d): 330 s of select-only, pgtrial's RSS at 60 s and 300 s (+6 min)
#
# Figures (both tools get the same options, the same database and -n; the runs of a pair
# follow each other, pgbench first in odd pairs and pgtrial first in even ones; a pair's
# ratio pgtrial/pgbench cancels the machine's drift, and the verdict is the median of the
# pairs' ratios):
#   (a) -S -M prepared -c 4 -j 2 -n -t XACTS: client CPU (user+sys of the tool's process,
#       from its rusage, not the server's) per transaction in µs, and tps.
#       Targets: pgtrial CPU/tx <= 1.00 x pgbench, tps >= 0.97 x pgbench.
#   (c) open model, -S -M prepared -c 4 -j 2 -n -T SECONDS -R RATE -l: RATE is half of
#       pgbench's median tps in (a), the same for both tools. Achieved rate = processed /
#       duration (report); schedule lag p50 and p99 (µs) from the per-transaction logs
#       (7th column). Targets: achieved within ±1 % of RATE, pgtrial lag p50 < 100 µs.
#   (b) tpcb-like, -c 4 -j 2 -n -T SECONDS: tps. Target: >= 0.97 x pgbench. It runs after
#       (c) because its updates leave dead tuples and a growing history table behind.
#   (d) --memory only: pgtrial pgbench -S -M prepared -c 4 -j 2 -n -T 330; VmRSS at 60 s
#       and 300 s. Targets: both < 100 MB, 300 s within 10 % of 60 s.
# (a) has more pairs than the others because its figure is a small difference of noisy
# ones: on a shared 2-core VM one pair's CPU ratio scatters by ±15 % (the host's load
# changes from one run to the next), so the median of 3 pairs could not tell 0.95 from
# 1.05; with 15 short pairs its standard error is ~4 %. The verdict line also gives the
# interquartile range of the pairs' ratios and in how many pairs pgtrial was the lower.
# Between runs the server is left alone (no CHECKPOINT, no VACUUM: -n). A 3 s select-only
# warm-up of each tool precedes the first pair. Every run is bounded by "timeout".
# Default duration: about 6 minutes (12 with --memory).
set -euo pipefail

pairs=3 apairs=15 xacts=25000 dur=20 scale=10 url="${PGTRIAL_BENCH_URL:-}" memory=0
usage() { sed -n '2,12p' "$0" >&2; exit 1; }
while [ $# -gt 0 ]; do
	case $1 in
	-n) pairs=${2:?}; shift ;;
	-a) apairs=${2:?}; shift ;;
	-t) xacts=${2:?}; shift ;;
	-T) dur=${2:?}; shift ;;
	-s) scale=${2:?}; shift ;;
	-u) url=${2:?}; shift ;;
	--memory) memory=1 ;;
	*) usage ;;
	esac
	shift
done
for v in "$pairs" "$apairs" "$xacts" "$dur" "$scale"; do
	[[ $v =~ ^[1-9][0-9]*$ ]] || { echo "not a positive integer: $v" >&2; usage; }
done
if [ "$pairs" -lt 3 ] || [ "$apairs" -lt 3 ]; then echo "need at least 3 pairs" >&2; exit 1; fi

if ! command -v pgbench >/dev/null; then
	cat >&2 <<-'EOF'
		pgbench not found in PATH. Install it (as root) with "make postgres", or:
		  apt-get update && apt-get install -y postgresql-client postgresql-contrib
	EOF
	exit 1
fi
# The real pgbench binary: Debian's /usr/bin/pgbench is a perl wrapper (pg_wrapper) that
# execs /usr/lib/postgresql/<newest>/bin/pgbench, and perl's start-up (~50 ms of CPU) would
# be charged to pgbench's rusage. Run what the wrapper runs, directly.
pgbench=$(command -v pgbench)
if [ "$(head -c 2 "$(readlink -f "$pgbench")")" = '#!' ]; then
	real=$(ls -d /usr/lib/postgresql/*/bin/pgbench 2>/dev/null | sort -V | tail -1 || true)
	[ -n "$real" ] && pgbench=$real
fi
command -v psql >/dev/null || { echo "psql not found in PATH (apt-get install -y postgresql-client)" >&2; exit 1; }
command -v timeout >/dev/null || { echo "timeout (coreutils) not found in PATH" >&2; exit 1; }

root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
bin=$tmp/pgtrial
mempid=
cleanup() {
	if [ -n "$mempid" ] && kill -0 "$mempid" 2>/dev/null; then kill "$mempid" 2>/dev/null || true; fi
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
commit=$(git -C "$root" rev-parse HEAD 2>/dev/null || echo unknown)
(cd "$root" && go build -ldflags "-X main.commit=${commit:0:12}" -o "$bin" ./cmd/pgtrial)

if [ -z "$url" ]; then
	"$bin" local start >/dev/null
	url=$("$bin" local url)
fi

# shellcheck source=bench/lib.sh
. "$root/bench/lib.sh"

# Loopback only: the host named in the URL (none means libpq's unix socket), then where
# the server says we are connected (inet_server_addr() is NULL over a unix socket).
hosts=$(
	if [[ $url == postgres://* || $url == postgresql://* ]]; then
		h=${url#*://}; h=${h%%[/?]*}; h=${h##*@}
		[[ $h == \[* ]] && h=${h%%]*} && h=${h#[}
		[[ $h == \[* || $h == *:*:* ]] || h=${h%%:*}
		echo "${h//,/ }"
		q=${url#*\?}; [[ $q == "$url" ]] || tr '&' '\n' <<<"$q" | sed -n 's/^\(host\|hostaddr\)=//p'
	else
		tr ' ' '\n' <<<"$url" | sed -n 's/^\(host\|hostaddr\)=//p'
	fi
)
for h in $hosts; do
	h=${h//%2F//}; h=${h//%2f//}
	case $h in
	127.* | localhost | ::1 | /*) ;;
	*) echo "refusing a non-loopback host: $h (this benchmark runs against a local server)" >&2; exit 1 ;;
	esac
done
admin=$(dburl "$url" postgres)
where=$(psql -X -At "$admin" -c "select coalesce(host(inet_server_addr()), 'unix socket')
	|| case when inet_server_addr() is null or inet_server_addr() <<= '127.0.0.0/8'
	   or inet_server_addr() = '::1' then '' else ' NOT LOOPBACK' end")
if [[ $where == *"NOT LOOPBACK" ]]; then echo "server address $where: refusing" >&2; exit 1; fi

db=$(dburl "$url" bench_vs)
psql -X -q "$admin" -c "create database bench_vs" 2>/dev/null || true

echo "== vs-pgbench: pgtrial pgbench against pgbench"
echo "commit:  $commit$( [ -n "$(git -C "$root" status --porcelain --untracked-files=no 2>/dev/null)" ] && echo ' (working tree has uncommitted changes: the build includes them)')"
echo "pgbench: $("$pgbench" --version) ($pgbench)"
echo "pgtrial: $("$bin" version)"
psql -X -At "$db" -c "select 'server:  ' || version()"
echo "client:  $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg); server at $where, database bench_vs"
echo "options: $apairs pairs in (a), $pairs in (b) and (c), -t $xacts per client, -T $dur s, scale $scale$( [ $memory = 1 ] && echo ', --memory')"

# others: warn when something else uses the machine: another load generator, another
# active session on the server, or CPU busy while this script runs nothing (sampled over
# 1 s from /proc/stat; go test binaries and their clusters show up only there).
others() {
	local p a busy
	p=$(pgrep -x 'pgbench|pgtrial' | tr '\n' ' ' || true)
	a=$(psql -X -At "$admin" -c "select count(*) from pg_stat_activity
		where state = 'active' and pid <> pg_backend_pid() and backend_type = 'client backend'")
	busy=$({ sed -n 's/^cpu  //p' /proc/stat; sleep 1; sed -n 's/^cpu  //p' /proc/stat; } |
		awk '{t = 0; for (i = 1; i <= 8; i++) t += $i; tot[NR] = t; idle[NR] = $4 + $5}
			END {printf "%d", 100 * (1 - (idle[2] - idle[1]) / (tot[2] - tot[1] + (tot[2] == tot[1])))}')
	if [ -n "$p" ] || [ "$a" != 0 ] || [ "$busy" -gt 15 ]; then
		echo "WARNING: not alone: CPU ${busy}% busy while idle here, other pgbench/pgtrial processes [${p% }], $a other active sessions; the figures below are skewed"
	fi
}

echo "initializing: pgtrial init -s $scale (once)"
"$bin" init -q -s "$scale" -d "$db" 2>"$tmp/init.err" || { cat "$tmp/init.err" >&2; exit 1; }
grep '^done in' "$tmp/init.err" || true

# bench TOOL TAG LIMIT ARGS...: one run of TOOL's benchmark, bounded by LIMIT seconds.
# Leaves the report in $tmp/TAG.out, stderr in TAG.err, and "real user sys" (seconds,
# from bash's time: the child's rusage, every thread of it) in TAG.time.
bench() {
	local tool=$1 tag=$2 limit=$3
	shift 3
	local -a cmd=("$pgbench")
	[ "$tool" = pgtrial ] && cmd=("$bin" pgbench)
	local rc=0 TIMEFORMAT='%3R %3U %3S'
	{ time timeout --foreground -k 10 "$limit" "${cmd[@]}" "$@" "$db" >"$tmp/$tag.out" 2>"$tmp/$tag.err"; } 2>"$tmp/$tag.time" || rc=$?
	if [ $rc -ne 0 ]; then
		echo "$tool failed (exit $rc$([ $rc = 124 ] && echo ": timed out after $limit s")): ${cmd[*]} $* $db" >&2
		cat "$tmp/$tag.out" "$tmp/$tag.err" >&2
		exit 1
	fi
}
report() { sed -n "s/^$2 *[=:] *\([0-9.]*\).*/\1/p" "$tmp/$1.out" | head -1; }
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
span() { printf '%s\n' "$@" | sort -g | awk 'NR == 1 {lo = $1} {hi = $1} END {printf "%.2f-%.2f", lo, hi}'; } # span VALUES: min-max
# iqr VALUES: the quartiles (nearest rank), "q1-q3"
iqr() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {a = int((NR + 3) / 4); b = NR + 1 - a; printf "%.2f-%.2f", v[a], v[b]}'; }
# below VALUES LIMIT: how many values are <= LIMIT
below() { local l=${*: -1}; printf '%s\n' "${@:1:$#-1}" | awk -v l="$l" '$1 <= l {k++} END {print k + 0}'; }
f() { printf "%.${1}f" "$2"; } # f DECIMALS NUMBER
div() { awk -v a="$1" -v b="$2" 'BEGIN {if (b == 0) print "nan"; else printf "%.4f", a / b}'; }
# shape TAG: the report with numbers masked, to compare the tools' line structure.
shape() { sed -E 's/[0-9]+(\.[0-9]+)?/#/g' "$tmp/$1.out"; }
# differences TAG_PGBENCH TAG_PGTRIAL: report lines (numbers masked) and stderr that differ.
differences() {
	local d
	d=$(diff <(shape "$1") <(shape "$2") | grep '^[<>]' | sed 's/^</  pgbench:/; s/^>/  pgtrial:/' || true)
	[ -n "$d" ] && printf '  report lines that differ (numbers masked as #):\n%s\n' "$d"
	local t
	for t in "$1" "$2"; do
		[ -s "$tmp/$t.err" ] && printf '  stderr of %s:\n%s\n' "${t%%_*}" "$(sed 's/^/    /' "$tmp/$t.err" | head -20)"
	done
	return 0
}

# order PAIR: the pair's two tools, pgbench first in odd pairs and pgtrial first in even
# ones (A B, B A, A B, …): whatever favours the first or the second run of a pair (the
# host's CPU credit, caches, the other run's after-effects) falls on both tools equally.
order() { if [ $(($1 % 2)) = 1 ]; then echo pgbench pgtrial; else echo pgtrial pgbench; fi; }

sel=(-S -M prepared -c 4 -j 2 -n)
echo
others
echo "warm-up: 3 s select-only each"
bench pgbench warm_pgbench 60 "${sel[@]}" -T 3
bench pgtrial warm_pgtrial 60 "${sel[@]}" -T 3

# (a) closed model, fixed transaction count: client CPU per transaction and tps.
echo
echo "(a) select-only, ${sel[*]} -t $xacts"
fa='%-6s %-8s %8s %8s %8s %10s %12s\n'
printf "$fa" pair tool wall_s user_s sys_s cpu_us/tx tps
declare -A A_cpu A_tps
A_rcpu= A_rtps=
for i in $(seq "$apairs"); do
	for tool in $(order "$i"); do
		tag=${tool}_a$i
		bench $tool "$tag" 600 "${sel[@]}" -t "$xacts"
		read -r real user sys <"$tmp/$tag.time"
		n=$(report "$tag" 'number of transactions actually processed')
		tps=$(report "$tag" tps)
		cpu=$(awk -v u="$user" -v s="$sys" -v n="$n" 'BEGIN {printf "%.3f", (u + s) * 1e6 / n}')
		A_cpu[$tool]+="$cpu " A_tps[$tool]+="$tps "
		printf "$fa" "$i" $tool "$real" "$user" "$sys" "$cpu" "$(f 1 "$tps")"
		eval "${tool}_cpu=\$cpu ${tool}_tps=\$tps"
	done
	# shellcheck disable=SC2154
	A_rcpu+="$(div "$pgtrial_cpu" "$pgbench_cpu") " A_rtps+="$(div "$pgtrial_tps" "$pgbench_tps") "
	if [ "$i" = 1 ]; then differences pgbench_a1 pgtrial_a1; fi
done
# shellcheck disable=SC2086
{
	a_cpu_b=$(median ${A_cpu[pgbench]}) a_cpu_t=$(median ${A_cpu[pgtrial]})
	a_tps_b=$(median ${A_tps[pgbench]}) a_tps_t=$(median ${A_tps[pgtrial]})
}
printf "$fa" median pgbench "" "" "" "$(f 3 "$a_cpu_b")" "$(f 1 "$a_tps_b")" median pgtrial "" "" "" "$(f 3 "$a_cpu_t")" "$(f 1 "$a_tps_t")"

# (c) open model at half of pgbench's closed tps: achieved rate and schedule lag.
rate=$(awk -v t="$a_tps_b" 'BEGIN {printf "%d", t / 2}')
echo
others
echo "(c) open model, ${sel[*]} -T $dur -R $rate -l (rate = pgbench's median tps in (a) / 2)"
fc='%-6s %-8s %10s %12s %12s %10s %10s %10s\n'
printf "$fc" pair tool processed achieved/s achv/target lag_p50_us lag_p99_us lag_max_us
declare -A C_rate C_p50 C_p99
for i in $(seq "$pairs"); do
	for tool in $(order "$i"); do
		tag=${tool}_c$i
		bench $tool "$tag" $((dur + 60)) "${sel[@]}" -T "$dur" -R "$rate" -l --log-prefix "$tmp/log_$tag"
		n=$(report "$tag" 'number of transactions actually processed')
		d=$(report "$tag" duration)
		achieved=$(awk -v n="$n" -v d="$d" 'BEGIN {printf "%.1f", n / d}')
		# Nearest-rank percentiles of the schedule lag (µs) over every logged transaction
		# (rows whose time is "skipped" or "failed" have no lag and are left out).
		read -r p50 p99 pmax < <(cat "$tmp/log_$tag".* | awk '$3 ~ /^[0-9]+$/ {print $7}' | sort -n |
			awk '{v[NR]=$1} END {if (NR == 0) {print "nan nan nan"; exit}
				i50 = int(NR*0.50); if (i50 < NR*0.50) i50++; i99 = int(NR*0.99); if (i99 < NR*0.99) i99++
				print v[i50], v[i99], v[NR]}')
		rm -f "$tmp/log_$tag".*
		C_rate[$tool]+="$achieved " C_p50[$tool]+="$p50 " C_p99[$tool]+="$p99 "
		printf "$fc" "$i" $tool "$n" "$achieved" "$(f 4 "$(div "$achieved" "$rate")")" "$p50" "$p99" "$pmax"
	done
	if [ "$i" = 1 ]; then differences pgbench_c1 pgtrial_c1; fi
done
# shellcheck disable=SC2086
{
	c_rate_b=$(median ${C_rate[pgbench]}) c_rate_t=$(median ${C_rate[pgtrial]})
	c_p50_b=$(median ${C_p50[pgbench]}) c_p50_t=$(median ${C_p50[pgtrial]})
	c_p99_b=$(median ${C_p99[pgbench]}) c_p99_t=$(median ${C_p99[pgtrial]})
}
for tool in pgbench pgtrial; do
	if [ $tool = pgbench ]; then r=$c_rate_b p5=$c_p50_b p9=$c_p99_b; else r=$c_rate_t p5=$c_p50_t p9=$c_p99_t; fi
	printf "$fc" median $tool "" "$(f 1 "$r")" "$(f 4 "$(div "$r" "$rate")")" "$p5" "$p9" ""
done

# (b) tpcb-like, closed model, fixed duration: tps.
echo
others
echo "(b) tpcb-like, -c 4 -j 2 -n -T $dur"
fb='%-6s %-8s %10s %12s %14s\n'
printf "$fb" pair tool processed tps latency_avg_ms
declare -A B_tps
B_rtps=
for i in $(seq "$pairs"); do
	for tool in $(order "$i"); do
		tag=${tool}_b$i
		bench $tool "$tag" $((dur + 60)) -c 4 -j 2 -n -T "$dur"
		n=$(report "$tag" 'number of transactions actually processed')
		tps=$(report "$tag" tps)
		B_tps[$tool]+="$tps "
		printf "$fb" "$i" $tool "$n" "$(f 1 "$tps")" "$(report "$tag" 'latency average')"
		eval "${tool}_tps=\$tps"
	done
	B_rtps+="$(div "$pgtrial_tps" "$pgbench_tps") "
	if [ "$i" = 1 ]; then differences pgbench_b1 pgtrial_b1; fi
done
# shellcheck disable=SC2086
b_tps_b=$(median ${B_tps[pgbench]}) b_tps_t=$(median ${B_tps[pgtrial]})
printf "$fb" median pgbench "" "$(f 1 "$b_tps_b")" "" median pgtrial "" "$(f 1 "$b_tps_t")" ""

# (d) pgtrial's resident memory over a long run: it must not grow with the run's length.
if [ $memory = 1 ]; then
	echo
	others
	echo "(d) memory, pgtrial pgbench ${sel[*]} -T 330: VmRSS at 60 s and 300 s"
	"$bin" pgbench "${sel[@]}" -T 330 "$db" >"$tmp/mem.out" 2>"$tmp/mem.err" &
	mempid=$! start=$SECONDS
	rss() { # rss SECONDS: VmRSS in kB once the run is SECONDS old
		while [ $((SECONDS - start)) -lt "$1" ]; do sleep 1; done
		local kb
		kb=$(awk '/^VmRSS:/ {print $2}' "/proc/$mempid/status" 2>/dev/null || true)
		if [ -z "$kb" ]; then
			echo "pgtrial exited before $1 s:" >&2
			cat "$tmp/mem.out" "$tmp/mem.err" >&2
			return 1
		fi
		echo "$kb"
	}
	rss60=$(rss 60)
	echo "  VmRSS at  60 s: $rss60 kB"
	rss300=$(rss 300)
	echo "  VmRSS at 300 s: $rss300 kB"
	while kill -0 "$mempid" 2>/dev/null && [ $((SECONDS - start)) -lt 400 ]; do sleep 1; done
	if kill -0 "$mempid" 2>/dev/null; then echo "pgtrial still running at 400 s: killed" >&2; kill "$mempid"; fi
	rc=0; wait "$mempid" || rc=$?
	mempid=
	[ $rc = 0 ] || { echo "pgtrial pgbench failed (exit $rc):" >&2; cat "$tmp/mem.out" "$tmp/mem.err" >&2; exit 1; }
	echo "  tps $(sed -n 's/^tps = \([0-9.]*\).*/\1/p' "$tmp/mem.out")"
fi

# mark VALUE OP LIMIT [LIMIT2]: PASS or MISS (OP: le, ge, lt, within).
mark() {
	awk -v v="$1" -v op="$2" -v l="$3" -v h="${4:-0}" 'BEGIN {
		ok = (op == "le" && v <= l) || (op == "ge" && v >= l) || (op == "lt" && v < l) ||
		     (op == "within" && v >= l && v <= h)
		print (v == "nan" ? "MISS" : ok ? "PASS" : "MISS") }'
}
# line NAME WHAT VALUE MARK [TARGET]: one figure of the RATIOS block (the padded fields are
# ASCII, so the columns line up whatever a terminal makes of "≤" and "µ").
line() { printf '%-13s %-24s = %8s  %-4s  %s\n' "$@"; }
# The verdicts use the median of the per-pair ratios: the two runs of a pair share the
# machine's state (this VM's speed drifts by tens of percent within minutes), so a pair's
# ratio cancels the drift that a ratio of two medians keeps. Both are printed.
# shellcheck disable=SC2086
r_cpu=$(median $A_rcpu) r_atps=$(median $A_rtps) r_btps=$(median $B_rtps)
ach_t=$(div "$c_rate_t" "$rate") ach_b=$(div "$c_rate_b" "$rate")
echo
echo "RATIOS (pgtrial/pgbench: median of the pairs' ratios ($apairs in (a), $pairs in (b)), then their range and the ratio of the medians; commit ${commit:0:12})"
# shellcheck disable=SC2086
{
	line cpu_per_tx "pgtrial/pgbench" "$(f 2 "$r_cpu")" "$(mark "$r_cpu" le 1.00)" "(target ≤ 1.00; pairs $(span $A_rcpu), quartiles $(iqr $A_rcpu), pgtrial lower in $(below $A_rcpu 1) of $apairs; medians $(f 3 "$a_cpu_t") vs $(f 3 "$a_cpu_b") µs = $(f 2 "$(div "$a_cpu_t" "$a_cpu_b")"))"
	line select_tps "pgtrial/pgbench" "$(f 2 "$r_atps")" "$(mark "$r_atps" ge 0.97)" "(target ≥ 0.97; pairs $(span $A_rtps), quartiles $(iqr $A_rtps); medians $(f 2 "$(div "$a_tps_t" "$a_tps_b")"))"
	line tpcb_tps "pgtrial/pgbench" "$(f 2 "$r_btps")" "$(mark "$r_btps" ge 0.97)" "(target ≥ 0.97; pairs $(span $B_rtps); medians $(f 2 "$(div "$b_tps_t" "$b_tps_b")"))"
}
line open_rate "pgtrial achieved/target" "$(f 4 "$ach_t")" "$(mark "$ach_t" within 0.99 1.01)" "(target 0.99 … 1.01; target $rate/s)"
line open_rate "pgbench achieved/target" "$(f 4 "$ach_b")" ref
line open_rate "pgtrial/pgbench" "$(f 4 "$(div "$c_rate_t" "$c_rate_b")")" info
line open_lag_p50 "pgtrial (us)" "$c_p50_t" "$(mark "$c_p50_t" lt 100)" "(target < 100 µs)"
line open_lag_p50 "pgbench (us)" "$c_p50_b" ref
line open_lag_p50 "pgtrial/pgbench" "$(f 2 "$(div "$c_p50_t" "$c_p50_b")")" info
line open_lag_p99 "pgtrial/pgbench" "$(f 2 "$(div "$c_p99_t" "$c_p99_b")")" info "($c_p99_t vs $c_p99_b µs)"
if [ $memory = 1 ]; then
	r_rss=$(div "$rss300" "$rss60")
	line rss_60s "pgtrial (MB)" "$(f 1 "$(div "$rss60" 1024)")" "$(mark "$rss60" lt 102400)" "(target < 100 MB)"
	line rss_300s "pgtrial (MB)" "$(f 1 "$(div "$rss300" 1024)")" "$(mark "$rss300" lt 102400)" "(target < 100 MB)"
	line rss_300/60 "pgtrial" "$(f 3 "$r_rss")" "$(mark "$r_rss" within 0.90 1.10)" "(target 0.90 … 1.10)"
fi
others
