# The simulated ROCm SMI (build/sim/librocm_smi64.so.1) and its self-test.
# Included by the top-level Makefile (one line).
#
#   $(PWSIM_RSMI_LIB)       $(BUILD)/sim/librocm_smi64.so.1
#   make rsmi-sim-selftest  check the export list, then run the self-test

PWSIM_RSMI_SRCS     := tests/sim/rsmi_sim.c tests/sim/sim_topo.c
PWSIM_RSMI_OBJS     := $(PWSIM_RSMI_SRCS:tests/sim/%.c=$(BUILD)/obj/sim/%.o)
PWSIM_RSMI_LIB      := $(BUILD)/sim/librocm_smi64.so.1
PWSIM_RSMI_SELFTEST := $(BUILD)/tests/rsmi_selftest

.PHONY: rsmi-sim-selftest
all: $(PWSIM_RSMI_LIB) $(PWSIM_RSMI_SELFTEST)

# The object rule $(BUILD)/obj/sim/%.o of sim.mk builds the sources.
$(PWSIM_RSMI_LIB): $(PWSIM_RSMI_OBJS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SANFLAGS) -shared -Wl,-soname,librocm_smi64.so.1 -Wl,-Bsymbolic $(LDFLAGS) -o $@ $^ -lpthread

# Like peerwatch, the self-test loads the library with dlopen.
$(PWSIM_RSMI_SELFTEST): tests/sim/rsmi_selftest.c $(PWSIM_RSMI_LIB)
	@mkdir -p $(@D)
	$(CC) -std=gnu11 $(WARN) $(CFLAGS) $(SANFLAGS) -Iinclude -D_GNU_SOURCE $(LDFLAGS) -o $@ $< -ldl

rsmi-sim-selftest: $(PWSIM_RSMI_SELFTEST) $(PWSIM_RSMI_LIB)
	@nm -D --defined-only $(PWSIM_RSMI_LIB) | awk '$$3 ~ /^rsmi/ {print $$3}' | sort > $(BUILD)/sim/rsmi-exports.txt
	@$(PWSIM_RSMI_SELFTEST) --list-exports | sort | diff -u - $(BUILD)/sim/rsmi-exports.txt
	$(PWSIM_RSMI_SELFTEST) $(PWSIM_RSMI_LIB)
