# The simulated NVIDIA Management Library (build/sim/libnvidia-ml.so.1) and
# its self-test.  Included by the top-level Makefile (one line).
#
#   $(PWSIM_NVML_LIB)       $(BUILD)/sim/libnvidia-ml.so.1
#   $(PWSIM_NVML_SELFTEST)  $(BUILD)/tests/nvml_selftest
#   make nvml-sim-selftest  check the export list, then run the self-test

PWSIM_NVML_SRCS     := tests/sim/nvml_sim.c tests/sim/sim_topo.c
PWSIM_NVML_OBJS     := $(PWSIM_NVML_SRCS:tests/sim/%.c=$(BUILD)/obj/sim/%.o)
PWSIM_NVML_LIB      := $(BUILD)/sim/libnvidia-ml.so.1
PWSIM_NVML_SELFTEST := $(BUILD)/tests/nvml_selftest

.PHONY: nvml-sim-selftest
all: $(PWSIM_NVML_LIB) $(PWSIM_NVML_SELFTEST)

# The object rule $(BUILD)/obj/sim/%.o of sim.mk builds the sources.
$(PWSIM_NVML_LIB): $(PWSIM_NVML_OBJS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SANFLAGS) -shared -Wl,-soname,libnvidia-ml.so.1 -Wl,-Bsymbolic $(LDFLAGS) -o $@ $^ -lpthread

# Like peerwatch, the self-test loads the library with dlopen.
$(PWSIM_NVML_SELFTEST): tests/sim/nvml_selftest.c $(PWSIM_NVML_LIB)
	@mkdir -p $(@D)
	$(CC) -std=gnu11 $(WARN) $(CFLAGS) $(SANFLAGS) -Iinclude -D_GNU_SOURCE $(LDFLAGS) -o $@ $< -ldl

nvml-sim-selftest: $(PWSIM_NVML_SELFTEST) $(PWSIM_NVML_LIB)
	@nm -D --defined-only $(PWSIM_NVML_LIB) | awk '$$3 ~ /^nvml/ {print $$3}' | sort > $(BUILD)/sim/nvml-exports.txt
	@$(PWSIM_NVML_SELFTEST) --list-exports | sort | diff -u - $(BUILD)/sim/nvml-exports.txt
	$(PWSIM_NVML_SELFTEST) $(PWSIM_NVML_LIB)
