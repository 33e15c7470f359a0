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
# expected COMMAND...: a command that fails on purpose.  What it writes on
# stderr, and what the shell says of its end ("Aborted"), is labelled
# "(expected) " in the log, which then misleads no one; its status is
# COMMAND's.
expected() {
	{ "$@" 2>&1 1>&3 3>&- | sed 's/^/(expected) /' >&2; return "${PIPESTATUS[0]}"; } 3>&1
}
# What a failed check saw: FILE's last lines, '#'-prefixed (TAP's comment).
diag() { # LABEL FILE
	echo "#   $1:"
	tail -n 8 "$2" 2>/dev/null | sed 's/^/#     /'
}
# PW_KEEP_TRACES=DIR: at exit, the traces the script left under $WORK are
# copied to DIR/<script>/ (same relative paths) before $WORK is removed, for
# the analyzer's tests (tests/analyze/oracle_test.sh) to read again.
if [ -n "${PW_KEEP_TRACES:-}" ] && [ -n "${WORK:-}" ]; then
	pw_keep_traces() {
		local to
		to="$PW_KEEP_TRACES/$(basename "$0" .sh)"
		rm -rf "$to"
		mkdir -p "$to"
		(cd "$WORK" && find . -type f \( -name '*.pw.jsonl' -o -name '*.pw.jsonl.partial' \) \
			-exec cp --parents {} "$to/" \;) 2>/dev/null
	}
	trap 'pw_keep_traces; rm -rf "$WORK"' EXIT
fi
