# The simulated CUDA driver (a libcuda.so.1 over host memory) and its self-test.
# Included by the top-level Makefile, which defines BUILD, CC, CFLAGS, SANFLAGS,
# ALL_CFLAGS and LDFLAGS.
#
#   $(PWSIM_LIB)          $(BUILD)/sim/libcuda.so.1         the CUDA 13.0 driver
#   $(PWSIM_LEGACY_LIB)   $(BUILD)/sim/legacy/libcuda.so.1  an 11.8 driver: nothing newer exported
#   $(PWSIM_SELFTEST)     $(BUILD)/tests/sim_selftest
#   $(PWSIM_SHIM)         $(BUILD)/tests/sim_shim.so: exports two cu* names, for the -Bsymbolic check
#   make sim-selftest     check the export lists, then run the self-test

PWSIM_SRCS := tests/sim/cuda_sim.c tests/sim/cuda_sim_ctx.c tests/sim/cuda_sim_table.c \
              tests/sim/cuda_sim_mem.c tests/sim/cuda_sim_stream.c tests/sim/cuda_sim_peer.c \
              tests/sim/cuda_sim_peercopy.c tests/sim/cuda_sim_ipc.c tests/sim/cuda_sim_managed.c \
              tests/sim/cuda_sim_getproc.c tests/sim/cuda_sim_copy.c tests/sim/cuda_sim_vmm.c \
              tests/sim/cuda_sim_um.c
PWSIM_SRCS        += tests/sim/sim_topo.c
PWSIM_OBJS        := $(PWSIM_SRCS:tests/sim/%.c=$(BUILD)/obj/sim/%.o)
PWSIM_LEGACY_OBJS := $(PWSIM_SRCS:tests/sim/%.c=$(BUILD)/obj/sim-legacy/%.o)
PWSIM_LIB         := $(BUILD)/sim/libcuda.so.1
PWSIM_LEGACY_LIB  := $(BUILD)/sim/legacy/libcuda.so.1
PWSIM_SELFTEST    := $(BUILD)/tests/sim_selftest
PWSIM_SHIM        := $(BUILD)/tests/sim_shim.so

# Only the cu* entry points are exported.  -Bsymbolic binds the library's own
# references to its own functions, so the pointers cuGetProcAddress hands out
# are the simulator's even when a preloaded library exports the same names.
PWSIM_CFLAGS  := $(ALL_CFLAGS) -fvisibility=hidden -Itests/sim
PWSIM_LDFLAGS := -shared -Wl,-soname,libcuda.so.1 -Wl,-Bsymbolic
PWSIM_LIBS    := -lpthread -lrt
# What must never appear in the legacy build (introduced after CUDA 11.8).
PWSIM_POST_118 := cuGetProcAddress_v2|cuMemAdvise_v2|cuMemPrefetchAsync_v2|cuMemPrefetchAsync_v2_ptsz|cuEventElapsedTime_v2|cuCtxGetDevice_v2|cuCtxSynchronize_v2|cuMemcpyBatchAsync|cuMemcpy3DBatchAsync|cuMemcpyBatchAsync_v2|cuMemPrefetchBatchAsync|cuMemPrefetchBatchAsync_ptsz|cuMemDiscardAndPrefetchBatchAsync|cuMemDiscardAndPrefetchBatchAsync_ptsz|cuDeviceGetP2PAtomicCapabilities

.PHONY: sim-selftest
all: $(PWSIM_LIB) $(PWSIM_LEGACY_LIB) $(PWSIM_SELFTEST) $(PWSIM_SHIM)

$(BUILD)/obj/sim/%.o: tests/sim/%.c
	@mkdir -p $(@D)
	$(CC) $(PWSIM_CFLAGS) -c $< -o $@

$(BUILD)/obj/sim-legacy/%.o: tests/sim/%.c
	@mkdir -p $(@D)
	$(CC) $(PWSIM_CFLAGS) -DPWSIM_MAX_VERSION=11080 -c $< -o $@

$(PWSIM_LIB): $(PWSIM_OBJS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SANFLAGS) $(PWSIM_LDFLAGS) $(LDFLAGS) -o $@ $^ $(PWSIM_LIBS)

$(PWSIM_LEGACY_LIB): $(PWSIM_LEGACY_OBJS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SANFLAGS) $(PWSIM_LDFLAGS) $(LDFLAGS) -o $@ $^ $(PWSIM_LIBS)

# RUNPATH (new dtags), not RPATH, so that LD_LIBRARY_PATH can swap in the
# legacy build for the self-test's --legacy-child run.
$(PWSIM_SELFTEST): $(BUILD)/obj/sim/sim_selftest.o $(PWSIM_LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SANFLAGS) $(LDFLAGS) -o $@ $< -L$(BUILD)/sim -l:libcuda.so.1 \
	    -Wl,--enable-new-dtags -Wl,-rpath,'$$ORIGIN/../sim' -ldl -lpthread

$(PWSIM_SHIM): tests/sim/sim_shim.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -Itests/sim -shared $(LDFLAGS) -o $@ $<

# The exported cu* names must be exactly the self-test's list (so each one is
# checked reachable through cuGetProcAddress), in both builds.
sim-selftest: $(PWSIM_SELFTEST) $(PWSIM_LIB) $(PWSIM_LEGACY_LIB) $(PWSIM_SHIM)
	@nm -D --defined-only $(PWSIM_LIB) | awk '$$3 ~ /^cu/ {print $$3}' | sort > $(BUILD)/sim/exports.txt
	@$(PWSIM_SELFTEST) --list-exports | sort | diff -u - $(BUILD)/sim/exports.txt
	@nm -D --defined-only $(PWSIM_LEGACY_LIB) | awk '$$3 ~ /^cu/ {print $$3}' | sort > $(BUILD)/sim/legacy/exports.txt
	@$(PWSIM_SELFTEST) --list-exports --legacy | sort | diff -u - $(BUILD)/sim/legacy/exports.txt
	@if grep -Eqx '$(PWSIM_POST_118)' $(BUILD)/sim/legacy/exports.txt; then \
	    echo "sim-selftest: the legacy libcuda exports symbols newer than CUDA 11.8" >&2; exit 1; fi
	$(PWSIM_SELFTEST)
