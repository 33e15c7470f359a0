#!/bin/bash
# The program's descriptors on the real driver (tests/gpu/README.md,
# "Descriptors"):
#   1. a daemon (tests/fault/fdprog.c: closes 3..1023, opens its files,
#      makes calls with findings) writes the same output traced and
#      untraced, in warn mode with and without stacks;
#   2. under strace (where it is installed and may trace), no thread of the
#      traced process but the program's own gets a descriptor below 1000
#      while the program runs: the trace writer opens nothing there, the
#      management library being asked in the program's first call;
#   3. what that first call costs (first_call.c): untraced, and traced with
#      each library given as NAME=PATH in PW_FD_LIBS (default: the bundle's),
#      5 runs each, side by side.
#
#   tests/gpu/fd_gpu.sh DIR    (DIR: make gpu-carry's folder, or BUILD/gpu
#                               with BUILD/bin/peerwatch beside it)
set -u
G=$(cd "${1:-build/gpu}" && pwd)
PW=${PW:-$G/../bin/peerwatch}
WORK=${PW_GPU_WORK:-$(mktemp -d "${TMPDIR:-/tmp}/pw-fd.XXXXXX")}
mkdir -p "$WORK"
pass=0
fail=0
check() { if "${@:2}"; then pass=$((pass + 1)); echo "ok - $1"; else fail=$((fail + 1)); echo "not ok - $1"; fi; }

d=$WORK/daemon
mkdir -p "$d"
printf 'HELLO-INPUT\n' >"$d/in"
"$G/fdprog" daemon "$d/in" "$d/want" >"$d/out.want" 2>"$d/err.want"
rc0=$?
echo "== untraced: status $rc0, $(head -1 "$d/want")"
for opts in "-m warn" "-m warn --stacks none" "-m observe --stacks all"; do
	slug=${opts// /}
	# shellcheck disable=SC2086 # the words of opts are options
	"$PW" -q $opts -o "$d/trace$slug" -- "$G/fdprog" daemon "$d/in" "$d/got$slug" >"$d/out$slug" 2>"$d/err$slug"
	rc1=$?
	check "daemon ($opts): status $rc1 (untraced $rc0), its file and stdout byte for byte" \
		eval "[ $rc1 -eq $rc0 ] && cmp -s '$d/want' '$d/got$slug' && cmp -s '$d/out.want' '$d/out$slug'"
	diff "$d/want" "$d/got$slug" | head -4 | sed 's/^/#   its file: /'
	f=$(ls "$d/trace$slug"/*.pw.jsonl 2>/dev/null | head -1)
	check "daemon ($opts): a finished trace with the device line" \
		eval "[ -n '$f' ] && grep -q '\"type\":\"device\"' '$f'"
done

"$(dirname "${BASH_SOURCE[0]}")/thread_fds.sh" "$d/strace" "$d/low" fdprog \
	-- "$PW" -q -m warn -o "$d/trace-strace" -- "$G/fdprog" daemon "$d/in" "$d/got-strace" >/dev/null 2>"$d/err-strace"
rc1=$?
if [ $rc1 -eq 125 ]; then
	echo "skip - the writer's descriptors: $(tail -1 "$d/err-strace")"
else
	check "the writer's descriptors: none below 1000 on another thread while the program runs" \
		eval "[ $rc1 -eq $rc0 ] && [ ! -s '$d/low' ] && cmp -s '$d/want' '$d/got-strace'"
	sed 's/^/#   /' "$d/low" | head -5
	echo "== the program's thread, its opens of the management library and the device files:"
	grep -E 'nvidia-ml|/dev/nvidia' "$d/strace" | cut -c1-150 | sed 's/^/#   /' | head -16
fi

echo "== the first traced call (first_call: cuDeviceCanAccessPeer after cuInit), 5 runs each"
libs=${PW_FD_LIBS:-}
for _ in 1 2 3 4 5; do
	printf 'untraced      %s\n' "$("$G/first_call")"
	if [ -z "$libs" ]; then
		printf 'traced        %s\n' "$("$PW" -q -o "$WORK/fc" -- "$G/first_call")"
	else
		for nl in $libs; do
			printf '%-13s %s\n' "${nl%%=*}" "$(PEERWATCH_LIB="${nl#*=}" "$PW" -q -o "$WORK/fc" -- "$G/first_call")"
		done
	fi
done | tee "$WORK/first_call.txt"
echo "fd_gpu: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
