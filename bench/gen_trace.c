/*
 * Writes synthetic peerwatch traces for the analyzer benchmark: FILES trace
 * files (processes) with EVENTS call events in all, lines shaped exactly as
 * the preload writes them (preload/vendors/cuda/cuda_encode.c, docs/trace-format.md), in
 * a mix of the hooked APIs: peer copies (most), peer queries and enables,
 * IPC export/open/close, managed advice and prefetch, frees; about 2 % of
 * calls fail.  Deterministic (a fixed xorshift seed).
 *
 *   gen_trace OUT_DIR EVENTS FILES [IPC_PERCENT]
 *
 * IPC_PERCENT (0-100; without it, the mix above, 7 % IPC calls, one handle):
 * that share of the calls are IPC calls of 64 handles per process (their
 * bytes name the process and the allocation), exported by their process and
 * opened and closed by the others: an export, an open of another process's
 * handle, a close of the latest mapping not yet closed (some are left open:
 * leaks), now and then a free of an exported allocation (later opens of it
 * are stale), for the analyzer's memory with many IPC calls (check, ipc).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static const char handle[] =
    "5057534d3412000000001000000000000100000000000000000000002f707773696d2e302e34363631"
    "322e310000000000000000000000000000000000000000";

static void header(FILE *f, int pid)
{
	fprintf(
	    f,
	    "{\"type\":\"header\",\"format\":\"peerwatch\",\"version\":1,\"peerwatch_version\":\"0.1.0\","
	    "\"pid\":%d,\"ppid\":1,\"host\":\"bench\",\"rank\":%d,\"argv\":[\"python3\",\"train.py\"],"
	    "\"t0_mono_ns\":1000000000,\"t0_real_ns\":1763771402123456789,\"options\":{\"out\":\"/tmp/pw\","
	    "\"mode\":\"warn\",\"buffer_kb\":256},\"vendors\":{\"cuda\":{\"library\":\"/lib/x86_64-linux-gnu/"
	    "libcuda.so.1\",\"driver_version\":13000}},\"modules\":[{\"path\":\"/usr/bin/python3.12\","
	    "\"base\":\"0x0\",\"build_id\":\"729fae923d5a4fd12aabfe228f219e9cb0eb53f1\"}]}\n",
	    pid, pid - 1000);
}

/* IPC_PERCENT's calls: an export of one of this process's 64 allocations,
 * an open of another process's (a mapping of its own), or a close of this
 * process's latest open mapping. */
static int ipc_pct = -1;
static long long nfiles = 1;
static uint64_t open_ptrs[256];
static unsigned n_open;

static void ipc_handle_hex(char *buf, size_t len, long long file, unsigned alloc)
{
	snprintf(buf, len,
	         "5057534d3412000000001000000000000100000000000000%08llx%08x696d2e30"
	         "2e34363631322e310000000000000000000000000000000000000000",
	         (unsigned long long)file, alloc);
}

