# report: the HTML page holds what check, violations, matrix, ipc, managed,
# summary and the device lines say of the same traces, fetches nothing, escapes what the traces hold, and
# writes its file as timeline does (never over an input, never half).
# Sourced by run.sh (A, B, WORK, HERE, FIX, check, ok, bad, an, jqt, rc_is,
# err_has, out_has are set).

RCHECK="$HERE/report_check.py"
rchk() { python3 "$RCHECK" "$@" >"$WORK/rc.out" 2>&1; }

for d in "$WORK/calls" "$WORK/ipc" "$WORK/ipc-online" "$WORK/crash" "$FIX" "$HERE/gpu-traces"; do
	n=$(basename "$d")
	an report --allow-partial "$d" -o "$WORK/$n.report.html"
	check "report ($n): writes the page and says where (exit 0)" \
		bash -c "[ $rc -eq 0 ] && [ -s '$WORK/$n.report.html' ] && grep -q '^wrote .*$n.report.html: ' '$WORK/o.out'"
	an check --allow-partial --json "$d"
	cp "$WORK/o.out" "$WORK/$n.check.json"
	an matrix --json "$d"
	cp "$WORK/o.out" "$WORK/$n.matrix.json"
	an ipc --json "$d"
	cp "$WORK/o.out" "$WORK/$n.ipc.json"
	an summary --json "$d"
	cp "$WORK/o.out" "$WORK/$n.summary.json"
	an managed --json "$d"
	cp "$WORK/o.out" "$WORK/$n.managed.json"
	mapfile -t files < <(find "$d" -name '*.pw.jsonl' -o -name '*.pw.jsonl.partial' | sort)
	rchk "$WORK/$n.report.html" "$WORK/$n.check.json" --matrix "$WORK/$n.matrix.json" \
		--ipc "$WORK/$n.ipc.json" --managed "$WORK/$n.managed.json" --summary "$WORK/$n.summary.json" \
		"${files[@]}"
	r=$?
	check "report ($n): check's verdict and findings, the traces' devices: $(head -3 "$WORK/rc.out" | tr '\n' ' ')" \
		[ $r -eq 0 ]
done

check "report: each process's runtimes (library, driver version) and peerwatch options" \
	bash -c "grep -q '<td class=\"path\">cuda: libcuda.so.1, driver [0-9]*</td>' '$WORK/calls.report.html' &&
		grep -q '<code class=\"options\">.*mode=warn .*registry=true ' '$WORK/calls.report.html'"

# the same page on standard output, whatever -j
an report -j1 "$WORK/calls"
cp "$WORK/o.out" "$WORK/calls.report.j1"
an report -j2 "$WORK/calls"
check "report: the page on stdout is the same at -j1 and -j2, and is the file -o wrote" \
	bash -c "cmp -s '$WORK/o.out' '$WORK/calls.report.j1' && cmp -s '$WORK/o.out' '$WORK/calls.report.html'"
mkdir -p "$WORK/rcwd"
cd "$WORK/rcwd" # an sets $rc: not in a subshell
an report -o - "$WORK/calls"
cd "$OLDPWD"
check "report -o -: the page on standard output, no file named '-'" \
	bash -c "cmp -s '$WORK/o.out' '$WORK/calls.report.j1' && [ ! -e '$WORK/rcwd/-' ]"

# the checker can fail: a page with a script, one with a finding left out
sed 's|</head>|<script src="https://example.com/x.js"></script></head>|' "$WORK/calls.report.html" >"$WORK/bad1.html"
check "report_check: a page that loads a script fails" bash -c "! python3 '$RCHECK' '$WORK/bad1.html' '$WORK/calls.check.json' >/dev/null"
awk '/<tr class="occurrence">/ && !done {done=1; next} {print}' "$WORK/ipc.report.html" >"$WORK/bad2.html"
check "report_check: a page without one of check's findings fails" bash -c "! python3 '$RCHECK' '$WORK/bad2.html' '$WORK/ipc.check.json' >/dev/null"
sed '0,/data-bytes="[0-9]*"/s//data-bytes="1"/' "$WORK/calls.report.html" >"$WORK/bad3.html"
check "report_check: a page whose copies differ from matrix's fails" \
	bash -c "! cmp -s '$WORK/bad3.html' '$WORK/calls.report.html' && ! python3 '$RCHECK' '$WORK/bad3.html' '$WORK/calls.check.json' --matrix '$WORK/calls.matrix.json' >/dev/null"

