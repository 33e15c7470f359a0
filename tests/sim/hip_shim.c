/*
 * A stand-in for an LD_PRELOADed wrapper, for the self-test of the simulated
 * HIP runtime: it exports hipMalloc (unversioned, as a preload library
 * would), so that dlsym(RTLD_DEFAULT, "hipMalloc") finds it while
 * hipGetProcAddress must still hand back the runtime's own function.
 */
#include <stddef.h>

__attribute__((visibility("default"))) int hipMalloc(void **ptr, size_t size)
{
	(void)ptr;
	(void)size;
	return 999; /* hipErrorUnknown: never the simulator's answer */
}
