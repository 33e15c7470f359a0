/*
 * The default suppressions: findings inside third-party libraries that the
 * program's author cannot act on, left out of reports the way Valgrind's
 * default.supp leaves out glibc's.  They are on unless the option
 * default_suppressions=0 (launcher: --no-default-suppressions) turns them
 * off; every finding they take is counted in the trace footer
 * ("suppressed_default", and per entry in "suppressions"), marked on its
 * call ("suppressed") and summed by peerwatch-analyze, which lists them
 * (`peerwatch-analyze rules --suppressions`).
 *
 *   S("name", "suppression", "library", "why")
 *
 * suppression: one line of the suppressions file format (preload/rules/suppress.c);
 * library:     where the findings come from, as reports name it;
 * why:         the pattern, why the user cannot act on it, and what the
 *              runtime was measured to do (docs/facts-cuda.md).
 *
 * An entry is added only for a pattern seen in a real run of the library,
 * and only for a finding whose rule stays right: the finding is still a
 * contract break, reported to whoever maintains the library.
 */
#ifndef PEERWATCH_DEFAULT_SUPPRESSIONS_H
#define PEERWATCH_DEFAULT_SUPPRESSIONS_H

#define PW_DEFAULT_SUPPRESSIONS(S)                                                                         \
	S("nccl-legacy-ipc-teardown", "rule=ipc.free-while-open stack=...;libnccl.so*", "libnccl.so",      \
	  "NCCL's legacy IPC path (NCCL_CUMEM_ENABLE=0, or where cuMem is not used) frees, when a "        \
	  "communicator is destroyed, the buffers it exported while the peer ranks still have them open "  \
	  "(96 findings in a 2-rank all_reduce, every one inside libnccl). Both vendors' documents call "  \
	  "it undefined behaviour; measured on 2 x H100 (driver 580.159.04, CUDA 13.0), the driver keeps " \
	  "the memory until the importer closes its mapping, so the job's results are unaffected. Only "   \
	  "NCCL can change it")

#endif
