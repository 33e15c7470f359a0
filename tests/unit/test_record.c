/*
 * Call records (preload/record/record.c): what the calling thread stores and what
 * the writer makes of it.  A record holds no pointer into the caller's
 * memory: the event is the same when the memory the arguments pointed to
 * has changed or gone after the call.  Records are decoded whole or not at
 * all; a run of them becomes lines, too long ones counted.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "vendors/acl/acl.h"
#include "vendors/cuda/cuda.h"
#include "vendors/cudart/cudart.h"
#include "record/event.h"
#include "vendors/hip/hip.h"
#include "record/jsonw.h"
#include "record/record.h"
#include "record/record_write.h"
#include "record/trace.h"
#include "core/vendor.h"

static _Alignas(8) char rec[PW_EVENT_MAX];
static char line[PW_EVENT_MAX];

static struct pw_call call_of(const struct pw_fn_desc *fn, int64_t ret)
{
	struct pw_call c;
	memset(&c, 0, sizeof c);
	c.fn = fn;
	c.seq = 9;
	c.t0 = 5000;
	c.t1 = 5100;
	c.ret = ret;
	c.cur_dev = PW_NO_DEV;
	for (int i = 0; i < PW_MAX_ARGS; i++)
		c.dev[i] = PW_NO_DEV;
	return c;
}

static json_t *decode(size_t n)
{
	struct pw_jw w;
	pw_jw_init(&w, line, sizeof line - 1);
	assert_int_equal(pw_record_decode(&w, rec, n), n);
	assert_false(w.overflow);
	*w.p = 0;
	json_error_t e;
	json_t *j = json_loads(line, 0, &e);
	if (!j)
		fail_msg("not JSON (%s): %s", e.text, line);
	return j;
}

#define ARGS(j) json_object_get(j, "args")
#define STR(j, k) json_string_value(json_object_get(j, k))
#define INT(j, k) json_integer_value(json_object_get(j, k))

/* Every row whose kinds save something has a vendor that saves it. */
static void every_snapshot_has_its_writer(void **state)
{
	(void)state;
	int rows = 0, with = 0;
	for (const struct pw_vendor *const *v = pw_vendors; *v; v++)
		for (int i = 0; i < (*v)->nfns; i++) {
			const struct pw_fn_desc *fn = &(*v)->fns[i];
			rows++;
			if (!fn->snap)
				continue;
			with++;
			assert_non_null((*v)->snap_arg);
			assert_true(fn->snap >> fn->nargs == 0); /* bits only for arguments the row has */
		}
	assert_true(with > 10 && with < rows);
	/* the two calls of the budget: one saves its out-parameter, the copy nothing */
	assert_int_equal(pw_cuda_desc[PW_CUDA_ID(cuDeviceCanAccessPeer)].snap, 1);
	assert_int_equal(pw_cuda_desc[PW_CUDA_ID(cuMemcpyPeerAsync)].snap, 0);
	assert_int_equal(pw_cuda_desc[PW_CUDA_ID(cuMemcpyPeerAsync)].wide, 0);
	assert_int_equal(pw_cuda_desc[PW_CUDA_ID(cuMemcpy3DPeer)].wide, 1);
}

/* The inline writer of a wrapper (pw_rec_row_write: the call's own record,
 * trace_hot.h, and a folded one) writes, for every row of every vendor it
 * takes, the bytes of the general writer: arguments, devices (an odd count
 * padded), an int out-parameter saved when the call succeeded and the
 * pointer is set, and nothing when it failed or the pointer is NULL. */
