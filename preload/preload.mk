# libpeerwatch.so: the preloaded library.
#
# jansson is linked in statically and, like everything of ours, hidden
# (-fvisibility=hidden, --exclude-libs, exports.map): a traced program that
# uses its own jansson never meets ours (docs/facts-cuda.md, "What a
# preloaded library may load").

# The rooms, lowest first (HACKING.md; make deps-test checks that none
# reaches up): core/, record/, state/, rules/, vendors/<v>/, entry/.
PRELOAD_ROOMS := core record state rules vendors/cuda vendors/cudart vendors/acl vendors/hip entry
PRELOAD_SRC := $(foreach r,$(PRELOAD_ROOMS),$(sort $(wildcard preload/$(r)/*.c)))
PRELOAD_ASM := preload/core/dlsym_entry.S
PRELOAD_OBJ := $(PRELOAD_SRC:preload/%.c=$(BUILD)/obj/preload/%.o) \
               $(PRELOAD_ASM:preload/%.S=$(BUILD)/obj/preload/%.o)
PRELOAD_LIB := $(BUILD)/lib/libpeerwatch.so
JANSSON_A   ?= $(firstword $(wildcard /usr/lib/*/libjansson.a /usr/lib/libjansson.a /usr/local/lib/libjansson.a))

all: $(PRELOAD_LIB)

$(BUILD)/obj/preload/%.o: preload/%.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -fvisibility=hidden -fno-semantic-interposition -c $< -o $@

$(BUILD)/obj/preload/%.o: preload/%.S
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(PRELOAD_LIB): $(PRELOAD_OBJ) preload/exports.map
	@mkdir -p $(@D)
	@test -n "$(JANSSON_A)" || { echo "libjansson.a not found: run scripts/install-deps.sh" >&2; exit 1; }
	$(CC) -shared $(SANFLAGS) $(LDFLAGS) -Wl,--version-script=preload/exports.map \
		-Wl,--exclude-libs,ALL -Wl,-z,now -Wl,-z,relro -o $@ $(PRELOAD_OBJ) $(JANSSON_A) -ldl -lpthread
