#!/usr/bin/env bash
# The query's latency lines under each way of pacing it (latency.sh -W),
# rounds interleaved: round r runs latency.sh once per pace, one after the
# other, until the time is up; then each pace's rounds are pooled
# (latency.sh -S) into a report of its own, after the first line of its last
# run's (which says how it ran).
#
#   tests/gpu/latency_paces.sh [-t SECONDS] [-w PACES] [-o DIR] [-p DIR] NAME=BUNDLE
#     -t SECONDS  start no round after this many seconds, the first
#                 round always runs (default 440)
#     -w PACES    the paces, each PACE or PACE/OPTIONS (peerwatch options for
#                 that pace's traced runs, latency.sh -X), separated by
#                 spaces (default "scaled equal spin"); e.g.
#                 "equal none/buffer_kb=4096"
#     -o DIR      raw.LABEL.txt and report.LABEL.txt go here (LABEL: the
#                 pace, its options after a '.', '=' and ':' as '-' and '.';
#                 default /tmp/pw-paces)
#     -p DIR      the programs (as latency.sh -p)
#
# Each run: -r 1 -n 10000 -m observe -O can-ab (the query is the one call
# that is paced).  tests/gpu/RESULTS.md, 2026-11-28, has what it showed.
set -u -o pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
LIMIT=440 OUT=/tmp/pw-paces PROGS='' PACES="scaled equal spin"
while getopts "t:w:o:p:" o; do
	case $o in
	t) LIMIT=$OPTARG ;;
	w) PACES=$OPTARG ;;
	o) OUT=$OPTARG ;;
	p) PROGS=$OPTARG ;;
	*) sed -n '2,21p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || { echo "latency_paces.sh: name one bundle (NAME=BUNDLE)" >&2; exit 2; }
[[ "$LIMIT" =~ ^[0-9]+$ ]] || { echo "latency_paces.sh: -t wants seconds, not '$LIMIT'" >&2; exit 2; }
declare -A PACE XOPT
LABELS=()
for spec in $PACES; do
	p=${spec%%/*} x=''
	[ "$p" = "$spec" ] || x=${spec#*/}
	case $p in equal | scaled | spin | none) ;; *) echo "latency_paces.sh: -w: '$p' is not a pace (equal, scaled, spin, none)" >&2; exit 2 ;; esac
	l=$p${x:+.$x} l=${l//=/-} l=${l//:/.}
	[[ "$l" =~ ^[A-Za-z0-9._-]+$ ]] || { echo "latency_paces.sh: -w: '$spec' makes no file name" >&2; exit 2; }
	PACE[$l]=$p XOPT[$l]=$x
	LABELS+=("$l")
done
[ ${#LABELS[@]} -ge 1 ] || { echo "latency_paces.sh: -w names no pace" >&2; exit 2; }
mkdir -p "$OUT" || exit 2
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pw-paces.XXXXXX") || exit 2
trap 'rm -rf "$WORK"' EXIT
for w in "${LABELS[@]}"; do : >"$OUT/raw.$w.txt"; done
start=$(date +%s) r=0
while [ "$r" -eq 0 ] || [ $(($(date +%s) - start)) -lt "$LIMIT" ]; do
	r=$((r + 1))
	for w in "${LABELS[@]}"; do
		rm -rf "$WORK/o"
		if ! "$here/latency.sh" -r 1 -n 10000 -m observe -O can-ab -W "${PACE[$w]}" -X "${XOPT[$w]}" ${PROGS:+-p "$PROGS"} \
			-o "$WORK/o" "$1" >"$WORK/report" 2>&1; then
			echo "latency_paces.sh: round $r, pace $w failed:" >&2
			tail -5 "$WORK/report" >&2
			exit 1
		fi
		awk -v r="$r" '{ $1 = r; print }' "$WORK/o/raw.txt" >>"$OUT/raw.$w.txt"
		head -1 "$WORK/report" >"$WORK/head.$w" # how it ran: the pace, the options
	done
	echo "  round $r done ($(($(date +%s) - start)) s)" >&2
done
for w in "${LABELS[@]}"; do
	{ cat "$WORK/head.$w" && "$here/latency.sh" -S -o "$WORK/p.$w" "$OUT/raw.$w.txt"; } >"$OUT/report.$w.txt" || exit 1
	echo "== pace $w ($OUT/report.$w.txt)"
	grep -E '^(PASS|OVER)' "$OUT/report.$w.txt"
done
