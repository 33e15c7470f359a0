# peerwatch — one entry point: build, test, demo, install, dist, bench, lint.
#
#   make            build the library, launcher and simulated runtimes into build/
#   make test       install missing dependencies, build, run every test
#   make demo       install missing dependencies, build, run the demo
#   make SAN=1 ...  the same under AddressSanitizer + UndefinedBehaviorSanitizer (build-san/)
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
else
BUILD      ?= build
SANFLAGS   :=
endif

WARN       := -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wno-format-nonliteral
CFLAGS     ?= -O2 -g
ALL_CFLAGS := -std=gnu11 $(WARN) $(CFLAGS) $(SANFLAGS) -fPIC -Iinclude -Ipreload \
              -D_GNU_SOURCE -DPW_VERSION='"$(VERSION)"' -MMD -MP
LDFLAGS    ?=

.PHONY: all test demo install dist clean lint bench deps check-deps help tsan-test
all:

include preload/preload.mk
include analyzers/analyzers.mk
include tests/sim/sim.mk
include tests/sim/acl.mk
include tests/sim/hip.mk
include tests/sim/cudart.mk
include tests/sim/nvml.mk
include tests/sim/rsmi.mk
include tests/tests.mk
-include tests/gpu/gpu.mk
-include bench/bench.mk

help:
	@sed -n '2,11p' Makefile | sed 's/^# \{0,1\}//'

deps:
	@scripts/install-deps.sh

clean:
	rm -rf build build-san build-tsan

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

# The launcher: a shell script with the version filled in.
LAUNCHER := $(BUILD)/bin/peerwatch
all: $(LAUNCHER)
$(LAUNCHER): scripts/peerwatch.in Makefile
	@mkdir -p $(@D)
	sed 's/@VERSION@/$(VERSION)/' $< > $@
	chmod +x $@

# A relocatable bundle: the launcher finds the library beside it (../lib);
# the library needs nothing but glibc (jansson is linked in), and loads the
# libunwind carried beside it for stacks; the analyzer finds its libraries
# there through its run path.
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
	@# the unwinder, which libpeerwatch.so dlopens privately from beside itself
	for l in libunwind.so.8 liblzma.so.5; do p=$$($(CC) -print-file-name=$$l); \
		if [ -f "$$p" ]; then cp -L "$$p" $(DIST)/lib/$$l; else echo "dist: $$l not found: stacks will need it on the target"; fi; done
	cp docs/peerwatch.1 docs/peerwatch-analyze.1 $(DIST)/share/man/man1/
	tar -C $(BUILD)/dist -czf $(BUILD)/peerwatch-$(VERSION).tar.gz peerwatch
	@echo "bundle: $(DIST) and $(BUILD)/peerwatch-$(VERSION).tar.gz"

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/peerwatch $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 0755 $(LAUNCHER) $(DESTDIR)$(PREFIX)/bin/peerwatch
	install -m 0755 $(PRELOAD_LIB) $(DESTDIR)$(PREFIX)/lib/peerwatch/libpeerwatch.so
	install -m 0644 docs/peerwatch.1 $(DESTDIR)$(PREFIX)/share/man/man1/peerwatch.1

demo: deps
	@$(MAKE) --no-print-directory test-build
	@scripts/demo.sh $(BUILD)

# docs/hooks.md, docs/rules.md, the member tables of docs/trace-format.md,
# docs/trace.schema.json and the option lists of README.md and
# docs/peerwatch.1 are generated from the hook, rule, trace-format and option
# tables; make test checks they are current.
docs: test-build
	scripts/gen-hooks-doc.sh > docs/hooks.md
	scripts/gen-rules-doc.sh $(BUILD) > docs/rules.md
	scripts/gen-trace-doc.sh md > $(BUILD)/trace-format.md && mv $(BUILD)/trace-format.md docs/trace-format.md
	scripts/gen-trace-doc.sh schema > docs/trace.schema.json
	scripts/gen-options-doc.sh readme > $(BUILD)/README.md && mv $(BUILD)/README.md README.md
	scripts/gen-options-doc.sh man > $(BUILD)/peerwatch.1 && mv $(BUILD)/peerwatch.1 docs/peerwatch.1

# Lint: formatting (checked, not applied), cppcheck, clang-tidy.  tests/gpu
# needs the CUDA SDK's headers and is left to nvcc's own warnings.
LINT_SRC := $(shell git ls-files '*.c' '*.h' 2>/dev/null | grep -v -e '^scripts/hooks-doc.c$$' -e '^tests/gpu/')
LINT_TIDY := $(filter %.c,$(LINT_SRC))
LINT_FLAGS := -std=gnu11 -Iinclude -Ipreload -Itests/sim -Itests/integration -D_GNU_SOURCE -DPW_VERSION='"lint"'
lint:
	@echo "clang-format"; clang-format --dry-run --Werror $(LINT_SRC)
	@echo "cppcheck"; cppcheck --quiet --enable=warning,portability,performance --std=c11 --inline-suppr \
		-Iinclude -Ipreload -Itests/sim -D__x86_64__ -D_GNU_SOURCE --suppress=missingIncludeSystem \
		--error-exitcode=1 $(LINT_SRC)
	@echo "clang-tidy"; out=$$(clang-tidy --quiet $(LINT_TIDY) -- $(LINT_FLAGS) 2>&1); rc=$$?; \
		printf '%s\n' "$$out" | grep -v -e 'warnings\? generated' -e '^Suppressed' -e '^Use -header-filter' \
		-e '^$$' || true; exit $$rc
