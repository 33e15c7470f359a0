#!/bin/bash
# The demo: a program that uses every hooked CUDA call, reaching the driver
# the way the CUDA runtime does (cuGetProcAddress), run under peerwatch.
# On a machine without a GPU it runs against the simulated driver.
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
for f in "$out"/trace/*.pw.jsonl; do
	echo "== $(basename "$f"): $(head -1 "$f" | jq -r '"pid \(.pid), argv \(.argv | join(" ")), driver \(.vendors.cuda.library // "-") version \(.vendors.cuda.driver_version // "-")"')"
	jq -r 'select(.type=="call") | [.family, .api + .variant, .ret_name] | @tsv' "$f" |
		sort | uniq -c | awk '{printf "  %5d  %-8s %-28s %s\n", $1, $2, $3, $4}'
	echo "  footer: $(tail -1 "$f" | jq -c '{events, dropped, reason}')"
done
echo
echo "== one event in full:"
jq -c 'select(.api=="cuMemcpyPeer" and .ret==0)' "$out"/trace/*.pw.jsonl | head -1
