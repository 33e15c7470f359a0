#!/bin/bash
# The fault suite: a traced program under each fault peerwatch may meet must
# end exactly as it does untraced — same exit status, same output — and its
# trace must say true things about itself (footer counts against its lines,
# .partial only when the process could not finish it, write_error, limit).
#
#   tests/fault/run.sh BUILD_DIR        PW_STRESS_RUNS=N: runs per race (20)
#                                       PW_RACE_LIMIT=S: one run's limit (120)
#                                       PW_FAULT_PART=races: the races only,
#                                       =others: all but the races
#                                       PW_RACE_MODES="M...": those races only
#                                       (make test runs the parts side by
#                                       side: tests/suite.sh)
#
# Faults: the process leaving (exit, _exit, exec, failed exec, fork,
# pthread_exit, threads ending) with threads mid-call, again and again;
# signals (SIGTERM, SIGINT, SIGKILL, the program's own handler, a crash);
# a closed stdout pipe, a closed or full stderr pipe, stderr closed at start;
# a full disk (tests/fault/faultshim.c, and a real 1 MiB tmpfs when root);
# an I/O error; a file-size limit; an unusable trace directory; a writer
# thread that dies or hangs; the size limit and repeated findings; a bundle
# under a path with a space; control bytes in a suppressions file; registry
# names taken by another user or a symbolic link, a segment nobody
# initialises, and the segments of runs killed under the launcher or by hand
# (peerwatch --clean).
set -u
B=$(cd "${1:-build}" && pwd)
PW="$B/bin/peerwatch"
AN="$B/bin/peerwatch-analyze"
T="$B/tests"
SHIM="$T/faultshim.so"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pw-fault.XXXXXX")
MNT=
cleanup() {
	[ -n "$MNT" ] && umount "$MNT" 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT
export LD_LIBRARY_PATH="$B/sim${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
. "$(dirname "${BASH_SOURCE[0]}")/../integration/tap.sh"
RUNS=${PW_STRESS_RUNS:-20}
THREADS=8
# One race run's limit: a hang fails that run, not the suite at its limit.
RACE_LIMIT=${PW_RACE_LIMIT:-120}
unset PEERWATCH_OPTIONS PEERWATCH_RUN_ID

all() { # every COMMAND, given as one string each, succeeds
	local c
	for c in "$@"; do eval "$c" || return 1; done
}

# limited SECONDS COMMAND...: the command in a process group of its own;
# past SECONDS, the stacks of the group's processes are printed as TAP
# comments (gdb, where installed; else their states) and the group is
# killed: status 137.  A hang then says where it waits.  The helpers run
# without the sanitizer's runtime preloaded (pkill hung under it).
limited() {
	local limit=$1 pid sleeper rc done_id
	shift
	setsid "$@" &
	pid=$!
	env -u LD_PRELOAD sleep "$limit" &
	sleeper=$!
	wait -n -p done_id "$pid" "$sleeper"
	rc=$?
	if [ "$done_id" = "$pid" ]; then
		kill "$sleeper" 2>/dev/null
		wait "$sleeper" 2>/dev/null
		return $rc
	fi
	echo "# hung: still running after $limit s: $*"
	for p in $(env -u LD_PRELOAD pgrep -g "$pid"); do
		if command -v gdb >/dev/null 2>&1; then
			env -u LD_PRELOAD timeout 60 gdb -p "$p" -batch -ex "thread apply all bt 16" 2>/dev/null |
				grep -E '^(Thread|#)' | sed "s/^/#   [$p] /"
		else
			env -u LD_PRELOAD ps -o pid=,stat=,wchan:32=,args= -p "$p" | sed 's/^/#   /'
		fi
	done
	kill -KILL -- "-$pid" 2>/dev/null
	wait "$pid"
}

# Our own lines on stderr, left out where the program's stderr is compared.
# A finished trace is true to itself: header first, footer last, the footer's
# counts equal to what the file holds, "dropped" the sum of "dropped_by".
trace_ok() { # FILE
	local f=$1 lines info
	lines=$(wc -l <"$f")
	[ "$(head -c 17 "$f")" = '{"type":"header",' ] || return 1
	info=$("$AN" info --json "$f" 2>/dev/null) || return 1
	jq -e --argjson lines "$lines" '.files[0] | .state == "clean" and .bad_lines == 0
		and .footer_events == .events_read and .footer_events == ($lines - 2)
		and .footer_violations == .violations
		and .dropped == ([(.dropped_by // {})[]] | add // 0)' <<<"$info" >/dev/null
}
footer() { tail -1 "$1"; }

# Each thread's calls that returned before the process left are in the
# traces, or counted as refused while the writer was behind (a thread never
# waits for it: on this small machine eight threads calling flat out outrun
# it) or as past max_trace_mb (a run slowed down by the machine's load makes
# that many calls): the calls missing from the traces are at most the
# footers' writer_behind and size_limit.
counts_ok() { # COUNTS_FILE TRACE...
	local c=$1 tid n have missing=0 behind=0 f
	shift
	[ -s "$c" ] || return 1
	while read -r tid n; do
		have=$(cat "$@" | grep -c "\"tid\":$tid,")
		[ "$have" -lt "$n" ] && missing=$((missing + n - have))
	done <"$c"
	for f in "$@"; do
		behind=$((behind + $(footer "$f" | jq '(.dropped_by.writer_behind // 0) + (.dropped_by.size_limit // 0)')))
	done
	if [ "$missing" -gt "$behind" ]; then
		echo "# $missing returned calls not traced, $behind counted as writer_behind or size_limit" >&2
		return 1
	fi
}

# --- exit, exec, fork and thread exit with threads mid-call ---------------------------------
# Expected status and output come from the untraced run of each mode.  Under
# ThreadSanitizer two modes cannot run at all: it does not support starting
# threads after a multi-threaded fork (the child's writer), and its own
# background thread keeps a process whose main thread called pthread_exit
# alive untraced too.
modes="exit _exit exec exec-fail fork pthread_exit thread_exit handler"
[ -n "${PW_TSAN_RUNTIME:-}" ] && modes="exit _exit exec exec-fail thread_exit handler"
if [ -n "${PW_RACE_MODES:-}" ]; then
	for mode in $PW_RACE_MODES; do
		[[ " exit _exit exec exec-fail fork pthread_exit thread_exit handler " == *" $mode "* ]] ||
			{ echo "fault: no race '$mode' (PW_RACE_MODES)" >&2; exit 2; }
	done
	modes=$(for mode in $modes; do [[ " $PW_RACE_MODES " == *" $mode "* ]] && echo "$mode"; done)
fi
case ${PW_FAULT_PART:-} in
"" | races | others) ;;
*) echo "fault: PW_FAULT_PART is races or others, not '$PW_FAULT_PART'" >&2; exit 2 ;;
esac
[ "${PW_FAULT_PART:-}" = others ] && modes=
for mode in $modes; do
	d="$WORK/race-$mode"
	mkdir -p "$d"
	"$T/exitrace" "$mode" $THREADS >"$d/want.out" 2>"$d/want.err"
	want_rc=$?
	case $mode in exec | exec-fail | fork) want_files=2 ;; *) want_files=1 ;; esac
	failed=0
	for i in $(seq "$RUNS"); do
		rm -rf "$d/trace" "$d/counts"
		limited "$RACE_LIMIT" "$PW" -q -o "$d/trace" -- "$T/exitrace" "$mode" $THREADS "$d/counts" \
			>"$d/out" 2>"$d/err"
		rc=$?
		why=
		files=("$d"/trace/*)
		[ -e "${files[0]}" ] || files=()
		# The file is made by the first call; a process that leaves before
		# any call returned (a loaded machine) may rightly leave none.
		none_returned=0
		[ -s "$d/counts" ] && [ "$(awk '{ s += $2 } END { print s + 0 }' "$d/counts")" = 0 ] &&
			none_returned=1
		if [ $rc -ne $want_rc ]; then
			why="exit status $rc, untraced $want_rc"
		elif ! cmp -s "$d/out" "$d/want.out" || ! cmp -s "$d/err" "$d/want.err"; then
			why="output differs: $(head -c 300 "$d/err")"
		elif ls "$d"/trace/*.partial >/dev/null 2>&1; then
			why="a trace was left .partial"
		elif [ ${#files[@]} -eq 0 ] && [ $none_returned = 1 ] && [ $want_files = 1 ]; then
			echo "# $mode run $i: no call returned before the process left, and no trace: allowed"
		elif [ ${#files[@]} -ne $want_files ]; then
			why="${#files[@]} trace files, not $want_files"
		else
			for f in "${files[@]}"; do
				trace_ok "$f" || why="$f: the footer does not match the file"
				# Only events in flight at the cut are lost, one a thread at most,
				# and those refused while the writer was behind or past the
				# size limit (counts_ok).
				jq -e --argjson n $((THREADS + 1)) '(.dropped_by | keys - ["in_flight_at_exit", "writer_behind", "size_limit"] == [])
					and (.dropped_by.in_flight_at_exit // 0) <= $n' <(footer "$f") >/dev/null ||
					why="$f: dropped_by $(footer "$f" | jq -c .dropped_by)"
				# The gate says the same of every run: the calls in flight at
				# the cut lose nothing (checked before they ran), so it passes
				# on them, and fails (3) only when events were lost.
				lost=$(footer "$f" | jq '[.dropped_by | to_entries[] | select(.key != "in_flight_at_exit") | .value] | add // 0')
				"$AN" check "$f" >/dev/null 2>&1
				gate=$?
				[ "$gate" = "$([ "$lost" -gt 0 ] && echo 3 || echo 0)" ] ||
					why="$f: check exits $gate, $lost events lost ($(footer "$f" | jq -c .dropped_by))"
			done
			[ -z "$why" ] && [ -e "$d/counts" ] && ! counts_ok "$d/counts" "${files[@]}" &&
				why="calls that returned before the process left are missing"
		fi
		if [ -n "$why" ]; then
			failed=$((failed + 1))
			echo "# $mode run $i: $why"
			cp -r "$d/trace" "$d/failed-$i" 2>/dev/null
		fi
	done
	check "race $mode: $RUNS runs x $THREADS threads mid-call, $failed failures (status $want_rc, output, footer, every returned call traced or counted, the gate's verdict)" \
		[ $failed -eq 0 ]
done

if [ "${PW_FAULT_PART:-}" = races ]; then
	echo "fault: $pass passed, $fail failed"
	[ $fail -eq 0 ]
	exit
fi

# --- signals --------------------------------------------------------------------------------
# The program waits with its threads calling until it is killed; a signal
# that kills it leaves the trace .partial, with its header and whole lines.
killed() { # SIGNAL TRACED(0|1) -> status
	local sig=$1 traced=$2 d="$WORK/sig-$1-$2" pid
	mkdir -p "$d"
	if [ "$traced" = 1 ]; then
		"$PW" -q -o "$d/trace" -- "$T/exitrace" wait 4 >"$d/out" 2>"$d/err" &
	else
		"$T/exitrace" wait 4 >"$d/out" 2>"$d/err" &
	fi
	pid=$!
	for _ in $(seq 1000); do grep -q ready "$d/out" 2>/dev/null && break; sleep 0.01; done
	sleep 0.2
	kill -s "$sig" $pid
	{ wait $pid; } 2>/dev/null # no "Killed" from the shell
}
for sig in TERM INT KILL; do
	killed $sig 0
	rc0=$?
	killed $sig 1
	rc1=$?
	d="$WORK/sig-$sig-1"
	check "SIG$sig mid-run: status $rc1, untraced $rc0" [ $rc1 -eq $rc0 ]
	check "SIG$sig mid-run: same output" cmp -s "$d/out" "$WORK/sig-$sig-0/out"
	p=$(ls "$d"/trace/*.partial 2>/dev/null | head -1)
	check "SIG$sig mid-run: the trace is left .partial, its header first, only whole JSON lines" \
		bash -c '[ -n "$1" ] && [ "$(head -1 "$1" | jq -r .type)" = header ] && head -n -1 "$1" | jq -e . >/dev/null' _ "$p"
done
for mode in quick crash; do
	d="$WORK/$mode"
	mkdir -p "$d"
	{ "$T/exitrace" $mode 0 >"$d/want.out" 2>/dev/null; } 2>/dev/null
	rc0=$?
	{ "$PW" -q -o "$d/trace" -- "$T/exitrace" $mode 0 >"$d/out" 2>"$d/err"; } 2>/dev/null
	rc1=$?
	check "$mode: status $rc1, untraced $rc0; same output" all "[ $rc1 -eq $rc0 ]" "cmp -s $d/out $d/want.out"
done
check "quick (one call, then exit): a finished trace with that one call" \
	bash -c 'f=$(ls "$1"/trace/*.pw.jsonl) && [ "$(grep -c "\"type\":\"call\"" "$f")" = 1 ]' _ "$WORK/quick"
check "crash right after the first call: a .partial trace with its header" \
	bash -c 'f=$(ls "$1"/trace/*.partial) && [ "$(head -1 "$f" | jq -r .type)" = header ]' _ "$WORK/crash"

# A fork from the program's signal handler that interrupts the first traced
# call while it writes the trace's header (the shim raises the signal there):
# parent and child end as untraced (this hung: the fork waited for a lock
# its own thread held), and the parent's trace is finished.  The child's
# calls, made inside a handler that interrupted peerwatch, pass untraced, as
# a handler's calls do on a thread that is inside peerwatch.
d="$WORK/fork-handler"
mkdir -p "$d"
if [ -n "${PW_TSAN_RUNTIME:-}" ]; then
	# ThreadSanitizer reports the program's own fork inside its signal
	# handler (the loader's calloc for the child's TLS is signal-unsafe) and
	# ends it with its exit code: the case runs in the plain and ASan builds.
	ok "fork in a signal handler during the first call's header # skip: ThreadSanitizer reports the program's fork in its handler"
else
	"$T/exitrace" fork-handler 0 >"$d/want" 2>/dev/null
	rc0=$?
	LD_PRELOAD="${LD_PRELOAD:+$LD_PRELOAD:}$SHIM" PWFAULT=signal-header:0 \
		limited 60 "$PW" -q -o "$d/trace" -- "$T/exitrace" fork-handler 0 >"$d/got" 2>"$d/err"
	rc1=$?
	check "fork in a signal handler during the first call's header: status $rc1, untraced $rc0; same output" \
		all "[ $rc1 -eq $rc0 ]" "cmp -s $d/want $d/got" "grep -q 'left with 3' $d/got" \
		"grep -q 'SIGUSR1 raised in a trace.s header write' $d/err"
	files=("$d"/trace/*.pw.jsonl)
	check "fork in a signal handler during the first call's header: the parent's trace finished, true to itself" \
		all "[ ${#files[@]} = 1 ]" "trace_ok '${files[0]}'" "! ls $d/trace/*.partial"
fi

# --- pipes ----------------------------------------------------------------------------------
d="$WORK/stdout-pipe"
mkdir -p "$d"
FLOOD_PRINT=1 "$T/flood" 100000 0 2>/dev/null | head -1 >"$d/want"
rc0=${PIPESTATUS[0]}
FLOOD_PRINT=1 "$PW" -q -o "$d/trace" -- "$T/flood" 100000 0 2>/dev/null | head -1 >"$d/got"
rc1=${PIPESTATUS[0]}
check "stdout a pipe closed early: status $rc1 (SIGPIPE of the program's own write), untraced $rc0; same output" \
	all "[ $rc1 -eq $rc0 ]" "cmp -s $d/want $d/got"

# stderr a pipe with no reader left: the reports meet EPIPE, which must raise
# no SIGPIPE in the program.
d="$WORK/stderr-closed-pipe"
mkdir -p "$d"
mkfifo "$d/fifo"
exec 7<>"$d/fifo" 8>"$d/fifo" 7<&-
"$T/flood" 0 50 3 >"$d/want" 2>&8
rc0=$?
"$PW" -q -o "$d/trace" -- "$T/flood" 0 50 3 >"$d/got" 2>&8
rc1=$?
exec 8>&-
f=$(ls "$d"/trace/*.pw.jsonl 2>/dev/null)
check "stderr a pipe nobody reads any more: status $rc1, untraced $rc0; same output" \
	all "[ $rc1 -eq $rc0 ]" "cmp -s $d/want $d/got"
check "stderr a closed pipe: the footer says why the reports stopped (EPIPE), the trace is whole" \
	all "[ -n '$f' ]" "trace_ok '$f'" "footer '$f' | jq -e '.report_error | test(\"EPIPE\")' >/dev/null"

# stderr a full pipe that nobody reads: a report must not block the program
# for good (it waits PW_OUT_WAIT_MS, then gives stderr up).
d="$WORK/stderr-full-pipe"
mkdir -p "$d"
mkfifo "$d/fifo"
exec 7<>"$d/fifo"
head -c 65536 /dev/zero >&7
"$PW" -q -o "$d/trace" -- timeout 60 "$T/flood" 0 50 3 >"$d/got" 2>&7
rc1=$?
exec 7>&-
f=$(ls "$d"/trace/*.pw.jsonl 2>/dev/null)
check "stderr a full pipe nobody reads: the program ends (status $rc1), same output" \
	all "[ $rc1 -eq 0 ]" "grep -qx 'flood: 0 calls, 50 bad from 3 sites' $d/got"
check "stderr a full pipe: the footer says the reports could not be written in time" \
	all "[ -n '$f' ]" "footer '$f' | jq -e '.report_error | test(\"did not finish\")' >/dev/null"

# stderr closed at start: the program's first open(2) gets descriptor 2, and
# none of our reports may land in its file.
d="$WORK/stderr-closed"
mkdir -p "$d"
FLOOD_OUT="$d/want" "$T/flood" 10 50 3 2>&-
rc0=$?
FLOOD_OUT="$d/got" "$PW" -q -o "$d/trace" -- "$T/flood" 10 50 3 2>&-
rc1=$?
f=$(ls "$d"/trace/*.pw.jsonl 2>/dev/null)
check "stderr closed at start: status $rc1, untraced $rc0; the program's file (on descriptor 2) holds only its own line" \
	all "[ $rc1 -eq $rc0 ]" "cmp -s $d/want $d/got"
check "stderr closed at start: the footer says so" \
	all "[ -n '$f' ]" "footer '$f' | jq -e '.report_error | test(\"closed when the program started\")' >/dev/null"

# --- the program's descriptors ----------------------------------------------------------------
# A program counts on the numbers open(2) gives it (the lowest free), and may
# close or dup2 onto any number.  Whatever peerwatch keeps open must be out of
# the way, and it must never read from or write into the program's files.

# The run's trace, when the program took peerwatch's descriptors: whole, true
# to itself and holding every call (CAN of cuDeviceCanAccessPeer, BAD of
# cuCtxEnablePeerAccess), or tracing off with exactly one warning.
traced_or_one_warning() { # TRACE_DIR ERR CAN BAD
	local f apis
	f=$(ls "$1"/*.pw.jsonl 2>/dev/null)
	if [ -n "$f" ] && trace_ok "$f"; then
		apis=$(jq -r 'select(.type == "call") | .api' "$f" | sort | uniq -c | awk '{ printf "%s=%s ", $2, $1 }')
		[ "$apis" = "cuCtxEnablePeerAccess=$4 cuDeviceCanAccessPeer=$3 " ] && return 0
		echo "# $f: calls $apis"
		return 1
	fi
	[ "$(grep -c '^peerwatch\[' "$2")" = 1 ] && grep -q 'stopped' "$2"
}

# 0, 1 and 2 closed at start: the program's first open gets 0, and its read
# of stdin and write of stdout fail as they do untraced (peerwatch had a pipe
# on 0 and 1, and its trace directory on 0, the trace file on 1).
d="$WORK/fd-std"
mkdir -p "$d"
"$T/fdprog" std "$d/want" <&- >&- 2>&-
rc0=$?
/bin/echo hi <&- >&- 2>"$d/echo.want"
# shellcheck disable=SC2320 # the status of /bin/echo, the program under test
erc0=$?
for mode in observe warn enforce; do
	"$PW" -q -m $mode -o "$d/trace-$mode" -- "$T/fdprog" std "$d/got-$mode" <&- >&- 2>&-
	rc1=$?
	f=$(ls "$d/trace-$mode"/*.pw.jsonl 2>/dev/null)
	check "0, 1, 2 closed at start ($mode): status $rc1, untraced $rc0; the same descriptors, reads and writes" \
		all "[ $rc1 -eq $rc0 ]" "cmp -s $d/want $d/got-$mode" "grep -q 'first fopen: descriptor 0' $d/got-$mode"
	check "0, 1, 2 closed at start ($mode): the trace is whole, every call in it" \
		all "[ -n '$f' ]" "trace_ok '$f'" "[ \$(grep -c '\"type\":\"call\"' '$f') = 40 ]"
	"$PW" -q -m $mode -o "$d/echo-$mode" -- /bin/echo hi <&- >&- 2>"$d/echo.got-$mode"
	rc1=$?
	check "0 and 1 closed at start ($mode): echo's write fails as untraced (status $rc1, untraced $erc0)" \
		all "[ $rc1 -eq $erc0 ]" "cmp -s $d/echo.want $d/echo.got-$mode"
done
# stderr alone closed: the program's first fopen gets 2.
"$T/fdprog" std "$d/want2" </dev/null >"$d/out.want2" 2>&-
rc0=$?
for mode in observe warn enforce; do
	"$PW" -q -m $mode -o "$d/trace2-$mode" -- "$T/fdprog" std "$d/got2-$mode" </dev/null >"$d/out.got2-$mode" 2>&-
	rc1=$?
	check "stderr closed at start ($mode): status $rc1, untraced $rc0; its first fopen gets descriptor 2 as untraced" \
		all "[ $rc1 -eq $rc0 ]" "cmp -s $d/want2 $d/got2-$mode" "cmp -s $d/out.want2 $d/out.got2-$mode" \
		"grep -q 'first fopen: descriptor 2' $d/got2-$mode"
done

# A daemon: closes 3..1023 once started, opens its input and output, and
# makes calls whose findings take stacks.  Its output must be its input, byte
# for byte (peerwatch's unwinder read 3 bytes of the input from "its" pipe
# and wrote 3 into the output; its trace file was closed under it).
d="$WORK/fd-daemon"
mkdir -p "$d"
printf 'HELLO-INPUT\n' >"$d/in"
"$T/fdprog" daemon "$d/in" "$d/want" >"$d/out.want" 2>/dev/null
rc0=$?
for opts in "-m warn" "-m warn --stacks none" "-m observe --stacks all"; do
	slug=${opts// /}
	# shellcheck disable=SC2086 # the words of opts are options
	"$PW" -q $opts -o "$d/trace$slug" -- "$T/fdprog" daemon "$d/in" "$d/got$slug" >"$d/out$slug" 2>"$d/err$slug"
	rc1=$?
	failed_before=$fail
	check "a daemon's close loop, then its own files ($opts): status $rc1, untraced $rc0; its output byte for byte" \
		all "[ $rc1 -eq $rc0 ]" "cmp -s $d/want $d/got$slug" "cmp -s $d/out.want $d/out$slug"
	if [ "$fail" != "$failed_before" ]; then # what differed: its file names the descriptors it got
		diff "$d/want" "$d/got$slug" | head -6 | sed 's/^/#   its file: /'
		diff "$d/out.want" "$d/out$slug" | head -6 | sed 's/^/#   its stdout: /'
	fi
	check "a daemon's close loop ($opts): the trace still whole with every call, or off with one warning" \
		traced_or_one_warning "$d/trace$slug" "$d/err$slug" 60 3
done

# Where the daemon's numbers could go astray: an open of ours on another
# thread at the instant the program opens takes the number it expects.  So
# peerwatch's threads (the trace writer) open nothing below 1000 while the
# program runs: under strace, every descriptor a thread of the program's
# process but its first made (open, openat, dup, fcntl F_DUPFD, pipe,
# socket, ...) must be one of ours above the floor.
d="$WORK/fd-threads"
mkdir -p "$d"
printf 'HELLO-INPUT\n' >"$d/in"
"$(dirname "${BASH_SOURCE[0]}")/../gpu/thread_fds.sh" "$d/strace" "$d/low" fdprog \
	-- "$PW" -q -m warn -o "$d/trace" -- "$T/fdprog" daemon "$d/in" "$d/got" >"$d/out" 2>"$d/err"
rc1=$?
if [ $rc1 -eq 125 ]; then
	echo "skip - the writer thread's descriptors: $(tail -1 "$d/err")"
else
	check "the writer thread's descriptors: none below 1000 while the program runs (status $rc1)" \
		all "[ $rc1 -eq $rc0 ]" "[ ! -s '$d/low' ]" "cmp -s $WORK/fd-daemon/want $d/got"
	sed 's/^/#   opened: /' "$d/low" | head -5
fi

# dup2 of the program's own file onto every descriptor it did not open
# (the trace file's, the log_path file's), then more calls and findings:
# its file must hold only its own data, the reports still reach the log.
d="$WORK/fd-dup2"
mkdir -p "$d"
"$T/fdprog" dup2 "$d/want" "$d/list.want" >"$d/out.want" 2>/dev/null
rc0=$?
"$PW" -q -o "$d/trace" --log-path "$d/log" -- "$T/fdprog" dup2 "$d/got" "$d/list" >"$d/out" 2>"$d/err"
rc1=$?
sed 's/^/#   peerwatch held: /' "$d/list"
check "dup2 onto peerwatch's descriptors: status $rc1, untraced $rc0; the program's file byte for byte" \
	all "[ $rc1 -eq $rc0 ]" "cmp -s $d/want $d/got" "cmp -s $d/out.want $d/out"
# peerwatch's floor (core/fd.h): 1000, or near a soft limit under 1024
lim=$(ulimit -n)
floor=1000
if [ "$lim" != unlimited ] && [ "$lim" -lt 1024 ]; then
	top=$((lim / 4 < 24 ? lim / 4 : 24))
	floor=$((lim - top > 3 ? lim - top : 3))
fi
check "dup2 onto peerwatch's descriptors: there were some (the trace's, the log's), each at $floor or above" \
	all "[ \$(wc -l <$d/list) -ge 2 ] && [ \$(wc -l <$d/list.want) = 0 ]" "awk -v f=$floor '\$1 < f { exit 1 }' $d/list"
check "dup2 onto peerwatch's descriptors: the trace still whole with every call, or off with one warning" \
	traced_or_one_warning "$d/trace" "$d/err" 120 3
check "dup2 onto peerwatch's descriptors: every report in the log_path file, nothing else there" \
	bash -c '[ "$(grep -c "peer.enable.self in cuCtxEnablePeerAccess" "$1"/log.*)" = 3 ] && ! grep -q "program.s own data" "$1"/log.*' _ "$d"

# --- writing the trace fails ----------------------------------------------------------------
# Same status and output; the file is finished (renamed, footer), says
# write_error, and holds what its footer says; info tells it from a crash.
write_fault() { # SLUG NAME WORDS PREFIX...: flood run under PREFIX (a command that runs the rest)
	local d="$WORK/$1" name=$2 words=$3 f
	shift 3
	mkdir -p "$d"
	"$T/flood" 30000 20 2 >"$d/want" 2>/dev/null
	local rc0=$?
	"$@" "$PW" -q -o "$d/trace" -- "$T/flood" 30000 20 2 >"$d/got" 2>"$d/err"
	local rc1=$?
	f=$(ls "$d"/trace/*.pw.jsonl 2>/dev/null)
	check "$name: status $rc1, untraced $rc0; same output" all "[ $rc1 -eq $rc0 ]" "cmp -s $d/want $d/got"
	check "$name: one warning on stderr" [ "$(grep -c '^peerwatch\[.*stopped' "$d/err")" = 1 ]
	check "$name: the trace is finished and true to itself, with write_error" \
		all "[ -n '$f' ]" "trace_ok '$f'" "footer '$f' | jq -e '.write_error and .dropped_by.write_error > 0' >/dev/null"
	check "$name: info says 'stopped writing: $words'" \
		bash -c '"$1" info "$2" | grep -q "stopped writing: $3"' _ "$AN" "$f" "$words"
}
write_fault enospc "full disk (fault shim)" "disk full" env LD_PRELOAD="${LD_PRELOAD:+$LD_PRELOAD:}$SHIM" PWFAULT=enospc:700000
write_fault eio "I/O error (fault shim)" "write error" env LD_PRELOAD="${LD_PRELOAD:+$LD_PRELOAD:}$SHIM" PWFAULT=eio:300000
ulimited() { (ulimit -f 600 && exec "$@"); }
write_fault fsize "file-size limit (ulimit -f 600)" "file-size limit" ulimited
f=$(ls "$WORK"/fsize/trace/*.pw.jsonl 2>/dev/null)
check "file-size limit: the file stays below it" [ "$(stat -c %s "$f")" -le $((600 * 1024)) ]
# Below the size of a header: no trace, one warning, no SIGXFSZ.
d="$WORK/fsize-tiny"
mkdir -p "$d"
(ulimit -f 4 && exec "$T/exitrace" quick 0) >"$d/want" 2>/dev/null
rc0=$?
(ulimit -f 4 && exec "$PW" -q -o "$d/trace" -- "$T/exitrace" quick 0) >"$d/got" 2>"$d/err"
rc1=$?
check "file-size limit below a header: status $rc1, untraced $rc0; same output" \
	all "[ $rc1 -eq $rc0 ]" "cmp -s $d/want $d/got"
check "file-size limit below a header: no trace, one warning saying why" \
	all "! ls $d/trace/* >/dev/null 2>&1" "[ \$(grep -c 'cannot write the trace' $d/err) = 1 ]"
# A real full file system, where one can be made.
MNT="$WORK/tmpfs"
mkdir -p "$MNT"
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=1m tmpfs "$MNT" 2>/dev/null; then
	d="$WORK/tmpfs-run"
	mkdir -p "$d"
	"$T/flood" 30000 20 2 >"$d/want" 2>/dev/null
	rc0=$?
	"$PW" -q -o "$MNT/trace" -- "$T/flood" 30000 20 2 >"$d/got" 2>"$d/err"
	rc1=$?
	f=$(ls "$MNT"/trace/*.pw.jsonl 2>/dev/null)
	check "a full 1 MiB tmpfs: status $rc1, untraced $rc0; same output" all "[ $rc1 -eq $rc0 ]" "cmp -s $d/want $d/got"
	check "a full 1 MiB tmpfs: a finished trace, true to itself, write_error ENOSPC" \
		all "[ -n '$f' ]" "trace_ok '$f'" "footer '$f' | jq -e '.write_error | startswith(\"ENOSPC\")' >/dev/null"
	umount "$MNT"
	MNT=
else
	MNT=
	ok "a full 1 MiB tmpfs # skip: needs root and mount"
fi

# --- the trace directory cannot be used ----------------------------------------------------
touch "$WORK/notadir"
for args in "quick 0" "exit $THREADS"; do
	d="$WORK/baddir-${args%% *}"
	mkdir -p "$d"
	# shellcheck disable=SC2086 # the words of args are the arguments
	"$T/exitrace" $args >"$d/want" 2>/dev/null
	rc0=$?
	# shellcheck disable=SC2086
	"$PW" -q -o "$WORK/notadir/sub" -- "$T/exitrace" $args >"$d/got" 2>"$d/err"
	rc1=$?
	check "unusable trace directory (exitrace $args): status $rc1, untraced $rc0; same output; exactly one warning" \
		all "[ $rc1 -eq $rc0 ]" "cmp -s $d/want $d/got" "[ \$(grep -c 'tracing is off' $d/err) = 1 ]" \
		"grep -q 'cannot create the trace directory' $d/err"
done

# --- the writer thread dies or hangs ----------------------------------------------------------
d="$WORK/writer-dies"
mkdir -p "$d"
"$T/exitrace" exit $THREADS >"$d/want" 2>/dev/null
rc0=$?
if [ -n "${PW_ASAN_RUNTIME:-}" ]; then
	# ASan leaves the stack of a thread unwound by pthread_exit from
	# uninstrumented code (the shim) poisoned, and its own thread teardown
	# then reports it: the case runs in the plain and TSan builds.
	ok "writer thread dies mid-run # skip: AddressSanitizer cannot follow that unwinding"
else
	LD_PRELOAD="${LD_PRELOAD:+$LD_PRELOAD:}$SHIM" PWFAULT=kill-writer:20000 \
		"$PW" -q -o "$d/trace" -- "$T/exitrace" exit $THREADS "$d/counts" >"$d/got" 2>"$d/err"
	rc1=$?
	f=$(ls "$d"/trace/*.pw.jsonl 2>/dev/null)
	# The writer dies only if it writes past the mark before the program
	# ends; where the program ended first (a run in several under TSan),
	# the exiting thread wrote the trace and no warning is due.
	if grep -q 'faultshim: the writer thread ends' "$d/err"; then warned=1; else warned=0; fi
	check "writer thread dies mid-run: status $rc1, untraced $rc0; same output; $warned warning (the writer $([ $warned = 1 ] && echo died || echo 'never wrote past the mark'))" \
		all "[ $rc1 -eq $rc0 ]" "cmp -s $d/want $d/got" "[ \$(grep -c 'writer thread ended unexpectedly' $d/err) = $warned ]"
	check "writer thread dies mid-run: the exiting thread writes the rest; the trace is true to itself" \
		all "[ -n '$f' ]" "trace_ok '$f'"
fi
# The writer's first write past 2000 bytes hangs: past the header (written by
# the calling thread) and the first events, which every run has, however few
# calls its threads made before main left (under ASan on a loaded machine, too
# few for 20000 bytes: the trace was then finished by the exiting thread).
d="$WORK/writer-hangs"
mkdir -p "$d"
LD_PRELOAD="${LD_PRELOAD:+$LD_PRELOAD:}$SHIM" PWFAULT=stall-writer:2000 \
	timeout 120 "$PW" -q -o "$d/trace" -- "$T/exitrace" exit $THREADS >"$d/got" 2>"$d/err"
rc1=$?
check "writer thread hangs in a write: the program still ends with its status ($rc1), same output" \
	all "[ $rc1 -eq $rc0 ]" "cmp -s $WORK/writer-dies/want $d/got"
check "writer thread hangs: the trace stays .partial, one warning says so" \
	all "ls $d/trace/*.partial >/dev/null" "[ \$(grep -c 'writer is stuck' $d/err) = 1 ]"

# --- bounded output: the size limit and repeated findings ------------------------------------
d="$WORK/limit"
mkdir -p "$d"
"$T/flood" 20000 1000 3 >"$d/want" 2>/dev/null
"$PW" -o "$d/trace" --max-trace-mb 1 -- "$T/flood" 20000 1000 3 >"$d/got" 2>"$d/err"
rc1=$?
f=$(ls "$d"/trace/*.pw.jsonl 2>/dev/null)
check "max_trace_mb=1: status $rc1, same output" all "[ $rc1 -eq 0 ]" "cmp -s $d/want $d/got"
check "max_trace_mb=1: the trace is true to itself and says where the limit stopped it" \
	all "[ -n '$f' ]" "trace_ok '$f'" "footer '$f' | jq -e '.limit.bytes == 1048576 and .limit.seq > 1' >/dev/null"
# 20000 + 1000 calls and 3 findings were made: each is in the file or counted;
# the device lines (one per device, kept past the limit like the findings) too.
ndev=$(grep -c '"type":"device"' "$f")
check "max_trace_mb=1: every event made is written or counted (size_limit), the findings all written" \
	all "[ $ndev -ge 1 ]" "footer '$f' | jq -e '.events - $ndev + .dropped == 21003 and .dropped_by.size_limit == .dropped and .violations == 3 and .repeats == 997' >/dev/null"
check "max_trace_mb=1: the events stop short of 1 MiB" [ "$(stat -c %s "$f")" -lt $((1024 * 1024 + 64 * 1024)) ]
# The line at exit says how many of how many events were lost, and why.
commas() { sed ':a;s/\B[0-9]\{3\}\>/,&/;ta'; }
written=$(footer "$f" | jq .events | commas)
lost=$(footer "$f" | jq .dropped_by.size_limit | commas)
made=$(footer "$f" | jq '.events + .dropped_by.size_limit' | commas)
check "max_trace_mb=1: the exit line says '$lost of $made events dropped: past the size limit'" \
	grep -qF "($written events; $lost of $made events dropped: past the size limit (max_trace_mb); " "$d/err"

d="$WORK/repeats"
mkdir -p "$d"
"$PW" -o "$d/trace" -- "$T/flood" 0 100000 3 >"$d/got" 2>"$d/err"
rc1=$?
f=$(ls "$d"/trace/*.pw.jsonl 2>/dev/null)
check "100 000 findings from 3 call sites: 3 reports on stderr and one line counting the rest" \
	all "[ $rc1 -eq 0 ]" "[ \$(grep -c 'peer.enable.self in cuCtxEnablePeerAccess' $d/err) = 3 ]" \
	"grep -q '99997 more findings' $d/err" "[ \$(wc -l <$d/err) -lt 60 ]"
check "100 000 findings: 3 violation events, 99 997 repeats counted by site, the trace true to itself" \
	all "trace_ok '$f'" "footer '$f' | jq -e '.violations == 3 and .repeats == 99997 and
		(.repeats_by | length == 3 and (map(.count) | add) == 99997 and all(.rule == \"peer.enable.self\"))' >/dev/null"
check "100 000 findings: summary shows the repeats" bash -c '"$1" summary "$2" | grep -Eq "^peer.enable.self +error +3 +99997$"' _ "$AN" "$d/trace"

# --- the launcher under a path with a space ---------------------------------------------------
d="$WORK/dir with space"
mkdir -p "$d/bin" "$d/lib"
cp "$PW" "$d/bin/peerwatch"
cp "$B/lib/libpeerwatch.so" "$d/lib/"
"$d/bin/peerwatch" -q -o "$WORK/space-trace" -- "$T/exitrace" quick 0 >/dev/null 2>"$WORK/space.err"
rc1=$?
check "a bundle under a path with a space: the program runs ($rc1) and is traced" \
	all "[ $rc1 -eq 7 ]" "ls $WORK/space-trace/*.pw.jsonl >/dev/null" "! grep -q 'cannot be preloaded' $WORK/space.err"

# --- text from input reaches the terminal escaped ---------------------------------------------
printf 'rule=x col\033]0;owned\007or=1\n' >"$WORK/supp"
"$PW" -q -o "$WORK/supp-trace" --suppressions "$WORK/supp" -- "$T/exitrace" quick 0 >/dev/null 2>"$WORK/supp.err"
check "a suppressions file's control bytes are escaped in the warning" \
	all "grep -qF 'col\\x1b]0;owned\\x07or' $WORK/supp.err" "! grep -q \$'\\033' $WORK/supp.err" "! grep -q \$'\\007' $WORK/supp.err"

# --- the IPC registry's name and a segment nobody initialises --------------------------------
id="fault-$$-$RANDOM"
name=$("$T/shmname" "$id")
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
	install -o nobody -m 600 /dev/null "/dev/shm$name"
	PEERWATCH_RUN_ID=$id "$PW" -q -o "$WORK/squat" -- "$T/exitrace" quick 0 >/dev/null 2>"$WORK/squat.err"
	rc1=$?
	check "registry name taken by another user: the run goes on ($rc1) under another name, one line says so" \
		all "[ $rc1 -eq 7 ]" "[ \$(grep -c 'taken by another user' $WORK/squat.err) = 1 ]" \
		"! grep -q 'fall back to per-process' $WORK/squat.err"
	check "registry name taken by another user: that file is left alone" [ "$(stat -c %U "/dev/shm$name")" = nobody ]
	rm -f "/dev/shm$name"
else
	ok "registry name taken by another user # skip: needs root to be another user"
fi
id="fault-$$-$RANDOM"
name=$("$T/shmname" "$id")
truncate -s "$("$T/shmname" -s)" "/dev/shm$name"
chmod 600 "/dev/shm$name"
d="$WORK/stale"
mkdir -p "$d"
PEERWATCH_RUN_ID=$id "$PW" -q -o "$d/trace" -- "$T/exitrace" wait 1 >"$d/out1" 2>"$d/err1" &
pid=$!
for _ in $(seq 1000); do grep -q ready "$d/out1" 2>/dev/null && break; sleep 0.01; done
PEERWATCH_RUN_ID=$id "$PW" -q -o "$d/trace" -- "$T/exitrace" quick 0 >/dev/null 2>"$d/err2"
rc2=$?
kill $pid
wait $pid 2>/dev/null
check "a registry segment nobody initialises: the first process says so once and replaces it" \
	all "[ \$(grep -c 'never initialised' $d/err1) = 1 ]" "! grep -q 'fall back' $d/err1"
check "a registry segment nobody initialises: the next process uses the new one at once ($rc2)" \
	all "[ $rc2 -eq 7 ]" "[ ! -s $d/err2 ]"
rm -f "/dev/shm$name"

# --- no registry segment left behind -----------------------------------------------------------
# A run's segment goes when the run ends, however it ended: the launcher's
# watcher removes it once the run's processes are gone (subreaper returns
# only when the watcher, which outlives the program, has ended too); what a
# run started by hand leaves, the next run removes; peerwatch --clean on
# demand.  A segment in use, another user's, and a symbolic link at a run's
# name are never touched.  Checked by name: other runs' segments may share
# /dev/shm.  The programs are sleep(1) and bash: every traced process has the
# run's segment from its start.
segs() { # RUN_ID: the run's segments in /dev/shm, one a line
	local a n
	for a in 0 1 2 3; do
		n=$("$T/shmname" "$1" $a)
		if [ -e "/dev/shm$n" ] || [ -L "/dev/shm$n" ]; then echo "$n"; fi
	done
}
has_segment() { # RUN_ID: wait until the run has its segment
	local _
	for _ in $(seq 1000); do [ -n "$(segs "$1")" ] && return 0; sleep 0.01; done
	return 1
}
by_hand() { # RUN_ID PROGRAM [ARGS...]: exec it traced without the launcher (in a subshell: & or ())
	local id=$1
	shift
	PEERWATCH_RUN_ID=$id PEERWATCH_OPTIONS=out=$WORK/hand-trace:verbosity=0 \
		LD_PRELOAD="${LD_PRELOAD:+$LD_PRELOAD:}$B/lib/libpeerwatch.so" exec "$@"
}
export -f segs has_segment
export T # for them

d="$WORK/reap-kill"
mkdir -p "$d"
id="reap-kill-$$-$RANDOM"
cat >"$d/run" <<'SCRIPT'
"$PW" -q -o "$d/trace" -- sleep 600 &
pid=$!
has_segment "$PEERWATCH_RUN_ID" && echo yes >"$d/seen"
# (ps and pgrep without a sanitizer's runtime preloaded: pkill hung under it)
env -u LD_PRELOAD ps -o pid= --ppid $pid >"$d/children"
w=$(env -u LD_PRELOAD pgrep -f "peerwatch-reap watch $pid\$")
echo "$w" >"$d/watcher"
if [ -n "$w" ]; then
	env -u LD_PRELOAD ps -o sid= -p "$w" >"$d/sids"
	env -u LD_PRELOAD ps -o sid= -p $pid >>"$d/sids"
	for f in /proc/"$w"/fd/*; do echo "${f##*/} $(readlink "$f")"; done >"$d/fds"
