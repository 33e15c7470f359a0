/*
 * The managed-memory cases of tests/integration/managed.c, through HIP
 * (the runtime of PW_HIP_LIB, dlopen'ed: the simulated .so.5, .6 or .7):
 *
 *   managed_hip list          NAME RULE RET MESSAGE: the one finding the wrong
 *                             form gets ("-": none), what the simulated runtime
 *                             answers it, a fragment of the finding ("-": any)
 *   managed_hip NAME bad|good run the wrong or the right form; prints
 *                             "ret N" ("skip" where the runtime lacks the call)
 *
 * HIP's document (Managed Memory) is the contract: it takes system memory
 * for a stream attach, says nothing of CUDA's attach length or NULL-stream
 * rules (a portability warning), and its runtime's _v2 calls (ROCm 7.1)
 * take hipMemLocation.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peerwatch/abi/hip.h"

static struct {
	hipError_t (*SetDevice)(int);
	hipError_t (*Malloc)(void **, size_t);
	hipError_t (*Free)(void *);
	hipError_t (*MallocManaged)(void **, size_t, unsigned);
	hipError_t (*DeviceGetAttribute)(int *, hipDeviceAttribute_t, int);
	hipError_t (*StreamCreate)(hipStream_t *);
	hipError_t (*DeviceCanAccessPeer)(int *, int, int);
	hipError_t (*DeviceEnablePeerAccess)(int, unsigned);
	hipError_t (*MemAdvise)(const void *, size_t, hipMemoryAdvise, int);
	hipError_t (*MemAdvise_v2)(const void *, size_t, hipMemoryAdvise, hipMemLocation);
	hipError_t (*MemPrefetchAsync_v2)(const void *, size_t, hipMemLocation, unsigned, hipStream_t);
	hipError_t (*MemRangeGetAttribute)(void *, size_t, hipMemRangeAttribute, const void *, size_t);
	hipError_t (*MemRangeGetAttributes)(void **, size_t *, hipMemRangeAttribute *, size_t, const void *,
	                                    size_t);
	hipError_t (*StreamAttachMemAsync)(hipStream_t, void *, size_t, unsigned);
} hip;
static hipStream_t stream;

#define N ((size_t)1 << 20)
#define SKIP (-1000)

static void need(int rc, const char *what)
{
	if (rc != 0) {
		fprintf(stderr, "managed_hip: %s failed (%d)\n", what, rc);
		exit(2);
	}
}

#define SYM(h, f) (*(void **)&hip.f = dlsym(h, "hip" #f))

static void init(void)
{
	const char *lib = getenv("PW_HIP_LIB");
	void *h = dlopen(lib ? lib : "libamdhip64.so.6", RTLD_NOW);
	if (!h) {
		fprintf(stderr, "managed_hip: %s\n", dlerror());
		exit(2);
	}
	SYM(h, SetDevice);
	SYM(h, Malloc);
	SYM(h, Free);
	SYM(h, MallocManaged);
	SYM(h, DeviceGetAttribute);
	SYM(h, StreamCreate);
	SYM(h, DeviceCanAccessPeer);
	SYM(h, DeviceEnablePeerAccess);
	SYM(h, MemAdvise);
	SYM(h, MemAdvise_v2); /* 7.1 and later */
	SYM(h, MemPrefetchAsync_v2);
	SYM(h, MemRangeGetAttribute);
	SYM(h, MemRangeGetAttributes);
	SYM(h, StreamAttachMemAsync);
	if (!hip.SetDevice || !hip.MallocManaged || !hip.DeviceGetAttribute || !hip.StreamAttachMemAsync ||
	    !hip.MemRangeGetAttributes) {
		fprintf(stderr, "managed_hip: %s lacks a function\n", lib);
		exit(2);
	}
	need(hip.SetDevice(0), "hipSetDevice");
	need(hip.StreamCreate(&stream), "hipStreamCreate");
	/* hipMallocManaged: "It is recommend to do the capability check before call this API" */
	for (int d = 0; d < 2; d++) {
		int v = 0;
		need(hip.DeviceGetAttribute(&v, hipDeviceAttributeManagedMemory, d), "hipDeviceGetAttribute");
	}
}

