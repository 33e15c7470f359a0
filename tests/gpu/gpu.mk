# Programs for the real-GPU validation suite (tests/gpu/README.md).
#
#   make gpu-programs   build them into $(BUILD)/gpu/ (needs nvcc; not part of `make all`)
#   make gpu-carry      the same, plus the scripts, so $(BUILD)/gpu/ runs on its own:
#                       copy that folder to a GPU machine and run its run.sh there
#
# Overridable: CUDA_HOME, NVCC, GPU_ARCH (compute capability, 90 for H100/H200),
# GPU_CC (the C compiler for peer_driver), GPU_NVCCFLAGS, GPU_CFLAGS.

BUILD         ?= build
CUDA_HOME     ?= /usr/local/cuda
NVCC          ?= $(if $(wildcard $(CUDA_HOME)/bin/nvcc),$(CUDA_HOME)/bin/nvcc,nvcc)
GPU_ARCH      ?= 90
GPU_CC        ?= $(CC)
GPU_NVCCFLAGS ?= -O2 -g -std=c++17 -Xcompiler -Wall,-Wextra
GPU_CFLAGS    ?= -std=gnu11 -O2 -g -Wall -Wextra -Wshadow -Wformat=2
# sm_$(GPU_ARCH) machine code, plus compute_$(GPU_ARCH) PTX for newer GPUs to JIT.
GPU_GENCODE   := -arch=sm_$(GPU_ARCH) -gencode arch=compute_$(GPU_ARCH),code=compute_$(GPU_ARCH)