fi
{
	kill -KILL $pid
	wait $pid
	echo $? >"$d/rc"
} 2>/dev/null
SCRIPT
limited 120 env PEERWATCH_RUN_ID=$id PW=$PW d=$d "$T/subreaper" bash "$d/run"
check "registry, SIGKILL under the launcher: the program dies of it ($(cat "$d/rc")), it had its segment" \
	all "[ \"\$(cat $d/rc)\" = 137 ]" "[ -s $d/seen ]"
check "registry, SIGKILL under the launcher: the watcher is not the program's child" \
	all "[ \$(wc -w <$d/watcher) -eq 1 ]" "[ ! -s $d/children ]"
check "registry, SIGKILL under the launcher: the watcher has a session of its own, /dev/null for 0-2, and only its pidfd" \
	all "[ \$(sort -u $d/sids | wc -l) -eq 2 ]" \
	"[ \"\$(grep -v ' /dev/null\$' $d/fds | sed 's/^[0-9]* //')\" = 'anon_inode:[pidfd]' ]" \
	"[ \$(grep -c '^[012] /dev/null\$' $d/fds) -eq 3 ]"
check "registry, SIGKILL under the launcher: no segment of the run is left" [ -z "$(segs "$id")" ]

# Ctrl-C: SIGINT to the program's process group kills the program (its
# status says so to its caller); the watcher, in a session of its own, is
# not hit and removes the segment.
d="$WORK/reap-int"
mkdir -p "$d"
id="reap-int-$$-$RANDOM"
cat >"$d/run" <<'SCRIPT'
setsid "$PW" -q -o "$d/trace" -- "$T/exitrace" wait 1 >"$d/out" &
pid=$!
for _ in $(seq 1000); do grep -q ready "$d/out" 2>/dev/null && break; sleep 0.01; done
kill -INT -- -$pid
wait $pid
echo $? >"$d/rc"
SCRIPT
limited 120 env PEERWATCH_RUN_ID=$id PW=$PW d=$d "$T/subreaper" bash "$d/run"
check "registry, Ctrl-C under the launcher: the program dies of SIGINT ($(cat "$d/rc")), no segment left" \
	all "[ \"\$(cat $d/rc)\" = 130 ]" "[ -z \"\$(segs $id)\" ]"