static char *managed(size_t n)
{
	void *m = NULL;
	need(hip.MallocManaged(&m, n, hipMemAttachGlobal), "hipMallocManaged");
	return m;
}
static char *device_mem(size_t n)
{
	void *p = NULL;
	need(hip.Malloc(&p, n), "hipMalloc");
	return p;
}
static char *freed_managed(size_t n)
{
	char *m = managed(n);
	need(hip.Free(m), "hipFree");
	return m;
}
static char *system_mem(size_t n)
{
	char *p = malloc(n);
	if (!p)
		exit(2);
	memset(p, 1, n);
	return p;
}
static hipMemLocation loc(int type, int id)
{
	hipMemLocation l = {type, id};
	return l;
}

static int advise_device_minus_1(int bad)
{
	if (!hip.MemAdvise_v2)
		return SKIP;
	return hip.MemAdvise_v2(managed(N), N, hipMemAdviseSetPreferredLocation,
	                        bad ? loc(hipMemLocationTypeDevice, -1) : loc(hipMemLocationTypeHost, 0));
}
static int advise_invalid_type(int bad)
{
	if (!hip.MemAdvise_v2)
		return SKIP;
	return hip.MemAdvise_v2(managed(N), N, hipMemAdviseSetPreferredLocation,
	                        loc(bad ? hipMemLocationTypeInvalid : hipMemLocationTypeDevice, 0));
}
/* HIP (clr) takes a NUMA node for accessed-by: no finding either way. */
static int advise_accessed_by_numa(int bad)
{
	if (!hip.MemAdvise_v2)
		return SKIP;
	return hip.MemAdvise_v2(managed(N), N, hipMemAdviseSetAccessedBy,
	                        bad ? loc(hipMemLocationTypeHostNuma, 0) : loc(hipMemLocationTypeHost, 0));
}
static int prefetch_device_minus_1(int bad)
{
	if (!hip.MemPrefetchAsync_v2)
		return SKIP;
	return hip.MemPrefetchAsync_v2(
	    managed(N), N, bad ? loc(hipMemLocationTypeDevice, -1) : loc(hipMemLocationTypeHost, 0), 0,
	    stream);
}
static int prefetch_invalid_type(int bad)
{
	if (!hip.MemPrefetchAsync_v2)
		return SKIP;
	return hip.MemPrefetchAsync_v2(
	    managed(N), N, loc(bad ? hipMemLocationTypeInvalid : hipMemLocationTypeDevice, 1), 0, stream);
}
static int prefetch_undefined_type(int bad)
{
	if (!hip.MemPrefetchAsync_v2)
		return SKIP;
	return hip.MemPrefetchAsync_v2(managed(N), N, loc(bad ? 9 : hipMemLocationTypeDevice, 1), 0, stream);
}
static int prefetch_flags(int bad)
{
	if (!hip.MemPrefetchAsync_v2)
		return SKIP;
	return hip.MemPrefetchAsync_v2(managed(N), N, loc(hipMemLocationTypeDevice, 1), bad ? 1 : 0, stream);
}
static int advise_freed(int bad)
{
	return hip.MemAdvise(bad ? freed_managed(N) : managed(N), N, hipMemAdviseSetReadMostly, 0);
}
static int range(const void *p, size_t count, int attr, size_t size)
{
	int v[4] = {0};
	return hip.MemRangeGetAttribute(v, size, attr, p, count);
}
static int range_attr_device(int bad)
{
	return range(bad ? device_mem(N) : managed(N), N, hipMemRangeAttributeReadMostly, 4);
}
static int range_attr_freed(int bad)
{
	return range(bad ? freed_managed(N) : managed(N), N, hipMemRangeAttributeReadMostly, 4);
}
static int range_attr_past_end(int bad)
{
	return range(managed(N), bad ? N + 4096 : N, hipMemRangeAttributeReadMostly, 4);
}
static int range_attr_count_0(int bad)
{
	return range(managed(N), bad ? 0 : 4096, hipMemRangeAttributeReadMostly, 4);
}
static int range_attr_undefined(int bad)
{
	return range(managed(N), N, bad ? 9 : hipMemRangeAttributeCoherencyMode, 4);
}
static int range_attrs_null(int bad)
{
	int v = 0;
	void *data[1] = {&v};
	size_t sizes[1] = {4};
	hipMemRangeAttribute attrs[1] = {hipMemRangeAttributeReadMostly};
	return hip.MemRangeGetAttributes(data, sizes, bad ? NULL : attrs, 1, managed(N), N);
}
/* HIP takes system memory: the near miss attaches a malloc'd buffer. */
static int attach_device(int bad)
{
	return hip.StreamAttachMemAsync(stream, bad ? device_mem(N) : system_mem(N), N, hipMemAttachSingle);
}
static int attach_freed(int bad)
{
	return hip.StreamAttachMemAsync(stream, bad ? freed_managed(N) : managed(N), 0, hipMemAttachSingle);
}
static int attach_length(int bad)
{
	return hip.StreamAttachMemAsync(stream, managed(N), bad ? 4096 : 0, hipMemAttachSingle);
}
static int attach_single_null(int bad)
{
	return hip.StreamAttachMemAsync(bad ? NULL : stream, managed(N), 0, hipMemAttachSingle);
}
static int enable_flags_after_enable(int bad)
{
	int can = 0;
	need(hip.DeviceCanAccessPeer(&can, 0, 1), "hipDeviceCanAccessPeer");
	need(hip.DeviceEnablePeerAccess(1, 0), "hipDeviceEnablePeerAccess");
	return bad ? hip.DeviceEnablePeerAccess(1, 1) : 0;
}