static void inline_rows_write_the_general_bytes(void **state)
{
	(void)state;
	static _Alignas(8) char fast[PW_EVENT_MAX];
	int rows = 0, inl = 0, snapped = 0;
	if (!pw_tls_tid)
		pw_tls_tid = pw_gettid();
	for (const struct pw_vendor *const *v = pw_vendors; *v; v++)
		for (int i = 0; i < (*v)->nfns; i++) {
			const struct pw_fn_desc *fn = &(*v)->fns[i];
			rows++;
			if (!pw_row_inline(fn))
				continue;
			inl++;
			for (int ok = 0; ok < 2; ok++)
				for (int null = 0; null < 2; null++) {
					int32_t outs[PW_MAX_ARGS];
					struct pw_call c = call_of(fn, ok ? fn->lib->ret_success : 999);
					c.cur_dev = 1;
					c.parent = 4;
					for (int k = 0; k < fn->nargs; k++) {
						outs[k] = 100 + k;
						c.a[k] = fn->snap >> k & 1 ? (null ? 0 : (uintptr_t)&outs[k])
						                           : 0x1000u * (unsigned)(k + 1);
						c.dev[k] = k & 1 ? 0 : PW_NO_DEV;
					}
					memset(rec, 0x5a, sizeof rec);
					memset(fast, 0x5a, sizeof fast);
					size_t n = pw_record_call_into(rec, sizeof rec, &c);
					uint32_t m = pw_rec_row_write((struct pw_rec_call *)(void *)fast, &c,
					                              fn, c.t0, c.t1, 0);
					if (n != m || memcmp(rec, fast, n))
						fail_msg("%s (%s, %s): the inline writer's %u bytes are not "
						         "the general writer's %zu",
						         fn->symbol, ok ? "success" : "failure",
						         null ? "NULL out" : "out set", m, n);
					snapped += fn->snap && ok && !null;
				}
		}
	print_message("%d of %d rows written inline, %d with an int saved\n", inl, rows, snapped);
	assert_true(inl > rows / 3 && inl < rows); /* not the wide ones or struct snapshots */
	assert_true(snapped >= 4);                 /* the peer queries of each vendor */
	assert_true(pw_row_inline(&pw_cuda_desc[PW_CUDA_ID(cuDeviceCanAccessPeer)]));
	assert_true(pw_row_inline(&pw_cuda_desc[PW_CUDA_ID(cuMemcpyPeerAsync)]));
	assert_false(pw_row_inline(&pw_cuda_desc[PW_CUDA_ID(cuMemcpy3DPeer)]));
}

/* The common calls stay small: the reason records have variable length. */
static void common_calls_are_small(void **state)
{
	(void)state;
	int v = 1;
	struct pw_call c = call_of(&pw_cuda_desc[PW_CUDA_ID(cuDeviceCanAccessPeer)], CUDA_SUCCESS);
	c.a[0] = (uintptr_t)&v;
	assert_int_equal(pw_record_call_into(rec, sizeof rec, &c), 120);
	c = call_of(&pw_cuda_desc[PW_CUDA_ID(cuMemcpyPeerAsync)], CUDA_SUCCESS);
	assert_int_equal(pw_record_call_into(rec, sizeof rec, &c), 136);
}

/* What the arguments pointed to is taken when the call is recorded. */
static void pointed_to_memory_is_taken_at_the_call(void **state)
{
	(void)state;
	CUipcMemHandle h;
	memset(&h, 0xab, sizeof h);
	CUdeviceptr out = 0x7f0012340000;
	struct pw_call c = call_of(&pw_cuda_desc[PW_CUDA_ID(cuIpcOpenMemHandle_v2)], CUDA_SUCCESS);
	c.a[0] = (uintptr_t)&out;
	c.a[1] = (uintptr_t)&h;
	c.a[2] = 1;
	size_t n = pw_record_call_into(rec, sizeof rec, &c);
	memset(&h, 0, sizeof h); /* the wrapper's copy is gone, the variable reused */
	out = 0;
	json_t *j = decode(n);
	assert_string_equal(STR(ARGS(j), "ptr"), "0x7f0012340000");
	assert_memory_equal(STR(ARGS(j), "handle"), "abababab", 8);
	json_decref(j);

	/* a runtime 3D copy's struct, and the ACL configuration path */
	struct cudaMemcpy3DPeerParms p;
	memset(&p, 0, sizeof p);
	p.srcPtr.ptr = (void *)0x1000;
	p.dstPtr.ptr = (void *)0x2000;
	p.srcDevice = 0;
	p.dstDevice = 1;
	p.extent.width = 16;
	c = call_of(&pw_cudart_desc[PW_CUDART_ID(cudaMemcpy3DPeer)], cudaSuccess);
	c.a[0] = (uintptr_t)&p;
	n = pw_record_call_into(rec, sizeof rec, &c);
	memset(&p, 0xff, sizeof p);
	j = decode(n);
	assert_string_equal(STR(ARGS(j), "dst"), "0x2000");
	assert_int_equal(INT(ARGS(j), "dst_device"), 1);
	assert_int_equal(INT(ARGS(j), "bytes"), 16);
	json_decref(j);

	char path[] = "/etc/acl.json";
	c = call_of(&pw_acl_desc[PW_ACL_ID(aclInit)], ACL_SUCCESS);
	c.a[0] = (uintptr_t)path;
	n = pw_record_call_into(rec, sizeof rec, &c);
	path[1] = 'X';
	j = decode(n);
	assert_string_equal(STR(ARGS(j), "config"), "/etc/acl.json");
	json_decref(j);
}

