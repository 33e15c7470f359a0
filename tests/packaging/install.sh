#!/bin/bash
# make install, make uninstall and make deb, each used as a user would.
#
#   tests/packaging/install.sh BUILD_DIR     last line "install: N passed, M failed"
#
# 1. make install into a staging DESTDIR: every piece where it belongs; the
#    installed launcher finds the installed library and traces a program on
#    the simulated driver, the installed analyzer reads the trace; make
#    uninstall leaves no file behind.
# 2. make deb: a package dpkg-deb can read, with the same pieces under /usr
#    and Depends naming the libraries the analyzer links.
# 3. As root on a machine with dpkg and no peerwatch package installed (CI):
#    dpkg -i, then peerwatch --version and a traced program from the
#    installed paths, then dpkg -r, after which none of the package's files
#    is left.  Elsewhere this part says why it skips.
# Run by `make packaging-test` (so `make test`), which passes the build's own
# variables (BUILD, CC, SAN) to the make commands below.
set -u
B=$(cd "${1:-build}" && pwd)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pw-install.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export LD_LIBRARY_PATH="$B/sim${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PWSIM_DEVICES=2 PWSIM_PEERS=all
unset PEERWATCH_OPTIONS PEERWATCH_LIB
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok - $*"; }
bad() { fail=$((fail + 1)); echo "not ok - $*"; }
check() {
	local d=$1
	shift
	if "$@"; then ok "$d"; else bad "$d"; fi
}
version=$(sed -n 's/^VERSION *:= *//p' "$ROOT/Makefile")

# A traced run: under SAN=1 the sanitizer runtime must come first in LD_PRELOAD.
run_traced() { # LAUNCHER OUTDIR PROGRAM ARGS...
	local pw=$1 out=$2
	shift 2
	if [ -n "${PW_ASAN_RUNTIME:-}" ]; then
		LD_PRELOAD="$PW_ASAN_RUNTIME" ASAN_OPTIONS="detect_leaks=0:verify_asan_link_order=0" \
			"$pw" -q -o "$out" -- "$@"
	else
		"$pw" -q -o "$out" -- "$@"
	fi
}
# The installed pieces trace the simulated driver and read the trace back.
works_from() { # WHAT BINDIR
	local what=$1 bin=$2
	check "$what: peerwatch --version" bash -c "'$bin/peerwatch' --version | grep -qx 'peerwatch $version'"
	check "$what: peerwatch-analyze --version" \
		bash -c "'$bin/peerwatch-analyze' --version | grep -qx 'peerwatch-analyze $version'"
	rm -rf "$WORK/t"
	run_traced "$bin/peerwatch" "$WORK/t" "$B/tests/calls" getproc "$WORK/calls.expect" >/dev/null 2>"$WORK/run.err"
	check "$what: a program traced by the installed launcher runs to its end" \
		bash -c "ls '$WORK'/t/*.pw.jsonl >/dev/null 2>&1"
	check "$what: ... with the installed library" \
		bash -c "head -1 '$WORK'/t/*.pw.jsonl | grep -q '\"path\":\"$(dirname "$bin")/lib/peerwatch/libpeerwatch.so\"'"
	"$bin/peerwatch-analyze" info --json "$WORK/t" >"$WORK/info.json" 2>"$WORK/info.err"
	check "$what: the installed analyzer reads it, footer verified" \
		bash -c "jq -e '.files | length >= 1 and all(.state == \"clean\")' '$WORK/info.json' >/dev/null"
	check "$what: peerwatch --clean finds the installed helper" \
		bash -c "'$bin/peerwatch' --clean | grep -q '^peerwatch: \(removed\|no\) '"
}

# ---- make help ---------------------------------------------------------------------

make -C "$ROOT" --no-print-directory help >"$WORK/help" 2>&1
targets=$(sed -n '/^targets:/,/^$/p' "$WORK/help" | awk '/^  [a-z]/ {print $1}')
check "make help: lists its targets" test "$(echo $targets | wc -w)" -ge 10
# the targets make knows, from its database (-q runs no recipe)
make -C "$ROOT" -qp BUILD="$B" 2>/dev/null | awk -F: '/^[a-z][a-z0-9-]*:/ {print $1}' | sort -u >"$WORK/known"
missing=
for t in $targets; do
	grep -qx "$t" "$WORK/known" || missing="$missing $t"
done
check "make help: every target it names exists${missing:+ (not:$missing)}" test -z "$missing"
no_make_text() { ! grep -qE '[$][(]|@printf| :?= ' "$1" && ! grep -q "$(printf '\t')" "$1"; }
check "make help: no Makefile text in it" no_make_text "$WORK/help"

# ---- make install / uninstall -----------------------------------------------------

stage="$WORK/stage"
prefix=/opt/pw
if make -C "$ROOT" --no-print-directory install DESTDIR="$stage" PREFIX="$prefix" BUILD="$B" >"$WORK/install.log" 2>&1; then
	ok "make install DESTDIR=... PREFIX=$prefix"
else
	bad "make install failed: $(tail -3 "$WORK/install.log")"
fi
for f in bin/peerwatch bin/peerwatch-analyze lib/peerwatch/libpeerwatch.so lib/peerwatch/peerwatch-reap \
	share/man/man1/peerwatch.1 \
	share/man/man1/peerwatch-analyze.1 share/bash-completion/completions/peerwatch \
	share/bash-completion/completions/peerwatch-analyze share/doc/peerwatch/suppressions.example \
	share/peerwatch/duckdb/calls.sql share/peerwatch/duckdb/runs.sql; do
	check "install: $f" test -e "$stage$prefix/$f"
