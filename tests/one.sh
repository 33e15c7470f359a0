#!/bin/bash
# One suite, or one unit test, of make test:
#
#   make test T=NAME          (tests/one.sh BUILD_DIR NAME)
#
#   test_rules                a unit test (tests/unit/test_rules.c)
#   test_rules:PATTERN        its cmocka tests whose name matches PATTERN
#                             (cmocka's filter: * and ? wildcards)
#   integration rules contract_table rules_acl implicit cudart rules_hip vmm ipc_model mesh
#   trace_keys managed um_effects launchers latency devices
#                             an integration suite (tests/integration/NAME.sh;
#                             integration is run.sh; contract_table runs the
#                             rows of tests/integration/contract_table.txt)
#   unit sim acl-sim hip-sim nvml-sim rsmi-sim cupti-sim deps docs analyze fault packaging
#   gpu-build                 every unit test, a simulator's self-test, the
#                             call-graph check, the generated docs, the
#                             analyzer, the fault-injection suite, the
#                             packaging tests, the GPU programs' compile
#   analyze-fast analyze-truth
#                             the analyzer's suite in two parts (make test
#                             runs them side by side): its unit tests, the
#                             golden outputs and every check but the
#                             truth's; the truth's (tests/analyze/run.sh
#                             PW_ANALYZE_PART), which reads the traces the
#                             integration suites kept
#   fault-races-1 fault-races-2 fault-others
#                             the fault suite in three parts (make test
#                             runs them side by side): half the exit races
#                             each (10 runs of each race unless
#                             PW_STRESS_RUNS says), and everything but the
#                             races
#   tally                     tests/tally.sh's self-test: how make test
#                             counts the suites' checks
#   list                      these names
set -u
B=$1
T=${2:-list}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
suites="integration rules contract_table rules_acl implicit cudart rules_hip vmm ipc_model mesh trace_keys managed um_effects launchers latency devices"
targets="unit:unit-test sim:sim-selftest acl-sim:acl-sim-selftest hip-sim:hip-sim-selftest nvml-sim:nvml-sim-selftest rsmi-sim:rsmi-sim-selftest cupti-sim:cupti-selftest deps:deps-test docs:docs-test analyze:analyze-test fault:fault-test packaging:packaging-test gpu-build:gpu-build-test"
others="analyze-fast analyze-truth fault-races-1 fault-races-2 fault-others tally"
export PWSIM_LIB="$B/sim/libcuda.so.1"
case $T in
list)
	echo "unit tests:"
	ls "$root"/tests/unit/test_*.c | sed 's|.*/||; s|\.c$||; s|^|  |'
	echo "integration suites: $suites"
	echo "others: $(for t in $targets; do printf '%s ' "${t%%:*}"; done)$others"
	exit 0
	;;
analyze-fast)
	PW_ANALYZE_PART=checks exec make --no-print-directory -C "$root" BUILD="$B" analyze-test
	;;
analyze-truth)
	PW_ANALYZE_PART=truth exec "$here/timed.sh" 1800 "$here/analyze/run.sh" "$B"
	;;
fault-races-1 | fault-races-2 | fault-others)
	case $T in
	fault-races-1) export PW_FAULT_PART=races PW_RACE_MODES="exit _exit exec exec-fail" ;;
	fault-races-2) export PW_FAULT_PART=races PW_RACE_MODES="fork pthread_exit thread_exit handler" ;;
	*) export PW_FAULT_PART=others ;;
	esac
	# make test's share of the races: 10 runs each (make stress runs more)
	export PW_STRESS_RUNS=${PW_STRESS_RUNS:-10}
	exec "$here/timed.sh" 1800 "$here/fault/run.sh" "$B"
	;;
tally)
	exec "$here/tally.sh" --self-test
	;;
test_*)
	name=${T%%:*}
	[ -x "$B/tests/$name" ] || { echo "one.sh: no unit test $name (make test T=list)" >&2; exit 2; }
	if [ "$name" != "$T" ]; then export PW_TEST=${T#*:}; fi
	exec timeout 600 "$B/tests/$name"
	;;
esac
for s in $suites; do
	if [ "$T" = "$s" ]; then
		[ "$s" = integration ] && s=run
		exec timeout 1200 "$here/integration/$s.sh" "$B"
	fi
done
for t in $targets; do
	if [ "$T" = "${t%%:*}" ]; then
		exec make --no-print-directory -C "$root" BUILD="$B" "${t#*:}"
	fi
done
echo "one.sh: no suite '$T' (make test T=list)" >&2
exit 2