/* A failed call's out-parameters hold nothing: none is read or written. */
static void failed_calls_save_no_out_parameter(void **state)
{
	(void)state;
	struct pw_call c =
	    call_of(&pw_cuda_desc[PW_CUDA_ID(cuDeviceCanAccessPeer)], CUDA_ERROR_INVALID_DEVICE);
	c.a[0] = 0x8; /* not memory: must not be read */
	c.a[1] = 0;
	c.a[2] = 9;
	size_t n = pw_record_call_into(rec, sizeof rec, &c);
	assert_int_equal(n, 104); /* no snapshot */
	json_t *j = decode(n);
	assert_null(json_object_get(ARGS(j), "can_access"));
	assert_string_equal(STR(j, "ret_name"), "CUDA_ERROR_INVALID_DEVICE");
	json_decref(j);
}

/* A record cut short, or claiming more than there is, is not decoded. */
static void partial_records_are_refused(void **state)
{
	(void)state;
	int v = 1;
	struct pw_call c = call_of(&pw_cuda_desc[PW_CUDA_ID(cuDeviceCanAccessPeer)], CUDA_SUCCESS);
	c.a[0] = (uintptr_t)&v;
	size_t n = pw_record_call_into(rec, sizeof rec, &c);
	struct pw_jw w;
	pw_jw_init(&w, line, sizeof line);
	assert_int_equal(pw_record_decode(&w, rec, n - 8), 0);
	assert_int_equal(pw_record_decode(&w, rec, 4), 0);
	struct pw_rec_hdr h;
	memcpy(&h, rec, sizeof h);
	h.size = 13; /* not a multiple of 8 */
	memcpy(rec, &h, sizeof h);
	assert_int_equal(pw_record_decode(&w, rec, n), 0);
	h.size = (uint32_t)n;
	h.type = 77;
	memcpy(rec, &h, sizeof h);
	assert_int_equal(pw_record_decode(&w, rec, n), 0);
	/* a snapshot naming an argument past the last */
	h.type = PW_REC_CALL;
	memcpy(rec, &h, sizeof h);
	rec[n - 16] = PW_MAX_ARGS;
	assert_int_equal(pw_record_decode(&w, rec, n), 0);
}

/* A run of records: lines in order, a line record as it was, one too long
 * for a line counted and left out, and room kept for the longest line. */
static void runs_become_lines(void **state)
{
	(void)state;
	static _Alignas(8) char run[4 * PW_EVENT_MAX];
	size_t at = 0;
	int v = 1;
	struct pw_call c = call_of(&pw_cuda_desc[PW_CUDA_ID(cuDeviceCanAccessPeer)], CUDA_SUCCESS);
	c.a[0] = (uintptr_t)&v;
	at += pw_record_call_into(run + at, PW_EVENT_MAX, &c);
	/* a line made elsewhere (a finding) */
	static const char text[] = "{\"type\":\"violation\",\"seq\":10}";
	size_t tlen = sizeof text - 1; /* a record's text has no terminating NUL */
	struct pw_rec_hdr h = {
	    .size = (uint32_t)((8 + tlen + 7) & ~7u), .type = PW_REC_LINE, .len = (uint16_t)tlen};
	memcpy(run + at, &h, sizeof h);
	memcpy(run + at + 8, text, tlen);
	at += h.size;
	/* a call with a 64-frame stack whose line cannot fit in the room left */
	uintptr_t frames[64];
	for (int i = 0; i < 64; i++)
		frames[i] = UINTPTR_MAX - (uintptr_t)i;
	c.stack = frames;
	c.nstack = 64;
	c.seq = 11;
	at += pw_record_call_into(run + at, PW_EVENT_MAX, &c);

	static char out[3 * PW_EVENT_MAX];
	struct pw_decode_out o = {.buf = out, .cap = sizeof out};
	size_t used = pw_record_decode_span(run, run + at, &o);
	assert_int_equal(used, at);
	assert_int_equal(o.lines, 3);
	assert_int_equal(o.too_long + o.bad, 0);
	out[o.len] = 0;
	char *second = strchr(out, '\n') + 1;
	assert_memory_equal(second, text, strlen(text));
	assert_int_equal(second[strlen(text)], '\n');
	assert_non_null(strstr(out, "\"seq\":11"));

	/* with less than a line's room left, nothing more is decoded */
	struct pw_decode_out small = {.buf = out, .cap = PW_EVENT_MAX - 1};
	assert_int_equal(pw_record_decode_span(run, run + at, &small), 0);
}

