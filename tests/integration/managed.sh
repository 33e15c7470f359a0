#!/bin/bash
# Managed memory, case by case, on the simulated runtimes: every case of
# tests/integration/managed.c (CUDA driver and runtime API) and
# managed_hip.c (HIP .5, .6, .7), each once wrong ("bad": exactly its one
# finding, with its words; the simulated driver answers what the H100
# answered) and once right ("good": no finding, success).  Cases that depend
# on the devices' pageable memory access run again with PWSIM_PAGEABLE=1
# (an HMM/ATS system), where the same call is right; the trace header
# records what the devices said.
#   tests/integration/managed.sh BUILD_DIR
set -u
B=$(cd "${1:-build}" && pwd)
PW="$B/bin/peerwatch"
M="$B/tests/managed"
MH="$B/tests/managed_hip"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pw-managed.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export LD_LIBRARY_PATH="$B/sim${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"
export PEERWATCH_RUN_ID="managed-test-$$"

found() { cat "$1"/trace/*.pw.jsonl 2>/dev/null | jq -r 'select(.type=="violation") | .rule' | tr '\n' ' '; }
messages() { cat "$1"/trace/*.pw.jsonl 2>/dev/null | jq -r 'select(.type=="violation") | .message'; }
ret_of() { sed -n 's/^ret //p' "$1/out"; }

# run DIR ENV PROGRAM ARGS...: under the launcher, warn mode
run() {
	local d=$1 envs=$2
	shift 2
	mkdir -p "$d"
	env PWSIM_DEVICES=2 $envs "$PW" -q -o "$d/trace" --mode warn -- "$@" >"$d/out" 2>"$d/err"
}

# one_case TAG ENV WANT_RULE WANT_RET MESSAGE PROGRAM CASE: bad and good
one_case() {
	local tag=$1 envs=$2 rule=$3 want=$4 frag=$5 prog=$6 name=$7
	local d="$WORK/$tag-bad" g="$WORK/$tag-good" got
	if ! run "$d" "$envs" "$prog" "$name" bad; then
		bad "$tag: the program failed: $(tail -2 "$d/err")"
		return
	fi
	if grep -qx skip "$d/out"; then
		ok "$tag: skipped (this runtime lacks the call)"
		return
	fi
	got=$(found "$d")
	if [ "$rule" = "-" ]; then
		check "$tag: the call gets no finding (got: ${got:-none})" [ -z "$got" ]
	else
		check "$tag: exactly $rule (got: ${got:-none})" [ "$got" = "$rule " ]
		[ "$frag" = "-" ] || check "$tag: the finding says '$frag' ($(messages "$d" | head -1))" \
			bash -c 'grep -qF -- "$1" <<<"$2"' _ "$frag" "$(messages "$d")"
		check "$tag: no 'device -2147483648' in the words" bash -c '! grep -q -- "-2147483648" <<<"$1"' _ \
			"$(messages "$d")"
	fi
	[ "$want" = "-" ] || check "$tag: the simulated runtime answers $want (got $(ret_of "$d"))" \
		[ "$(ret_of "$d")" = "$want" ]
	if ! run "$g" "$envs" "$prog" "$name" good; then
		bad "$tag: the near miss failed: $(tail -2 "$g/err")"
		return
	fi
	got=$(found "$g")
	check "$tag: the near miss gets no finding (got: ${got:-none})" [ -z "$got" ]
	check "$tag: the near miss succeeds (got $(ret_of "$g"))" [ "$(ret_of "$g")" = 0 ]
}

# --- CUDA driver and runtime API ---------------------------------------------------
"$M" list >"$WORK/cases" || bad "managed list failed"
while read -r name rule h100 flags frag; do
	one_case "$name" "" "$rule" "$h100" "$frag" "$M" "$name"
	if [ "$flags" = pageable ]; then
		# where the devices access pageable memory (Grace Hopper) the same call is right
		d="$WORK/$name-hmm"
		run "$d" "PWSIM_PAGEABLE=1" "$M" "$name" bad
		got=$(found "$d")
		check "$name with pageable memory access: no finding (got: ${got:-none})" [ -z "$got" ]
		check "$name with pageable memory access: the simulated driver takes it (got $(ret_of "$d"))" \
			[ "$(ret_of "$d")" = 0 ]
		h=$(head -1 "$d"/trace/*.pw.jsonl 2>/dev/null)
		check "$name with pageable memory access: the header records it per device" \
			jq -e '.vendors.cuda.pageable_memory_access == [1, 1]' <<<"$h" >/dev/null
		h=$(head -1 "$WORK/$name-bad"/trace/*.pw.jsonl 2>/dev/null)
		check "$name: the header records no pageable memory access" \
			jq -e '.vendors.cuda.pageable_memory_access == [0, 0]' <<<"$h" >/dev/null
	fi
done <"$WORK/cases"
check "managed: every case ran ($(wc -l <"$WORK/cases") cases)" [ "$(wc -l <"$WORK/cases")" -ge 40 ]

# --- HIP: the three simulated runtimes -----------------------------------------------
simlib() { # MAJOR
	find "$B/sim" -name "libamdhip64.so.$1" \( -type f -o -type l \) 2>/dev/null | sort | head -1
}
if [ -x "$MH" ]; then
	"$MH" list >"$WORK/hcases" || bad "managed_hip list failed"
	for major in 5 6 7; do
		lib=$(simlib $major)
		if [ -z "$lib" ]; then
			bad "HIP $major: no simulated libamdhip64.so.$major under $B/sim"
			continue
		fi
		while read -r name rule ret frag; do
			one_case "$name.$major" "PW_HIP_LIB=$lib" "$rule" "$ret" "$frag" "$MH" "$name"
		done <"$WORK/hcases"
	done
else
	bad "managed_hip is not built"
fi

echo "managed: $pass passed, $fail failed"
[ $fail -eq 0 ]
