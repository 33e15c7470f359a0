#!/bin/bash
# tests/timed.sh SECONDS COMMAND...: the command under a time limit, then one
# line saying how long it took, so that a slow or stuck suite shows in the
# log (CI's whole run has a limit too: .ci/run).
limit=$1
shift
start=$(date +%s)
timeout "$limit" "$@"
rc=$?
took=$(($(date +%s) - start))
if [ $rc -eq 124 ]; then
	echo "== $1: stopped at its limit of $limit s (a hang, or far slower than usual)"
else
	echo "== $1: $took s"
fi
exit $rc
