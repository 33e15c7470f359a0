/*
 * A traced program with its own (shared) jansson.  peerwatch writes its
 * header with the jansson linked inside it; if either copy were bound to the
 * other, this program's allocator would see peerwatch's allocations, or its
 * json_* calls would not reach libjansson.so.4.
 */
#include <dlfcn.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "peerwatch/abi/cuda.h"

static long allocs;

static void *count_malloc(size_t n)
{
	allocs++;
	return malloc(n);
}

int main(int argc, char **argv)
{
	json_set_alloc_funcs(count_malloc, free);
	void *h = dlopen("libcuda.so.1", RTLD_NOW);
	CUresult (*init)(unsigned) = h ? (CUresult(*)(unsigned))dlsym(h, "cuInit") : NULL;
	CUresult (*can)(int *, CUdevice, CUdevice) =
	    h ? (CUresult(*)(int *, CUdevice, CUdevice))dlsym(h, "cuDeviceCanAccessPeer") : NULL;
	if (!init || !can || init(0) != CUDA_SUCCESS) {
		fprintf(stderr, "own_jansson: no driver\n");
		return 1;
	}
	int v;
	can(&v, 0, 1); /* peerwatch's writer now builds the header with its jansson */
	/* Wait (up to 5 s) until the header is on disk: argv[1] is the trace directory. */
	for (int i = 0; argc > 1 && i < 500; i++) {
		char cmd[4200];
		snprintf(cmd, sizeof cmd, "grep -qs '\"type\":\"header\"' %s/*.%d.pw.jsonl.partial", argv[1],
		         (int)getpid());
		if (system(cmd) == 0)
			break;
		usleep(10000);
	}
	if (allocs != 0) {
		fprintf(
		    stderr,
		    "own_jansson: %ld allocations reached this program's allocator before it used jansson\n",
		    allocs);
		return 1;
	}
	json_t *o = json_pack("{s:i, s:s}", "a", 1, "b", "two");
	char *s = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
	if (allocs == 0 || !s || strcmp(s, "{\"a\":1,\"b\":\"two\"}")) {
		fprintf(stderr, "own_jansson: this program's jansson did not serve it\n");
		return 1;
	}
	Dl_info info;
	if (!dladdr((void *)json_pack, &info) || !strstr(info.dli_fname, "libjansson")) {
		fprintf(stderr, "own_jansson: json_pack resolved to %s\n",
		        info.dli_fname ? info.dli_fname : "?");
		return 1;
	}
	printf("own_jansson: ok (%ld allocations, json_pack from %s)\n", allocs, info.dli_fname);
	free(s);
	json_decref(o);
	return 0;
}
