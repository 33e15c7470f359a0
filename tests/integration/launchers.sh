#!/bin/bash
# README "Using it with torchrun, mpirun, srun", on the simulated driver:
# each recipe run with a stand-in of the launcher (tests/integration/
# launchers/: it starts its ranks with the variables the real one sets) and
# train.py, one rank of a Python program that makes one finding.  Then the
# output-name templates (-o %p %h %r %q{VAR} %%), --ranks, a rank that would
# lead the path elsewhere, the exit line, paths as long as the system takes
# (and longer ones refused), and a program the launcher cannot run.
#   tests/integration/launchers.sh BUILD_DIR
set -u
B=${1:-build}
B=$(cd "$B" && pwd)
PW="$B/bin/peerwatch"
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
L="$SRC/tests/integration/launchers"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pw-launch.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export LD_LIBRARY_PATH="$B/sim${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PATH="$L:$PATH"
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"
# the ranks' own variables must come from the stand-ins, not from a CI job
unset RANK OMPI_COMM_WORLD_RANK PMI_RANK PMIX_RANK SLURM_PROCID MV2_COMM_WORLD_RANK
host=$(hostname)

if ! command -v python3 >/dev/null 2>&1; then
	bad "python3 is missing (scripts/install-deps.sh installs it)"
	echo "launchers: $pass passed, $fail failed"
	exit 1
fi

# The traces under DIR, one a line.
traces() { find "$1" -name '*.pw.jsonl' 2>/dev/null | sort; }
# DIR holds exactly one finished trace, with the finding train.py makes.
one_trace_with_finding() {
	local t
	t=$(traces "$1")
	[ -n "$t" ] && [ "$(echo "$t" | wc -l)" -eq 1 ] &&
		jq -e -s 'map(select(.type=="violation" and .rule=="peer.enable.twice")) | length == 1' "$t" >/dev/null &&
		[ "$(tail -1 "$t" | jq -r .type)" = footer ]
}

# ---- torchrun: the whole job under peerwatch, one directory per rank ----
d=$WORK/torchrun
mkdir -p "$d" && cd "$d" || exit 1
if "$PW" -o 'traces/rank%r' torchrun --nproc_per_node=2 "$L/train.py" >out 2>err; then
	ok "torchrun: the job ran under peerwatch"
else
	bad "torchrun: the job failed: $(tail -3 err)"
fi
check "torchrun: rank 0 wrote its trace into traces/rank0, with its finding" one_trace_with_finding traces/rank0
check "torchrun: rank 1 wrote its trace into traces/rank1, with its finding" one_trace_with_finding traces/rank1
check "torchrun: no other directory (the agent made no call)" [ "$(ls traces | tr '\n' ' ')" = "rank0 rank1 " ]
check "torchrun: each rank's exit line names its trace and its findings" \
	[ "$(grep -cE "^peerwatch\[[0-9]+\]: trace written: $d/traces/rank[01]/$host\.[0-9]+\.pw\.jsonl \([0-9,]+ events; [0-9]+ warnings?\)$" err)" -eq 2 ]
check "torchrun: peerwatch-analyze check reads the job's traces (2 processes)" \
	bash -c "'$B/bin/peerwatch-analyze' check --format json traces | jq -e '.traces == 2 and ([.findings[].process.rank] | sort) == [0,0,1,1]' >/dev/null"

# ---- torchrun, one rank: --ranks ----
d=$WORK/torchrun-rank1
mkdir -p "$d" && cd "$d" || exit 1
"$PW" --ranks 1 -o 'traces/rank%r' torchrun --nproc_per_node=3 "$L/train.py" >out 2>err
st=$?
n=$(grep -c done out)
if [ $st -eq 0 ] && [ "$n" -eq 3 ]; then
	ok "torchrun --ranks 1: the job's outcome is unchanged (status 0, every rank done)"
else
	bad "torchrun --ranks 1: the job's outcome changed: status $st, $n of 3 ranks done"
	diag stdout out
	diag stderr err
fi
check "torchrun --ranks 1: only rank 1 traced" [ "$(ls traces 2>/dev/null | tr '\n' ' ')" = "rank1 " ]
check "torchrun --ranks 1: its trace has the finding" one_trace_with_finding traces/rank1
check "torchrun --ranks 1: the untraced ranks print no report" \
	[ "$(grep -oE '^==[0-9]+==' err | sort -u | wc -l)" -eq 1 ]

