/*
 * Self-test of the simulated management library (nvml_sim.c): loads it as
 * peerwatch does (dlopen, RTLD_LOCAL) and checks every answer, with the
 * environment cases in child processes.
 *
 *   nvml_selftest LIB          run (LIB: the library's path)
 *   nvml_selftest --list-exports
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "peerwatch/abi/nvml.h"
#include "selftest_expected.h"

static const char *const exports[] = {
    "nvmlInit_v2",
    "nvmlShutdown",
    "nvmlErrorString",
    "nvmlDeviceGetCount_v2",
    "nvmlDeviceGetHandleByIndex_v2",
    "nvmlDeviceGetHandleByUUID",
    "nvmlDeviceGetHandleByPciBusId_v2",
    "nvmlDeviceGetName",
    "nvmlDeviceGetUUID",
    "nvmlDeviceGetPciInfo_v3",
    "nvmlDeviceGetTopologyCommonAncestor",
    "nvmlDeviceGetP2PStatus",
    "nvmlDeviceGetNvLinkState",
    "nvmlDeviceGetNvLinkRemotePciInfo_v2",
    "nvmlDeviceGetNvLinkRemoteDeviceType",
};

static int passed, failed;
static void *lib;

#define CHECK(cond)                                                            \
	do {                                                                   \
		if (cond) {                                                    \
			passed++;                                              \
		} else {                                                       \
			failed++;                                              \
			printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); \
		}                                                              \
	} while (0)

#define FN(name) ((name##_fn)dlsym(lib, #name))

static nvmlDevice_t dev(unsigned i)
{
	nvmlDevice_t d = NULL;
	CHECK(FN(nvmlDeviceGetHandleByIndex_v2)(i, &d) == NVML_SUCCESS);
	return d;
}

static int status(unsigned a, unsigned b, int index)
{
	nvmlGpuP2PStatus_t s = -1;
	CHECK(FN(nvmlDeviceGetP2PStatus)(dev(a), dev(b), index, &s) == NVML_SUCCESS);
	return s;
}

static int level(unsigned a, unsigned b)
{
	nvmlGpuTopologyLevel_t l = -1;
	CHECK(FN(nvmlDeviceGetTopologyCommonAncestor)(dev(a), dev(b), &l) == NVML_SUCCESS);
	return l;
}

/* The NVLinks of device a that end at device b. */
static int links(unsigned a, unsigned b)
{
	nvmlPciInfo_t mine, pci;
	int n = 0;
	CHECK(FN(nvmlDeviceGetPciInfo_v3)(dev(b), &mine) == NVML_SUCCESS);
	for (unsigned l = 0; l < NVML_NVLINK_MAX_LINKS; l++) {
		nvmlEnableState_t on = -1;
		if (FN(nvmlDeviceGetNvLinkState)(dev(a), l, &on) != NVML_SUCCESS ||
		    on != NVML_FEATURE_ENABLED)
			continue;
		nvmlIntNvLinkDeviceType_t t = -1;
		if (FN(nvmlDeviceGetNvLinkRemotePciInfo_v2)(dev(a), l, &pci) == NVML_SUCCESS &&
		    !strcmp(pci.busId, mine.busId) &&
		    FN(nvmlDeviceGetNvLinkRemoteDeviceType)(dev(a), l, &t) == NVML_SUCCESS &&
		    t == NVML_NVLINK_DEVICE_TYPE_GPU)
			n++;
	}
	return n;
}

