#!/usr/bin/env bash
# Makes sure PostgreSQL server binaries (initdb, pg_ctl, postgres) and pgbench are on this
# machine. If they are missing and we are root, installs Debian's postgresql and
# postgresql-contrib without letting the package create and start its own "main" cluster
# (pgtrial runs its own throwaway clusters). Prints the bin directory it found.
set -euo pipefail

find_bindir() {
	if [ -n "${PGTRIAL_PG_BIN:-}" ] && [ -x "$PGTRIAL_PG_BIN/initdb" ]; then
		echo "$PGTRIAL_PG_BIN"; return 0
	fi
	local d
	for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k5,5 -n -r); do
		if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && [ -x "$d/postgres" ] && [ -x "$d/pgbench" ]; then
			echo "$d"; return 0
		fi
	done
	return 1
}

if bindir=$(find_bindir); then
	echo "$bindir"
	exit 0
fi

if [ "$(id -u)" != 0 ]; then
	echo "PostgreSQL server binaries not found (looked in \$PGTRIAL_PG_BIN and /usr/lib/postgresql/*/bin)." >&2
	echo "Install them as root: apt-get update && apt-get install -y postgresql postgresql-contrib" >&2
	exit 1
fi

echo "PostgreSQL not found; installing postgresql and postgresql-contrib with apt-get ..." >&2
# Do not let the package create and start Debian's default cluster: pgtrial makes its own.
# The maintainer script reads this key from createcluster.conf itself (not from
# createcluster.d), and --force-confold keeps our file when the package arrives.
if [ ! -e /etc/postgresql-common/createcluster.conf ]; then
	mkdir -p /etc/postgresql-common
	echo "create_main_cluster = false" > /etc/postgresql-common/createcluster.conf
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
apt-get install -y -qq -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold \
	postgresql postgresql-contrib >&2
bindir=$(find_bindir) || { echo "installed PostgreSQL, but still no server binaries under /usr/lib/postgresql/*/bin" >&2; exit 1; }
echo "$bindir"
