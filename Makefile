# peerwatch — one entry point: build, test, demo, install, dist, bench, lint.
#
#   make            build the library, launcher and simulated runtimes into build/
#   make test       install missing dependencies, build, run every test
#   make check-fast the loop of a change: the suites that cover the most, in minutes
#   make demo       install missing dependencies, build, run the demo
#   make SAN=1 ...  the same under AddressSanitizer + UndefinedBehaviorSanitizer (build-san/)
#   make PHASES=1   the library with per-phase time counters (build-phases/; preload/record/phase.h)
#   make ABLATE=N   a measurement build that leaves stages of every wrapper out
#                   (build-ablate-N/; preload/vendors/call.h): for timing, never for use
#   make stress     the exit, exec, fork and signal races, 50 runs each (make test: 10)
#   make tsan-test  the library under ThreadSanitizer (build-tsan/): the trace and
#                   registry unit tests, the integration and the fault suites
#   make CC=clang   any C11 compiler with GNU extensions

VERSION    := 0.1.0
PREFIX     ?= /usr/local
DESTDIR    ?=
CC         ?= cc
SAN        ?= 0
TSAN       ?= 0
ifeq ($(SAN),1)
BUILD      ?= build-san
SANFLAGS   := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
else ifeq ($(TSAN),1)
# -Wno-tsan: the seqlocks' atomic_thread_fence (rangecache.c, vmm_state.c) is
# not modelled by gcc's TSan; the data they guard is read with atomics, so no
# report can come of it, only a warning at build time.
BUILD      ?= build-tsan
SANFLAGS   := -fsanitize=thread -fno-omit-frame-pointer -Wno-tsan
else ifeq ($(PHASES),1)
BUILD      ?= build-phases
SANFLAGS   :=
else ifneq ($(ABLATE),)
BUILD      ?= build-ablate-$(ABLATE)
SANFLAGS   :=
else
BUILD      ?= build
SANFLAGS   :=
endif
# One spelling of the build directory whatever the caller gave (build, ./build,
# /abs/path/build): the dependency files name their objects by it, and an
# object named two ways (the suites pass an absolute BUILD) is one whose
# headers make no longer follows, left stale after a header changes.
override BUILD := $(patsubst $(CURDIR)/%,%,$(abspath $(BUILD)))
PHASES     ?= 0
PHASEFLAGS := $(if $(filter 1,$(PHASES)),-DPW_PHASES=1) $(if $(ABLATE),-DPW_ABLATE=$(ABLATE))

WARN       := -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wno-format-nonliteral
CFLAGS     ?= -O2 -g
ALL_CFLAGS := -std=gnu11 $(WARN) $(CFLAGS) $(SANFLAGS) $(PHASEFLAGS) -fPIC -Iinclude -Ipreload \
              -D_GNU_SOURCE -DPW_VERSION='"$(VERSION)"' -MMD -MP
LDFLAGS    ?=

.PHONY: all test check-fast demo report-shots install uninstall deb dist clean lint bench deps check-deps help tsan-test
all:

include preload/preload.mk
include analyzers/analyzers.mk
include tests/sim/sim.mk
include tests/sim/acl.mk
include tests/sim/hip.mk
include tests/sim/cudart.mk
include tests/sim/nvml.mk
include tests/sim/cupti.mk
include tests/sim/rsmi.mk
include tests/tests.mk
include tests/packaging/packaging.mk
-include tests/gpu/gpu.mk
-include bench/bench.mk