static const struct {
	const char *name, *rule, *ret, *message;
	int (*run)(int bad);
} cases[] = {
    {"hip.advise-device-minus-1", "managed.advise.invalid", "101", "{device, -1}", advise_device_minus_1},
    {"hip.advise-invalid-type", "managed.advise.location", "1", "type invalid", advise_invalid_type},
    {"hip.advise-accessed-by-numa", "-", "0", "-", advise_accessed_by_numa},
    {"hip.prefetch-device-minus-1", "managed.prefetch.invalid-device", "101", "{device, -1}",
     prefetch_device_minus_1},
    {"hip.prefetch-invalid-type", "managed.prefetch.location", "1", "type invalid", prefetch_invalid_type},
    {"hip.prefetch-undefined-type", "managed.prefetch.location", "1", "location type 9",
     prefetch_undefined_type},
    {"hip.prefetch-flags", "managed.prefetch.flags", "1", "flags 0x1", prefetch_flags},
    {"hip.advise-freed", "managed.advise.not-managed", "1", "freed", advise_freed},
    {"hip.range-attr-device", "managed.range-attr.not-managed", "1", "device memory", range_attr_device},
    {"hip.range-attr-freed", "managed.range-attr.not-managed", "1", "freed", range_attr_freed},
    {"hip.range-attr-past-end", "managed.range-attr.out-of-range", "1", "past its end", range_attr_past_end},
    {"hip.range-attr-count-0", "managed.range-attr.out-of-range", "1", "empty", range_attr_count_0},
    {"hip.range-attr-undefined", "managed.range-attr.invalid", "1", "attribute 9", range_attr_undefined},
    {"hip.range-attrs-null", "managed.range-attr.invalid", "1", "NULL", range_attrs_null},
    {"hip.attach-device", "managed.attach.not-managed", "0", "device memory", attach_device},
    {"hip.attach-freed", "managed.attach.not-managed", "0", "freed", attach_freed},
    {"hip.attach-length", "managed.attach.portability", "0", "CUDA requires 0", attach_length},
    {"hip.attach-single-null", "managed.attach.portability", "0", "NULL stream", attach_single_null},
    {"hip.enable-flags-after-enable", "peer.enable.flags", "1", "flags 0x1", enable_flags_after_enable},
};

int main(int argc, char **argv)
{
	size_t n = sizeof cases / sizeof cases[0];
	if (argc == 2 && !strcmp(argv[1], "list")) {
		for (size_t i = 0; i < n; i++)
			printf("%s %s %s %s\n", cases[i].name, cases[i].rule, cases[i].ret, cases[i].message);
		return 0;
	}
	if (argc != 3 || (strcmp(argv[2], "bad") && strcmp(argv[2], "good"))) {
		fprintf(stderr, "usage: managed_hip list | managed_hip CASE bad|good\n");
		return 2;
	}
	for (size_t i = 0; i < n; i++) {
		if (strcmp(argv[1], cases[i].name))
			continue;
		init();
		int rc = cases[i].run(!strcmp(argv[2], "bad"));
		if (rc == SKIP)
			printf("skip\n");
		else
			printf("ret %d\n", rc);
		return 0;
	}
	fprintf(stderr, "managed_hip: no case %s\n", argv[1]);
	return 2;
}