d="$WORK/reap-abort"
mkdir -p "$d"
id="reap-abort-$$-$RANDOM"
(
	ulimit -c 0
	limited 120 env PEERWATCH_RUN_ID=$id "$T/subreaper" "$PW" -q -o "$d/trace" -- bash -c 'echo out; kill -ABRT $$'
) >"$d/out" 2>"$d/err"
rc=$?
check "registry, SIGABRT under the launcher: status $rc (134), the program's output alone, no segment left" \
	all "[ $rc -eq 134 ]" "[ \"\$(cat $d/out)\" = out ]" "[ ! -s $d/err ]" "[ -z \"\$(segs $id)\" ]"

# The program is killed, its child (of the run) goes on: the segment is in
# use while the child runs, and goes once the child is killed too.
d="$WORK/reap-child"
mkdir -p "$d"
id="reap-child-$$-$RANDOM"
cat >"$d/run" <<'SCRIPT'
"$PW" -q -o "$d/trace" -- bash -c 'sleep 600 & echo $! >"$d/child"; wait' &
pid=$!
for _ in $(seq 1000); do [ -s "$d/child" ] && break; sleep 0.01; done
has_segment "$PEERWATCH_RUN_ID"
{
	kill -KILL $pid
	wait $pid
} 2>/dev/null
"$PW" --clean >/dev/null
[ -n "$(segs "$PEERWATCH_RUN_ID")" ] && echo yes >"$d/kept"
kill -KILL "$(cat "$d/child")"
SCRIPT
limited 120 env PEERWATCH_RUN_ID=$id PW=$PW d=$d "$T/subreaper" bash "$d/run"
check "registry, the killed program's child goes on: the run's segment is in use, kept (by --clean too)" \
	[ -s "$d/kept" ]
