#!/usr/bin/env bash
# sessions-vs-pgbench.sh: thousands of sessions on one generator, "pgtrial pgbench" against
# the real pgbench on one local cluster (issue 21, part 5).
#
# Usage: bench/sessions-vs-pgbench.sh [-n PAIRS] [-c CLIENTS] [-T SECONDS] [-u URL]
#   -n PAIRS    interleaved pairs (pgbench, pgtrial), default 3 (at least 1)
#   -c CLIENTS  clients of each run, default 2000
#   -T SECONDS  duration of each run, default 20
#   -u URL      server (must be loopback or a unix socket, max_connections > CLIENTS);
#               default $PGTRIAL_BENCH_URL, else a "pgtrial local --name bench-sessions"
#               cluster, started if needed, with max_connections set to CLIENTS + 100
#
# Workload (both tools, the same options and database): a script of one short transaction
# followed by a think time, "BEGIN; SELECT 1; END; \sleep 2 s", -c CLIENTS -j 2 -n
# -T SECONDS: CLIENTS/2 tx/s in all, each client idle ~99.9 % of the time. Both connect
# their clients one per thread at a time (pgbench's way; "pgtrial pgbench" does the same,
# "pgtrial run" paces them at --connect-rate).
# Figures, per run, of the whole process (/usr/bin/time -v: connections included):
#   tx/s (the report's tps), CPU seconds (user+sys) per transaction in µs, max RSS (MB)
#   and max RSS per client (KB); then per pair the ratios pgtrial/pgbench, and their medians.
# The runs of a pair follow each other, pgbench first in odd pairs and pgtrial first in
# even ones. Every run is bounded by "timeout". Default duration: about 2.5 min.
set -euo pipefail

pairs=3 clients=2000 dur=20 url="${PGTRIAL_BENCH_URL:-}"
usage() { sed -n '2,12p' "$0" >&2; exit 1; }
while [ $# -gt 0 ]; do
	case $1 in
	-n) pairs=${2:?}; shift ;;
	-c) clients=${2:?}; shift ;;
	-T) dur=${2:?}; shift ;;
	-u) url=${2:?}; shift ;;
	*) usage ;;
	esac
	shift
done
for v in "$pairs" "$clients" "$dur"; do
	[[ $v =~ ^[1-9][0-9]*$ ]] || { echo "not a positive integer: $v" >&2; usage; }
