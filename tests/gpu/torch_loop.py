"""A PyTorch loop of cross-device tensor copies, timed by itself:
run with and without peerwatch, compare the printed seconds."""
import sys, time
import torch

n = int(sys.argv[1]) if len(sys.argv) > 1 else 200
x = torch.randn(16 << 20, device="cuda:0")  # 64 MiB
y = torch.empty_like(x, device="cuda:1")
for _ in range(10):
    y.copy_(x)
torch.cuda.synchronize(0)
torch.cuda.synchronize(1)
t = time.perf_counter()
for _ in range(n):
    y.copy_(x, non_blocking=True)
    x.copy_(y, non_blocking=True)
torch.cuda.synchronize(0)
torch.cuda.synchronize(1)
dt = time.perf_counter() - t
print(f"torch_loop {n} {dt:.6f} {2 * n * x.numel() * 4 / dt / 1e9:.2f}")