static void ipc_event(FILE *f, int pid, uint64_t t, uint64_t dur)
{
	unsigned k = (unsigned)(next() % 10), alloc = (unsigned)(next() % 64);
	long long self = pid - 1000,
	          other =
	              nfiles > 1 ? (self + 1 + (long long)(next() % (uint64_t)(nfiles - 1))) % nfiles : self;
	int fail = next() % 50 == 0;
	const char *ok =
	    fail ? "1,\"ret_name\":\"CUDA_ERROR_INVALID_VALUE\"" : "0,\"ret_name\":\"CUDA_SUCCESS\"";
	char h[160];
	if (k < 4 || nfiles == 1) {
		ipc_handle_hex(h, sizeof h, self, alloc);
		fprintf(
		    f,
		    "\"api\":\"cuIpcGetMemHandle\",\"variant\":\"\",\"family\":\"ipc\",\"op\":\"ipc_"
		    "export\",\"t_ns\":%llu,\"dur_ns\":%llu,\"ret\":%s,\"cur_dev\":%u,\"args\":{\"handle\":"
		    "\"%s\",\"ptr\":\"0x7f3a%08x\",\"ptr_dev\":%u}}\n",
		    (unsigned long long)t, (unsigned long long)dur, ok, alloc % 8, h, alloc << 20, alloc % 8);
	} else if (k < 7 || !n_open) {
		uint64_t ptr = 0x7f1100000000ull + ((uint64_t)(next() % 0x10000) << 20);
		ipc_handle_hex(h, sizeof h, other, alloc);
		fprintf(f,
		        "\"api\":\"cuIpcOpenMemHandle\",\"variant\":\"_v2\",\"family\":\"ipc\",\"op\":\"ipc_"
		        "open\",\"t_ns\":%llu,\"dur_ns\":%llu,\"ret\":%s,\"cur_dev\":%u,\"args\":{\"ptr\":"
		        "\"0x%llx\",\"ptr_dev\":%u,\"handle\":\"%s\",\"flags\":1,\"flags_names\":\"CU_IPC_"
		        "MEM_LAZY_ENABLE_PEER_ACCESS\"}}\n",
		        (unsigned long long)t, (unsigned long long)dur * 50, ok, alloc % 8,
		        (unsigned long long)ptr, alloc % 8, h);
		if (!fail && n_open < sizeof open_ptrs / sizeof *open_ptrs)
			open_ptrs[n_open++] = ptr;
	} else if (k == 9 && next() % 4096 == 0) {
		fprintf(f,
		        "\"api\":\"cuMemFree\",\"variant\":\"_v2\",\"family\":\"support\",\"op\":\"free\","
		        "\"t_ns\":%llu,\"dur_ns\":%llu,\"ret\":0,\"ret_name\":\"CUDA_SUCCESS\",\"args\":{"
		        "\"ptr\":\"0x7f3a%08x\",\"ptr_dev\":%u}}\n",
		        (unsigned long long)t, (unsigned long long)dur, alloc << 20, alloc % 8);
	} else {
		uint64_t ptr = open_ptrs[--n_open];
		fprintf(f,
		        "\"api\":\"cuIpcCloseMemHandle\",\"variant\":\"\",\"family\":\"ipc\",\"op\":\"ipc_"
		        "close\",\"t_ns\":%llu,\"dur_ns\":%llu,\"ret\":%s,\"cur_dev\":0,\"args\":{\"ptr\":"
		        "\"0x%llx\",\"ptr_dev\":0}}\n",
		        (unsigned long long)t, (unsigned long long)dur, ok, (unsigned long long)ptr);
	}
}