help:
	@printf '%s\n' \
	'usage: make [TARGET] [VARIABLE=value ...]' \
	'' \
	'targets:' \
	'  all (default)   the library, launcher, analyzer and simulated runtimes, into build/' \
	'  test            install missing dependencies (apt-get, as root), build, run every suite' \
	'  test T=NAME     one suite or unit test, T=test_x:PATTERN some of its tests (T=list)' \
	'  check-fast      the loop of a change: unit, simulators, integration, rules, analyzer,' \
	'                  deps, docs (also: make test Q=1); logs in BUILD/test-logs/' \
	'  tsan-test       the library under ThreadSanitizer (build-tsan/): trace and registry' \
	'                  unit tests, the integration and the fault suites' \
	'  demo            build, trace a program (real GPU or simulator), show the reports' \
	'  report-shots    the screenshots of peerwatch-analyze report in docs/report/ (chromium)' \
	'  lint            clang-format (checked, not applied), cppcheck, clang-tidy, shellcheck' \
	'  docs            regenerate the generated docs (hooks, rules, trace format, option lists)' \
	'  install         install under PREFIX (binaries, library, man pages, bash completion)' \
	'  uninstall       remove what install put there' \
	'  deb             a Debian package, build/peerwatch_$(VERSION)-1_<arch>.deb (dpkg-deb)' \
	'  dist            a relocatable bundle, build/dist/peerwatch, and its tarball' \
	'  bench           overhead on the simulated driver (bench/RESULTS.md)' \
	'  analyze-test    the analyzer suites only; analyze-fuzz: its reader under libFuzzer' \
	'  analyze-unit    the analyzer'"'"'s unit tests alone (CI: under SAN=1)' \
	'  gpu-programs    the real-GPU programs (needs nvcc; tests/gpu/README.md)' \
	'  packaging-test  the install, uninstall, deb and completion tests (part of test)' \
	'  fault-test      the outcome of a traced program under faults (part of test)' \
	'  stress          the fault suite'"'"'s exit races alone, STRESS_RUNS (50) runs each' \
	'  gpu-build-test  the real-GPU programs compiled where nvcc is (part of test)' \
	'  clean           remove build/, build-san/ and build-tsan/' \
	'  help            this text' \
	'' \
	'variables:' \
	'  BUILD=DIR       build directory (default build, or build-san with SAN=1)' \
	'  CC=clang        any C11 compiler with GNU extensions (default cc)' \
	'  SAN=1           AddressSanitizer + UndefinedBehaviorSanitizer (TSAN=1: ThreadSanitizer)' \
	'  PHASES=1        the library with per-phase time counters (build-phases/; preload/record/phase.h)' \
	'  ABLATE=N        measurement build: wrapper stages left out (build-ablate-N/; preload/vendors/call.h)' \
	'  CFLAGS=...      compiler flags (default -O2 -g)' \
	'  TEST_JOBS=N     suites make test and check-fast run side by side (default: the CPUs)' \
	'  PREFIX=DIR      where install puts things (default /usr/local); DESTDIR=DIR stages it'

deps:
	@scripts/install-deps.sh

clean:
	rm -rf build build-san build-tsan build-phases build-ablate-*

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

# The launcher: a shell script with the version filled in.
LAUNCHER := $(BUILD)/bin/peerwatch
all: $(LAUNCHER)
$(LAUNCHER): scripts/peerwatch.in Makefile
	@mkdir -p $(@D)
	sed 's/@VERSION@/$(VERSION)/' $< > $@
	chmod +x $@

# The launcher's helper (scripts/peerwatch-reap.c): the watcher that removes
# a run's IPC registry segments once its processes are gone, and --clean.  It
# lies beside the library, where the launcher looks for it, and links the
# registry's own code: from an archive of the library's core/ and state/
# objects, of which the linker takes those it needs, wherever they lie.
REAP := $(BUILD)/lib/peerwatch-reap
REAP_LIB := $(BUILD)/obj/preload/core-state.a
all: $(REAP)
$(REAP_LIB): $(filter $(BUILD)/obj/preload/core/%.o $(BUILD)/obj/preload/state/%.o,$(PRELOAD_OBJ))
	rm -f $@
	$(AR) rcs $@ $^
$(BUILD)/obj/scripts/peerwatch-reap.o: scripts/peerwatch-reap.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c $< -o $@
$(REAP): $(BUILD)/obj/scripts/peerwatch-reap.o $(REAP_LIB)
	@mkdir -p $(@D)
	$(CC) $(SANFLAGS) $(LDFLAGS) $^ -o $@ -lpthread