/* A call folded into its runtime call's record (record.h): written into
 * the fold tail after the thread's last published byte, by the wrapper's
 * inline writer or the general one (the same bytes); it decodes with
 * "parent_time" and the times of its owner's record, which follows it.
 * While a record is being written into the tail (a signal handler's call
 * came in between), or when the tail has no room and no buffer can be
 * had, nothing is written there. */
static void folded_calls_say_so(void **state)
{
	(void)state;
	static _Alignas(8) char tail[2][PW_EVENT_MAX];
	memset(tail, 0, sizeof tail);
	int v = 1;
	const struct pw_fn_desc *fn = &pw_cuda_desc[PW_CUDA_ID(cuDeviceCanAccessPeer)];
	struct pw_call c = call_of(fn, CUDA_SUCCESS);
	c.a[0] = (uintptr_t)&v;
	c.a[1] = 0;
	c.a[2] = 1;
	c.parent = 8;
	if (!pw_tls_tid)
		pw_tls_tid = pw_gettid();
	assert_true(pw_row_inline(fn));
	uint32_t size[2];
	for (int k = 0; k < 2; k++) {
		memset(&pw_tls_fold, 0, sizeof pw_tls_fold);
		pw_tls_fold.base = tail[k];
		pw_tls_fold.end = tail[k] + PW_EVENT_MAX;
		pw_fold_open(8);
		assert_int_equal(pw_tls_fold.owner, 8);
		struct pw_call cc = c;
		if (k == 0)
			pw_record_fold_row(&cc, fn);
		else
			pw_record_fold(&cc);
		assert_int_equal(pw_tls_fold.n, 1);
		assert_int_equal(pw_tls_fold.busy, 0);
		size[k] = pw_tls_fold.used;
		assert_true(size[k] > 0 && size[k] < PW_FOLD_ROOM);
	}
	assert_int_equal(size[0], size[1]);
	assert_memory_equal(tail[0], tail[1], size[0]);
	/* the owner's record after it; the folded call takes its times */
	struct pw_call owner = call_of(&pw_cudart_desc[PW_CUDART_ID(cudaDeviceCanAccessPeer)], cudaSuccess);
	owner.seq = 8;
	owner.t0 = 7000;
	owner.t1 = 7300;
	owner.a[0] = (uintptr_t)&v;
	size_t n = size[0] + pw_record_call_into(tail[0] + size[0], PW_EVENT_MAX - size[0], &owner);
	static char out[3 * PW_EVENT_MAX];
	struct pw_decode_out o = {.buf = out, .cap = sizeof out};
	assert_int_equal(pw_record_decode_span(tail[0], tail[0] + n, &o), n);
	assert_int_equal(o.lines, 2);
	out[o.len] = 0;
	*strchr(out, '\n') = 0;
	json_error_t e;
	json_t *j = json_loads(out, 0, &e), *jo = json_loads(out + strlen(out) + 1, 0, &e);
	assert_non_null(j);
	assert_non_null(jo);
	assert_true(json_is_true(json_object_get(j, "parent_time")));
	assert_int_equal(INT(j, "parent"), 8);
	assert_int_equal(INT(ARGS(j), "can_access"), 1);
	assert_int_equal(INT(ARGS(j), "peer_dev"), 1);
	assert_int_equal(INT(j, "t_ns"), INT(jo, "t_ns"));
	assert_int_equal(INT(j, "dur_ns"), 300);
	assert_null(json_object_get(jo, "parent_time"));
	json_decref(j);
	json_decref(jo);
	/* without its owner's record (never published so): no times of its own */
	memcpy(rec, tail[0], size[0]);
	j = decode(size[0]);
	assert_int_equal(INT(j, "dur_ns"), 0);
	json_decref(j);
	/* an unfolded call says nothing of it */
	n = pw_record_call_into(rec, PW_EVENT_MAX, &c);
	j = decode(n);
	assert_null(json_object_get(j, "parent_time"));
	assert_int_equal(INT(j, "dur_ns"), 100);
	json_decref(j);
	/* busy: a signal handler's call is not written over the record being written */
	uint32_t used = pw_tls_fold.used;
	pw_tls_fold.busy = 1;
	pw_record_fold_row(&c, fn);
	pw_record_fold(&c);
	assert_int_equal(pw_tls_fold.used, used);
	assert_int_equal(pw_tls_fold.n, 1);
	/* no room left, and no buffer to move the tail to (no trace here): nothing */
	pw_tls_fold.busy = 0;
	pw_tls_fold.end = pw_tls_fold.base + used + PW_FOLD_ROOM - 8;
	pw_record_fold_row(&c, fn);
	assert_int_equal(pw_tls_fold.used, used);
	assert_int_equal(pw_tls_fold.busy, 0);
	/* a tail already open stays its owner's */
	pw_fold_open(99);
	assert_int_equal(pw_tls_fold.owner, 8);
	memset(&pw_tls_fold, 0, sizeof pw_tls_fold);
	/* a record being written (a signal handler's call came): not opened */
	pw_tls_fold.base = tail[0];
	pw_tls_fold.busy = 1;
	pw_fold_open(99);
	assert_int_equal(pw_tls_fold.owner, 0);
	/* no buffer yet (the thread's first call): the thread's is made, opened there */
	memset(&pw_tls_fold, 0, sizeof pw_tls_fold);
	if (!pw_g.opt.buffer_bytes)
		pw_g.opt.buffer_bytes = 64 * 1024; /* no options were read here */
	pw_fold_open(99);
	assert_int_equal(pw_tls_fold.owner, 99);
	assert_non_null(pw_tls_fold.base);
	assert_true(pw_tls_fold.end - pw_tls_fold.base > PW_FOLD_ROOM);
	memset(&pw_tls_fold, 0, sizeof pw_tls_fold);
}

