# The simulated Ascend ACL runtime (build/sim/libascendcl.so over host memory)
# and its self-test.  Included by the top-level Makefile (one line).
#
#   $(PWSIM_ACL_LIB)       $(BUILD)/sim/libascendcl.so
#   $(PWSIM_ACL_SELFTEST)  $(BUILD)/tests/acl_selftest
#   make acl-sim-selftest  check the export list, then run the self-test

PWSIM_ACL_SRCS     := tests/sim/acl_sim.c tests/sim/acl_sim_mem.c tests/sim/acl_sim_ipc.c tests/sim/acl_sim_vmm.c tests/sim/sim_topo.c
PWSIM_ACL_OBJS     := $(PWSIM_ACL_SRCS:tests/sim/%.c=$(BUILD)/obj/sim/%.o)
PWSIM_ACL_LIB      := $(BUILD)/sim/libascendcl.so
PWSIM_ACL_SELFTEST := $(BUILD)/tests/acl_selftest

.PHONY: acl-sim-selftest
all: $(PWSIM_ACL_LIB) $(PWSIM_ACL_SELFTEST)

# The object rule $(BUILD)/obj/sim/%.o of sim.mk builds the sources.
$(PWSIM_ACL_LIB): $(PWSIM_ACL_OBJS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SANFLAGS) -shared -Wl,-soname,libascendcl.so -Wl,-Bsymbolic $(LDFLAGS) -o $@ $^ -lpthread -lrt

$(PWSIM_ACL_SELFTEST): tests/sim/acl_selftest.c $(PWSIM_ACL_LIB)
	@mkdir -p $(@D)
	$(CC) -std=gnu11 $(WARN) $(CFLAGS) $(SANFLAGS) -Iinclude -D_GNU_SOURCE $(LDFLAGS) -o $@ $< \
	    -L$(BUILD)/sim -l:libascendcl.so -Wl,-rpath,'$$ORIGIN/../sim' -lpthread

# The exported acl* names are the self-test's list, then the self-test runs.
acl-sim-selftest: $(PWSIM_ACL_SELFTEST) $(PWSIM_ACL_LIB)
	@nm -D --defined-only $(PWSIM_ACL_LIB) | awk '$$3 ~ /^acl/ {print $$3}' | sort > $(BUILD)/sim/acl-exports.txt
	@$(PWSIM_ACL_SELFTEST) --list-exports | sort | diff -u - $(BUILD)/sim/acl-exports.txt
	$(PWSIM_ACL_SELFTEST)
