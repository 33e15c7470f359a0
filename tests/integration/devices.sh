#!/bin/bash
# Devices by identity, not by ordinal (docs/trace-format.md, Device lines),
# on the simulated runtimes:
#   - every vendor: two processes copy 1 MiB from their ordinal 0 to their
#     ordinal 1, the second with the devices seen in the other order
#     (CUDA_VISIBLE_DEVICES=1,0, HIP_VISIBLE_DEVICES=1,0,
#     ASCEND_RT_VISIBLE_DEVICES=1,0): the device lines name the same two
#     devices by UUID with swapped ordinals, and `matrix` shows 1 MiB in each
#     direction between GPU0 and GPU1; the same traces without their device
#     lines (as written before them) show 2 MiB from dev0 to dev1, with the
#     note that ordinals are private to a process;
#   - the header records the VISIBLE_DEVICES variables and no other;
#   - the link of a pair from the simulated NVML: NVLinks, NVSwitch, PCIe
#     across sockets, unknown without NVML;
#   - a finding that two devices cannot be peers says why (NVML, ROCm SMI);
#   - peer.limit counts a device's peers across the run's processes, by UUID;
#   - a driver asked before cuInit: the lines are written once it is;
#   - each device is written once per trace, however many calls.
#   tests/integration/devices.sh BUILD_DIR
set -u
B=$(cd "${1:-build}" && pwd)
PW="$B/bin/peerwatch"
AN="$B/bin/peerwatch-analyze"
P="$B/tests/visible"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pw-devices.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export LD_LIBRARY_PATH="$B/sim${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PWSIM_DEVICES=2 PWSIM_PEERS=all
unset CUDA_VISIBLE_DEVICES HIP_VISIBLE_DEVICES ROCR_VISIBLE_DEVICES ASCEND_RT_VISIBLE_DEVICES PEERWATCH_OPTIONS
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"
q() { "$@" >/dev/null; }
# one_line FILTER FILE...: FILTER holds for the first line SELECT picks:
# one_line SELECT TEST FILE
one_line() { jq -se "map(select($1))[0] | $2" "${@:3}" >/dev/null; }

# traced DIR [VAR=VALUE...] -- ARGS: the program under peerwatch (observe mode)
traced() {
	local d=$1
	shift
	local envs=()
	while [ "$1" != -- ]; do
		envs+=("$1")
		shift
	done
	shift
	mkdir -p "$d"
	env "${envs[@]}" "$PW" -q --mode observe -o "$d" -- "$P" "$@" >>"$d.out" 2>>"$d.err"
}

