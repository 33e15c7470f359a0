# Tests: cmocka unit tests (no runtime needed) and integration programs run
# under the launcher against the simulated driver.

TBIN := $(BUILD)/tests
SIMDIR := $(BUILD)/sim

INTEG := $(TBIN)/violations $(TBIN)/nccl/libnccl.so.2 $(TBIN)/calls $(TBIN)/calls-linked $(TBIN)/threads $(TBIN)/forkexec $(TBIN)/own_jansson
INTEG += $(TBIN)/implicit
INTEG += $(TBIN)/vmm_ipc
INTEG += $(TBIN)/visible $(TBIN)/nvml_probe
UNIT_SRC := $(filter-out tests/unit/test_analyze_%,$(wildcard tests/unit/test_*.c))
# PW_TEST=pattern runs one cmocka test of a unit test (tests/unit/filter.c).
UNIT_FILTER := $(BUILD)/obj/tests/filter.o
UNIT := $(UNIT_SRC:tests/unit/%.c=$(TBIN)/%)
# Everything of the library but its constructor and the dlsym stub.
UNIT_LIBOBJ := $(filter-out %/init.o %/dlsym_entry.o,$(PRELOAD_OBJ))

TEST_CFLAGS := -std=gnu11 $(WARN) $(CFLAGS) $(SANFLAGS) -Iinclude -Ipreload -D_GNU_SOURCE

$(TBIN)/calls: tests/integration/calls.c tests/integration/drv.h
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) $< -o $@ -ldl
$(TBIN)/calls-linked: tests/integration/calls.c tests/integration/drv.h $(SIMDIR)/libcuda.so.1
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) -DCALLS_LINKED $< -o $@ -ldl -L$(SIMDIR) -l:libcuda.so.1
$(TBIN)/violations: tests/integration/violations.c tests/integration/drv.h $(SIMDIR)/libcuda.so.1
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) $< -o $@ -ldl -L$(SIMDIR) -l:libcuda.so.1
# A module named libnccl.so.2 for the default-suppression tests.
$(TBIN)/nccl/libnccl.so.2: tests/integration/fake_nccl.c
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) -fPIC -shared -fno-optimize-sibling-calls -Wl,-soname,libnccl.so.2 $< -o $@
$(TBIN)/implicit: tests/integration/implicit.c $(SIMDIR)/libcuda.so.1
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) $< -o $@ -Wl,--no-as-needed -L$(SIMDIR) -l:libcuda.so.1
$(TBIN)/vmm_ipc: tests/integration/vmm_ipc.c tests/integration/drv.h
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) $< -o $@ -ldl
$(TBIN)/visible: tests/integration/visible.c
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) $< -o $@ -ldl
$(TBIN)/nvml_probe: tests/gpu/nvml_probe.c include/peerwatch/abi/nvml.h
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) $< -o $@ -ldl
$(TBIN)/threads: tests/integration/threads.c
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) $< -o $@ -ldl -lpthread
$(TBIN)/forkexec: tests/integration/forkexec.c
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) $< -o $@ -ldl
$(TBIN)/trace_keys: tests/integration/trace_keys.c include/peerwatch/trace_format.h
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) $< -o $@ -ljansson
test-build: $(TBIN)/trace_keys
$(TBIN)/own_jansson: tests/integration/own_jansson.c
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) $< -o $@ -ldl -ljansson

include tests/integration/hip.mk

# tests/gpu/latency.cu as C against the simulated runtime, for latency.sh's check.
$(TBIN)/latency_sim: tests/gpu/latency.cu tests/gpu/gpu_common.h tests/sim/cudart_sim_api.h $(PWSIM_CUDART_LIB)
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) -x c -DPW_LATENCY_SIM -Itests/sim $< -o $@ -L$(SIMDIR) -l:libcudart.so.13 -lpthread
test-build: $(TBIN)/latency_sim

# The trace writer's test links the fault shim in, for a full disk.
$(TBIN)/test_trace: tests/unit/test_trace.c tests/fault/faultshim.c $(UNIT_LIBOBJ) $(UNIT_FILTER)
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) $< tests/fault/faultshim.c $(UNIT_LIBOBJ) $(UNIT_FILTER) -o $@ $(JANSSON_A) -lcmocka -ldl -lpthread