check "registry, the killed program's child goes on: the segment goes once the child is killed too" \
	[ -z "$(segs "$id")" ]

# By hand, no launcher: a killed run's segment stays until the next run
# (the one that is running meanwhile started first).
idk="hand-killed-$$-$RANDOM"
idl="hand-live-$$-$RANDOM"
by_hand "$idl" sleep 600 &
live=$!
has_segment "$idl"
{ (by_hand "$idk" bash -c 'kill -KILL $$'); } 2>/dev/null
check "registry by hand: a run killed by SIGKILL leaves its segment (nothing watches it)" [ -n "$(segs "$idk")" ]
PEERWATCH_RUN_ID="hand-next-$$-$RANDOM" PEERWATCH_OPTIONS=out=$WORK/hand-trace:verbosity=2 \
	LD_PRELOAD="${LD_PRELOAD:+$LD_PRELOAD:}$B/lib/libpeerwatch.so" sleep 0 2>"$WORK/hand-next.err"
check "registry by hand: the next run removes it, and says so at verbosity 2" \
	all "[ -z \"\$(segs $idk)\" ]" "grep -q 'IPC registry: removed [0-9]* stale segments\\? of earlier runs' $WORK/hand-next.err"
check "registry by hand: a running run's segment is kept" [ -n "$(segs "$idl")" ]
{
	kill -KILL $live
	wait $live
} 2>/dev/null

