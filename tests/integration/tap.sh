# Sourced by the integration scripts: the sanitizer runtime first in
# LD_PRELOAD when the tests run under ASan (PW_ASAN_RUNTIME, set by the
# Makefile for SAN=1), the options of TSan (PW_TSAN_RUNTIME, for TSAN=1: a
# report ends the program with status 66, which fails the test), and
# TAP-like counting: ok, bad, check.  Each script
# prints "NAME: $pass passed, $fail failed" at its end and exits non-zero on
# any failure.
if [ -n "${PW_ASAN_RUNTIME:-}" ]; then
	export LD_PRELOAD="$PW_ASAN_RUNTIME"
	export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}:verify_asan_link_order=0"
fi
# TSan's runtime is not preloaded: the library and the test programs load it
# as a dependency of their own, and a shell (the launcher) with it preloaded
# crashes at start.
if [ -n "${PW_TSAN_RUNTIME:-}" ]; then
	export TSAN_OPTIONS="${TSAN_OPTIONS:+$TSAN_OPTIONS:}halt_on_error=1:exitcode=66"
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