# A relocatable bundle: the launcher finds the library and its helper beside
# it (../lib); the library needs nothing but glibc (jansson is linked in), and
# loads the libunwind carried beside it for stacks; the analyzer finds its
# libraries there through its run path.
DIST := $(BUILD)/dist/peerwatch
dist: all
	rm -rf $(DIST)
	mkdir -p $(DIST)/bin $(DIST)/lib $(DIST)/share/man/man1
	cp $(LAUNCHER) $(DIST)/bin/peerwatch
	cp $(ANALYZE) $(DIST)/bin/peerwatch-analyze
	@# the analyzer's own libraries (all but glibc's), found through $$ORIGIN/../lib
	for p in $$(ldd $(ANALYZE) | awk '/=> \// {print $$3}'); do \
		case $${p##*/} in libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|ld-linux*) ;; \
		*) cp -L "$$p" $(DIST)/lib/ ;; esac; done
	cp $(PRELOAD_LIB) $(DIST)/lib/libpeerwatch.so
	cp $(REAP) $(DIST)/lib/peerwatch-reap
	@# the unwinder, which libpeerwatch.so dlopens privately from beside itself
	for l in libunwind.so.8 liblzma.so.5; do p=$$($(CC) -print-file-name=$$l); \
		if [ -f "$$p" ]; then cp -L "$$p" $(DIST)/lib/$$l; else echo "dist: $$l not found: stacks will need it on the target"; fi; done
	cp docs/peerwatch.1 docs/peerwatch-analyze.1 $(DIST)/share/man/man1/
	mkdir -p $(DIST)/share/bash-completion/completions $(DIST)/share/doc/peerwatch
	cp scripts/completion.bash $(DIST)/share/bash-completion/completions/peerwatch
	ln -sf peerwatch $(DIST)/share/bash-completion/completions/peerwatch-analyze
	cp tests/suppressions.example $(DIST)/share/doc/peerwatch/
	mkdir -p $(DIST)/share/peerwatch/duckdb
	cp share/peerwatch/duckdb/*.sql $(DIST)/share/peerwatch/duckdb/
	tar -C $(BUILD)/dist -czf $(BUILD)/peerwatch-$(VERSION).tar.gz peerwatch
	@echo "bundle: $(DIST) and $(BUILD)/peerwatch-$(VERSION).tar.gz"

# install: the launcher, the library and the launcher's helper (where the
# launcher looks for them, ../lib/peerwatch beside its bin/), the man pages,
# bash completion for both commands, and the suppressions example; the
# analyzer's part is in analyzers/analyzers.mk.  uninstall removes exactly
# these.
COMPLETIONS := $(PREFIX)/share/bash-completion/completions
DOCDIR      := $(PREFIX)/share/doc/peerwatch
install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/peerwatch $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(COMPLETIONS) $(DESTDIR)$(DOCDIR)
	install -m 0755 $(LAUNCHER) $(DESTDIR)$(PREFIX)/bin/peerwatch
	install -m 0644 $(PRELOAD_LIB) $(DESTDIR)$(PREFIX)/lib/peerwatch/libpeerwatch.so
	install -m 0755 $(REAP) $(DESTDIR)$(PREFIX)/lib/peerwatch/peerwatch-reap
	install -m 0644 docs/peerwatch.1 $(DESTDIR)$(PREFIX)/share/man/man1/peerwatch.1
	install -m 0644 scripts/completion.bash $(DESTDIR)$(COMPLETIONS)/peerwatch
	ln -sf peerwatch $(DESTDIR)$(COMPLETIONS)/peerwatch-analyze
	install -m 0644 tests/suppressions.example $(DESTDIR)$(DOCDIR)/suppressions.example

uninstall: uninstall-analyze
	rm -f $(DESTDIR)$(PREFIX)/bin/peerwatch $(DESTDIR)$(PREFIX)/lib/peerwatch/libpeerwatch.so \
		$(DESTDIR)$(PREFIX)/lib/peerwatch/peerwatch-reap \
		$(DESTDIR)$(PREFIX)/share/man/man1/peerwatch.1 $(DESTDIR)$(COMPLETIONS)/peerwatch \
		$(DESTDIR)$(COMPLETIONS)/peerwatch-analyze $(DESTDIR)$(DOCDIR)/suppressions.example
	-rmdir $(DESTDIR)$(PREFIX)/lib/peerwatch $(DESTDIR)$(DOCDIR) 2>/dev/null

# A Debian package of the installed layout under /usr, built with dpkg-deb
# (no debian/ directory, no root needed): man pages compressed as policy asks,
# Depends computed from the packages that own the shared libraries the
# analyzer links (the library itself needs only glibc; libunwind8, which it
# loads for stacks when present, is recommended).
DEB_ARCH       := $(shell dpkg --print-architecture 2>/dev/null || echo amd64)
DEB_REVISION   ?= 1
DEB_MAINTAINER ?= peerwatch maintainers <peerwatch@localhost>
DEB            := $(BUILD)/peerwatch_$(VERSION)-$(DEB_REVISION)_$(DEB_ARCH).deb
DEB_ROOT       := $(BUILD)/deb/root
deb: all
	rm -rf $(DEB_ROOT) && mkdir -p $(DEB_ROOT)/DEBIAN
	$(MAKE) --no-print-directory install DESTDIR=$(abspath $(DEB_ROOT)) PREFIX=/usr
	gzip -9n $(DEB_ROOT)/usr/share/man/man1/*.1
	install -m 0644 README.md $(DEB_ROOT)/usr/share/doc/peerwatch/README.md
	scripts/deb-control.sh $(VERSION)-$(DEB_REVISION) $(DEB_ARCH) '$(DEB_MAINTAINER)' $(DEB_ROOT) \
		$(ANALYZE) > $(DEB_ROOT)/DEBIAN/control
	dpkg-deb --root-owner-group -Zxz --build $(DEB_ROOT) $(DEB)
	@echo "package: $(DEB)"

demo: deps
	@$(MAKE) --no-print-directory test-build
	@scripts/demo.sh $(BUILD)

# docs/report/*.png, the screenshots of peerwatch-analyze report in README.md.
report-shots: deps
	@$(MAKE) --no-print-directory test-build
	@scripts/report-shots.sh $(BUILD)

# docs/hooks.md, docs/rules.md, the member tables of docs/trace-format.md,
# docs/trace.schema.json, the option lists of README.md and docs/peerwatch.1
# and the rule counts of README.md and the man pages are generated from the
# hook, rule, trace-format and option tables; make test checks they are
# current.
docs: test-build
	scripts/gen-hooks-doc.sh > docs/hooks.md
	scripts/gen-rules-doc.sh $(BUILD) > docs/rules.md
	scripts/gen-trace-doc.sh md > $(BUILD)/trace-format.md && mv $(BUILD)/trace-format.md docs/trace-format.md
	scripts/gen-trace-doc.sh schema > docs/trace.schema.json
	scripts/gen-options-doc.sh readme > $(BUILD)/README.md && mv $(BUILD)/README.md README.md
	scripts/gen-options-doc.sh man > $(BUILD)/peerwatch.1 && mv $(BUILD)/peerwatch.1 docs/peerwatch.1
	scripts/gen-counts-doc.sh readme > $(BUILD)/README.md && mv $(BUILD)/README.md README.md
	for m in docs/peerwatch.1 docs/peerwatch-analyze.1; do \
		scripts/gen-counts-doc.sh man $$m > $(BUILD)/counts.1 && mv $(BUILD)/counts.1 $$m || exit 1; done

# Lint: formatting (checked, not applied), cppcheck, clang-tidy.  tests/gpu
# needs the CUDA SDK's headers and is left to nvcc's own warnings.
LINT_SRC := $(shell git ls-files '*.c' '*.h' 2>/dev/null | grep -v -e '^scripts/hooks-doc.c$$' -e '^tests/gpu/')
# The analyzer and the tests built with its flags (analyzers/analyzers.mk)
# are linted with its flags, the rest with the library's.
LINT_AN := analyzers/% tests/unit/test_analyze_%.c tests/analyze/%.c
LINT_TIDY := $(filter-out $(LINT_AN),$(filter %.c,$(LINT_SRC)))
LINT_FLAGS := -std=gnu11 -Iinclude -Ipreload -Itests/sim -Itests/integration -D_GNU_SOURCE -DPW_VERSION='"lint"'
# The analyzer's files name their headers by room ("read/reader.h") from
# -Ianalyzers; read/apiop.c also reads the library's hook tables (-Ipreload).
LINT_TIDY_AN := $(filter $(LINT_AN),$(filter %.c,$(LINT_SRC)))
LINT_FLAGS_AN := -std=gnu11 -Iinclude -Ianalyzers -Ipreload -D_GNU_SOURCE -DPW_VERSION='"lint"'
LINT_QUIET := grep -v -e 'warnings\? generated' -e '^Suppressed' -e '^Use -header-filter' -e '^$$' || true
# The test harness's scripts (make test's scheduler and tally), where
# shellcheck is installed.
LINT_SH := tests/suite.sh tests/tally.sh tests/one.sh
lint:
	@if command -v shellcheck >/dev/null 2>&1; then echo "shellcheck"; shellcheck -S warning $(LINT_SH); \
		else echo "shellcheck: not installed, $(LINT_SH) not checked"; fi
	@echo "clang-format"; clang-format --dry-run --Werror $(LINT_SRC)
	@echo "cppcheck"; cppcheck --quiet --enable=warning,portability,performance --std=c11 --inline-suppr \
		-Iinclude -Ipreload -Ianalyzers -Itests/sim -D__x86_64__ -D_GNU_SOURCE --suppress=missingIncludeSystem \
		--error-exitcode=1 $(LINT_SRC)
	@echo "clang-tidy"; out=$$(clang-tidy --quiet $(LINT_TIDY) -- $(LINT_FLAGS) 2>&1); rc=$$?; \
		printf '%s\n' "$$out" | $(LINT_QUIET); \
		out=$$(clang-tidy --quiet $(LINT_TIDY_AN) -- $(LINT_FLAGS_AN) 2>&1); rc2=$$?; \
		printf '%s\n' "$$out" | $(LINT_QUIET); [ $$rc = 0 ] && [ $$rc2 = 0 ]