# Managed memory case by case (tests/integration/managed.sh): the driver and
# runtime API cases over the simulated libcuda and libcudart (the same source
# runs on GPUs: tests/gpu/gpu.mk), and the HIP cases over whichever simulated
# libamdhip64 PW_HIP_LIB names.
$(TBIN)/managed: tests/integration/managed.c tests/sim/cudart_sim_api.h $(SIMDIR)/libcuda.so.1 $(PWSIM_CUDART_LIB)
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) -Itests/sim $< -o $@ -Wl,--no-as-needed -L$(SIMDIR) -l:libcuda.so.1 \
	    -l:libcudart.so.13 -Wl,--enable-new-dtags -Wl,-rpath,'$$ORIGIN/../sim'
# Unified-memory effects over the simulated driver's fault model and libcupti
# (tests/integration/um_effects.sh).
$(TBIN)/um_effects: tests/integration/um_effects.c tests/sim/pwsim_um.h $(SIMDIR)/libcuda.so.1
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) -Itests/sim $< -o $@ -Wl,--no-as-needed -L$(SIMDIR) -l:libcuda.so.1 \
	    -Wl,--enable-new-dtags -Wl,-rpath,'$$ORIGIN/../sim'
test-build: $(TBIN)/um_effects
$(TBIN)/managed_hip: tests/integration/managed_hip.c
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) $< -o $@ -ldl
test-build: $(TBIN)/managed $(TBIN)/managed_hip

$(UNIT_FILTER): tests/unit/filter.c
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) -c $< -o $@

$(TBIN)/test_%: tests/unit/test_%.c $(UNIT_LIBOBJ) $(UNIT_FILTER)
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) $< $(UNIT_LIBOBJ) $(UNIT_FILTER) -o $@ $(JANSSON_A) -lcmocka -ldl -lpthread

.PHONY: test-build unit-test integration-test
test-build: all $(INTEG) $(UNIT)

unit-test: test-build
	@s=$$(date +%s); fail=0; for t in $(UNIT); do PWSIM_LIB=$(SIMDIR)/libcuda.so.1 timeout 600 $$t || fail=1; done; \
		echo "== unit tests: $$(($$(date +%s) - s)) s"; exit $$fail

# Each suite under a time limit: a hang fails in minutes, not at CI's limit.
integration-test: test-build
	@tests/timed.sh 1200 tests/integration/run.sh $(BUILD)
	@tests/timed.sh 1200 tests/integration/rules.sh $(BUILD)
	@tests/timed.sh 600 tests/integration/contract_table.sh $(BUILD)
	@tests/timed.sh 600 tests/integration/rules_acl.sh $(BUILD)
	@tests/timed.sh 600 tests/integration/implicit.sh $(BUILD)
	@tests/timed.sh 600 tests/integration/cudart.sh $(BUILD)
	@tests/timed.sh 1200 tests/integration/rules_hip.sh $(BUILD)
	@tests/timed.sh 600 tests/integration/vmm.sh $(BUILD)
	@tests/timed.sh 600 tests/integration/ipc_model.sh $(BUILD)
	@tests/timed.sh 600 tests/integration/mesh.sh $(BUILD)
	@tests/timed.sh 900 tests/integration/managed.sh $(BUILD)
	@tests/timed.sh 600 tests/integration/um_effects.sh $(BUILD)
	@tests/timed.sh 600 tests/integration/trace_keys.sh $(BUILD)
	@tests/timed.sh 600 tests/integration/launchers.sh $(BUILD)
	@tests/timed.sh 600 tests/integration/latency.sh $(BUILD)
	@tests/timed.sh 600 tests/integration/devices.sh $(BUILD)

# The library's rooms (scripts/depgraph.py, HACKING.md): no circle of files
# by includes and calls, and no arrow from a room to one above it; the
# shared code reaches vendors through their descriptors only
# (preload/core/vendor.h).
.PHONY: deps-test
deps-test: all
	@scripts/depgraph.py --self-test
	@scripts/depgraph.py preload --objs $(BUILD)/obj/preload --check
	@scripts/depgraph.py analyzers --objs $(BUILD)/obj/analyzers --check

