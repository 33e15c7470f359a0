#!/bin/bash
# The contract table (tests/integration/contract_table.txt): every row, a
# vendor's documented sentence and a program that breaks it once or keeps
# it, run under peerwatch in warn mode.  A row passes when its sentence is
# in what its rule cites for that vendor, its severity is the rule's, the
# program exits 0, and the trace holds exactly the one finding expected
# (that rule, that severity) or, for a clean row, none.  Last, every rule's
# sentence of every vendor (peerwatch-analyze rules --json) must have rows,
# and each CUDA quote must be NVIDIA's word for word (tests/integration/
# quotes.py, where the CUDA toolkit's headers are).
#
#   tests/integration/contract_table.sh BUILD_DIR [TABLE]
#
# Prints a line per row ("ok - ..." / "not ok - ...") and, last,
# "contract: N passed, N failed"; exits non-zero on any failed row.
set -u
B=$(cd "${1:-build}" && pwd)
TABLE=${2:-$(dirname "${BASH_SOURCE[0]}")/contract_table.txt}
PW="$B/bin/peerwatch"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pw-contract.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export LD_LIBRARY_PATH="$B/sim${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"
export PEERWATCH_RUN_ID="contract-test-$$"

"$B/bin/peerwatch-analyze" rules --json >"$WORK/rules.json" 2>"$WORK/rules.err" ||
	{ echo "contract: peerwatch-analyze rules failed: $(tail -1 "$WORK/rules.err")"; exit 1; }

trim() { local s=$1; s=${s#"${s%%[![:space:]]*}"}; printf '%s' "${s%"${s##*[![:space:]]}"}"; }

n=0
while IFS= read -r line || [ -n "$line" ]; do
	case $line in '' | '#'*) continue ;; esac
	n=$((n + 1))
	IFS='|' read -r vendor rule expect envs cmd sentence <<<"$line"
	vendor=$(trim "$vendor") rule=$(trim "$rule") expect=$(trim "$expect")
	envs=$(trim "$envs") cmd=$(trim "$cmd") sentence=$(trim "$sentence")
	name="$vendor $rule: $cmd ($expect)"
	why=
	# the sentence is the rule's own, for this vendor, and the severity its
	if ! jq -e --arg r "$rule" --arg v "$vendor" --arg s "$sentence" \
		'.rules[] | select(.id == $r) | .contract[] | select(.vendor == $v) | .quote | contains($s)' \
		"$WORK/rules.json" >/dev/null 2>&1; then
		why="the rule cites no such sentence for $vendor"
	elif [ "$expect" != clean ] && ! jq -e --arg r "$rule" --arg e "$expect" \
		'.rules[] | select(.id == $r) | .severity == $e' "$WORK/rules.json" >/dev/null 2>&1; then
		why="$rule is not of severity $expect"
	fi
	if [ -n "$why" ]; then
		bad "$name: $why"
		continue
	fi
	d="$WORK/row$n"
	mkdir -p "$d"
	read -r -a argv <<<"${cmd//\{B\}/$B}"
	argv[0]="$B/tests/${argv[0]}"
	env_args=()
	[ "$envs" = - ] || read -r -a env_args <<<"${envs//\{B\}/$B}"
	env -u PWSIM_DEVICES -u PWSIM_PEERS -u CUDA_VISIBLE_DEVICES "${env_args[@]}" \
		"$PW" -q -o "$d/trace" --mode warn -- "${argv[@]}" >"$d/out" 2>"$d/err"
	rc=$?
	got=$(cat "$d"/trace/*.pw.jsonl 2>/dev/null | jq -r 'select(.type=="violation") | .rule + ":" + .severity' |
		tr '\n' ' ')
	want=
	[ "$expect" = clean ] || want="$rule:$expect "
	if [ $rc -ne 0 ]; then
		bad "$name: the program exited $rc"
		diag stderr "$d/err"
	elif [ "$got" != "$want" ]; then
		bad "$name: findings ${got:-none}, expected ${want:-none}"
	else
		ok "$name"
	fi
done <"$TABLE"

[ $n -gt 0 ] || bad "no rows in $TABLE"

# Every vendor's sentence of every rule has its rows: none is left to chance.
missing=$(jq -r '.rules[] | .id as $r | .contract[] | "\(.vendor) \($r)"' "$WORK/rules.json" | sort -u |
	while read -r v r; do
		grep -Eq "^$v \| $r \|" "$TABLE" || echo "$v $r"
	done | tr '\n' ',' | sed 's/,$//; s/,/, /g')
check "every rule's sentence of every vendor has rows in the table${missing:+ (missing: $missing)}" [ -z "$missing" ]
# CUDA's quotes word for word, against the toolkit's headers where they are
# (CUDA_INCLUDE, else nvcc's, else /usr/local/cuda): tests/integration/quotes.py.
inc=${CUDA_INCLUDE:-}
[ -z "$inc" ] && command -v nvcc >/dev/null 2>&1 && inc=$(dirname "$(command -v nvcc)")/../include
[ -f "${inc:-/nonexistent}/cuda.h" ] || inc=/usr/local/cuda/include
if [ -f "$inc/cuda.h" ] && command -v python3 >/dev/null 2>&1; then
	while IFS= read -r line; do
		case $line in
		"ok - "*) ok "${line#ok - }" ;;
		"not ok - "*) bad "${line#not ok - }" ;;
		esac
	done < <(python3 "$(dirname "${BASH_SOURCE[0]}")/quotes.py" "$WORK/rules.json" "$inc")
else
	echo "skip - quotes: no CUDA toolkit headers (cuda.h) here to hold CUDA's quotes to"
fi

echo "contract: $pass passed, $fail failed"
[ $fail -eq 0 ]
