# The overhead benchmarks (per-call cost on the simulated driver and runtime,
# 1 and 8 threads, nesting, the trace writer's throughput, resident memory,
# the phase counters).  Included by the top-level Makefile (-include
# bench/bench.mk), which defines BUILD, CC, WARN, CFLAGS and SANFLAGS and
# declares .PHONY: bench.
#
#   $(BENCH_OVERHEAD)   $(BUILD)/bench/overhead
#   make bench          bench/run.sh: everything side by side, the tables, the budget; also
#                       builds the library with phase counters (build-phases/, make PHASES=1)
#                       (BENCH_LIBS, BENCH_REPS, BENCH_SCALE, BENCH_QUICK: see bench/run.sh)

BENCH_OVERHEAD := $(BUILD)/bench/overhead

$(BENCH_OVERHEAD): bench/overhead.c
	@mkdir -p $(@D)
	$(CC) -std=c11 -D_GNU_SOURCE $(WARN) $(CFLAGS) $(SANFLAGS) -Iinclude $< -o $@ -ldl -lpthread

ifeq ($(SAN),1)
bench:
	@echo "bench: timings under the sanitizers mean nothing: run make bench without SAN=1" >&2; exit 2
else
bench: all $(BENCH_OVERHEAD)
	@$(MAKE) --no-print-directory PHASES=1 BUILD=build-phases build-phases/lib/libpeerwatch.so
	@BENCH_PHASES_LIB=build-phases/lib/libpeerwatch.so bench/run.sh $(BUILD)
endif