done
[ -x /usr/bin/time ] || { echo "/usr/bin/time not found (apt-get install -y time)" >&2; exit 1; }
command -v psql >/dev/null || { echo "psql not found in PATH (apt-get install -y postgresql-client)" >&2; exit 1; }
command -v pgbench >/dev/null || { echo "pgbench not found in PATH (make postgres)" >&2; exit 1; }
# The real pgbench binary, not Debian's perl wrapper (see vs-pgbench.sh).
pgbench=$(command -v pgbench)
if [ "$(head -c 2 "$(readlink -f "$pgbench")")" = '#!' ]; then
	real=$(ls -d /usr/lib/postgresql/*/bin/pgbench 2>/dev/null | sort -V | tail -1 || true)
	[ -n "$real" ] && pgbench=$real
fi
# Each client is a socket: both tools need CLIENTS descriptors and some.
need=$((clients + 64))
if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt "$need" ]; then
	ulimit -n "$need" 2>/dev/null || { echo "ulimit -n $(ulimit -n) < $need and cannot be raised" >&2; exit 1; }
fi

root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
bin=$tmp/pgtrial
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
commit=$(git -C "$root" rev-parse HEAD 2>/dev/null || echo unknown)
(cd "$root" && go build -ldflags "-X main.commit=${commit:0:12}" -o "$bin" ./cmd/pgtrial)

if [ -z "$url" ]; then
	"$bin" local --name bench-sessions start >/dev/null
	"$bin" local --name bench-sessions set "max_connections=$((clients + 100))" >/dev/null
	url=$("$bin" local --name bench-sessions url)
fi
# shellcheck source=bench/lib.sh
. "$root/bench/lib.sh"
admin=$(dburl "$url" postgres)
where=$(psql -X -At "$admin" -c "select coalesce(host(inet_server_addr()), 'unix socket')
	|| case when inet_server_addr() is null or inet_server_addr() <<= '127.0.0.0/8'
	   or inet_server_addr() = '::1' then '' else ' NOT LOOPBACK' end")
if [[ $where == *"NOT LOOPBACK" ]]; then echo "server address $where: refusing" >&2; exit 1; fi
maxconn=$(psql -X -At "$admin" -c "show max_connections")
if [ "$maxconn" -le "$clients" ]; then
	echo "max_connections is $maxconn, need more than $clients (pgtrial local set max_connections=N)" >&2
	exit 1
fi

printf 'BEGIN;\nSELECT 1;\nEND;\n\\sleep 2 s\n' >"$tmp/tx.sql"
opts=(-n -c "$clients" -j 2 -T "$dur" -f "$tmp/tx.sql")

echo "== sessions-vs-pgbench: $clients sessions with think times, pgtrial pgbench against pgbench"
echo "commit:  $commit$( [ -n "$(git -C "$root" status --porcelain --untracked-files=no 2>/dev/null)" ] && echo ' (working tree has uncommitted changes: the build includes them)')"
echo "pgbench: $("$pgbench" --version) ($pgbench)"
echo "pgtrial: $("$bin" version)"
psql -X -At "$admin" -c "select 'server:  ' || version()"
echo "client:  $(nproc) CPUs, $(free -m | awk '/^Mem:/ {print $2 " MB RAM, " $7 " MB available"}'), load average $(cut -d' ' -f1-3 /proc/loadavg); server at $where, max_connections $maxconn"
echo "options: $pairs pairs; script BEGIN; SELECT 1; END; \\sleep 2 s; ${opts[*]:0:7}"

# bench TOOL TAG: one run; the report in TAG.out, stderr in TAG.err, /usr/bin/time -v's
# figures in TAG.time.
bench() {
	local tool=$1 tag=$2 rc=0
	local -a cmd=("$pgbench")
	[ "$tool" = pgtrial ] && cmd=("$bin" pgbench)
	/usr/bin/time -v -o "$tmp/$tag.time" timeout --foreground -k 10 $((dur + 120)) \
		"${cmd[@]}" "${opts[@]}" "$admin" >"$tmp/$tag.out" 2>"$tmp/$tag.err" || rc=$?
	if [ $rc -ne 0 ]; then
		echo "$tool failed (exit $rc): ${cmd[*]} ${opts[*]} $admin" >&2
		cat "$tmp/$tag.out" >&2
		head -20 "$tmp/$tag.err" >&2
		exit 1
	fi
}
report() { sed -n "s/^$2 *[=:] *\([0-9.]*\).*/\1/p" "$tmp/$1.out" | head -1; }
timev() { sed -n "s/^\t$2: *\([0-9.:]*\)$/\1/p" "$tmp/$1.time" | head -1; }
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
div() { awk -v a="$1" -v b="$2" 'BEGIN {if (b == 0) print "nan"; else printf "%.4f", a / b}'; }
order() { if [ $(($1 % 2)) = 1 ]; then echo pgbench pgtrial; else echo pgtrial pgbench; fi; }

fmt='%-6s %-8s %10s %9s %8s %8s %11s %11s %12s\n'
echo
printf "$fmt" pair tool processed tx/s user_s sys_s cpu_us/tx maxrss_MB rss_KB/client
declare -A TPS CPU RSS
R_tps= R_cpu= R_rss=
for i in $(seq "$pairs"); do
	for tool in $(order "$i"); do
		tag=${tool}_$i
		bench "$tool" "$tag"
		n=$(report "$tag" 'number of transactions actually processed')
		tps=$(report "$tag" tps)
		user=$(timev "$tag" 'User time (seconds)') sys=$(timev "$tag" 'System time (seconds)')
		rss=$(timev "$tag" 'Maximum resident set size (kbytes)')
		cpu=$(awk -v u="$user" -v s="$sys" -v n="$n" 'BEGIN {printf "%.1f", (u + s) * 1e6 / n}')
		TPS[$tool]+="$tps " CPU[$tool]+="$cpu " RSS[$tool]+="$rss "
		printf "$fmt" "$i" "$tool" "$n" "$(printf %.1f "$tps")" "$user" "$sys" "$cpu" \
			"$(awk -v k="$rss" 'BEGIN {printf "%.1f", k / 1024}')" "$(awk -v k="$rss" -v c="$clients" 'BEGIN {printf "%.1f", k / c}')"
		eval "${tool}_tps=\$tps ${tool}_cpu=\$cpu ${tool}_rss=\$rss"
	done
	# shellcheck disable=SC2154
	R_tps+="$(div "$pgtrial_tps" "$pgbench_tps") " R_cpu+="$(div "$pgtrial_cpu" "$pgbench_cpu") " R_rss+="$(div "$pgtrial_rss" "$pgbench_rss") "
done
echo
echo "RATIOS pgtrial/pgbench (median of the $pairs pairs' ratios; the pairs' ratios in brackets; expected tx/s $((clients / 2)))"
# shellcheck disable=SC2086
{
	printf '%-14s = %7s  [%s]  medians %s vs %s\n' tx/s "$(median $R_tps)" "${R_tps% }" "$(median ${TPS[pgtrial]})" "$(median ${TPS[pgbench]})"
	printf '%-14s = %7s  [%s]  medians %s vs %s µs\n' cpu_per_tx "$(median $R_cpu)" "${R_cpu% }" "$(median ${CPU[pgtrial]})" "$(median ${CPU[pgbench]})"
	printf '%-14s = %7s  [%s]  medians %s vs %s KB\n' max_rss "$(median $R_rss)" "${R_rss% }" "$(median ${RSS[pgtrial]})" "$(median ${RSS[pgbench]})"
}
