#!/bin/bash
# The bash completion of peerwatch and peerwatch-analyze
# (scripts/completion.bash), without the bash-completion package: each case
# sets COMP_LINE/COMP_POINT/COMP_WORDS/COMP_CWORD as bash does, calls the
# completion function and compares COMPREPLY.  Then the option lists it
# offers against `peerwatch --help`, `peerwatch-analyze --help` and the
# library's own help=1 list, so that a new option cannot be forgotten here.
#
#   tests/packaging/completion.sh BUILD_DIR       last line "completion: N passed, M failed"
set -u
B=$(cd "${1:-build}" && pwd)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pw-completion.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok - $*"; }
bad() { fail=$((fail + 1)); echo "not ok - $*"; }

# shellcheck source=../../scripts/completion.bash
. "$ROOT/scripts/completion.bash"

# COMP_WORDS as bash splits a line: on blanks, and '=' and ':' (of
# COMP_WORDBREAKS) as words of their own.
split_words() {
	local line=$1 w=
	COMP_WORDS=()
	local i c
	for ((i = 0; i < ${#line}; i++)); do
		c=${line:i:1}
		case $c in
		' ') [ -n "$w" ] && COMP_WORDS+=("$w"); w= ;;
		'=' | ':')
			[ -n "$w" ] && COMP_WORDS+=("$w")
			w=
			COMP_WORDS+=("$c")
			;;
		*) w+=$c ;;
		esac
	done
	COMP_WORDS+=("$w") # the word being completed, maybe empty
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
}

# complete LINE: COMPREPLY, sorted, one line
complete_line() {
	local line=$1 fn
	COMP_LINE=$line
	COMP_POINT=${#line}
	split_words "$line"
	case $line in peerwatch-analyze*) fn=_peerwatch_analyze ;; *) fn=_peerwatch ;; esac
	COMPREPLY=()
	$fn peerwatch "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]:-}" 2>/dev/null
	printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ' | sed 's/ $//'
}

expect() { # LINE EXPECTED
	local got
	got=$(complete_line "$1")
	if [ "$got" = "$2" ]; then ok "'$1' completes to '$2'"; else bad "'$1' completes to '$got', not '$2'"; fi
}
expect_has() { # LINE WORD: WORD is among the completions
	local got
	got=$(complete_line "$1")
	if [[ " $got " == *" $2 "* ]]; then ok "'$1' offers '$2'"; else bad "'$1' offers '$got', not '$2'"; fi
}

# ---- peerwatch ----
expect "peerwatch --mo" "--mode"
expect "peerwatch --mode " "enforce observe warn"
expect "peerwatch -m w" "warn"
expect "peerwatch --mode=en" "enforce"
expect "peerwatch --halt-on " "error performance warning"
expect "peerwatch --stacks a" "all"
expect "peerwatch --gpu-timing " "cupti events none"
expect "peerwatch --options gpu_timing=" "0 1 cupti events"
expect "peerwatch --options um_c" "um_counters="
expect "peerwatch-analyze managed --eff" "--effects"
expect "peerwatch-analyze check --eff" ""
expect "peerwatch --options mode=e" "enforce"
expect "peerwatch --options out=/tmp:stack" "stack_depth= stacks="
expect "peerwatch --options registry=" "0 1"
expect "peerwatch --options gpu_t" "gpu_timing="
mkdir -p "$WORK/traces/run1" "$WORK/traces/run2"
touch "$WORK/traces/file.txt" "$WORK/libx.so" "$WORK/notlib.txt"
expect "peerwatch -o $WORK/traces/r" "$WORK/traces/run1/ $WORK/traces/run2/"
expect "peerwatch --out=$WORK/traces/r" "$WORK/traces/run1/ $WORK/traces/run2/"
expect "peerwatch --lib $WORK/" "$WORK/libx.so $WORK/traces/"
expect "peerwatch --suppressions $WORK/traces/f" "$WORK/traces/file.txt"
expect_has "peerwatch -- bas" "bash"
expect_has "peerwatch -q bas" "bash"
expect_has "peerwatch --ranks 0-1 bas" "bash"
# the program's own arguments: files (its own completion, with bash-completion)
expect "peerwatch -m warn ls $WORK/traces/fi" "$WORK/traces/file.txt"
expect "peerwatch -o $WORK/x -- ls $WORK/traces/fi" "$WORK/traces/file.txt"