awk '/<g class="bar"/ && !done {done=1; skip=1} skip && /<\/g>/ {skip=0; next} !skip {print}' \
	"$WORK/ipc.report.html" >"$WORK/bad4.html"
check "report_check: a page without one process's IPC bar fails" \
	bash -c "! cmp -s '$WORK/bad4.html' '$WORK/ipc.report.html' && ! python3 '$RCHECK' '$WORK/bad4.html' '$WORK/ipc.check.json' --ipc '$WORK/ipc.ipc.json' >/dev/null"

sed '0,/data-calls="[0-9]*"/s//data-calls="0"/' "$WORK/calls.report.html" >"$WORK/bad5.html"
check "report_check: a page whose calls per API differ from summary's fails" \
	bash -c "! cmp -s '$WORK/bad5.html' '$WORK/calls.report.html' && ! python3 '$RCHECK' '$WORK/bad5.html' '$WORK/calls.check.json' --summary '$WORK/calls.summary.json' >/dev/null"

sed '0,/data-ops="[0-9]*"/s//data-ops="99"/' "$WORK/calls.report.html" >"$WORK/bad6.html"
check "report_check: a page whose managed history differs from managed's fails" \
	bash -c "! cmp -s '$WORK/bad6.html' '$WORK/calls.report.html' && ! python3 '$RCHECK' '$WORK/bad6.html' '$WORK/calls.check.json' --managed '$WORK/calls.managed.json' >/dev/null"

# the findings a suppression took, and the suppression that took them
echo 'rule=peer.enable.self' >"$WORK/report.supp"
traced "$WORK/supp" --suppressions "$WORK/report.supp" -- "$B/tests/violations" peer.enable.self bad \
	>/dev/null 2>&1
an report "$WORK/supp" -o "$WORK/supp.html"
check "report: a suppressed finding is listed apart, with the suppression (file line and text) that took it" \
	bash -c "grep -q '<h3 id=\"suppressed\">' '$WORK/supp.html' &&
		grep -q '<td><code>peer.enable.self</code></td>' '$WORK/supp.html' &&
		grep -q '<td>line 1: <code>rule=peer.enable.self</code></td><td class=\"n\">1</td>' '$WORK/supp.html'"