# peerwatch --clean: the stale ones go; one in use, another user's, a
# symbolic link (and what it points to) and a file that is no registry stay.
d="$WORK/reap-clean"
mkdir -p "$d"
ida="clean-a-$$-$RANDOM"
idb="clean-b-$$-$RANDOM"
idl="clean-live-$$-$RANDOM"
by_hand "$ida" sleep 600 &
a=$!
by_hand "$idb" sleep 600 &
b=$!
by_hand "$idl" sleep 600 &
live=$!
has_segment "$ida" && has_segment "$idb" && has_segment "$idl"
{
	kill -KILL $a $b
	wait $a $b
} 2>/dev/null
check "--clean: two runs killed by hand left their segments" all "[ -n \"\$(segs $ida)\" ]" "[ -n \"\$(segs $idb)\" ]"
stale=$(segs "$ida")
foreign="/dev/shm$("$T/shmname" "clean-foreign-$$-$RANDOM")"
link="/dev/shm$("$T/shmname" "clean-link-$$-$RANDOM")"
junk="/dev/shm$("$T/shmname" "clean-junk-$$-$RANDOM")"
cp "/dev/shm$stale" "$d/victim" # a registry nobody uses, reached through a link
sum=$(cksum <"$d/victim")
ln -s "$d/victim" "$link"
head -c 4096 /dev/urandom >"$junk"
chmod 600 "$junk"
have_foreign=
if [ "$(id -u)" = 0 ] && cp "/dev/shm$stale" "$foreign" && chown 65534 "$foreign"; then
	have_foreign=$(cksum <"$foreign")
