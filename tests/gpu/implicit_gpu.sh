#!/bin/bash
# Implicit cross-device copies on two real GPUs, and the
# 4 KiB peer-copy latency with and without the range cache.
#   tests/gpu/implicit_gpu.sh NEW_BUNDLE OLD_BUNDLE OUT
# NEW_BUNDLE: `make dist` of this tree; OLD_BUNDLE: `make dist` of a tree
# without the range cache (main at b98ab0e).  Prints the implicit-copy events
# of a PyTorch script (x.to("cuda:1") and back, a same-device clone, a copy to
# and from the host: only the first two kinds must be recorded) and, in five
# alternating rounds, peer_bw's 4 KiB microseconds per copy (peer access on)
# plain, under the old and under the new library, observe and warn.
# Not run yet: this session could not send its worktree to the GPU machine.
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
NEW=${1:?NEW_BUNDLE} OLD=${2:?OLD_BUNDLE} OUT=${3:-/tmp/pw-implicit-gpu}
mkdir -p "$OUT"
nvidia-smi -L
nvcc -O2 -std=c++17 -arch=sm_90 "$(dirname "$0")/peer_bw.cu" -o /tmp/peer_bw || exit 1
cat > /tmp/t.py <<'PY'
import torch
x = torch.randn(1 << 20, device="cuda:0")            # 4 MiB
torch.cuda.synchronize()
for _ in range(3):
    y = x.to("cuda:1")                                # cross-device
    z = y.to("cuda:0")                                # cross-device
    w = x.clone()                                     # same device
    h = x.cpu()                                       # device to host
    g = h.to("cuda:1")                                # host to device
torch.cuda.synchronize(0); torch.cuda.synchronize(1)
assert torch.equal(z, x) and torch.equal(g.cpu(), h)
print("torch ok")
PY
$NEW/bin/peerwatch -q --mode warn -o $OUT/torch -- python3 /tmp/t.py
echo "== implicit events (api variant dst_dev src_dev bytes):"
cat $OUT/torch/*.pw.jsonl | python3 -c '
import json,sys,collections
c=collections.Counter(); v=collections.Counter()
for l in sys.stdin:
    e=json.loads(l)
    if e.get("type")=="call" and e.get("implicit"):
        a=e["args"]; c[(e["api"],e["variant"],a.get("dst_dev"),a.get("src_dev"),a.get("bytes"))]+=1
    if e.get("type")=="call": v[(e["family"],e["api"])]+=1
    if e.get("type")=="violation": print("VIOLATION",e.get("rule"),e.get("message"))
for k,n in sorted(c.items(), key=str): print(n,*k)
print("calls by family/api:", dict(v))'
echo "== 4 KiB latency, us per copy (plain old new), 5 rounds"
for r in 1 2 3 4 5; do
  p=$(/tmp/peer_bw | awk '$5==4096 && $4==1 {printf "%s>%s:%s ", $2,$3,$7}')
  o=$($OLD/bin/peerwatch -q --mode observe -o /tmp/o$r -- /tmp/peer_bw | awk '$5==4096 && $4==1 {printf "%s>%s:%s ", $2,$3,$7}')
  n=$($NEW/bin/peerwatch -q --mode observe -o /tmp/n$r -- /tmp/peer_bw | awk '$5==4096 && $4==1 {printf "%s>%s:%s ", $2,$3,$7}')
  ow=$($OLD/bin/peerwatch -q --mode warn -o /tmp/ow$r -- /tmp/peer_bw | awk '$5==4096 && $4==1 {printf "%s>%s:%s ", $2,$3,$7}')
  nw=$($NEW/bin/peerwatch -q --mode warn -o /tmp/nw$r -- /tmp/peer_bw | awk '$5==4096 && $4==1 {printf "%s>%s:%s ", $2,$3,$7}')
  echo "round $r plain [$p] old-observe [$o] new-observe [$n] old-warn [$ow] new-warn [$nw]"
done
