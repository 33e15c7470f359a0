#!/usr/bin/env bash
# The query's latency lines under each way of pacing it (latency.sh -W),
# rounds interleaved: round r runs latency.sh once per pace, one after the
# other, until the time is up; then each pace's rounds are pooled
# (latency.sh -S) into a report of its own.
#
#   tests/gpu/latency_paces.sh [-t SECONDS] [-o DIR] [-p DIR] NAME=BUNDLE
#     -t SECONDS  start no round after this many seconds (default 440)
#     -o DIR      raw.PACE.txt and report.PACE.txt go here (default
#                 /tmp/pw-paces)
#     -p DIR      the programs (as latency.sh -p)
#
# Each run: -r 1 -n 10000 -m observe -O can-ab (the query is the one call
# that is paced).  tests/gpu/RESULTS.md, 2026-11-28, has what it showed.
set -u -o pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
LIMIT=440 OUT=/tmp/pw-paces PROGS=
while getopts "t:o:p:" o; do
	case $o in
	t) LIMIT=$OPTARG ;;
	o) OUT=$OPTARG ;;
	p) PROGS=$OPTARG ;;
	*) sed -n '2,14p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || { echo "latency_paces.sh: name one bundle (NAME=BUNDLE)" >&2; exit 2; }
[[ "$LIMIT" =~ ^[0-9]+$ ]] || { echo "latency_paces.sh: -t wants seconds, not '$LIMIT'" >&2; exit 2; }
PACES="scaled equal spin"
mkdir -p "$OUT" || exit 2
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pw-paces.XXXXXX") || exit 2
trap 'rm -rf "$WORK"' EXIT
for w in $PACES; do : >"$OUT/raw.$w.txt"; done
start=$(date +%s) r=0
while [ $(($(date +%s) - start)) -lt "$LIMIT" ]; do
	r=$((r + 1))
	for w in $PACES; do
		rm -rf "$WORK/o"
		if ! "$here/latency.sh" -r 1 -n 10000 -m observe -O can-ab -W "$w" ${PROGS:+-p "$PROGS"} \
			-o "$WORK/o" "$1" >"$WORK/report" 2>&1; then
			echo "latency_paces.sh: round $r, pace $w failed:" >&2
			tail -5 "$WORK/report" >&2
			exit 1
		fi
		awk -v r="$r" '{ $1 = r; print }' "$WORK/o/raw.txt" >>"$OUT/raw.$w.txt"
	done
	echo "  round $r done ($(($(date +%s) - start)) s)" >&2
done
for w in $PACES; do
	"$here/latency.sh" -S -o "$WORK/p.$w" "$OUT/raw.$w.txt" >"$OUT/report.$w.txt" || exit 1
	echo "== pace $w ($OUT/report.$w.txt)"
	grep -E '^(PASS|OVER)' "$OUT/report.$w.txt"
done