fi
"$PW" --clean >"$d/out" 2>"$d/err"
rc=$?
n=$(sed -n 's/^peerwatch: removed \([0-9]*\) stale registry segments ([0-9.]* MiB).*/\1/p' "$d/out")
check "--clean: exit $rc (0), one line: removed N stale registry segments (X MiB) ($(cat "$d/out"))" \
	all "[ $rc -eq 0 ]" "[ \$(wc -l <$d/out) -eq 1 ]" "[ ! -s $d/err ]" "[ ${n:-0} -ge 2 ]"
check "--clean: the killed runs' segments are gone" all "[ -z \"\$(segs $ida)\" ]" "[ -z \"\$(segs $idb)\" ]"
check "--clean: the running run's segment is kept" [ -n "$(segs "$idl")" ]
check "--clean: a symbolic link under a registry's name and what it points to are untouched" \
	all "[ -L $link ]" "[ \"\$(cksum <$d/victim)\" = '$sum' ]"
check "--clean: a file under a registry's name that is no registry is kept, and counted" \
	all "[ -f $junk ]" "grep -q '; [0-9]* that this version cannot read, left alone' $d/out"
if [ -n "$have_foreign" ]; then
	check "--clean: another user's segment is untouched" \
		all "[ \"\$(stat -c %u $foreign)\" = 65534 ]" "[ \"\$(cksum <$foreign)\" = '$have_foreign' ]"
