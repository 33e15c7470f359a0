#!/bin/bash
# The screenshots of peerwatch-analyze report that README.md shows
# (docs/report/<section>.png): the demo's program (tests/calls getproc, a
# process and the IPC importer it starts) on the simulated driver, its
# report, and each section alone (report.html#SECTION) in headless Chromium.
#
#   scripts/report-shots.sh [BUILD_DIR]      (make report-shots)
set -eu
B=$(cd "${1:-build}" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
chrome=$(command -v chromium || command -v chromium-browser) || {
	echo "report-shots: no chromium here (scripts/install-deps.sh installs it)" >&2
	exit 1
}
work=$(mktemp -d "${TMPDIR:-/tmp}/pw-shots.XXXXXX")
trap 'rm -rf "$work"' EXIT
LD_LIBRARY_PATH="$B/sim" "$B/bin/peerwatch" -q --log-path "$work/log" -o "$work/trace" -- \
	"$B/tests/calls" getproc "$work/made.tsv" >/dev/null
"$B/bin/peerwatch-analyze" report "$work/trace" -o "$work/report.html" >/dev/null
mkdir -p "$root/docs/report"
for sec in summary findings devices copies ipc managed time; do
	timeout 90 "$chrome" --headless --no-sandbox --disable-gpu --no-first-run --hide-scrollbars \
		--user-data-dir="$work/profile" --window-size=1000,760 \
		--screenshot="$root/docs/report/$sec.png" "file://$work/report.html#$sec" >/dev/null 2>&1
	echo "docs/report/$sec.png: $(stat -c %s "$root/docs/report/$sec.png") bytes"
done