/* Kept per-row text gives the same line as writing every member. */
static void kept_row_text_is_the_same(void **state)
{
	(void)state;
	int v = 1;
	struct pw_call c = call_of(&pw_cudart_desc[PW_CUDART_ID(cudaDeviceCanAccessPeer)], cudaSuccess);
	c.a[0] = (uintptr_t)&v;
	c.parent = 3;
	for (int k = 0; k < 2; k++) { /* first made, then kept */
		size_t n = pw_record_call_into(rec, sizeof rec, &c);
		json_t *j = decode(n);
		assert_string_equal(STR(j, "vendor"), "cuda");
		assert_string_equal(STR(j, "layer"), "runtime");
		assert_string_equal(STR(j, "api"), "cudaDeviceCanAccessPeer");
		assert_string_equal(STR(j, "variant"), "");
		assert_string_equal(STR(j, "family"), "peer");
		assert_string_equal(STR(j, "op"), "peer_query");
		assert_int_equal(INT(j, "ret"), 0);
		assert_string_equal(STR(j, "ret_name"), "cudaSuccess");
		assert_int_equal(INT(j, "parent"), 3);
		assert_int_equal(INT(j, "dur_ns"), 100);
		json_decref(j);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(every_snapshot_has_its_writer),
	    cmocka_unit_test(inline_rows_write_the_general_bytes),
	    cmocka_unit_test(common_calls_are_small),
	    cmocka_unit_test(pointed_to_memory_is_taken_at_the_call),
	    cmocka_unit_test(failed_calls_save_no_out_parameter),
	    cmocka_unit_test(partial_records_are_refused),
	    cmocka_unit_test(runs_become_lines),
	    cmocka_unit_test(kept_row_text_is_the_same),
	    cmocka_unit_test(folded_calls_say_so),
	};
	return cmocka_run_group_tests_name("record", tests, NULL, NULL);
}