else
	ok "--clean: another user's segment is untouched # skip: needs root to be another user"
fi
{
	kill -KILL $live
	wait $live
} 2>/dev/null
lname=$(segs "$idl")
"$PW" -v --clean >"$d/out-v" 2>&1
rc=$?
check "--clean -v: exit $rc (0), names each segment it removes" \
	all "[ $rc -eq 0 ]" "[ -n '$lname' ]" "grep -qx 'peerwatch: removed /dev/shm$lname (0.6 MiB)' $d/out-v"
"$PW" -q --clean >"$d/out-q" 2>&1
rc=$?
check "--clean -q: exit $rc (0), says nothing" all "[ $rc -eq 0 ]" "[ ! -s $d/out-q ]"
"$PW" --clean true >/dev/null 2>"$d/prog.err"
rc=$?
check "--clean with a program: refused, status $rc (2)" all "[ $rc -eq 2 ]" "grep -q 'runs no program' $d/prog.err"
rm -f "$link" "$junk" "$foreign"

# A symbolic link at the run's first name: passed over for the next name,
# with one line; the link and what it points to are left alone.
d="$WORK/reap-link"
mkdir -p "$d"
id="reap-link-$$-$RANDOM"
name=$("$T/shmname" "$id")
printf 'precious\n' >"$d/victim"
ln -s "$d/victim" "/dev/shm$name"
PEERWATCH_RUN_ID=$id "$PW" -q -o "$d/trace" -- "$T/exitrace" quick 0 >/dev/null 2>"$d/err"
rc=$?
check "registry, a symbolic link at the run's name: the run goes on ($rc) under its next name, one line says so" \
	all "[ $rc -eq 7 ]" "[ \$(grep -c 'taken by a symbolic link; trying another name' $d/err) = 1 ]" \
	"! grep -q 'fall back to per-process' $d/err"
check "registry, a symbolic link at the run's name: the link and its target are left alone" \
	all "[ -L /dev/shm$name ]" "[ \"\$(cat $d/victim)\" = precious ]"
rm -f "/dev/shm$name"

echo "fault: $pass passed, $fail failed"
[ $fail -eq 0 ]
