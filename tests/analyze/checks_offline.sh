# The findings the online IPC registry gives at the call, derived offline
# from the traces when it was off (registry=0, or the other process outside
# the run): ipc.open.stale (an open after the exporter's free, refused or
# not), ipc.open.unreachable (from both processes' device lines) and
# vmm.import.released.  Each breaking program once with the registry off,
# once with it on (one finding, not two), and its near miss (none).  Then
# what info says it could not check.  Sourced by run.sh (A, PW, B, WORK,
# check, ok, bad, an, jqt, rc_is, traced, case_dir are set).

offline_case() { # VENDOR RULE SEVERITY PROGRAM [ENV...]
	local vendor=$1 rule=$2 sev=$3 prog=$4
	shift 4
	local kind reg d got want
	for kind in bad good; do
		for reg in 0 1; do
			d="$WORK/offline-$vendor-$rule-$kind-$reg"
			rm -rf "$d"
			if ! env "$@" "$PW" -q -o "$d" --mode warn --options "registry=$reg" -- \
				"$B/tests/$prog" "$rule" "$kind" >/dev/null 2>"$d.err"; then
				bad "offline $vendor $rule ($kind, registry=$reg): the program failed: $(tail -2 "$d.err")"
				continue
			fi
			an violations --json "$d"
			got=$(jq -r '[.findings[] | .rule + ":" + .severity] | join(" ")' "$WORK/o.out" 2>/dev/null)
			want=
			[ $kind = bad ] && want="$rule:$sev"
			check "offline $vendor $rule ($kind, registry=$reg): the analyzer finds ${want:-nothing} (got: ${got:-nothing})" \
				[ "$got" = "$want" ]
			if [ $kind = bad ] && [ $reg = 0 ]; then
				check "offline $vendor $rule: the trace itself holds no finding (the library could not see it)" \
					bash -c '! cat "$1"/*.pw.jsonl | jq -e "select(.type==\"violation\")" >/dev/null' _ "$d"
				check "offline $vendor $rule: the finding is derived and names the opening call" \
					jqt --arg v "$vendor" '.findings[0] | .derived and (.api | startswith(if $v == "hip" then "hip" else "cu" end))' \
					"$WORK/o.out"
			fi
		done
	done
}

offline_case cuda ipc.open.stale error violations
offline_case cuda ipc.open.unreachable error violations PWSIM_PEERS=none
offline_case cuda vmm.import.released warning violations
offline_case hip ipc.open.stale error hip_violations PWSIM_DEVICES=2
offline_case hip ipc.open.unreachable error hip_violations PWSIM_DEVICES=2 PWSIM_PEERS=none

# vmm.import.released is CUDA's rule (cuMemRelease's sentence); HIP's
# hipMemRelease page says nothing of shareable handles, so a HIP import
# after its exporter released the allocation derives nothing, though the
# ipc report shows the release before the import.
d="$WORK/offline-hip-vmm-released"
rm -rf "$d"
if env PWSIM_DEVICES=2 "$PW" -q -o "$d" --mode warn --options registry=0 -- \
	"$B/tests/hip_calls-linked" vmm-released >/dev/null 2>"$d.err"; then
	an ipc --json "$d"
	check "offline hip: the ipc report shows a hipMemRelease of the exporter before the import" \
		jqt '[.shared[] | select(.kind=="vmm") | .life[] | .op] | (index("release") // 99) < (index("import") // -1)' \
		"$WORK/o.out"
	an violations --json "$d"
	check "offline hip: an import after the exporter's release derives no finding of CUDA's rule (got: $(jq -r '[.findings[].rule] | join(" ")' "$WORK/o.out" 2>/dev/null))" \
		jqt '.findings | length == 0' "$WORK/o.out"
else
	bad "offline hip vmm-released: the program failed: $(tail -2 "$d.err")"
fi
# ACL's IPC by key (acl_doc NAME: each scenario is one case): the exporter's
# free or close of the key while an import is open, and an import after the
# free; ACL's import of a shareable handle after the free; the near miss of
# each gives nothing, with the registry off or on.
offline_acl() { # RULE SEVERITY BAD-SCENARIO GOOD-SCENARIO
	local rule=$1 sev=$2 bad=$3 good=$4 name reg d got want
	for name in "$bad" "$good"; do
		for reg in 0 1; do
			d="$WORK/offline-acl-$name-$reg"
			rm -rf "$d"
			if ! env PWSIM_DEVICES=2 "$PW" -q -o "$d" --mode warn --options "registry=$reg" -- \
				"$B/tests/acl_doc" "$name" >/dev/null 2>"$d.err"; then
				bad "offline acl $name (registry=$reg): the program failed: $(tail -2 "$d.err")"
				continue
			fi
			an violations --json "$d"
			got=$(jq -r '[.findings[] | .rule + ":" + .severity] | join(" ")' "$WORK/o.out" 2>/dev/null)
			want=
			[ "$name" = "$bad" ] && want="$rule:$sev"
			check "offline acl $name (registry=$reg): the analyzer finds ${want:-nothing} (got: ${got:-nothing})" \
				[ "$got" = "$want" ]
			if [ "$name" = "$bad" ] && [ $reg = 0 ]; then
				check "offline acl $name: the trace itself holds no finding (the library could not see it)" \
					bash -c '! cat "$1"/*.pw.jsonl | jq -e "select(.type==\"violation\")" >/dev/null' _ "$d"
				check "offline acl $name: the finding is derived and names an ACL call" \
					jqt '.findings[0] | .derived and (.api | startswith("acl"))' "$WORK/o.out"
			fi
		done
	done
}

offline_acl ipc.open.stale error ipc-stale ipc-stale-other
offline_acl ipc.free-while-open error ipc-free-while-open ipc-free-after-close
offline_acl ipc.free-while-open error ipc-close-while-open ipc-key
# ACL's shareable handles: an import after the exporter's aclrtFreePhysical
# (refused by the simulated runtime: the finding still names it)
offline_acl vmm.import.released warning vmm-import-released vmm-share
an ipc "$WORK/offline-acl-ipc-key-0"
check "offline acl: the ipc report lists each close of the key with its handle, none as stray" \
	bash -c 'grep -q "the exporter.s close of the key" "$1" && ! grep -q "no open in these traces" "$1" &&
		[ "$(grep -c " close " "$1")" -eq 2 ]' _ "$WORK/o.out"

# info says what the traces could not say: an open whose exporter no trace
# has (a process outside the run), and one whose devices are not identified.
d=$(case_dir)
cp "$WORK/offline-cuda-ipc.open.stale-bad-0"/*.pw.jsonl "$d"/
exp=$(grep -l '"cuIpcGetMemHandle"' "$d"/*.pw.jsonl | head -1)
[ -n "$exp" ] && rm -f "$exp"
an info "$d"
check "offline: info names the opens whose exporter no trace has, and the rules that could not be checked" \
	bash -c 'grep -q "no trace of the exporter" "$1" && grep -q "ipc.open.stale" "$1" && grep -q "ipc.open.unreachable" "$1"' _ "$WORK/o.out"
an info --json "$d"
check "offline: info --json counts them (unchecked.open_no_export 1)" \
	jqt '.unchecked.open_no_export == 1 and (.unchecked.rules | index("ipc.open.stale"))' "$WORK/o.out"
an info "$WORK/offline-cuda-ipc.open.stale-good-0"
check "offline: info on a run whose traces say everything names nothing unchecked" \
	bash -c '! grep -q "could not be checked" "$1"' _ "$WORK/o.out"
