#!/bin/bash
# The demo: a program that uses every hooked CUDA call, reaching the driver
# the way the CUDA runtime does (cuGetProcAddress), run under peerwatch in
# warn mode (it makes a few mistakes on purpose), then the analyzer's
# reports of its traces.  On a machine without a GPU it runs against the
# simulated driver.
set -eu
B=$(cd "${1:-build}" && pwd)
out=${PW_DEMO_OUT:-$PWD/pw-demo}
rm -rf "$out"
mkdir -p "$out"
if [ -e /dev/nvidia0 ] && [ -z "${PW_DEMO_SIM:-}" ]; then
	echo "== a GPU is present: the demo uses the real driver"
else
	echo "== no GPU here: the demo uses the simulated driver ($B/sim/libcuda.so.1, 2 devices)"
	export LD_LIBRARY_PATH="$B/sim${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
echo "== \$ peerwatch -o $out/trace -- calls getproc-ptds"
"$B/bin/peerwatch" -o "$out/trace" -- "$B/tests/calls" getproc-ptds "$out/made.tsv"
echo
A="$B/bin/peerwatch-analyze"
echo "== \$ peerwatch-analyze info $out/trace"
"$A" info "$out/trace"
echo
echo "== \$ peerwatch-analyze summary $out/trace"
"$A" summary "$out/trace"
echo
echo "== \$ peerwatch-analyze violations $out/trace"
"$A" violations "$out/trace" || true
echo
echo "== \$ peerwatch-analyze matrix $out/trace"
"$A" matrix "$out/trace"
echo
echo "== \$ peerwatch-analyze check $out/trace   # the CI gate"
"$A" check "$out/trace" && echo "check: passed" || echo "check: failed (exit $?): the demo program breaks contracts on purpose"
echo
echo "== \$ peerwatch-analyze report $out/trace -o $out/report.html   # one page to attach to a bug report"
"$A" report "$out/trace" -o "$out/report.html"
echo "open $out/report.html in a browser"
