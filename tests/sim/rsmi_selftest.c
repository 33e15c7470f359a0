/*
 * Self-test of the simulated ROCm SMI (rsmi_sim.c), loaded as peerwatch
 * loads it (dlopen, RTLD_LOCAL), with the environment cases in children.
 *
 *   rsmi_selftest LIB | --list-exports
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "peerwatch/abi/rocm_smi.h"

static const char *const exports[] = {
    "rsmi_init",           "rsmi_shut_down",          "rsmi_num_monitor_devices",
    "rsmi_dev_pci_id_get", "rsmi_topo_get_link_type", "rsmi_is_P2P_accessible"};
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

/* PWSIM_DEVICES=3 PWSIM_PEERS=0-1 PWSIM_XGMI=0-1 */
static int child_topology(void)
{
	uint32_t n = 0;
	uint64_t b = 0, hops = 0;
	RSMI_IO_LINK_TYPE t = -1;
	bool ok = false;
	CHECK(FN(rsmi_num_monitor_devices)(&n) == RSMI_STATUS_INIT_ERROR);
	CHECK(FN(rsmi_init)(0) == RSMI_STATUS_SUCCESS);
	CHECK(FN(rsmi_num_monitor_devices)(&n) == RSMI_STATUS_SUCCESS && n == 3);
	/* its own numbering: index 0 is the host's device 2 (bus 0x30) */
	CHECK(FN(rsmi_dev_pci_id_get)(0, &b) == RSMI_STATUS_SUCCESS && b == 0x3000);
	CHECK(FN(rsmi_dev_pci_id_get)(2, &b) == RSMI_STATUS_SUCCESS && b == 0x1000);
	CHECK(FN(rsmi_topo_get_link_type)(2, 1, &hops, &t) == RSMI_STATUS_SUCCESS &&
	      t == RSMI_IOLINK_TYPE_XGMI && hops == 1);
	CHECK(FN(rsmi_topo_get_link_type)(0, 1, &hops, &t) == RSMI_STATUS_SUCCESS &&
	      t == RSMI_IOLINK_TYPE_PCIEXPRESS && hops == 2);
	CHECK(FN(rsmi_is_P2P_accessible)(2, 1, &ok) == RSMI_STATUS_SUCCESS && ok);
	CHECK(FN(rsmi_is_P2P_accessible)(0, 1, &ok) == RSMI_STATUS_SUCCESS && !ok);
	CHECK(FN(rsmi_is_P2P_accessible)(0, 3, &ok) == RSMI_STATUS_INVALID_ARGS);
	CHECK(FN(rsmi_shut_down)() == RSMI_STATUS_SUCCESS);
	return failed;
}

static int child_absent(void)
{
	CHECK(FN(rsmi_init)(0) == RSMI_STATUS_INIT_ERROR);
	return failed;
}

static void in_child(const char *what, int (*fn)(void), const char *const *env)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		for (; *env; env += 2)
			setenv(env[0], env[1], 1);
		_exit(fn() ? 1 : 0);
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
	if (argc != 2 || !(lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL))) {
		fprintf(stderr, "usage: rsmi_selftest LIB | --list-exports\n");
		return 2;
	}
	static const char *const topo[] = {"PWSIM_DEVICES", "3",   "PWSIM_PEERS", "0-1",
	                                   "PWSIM_XGMI",    "0-1", NULL};
	static const char *const absent[] = {"PWSIM_RSMI", "absent", NULL};
	in_child("topology", child_topology, topo);
	in_child("absent", child_absent, absent);
	printf("rsmi_selftest: %d passed, %d failed\n", passed, failed);
	return failed != 0;
}