/* Two devices, PWSIM_PEERS=all, no NVLink, one socket: the defaults. */
static void defaults(void)
{
	unsigned n = 0;
	char text[96];
	nvmlDevice_t d = NULL;
	nvmlPciInfo_t pci;
	CHECK(FN(nvmlDeviceGetCount_v2)(&n) == NVML_ERROR_UNINITIALIZED);
	CHECK(FN(nvmlInit_v2)() == NVML_SUCCESS);
	CHECK(FN(nvmlDeviceGetCount_v2)(&n) == NVML_SUCCESS && n == 2);
	CHECK(FN(nvmlDeviceGetUUID)(dev(1), text, sizeof text) == NVML_SUCCESS);
	CHECK(!strcmp(text, "GPU-7077736d-0001-4000-8000-5e1d00000000"));
	CHECK(FN(nvmlDeviceGetHandleByUUID)(text, &d) == NVML_SUCCESS && d == dev(1));
	CHECK(FN(nvmlDeviceGetHandleByUUID)("GPU-nothing", &d) == NVML_ERROR_NOT_FOUND);
	CHECK(FN(nvmlDeviceGetPciInfo_v3)(dev(1), &pci) == NVML_SUCCESS);
	CHECK(!strcmp(pci.busId, "00000000:20:00.0") && !strcmp(pci.busIdLegacy, "0000:20:00.0"));
	CHECK(FN(nvmlDeviceGetHandleByPciBusId_v2)("0000:20:00.0", &d) == NVML_SUCCESS && d == dev(1));
	CHECK(FN(nvmlDeviceGetHandleByPciBusId_v2)("00000000:10:00.0", &d) == NVML_SUCCESS && d == dev(0));
	CHECK(FN(nvmlDeviceGetHandleByPciBusId_v2)("0000:30:00.0", &d) == NVML_ERROR_NOT_FOUND);
	CHECK(FN(nvmlDeviceGetHandleByPciBusId_v2)("bus", &d) == NVML_ERROR_INVALID_ARGUMENT);
	CHECK(FN(nvmlDeviceGetName)(dev(0), text, sizeof text) == NVML_SUCCESS && strstr(text, "pwsim 0"));
	CHECK(status(0, 1, NVML_P2P_CAPS_INDEX_READ) == NVML_P2P_STATUS_OK);
	CHECK(status(0, 1, NVML_P2P_CAPS_INDEX_NVLINK) == NVML_P2P_STATUS_NOT_SUPPORTED);
	CHECK(status(0, 1, NVML_P2P_CAPS_INDEX_ATOMICS) == NVML_P2P_STATUS_NOT_SUPPORTED);
	CHECK(level(0, 1) == NVML_TOPOLOGY_NODE);
	nvmlEnableState_t on;
	CHECK(FN(nvmlDeviceGetNvLinkState)(dev(0), 0, &on) == NVML_ERROR_NOT_SUPPORTED);
	nvmlGpuP2PStatus_t s;
	CHECK(FN(nvmlDeviceGetP2PStatus)(dev(0), dev(1), 9, &s) == NVML_ERROR_INVALID_ARGUMENT);
	CHECK(FN(nvmlShutdown)() == NVML_SUCCESS);
	CHECK(FN(nvmlShutdown)() == NVML_ERROR_UNINITIALIZED);
	CHECK(!strcmp(FN(nvmlErrorString)(NVML_ERROR_NOT_FOUND), "Not Found"));
}

/* PWSIM_DEVICES=4, PWSIM_PEERS=0-1,2-3, PWSIM_NVLINKS=0-1:18,2-3:4,
 * PWSIM_SOCKETS=2, PWSIM_TOPOLOGY=2-3:single, PWSIM_P2P=0-2:regkey */
static int child_topology(void)
{
	CHECK(FN(nvmlInit_v2)() == NVML_SUCCESS);
	CHECK(links(0, 1) == 18 && links(1, 0) == 18 && links(2, 3) == 4 && links(0, 2) == 0);
	CHECK(status(0, 1, NVML_P2P_CAPS_INDEX_NVLINK) == NVML_P2P_STATUS_OK);
	CHECK(status(2, 3, NVML_P2P_CAPS_INDEX_ATOMICS) == NVML_P2P_STATUS_OK);
	CHECK(status(0, 2, NVML_P2P_CAPS_INDEX_READ) == NVML_P2P_STATUS_DISABLED_BY_REGKEY);
	CHECK(status(1, 3, NVML_P2P_CAPS_INDEX_WRITE) == NVML_P2P_STATUS_IOH_TOPOLOGY_NOT_SUPPORTED);
	CHECK(level(0, 1) == NVML_TOPOLOGY_NODE && level(1, 2) == NVML_TOPOLOGY_SYSTEM);
	CHECK(level(2, 3) == NVML_TOPOLOGY_SINGLE);
	return failed;
}