# ---- peerwatch-analyze ----
expect "peerwatch --color " "always auto never"
expect "peerwatch --colour=n" "never"
expect "peerwatch --options color=al" "always"
expect "peerwatch --options ra" "ranks="
expect "peerwatch --ran" "--ranks"
expect "peerwatch --cl" "--clean"
expect "peerwatch --clean " "" # it runs no program
expect "peerwatch-analyze ch" "check"
expect "peerwatch-analyze " "check help info ipc managed matrix ops report rules summary timeline violations"
expect "peerwatch-analyze check --format " "json junit sarif text"
expect "peerwatch-analyze violations --format=s" "sarif"
expect "peerwatch-analyze summary --format " "json text"
expect "peerwatch-analyze check --f" "--fail-on --format"
expect "peerwatch-analyze summary --f" "--format"
expect "peerwatch-analyze check --fail-on w" "warning"
expect "peerwatch-analyze check --color=" "always auto never"
expect "peerwatch-analyze timeline -" "--color --colour --format --help --jobs --json --no-progress --output --strict --version -V -h -j -o"
expect "peerwatch-analyze report -" "--allow-partial --color --colour --fail-on --help --jobs --no-derived --no-progress --output --strict --version -V -h -j -o"
touch "$WORK/traces/a.pw.jsonl" "$WORK/traces/b.pw.jsonl.partial"
expect "peerwatch-analyze summary $WORK/traces/" \
	"$WORK/traces/a.pw.jsonl $WORK/traces/b.pw.jsonl.partial $WORK/traces/run1/ $WORK/traces/run2/"
expect "peerwatch-analyze rules " ""

# ---- the lists against the programs' own ----
launcher=$("$B/bin/peerwatch" --help | grep -oE '(^|[ ,])-{1,2}[a-zA-Z][a-z-]*' | tr -d ' ,' | sort -u | tr '\n' ' ')
mine=$(printf '%s\n' $_peerwatch_launcher_opts | grep -v -- --colour | sort -u | tr '\n' ' ')
if [ "$launcher" = "$mine" ]; then ok "the launcher's options are those of peerwatch --help"; else
	bad "the launcher's options differ from peerwatch --help: '$mine' vs '$launcher'"
fi
analyzer=$("$B/bin/peerwatch-analyze" --help | sed -n '/^options:/,/^exit status:/p' |
	grep -oE '(^|[ ,])-{1,2}[a-zA-Z][a-z-]*' | tr -d ' ,' | sort -u | tr '\n' ' ')
mine=$(printf '%s\n' $_peerwatch_analyze_opts | grep -v -- --colour | sort -u | tr '\n' ' ')
if [ "$analyzer" = "$mine" ]; then ok "the analyzer's options are those of peerwatch-analyze --help"; else
	bad "the analyzer's options differ from peerwatch-analyze --help: '$mine' vs '$analyzer'"
fi
cmds=$("$B/bin/peerwatch-analyze" --help | sed -n '/^commands:/,/^$/p' | awk 'NR > 1 && NF {print $1}' | sort | tr '\n' ' ')
mine=$(printf '%s\n' $_peerwatch_analyze_cmds | grep -vx help | sort | tr '\n' ' ')
if [ "$cmds" = "$mine" ]; then ok "the analyzer's commands are those of its --help"; else
	bad "the analyzer's commands differ from its --help: '$mine' vs '$cmds'"
fi
# under SAN=1 the sanitizer runtime must come first in LD_PRELOAD
keys=$(PEERWATCH_OPTIONS=help=1:registry=0 ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0 \
	LD_PRELOAD="${PW_ASAN_RUNTIME:+$PW_ASAN_RUNTIME:}$B/lib/libpeerwatch.so" /bin/true 2>&1 >/dev/null |
	awk '/^  [a-z_]+ / {print $1}' | sort | tr '\n' ' ')
mine=$(printf '%s\n' $_peerwatch_library_keys | sort | tr '\n' ' ')
if [ -n "$keys" ] && [ "$keys" = "$mine" ]; then ok "the --options keys are the library's (help=1)"; else
	bad "the --options keys differ from the library's help=1: '$mine' vs '$keys'"
fi

echo "completion: $pass passed, $fail failed"
[ $fail -eq 0 ]
