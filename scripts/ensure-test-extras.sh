#!/usr/bin/env bash
# Installs what some integration tests use when present and skip without: the
# pg_wait_sampling extension for the system's PostgreSQL (internal/collect's profile
# source), prometheus-node-exporter (the OS collector compared with /proc) and chromium
# (the report pages' browser tests in internal/cli, which call this script without BINDIR
# when no browser is found). Debian packages, as root, only when missing; the
# node_exporter service is not started (the test starts its own on loopback). Quiet unless
# something fails. Usage: ensure-test-extras.sh [BINDIR] (without BINDIR, PostgreSQL's
# extension is left out)
set -euo pipefail
bindir=${1:-}
want=()
if [ -n "$bindir" ]; then
	major=$("$bindir/postgres" --version | sed -E 's/.* ([0-9]+)(\.[0-9]+)*.*/\1/')
	libdir=$("$bindir/pg_config" --pkglibdir 2>/dev/null || echo "/usr/lib/postgresql/$major/lib")
	[ -e "$libdir/pg_wait_sampling.so" ] || want+=("postgresql-$major-pg-wait-sampling")
fi
command -v prometheus-node-exporter >/dev/null || [ -x /usr/bin/prometheus-node-exporter ] || want+=(prometheus-node-exporter)
command -v chromium >/dev/null || command -v chromium-browser >/dev/null || command -v google-chrome >/dev/null || want+=(chromium)
[ ${#want[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "ensure-test-extras: not root; the tests that need ${want[*]} will skip" >&2
	exit 0
fi
export DEBIAN_FRONTEND=noninteractive
# policy-rc.d 101: packages must not start services in this (container) machine.
policy=/usr/sbin/policy-rc.d created=
if [ ! -e $policy ]; then printf '#!/bin/sh\nexit 101\n' >$policy && chmod +x $policy && created=1; fi
trap 'if [ -n "$created" ]; then rm -f $policy; fi' EXIT
apt-get update -qq >&2
apt-get install -y -qq --no-install-recommends "${want[@]}" >&2 ||
	echo "ensure-test-extras: could not install ${want[*]}; the tests that need them will skip" >&2
