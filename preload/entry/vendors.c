/*
 * Every vendor library peerwatch hooks, in the order their header sections
 * are written.  The one place that names them all: adding a vendor is a
 * line here (HACKING.md).
 */
#include "vendors/acl/acl.h"
#include "vendors/cuda/cuda.h"
#include "vendors/cudart/cudart.h"
#include "vendors/hip/hip.h"
#include "core/vendor.h"

const struct pw_vendor *const pw_vendors[] = {&pw_cuda_vendor, &pw_cudart_vendor, &pw_acl_vendor,
                                              &pw_hip_vendor, NULL};