done
check "install: the completion of peerwatch-analyze is that of peerwatch" \
	cmp -s "$stage$prefix/share/bash-completion/completions/peerwatch" \
	"$stage$prefix/share/bash-completion/completions/peerwatch-analyze"
works_from "installed under a DESTDIR" "$stage$prefix/bin"
if make -C "$ROOT" --no-print-directory uninstall DESTDIR="$stage" PREFIX="$prefix" BUILD="$B" >"$WORK/uninstall.log" 2>&1; then
	ok "make uninstall"
else
	bad "make uninstall failed: $(tail -3 "$WORK/uninstall.log")"
fi
left=$(find "$stage" ! -type d)
check "uninstall: no file is left${left:+ (left: $left)}" test -z "$left"
check "uninstall: nor the library's directory" test ! -e "$stage$prefix/lib/peerwatch"

# ---- make deb ---------------------------------------------------------------------

if ! command -v dpkg-deb >/dev/null; then
	echo "# skip: no dpkg-deb here, so no make deb"
	echo "install: $pass passed, $fail failed"
	[ $fail -eq 0 ]
	exit
fi
if make -C "$ROOT" --no-print-directory deb BUILD="$B" >"$WORK/deb.log" 2>&1; then
	ok "make deb"
else
	bad "make deb failed: $(tail -5 "$WORK/deb.log")"
fi
deb=$(ls "$B"/peerwatch_"$version"-*.deb 2>/dev/null | head -1)
check "deb: the package is there" test -n "$deb"
dpkg-deb --field "$deb" Package Version Architecture Depends >"$WORK/fields" 2>&1
check "deb: package peerwatch, version $version" \
	bash -c "grep -qx 'Package: peerwatch' '$WORK/fields' && grep -q '^Version: $version-' '$WORK/fields'"
for lib in $(ldd "$B/bin/peerwatch-analyze" | awk '/=> \// {print $3}'); do
	pkg=$(dpkg -S "$(readlink -f "$lib")" 2>/dev/null || dpkg -S "$lib" 2>/dev/null)
	pkg=${pkg%%:*}
	[ -n "$pkg" ] && check "deb: Depends names $pkg (owner of ${lib##*/})" grep -q "Depends:.*\b$pkg\b" "$WORK/fields"
done
dpkg-deb --contents "$deb" | awk '{print $6}' | sed 's|^\./|/|' >"$WORK/contents"
for f in /usr/bin/peerwatch /usr/bin/peerwatch-analyze /usr/lib/peerwatch/libpeerwatch.so /usr/lib/peerwatch/peerwatch-reap \
	/usr/share/man/man1/peerwatch.1.gz /usr/share/man/man1/peerwatch-analyze.1.gz \
	/usr/share/bash-completion/completions/peerwatch /usr/share/bash-completion/completions/peerwatch-analyze \
	/usr/share/doc/peerwatch/suppressions.example /usr/share/doc/peerwatch/README.md \
	/usr/share/peerwatch/duckdb/calls.sql; do
	check "deb: holds $f" grep -qx "$f" "$WORK/contents"
done
check "deb: files owned by root" bash -c "dpkg-deb --contents '$deb' | awk '{print \$2}' | sort -u | grep -qx root/root"

# ---- dpkg -i, use, dpkg -r ------------------------------------------------------------

# dpkg waits for no one: another dpkg or apt-get (CI installing its
# dependencies) holds the lock for a while.
dpkg_retry() {
	local i
	for i in $(seq 1 30); do
		dpkg "$@" >"$WORK/dpkg.log" 2>&1 && return 0
		grep -q 'lock' "$WORK/dpkg.log" || return 1
		sleep 2
	done
	return 1
}
if [ "$(id -u)" -ne 0 ]; then
	echo "# skip: dpkg -i and -r need root (CI runs as root)"
elif dpkg-query -W -f='${Status}' peerwatch 2>/dev/null | grep -q 'ok installed'; then
	echo "# skip: a peerwatch package is installed on this machine already; not replacing it"
else
	if dpkg_retry -i "$deb"; then ok "dpkg -i"; else bad "dpkg -i failed: $(tail -3 "$WORK/dpkg.log")"; fi
	works_from "installed by dpkg" /usr/bin
	check "dpkg: the completion loads in bash and registers both commands" \
		bash -c '. /usr/share/bash-completion/completions/peerwatch && complete -p peerwatch peerwatch-analyze >/dev/null'
	dpkg -L peerwatch >"$WORK/listed" 2>/dev/null
	if dpkg_retry -r peerwatch; then ok "dpkg -r"; else bad "dpkg -r failed: $(tail -3 "$WORK/dpkg.log")"; fi
	left=
	while IFS= read -r f; do
		[ -d "$f" ] || [ ! -e "$f" ] || left="$left $f"
	done <"$WORK/listed"
	check "dpkg -r: none of the package's files is left${left:+ (left:$left)}" test -z "$left"
	check "dpkg -r: nor the library's directory" test ! -e /usr/lib/peerwatch
	check "dpkg -r: the package is gone" bash -c "! dpkg-query -W -f='\${Status}' peerwatch 2>/dev/null | grep -q 'ok installed'"
fi

echo "install: $pass passed, $fail failed"
[ $fail -eq 0 ]