MiB=1048576
for case in "cuda CUDA_VISIBLE_DEVICES" "hip HIP_VISIBLE_DEVICES" "acl ASCEND_RT_VISIBLE_DEVICES"; do
	set -- $case
	v=$1 var=$2
	D=$WORK/$v
	traced "$D" -- "$v" $MiB
	traced "$D" "$var=1,0" SECRET_TOKEN=hunter2 -- "$v" $MiB
	files=("$D"/*.pw.jsonl)
	check "$v: two traces" [ ${#files[@]} -eq 2 ]
	uuids() { jq -r 'select(.type=="device") | "\(.ordinal) \(.uuid)"' "$1" | sort; }
	a=$(uuids "${files[0]}")
	b=$(uuids "${files[1]}")
	check "$v: each trace has a device line per device, with a UUID" \
		bash -c "[ \$(echo '$a' | wc -l) = 2 ] && [ \$(echo '$b' | wc -l) = 2 ] && ! echo '$a$b' | grep -q null"
	swapped=$(echo "$b" | awk '{print 1 - $1, $2}' | sort)
	check "$v: the two traces name the same devices, their ordinals swapped" \
		bash -c "[ -n '$a' ] && { [ '$a' = '$swapped' ] || [ '$b' = '$(echo "$a" | awk '{print 1 - $1, $2}' | sort)' ]; } && [ '$a' != '$b' ]"
	q "$AN" matrix --json "$D" >"$D.matrix" 2>"$D.matrix.err"
	prefix=GPU
	[ "$v" = acl ] && prefix=NPU
	check "$v: matrix: ${MiB} bytes each way between ${prefix}0 and ${prefix}1, not 2 MiB one way" \
		jq -e --arg p $prefix '.hosts[0].pairs | map(select(.copies > 0) | [.src, .dst, .bytes]) ==
			[[($p + "0"), ($p + "1"), 1048576], [($p + "1"), ($p + "0"), 1048576]]' "$D.matrix"
	check "$v: matrix: each process's ordinal of each device" \
		jq -e '.hosts[0].identities | map(.ordinals | map(.ordinal) | sort) == [[0, 1], [0, 1]] and
			.[0].device != .[1].device' "$D.matrix"
	check "$v: the header records $var=1,0 and no other variable" \
		one_line '.type=="header"' '.environment == [{"name": "'"$var"'", "value": "1,0"}]' \
		$(grep -l "\"$var\"" "$D"/*.pw.jsonl)
	# the same traces as written before device lines: ordinals merged by number
	O=$WORK/$v-old
	mkdir -p "$O"
	for f in "${files[@]}"; do
		n=$(grep -c '"type":"device"' "$f")
		grep -v '"type":"device"' "$f" |
			jq -c 'if .type == "footer" then .events -= '"$n"' elif .type == "header" then del(.environment) else . end' \
				>"$O/$(basename "$f")"
	done
	q "$AN" matrix --json "$O" >"$O.matrix"
	check "$v: without device lines the ordinals merge: 2 MiB from dev0 to dev1 (what the lines fix)" \
		jq -e '.hosts[0].pairs | map(select(.copies > 0) | [.src, .dst, .bytes]) == [[0, 1, 2097152]] and
			.traces_without_devices == 2' "$O.matrix" -c
	"$AN" matrix "$O" >"$O.txt"
	check "$v: ... and the text says why ordinals of two processes may be different GPUs" \
		grep -q "ordinals are private to a process" "$O.txt"
done

# cuda: physical devices in the device lines are the simulator's
f=$(ls "$WORK"/cuda/*.pw.jsonl | head -1)
check "cuda: device 0's bus id and name are the driver's, lower case" \
	one_line '.type=="device" and .bus_id=="0000:10:00.0"' '.name == "NVIDIA H200 (pwsim 0)"' "$f"
check "cuda: each pair's can-access and P2P attributes" \
	one_line '.type=="device" and .ordinal==0' '.peers == [.peers[0]] and .peers[0].ordinal == 1 and
		.peers[0].can_access == 1 and .peers[0].access_supported == 1' "$f"

# ---- links from the simulated management library ----------------------------------------
link() { # NAME VAR=VALUE...: the LINK column of the GPU0 -> GPU1 pair
	local d=$WORK/link-$1
	shift
	traced "$d" "$@" -- cuda 4096
	"$AN" matrix "$d" | awk '$1 == "GPU0" && $2 == "GPU1" {for (i = 3; i < NF - 10; i++) printf "%s%s", $i, (i < NF - 11 ? " " : ""); print ""}'
}
check "link: two NVLink pairs: NV18" [ "$(link nv PWSIM_NVLINKS=0-1:18)" = NV18 ]
check "link: an HGX board: NV18 via NVSwitch" [ "$(link sw PWSIM_NVSWITCH=18)" = "NV18 via NVSwitch" ]
check "link: no NVLink, CPU sockets apart: PCIe, across CPU sockets" \
	[ "$(link pcie PWSIM_SOCKETS=2)" = "PCIe, across CPU sockets" ]
check "link: no management library: unknown" [ "$(link none PWSIM_NVML=absent)" = unknown ]
check "link: the device line has the NVML statuses" \
	one_line '.type=="device" and .ordinal==0' '.peers[0] | .link == "pcie" and .topology == "system" and
		.p2p_read == "ok" and .p2p_nvlink == "not_supported"' "$WORK"/link-pcie/*.pw.jsonl
check "link: without NVML, nulls" \
	one_line '.type=="device" and .ordinal==0' '.peers[0] | .link == "unknown" and .nvlinks == null and
		.topology == null and .p2p_read == null' "$WORK"/link-none/*.pw.jsonl

# HIP: ROCm SMI's link type
hlink() { # NAME VAR=VALUE...: the LINK column of HIP's GPU0 -> GPU1
	local d=$WORK/hlink-$1
	shift
	traced "$d" "$@" -- hip 4096
	"$AN" matrix "$d" | awk '$1 == "GPU0" && $2 == "GPU1" {print $3}'
}
check "hip link: XGMI from ROCm SMI" [ "$(hlink xgmi PWSIM_XGMI=0-1)" = XGMI ]
check "hip link: PCIe otherwise" [ "$(hlink pcie)" = PCIe ]
check "hip link: no ROCm SMI: unknown" [ "$(hlink none PWSIM_RSMI=absent)" = unknown ]
check "hip link: the device line says whether P2P is possible" \
	one_line '.type=="device" and .ordinal==0' '.peers[0] | .link == "xgmi" and .p2p_read == "ok" and .nvlinks == null' \
	"$WORK"/hlink-xgmi/*.pw.jsonl

# ---- why two devices cannot be peers: the finding says so, from the management library ------
# why NAME PROGRAM RULE VAR=VALUE...: the message of the first RULE finding of PROGRAM's "bad" case
why() {
	local d=$WORK/why-$1 prog=$2 rule=$3
	shift 3
	mkdir -p "$d"
	env "$@" "$PW" -q --mode warn -o "$d" -- "$B/tests/$prog" "$rule" bad >"$d.out" 2>"$d.err"
	jq -r --arg r "$rule" 'select(.type=="violation" and .rule==$r) | .message' "$d"/*.pw.jsonl | head -1
}
U0=GPU-7077736d-0000-4000-8000-5e1d00000000 U1=GPU-7077736d-0001-4000-8000-5e1d00000000
m=$(why sockets violations peer.enable.unsupported PWSIM_PEERS=none PWSIM_SOCKETS=2)
check "why: a refused peer.enable names both GPUs by UUID and bus id (got: $m)" \
	grep -qF "device 0 ($U0, 0000:10:00.0) and device 1 ($U1, 0000:20:00.0) cannot be peers" <<<"$m"
check "why: ... and says they are on different CPU sockets, from NVML" \
	grep -qF "they are on different CPU sockets (NVML: P2P read status topology_not_supported, common ancestor system)" <<<"$m"
check "why: the stderr report says it too" grep -qF "they are on different CPU sockets" "$WORK/why-sockets.err"
check "why: violations shows it" bash -c "'$AN' violations '$WORK/why-sockets' | grep -qF 'different CPU sockets'"
m=$(why regkey violations copy.peer.no-peer-access PWSIM_P2P=0-1:regkey)
check "why: a copy staged through the host: peer-to-peer disabled by a registry key (got: $m)" \
	grep -qF "cannot be peers: peer-to-peer is disabled by a driver registry key (NVML: P2P read status disabled_by_regkey" <<<"$m"
m=$(why canpeer violations copy.peer.no-peer-access)
check "why: a staged copy between devices that can be peers: nothing to add (got: $m)" \
	bash -c "[ -n '$m' ] && ! grep -q 'cannot be peers' <<<'$m'"
m=$(why nonvml violations peer.enable.unsupported PWSIM_PEERS=none PWSIM_NVML=absent)
check "why: without NVML the finding stands alone (got: $m)" \
	bash -c "[ -n '$m' ] && ! grep -q 'cannot be peers' <<<'$m'"
m=$(why hip hip_violations peer.enable.unsupported PWSIM_PEERS=none PWSIM_XGMI=0-1)
check "why: HIP: ROCm SMI says P2P is not possible, with the link (got: $m)" \
	grep -qF "cannot be peers: ROCm SMI says P2P is not possible between them (link XGMI, 1 hop)" <<<"$m"
m=$(why hipnosmi hip_violations copy.peer.no-peer-access PWSIM_PEERS=none PWSIM_RSMI=absent)
check "why: HIP without ROCm SMI: the finding stands alone (got: $m)" \
	bash -c "[ -n '$m' ] && ! grep -q 'cannot be peers' <<<'$m'"

# ---- peer.limit counts a device's connections across the run's processes, by UUID ------------
# A connects GPU0 to N others and stays; B, seeing the devices in another order
# (its ordinal 4 is GPU0), connects GPU0 to four more.
limit_run() { # NAME N: prints B's peer.limit messages
	local d=$WORK/limit-$1 n=$2
	mkdir -p "$d"
	local to=$(seq -s ' ' 1 "$n")
	PEERWATCH_RUN_ID="limit-$1-$$" PWSIM_DEVICES=10 "$PW" -q --mode warn -o "$d/a" -- \
		"$P" cuda-peers "$d/go" 0 $to >"$d/a.out" 2>"$d/a.err" &
	local pid=$! i
	for i in $(seq 300); do grep -q ready "$d/a.out" 2>/dev/null && break; sleep 0.1; done
	PEERWATCH_RUN_ID="limit-$1-$$" PWSIM_DEVICES=10 CUDA_VISIBLE_DEVICES=9,8,7,6,0 "$PW" -q --mode warn \
		-o "$d/b" -- "$P" cuda-peers "$d/go" 4 0 1 2 3 >"$d/b.out" 2>"$d/b.err" </dev/null &
	local pid_b=$!
	for i in $(seq 300); do grep -q ready "$d/b.out" 2>/dev/null && break; sleep 0.1; done
	touch "$d/go"
	wait $pid $pid_b
	cat "$d"/b/*.pw.jsonl 2>/dev/null | jq -r 'select(.type=="violation" and .rule=="peer.limit") | .message'
}
m=$(limit_run over 5)
check "peer.limit: 5 peers of GPU0 in one process and 4 in another make 9: found in the second (got: $m)" \
	grep -qF "cuCtxEnablePeerAccess from device 4 to device 3 would give device 4 (GPU-7077736d-0000-4000-8000-5e1d00000000, 0000:10:00.0) 9 peers (5 of them through other processes of the run); a device has at most 8" <<<"$m"
check "peer.limit: ... once" [ "$(grep -c . <<<"$m")" = 1 ]
check "peer.limit: ... and the first process has none" \
	bash -c "! cat '$WORK'/limit-over/a/*.pw.jsonl | grep -q '\"rule\":\"peer.limit\"'"
m=$(limit_run exact 4)
check "peer.limit: 4 and 4 make 8: no finding (got: $m)" [ -z "$m" ]
# NVSwitch: the documented limit may not apply; reported, never stopped
nvlimit() { # NAME VAR=VALUE...: enforce mode, one process, nine peers of device 0
	local d=$WORK/nvlimit-$1
	shift
	mkdir -p "$d"
	env PWSIM_DEVICES=10 "$@" "$PW" -q --mode enforce -o "$d" -- "$B/tests/violations" peer.limit bad \
		>"$d.out" 2>"$d.err"
	echo $?
}
rc=$(nvlimit sw PWSIM_NVSWITCH=18)
check "peer.limit on NVSwitches: enforce mode does not stop the program (status $rc)" [ "$rc" = 0 ]
check "peer.limit on NVSwitches: the finding says why it did not stop" \
	grep -qF "but both devices are on NVSwitches (NVML: 18 NVLinks to the switches), where whether the limit applies is not documented: reported, not stopped" "$WORK/nvlimit-sw.err"
rc=$(nvlimit pcie)
check "peer.limit without NVSwitches: enforce mode stops it (status $rc)" [ "$rc" = 134 ]
rc=$(nvlimit nonvml PWSIM_NVML=absent)
check "peer.limit without NVML: the documented limit, enforce mode stops it (status $rc)" [ "$rc" = 134 ]

# ---- a driver asked before cuInit; one line per device ---------------------------------------
traced "$WORK/late" -- cuda 4096 late-init
check "late init: the first call found the driver not initialized" \
	one_line '.type=="call" and .api=="cuDeviceCanAccessPeer"' '.ret == 3' "$WORK"/late/*.pw.jsonl
check "late init: the device lines are written once it is, one per device" \
	[ "$(grep -c '"type":"device"' "$WORK"/late/*.pw.jsonl)" = 2 ]
check "late init: check vouches for the trace (its footer counts the lines)" \
	q "$AN" check --allow-partial "$WORK/late"

# ---- ACL: a program that finalizes before the writer first asked ---------------------------
mkdir -p "$WORK/acl-fini"
"$PW" -q --mode observe -o "$WORK/acl-fini" -- "$B/tests/acl_doc" example >/dev/null 2>&1
check "acl: the devices are asked before aclFinalize, and written" \
	[ "$(cat "$WORK"/acl-fini/*.pw.jsonl | grep -c '"type":"device"')" = 2 ]

# ---- the GPU probe (tests/gpu/nvml_probe.c) on the simulated NVML ----------------------------
PWSIM_DEVICES=3 PWSIM_PEERS=0-1 PWSIM_NVLINKS=0-1:4 PWSIM_SOCKETS=2 "$B/tests/nvml_probe" >"$WORK/probe.txt"
check "nvml probe: every device by UUID and bus id" \
	grep -qx 'device 2 GPU-7077736d-0002-4000-8000-5e1d00000000 00000000:30:00.0 NVIDIA H200 (pwsim 2)' "$WORK/probe.txt"
check "nvml probe: a pair with NVLinks, its statuses and common ancestor" \
	grep -qx 'pair 0 1 read ok write ok nvlink ok atomics ok pci ok ancestor node nvlinks 4' "$WORK/probe.txt"
check "nvml probe: a pair across sockets" \
	grep -qx 'pair 1 2 read topology_not_supported write topology_not_supported nvlink not_supported atomics not_supported pci topology_not_supported ancestor system nvlinks 0' "$WORK/probe.txt"
check "nvml probe: each active link's far end" \
	bash -c "[ \$(grep -c '^link 0 [0-9]* gpu 00000000:20:00.0' '$WORK/probe.txt') = 4 ]"
PWSIM_NVML=absent "$B/tests/nvml_probe" >"$WORK/probe-absent.txt"
check "nvml probe: without NVML it says so, exit 1" \
	bash -c "[ $? = 1 ] && grep -q 'cannot start (9)' '$WORK/probe-absent.txt'"

echo "devices: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