# what a trace holds is text: a program named <script> does not become one
mkdir -p "$WORK/hostile"
for f in "$WORK"/ipc/*.pw.jsonl; do
	jq -c 'if .type == "header" then .argv[0] = "<script>alert(1)</script>\"&" | .host = "<b>h</b>" else . end' "$f" \
		>"$WORK/hostile/$(basename "$f")"
done
an report "$WORK/hostile" -o "$WORK/hostile.html"
check "report: a hostile argv and host are escaped (exit $rc)" \
	bash -c "[ $rc -eq 0 ] && ! grep -q '<script>\|<b>h' '$WORK/hostile.html' && grep -q '&lt;script&gt;alert(1)&lt;/script&gt;&quot;&amp;' '$WORK/hostile.html'"

# options and refusals
an report --json "$WORK/calls"
check "report --json: refused, naming what to use instead (exit 2)" \
	bash -c "[ $rc -eq 2 ] && grep -q 'report writes HTML; --json and --format are not its options' '$WORK/o.err'"
first=$(find "$WORK/calls" -name '*.pw.jsonl' | head -1)
sum=$(md5sum <"$first")
an report "$WORK/calls" -o "$first"
check "report -o INPUT: refused, the trace untouched (exit 2)" \
	bash -c "[ $rc -eq 2 ] && grep -q 'is one of the traces read; not overwriting it' '$WORK/o.err' && [ \"\$(md5sum <'$first')\" = '$sum' ]"
an report "$WORK/calls" -o "$WORK/no/such/dir/r.html"
check "report -o in a missing directory: a clear error (exit 2)" \
	bash -c "[ $rc -eq 2 ] && grep -q 'r.html: cannot write the report: No such file or directory' '$WORK/o.err'"
an report --fail-on performance --json "$WORK/calls"
check "report: --fail-on is taken, --json still refused (exit 2, for --json alone)" \
	bash -c "[ $rc -eq 2 ] && grep -q 'report writes HTML; --json and --format are not its options' '$WORK/o.err' && ! grep -q 'fail-on' '$WORK/o.err'"
an report --fail-on warning "$WORK/ipc" -o "$WORK/ipc.warning.html"
an check --fail-on warning --json "$WORK/ipc"
check "report --fail-on warning: the verdict is check --fail-on warning's" \
	rchk "$WORK/ipc.warning.html" "$WORK/o.out"

# ---- in a real browser: headless Chromium, as a person would open the page ----------
# The page as Chromium builds it (its DOM) must hold the same as the file (the
# parser above on the browser's view), the browser must say nothing on its
# console (a resource it could not load, a blocked address), and each
# section shown alone (report.html#ipc) must be a picture, not a blank page.
CHROME=$(command -v chromium || command -v chromium-browser || true)
chrome() { # ARGS...: headless, its own profile, bounded in time
	timeout 90 "$CHROME" --headless --no-sandbox --disable-gpu --no-first-run --hide-scrollbars \
		--user-data-dir="$WORK/chrome-profile" --enable-logging=stderr --v=0 "$@"
}
if [ -z "$CHROME" ]; then
	echo "skip - no chromium here: the pages were not opened in a browser (make test installs it)"
else
	for n in calls ipc gpu-traces; do
		page="$WORK/$n.report.html"
		chrome --dump-dom "file://$page" >"$WORK/$n.dom.html" 2>"$WORK/$n.chrome.err"
		check "chromium: opens the $n page (exit 0, a DOM)" grep -q '<section id="findings">' "$WORK/$n.dom.html"
		check "chromium: the $n page gives no console message, loads nothing: $(grep -E 'CONSOLE|Failed to load|Refused to|Not allowed to load' "$WORK/$n.chrome.err" | head -2 | tr '\n' ' ')" \
			bash -c "! grep -qE 'CONSOLE|Failed to load|Refused to|Not allowed to load' '$WORK/$n.chrome.err'"
		rchk "$WORK/$n.dom.html" "$WORK/$n.check.json" --matrix "$WORK/$n.matrix.json" --ipc "$WORK/$n.ipc.json" \
			--managed "$WORK/$n.managed.json" --summary "$WORK/$n.summary.json"
		r=$?
		check "chromium: the $n page as the browser built it has check's findings, matrix's copies, ipc's handles: $(head -2 "$WORK/rc.out" | tr '\n' ' ')" [ $r -eq 0 ]
	done
	printf '<!DOCTYPE html><html><body></body></html>\n' >"$WORK/blank.html"
	chrome --window-size=1000,700 --screenshot="$WORK/blank.png" "file://$WORK/blank.html" >/dev/null 2>&1
	blank=$(stat -c %s "$WORK/blank.png" 2>/dev/null || echo 0)
	for sec in summary findings devices copies ipc managed time; do
		rm -f "$WORK/shot-$sec.png"
		chrome --window-size=1000,700 --screenshot="$WORK/shot-$sec.png" "file://$WORK/calls.report.html#$sec" >/dev/null 2>&1
		size=$(stat -c %s "$WORK/shot-$sec.png" 2>/dev/null || echo 0)
		check "chromium: section $sec alone is a picture ($size bytes against a blank page's $blank)" \
			bash -c "[ $blank -gt 0 ] && [ $size -gt $((blank * 4)) ]"
	done
	check "chromium: the seven sections are seven different pictures" \
		bash -c "[ \$(md5sum '$WORK'/shot-*.png | cut -d' ' -f1 | sort -u | wc -l) -eq 7 ]"
fi
