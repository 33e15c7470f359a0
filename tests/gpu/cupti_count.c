/*
 * libpwcupti.so — the reference count for the GPU suite: counts every CUDA
 * driver API call a process makes, by exported name (cuMemcpyPeer_ptds,
 * cuMemAdvise_v2, ...), using CUPTI's callback API, with no LD_PRELOAD at all.
 *
 * The driver loads it by itself when CUDA_INJECTION64_PATH names it, and calls
 * InitializeInjection() during cuInit.  CUPTI reports calls at the driver's
 * own entry points, so calls through exported symbols, through
 * cuGetProcAddress pointers and from inside cudart, NCCL or PyTorch are all
 * counted: this is what a complete interception layer must see.
 *
 * At exit it writes $PWCUPTI_OUT/cupti.<pid>.tsv: "# pid <pid> <argv0>", then
 * one "name<TAB>count" line per driver function called.  check_trace.py
 * --oracle compares those with the peerwatch trace of another run.
 * Calls made before InitializeInjection (cuInit itself) are not counted.
 */
#define _GNU_SOURCE
#include <cupti.h>

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static atomic_ulong counts[CUPTI_DRIVER_TRACE_CBID_SIZE];
static CUpti_SubscriberHandle subscriber;
static atomic_int written;

static void CUPTIAPI on_call(void *user, CUpti_CallbackDomain domain, CUpti_CallbackId id, const void *data)
{
	const CUpti_CallbackData *cb = (const CUpti_CallbackData *)data;
	(void)user;
	if (domain != CUPTI_CB_DOMAIN_DRIVER_API || cb->callbackSite != CUPTI_API_ENTER)
		return;
	if (id < CUPTI_DRIVER_TRACE_CBID_SIZE)
		atomic_fetch_add_explicit(&counts[id], 1, memory_order_relaxed);
}

/* argv[0] and argv[1], space-separated (python scripts). */
static void program_name(char *buf, size_t cap)
{
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, cap - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n < 0)
		n = 0;
	buf[n] = '\0';
	size_t first = strnlen(buf, (size_t)n);
	if (first + 1 < (size_t)n)
		buf[first] = ' '; /* the string now ends where argv[1] does */
	for (char *p = buf; *p; p++)
		if (*p == '\t' || *p == '\n')
			*p = ' ';
}

static void write_counts(void)
{
	const char *dir = getenv("PWCUPTI_OUT");
	char path[4096], prog[512];
	if (atomic_exchange(&written, 1) || !dir || !*dir)
		return;
	snprintf(path, sizeof path, "%s/cupti.%d.tsv", dir, (int)getpid());
	FILE *f = fopen(path, "we");
	if (!f) {
		fprintf(stderr, "pwcupti: cannot write %s: %s\n", path, strerror(errno));
		return;
	}
	program_name(prog, sizeof prog);
	fprintf(f, "# pid %d %s\n", (int)getpid(), prog);
	for (unsigned id = 0; id < CUPTI_DRIVER_TRACE_CBID_SIZE; id++) {
		unsigned long n = atomic_load(&counts[id]);
		const char *name = NULL;
		if (n == 0)
			continue;
		if (cuptiGetCallbackName(CUPTI_CB_DOMAIN_DRIVER_API, id, &name) != CUPTI_SUCCESS || !name)
			name = "?";
		fprintf(f, "%s\t%lu\n", name, n);
	}
	fclose(f);
}

__attribute__((visibility("default"))) int InitializeInjection(void)
{
	const char *err = NULL;
	CUptiResult r = cuptiSubscribe(&subscriber, on_call, NULL);
	if (r == CUPTI_SUCCESS)
		r = cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API);
	if (r != CUPTI_SUCCESS) {
		cuptiGetResultString(r, &err);
		fprintf(stderr, "pwcupti: CUPTI callbacks unavailable: %s\n", err ? err : "?");
		return 0;
	}
	atexit(write_counts);
	return 1;
}
