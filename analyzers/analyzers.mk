# peerwatch-analyze: the analyzer CLI (analyzers/), its tests, fuzz target
# and benchmark.  Included by the top-level Makefile, which defines BUILD,
# CC, CFLAGS, SANFLAGS, WARN, VERSION and LDFLAGS.
#
#   $(BUILD)/bin/peerwatch-analyze   built by `make` (all)
#   make analyze-test    unit tests (tests/unit/test_analyze_*.c) and
#                        tests/analyze/run.sh (goldens, properties, the round
#                        trip through the library, determinism, the oracle);
#                        last line "analyze: N passed, M failed"
#   make analyze-fuzz    libFuzzer (clang) on the reader for FUZZ_SECONDS (60)
#   make bench-analyze   bench/analyze_bench.sh: 1 000 000 events, every command vs DuckDB
#   make analyze-valgrind every command under valgrind on a small run
#   make install         also installs peerwatch-analyze, peerwatch-analyze(1) and
#                        share/peerwatch/duckdb (the traces as DuckDB table macros)
#   make uninstall       and removes them
#
# The analyzer is an ordinary program (never preloaded): it links jansson,
# libelf and libdw dynamically, and finds them beside it in a make dist
# bundle through its $ORIGIN/../lib run path.

# The analyzer's rooms, lowest first; a file uses its own room and the
# rooms below it, never one above (HACKING.md):
#   base/   helpers that know nothing of traces: containers, tables,
#           histograms, severities and colour, JSON values, the options
#   read/   trace files into typed, validated events, handed to sinks
#   model/  what several commands derive: processes, devices, symbols,
#           the footer, IPC lifetimes, findings, the rule catalog
#   out/    findings in the formats CI reads: SARIF and JUnit
#   cmds/   one file per command
#   main.c  the command table and the options every command shares
# Every file includes by room ("read/reader.h"), from -Ianalyzers.
AN_ROOMS := base read model out cmds
AN_SRC  := $(foreach r,$(AN_ROOMS),$(wildcard analyzers/$(r)/*.c))
AN_OBJ  := $(AN_SRC:analyzers/%.c=$(BUILD)/obj/analyzers/%.o)
AN_MAIN := $(BUILD)/obj/analyzers/main.o
ANALYZE := $(BUILD)/bin/peerwatch-analyze
AN_LIBS := -ljansson -lelf -ldw -lpthread -lm
AN_CFLAGS := -std=gnu11 $(WARN) $(CFLAGS) $(SANFLAGS) -Iinclude -Ianalyzers -D_GNU_SOURCE \
             -DPW_VERSION='"$(VERSION)"' -MMD -MP

all: $(ANALYZE)

# read/apiop.c reads the library's hook tables (preload/<v>_table.h) for the
# ops of traces written before events had "op".
$(BUILD)/obj/analyzers/read/apiop.o: AN_CFLAGS += -Ipreload

$(BUILD)/obj/analyzers/%.o: analyzers/%.c
	@mkdir -p $(@D)
	$(CC) $(AN_CFLAGS) -c $< -o $@

$(ANALYZE): $(AN_OBJ) $(AN_MAIN)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SANFLAGS) $(LDFLAGS) -Wl,-rpath,'$$ORIGIN/../lib' -o $@ $(AN_MAIN) $(AN_OBJ) $(AN_LIBS)

# ---- tests ----------------------------------------------------------------

AN_UNIT_SRC := $(wildcard tests/unit/test_analyze_*.c)
AN_UNIT     := $(AN_UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
AN_TPROGS   := $(BUILD)/tests/ipc_free_while_open $(BUILD)/tests/roundtrip

# A more specific pattern than tests.mk's test_%: make picks the shorter stem.
$(BUILD)/tests/test_analyze_%: tests/unit/test_analyze_%.c $(AN_OBJ)
	@mkdir -p $(@D)
	$(CC) $(AN_CFLAGS) $< $(AN_OBJ) -o $@ $(LDFLAGS) $(AN_LIBS) -lcmocka

$(BUILD)/tests/ipc_free_while_open: tests/analyze/ipc_free_while_open.c
	@mkdir -p $(@D)
	$(CC) $(AN_CFLAGS) $< -o $@ $(LDFLAGS) -ldl

$(BUILD)/tests/roundtrip: tests/analyze/roundtrip.c
	@mkdir -p $(@D)
	$(CC) $(AN_CFLAGS) $< -o $@ $(LDFLAGS) -ldl

.PHONY: analyze-test analyze-unit analyze-fuzz bench-analyze analyze-valgrind install-analyze
analyze-test: test-build $(AN_UNIT) $(AN_TPROGS)
	@tests/timed.sh 1800 tests/analyze/all.sh $(BUILD) $(AN_UNIT)

# The analyzer's unit tests alone: CI runs them under SAN=1, where the
# reader's sets, scans and matches meet AddressSanitizer and UBSan.
analyze-unit: $(AN_UNIT)
	@fail=0; for t in $(AN_UNIT); do timeout 600 $$t || fail=1; done; exit $$fail

# The integration scenarios keep their traces (tests/integration/tap.sh) for
# the analyzer's round-trip, determinism and oracle tests
# (tests/analyze/checks_truth.sh), which make them themselves when run alone;
# in `make test` they run after the integration tests and read those.
integration-test: export PW_KEEP_TRACES := $(abspath $(BUILD))/traces/integration
analyze-test: | $(filter integration-test,$(MAKECMDGOALS))

# ---- fuzzing: clang's libFuzzer over the reader's line parser --------------

FUZZ_SECONDS ?= 60
FUZZ_CC      ?= clang
FUZZ_DIR     := $(BUILD)/fuzz
FUZZ_BIN     := $(FUZZ_DIR)/fuzz_reader
FUZZ_SRC     := $(wildcard analyzers/read/*.c) analyzers/base/util.c analyzers/base/show.c \
                analyzers/model/ipcsink.c analyzers/model/ipclife.c analyzers/model/ipcfacts.c analyzers/model/procs.c \
                analyzers/model/catalog.c

$(FUZZ_BIN): tests/analyze/fuzz_reader.c $(FUZZ_SRC) $(wildcard analyzers/base/*.h analyzers/read/*.h analyzers/model/*.h)
	@mkdir -p $(@D)
	$(FUZZ_CC) -std=gnu11 $(WARN) -g -O1 -fsanitize=fuzzer,address,undefined -Iinclude -Ianalyzers -Ipreload -D_GNU_SOURCE \
		tests/analyze/fuzz_reader.c $(FUZZ_SRC) -o $@ -ljansson -lpthread

analyze-fuzz: $(FUZZ_BIN)
	@mkdir -p $(FUZZ_DIR)/corpus
	@cp tests/analyze/fuzz-seeds/* $(FUZZ_DIR)/corpus/
	@for f in tests/analyze/fuzz-seeds/*; do cat $$f; echo; done | head -c 60000 >$(FUZZ_DIR)/corpus/whole-trace
	$(FUZZ_BIN) -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
		-artifact_prefix=$(FUZZ_DIR)/ \
		-print_final_stats=1 $(FUZZ_DIR)/corpus

bench-analyze: $(ANALYZE)
	@bench/analyze_bench.sh $(BUILD)

# ---- valgrind: every command on a small simulated run, no error, no leak ----

analyze-valgrind: test-build $(AN_TPROGS)
	@tests/analyze/valgrind.sh $(BUILD)

# ---- install: the analyzer and its man page, beside the launcher's -----------

install: install-analyze
install-analyze: $(ANALYZE)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 0755 $(ANALYZE) $(DESTDIR)$(PREFIX)/bin/peerwatch-analyze
	install -m 0644 docs/peerwatch-analyze.1 $(DESTDIR)$(PREFIX)/share/man/man1/peerwatch-analyze.1
	install -d $(DESTDIR)$(PREFIX)/share/peerwatch/duckdb
	install -m 0644 share/peerwatch/duckdb/*.sql $(DESTDIR)$(PREFIX)/share/peerwatch/duckdb/

.PHONY: uninstall-analyze
uninstall-analyze:
	rm -f $(DESTDIR)$(PREFIX)/bin/peerwatch-analyze $(DESTDIR)$(PREFIX)/share/man/man1/peerwatch-analyze.1
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/share/peerwatch/duckdb/,$(notdir $(wildcard share/peerwatch/duckdb/*.sql)))
	-rmdir $(DESTDIR)$(PREFIX)/share/peerwatch/duckdb $(DESTDIR)$(PREFIX)/share/peerwatch 2>/dev/null
