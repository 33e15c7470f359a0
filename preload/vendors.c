/*
 * Every vendor library peerwatch hooks, in the order their header sections
 * are written.  The one place that names them all: adding a vendor is a
 * line here (HACKING.md).
 */
#include "acl_hooks.h"
#include "cuda_hooks.h"
#include "cudart_hooks.h"
#include "hip_hooks.h"
#include "vendor.h"

const struct pw_vendor *const pw_vendors[] = {&pw_cuda_vendor, &pw_cudart_vendor, &pw_acl_vendor,
                                              &pw_hip_vendor, NULL};