.PHONY: docs-test
docs-test: test-build
	@scripts/gen-hooks-doc.sh | cmp -s - docs/hooks.md && echo "docs: docs/hooks.md matches the hook tables" || \
		{ echo "docs: docs/hooks.md is out of date: run make docs"; exit 1; }
	@scripts/gen-rules-doc.sh $(BUILD) | cmp -s - docs/rules.md && \
		echo "docs: docs/rules.md matches the rule table and the reports" || \
		{ echo "docs: docs/rules.md is out of date: run make docs"; exit 1; }
	@scripts/gen-options-doc.sh readme | cmp -s - README.md && \
		echo "docs: README.md's option table matches preload/core/options.c" || \
		{ echo "docs: README.md's option table is out of date: run make docs"; exit 1; }
	@scripts/gen-options-doc.sh man | cmp -s - docs/peerwatch.1 && \
		echo "docs: docs/peerwatch.1's option list matches preload/core/options.c" || \
		{ echo "docs: docs/peerwatch.1's option list is out of date: run make docs"; exit 1; }
	@scripts/gen-counts-doc.sh readme | cmp -s - README.md && \
		echo "docs: README.md's rule count matches include/peerwatch/rules_table.h" || \
		{ echo "docs: README.md's rule count is out of date: run make docs"; exit 1; }
	@for m in docs/peerwatch.1 docs/peerwatch-analyze.1; do \
		scripts/gen-counts-doc.sh man $$m | cmp -s - $$m && \
		echo "docs: $$m's rule counts match include/peerwatch/rules_table.h" || \
		{ echo "docs: $$m's rule counts are out of date: run make docs"; exit 1; }; done
	@scripts/gen-trace-doc.sh md | cmp -s - docs/trace-format.md && \
		echo "docs: docs/trace-format.md's member tables match include/peerwatch/trace_format.h" || \
		{ echo "docs: docs/trace-format.md is out of date: run make docs"; exit 1; }
	@scripts/gen-trace-doc.sh schema | cmp -s - docs/trace.schema.json && \
		echo "docs: docs/trace.schema.json matches include/peerwatch/trace_format.h" || \
		{ echo "docs: docs/trace.schema.json is out of date: run make docs"; exit 1; }

# The real-GPU programs (tests/gpu) compile wherever a CUDA toolkit is: CI
# has no GPU to run them on, but a program that no longer builds shows here
# rather than on the next GPU machine.
.PHONY: gpu-build-test
gpu-build-test:
	@if command -v $(NVCC) >/dev/null 2>&1; then \
		mkdir -p $(BUILD) && if $(MAKE) --no-print-directory gpu-programs BUILD=$(BUILD) >$(BUILD)/gpu-build.log 2>&1; then \
			echo "gpu: the GPU programs compile ($(words $(GPU_PROGRAMS)) with $(NVCC))"; \
		else tail -30 $(BUILD)/gpu-build.log; echo "gpu: the GPU programs do not compile (log: $(BUILD)/gpu-build.log)"; exit 1; fi; \
	else echo "gpu: no CUDA toolkit ($(NVCC) not found): the GPU programs were not compiled"; fi

# make test runs every suite, TEST_JOBS at a time (one per CPU), each
# suite's output kept apart and printed whole when it ends, the longest
# first (tests/suite.sh), and ends with one line counting the checks of all
# (tests/tally.sh): "make test: N passed, N failed, N skipped (M min S s)".
# The fault suite runs as three parts, the analyzer's as two, side by side.
TEST_SUITES := fault-races-1 fault-races-2 fault-others analyze-fast analyze-truth \
	integration rules contract_table rules_acl implicit cudart rules_hip vmm ipc_model mesh \
	managed um_effects trace_keys launchers latency devices \
	unit sim acl-sim hip-sim nvml-sim rsmi-sim cupti-sim deps docs packaging gpu-build tally
# make check-fast (make test Q=1): the loop of a change, in minutes: the unit
# tests, the simulators' self-tests, the integration suite and the rules,
# the analyzer's suite but the part that reads the integration traces
# (the oracle: analyze-truth), the rooms and the generated docs.
FAST_SUITES := unit sim acl-sim hip-sim nvml-sim rsmi-sim cupti-sim integration rules analyze-fast deps docs tally
TEST_JOBS ?= $(shell nproc 2>/dev/null || echo 2)
# Everything the suites run, built before they start: two suites' makes
# never build the same file at once.
TEST_PROGS := test-build $(AN_UNIT) $(AN_TPROGS)
# The build in parallel too, unless make was given a -j of its own.
TEST_MAKE_J = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(TEST_JOBS))

.PHONY: check-fast
check-fast:
	@$(MAKE) --no-print-directory $(TEST_MAKE_J) $(TEST_PROGS)
	@tests/suite.sh -j $(TEST_JOBS) -n "make check-fast" $(BUILD) $(FAST_SUITES)

# make test T=NAME runs one suite (tests/one.sh lists them); T=test_x:PATTERN
# one cmocka test (or those matching the pattern) of unit test test_x.
ifeq ($(T),)
ifeq ($(Q),1)
test: check-fast
else
test: deps
	@$(MAKE) --no-print-directory $(TEST_MAKE_J) $(TEST_PROGS)
	@tests/suite.sh -j $(TEST_JOBS) $(BUILD) $(TEST_SUITES)
endif
else
test:
	@$(MAKE) --no-print-directory test-build
	@tests/one.sh $(BUILD) '$(T)'
