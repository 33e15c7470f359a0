#!/bin/bash
# One suite, or one unit test, of make test:
#
#   make test T=NAME          (tests/one.sh BUILD_DIR NAME)
#
#   test_rules                a unit test (tests/unit/test_rules.c)
#   test_rules:PATTERN        its cmocka tests whose name matches PATTERN
#                             (cmocka's filter: * and ? wildcards)
#   integration rules contract_table rules_acl implicit cudart rules_hip vmm ipc_model mesh
#   trace_keys managed launchers latency devices
#                             an integration suite (tests/integration/NAME.sh;
#                             integration is run.sh; contract_table runs the
#                             rows of tests/integration/contract_table.txt)
#   unit sim acl-sim hip-sim nvml-sim rsmi-sim deps docs analyze fault packaging
#                             every unit test, a simulator's self-test, the
#                             call-graph check, the generated docs, the
#                             analyzer, the fault-injection suite
#   list                      these names
set -u
B=$1
T=${2:-list}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
suites="integration rules contract_table rules_acl implicit cudart rules_hip vmm ipc_model mesh trace_keys managed launchers latency devices"
targets="unit:unit-test sim:sim-selftest acl-sim:acl-sim-selftest hip-sim:hip-sim-selftest nvml-sim:nvml-sim-selftest rsmi-sim:rsmi-sim-selftest deps:deps-test docs:docs-test analyze:analyze-test fault:fault-test packaging:packaging-test"
export PWSIM_LIB="$B/sim/libcuda.so.1"
case $T in
list)
	echo "unit tests:"
	ls "$root"/tests/unit/test_*.c | sed 's|.*/||; s|\.c$||; s|^|  |'
	echo "integration suites: $suites"
	echo "others: ${targets//:[a-z-]*/}"
	exit 0
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