# ---- mpirun: peerwatch as each rank's command ----
d=$WORK/mpirun
mkdir -p "$d" && cd "$d" || exit 1
if mpirun -np 2 "$PW" -o 'traces/%q{OMPI_COMM_WORLD_RANK}-of-%q{OMPI_COMM_WORLD_SIZE}' python3 "$L/train.py" >out 2>err; then
	ok "mpirun: the job ran, peerwatch in each rank"
else
	bad "mpirun: the job failed: $(tail -3 err)"
fi
check "mpirun: rank 0 in traces/0-of-2" one_trace_with_finding traces/0-of-2
check "mpirun: rank 1 in traces/1-of-2" one_trace_with_finding traces/1-of-2
d=$WORK/mpirun-ranks
mkdir -p "$d" && cd "$d" || exit 1
mpirun -np 4 "$PW" --ranks 0,2-3 -o 'traces/r%r' python3 "$L/train.py" >out 2>err
st=$?
n=$(grep -c done out)
if [ $st -eq 0 ] && [ "$n" -eq 4 ]; then
	ok "mpirun --ranks 0,2-3: status 0, four ranks done"
else # what each rank said: which one failed, and how
	bad "mpirun --ranks 0,2-3: status $st, $n of 4 ranks done"
	diag stdout out
	diag stderr err
fi
check "mpirun --ranks 0,2-3: ranks 0, 2 and 3 traced" [ "$(ls traces 2>/dev/null | tr '\n' ' ')" = "r0 r2 r3 " ]

# ---- srun: host and rank in the name, the job id through %q ----
d=$WORK/srun
mkdir -p "$d" && cd "$d" || exit 1
if srun -n 2 "$PW" -o 'traces/job%q{SLURM_JOB_ID}/%h-rank%r' python3 "$L/train.py" >out 2>err; then
	ok "srun: the job ran, peerwatch in each task"
else
	bad "srun: the job failed: $(tail -3 err)"
fi
jobdir=$(ls -d traces/job* 2>/dev/null | head -1)
check "srun: one directory for the job, named by SLURM_JOB_ID" \
	bash -c '[ "$(ls traces | wc -l)" -eq 1 ] && [[ $1 =~ ^traces/job[0-9]+$ ]]' - "$jobdir"
check "srun: task 0 in <job>/$host-rank0" one_trace_with_finding "$jobdir/$host-rank0"
check "srun: task 1 in <job>/$host-rank1" one_trace_with_finding "$jobdir/$host-rank1"