# CUPTI, for the reference counter libpwcupti.so: built only where it is found.
GPU_CUPTI_INC ?= $(patsubst %/cupti.h,%,$(firstword $(wildcard \
                   $(CUDA_HOME)/extras/CUPTI/include/cupti.h $(CUDA_HOME)/targets/*/include/cupti.h)))
GPU_CUPTI_LIB ?= $(firstword $(wildcard \
                   $(CUDA_HOME)/extras/CUPTI/lib64/libcupti.so $(CUDA_HOME)/targets/*/lib/libcupti.so))

GPU_DIR       := $(BUILD)/gpu
GPU_SRC       := tests/gpu
GPU_PROGRAMS  := $(addprefix $(GPU_DIR)/,peer_static peer_shared peer_ptds peer_driver ipc_reopen_probe violations peer_bw peer_mesh p2p_atomics managed contract contract_ctx latency_static latency_shared visible nvml_probe hostprobe fdprog first_call um_effects copy_cost)
ifneq ($(and $(GPU_CUPTI_INC),$(GPU_CUPTI_LIB)),)
GPU_PROGRAMS  += $(GPU_DIR)/libpwcupti.so
endif
GPU_SCRIPTS   := run.sh fd_gpu.sh thread_fds.sh latency.sh latency_paces.sh latency_budget.awk outcome_gpu.sh rules_gpu.sh managed_gpu.sh p2p_atomics.sh devices_gpu.sh bench_gpu.sh paths_gpu.sh multi_gpu.sh paths_check.py bw_compare.py torch_loop.py check_trace.py torch_peer.py nccl_allreduce.py before_after.sh before_after.py um_gpu.sh README.md
GPU_ALL_DEPS  := $(GPU_SRC)/gpu_common.h $(GPU_SRC)/gpu.mk

.PHONY: gpu-programs gpu-carry gpu-clean

gpu-programs: $(GPU_PROGRAMS)

gpu-carry: gpu-programs $(addprefix $(GPU_DIR)/,$(GPU_SCRIPTS))

$(GPU_DIR):
	mkdir -p $@

# Static cudart: nvcc's default.
$(GPU_DIR)/peer_static: $(GPU_SRC)/peer_all.cu $(GPU_ALL_DEPS) | $(GPU_DIR)
	$(NVCC) $(GPU_GENCODE) $(GPU_NVCCFLAGS) -cudart static -o $@ $<

$(GPU_DIR)/peer_shared: $(GPU_SRC)/peer_all.cu $(GPU_ALL_DEPS) | $(GPU_DIR)
	$(NVCC) $(GPU_GENCODE) $(GPU_NVCCFLAGS) -cudart shared -o $@ $<

$(GPU_DIR)/peer_ptds: $(GPU_SRC)/peer_all.cu $(GPU_ALL_DEPS) | $(GPU_DIR)
	$(NVCC) $(GPU_GENCODE) $(GPU_NVCCFLAGS) --default-stream per-thread -o $@ $<

# What a traced call costs on the calling thread (latency.sh), with static
# and with shared cudart.
$(GPU_DIR)/latency_static: $(GPU_SRC)/latency.cu $(GPU_SRC)/gpu_common.h | $(GPU_DIR)
	$(NVCC) $(GPU_GENCODE) $(GPU_NVCCFLAGS) -cudart static -o $@ $< -lpthread

$(GPU_DIR)/latency_shared: $(GPU_SRC)/latency.cu $(GPU_SRC)/gpu_common.h | $(GPU_DIR)
	$(NVCC) $(GPU_GENCODE) $(GPU_NVCCFLAGS) -cudart shared -o $@ $< -lpthread

# Links the driver API by its exported symbols.  The toolkit's stub library
# satisfies the link on a machine without a driver; at run time the driver's
# libcuda.so.1 is loaded (no rpath to the stubs).
# Peer bandwidth and latency, the program's own measurement.
$(GPU_DIR)/peer_bw: $(GPU_SRC)/peer_bw.cu $(GPU_SRC)/cuda_check.h | $(GPU_DIR)
	$(NVCC) $(GPU_GENCODE) -O2 -o $@ $<

# The rule scenarios of tests/integration, against the real driver.
$(GPU_DIR)/violations: tests/integration/violations.c tests/integration/drv.h | $(GPU_DIR)
	$(GPU_CC) $(GPU_CFLAGS) -Iinclude -o $@ $< -L$(CUDA_HOME)/lib64/stubs -lcuda

# All-pairs peer access: the source of tests/integration/mesh.sh,
# here over the toolkit's shared libcudart (found at run time in CUDA_HOME).
$(GPU_DIR)/peer_mesh: tests/integration/peer_mesh.c tests/sim/cudart_sim_api.h | $(GPU_DIR)
	$(GPU_CC) $(GPU_CFLAGS) -Iinclude -Itests/sim -o $@ $< -L$(CUDA_HOME)/lib64 -l:libcudart.so.13 \
		-Wl,-rpath,$(CUDA_HOME)/lib64

# The managed-memory cases of tests/integration/managed.c (driver and runtime
# API), C built by nvcc against the real driver (stub at link time) and the
# toolkit's shared libcudart, so that runtime calls are traced as runtime
# calls (tests/gpu/managed_gpu.sh compares each case with the simulator).
$(GPU_DIR)/managed: tests/integration/managed.c tests/sim/cudart_sim_api.h include/peerwatch/abi/cudart.h | $(GPU_DIR)
	$(NVCC) -O2 -g -Xcompiler -Wall,-Wextra -Iinclude -Itests/sim -o $@ $< \
		-cudart shared -L$(CUDA_HOME)/lib64/stubs -lcuda -Xlinker -rpath,$(CUDA_HOME)/lib64

# Not a test: measures what the driver answers to a second open of one IPC handle.
$(GPU_DIR)/ipc_reopen_probe: $(GPU_SRC)/ipc_reopen_probe.c | $(GPU_DIR)
	$(GPU_CC) $(GPU_CFLAGS) -I$(CUDA_HOME)/include -o $@ $< -L$(CUDA_HOME)/lib64/stubs -lcuda

# cuDeviceGetP2PAtomicCapabilities (CUDA 13): the driver's answers (p2p_atomics.sh).
$(GPU_DIR)/p2p_atomics: $(GPU_SRC)/p2p_atomics.c | $(GPU_DIR)
	$(GPU_CC) $(GPU_CFLAGS) -I$(CUDA_HOME)/include -o $@ $< -L$(CUDA_HOME)/lib64/stubs -lcuda

# The IPC, peer and event contract cases, one per run (before_after.sh):
# the driver API, and the shared libcudart for the device-ordinal case.
$(GPU_DIR)/contract: $(GPU_SRC)/contract.c | $(GPU_DIR)
	$(GPU_CC) $(GPU_CFLAGS) -I$(CUDA_HOME)/include -o $@ $< -L$(CUDA_HOME)/lib64/stubs -lcuda \
		-L$(CUDA_HOME)/lib64 -l:libcudart.so.13 -Wl,-rpath,$(CUDA_HOME)/lib64
# Peer access per context and the context and pointer breaks of peer calls,
# most cases on one GPU (contract_ctx.c): the same build as contract.
$(GPU_DIR)/contract_ctx: $(GPU_SRC)/contract_ctx.c | $(GPU_DIR)
	$(GPU_CC) $(GPU_CFLAGS) -I$(CUDA_HOME)/include -o $@ $< -L$(CUDA_HOME)/lib64/stubs -lcuda \
		-L$(CUDA_HOME)/lib64 -l:libcudart.so.13 -Wl,-rpath,$(CUDA_HOME)/lib64
# Device identity (devices_gpu.sh): one peer copy per rank, the runtime by
# dlopen (tests/integration/visible.c, as on the simulators), and what NVML
# says of every pair (nvml_probe.c, peerwatch's own NVML declarations).
$(GPU_DIR)/visible: tests/integration/visible.c | $(GPU_DIR)
	$(GPU_CC) $(GPU_CFLAGS) -Iinclude -o $@ $< -ldl
# The program's descriptors on the real driver (fd_gpu.sh): the fault
# suite's daemon, and the first traced call timed.
$(GPU_DIR)/fdprog: tests/fault/fdprog.c include/peerwatch/abi/cuda.h | $(GPU_DIR)
	$(GPU_CC) $(GPU_CFLAGS) -D_GNU_SOURCE -Iinclude -o $@ $< -ldl
# Unified-memory effects (um_counters=1) and what device timing costs a copy
# (um_gpu.sh).
$(GPU_DIR)/um_effects: $(GPU_SRC)/um_effects.cu $(GPU_SRC)/cuda_check.h | $(GPU_DIR)
	$(NVCC) $(GPU_GENCODE) $(GPU_NVCCFLAGS) -cudart shared -o $@ $<
$(GPU_DIR)/copy_cost: $(GPU_SRC)/copy_cost.cu $(GPU_SRC)/cuda_check.h | $(GPU_DIR)
	$(NVCC) $(GPU_GENCODE) $(GPU_NVCCFLAGS) -cudart shared -o $@ $<
$(GPU_DIR)/first_call: $(GPU_SRC)/first_call.c include/peerwatch/abi/cuda.h | $(GPU_DIR)
	$(GPU_CC) $(GPU_CFLAGS) -Iinclude -o $@ $< -ldl
$(GPU_DIR)/nvml_probe: $(GPU_SRC)/nvml_probe.c include/peerwatch/abi/nvml.h | $(GPU_DIR)
	$(GPU_CC) $(GPU_CFLAGS) -Iinclude -o $@ $< -ldl

# What the hot path's building blocks cost on the GPU host's CPU (no GPU needed).
$(GPU_DIR)/hostprobe: $(GPU_SRC)/hostprobe.c $(GPU_SRC)/gpu_common.h | $(GPU_DIR)
	$(GPU_CC) $(GPU_CFLAGS) -o $@ $< -lpthread

$(GPU_DIR)/peer_driver: $(GPU_SRC)/peer_driver.c $(GPU_ALL_DEPS) | $(GPU_DIR)
	$(GPU_CC) $(GPU_CFLAGS) -I$(CUDA_HOME)/include -o $@ $< \
		-L$(CUDA_HOME)/lib64/stubs -L$(CUDA_HOME)/lib64 -lcuda

# Loaded by the driver through CUDA_INJECTION64_PATH (run.sh's reference count).
$(GPU_DIR)/libpwcupti.so: $(GPU_SRC)/cupti_count.c $(GPU_SRC)/gpu.mk | $(GPU_DIR)
	$(GPU_CC) $(GPU_CFLAGS) -shared -fPIC -I$(GPU_CUPTI_INC) -I$(CUDA_HOME)/include -o $@ $< \
		$(GPU_CUPTI_LIB) -Wl,-rpath,$(dir $(GPU_CUPTI_LIB))

$(GPU_DIR)/%: $(GPU_SRC)/% | $(GPU_DIR)
	cp -p $< $@

gpu-clean:
	rm -rf $(GPU_DIR)
