# The HIP integration programs (included by tests/tests.mk).
#
# hip_real: the REAL runtime, Debian's ROCm 5.2.3 (libamdhip64-5,
# libamdhip64-dev; scripts/install-deps.sh), compiled against its own
# header; built only where it is installed (hip_real.sh says it skipped).
#
# hip_calls, hip_calls-linked, hip_violations: against the simulated
# runtime (tests/sim/hip_*), compiled against our ABI header; built once
# the simulator is in the tree.

HIP_REAL_LIB := $(firstword $(wildcard /usr/lib/*/libamdhip64.so.5 /opt/rocm/lib/libamdhip64.so.5))
HIP_REAL_HDR := $(wildcard /usr/include/hip/hip_runtime_api.h)
ifneq ($(and $(HIP_REAL_LIB),$(HIP_REAL_HDR)),)
test-build: $(TBIN)/hip_real
endif
$(TBIN)/hip_real: tests/integration/hip_real.c
	@mkdir -p $(@D)
	$(CC) -std=gnu11 $(WARN) $(CFLAGS) $(SANFLAGS) -D__HIP_PLATFORM_AMD__ $< -o $@ $(HIP_REAL_LIB)

# The simulated runtime (tests/sim/hip.mk): the .so.6 build links the
# programs; rules_hip.sh finds the .5/.6/.7 builds under $(SIMDIR) itself.
HIPSIM_LIB6 := $(or $(HSIM_LIB6),$(SIMDIR)/libamdhip64.so.6)
HIPSIM_LIB7 := $(or $(HSIM_LIB7),$(SIMDIR)/hip7/libamdhip64.so.7)
HIP_TESTS := $(TBIN)/hip_calls $(TBIN)/hip_calls-linked $(TBIN)/hip_violations $(TBIN)/hip_violations7
HIP_TESTS += $(TBIN)/hip_ctx $(TBIN)/hip_ctxstack.so $(TBIN)/hip_lasterr
ifneq ($(wildcard tests/sim/hip_sim*.c),)
test-build: $(HIP_TESTS)
endif
$(TBIN)/hip_calls: tests/integration/hip_calls.c tests/integration/hip_api.h
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) $< -o $@ -ldl
$(TBIN)/hip_calls-linked: tests/integration/hip_calls.c tests/integration/hip_api.h $(HIPSIM_LIB6)
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) -DHIP_LINKED $< -o $@ -ldl $(HIPSIM_LIB6)
$(TBIN)/hip_violations: tests/integration/hip_violations.c tests/integration/hip_api.h $(HIPSIM_LIB6)
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) $< -o $@ $(HIPSIM_LIB6)
# The same scenarios against ROCm 7.1 (the .so.7 build), with the _v2 calls
# only it has (hipMemAdvise_v2, hipMemPrefetchAsync_v2).
$(TBIN)/hip_violations7: tests/integration/hip_violations.c tests/integration/hip_api.h $(HIPSIM_LIB7)
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) -DPW_HIP7 $< -o $@ $(HIPSIM_LIB7) -Wl,--enable-new-dtags -Wl,-rpath,'$$ORIGIN/../sim/hip7'
# hip_ctx under hip_ctxstack.so: a runtime with clr's context stack (rules_hip.sh).
$(TBIN)/hip_ctx: tests/integration/hip_ctx.c tests/integration/hip_api.h $(HIPSIM_LIB6)
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) $< -o $@ $(HIPSIM_LIB6)
$(TBIN)/hip_ctxstack.so: tests/integration/hip_ctxstack.c
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) -shared -fPIC $< -o $@ -ldl
# hip_lasterr: the layer's own failing queries must not become the program's
# last error (ROCm 7 semantics, modelled by the .so.7 simulator).
$(TBIN)/hip_lasterr: tests/integration/hip_lasterr.c
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) $< -o $@ -ldl
