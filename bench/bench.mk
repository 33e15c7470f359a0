# The overhead benchmarks of issue 6 (per-call cost on the simulated driver,
# whole-process cost, trace bytes per event, resident memory).  Included by the
# top-level Makefile (-include bench/bench.mk), which defines BUILD, CC, WARN,
# CFLAGS and SANFLAGS and declares .PHONY: bench.
#
#   $(BENCH_OVERHEAD)   $(BUILD)/bench/overhead
#   make bench          bench/run.sh: everything side by side, the tables, the budget
#                       (about 30 s on 2 cores; BENCH_REPS, BENCH_SCALE, BENCH_LIB: see bench/run.sh)

BENCH_OVERHEAD := $(BUILD)/bench/overhead

$(BENCH_OVERHEAD): bench/overhead.c
	@mkdir -p $(@D)
	$(CC) -std=c11 -D_GNU_SOURCE $(WARN) $(CFLAGS) $(SANFLAGS) -Iinclude $< -o $@ -ldl -lpthread

ifeq ($(SAN),1)
bench:
	@echo "bench: timings under the sanitizers mean nothing: run make bench without SAN=1" >&2; exit 2
else
bench: all $(BENCH_OVERHEAD)
	@bench/run.sh $(BUILD)
endif