# ---- the templates one by one ----
d=$WORK/tmpl
mkdir -p "$d" && cd "$d" || exit 1
RANK=7 JOB=j-1.2 "$PW" -q -o 'traces/%p/%r/%q{JOB}/%%/%q{UNSET_VAR_X}' python3 "$L/train.py" >out 2>err
# PATH REGEX: PATH matches REGEX and its first two groups are equal
same_groups() { [[ $1 =~ $2 ]] && [ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[2]}" ]; }
check "templates: %p is the process's pid, %r the rank, %q{VAR} its value, %% a '%', an unset variable 'none'" \
	same_groups "$(traces traces)" "^traces/([0-9]+)/7/j-1\.2/%/none/$host\.([0-9]+)\.pw\.jsonl\$"
# a forked child expands %p again: its own directory
d=$WORK/fork
mkdir -p "$d" && cd "$d" || exit 1
"$PW" -q -o 'traces/%p' python3 -c '
import ctypes, os
cu = ctypes.CDLL("libcuda.so.1")
cu.cuInit(0)
can = ctypes.c_int()
cu.cuDeviceCanAccessPeer(ctypes.byref(can), 0, 1)
pid = os.fork()
if pid == 0:
    cu.cuDeviceCanAccessPeer(ctypes.byref(can), 1, 0)
    os._exit(0)
os.waitpid(pid, 0)
' >out 2>err
n_ok=0
for t in $(traces traces); do
	same_groups "$t" "^traces/([0-9]+)/$host\.([0-9]+)\.pw\.jsonl\$" && n_ok=$((n_ok + 1))
done
check "templates: a forked child's %p is its own pid (2 processes, 2 directories)" [ "$n_ok" -eq 2 ]
# a '%' in the working directory is not a template
d=$WORK/pct%r
mkdir -p "$d" && cd "$d" || exit 1
RANK=5 "$PW" -q -o 'traces' python3 "$L/train.py" >out 2>err
check "templates: a '%' in the working directory's name stays itself" [ -n "$(traces "$d/traces")" ]

# ---- what may not become a path ----
d=$WORK/refused
mkdir -p "$d" && cd "$d" || exit 1
RANK=../../etc python3 "$L/train.py" >expected.out 2>/dev/null
RANK=../../etc "$PW" -o 'traces/r%r' python3 "$L/train.py" >out 2>err
st=$?
check "a rank of '../../etc': the program runs untraced, status 0, output unchanged" \
	bash -c '[ "$1" -eq 0 ] && cmp -s out expected.out' - "$st"
check "a rank of '../../etc': refused, said clearly" grep -q "%r (the rank) in '$d/traces/r%r' is '../../etc', which is not a plain name" err
check "a rank of '../../etc': nothing written anywhere" [ ! -e traces -a ! -e "$WORK/etc" ]
RANK=../../etc "$PW" -m enforce -o 'traces/r%r' python3 "$L/train.py" >out 2>err
st=$?
check "a rank of '../../etc' under enforce: status 64 before main, nothing run" \
	bash -c '[ "$1" -eq 64 ] && [ ! -s out ] && [ ! -e traces ]' - "$st"
HOSTILE='a/b' "$PW" -o 'traces/%q{HOSTILE}' python3 "$L/train.py" >out 2>err
check "a variable with a '/': refused" grep -q "%q{HOSTILE} in .* is 'a/b', which is not a plain name" err
"$PW" -o 'traces/%d' true 2>err
st=$?
check "-o with an unknown %: status 2, the sequence named" \
	bash -c '[ "$1" -eq 2 ] && grep -qF "'"'"'%d'"'"' in '"'"'traces/%d'"'"' is not one of %p (pid), %h (host), %r (rank), %q{VAR}, %%" err' - "$st"
"$PW" --ranks 2-1 true 2>err
st=$?
check "--ranks 2-1: status 2, said" bash -c '[ "$1" -eq 2 ] && grep -q "the range 2-1 runs backwards" err' - "$st"
# a process with no rank under --ranks runs untraced, and says so with -v
"$PW" -v --ranks 0 -o traces-norank python3 "$L/train.py" >out 2>err
st=$?
check "--ranks with no rank variable: untraced, status 0, said at -v" \
	bash -c '[ "$1" -eq 0 ] && [ ! -e traces-norank ] && grep -q "no rank variable .* is set: not traced" err' - "$st"

# ---- the exit line's counts ----
d=$WORK/counts
mkdir -p "$d" && cd "$d" || exit 1
"$PW" -o t1 -- "$B/tests/violations" peer.enable.self bad >out 2>err
check "exit line: '1 error' for one finding of severity error" grep -qE "trace written: $d/t1/.*\([0-9,]+ events; 1 error\)$" err
"$PW" -o t2 python3 -c 'import ctypes; cu = ctypes.CDLL("libcuda.so.1"); cu.cuInit(0)
cu.cuDeviceCanAccessPeer(ctypes.byref(ctypes.c_int()), 0, 1)' 2>err
# One call, and a device line per simulated device: the exit line counts
# every event line, as the footer does.
n=$(($(cat "$d"/t2/*.pw.jsonl 2>/dev/null | wc -l) - 2))
check "exit line: '$n events; no findings' for one clean call (and its device lines)" \
	bash -c '[ "$(grep -c "\"type\":\"call\"" "$2"/t2/*.pw.jsonl)" = 1 ] &&
		grep -qE "trace written: $2/t2/.*\($1 events?; no findings\)$" err' - "$n" "$d"
echo 'rule=peer.enable.twice' >supp
"$PW" -o t3 --suppressions supp torchrun --nproc_per_node=1 "$L/train.py" >out 2>err
check "exit line: severities and suppressions counted" grep -qE "trace written: $d/t3/.*\([0-9,]+ events; 2 warnings, 1 suppressed\)$" err

# ---- long paths: any the system takes, a longer one refused with its reason ----
d=$WORK/long
mkdir -p "$d" && cd "$d" || exit 1
# NAME...: a path under $d of names of 250 bytes each (NAME_MAX is 255)
long_path() {
	local p=$d n
	for n in "$@"; do p=$p/$(printf "$n%.0s" $(seq 250)); done
	echo "$p"
}
mid=$(long_path a b)  # some 540 bytes: more than the 511 the options once held
huge=$(long_path c c c c c c c c c c c c c c c c c) # over 4095
mkdir -p "$mid"
viol=("$B/tests/violations" peer.enable.self bad)
"$PW" -o "$mid/t" "${viol[@]}" >out 2>err
check "long paths: -o under a ${#mid}-byte directory: the trace is written there, with the finding" \
	bash -c 't=$(ls "$1"/t/*.pw.jsonl 2>/dev/null) && jq -e -s "any(.[]; .rule==\"peer.enable.self\")" "$t" >/dev/null' - "$mid"
"$PW" -o t --log-path "$mid/report" "${viol[@]}" >out 2>err
check "long paths: --log-path under a ${#mid}-byte directory: the report goes there" \
	bash -c 'grep -qs "peerwatch: error: peer.enable.self" "$1"/report.* && ! grep -q "peer.enable.self" err' - "$mid"
echo 'rule=peer.enable.self' >"$mid/supp"
"$PW" -o t-supp --suppressions "$mid/supp" "${viol[@]}" >out 2>err
check "long paths: --suppressions under a ${#mid}-byte directory: read, the finding suppressed" \
	bash -c '! grep -q "peer.enable.self" err && jq -e "select(.type==\"footer\") | .suppressed == 1" t-supp/*.pw.jsonl >/dev/null'
for opt in -o --log-path --suppressions; do
	rm -rf pw-trace
	"$PW" "$opt" "$huge" "${viol[@]}" >out 2>err
	st=$?
	check "long paths: $opt of ${#huge} bytes: status 2, the reason named, nothing run" \
		bash -c '[ "$1" -eq 2 ] && grep -q "^peerwatch: $2: the path is $3 bytes long, longer than 4095 bytes (PATH_MAX)" err &&
			[ ! -s out ] && [ ! -e pw-trace ] && ! grep -q "peerwatch\[" err' - "$st" "$opt" "${#huge}"
done
# Without the launcher: the library says why, writes no trace where nobody
# asked (./pw-trace), and under enforce keeps its status 64 before main.
for key in out log_path suppressions; do
	rm -rf pw-trace
	PEERWATCH_OPTIONS="$key=$huge" LD_PRELOAD="$B/lib/libpeerwatch.so${LD_PRELOAD:+:$LD_PRELOAD}" "${viol[@]}" >out 2>err
	st=$?
	check "long paths: $key= of ${#huge} bytes to the library: refused, saying it is longer than 4095 bytes; the program runs (status $st)" \
		bash -c '[ "$1" -eq 0 ] && grep -q "PEERWATCH_OPTIONS: bad value for $2: longer than 4095 bytes (${#3} bytes: " err' - "$st" "$key" "$huge"
	[ $key = out ] && check "long paths: out= of ${#huge} bytes to the library: no trace, none in ./pw-trace either" \
		bash -c '[ ! -e pw-trace ] && grep -q "tracing is off; the program runs on untraced" err'
	PEERWATCH_OPTIONS="mode=enforce:$key=$huge" LD_PRELOAD="$B/lib/libpeerwatch.so${LD_PRELOAD:+:$LD_PRELOAD}" "${viol[@]}" >out 2>err
	st=$?
	check "long paths: $key= of ${#huge} bytes under enforce: status 64 before main (got $st)" \
		bash -c '[ "$1" -eq 64 ] && [ ! -s out ] && grep -q "longer than 4095 bytes" err' - "$st"
done

# ---- a program it cannot run: the status a shell gives, the reason in one line ----
d=$WORK/cannot-run
mkdir -p "$d/bin" && cd "$d" || exit 1
printf 'echo ran\n' >noexec && chmod 644 noexec
mkdir adir
cp noexec bin/inpath-noexec
# PROGRAM STATUS MESSAGE [PATH]: peerwatch -- PROGRAM exits STATUS saying
# only "peerwatch: MESSAGE", and nothing ran
cannot_run() {
	PATH=${4:-$PATH} "$PW" -o t -- "$1" >out 2>err
	local st=$?
	check "cannot run $1: status $st (want $2), says '$3'" \
		bash -c '[ "$1" -eq "$2" ] && [ "$(cat err)" = "peerwatch: $3" ] && [ ! -s out ] && [ ! -e t ]' - "$st" "$2" "$3"
}
cannot_run ./noexec 126 "cannot run ./noexec: Permission denied"
cannot_run ./adir 126 "cannot run ./adir: Is a directory"
cannot_run ./missing 127 "cannot run ./missing: No such file or directory"
cannot_run no-such-program-x 127 "cannot run no-such-program-x: command not found"
cannot_run inpath-noexec 126 "cannot run inpath-noexec: Permission denied" "$d/bin:$PATH"

# ---- --report: the HTML report once the program has ended ----
# The program runs as the launcher's child then: its output, status and
# signals must be what they are without --report, and only this run's
# traces go into the page.
d=$WORK/report
mkdir -p "$d" && cd "$d" || exit 1
viol=("$B/tests/violations" peer.enable.self bad)
"$PW" -o t "${viol[@]}" >plain.out 2>plain.err
plain=$?
"$PW" -o t --report r.html "${viol[@]}" >rep.out 2>rep.err
st=$?
check "--report: the program's status is the same ($st, without --report $plain)" [ "$st" -eq "$plain" ]
check "--report: its stdout is byte for byte the same, the report's line is not in it" cmp -s plain.out rep.out
check "--report: the page is written, and says so on stderr" \
	bash -c '[ -s r.html ] && grep -q "^wrote .*r.html: [0-9]* findings\?, 1 trace; open it in a browser$" rep.err'
check "--report: only this run's trace (two runs wrote into t)" \
	bash -c '[ $(ls t/*.pw.jsonl | wc -l) -eq 2 ] && grep -q "<p class=\"muted\">1 process, 1 trace</p>" r.html'
check "--report: the page has the run's finding" grep -q '<code class="rule">peer.enable.self</code>' r.html
"$PW" -q -o t --report q.html "${viol[@]}" >/dev/null 2>q.err
check "--report -q: the page, and no line about it" bash -c '[ -s q.html ] && ! grep -q "^wrote" q.err'
"$PW" -o t2 --report e.html -- bash -c 'exit 3' >/dev/null 2>e.err
st=$?
check "--report: an exit status is the program's (3, got $st), a run without trace says so" \
	bash -c '[ '"$st"' -eq 3 ] && [ ! -e e.html ] && grep -q "no trace of this run under .*t2; no report written" e.err'
"$PW" -o t --report k.html -- bash -c 'kill -TERM $$' >/dev/null 2>&1
st=$?
check "--report: a program killed by SIGTERM: the launcher dies of it too (status $st)" [ "$st" -eq 143 ]
"$PW" -o t --report s.html -- sleep 30 >/dev/null 2>&1 &
lp=$!
sleep 0.5
kill -TERM "$lp"
t0=$SECONDS
wait "$lp"
st=$?
check "--report: SIGTERM to the launcher reaches the program (status $st, $((SECONDS - t0)) s)" \
	bash -c "[ $st -eq 143 ] && [ $((SECONDS - t0)) -lt 10 ]"
"$PW" -o t --report r2.html -- "$d/nonexistent-prog" >/dev/null 2>n.err
st=$?
check "--report: a program that cannot be run: 127, as without --report" [ "$st" -eq 127 ]
printf 'x\n' >input.txt
"$PW" -o t --report r3.html -- cat input.txt >cat.out 2>/dev/null
check "--report: the program reads its files and writes its stdout as without it" \
	bash -c 'cmp -s input.txt cat.out'

# ---- colour in the reports (the color option) ----
d=$WORK/color
mkdir -p "$d" && cd "$d" || exit 1
esc=$(printf '\033')
viol=("$B/tests/violations" peer.enable.self bad)
"$PW" -o t "${viol[@]}" 2>err
check "colour: none into a pipe (auto)" bash -c '! grep -q "$1" err && grep -q "^==[0-9]*== peerwatch: error: peer.enable.self" err' - "$esc"
"$PW" --color always -o t "${viol[@]}" 2>err
check "colour: --color always: the severity red, the rule bold" \
	grep -qF "peerwatch: ${esc}[1;31merror${esc}[0m: ${esc}[1mpeer.enable.self${esc}[0m in cuCtxEnablePeerAccess" err
if command -v script >/dev/null 2>&1; then
	# script(1) gives the program a terminal
	script -qec "'$PW' -o t '${viol[0]}' ${viol[1]} ${viol[2]}" /dev/null >tty.out 2>&1
	check "colour: on a terminal (auto)" grep -qF "${esc}[1;31merror" tty.out
	NO_COLOR=1 script -qec "'$PW' -o t '${viol[0]}' ${viol[1]} ${viol[2]}" /dev/null >tty.out 2>&1
	check "colour: NO_COLOR=1 turns it off on a terminal" bash -c '! grep -q "$1" tty.out && grep -q "peerwatch: error" tty.out' - "$esc"
	script -qec "'$PW' --color never -o t '${viol[0]}' ${viol[1]} ${viol[2]}" /dev/null >tty.out 2>&1
	check "colour: --color never on a terminal" bash -c '! grep -q "$1" tty.out && grep -q "peerwatch: error" tty.out' - "$esc"
else
	bad "colour on a terminal: script(1) (util-linux) is missing"
fi

echo "launchers: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