endif

# Under SAN=1 the preloaded library carries ASan, whose runtime must come
# first in LD_PRELOAD: the integration script puts it there.
ifeq ($(SAN),1)
export PW_ASAN_RUNTIME := $(shell $(CC) -print-file-name=libasan.so)
endif

# ACL: the document's example and its mistakes (tests/integration/rules_acl.sh).
$(TBIN)/acl_doc: tests/integration/acl_doc.c $(PWSIM_ACL_LIB)
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) $< -o $@ -L$(SIMDIR) -l:libascendcl.so -lpthread
test-build: $(TBIN)/acl_doc

# Under TSAN=1 the library and the test programs carry ThreadSanitizer; its
# runtime is their dependency, not preloaded (tests/integration/tap.sh).
ifeq ($(TSAN),1)
export PW_TSAN_RUNTIME := $(shell $(CC) -print-file-name=libtsan.so)
# The dlsym interposer runs while TSan's runtime resolves its interceptors,
# before the runtime can record anything: it is built uninstrumented.
$(BUILD)/obj/preload/core/intercept.o: ALL_CFLAGS := $(filter-out -fsanitize=thread,$(ALL_CFLAGS))
endif

# The fault suite (tests/fault/run.sh): the stress programs and a preloaded
# fault injector for the trace file.
FAULT := $(TBIN)/exitrace $(TBIN)/flood $(TBIN)/fdprog $(TBIN)/faultshim.so
$(TBIN)/exitrace: tests/integration/exitrace.c
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) $< -o $@ -ldl -lpthread
$(TBIN)/flood: tests/integration/flood.c
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) $< -o $@ -ldl
# A program that counts on its descriptor numbers (closed 0/1/2, a daemon's
# close loop, dup2 onto peerwatch's own descriptors).
$(TBIN)/fdprog: tests/fault/fdprog.c
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) $< -o $@ -ldl
# Never instrumented: it is preloaded behind a sanitizer runtime, whose
# interceptors reach it through RTLD_NEXT.
$(TBIN)/faultshim.so: tests/fault/faultshim.c
	@mkdir -p $(@D)
	$(CC) -std=gnu11 $(WARN) $(CFLAGS) -fPIC -shared $< -o $@ -ldl -lpthread
test-build: $(FAULT)

.PHONY: fault-test
fault-test: test-build
	@tests/timed.sh 1800 tests/fault/run.sh $(BUILD)

# make stress: the fault suite's exit races alone, STRESS_RUNS times each
# (make test runs each 10 times): for a change to the exit, exec, fork or
# signal paths, where a race shows in one run of twenty or fewer.
STRESS_RUNS ?= 50
.PHONY: stress
stress: deps test-build
	@PW_FAULT_PART=races PW_STRESS_RUNS=$(STRESS_RUNS) tests/timed.sh 3600 tests/fault/run.sh $(BUILD)

# The IPC registry's name for a run id (the segment's name is a keyed hash
# of it): for the scripts that look for it in /dev/shm.
$(TBIN)/shmname: tests/fault/shmname.c $(BUILD)/obj/preload/state/registry.o $(BUILD)/obj/preload/core/log.o \
		$(BUILD)/obj/preload/core/runid.o \
		$(BUILD)/obj/preload/core/globals.o
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) $^ -o $@ -lpthread
test-build: $(TBIN)/shmname

# Runs a command and waits for every process it leaves behind (the
# launcher's watcher): tests/fault/run.sh's registry cleanup checks.
$(TBIN)/subreaper: tests/fault/subreaper.c
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) $< -o $@
test-build: $(TBIN)/subreaper

# ThreadSanitizer: the library, the simulated runtimes and the test programs
# built with -fsanitize=thread into build-tsan/; the writer's unit tests, the
# integration suite and the fault suite (its races included) run on them.  A
# report fails the run.  CI runs it (.ci/run).
.PHONY: tsan-test tsan-suites
tsan-test: deps
	@$(MAKE) --no-print-directory TSAN=1 test-build
	@$(MAKE) --no-print-directory TSAN=1 tsan-suites
tsan-suites:
	@fail=0; for t in $(TBIN)/test_trace $(TBIN)/test_registry; do \
		TSAN_OPTIONS=halt_on_error=1:exitcode=66 PWSIM_LIB=$(SIMDIR)/libcuda.so.1 timeout 600 $$t || fail=1; done; \
		tests/timed.sh 1800 tests/integration/run.sh $(BUILD) || fail=1; \
		tests/timed.sh 2400 tests/fault/run.sh $(BUILD) || fail=1; exit $$fail
