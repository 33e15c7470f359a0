# Sourced by the integration scripts: the sanitizer runtime first in
# LD_PRELOAD when the tests run under ASan (PW_ASAN_RUNTIME, set by the
# Makefile for SAN=1), and TAP-like counting: ok, bad, check.  Each script
# prints "NAME: $pass passed, $fail failed" at its end and exits non-zero on
# any failure.
if [ -n "${PW_ASAN_RUNTIME:-}" ]; then
	export LD_PRELOAD="$PW_ASAN_RUNTIME"
	export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}:verify_asan_link_order=0"
fi
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok - $*"; }
bad() { fail=$((fail + 1)); echo "not ok - $*"; }
check() { # DESCRIPTION COMMAND...: ok when COMMAND succeeds
	local d=$1
	shift
	if "$@"; then ok "$d"; else bad "$d"; fi
}