/* One call event; returns nothing, writes one line. */
static void event(FILE *f, int pid, uint64_t seq, uint64_t t)
{
	unsigned k = (unsigned)(next() % 100), src = (unsigned)(next() % 8), dst = (src + 1 + next() % 7) % 8;
	uint64_t dur = 500 + next() % 20000, bytes = 4096ull << (next() % 16);
	int fail = next() % 50 == 0;
	const char *ok =
	    fail ? "1,\"ret_name\":\"CUDA_ERROR_INVALID_VALUE\"" : "0,\"ret_name\":\"CUDA_SUCCESS\"";
	fprintf(f, "{\"type\":\"call\",\"seq\":%llu,\"tid\":%d,\"vendor\":\"cuda\",", (unsigned long long)seq,
	        pid + (int)(seq % 4));
	if (ipc_pct >= 0 && next() % 100 < (unsigned)ipc_pct)
		ipc_event(f, pid, t, dur);
	else if (k < 55)
		fprintf(
		    f,
		    "\"api\":\"cuMemcpyPeerAsync\",\"variant\":\"_ptsz\",\"family\":\"copy\",\"op\":\"peer_"
		    "copy\",\"t_ns\":%llu,"
		    "\"dur_ns\":%llu,\"ret\":%s,\"args\":{\"dst\":\"0x7f3a%08x\",\"dst_dev\":%u,"
		    "\"dst_ctx\":\"0x55d0c3a81f30\",\"dst_ctx_dev\":%u,\"src\":\"0x7f3b%08x\",\"src_dev\":%u,"
		    "\"src_ctx\":\"0x55d0c3a7e2a0\",\"src_ctx_dev\":%u,\"bytes\":%llu,\"stream\":"
		    "\"0x55d0c3b01a40\"}}\n",
		    (unsigned long long)t, (unsigned long long)dur, ok, (unsigned)(next() & 0xfffff000), dst,
		    dst, (unsigned)(next() & 0xfffff000), src, src, (unsigned long long)bytes);
	else if (k < 70)
		fprintf(f,
		        "\"api\":\"cuMemcpyPeer\",\"variant\":\"\",\"family\":\"copy\",\"op\":\"peer_copy\","
		        "\"t_ns\":%llu,\"dur_"
		        "ns\":%llu,"
		        "\"ret\":%s,\"args\":{\"dst\":\"0x7f3a5c000000\",\"dst_dev\":%u,\"dst_ctx\":"
		        "\"0x55d0c3a81f30\","
		        "\"dst_ctx_dev\":%u,\"src\":\"0x7f3a3a000000\",\"src_dev\":%u,\"src_ctx\":"
		        "\"0x55d0c3a7e2a0\","
		        "\"src_ctx_dev\":%u,\"bytes\":%llu}}\n",
		        (unsigned long long)t, (unsigned long long)dur * 10, ok, dst, dst, src, src,
		        (unsigned long long)bytes);
	else if (k < 80)
		fprintf(
		    f,
		    "\"api\":\"cuDeviceCanAccessPeer\",\"variant\":\"\",\"family\":\"peer\",\"op\":\"peer_"
		    "query\",\"t_ns\":%llu,"
		    "\"dur_ns\":%llu,\"ret\":%s,\"args\":{\"can_access\":1,\"dev\":%u,\"peer_dev\":%u}}\n",
		    (unsigned long long)t, (unsigned long long)dur / 50, ok, src, dst);
	else if (k < 84)
		fprintf(f,
		        "\"api\":\"cuCtxEnablePeerAccess\",\"variant\":\"\",\"family\":\"peer\",\"op\":"
		        "\"peer_enable\",\"t_ns\":%llu,"
		        "\"dur_ns\":%llu,\"ret\":%s,\"cur_dev\":%u,\"args\":{\"peer_ctx\":\"0x55d0c3a81f30\","
		        "\"peer_ctx_dev\":%u,\"flags\":0}}\n",
		        (unsigned long long)t, (unsigned long long)dur, ok, src, dst);
	else if (k < 88)
		fprintf(f,
		        "\"api\":\"cuIpcGetMemHandle\",\"variant\":\"\",\"family\":\"ipc\",\"op\":\"ipc_"
		        "export\",\"t_ns\":%llu,"
		        "\"dur_ns\":%llu,"
		        "\"ret\":%s,\"cur_dev\":%u,\"args\":{\"handle\":\"%s\",\"ptr\":\"0x7f3a3a000000\","
		        "\"ptr_dev\":%u}}\n",
		        (unsigned long long)t, (unsigned long long)dur, ok, src, handle, src);
	else if (k < 91)
		fprintf(f,
		        "\"api\":\"cuIpcOpenMemHandle\",\"variant\":\"_v2\",\"family\":\"ipc\",\"op\":\"ipc_"
		        "open\",\"t_ns\":%llu,"
		        "\"dur_ns\":%llu,\"ret\":%s,\"cur_dev\":%u,\"args\":{\"ptr\":\"0x7f11c2000000\","
		        "\"ptr_dev\":%u,"
		        "\"handle\":\"%s\",\"flags\":1,\"flags_names\":\"CU_IPC_MEM_LAZY_ENABLE_PEER_"
		        "ACCESS\"}}\n",
		        (unsigned long long)t, (unsigned long long)dur * 50, ok, dst, src, handle);
	else if (k < 94)
		fprintf(f,
		        "\"api\":\"cuMemAdvise\",\"variant\":\"_v2\",\"family\":\"managed\",\"op\":\"managed_"
		        "advise\",\"t_ns\":%llu,"
		        "\"dur_ns\":%llu,"
		        "\"ret\":%s,\"args\":{\"ptr\":\"0x7f3a18000000\",\"ptr_dev\":0,\"bytes\":%llu,"
		        "\"advice\":3,"
		        "\"advice_name\":\"CU_MEM_ADVISE_SET_PREFERRED_LOCATION\",\"location\":{\"type\":"
		        "\"device\","
		        "\"id\":%u}}}\n",
		        (unsigned long long)t, (unsigned long long)dur, ok, (unsigned long long)bytes, dst);
	else if (k < 97)
		fprintf(
		    f,
		    "\"api\":\"cuMemPrefetchAsync\",\"variant\":\"_v2\",\"family\":\"managed\",\"op\":"
		    "\"managed_prefetch\",\"t_ns\":%llu,"
		    "\"dur_ns\":%llu,\"ret\":%s,\"args\":{\"ptr\":\"0x7f3a18000000\",\"ptr_dev\":0,\"bytes\":"
		    "%llu,"
		    "\"location\":{\"type\":\"device\",\"id\":%u},\"flags\":0,\"stream\":\"0x55d0c3b01a40\"}}"
		    "\n",
		    (unsigned long long)t, (unsigned long long)dur, ok, (unsigned long long)bytes, dst);
	else
		fprintf(f,
		        "\"api\":\"cuMemFree\",\"variant\":\"_v2\",\"family\":\"support\",\"op\":\"free\","
		        "\"t_ns\":%llu,"
		        "\"dur_ns\":%llu,"
		        "\"ret\":%s,\"args\":{\"ptr\":\"0x7f3a%08x\",\"ptr_dev\":%u}}\n",
		        (unsigned long long)t, (unsigned long long)dur, ok, (unsigned)(next() & 0xfffff000),
		        src);
}

