/*
 * The IPC registry's shared-memory name for a run id (attempt 0, or the one
 * given), or with -s the size of its segment: tests/fault/run.sh takes the
 * name first, as another user would, or leaves a segment nobody initialises.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "state/registry.h"

int main(int argc, char **argv)
{
	char name[PW_REG_NAME_MAX];
	if (argc == 2 && !strcmp(argv[1], "-s")) {
		printf("%zu\n", sizeof(struct pw_reg_segment));
		return 0;
	}
	if (argc < 2 || pw_registry_shm_name_n(argv[1], argc > 2 ? atoi(argv[2]) : 0, name, sizeof name)) {
		fprintf(stderr, "usage: shmname RUN_ID [ATTEMPT] | shmname -s\n");
		return 2;
	}
	printf("%s\n", name);
	return 0;
}
