# The simulated CUPTI (build/sim/libcupti.so.13) and its self-test.
# Included by the top-level Makefile (one line).
#
#   $(PWSIM_CUPTI_LIB)       $(BUILD)/sim/libcupti.so.13, and the link libcupti.so
#   $(PWSIM_CUPTI_SELFTEST)  $(BUILD)/tests/cupti_selftest
#   make cupti-selftest      check the export list, then run the self-test
#
# The records come from the simulated driver (tests/sim/cuda_sim_um.c);
# libcupti finds it with dlsym, as the real one has no DT_NEEDED on libcuda.

PWSIM_CUPTI_LIB      := $(BUILD)/sim/libcupti.so.13
PWSIM_CUPTI_LINK     := $(BUILD)/sim/libcupti.so
PWSIM_CUPTI_SELFTEST := $(BUILD)/tests/cupti_selftest
PWSIM_CUPTI_EXPORTS  := cuptiActivityConfigureUnifiedMemoryCounter cuptiActivityDisable \
	cuptiActivityEnable cuptiActivityFlushAll cuptiActivityGetNextRecord \
	cuptiActivityGetNumDroppedRecords cuptiActivityRegisterCallbacks \
	cuptiActivityRegisterTimestampCallback cuptiFinalize cuptiGetResultString \
	cuptiGetStreamIdEx cuptiGetTimestamp

.PHONY: cupti-selftest
all: $(PWSIM_CUPTI_LIB) $(PWSIM_CUPTI_LINK) $(PWSIM_CUPTI_SELFTEST)

# The object rule $(BUILD)/obj/sim/%.o of sim.mk builds the source.
$(PWSIM_CUPTI_LIB): $(BUILD)/obj/sim/cupti_sim.o
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SANFLAGS) -shared -Wl,-soname,libcupti.so.13 -Wl,-Bsymbolic $(LDFLAGS) -o $@ $^ -ldl -lpthread

$(PWSIM_CUPTI_LINK): $(PWSIM_CUPTI_LIB)
	ln -sf libcupti.so.13 $@

$(PWSIM_CUPTI_SELFTEST): tests/sim/cupti_selftest.c tests/sim/pwsim_um.h tests/sim/cupti_sim_api.h include/peerwatch/abi/cupti.h \
		$(PWSIM_LIB) $(PWSIM_CUPTI_LIB)
	@mkdir -p $(@D)
	$(CC) -std=gnu11 $(WARN) $(CFLAGS) $(SANFLAGS) -Iinclude -Itests/sim -D_GNU_SOURCE $(LDFLAGS) -o $@ $< \
	    -L$(BUILD)/sim -l:libcupti.so.13 -l:libcuda.so.1 -Wl,--enable-new-dtags -Wl,-rpath,'$$ORIGIN/../sim' \
	    -lpthread

cupti-selftest: $(PWSIM_CUPTI_SELFTEST) $(PWSIM_CUPTI_LIB) $(PWSIM_CUPTI_LINK)
	@nm -D --defined-only $(PWSIM_CUPTI_LIB) | awk '$$2 ~ /^[TW]$$/ {print $$3}' | sort > $(BUILD)/sim/cupti-exports.txt
	@printf '%s\n' $(PWSIM_CUPTI_EXPORTS) | sort | diff -u - $(BUILD)/sim/cupti-exports.txt
	$(PWSIM_CUPTI_SELFTEST)
