# The simulated HIP runtime (libamdhip64 over host memory) and its self-test.
# Included by the top-level Makefile after sim.mk; uses BUILD, CC, CFLAGS,
# SANFLAGS, ALL_CFLAGS and LDFLAGS.  The same sources are built three times,
# once per ROCm major (-DPWSIM_HIP_MAJOR=5/6/7), each with SONAME
# libamdhip64.so.<major> and symbol versions from tests/sim/hip_sim.map.in:
#
#   $(HSIM_LIB6)        $(BUILD)/sim/libamdhip64.so.6        ROCm 6.2-like (HIP_VERSION 60243483)
#   $(HSIM_LIB5)        $(BUILD)/sim/hip5/libamdhip64.so.5   ROCm 5.2.3-like (50221153, Debian's)
#   $(HSIM_LIB7)        $(BUILD)/sim/hip7/libamdhip64.so.7   ROCm 7.2-like (70200000)
#   $(HSIM_SELFTEST_N)  $(BUILD)/tests/hip_selftest<N>       the self-test built for major N
#   $(HSIM_SHIM)        $(BUILD)/tests/hip_shim.so           exports hipMalloc, for the LD_PRELOAD check
#   make hip-sim-selftest   run the three self-tests
#
# Environment: PWSIM_DEVICES, PWSIM_PEERS (tests/sim/README.md), as the CUDA simulator.

HSIM_SRCS := tests/sim/hip_sim.c tests/sim/hip_sim_table.c tests/sim/hip_sim_mem.c tests/sim/hip_sim_ipc.c \
             tests/sim/hip_sim_stream.c tests/sim/hip_sim_managed.c tests/sim/hip_sim_pool.c tests/sim/hip_sim_vmm.c \
             tests/sim/sim_topo.c
HSIM_LIB5 := $(BUILD)/sim/hip5/libamdhip64.so.5
HSIM_LIB6 := $(BUILD)/sim/libamdhip64.so.6
HSIM_LIB7 := $(BUILD)/sim/hip7/libamdhip64.so.7
HSIM_SELFTEST_5 := $(BUILD)/tests/hip_selftest5
HSIM_SELFTEST_6 := $(BUILD)/tests/hip_selftest6
HSIM_SELFTEST_7 := $(BUILD)/tests/hip_selftest7
HSIM_SHIM := $(BUILD)/tests/hip_shim.so
HSIM_CFLAGS := $(ALL_CFLAGS) -fvisibility=hidden -Itests/sim
HSIM_LIBS := -ldl -lpthread -lrt

.PHONY: hip-sim-selftest
all: $(HSIM_LIB5) $(HSIM_LIB6) $(HSIM_LIB7) $(HSIM_SELFTEST_5) $(HSIM_SELFTEST_6) $(HSIM_SELFTEST_7) $(HSIM_SHIM)

# $(1): the major; $(2): the library; $(3): the self-test; $(4): the
# library's directory relative to $(BUILD)/tests, for the run path.
define HSIM_BUILD
$$(BUILD)/obj/hipsim$(1)/%.o: tests/sim/%.c
	@mkdir -p $$(@D)
	$$(CC) $$(HSIM_CFLAGS) -DPWSIM_HIP_MAJOR=$(1) -c $$< -o $$@

$$(BUILD)/obj/hipsim$(1)/exports.map: tests/sim/hip_sim.map.in
	@mkdir -p $$(@D)
	$$(CC) -E -P -x c -DPWSIM_HIP_MAJOR=$(1) $$< -o $$@

# -Bsymbolic: the library's own references bind to its own functions.
$(2): $$(HSIM_SRCS:tests/sim/%.c=$$(BUILD)/obj/hipsim$(1)/%.o) $$(BUILD)/obj/hipsim$(1)/exports.map
	@mkdir -p $$(@D)
	$$(CC) $$(CFLAGS) $$(SANFLAGS) -shared -Wl,-soname,libamdhip64.so.$(1) -Wl,-Bsymbolic \
	    -Wl,--version-script,$$(BUILD)/obj/hipsim$(1)/exports.map $$(LDFLAGS) -o $$@ \
	    $$(filter %.o,$$^) $$(HSIM_LIBS)

$(3): $$(BUILD)/obj/hipsim$(1)/hip_selftest.o $(2)
	@mkdir -p $$(@D)
	$$(CC) $$(CFLAGS) $$(SANFLAGS) $$(LDFLAGS) -o $$@ $$< -L$$(dir $(2)) -l:libamdhip64.so.$(1) \
	    -Wl,--enable-new-dtags -Wl,-rpath,'$$$$ORIGIN/$(4)' -ldl -lpthread
endef

$(eval $(call HSIM_BUILD,5,$(HSIM_LIB5),$(HSIM_SELFTEST_5),../sim/hip5))
$(eval $(call HSIM_BUILD,6,$(HSIM_LIB6),$(HSIM_SELFTEST_6),../sim))
$(eval $(call HSIM_BUILD,7,$(HSIM_LIB7),$(HSIM_SELFTEST_7),../sim/hip7))

$(HSIM_SHIM): tests/sim/hip_shim.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -Itests/sim -shared $(LDFLAGS) -o $@ $<

hip-sim-selftest: $(HSIM_SELFTEST_5) $(HSIM_SELFTEST_6) $(HSIM_SELFTEST_7) $(HSIM_SHIM)
	$(HSIM_SELFTEST_5)
	$(HSIM_SELFTEST_6)
	$(HSIM_SELFTEST_7)