/* PWSIM_NVSWITCH=18: every GPU's links end at a switch, and peers talk over it */
static int child_switch(void)
{
	nvmlIntNvLinkDeviceType_t t = -1;
	nvmlEnableState_t on = -1;
	CHECK(FN(nvmlInit_v2)() == NVML_SUCCESS);
	CHECK(links(0, 1) == 0);
	CHECK(FN(nvmlDeviceGetNvLinkState)(dev(1), 17, &on) == NVML_SUCCESS && on == NVML_FEATURE_ENABLED);
	CHECK(FN(nvmlDeviceGetNvLinkRemoteDeviceType)(dev(1), 17, &t) == NVML_SUCCESS &&
	      t == NVML_NVLINK_DEVICE_TYPE_SWITCH);
	CHECK(status(0, 1, NVML_P2P_CAPS_INDEX_NVLINK) == NVML_P2P_STATUS_OK);
	return failed;
}

static int child_absent(void)
{
	CHECK(FN(nvmlInit_v2)() == NVML_ERROR_DRIVER_NOT_LOADED);
	return failed;
}

static int child_bad(void)
{
	CHECK(FN(nvmlInit_v2)() == NVML_SUCCESS);
	CHECK(links(0, 1) == 0); /* a malformed list sets nothing */
	return failed;
}

/* SAYS: what the simulator must say on stderr, on purpose (labelled
 * "(expected) " in the log), or NULL. */
static void in_child(const char *what, int (*fn)(void), const char *const *env, const char *says)
{
	struct expected_err e;
	if (says && expected_open(&e)) {
		failed++;
		printf("FAIL child '%s': no pipe for its stderr\n", what);
		return;
	}
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		if (says)
			expected_child(&e);
		for (; *env; env += 2)
			setenv(env[0], env[1], 1);
		_exit(fn() ? 1 : 0);
	}
	if (says) {
		expected_read(&e);
		CHECK(strstr(e.text, says) != NULL);
	}
	int st = 0;
	waitpid(pid, &st, 0);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
		passed++;
	} else {
		failed++;
		printf("FAIL child '%s'\n", what);
	}
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--list-exports")) {
		for (size_t i = 0; i < sizeof exports / sizeof *exports; i++)
			puts(exports[i]);
		return 0;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: nvml_selftest LIB | --list-exports\n");
		return 2;
	}
	lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		fprintf(stderr, "nvml_selftest: %s\n", dlerror());
		return 1;
	}
	for (size_t i = 0; i < sizeof exports / sizeof *exports; i++)
		CHECK(dlsym(lib, exports[i]) != NULL);
	static const char *const topo[] = {"PWSIM_DEVICES",
	                                   "4",
	                                   "PWSIM_PEERS",
	                                   "0-1,2-3",
	                                   "PWSIM_NVLINKS",
	                                   "0-1:18,2-3:4",
	                                   "PWSIM_SOCKETS",
	                                   "2",
	                                   "PWSIM_TOPOLOGY",
	                                   "2-3:single",
	                                   "PWSIM_P2P",
	                                   "0-2:regkey",
	                                   NULL};
	static const char *const absent[] = {"PWSIM_NVML", "absent", NULL};
	static const char *const bad[] = {"PWSIM_NVLINKS", "0-1:99", NULL};
	in_child("topology", child_topology, topo, NULL);
	static const char *const nvswitch[] = {"PWSIM_NVSWITCH", "18", NULL};
	in_child("absent", child_absent, absent, NULL);
	in_child("switch", child_switch, nvswitch, NULL);
	in_child("bad", child_bad, bad, "pwsim: PWSIM_NVLINKS='0-1:99' is not valid");
	defaults();
	printf("nvml_selftest: %d passed, %d failed\n", passed, failed);
	return failed != 0;
}