int main(int argc, char **argv)
{
	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: gen_trace OUT_DIR EVENTS FILES [IPC_PERCENT]\n");
		return 2;
	}
	long long events = atoll(argv[2]), files = atoll(argv[3]);
	if (argc == 5)
		ipc_pct = atoi(argv[4]);
	if (events < 1 || files < 1 || files > 100000 || (argc == 5 && (ipc_pct < 0 || ipc_pct > 100))) {
		fprintf(stderr, "gen_trace: EVENTS >= 1, 1 <= FILES <= 100000, 0 <= IPC_PERCENT <= 100\n");
		return 2;
	}
	nfiles = files;
	if (mkdir(argv[1], 0700) && errno != EEXIST) {
		perror(argv[1]);
		return 1;
	}
	for (long long i = 0; i < files; i++) {
		long long n = events / files + (i < events % files);
		int pid = 1000 + (int)i;
		char path[4096];
		snprintf(path, sizeof path, "%s/bench.%d.pw.jsonl", argv[1], pid);
		FILE *f = fopen(path, "w");
		if (!f) {
			perror(path);
			return 1;
		}
		header(f, pid);
		n_open = 0;
		uint64_t t = 1000000000ull + 1000;
		for (long long s = 1; s <= n; s++) {
			t += 100 + next() % 5000;
			event(f, pid, (uint64_t)s, t);
		}
		fprintf(f,
		        "{\"type\":\"footer\",\"events\":%lld,\"dropped\":0,\"t_end_ns\":%llu,\"reason\":"
		        "\"exit\"}\n",
		        n, (unsigned long long)t + 1000);
		if (fclose(f)) {
			perror(path);
			return 1;
		}
	}
	return 0;
}
