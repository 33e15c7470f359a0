# The simulated CUDA runtime (libcudart.so.13 over the simulated driver) and its
# self-test.  Included by the top-level Makefile after sim.mk.
#
#   $(PWSIM_CUDART_LIB)       $(BUILD)/sim/libcudart.so.13
#   $(PWSIM_CUDART_SELFTEST)  $(BUILD)/tests/cudart_selftest
#   make cudart-selftest      run it
#
# Its exports carry the version libcudart.so.13, as the real library's do,
# so that the tests bind versioned references the way real programs do.
# -Bsymbolic: its own calls between its functions never reach a preloaded
# library.  RUNPATH $ORIGIN: its dlopen("libcuda.so.1") finds the simulated
# driver beside it.

PWSIM_CUDART_LIB      := $(BUILD)/sim/libcudart.so.13
PWSIM_CUDART_SELFTEST := $(BUILD)/tests/cudart_selftest

.PHONY: cudart-selftest
all: $(PWSIM_CUDART_LIB) $(PWSIM_CUDART_SELFTEST)

$(PWSIM_CUDART_LIB): tests/sim/cudart_sim.c tests/sim/cudart_sim_api.h tests/sim/cudart_sim.map $(PWSIM_LIB)
	@mkdir -p $(@D)
	$(CC) $(PWSIM_CFLAGS) -shared -Wl,-soname,libcudart.so.13 -Wl,-Bsymbolic \
	    -Wl,--version-script=tests/sim/cudart_sim.map -Wl,--enable-new-dtags -Wl,-rpath,'$$ORIGIN' \
	    $(LDFLAGS) -o $@ $< -ldl -lpthread

$(PWSIM_CUDART_SELFTEST): tests/sim/cudart_selftest.c tests/sim/cudart_sim_api.h $(PWSIM_CUDART_LIB)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -Itests/sim $< -o $@ -L$(BUILD)/sim -l:libcudart.so.13 \
	    -Wl,--enable-new-dtags -Wl,-rpath,'$$ORIGIN/../sim'

cudart-selftest: $(PWSIM_CUDART_SELFTEST)
	$(PWSIM_CUDART_SELFTEST)

# The integration program of the runtime layer (tests/integration/cudart.sh).
$(BUILD)/tests/rt: tests/integration/rt.c tests/sim/cudart_sim_api.h $(PWSIM_CUDART_LIB)
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) -Itests/sim $< -o $@ -ldl -lpthread -L$(BUILD)/sim -l:libcudart.so.13 \
	    -Wl,--enable-new-dtags -Wl,-rpath,'$$ORIGIN/../sim'
all: $(BUILD)/tests/rt

# All-pairs peer access and copies, as inference servers set it up
# (tests/integration/mesh.sh; the same source runs on GPUs: tests/gpu/gpu.mk).
$(BUILD)/tests/peer_mesh: tests/integration/peer_mesh.c tests/sim/cudart_sim_api.h $(PWSIM_CUDART_LIB)
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) -Itests/sim $< -o $@ -L$(BUILD)/sim -l:libcudart.so.13 \
	    -Wl,--enable-new-dtags -Wl,-rpath,'$$ORIGIN/../sim'
all: $(BUILD)/tests/peer_mesh

# A CUDA 12.8 runtime (libcudart.so.12: int-device cudaMemAdvise and
# cudaMemPrefetchAsync, location _v2 names), and the program that uses it.
PWSIM_CUDART12_LIB := $(BUILD)/sim/cuda12/libcudart.so.12
all: $(PWSIM_CUDART12_LIB) $(BUILD)/tests/rt12

$(PWSIM_CUDART12_LIB): tests/sim/cudart_sim.c tests/sim/cudart_sim_api.h tests/sim/cudart_sim.map $(PWSIM_LIB)
	@mkdir -p $(@D)
	sed 's/libcudart\.so\.13/libcudart.so.12/' tests/sim/cudart_sim.map > $(@D)/cudart.map
	$(CC) $(PWSIM_CFLAGS) -DPWSIM_CUDART_12 -shared -Wl,-soname,libcudart.so.12 -Wl,-Bsymbolic \
	    -Wl,--version-script=$(@D)/cudart.map -Wl,--enable-new-dtags -Wl,-rpath,'$$ORIGIN/..' \
	    $(LDFLAGS) -o $@ $< -ldl -lpthread

$(BUILD)/tests/rt12: tests/integration/rt12.c tests/sim/cudart_sim_api.h $(PWSIM_CUDART12_LIB)
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) -DPWSIM_CUDART_12 -Itests/sim $< -o $@ -L$(BUILD)/sim/cuda12 -l:libcudart.so.12 \
	    -Wl,--enable-new-dtags -Wl,-rpath,'$$ORIGIN/../sim/cuda12'
