/*
 * The analyzer's reader (analyzers/read/): line validation, files and
 * directories, the line limit, .partial tails, the pre-phase, and the
 * containers and histogram the reports build on (analyzers/base/).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <cmocka.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/hist.h"
#include "base/show.h"
#include "base/table.h"
#include "base/util.h"
#include "model/apistats.h"
#include "model/copies.h"
#include "model/findings.h"
#include "model/ipclife.h"
#include "model/managed.h"
#include "model/umfx.h"
#include "read/files.h"
#include "read/json.h"
#include "read/lines.h"
#include "read/parse.h"
#include "read/reader.h"
#include "read/scan.h"

#define HEADER                                                                                              \
	"{\"type\":\"header\",\"format\":\"peerwatch\",\"version\":1,\"pid\":42,\"ppid\":1,\"host\":\"h\"," \
	"\"rank\":3,\"argv\":[\"/bin/prog\",\"a\"],\"t0_mono_ns\":100,\"t0_real_ns\":200,"                  \
	"\"options\":{\"mode\":\"warn\"},\"vendors\":{\"cuda\":{\"library\":\"libcuda.so.1\","              \
	"\"driver_version\":13000}},\"modules\":[{\"path\":\"/bin/prog\",\"base\":\"0x1000\","              \
	"\"build_id\":\"abcd\"}]}"
#define CALL(seq)                                                                                        \
	"{\"type\":\"call\",\"seq\":" #seq ",\"tid\":42,\"vendor\":\"cuda\",\"api\":\"cuMemcpyPeer\","   \
	"\"variant\":\"\",\"family\":\"copy\",\"t_ns\":" #seq "000,\"dur_ns\":5,\"ret\":0,"              \
	"\"ret_name\":\"CUDA_SUCCESS\",\"args\":{\"dst\":\"0x10\",\"dst_dev\":1,\"src\":\"0x20\",\"src_" \
	"dev\":0,"                                                                                       \
	"\"bytes\":64}}"
#define FOOTER                                                                                   \
	"{\"type\":\"footer\",\"events\":2,\"dropped\":0,\"t_end_ns\":9000,\"reason\":\"exit\"," \
	"\"modules\":[{\"path\":\"/lib/x.so\",\"base\":\"0x2000\",\"build_id\":null}]}"

/* The event's strings live in the parsed line: the last one is kept until
 * the next call. */
static enum pw_line_kind parse(const char *line, struct pw_event *ev, char *err)
{
	static json_t *root;
	static struct vec stack;
	json_decref(root);
	vec_free(&stack);
	vec_init(&stack, sizeof(uint64_t));
	return pw_parse_line(line, strlen(line), ev, &stack, &root, err, 512);
}

static void a_call(void **state)
{
	(void)state;
	struct pw_event ev;
	char err[512];
	struct vec stack;
	json_t *root;
	vec_init(&stack, sizeof(uint64_t));
	const char *l =
	    "{\"type\":\"call\",\"seq\":7,\"tid\":9,\"vendor\":\"cuda\",\"api\":\"cuIpcOpenMemHandle\","
	    "\"variant\":\"_v2\",\"family\":\"ipc\",\"t_ns\":1000,\"dur_ns\":20,\"ret\":201,\"ret_name\":"
	    "null,"
	    "\"parent\":3,\"cur_dev\":1,\"args\":{\"handle\":\"" /* 128 digits */
	    "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"
	    "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"
	    "\",\"flags\":1,\"flags_names\":\"CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS\"},"
	    "\"stack\":[\"0x401000\",\"0x7f0000001234\"],\"new_member\":[1]}";
	assert_int_equal(pw_parse_line(l, strlen(l), &ev, &stack, &root, err, sizeof err), PW_LINE_EVENT);
	assert_int_equal(ev.type, PW_EV_CALL);
	assert_int_equal(ev.seq, 7);
	assert_int_equal(ev.tid, 9);
	assert_string_equal(ev.api, "cuIpcOpenMemHandle");
	assert_string_equal(ev.variant, "_v2");
	assert_null(ev.ret_name);
	assert_int_equal(ev.ret, 201);
	assert_true(ev.has_parent);
	assert_int_equal(ev.parent, 3);
	assert_int_equal(ev.cur_dev, 1);
	assert_int_equal(ev.nstack, 2);
	assert_int_equal(ev.stack[1], 0x7f0000001234ull);
	char h[129];
	assert_true(pw_arg_handle(&ev, "handle", h));
	assert_int_equal(strlen(h), 128);
	uint64_t flags;
	assert_true(pw_arg_u64(&ev, "flags", &flags));
	assert_int_equal(flags, 1);
	assert_int_equal(pw_arg_dev(&ev, "ptr_dev"), PW_DEV_NONE);
	json_decref(root);
	vec_free(&stack);
}

/* The fast path (parse.c, scan.h) takes a call of the plain shape, and
 * leaves every other line — valid or not — to the full parse, with the
 * same event or the same message either way. */
static void fast_path(void **state)
{
	(void)state;
	struct pw_event ev;
	char err[512];
	const char *plain =
	    "{\"type\":\"call\",\"seq\":12,\"tid\":4,\"vendor\":\"cuda\",\"api\":\"cuMemPrefetchAsync\","
	    "\"variant\":\"_v2\",\"family\":\"managed\",\"t_ns\":100,\"dur_ns\":7,\"ret\":-3,"
	    "\"ret_name\":null,\"cur_dev\":null,\"parent\":2,\"parent_time\":true,\"layer\":\"runtime\","
	    "\"args\":{\"ptr\":\"0x7f0000\",\"ptr_dev\":0,\"bytes\":4096,\"location\":{\"type\":\"device\","
	    "\"id\":3},\"flags\":0,\"stream\":\"0x10\"},\"stack\":[\"0x401000\"],"
	    "\"suppressed\":[\"ipc.free-while-open\",\"x.y\"]}";
	assert_int_equal(parse(plain, &ev, err), PW_LINE_EVENT);
	assert_true(pw_parse_was_fast());
	assert_null(ev.args); /* not built until asked */
	assert_int_equal(ev.seq, 12);
	assert_int_equal(ev.ret, -3);
	assert_null(ev.ret_name);
	assert_int_equal(ev.cur_dev, PW_DEV_NONE);
	assert_true(ev.has_parent && ev.parent == 2 && ev.parent_time && !ev.implicit);
	assert_string_equal(ev.layer, "runtime");
	assert_string_equal(ev.op, "managed_prefetch");
	assert_int_equal(ev.nstack, 1);
	uint64_t u;
	assert_true(pw_arg_u64(&ev, "bytes", &u) && u == 4096);
	assert_true(pw_arg_hex(&ev, "ptr", &u) && u == 0x7f0000);
	assert_int_equal(pw_arg_dev(&ev, "ptr_dev"), 0);
	assert_false(pw_arg_is_array(&ev, "location"));
	assert_null(pw_arg_str(&ev, "bytes"));
	json_t *args = pw_ev_args(&ev);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(args, "location"), "id")), 3);
	assert_ptr_equal(pw_ev_args(&ev), args); /* built once */
	struct pw_location loc;
	assert_true(pw_arg_location(&ev, &loc));
	assert_string_equal(loc.type, "device");
	assert_true(loc.has_id && loc.id == 3);
	const char *rule;
	assert_true(pw_ev_suppressed(&ev, 1, &rule));
	assert_string_equal(rule, "x.y");
	assert_false(pw_ev_suppressed(&ev, 2, &rule));
	/* detached (a helper thread's event for the reader): its args and
	 * suppressions outlive the thread's next line, whether the line's copy
	 * was the thread's (and is copied) or the caller's (and stays there) */
	static const char other[] =
	    "{\"type\":\"call\",\"seq\":13,\"tid\":8,\"vendor\":\"hip\",\"api\":\"hipFree\","
	    "\"variant\":\"\",\"family\":\"managed\",\"t_ns\":1,\"dur_ns\":1,\"ret\":0,"
	    "\"ret_name\":\"hipSuccess\",\"args\":{\"ptr\":\"0x99\"}}";
	struct vec dstack;
	vec_init(&dstack, sizeof(uint64_t));
	size_t plain_len = strlen(plain), size_copied = 0;
	for (int kept = 0; kept < 2; kept++) {
		char *copy = kept ? malloc(PW_SCAN_COPY_SIZE(plain_len)) : NULL;
		assert_true(pw_parse_fast_line(plain, plain_len, &ev, &dstack, copy));
		assert_int_equal(ev.flat->kept, kept);
		size_t size = pw_event_detach_size(&ev);
		if (kept)
			assert_true(size + plain_len <= size_copied); /* no second copy of the line */
		size_copied = size;
		void *mem = malloc(size);
		struct pw_event *d = pw_event_detach(&ev, mem);
		if (kept)
			assert_true(d->api > copy && d->api < copy + plain_len);
		assert_true(pw_parse_fast_line(other, strlen(other), &ev, &dstack, NULL));
		assert_false(ev.flat->kept); /* the caller's copy was for one line */
		assert_string_equal(d->api, "cuMemPrefetchAsync");
		assert_string_equal(d->layer, "runtime");
		assert_true(pw_arg_u64(d, "bytes", &u) && u == 4096);
		assert_true(pw_arg_hex(d, "ptr", &u) && u == 0x7f0000);
		assert_string_equal(pw_arg_str(d, "stream"), "0x10");
		assert_null(pw_arg_str(d, "api")); /* a member of the call, not of its args */
		assert_true(d->nstack == 1 && d->stack[0] == 0x401000);
		assert_true(pw_ev_suppressed(d, 0, &rule));
		assert_string_equal(rule, "ipc.free-while-open");
		assert_true(pw_ev_suppressed(d, 1, &rule));
		assert_string_equal(rule, "x.y");
		assert_false(pw_ev_suppressed(d, 2, &rule));
		memset(&loc, 0xff, sizeof loc);
		assert_true(pw_arg_location(d, &loc)); /* from the detached tokens */
		assert_string_equal(loc.type, "device");
		assert_true(loc.has_id && loc.id == 3 && loc.type_num == 0);
		json_t *dargs = pw_ev_args(d);
		assert_int_equal(
		    json_integer_value(json_object_get(json_object_get(dargs, "location"), "id")), 3);
		assert_int_equal(json_object_size(dargs), 6);
		/* one without suppressions has none detached */
		free(mem);
		mem = malloc(pw_event_detach_size(&ev));
		d = pw_event_detach(&ev, mem);
		assert_false(pw_ev_suppressed(d, 0, &rule));
		assert_true(pw_arg_hex(d, "ptr", &u) && u == 0x99);
		pw_ev_args_done();
		free(mem);
		free(copy);
	}
	vec_free(&dstack);
	/* a location of a numeric type, from the tokens and from the tree */
	static const char numloc[] =
	    "{\"type\":\"call\",\"seq\":14,\"tid\":8,\"vendor\":\"cuda\","
	    "\"api\":\"cuMemPrefetchAsync\",\"variant\":\"_v2\",\"family\":\"managed\","
	    "\"t_ns\":1,\"dur_ns\":1,\"ret\":0,\"ret_name\":\"CUDA_SUCCESS\","
	    "\"args\":{\"ptr\":\"0x99\",\"location\":{\"type\":7,\"id\":-2}}}";
	for (int full = 0; full < 2; full++) {
		pw_parse_fast = !full;
		assert_int_equal(parse(numloc, &ev, err), PW_LINE_EVENT);
		assert_int_equal(pw_parse_was_fast(), !full);
		assert_true(pw_arg_location(&ev, &loc));
		assert_true(!loc.type && loc.type_num == 7 && loc.has_id && loc.id == -2);
	}
	pw_parse_fast = true;
	assert_int_equal(parse(other, &ev, err), PW_LINE_EVENT);
	assert_false(pw_arg_location(&ev, &loc)); /* none */
	pw_parse_fast = false;                    /* the same from the full parse */
	assert_int_equal(parse(plain, &ev, err), PW_LINE_EVENT);
	pw_parse_fast = true;
	assert_false(pw_parse_was_fast());
	assert_true(pw_ev_suppressed(&ev, 0, &rule));
	assert_string_equal(rule, "ipc.free-while-open");
	assert_false(pw_ev_suppressed(&ev, 2, &rule));

	/* valid, but not plain: the full parse reads them, to the same values */
	static const char *const not_plain[] = {
	    "\"api\":\"cuMemcpy\\u0050eer\"",                      /* an escape */
	    "\"api\":\"cuMemcpyPeer\",\"note\":\"\xc3\xa9\"",      /* non-ASCII */
	    "\"api\":\"cuMemcpyPeer\",\"w\":1.5",                  /* a real number */
	    "\"api\":\"cuMemcpyPeer\",\"w\":18446744073709551615", /* beyond 2^63-1 */
	    " \"api\" : \"cuMemcpyPeer\" ",                        /* spaces: still plain */
	};
	for (size_t i = 0; i < sizeof not_plain / sizeof *not_plain; i++) {
		char line[1024];
		snprintf(
		    line, sizeof line,
		    "{\"type\":\"call\",\"seq\":1,\"tid\":1,\"vendor\":\"cuda\",%s,\"variant\":\"\","
		    "\"family\":\"copy\",\"t_ns\":1,\"dur_ns\":1,\"ret\":0,\"ret_name\":\"CUDA_SUCCESS\","
		    "\"args\":{\"dst\":\"0x10\",\"dst_dev\":1,\"src\":\"0x20\",\"src_dev\":0,\"bytes\":64}}",
		    not_plain[i]);
		assert_int_equal(parse(line, &ev, err), PW_LINE_EVENT);
		if (pw_parse_was_fast() != (i == 4))
			fail_msg("case %zu: fast path %s", i, pw_parse_was_fast() ? "taken" : "not taken");
		assert_string_equal(ev.api, "cuMemcpyPeer");
		assert_true(pw_arg_u64(&ev, "bytes", &u) && u == 64);
		assert_int_equal(pw_arg_dev(&ev, "dst_dev"), 1);
	}

	/* plain but wrong: the full parse names what is wrong */
	static const struct {
		const char *args, *msg;
	} wrong[] = {
	    {"{\"bytes\":\"64\"}", "\"args.bytes\" must be a non-negative integer, not a string"},
	    {"{\"ptr\":\"0xzz\"}", "\"args.ptr\" is not a 64-bit hex value"},
	    {"{\"location\":{\"id\":3}}", "missing member \"args.location.type\""},
	    {"{\"copies\":[{\"dst\":\"0x1\"},7]}", "args.copies"},
	    /* valid JSON, but which of the two is the value is the reader's guess */
	    {"{\"bytes\":64,\"bytes\":32}", "a member named twice in one object"},
	};
	for (size_t i = 0; i < sizeof wrong / sizeof *wrong; i++) {
		char line[1024];
		snprintf(
		    line, sizeof line,
		    "{\"type\":\"call\",\"seq\":1,\"tid\":1,\"vendor\":\"cuda\",\"api\":\"cuMemcpyPeer\","
		    "\"variant\":\"\",\"family\":\"copy\",\"t_ns\":1,\"dur_ns\":1,\"ret\":0,"
		    "\"ret_name\":\"CUDA_SUCCESS\",\"args\":%s}",
		    wrong[i].args);
		err[0] = 0;
		assert_int_equal(parse(line, &ev, err), PW_LINE_BAD);
		assert_false(pw_parse_was_fast());
		if (!strstr(err, wrong[i].msg))
			fail_msg("case %zu: \"%s\" does not say \"%s\"", i, err, wrong[i].msg);
	}
	/* the members of the call itself */
	assert_int_equal(parse("{\"type\":\"call\",\"seq\":0}", &ev, err), PW_LINE_BAD);
	assert_false(pw_parse_was_fast());
}

/* A document written a piece at a time (base/show.h) is laid out byte for
 * byte as json_print lays out the same document whole. */
static void jout_layout(void **state)
{
	(void)state;
	const char *doc_text = "{\"a\": [], \"b\": {}, \"c\": [1, {\"d\": [2, 3], \"e\": {}}, [[]]], "
	                       "\"f\": \"x\\ny\", \"g\": [{\"h\": null}]}";
	json_t *doc = json_loads(doc_text, JSON_DECODE_ANY, NULL);
	assert_non_null(doc);
	char *want = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(doc);
	char path[] = "/tmp/pw-jout.XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	fflush(stdout);
	int saved = dup(1);
	assert_true(dup2(fd, 1) == 1);
	struct jout o = {0};
	jout_open(&o, NULL, '{');
	jout_open(&o, "a", '[');
	jout_close(&o, ']');
	jout_put(&o, "b", json_object());
	jout_open(&o, "c", '[');
	jout_put(&o, NULL, json_integer(1));
	jout_open(&o, NULL, '{');
	jout_put(&o, "d", json_pack("[ii]", 2, 3));
	jout_open(&o, "e", '{');
	jout_close(&o, '}');
	jout_close(&o, '}');
	jout_put(&o, NULL, json_pack("[[]]"));
	jout_close(&o, ']');
	jout_put(&o, "f", json_string("x\ny"));
	jout_open(&o, "g", '[');
	jout_put(&o, NULL, json_pack("{s:n}", "h"));
	jout_close(&o, ']');
	jout_close(&o, '}');
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	char got[1024] = "";
	ssize_t n = pread(fd, got, sizeof got - 1, 0);
	close(fd);
	unlink(path);
	assert_true(n > 0);
	got[n] = 0;
	size_t wl = strlen(want);
	assert_int_equal((size_t)n, wl + 1); /* and the newline */
	assert_memory_equal(got, want, wl);
	assert_int_equal(got[wl], '\n');
	free(want);
}

static void kinds_of_lines(void **state)
{
	(void)state;
	struct pw_event ev;
	char err[512];
	assert_int_equal(parse(HEADER, &ev, err), PW_LINE_HEADER);
	assert_int_equal(parse(FOOTER, &ev, err), PW_LINE_FOOTER);
	assert_int_equal(parse("{\"type\":\"future_event\",\"x\":1}", &ev, err), PW_LINE_OTHER);
	assert_int_equal(parse("{\"type\":\"gpu_time\",\"call\":4,\"gpu_ns\":77}", &ev, err), PW_LINE_EVENT);
	assert_int_equal(ev.type, PW_EV_GPU_TIME);
	assert_int_equal(ev.gpu_ns, 77);
	assert_int_equal(
	    parse("{\"type\":\"violation\",\"seq\":5,\"call\":4,\"rule\":\"r.x\",\"severity\":\"error\","
	          "\"message\":\"m\",\"t_ns\":9,\"tid\":3}",
	          &ev, err),
	    PW_LINE_EVENT);
	assert_int_equal(ev.type, PW_EV_VIOLATION);
	assert_true(ev.has_time);
	assert_string_equal(ev.rule, "r.x");
}

/* Each refused line says which member is wrong and how. */
static void refused_lines(void **state)
{
	(void)state;
	static const struct {
		const char *line, *msg;
	} cases[] = {
	    {"", "not valid JSON"},
	    {"{\"type\":\"call\"", "not valid JSON"},
	    {"\x01\x02\xff", "not valid JSON"},
	    {"[1]", "must be a JSON object"},
	    {"{}", "missing member \"type\""},
	    {"{\"type\":7}", "\"type\" must be a string, not an integer"},
	    {"{\"type\":\"call\",\"seq\":0}", "\"seq\" is 0, less than 1"},
	    {"{\"type\":\"call\",\"seq\":\"1\"}", "\"seq\" must be an integer, not a string"},
	    {"{\"type\":\"gpu_time\",\"call\":1,\"gpu_ns\":-5}", "\"gpu_ns\" is -5, less than 0"},
	    {"{\"type\":\"violation\",\"seq\":1,\"call\":1,\"rule\":\"\",\"severity\":\"error\",\"message\":"
	     "\"m\"}",
	     "\"rule\" is empty"},
	    {"{\"type\":\"violation\",\"seq\":1,\"call\":1,\"rule\":\"r\",\"severity\":\"error\",\"message\":"
	     "\"m\","
	     "\"stack\":[\"0x1\",\"0xzz\"]}",
	     "\"stack[1]\" is not a hex address"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct pw_event ev;
		char err[512] = "";
		assert_int_equal(parse(cases[i].line, &ev, err), PW_LINE_BAD);
		if (!strstr(err, cases[i].msg))
			fail_msg("case %zu: \"%s\" does not say \"%s\"", i, err, cases[i].msg);
	}
}

static void refused_args(void **state)
{
	(void)state;
	static const struct {
		const char *args, *msg;
	} cases[] = {
	    {"{\"bytes\":-1}", "\"args.bytes\" must be a non-negative integer"},
	    {"{\"bytes\":1.5}", "\"args.bytes\" must be a non-negative integer, not a real number"},
	    {"{\"ptr\":7}", "\"args.ptr\" must be a hex string"},
	    {"{\"ptr\":\"0x12345678901234567\"}", "not a 64-bit hex value"},
	    {"{\"src_dev\":\"0\"}", "\"args.src_dev\" must be a device ordinal or null"},
	    {"{\"dst_dev\":4294967296}", "not a device ordinal"},
	    {"{\"handle\":\"abcd\"}", "128 hex digits"},
	    {"{\"location\":{\"type\":\"device\"}}", "missing member \"args.location.id\""},
	    {"{\"location\":{\"type\":\"device\",\"id\":\"0\"}}", "\"args.location.id\" must be an integer"},
	    {"{\"attrs\":[{}]}", "\"args.attrs[0]\" must be a name or a number"},
	    {"{\"advice_name\":3}", "must be a string or null"},
	    {"{\"copy\":{}}", "\"args.copy\" must be null"},
	    /* beyond 2^63-1: only where the library writes unsigned values */
	    {"{\"value\":9223372036854775808}",
	     "\"args.value\" must be an integer, not an integer beyond 2^63-1"},
	    {"{\"src_type\":18446744073709551615}",
	     "\"args.src_type\" must be a string, not an integer beyond"},
	    {"{\"bytes\":18446744073709551616}", "too big integer"},
	    {"{\"bytes\":-9223372036854775809}", "too big negative integer"},
	    /* the reader's own marker, forged beside a number it took out */
	    {"{\"bytes\":9223372036854775808,\"x\":0.5}", "ambiguous"},
	    {"{\"attrs\":\"7\"}", "\"args.attrs\" is not a 64-bit hex value"},
	    {"{\"file_id_unique\":0}", "\"args.file_id_unique\" must be true or false"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char line[1024], err[512] = "";
		struct pw_event ev;
		snprintf(
		    line, sizeof line,
		    "{\"type\":\"call\",\"seq\":1,\"tid\":1,\"vendor\":\"cuda\",\"api\":\"x\",\"variant\":"
		    "\"\","
		    "\"family\":\"copy\",\"t_ns\":1,\"dur_ns\":1,\"ret\":0,\"ret_name\":null,\"args\":%s}",
		    cases[i].args);
		assert_int_equal(parse(line, &ev, err), PW_LINE_BAD);
		if (!strstr(err, cases[i].msg))
			fail_msg("case %zu: \"%s\" does not say \"%s\"", i, err, cases[i].msg);
		if (strncmp(err, "not valid JSON", 14)) /* which event, when it could be parsed */
			assert_non_null(strstr(err, "call seq 1: "));
	}
}

/* What the library writes and an earlier reader refused: sizes of 2^63 and
 * more, a batch copy's attribute pointer, a finding made at exit. */
static void what_the_library_writes(void **state)
{
	(void)state;
	struct pw_event ev;
	char err[512] = "";
	uint64_t v = 0;
	const char *call =
	    "{\"type\":\"call\",\"seq\":1,\"tid\":1,\"vendor\":\"cuda\",\"api\":\"cuMemcpyBatchAsync\","
	    "\"variant\":\"_v2\",\"family\":\"copy\",\"t_ns\":1,\"dur_ns\":1,\"ret\":1,"
	    "\"ret_name\":null,\"implicit\":true,\"args\":{\"count\":2,\"bytes\":9223372036854775807,"
	    "\"copies\":[{\"dst\":\"0x10\",\"dst_dev\":1,\"src\":\"0x20\",\"src_dev\":0,"
	    "\"bytes\":9223372036854775808},{\"dst\":\"0x30\",\"dst_dev\":1,\"src\":\"0x40\","
	    "\"src_dev\":0,\"bytes\":18446744073709551615}],\"attrs\":\"0x7ffe3ad99f30\","
	    "\"num_attrs\":1,\"flags\":18446744073709551615,\"dev\":-2147483648,"
	    "\"stream\":\"0x2\"}}";
	assert_int_equal(parse(call, &ev, err), PW_LINE_EVENT);
	assert_true(pw_arg_u64(&ev, "flags", &v));
	assert_true(v == UINT64_MAX);
	assert_true(pw_arg_u64(&ev, "bytes", &v));
	assert_true(v == (uint64_t)INT64_MAX);
	json_t *copies = json_object_get(pw_ev_args(&ev), "copies");
	assert_true(pw_json_u64(json_object_get(json_array_get(copies, 0), "bytes"), &v));
	assert_true(v == (uint64_t)1 << 63);
	assert_true(pw_json_is_big(json_object_get(json_array_get(copies, 1), "bytes")));
	assert_true(pw_json_u64(json_object_get(json_array_get(copies, 1), "bytes"), &v));
	assert_true(v == UINT64_MAX);
	assert_int_equal(pw_arg_dev(&ev, "dev"), INT32_MIN);
	/* the next line has its own numbers: no marker of the last one is left */
	assert_int_equal(parse(CALL(2), &ev, err), PW_LINE_EVENT);
	json_t *real = json_real(0.5);
	assert_false(pw_json_is_big(real));
	json_decref(real);
	/* a finding made at exit has no call */
	assert_int_equal(parse("{\"type\":\"violation\",\"seq\":7,\"tid\":9,\"t_ns\":5,\"vendor\":\"cuda\","
	                       "\"api\":\"exit\",\"rule\":\"vmm.leak\",\"severity\":\"warning\","
	                       "\"message\":\"m\"}",
	                       &ev, err),
	                 PW_LINE_EVENT);
	assert_false(ev.has_call);
	assert_true(ev.has_time);
	assert_string_equal(ev.api, "exit");
	assert_int_equal(parse("{\"type\":\"violation\",\"seq\":7,\"call\":6,\"rule\":\"r\","
	                       "\"severity\":\"error\",\"message\":\"m\"}",
	                       &ev, err),
	                 PW_LINE_EVENT);
	assert_true(ev.has_call);
	assert_int_equal(ev.call, 6);
}

static void header_and_footer(void **state)
{
	(void)state;
	struct pw_file f = {0};
	char err[512];
	vec_init(&f.modules, sizeof(struct pw_module));
	json_t *h = json_loads(HEADER, 0, NULL), *ft = json_loads(FOOTER, 0, NULL);
	assert_int_equal(pw_file_header(&f, h, err, sizeof err), 0);
	assert_string_equal(f.host, "h");
	assert_int_equal(f.pid, 42);
	assert_true(f.has_rank);
	assert_int_equal(f.rank, 3);
	assert_int_equal(f.argc, 2);
	assert_string_equal(pw_file_program(&f), "prog");
	assert_string_equal(f.driver_lib, "libcuda.so.1");
	assert_int_equal(f.driver_version, 13000);
	assert_int_equal(pw_file_footer(&f, ft, err, sizeof err), 0);
	assert_true(f.footer);
	assert_int_equal(f.modules.len, 2); /* the footer's new module is added */
	json_decref(h);
	json_decref(ft);
	pw_file_clear(&f);
	vec_free(&f.modules);

	vec_init(&f.modules, sizeof(struct pw_module));
	h = json_loads(
	    "{\"type\":\"header\",\"format\":\"peerwatch\",\"version\":2,\"pid\":1,\"host\":\"h\"}", 0, NULL);
	assert_int_equal(pw_file_header(&f, h, err, sizeof err), -1);
	assert_non_null(strstr(err, "version 2 is not known"));
	json_decref(h);
	h = json_loads("{\"type\":\"header\",\"format\":\"other\",\"version\":1,\"pid\":1,\"host\":\"h\"}", 0,
	               NULL);
	assert_int_equal(pw_file_header(&f, h, err, sizeof err), -1);
	assert_non_null(strstr(err, "not a peerwatch trace"));
	json_decref(h);
	pw_file_clear(&f);
	vec_free(&f.modules);
}

/* ---- reading files ---- */

struct counts {
	uint64_t pre, events, files;
};

/* -j 1: the one partial is the report itself */
static void *cnt_new(void *report)
{
	return report;
}
static void cnt_merge(void *report, void *partial)
{
	(void)report;
	(void)partial;
}
static void *cnt_begin(void *partial, const struct pw_file *f)
{
	(void)f;
	struct counts *c = partial;
	c->files++;
	return NULL;
}
static const char *const cnt_keys[] = {"\"seq\":2,", NULL};
static void cnt_pre(void *partial, void *fctx, const struct pw_file *f, const struct pw_event *ev)
{
	(void)fctx;
	(void)f;
	struct counts *c = partial;
	c->pre++;
	assert_int_equal(ev->seq, 2);
}
static void cnt_event(void *partial, void *fctx, const struct pw_file *f, const struct pw_event *ev)
{
	(void)fctx;
	(void)f;
	(void)ev;
	((struct counts *)partial)->events++;
}
static const struct pw_sink_ops cnt_ops = {.partial_new = cnt_new,
                                           .partial_merge = cnt_merge,
                                           .file_begin = cnt_begin,
                                           .pre_keys = cnt_keys,
                                           .pre_event = cnt_pre,
                                           .event = cnt_event};

static char dir[64];

static void write_file(const char *name, const char *text)
{
	char *p = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	free(p);
}

static int make_dir(void **state)
{
	(void)state;
	snprintf(dir, sizeof dir, "/tmp/pw-test-reader.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
	(void)state;
	char *cmd = xasprintf("rm -rf '%s'", dir);
	int r = system(cmd);
	free(cmd);
	return r;
}

static int read_dir(struct pw_input *in, struct counts *c, bool strict)
{
	char *paths[] = {dir};
	memset(c, 0, sizeof *c);
	memset(in, 0, sizeof *in);
	int st = pw_input_find(in, paths, 1);
	struct pw_sink sink = {&cnt_ops, c};
	struct pw_read_opts o = {.jobs = 1, .strict = strict, .quiet = true};
	int st2 = pw_input_read(in, &o, &sink, 1);
	return st > st2 ? st : st2;
}

static void files_and_phases(void **state)
{
	(void)state;
	char *sub = xasprintf("%s/sub/deeper", dir);
	char *cmd = xasprintf("mkdir -p '%s' && ln -s .. '%s/loop'", sub, sub);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(sub);
	write_file("a.pw.jsonl", HEADER "\n" CALL(1) "\n" CALL(2) "\n" FOOTER "\n");
	write_file("sub/deeper/b.pw.jsonl.partial", HEADER "\n" CALL(1) "\n" CALL(2) "\n{\"type\":\"ca");
	write_file("sub/ignored.txt", "not a trace\n");
	struct pw_input in;
	struct counts c;
	assert_int_equal(read_dir(&in, &c, false), PW_READ_OK);
	assert_int_equal(in.n, 2); /* recursively, through no loop, by name */
	assert_int_equal(c.files, 2);
	assert_int_equal(c.events, 4);
	assert_int_equal(c.pre, 2); /* one seq 2 line in each */
	const struct pw_file *a = &in.files[0], *b = &in.files[1];
	assert_true(a->footer);
	assert_false(a->partial);
	assert_int_equal(a->calls, 2);
	assert_true(b->partial);
	assert_true(b->tail_cut);
	assert_int_equal(b->bad_lines, 0); /* a .partial's cut tail is expected */
	pw_input_free(&in);
}

/* ---- nesting: parent_recorded, in the pre-phase and the main one ---- */

struct nest_counts {
	uint64_t pre_nested, nested, orphans, pre_done, seqs_known;
};
static void *nest_new(void *report)
{
	return report;
}
static const char *const nest_keys[] = {"\"parent\"", NULL};
static void nest_pre(void *partial, void *fctx, const struct pw_file *f, const struct pw_event *ev)
{
	(void)fctx;
	(void)f;
	((struct nest_counts *)partial)->pre_nested += ev->parent_recorded;
}
static void nest_event(void *partial, void *fctx, const struct pw_file *f, const struct pw_event *ev)
{
	(void)fctx;
	(void)f;
	struct nest_counts *c = partial;
	c->nested += ev->parent_recorded;
	c->orphans += ev->has_parent && !ev->parent_recorded;
}
static void nest_pre_done(void *partial, void *fctx, const struct pw_file *f, const struct seqset *seqs)
{
	(void)fctx;
	(void)f;
	struct nest_counts *c = partial;
	c->pre_done++;
	c->seqs_known = seqset_has(seqs, 1) + seqset_has(seqs, 2) + seqset_has(seqs, 3) +
	                seqset_has(seqs, 6) + seqset_has(seqs, 99);
}
/* parent_recorded in the pre-phase too (a nesting scan of its own) */
static const struct pw_sink_ops nest_ops = {.partial_new = nest_new,
                                            .partial_merge = cnt_merge,
                                            .pre_keys = nest_keys,
                                            .pre_event = nest_pre,
                                            .pre_done = nest_pre_done,
                                            .event = nest_event,
                                            .nesting = true,
                                            .pre_nesting = true};
/* in the event phase only: the pre-phase's pass gathers the seqs */
static const struct pw_sink_ops nest_late_ops = {.partial_new = nest_new,
                                                 .partial_merge = cnt_merge,
                                                 .pre_keys = nest_keys,
                                                 .pre_event = nest_pre,
                                                 .pre_done = nest_pre_done,
                                                 .event = nest_event,
                                                 .nesting = true};

#define NESTED(seq, parent)                                                                                \
	"{\"type\":\"call\",\"seq\":" #seq                                                                 \
	",\"tid\":42,\"vendor\":\"cuda\",\"api\":\"cuMemcpyPeer\",\"variant\":"                            \
	"\"\",\"family\":\"copy\",\"t_ns\":5,\"dur_ns\":1,\"ret\":0,\"ret_name\":null,\"parent\":" #parent \
	",\"args\":{}}"

static void nesting(void **state)
{
	(void)state;
	/* a child written before its parent (seq 1), one whose parent is a
	 * violation's seq (not a call), one whose parent is not in the file,
	 * and a pretty-printed parent (spaces around the colons) */
	write_file(
	    "n.pw.jsonl",
	    HEADER "\n" NESTED(2, 1) "\n" CALL(1) "\n" NESTED(
	        4, 3) "\n"
	              "{\"type\":\"violation\",\"seq\":3,\"call\":1,\"rule\":\"r\",\"severity\":"
	              "\"error\",\"message\":\"m\"}\n" NESTED(5, 99) "\n" NESTED(
	                  7, 6) "\n"
	                        "{\"type\" : \"call\", \"seq\" : 6,\"tid\":1,\"vendor\":\"hip\",\"api\":"
	                        "\"hipMemcpyPeer\",\"variant\":\"\",\"family\":\"copy\",\"t_ns\":9,"
	                        "\"dur_ns\":1,\"ret\":0,\"ret_name\":null,\"args\":{}}\n" FOOTER "\n");
	char *paths[] = {dir};
	for (int late = 0; late < 2; late++) {
		struct pw_input in = {0};
		struct nest_counts c = {0};
		assert_int_equal(pw_input_find(&in, paths, 1), PW_READ_OK);
		struct pw_sink sink = {late ? &nest_late_ops : &nest_ops, &c};
		struct pw_read_opts o = {.jobs = 1, .quiet = true};
		assert_int_equal(pw_input_read(&in, &o, &sink, 1), PW_READ_OK);
		assert_int_equal(c.nested, 2);                /* seq 2 (parent 1) and 7 (parent 6) */
		assert_int_equal(c.pre_nested, late ? 0 : 2); /* known in the pre-phase already, if asked */
		assert_int_equal(c.orphans, 2);               /* parent 3 is a violation, 99 is not there */
		assert_int_equal(c.pre_done, 1);
		assert_int_equal(c.seqs_known, 3); /* the calls 1, 2 and 6, all known at its end */
		pw_input_free(&in);
	}
}

/* ---- a staged run (pre_all_done): every pre-phase before any event ---- */

struct staged {
	atomic_int all_done, pre_lines, events, nested, begins, ends, wrong;
	int all_done_calls;
	size_t partials;
};

struct stage_fctx {
	size_t file;
	int pre_done, pre, devices;
};

static void *stg_new(void *report)
{
	return report; /* the counters are atomic: one for every worker */
}

static void *stg_begin(void *partial, const struct pw_file *f)
{
	struct staged *s = partial;
	struct stage_fctx *c = xcalloc(1, sizeof *c);
	c->file = f->index;
	atomic_fetch_add(&s->begins, 1);
	atomic_fetch_add(&s->wrong, atomic_load(&s->all_done)); /* a file begun after the stage */
	return c;
}

static const char *const stg_keys[] = {"\"seq\":", NULL};

static void stg_pre(void *partial, void *fctx, const struct pw_file *f, const struct pw_event *ev)
{
	(void)ev;
	struct staged *s = partial;
	struct stage_fctx *c = fctx;
	atomic_fetch_add(&s->pre_lines, 1);
	atomic_fetch_add(&s->wrong, atomic_load(&s->all_done) + (c->file != f->index));
	c->pre++;
}

static void stg_pre_done(void *partial, void *fctx, const struct pw_file *f, const struct seqset *seqs)
{
	(void)partial;
	(void)seqs;
	struct stage_fctx *c = fctx;
	c->pre_done++;
	c->devices = (int)f->devices.len; /* all read by the end of its first phase */
}

static void stg_all_done(void *report, void *const *partials, size_t n, const struct pw_input *in)
{
	(void)in;
	struct staged *s = report;
	s->all_done_calls++;
	s->partials = n;
	for (size_t i = 0; i < n; i++)
		atomic_fetch_add(&s->wrong, partials[i] != report);
	atomic_store(&s->all_done, 1);
}

static void stg_event(void *partial, void *fctx, const struct pw_file *f, const struct pw_event *ev)
{
	struct staged *s = partial;
	struct stage_fctx *c = fctx;
	atomic_fetch_add(&s->events, 1);
	atomic_fetch_add(&s->nested, ev->parent_recorded);
	/* after every pre-phase, with the file's own state, its devices as they were */
	atomic_fetch_add(&s->wrong, !atomic_load(&s->all_done) + (c->file != f->index) + (c->pre_done != 1) +
	                                (c->devices != (int)f->devices.len));
}

static void stg_end(void *partial, void *fctx, const struct pw_file *f)
{
	struct staged *s = partial;
	struct stage_fctx *c = fctx;
	atomic_fetch_add(&s->ends, 1);
	atomic_fetch_add(&s->wrong, (c->file != f->index) + !atomic_load(&s->all_done));
	free(c);
}

static const struct pw_sink_ops stg_ops = {.partial_new = stg_new,
                                           .partial_merge = cnt_merge,
                                           .file_begin = stg_begin,
                                           .pre_keys = stg_keys,
                                           .pre_event = stg_pre,
                                           .pre_done = stg_pre_done,
                                           .event = stg_event,
                                           .file_end = stg_end,
                                           .nesting = true,
                                           .pre_all_done = stg_all_done};

#define DEVICE(ord)                                                                                      \
	"{\"type\":\"device\",\"vendor\":\"cuda\",\"ordinal\":" #ord ",\"count\":2,\"uuid\":\"GPU-" #ord \
	"\",\"bus_id\":null,\"name\":null,\"peers\":[]}"

/* Three small files and one read in segments (at -j 2 and more), each with
 * a device line (the large one's near its end, one written with its
 * members in another order), a nested call in every hundred, at -j 1 to 3. */
static void stages(void **state)
{
	(void)state;
	enum { BIG = 30000 };
	for (int i = 0; i < 3; i++) {
		char name[32];
		snprintf(name, sizeof name, "s%d.pw.jsonl", i);
		write_file(name, HEADER "\n" DEVICE(0) "\n" CALL(1) "\n" NESTED(3, 1) "\n" CALL(2) "\n" FOOTER
		                                                                                   "\n");
	}
	char *path = xasprintf("%s/big.pw.jsonl", dir);
	FILE *f = fopen(path, "w");
	free(path);
	assert_non_null(f);
	fputs(HEADER "\n", f);
	for (int seq = 1; seq <= BIG; seq++) {
		if (seq % 100 == 0)
			fprintf(f, "%s\n", NESTED(999999, 1));
		fprintf(
		    f,
		    "{\"type\":\"call\",\"seq\":%d,\"tid\":42,\"vendor\":\"cuda\",\"api\":\"cuMemcpyPeer\","
		    "\"variant\":\"\",\"family\":\"copy\",\"t_ns\":%d000,\"dur_ns\":5,\"ret\":0,"
		    "\"ret_name\":\"CUDA_SUCCESS\",\"args\":{\"dst\":\"0x10\",\"dst_dev\":1,\"src\":\"0x20\","
		    "\"src_dev\":0,\"bytes\":64,\"pad\":\"%0100d\"}}\n",
		    seq, seq, 0);
	}
	fputs(
	    DEVICE(
	        0) "\n{\"vendor\":\"cuda\",\"type\":\"device\",\"ordinal\":1,\"count\":2,\"uuid\":\"GPU-1\","
	           "\"bus_id\":null,\"name\":null,\"peers\":[]}\n",
	    f);
	fclose(f);
	char *paths[] = {dir};
	for (int jobs = 1; jobs <= 3; jobs++) {
		struct pw_input in = {0};
		struct staged s = {0};
		assert_int_equal(pw_input_find(&in, paths, 1), PW_READ_OK);
		struct pw_sink sink = {&stg_ops, &s};
		struct pw_read_opts o = {.jobs = jobs, .quiet = true};
		pw_input_read(&in, &o, &sink, 1);
		assert_int_equal(s.all_done_calls, 1);
		assert_int_equal(s.partials, (size_t)jobs);
		assert_int_equal(atomic_load(&s.wrong), 0);
		assert_int_equal(atomic_load(&s.begins), 4);
		assert_int_equal(atomic_load(&s.ends), 4);
		assert_int_equal(atomic_load(&s.pre_lines), 3 * 3 + BIG + BIG / 100);
		assert_int_equal(atomic_load(&s.events), 3 * 3 + BIG + BIG / 100);
		/* the small files' seq 3 in 1; the big one's nested calls name seq 1 */
		assert_int_equal(atomic_load(&s.nested), 3 + BIG / 100);
		for (size_t i = 0; i < in.n; i++)
			assert_int_equal(in.files[i].devices.len, strstr(in.files[i].path, "big") ? 2 : 1);
		pw_input_free(&in);
	}
}

/* A program still writing its trace: a line added between the stages is
 * read (as an event), and the reader says the file changed. */
static char *growing; /* the file stg_grow_all_done appends to */

static void stg_grow_all_done(void *report, void *const *partials, size_t n, const struct pw_input *in)
{
	stg_all_done(report, partials, n, in);
	FILE *f = fopen(growing, "a");
	assert_non_null(f);
	fputs(CALL(3) "\n", f);
	fclose(f);
}

static void changed_between_stages(void **state)
{
	(void)state;
	write_file("g.pw.jsonl.partial", HEADER "\n" CALL(1) "\n" CALL(2) "\n");
	growing = xasprintf("%s/g.pw.jsonl.partial", dir);
	char *err = xasprintf("%s/stderr", dir), *paths[] = {growing};
	struct pw_input in = {0};
	struct staged s = {0};
	assert_int_equal(pw_input_find(&in, paths, 1), PW_READ_OK);
	struct pw_sink_ops grow_ops = stg_ops; /* and a line added between the stages */
	grow_ops.pre_all_done = stg_grow_all_done;
	struct pw_sink sink = {&grow_ops, &s};
	struct pw_read_opts o = {.jobs = 1};
	fflush(stderr);
	int saved = dup(2), fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(saved >= 0 && fd >= 0);
	dup2(fd, 2);
	close(fd);
	int st = pw_input_read(&in, &o, &sink, 1);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	assert_int_equal(st, PW_READ_OK); /* said, not an error */
	assert_int_equal(atomic_load(&s.pre_lines), 2);
	assert_int_equal(atomic_load(&s.events), 3); /* the line added is read */
	FILE *f = fopen(err, "r");
	assert_non_null(f);
	char text[1024] = "";
	size_t n = fread(text, 1, sizeof text - 1, f);
	text[n] = 0;
	fclose(f);
	assert_non_null(strstr(text, "g.pw.jsonl.partial: written to while it was read"));
	pw_input_free(&in);
	free(err);
	free(growing);
}

/* an IPC handle or a pool pointer's export data: 64 bytes */
#define HEX128                                                             \
	"00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff" \
	"00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff"

static void new_members(void **state)
{
	(void)state;
	struct pw_event ev;
	char err[512];
	assert_int_equal(
	    parse("{\"type\":\"call\",\"seq\":1,\"tid\":1,\"vendor\":\"cuda\",\"api\":\"cuMemcpyBatchAsync\","
	          "\"variant\":\"\",\"family\":\"copy\",\"implicit\":true,\"layer\":\"runtime\",\"t_ns\":1,"
	          "\"dur_ns\":1,\"ret\":0,\"ret_name\":null,\"args\":{\"count\":2,\"bytes\":8,\"copies\":"
	          "[{\"dst\":\"0x10\",\"dst_dev\":1,\"src\":\"0x20\",\"src_dev\":0,\"bytes\":4}],"
	          "\"access\":[{\"dev\":1,\"flags\":\"readwrite\"}],\"handle\":\"0x11\","
	          "\"export_data\":\"" HEX128 "\"}}",
	          &ev, err),
	    PW_LINE_EVENT);
	assert_true(ev.implicit);
	assert_string_equal(ev.layer, "runtime");
	assert_int_equal(parse("{\"type\":\"call\",\"seq\":1,\"tid\":1,\"vendor\":\"level0\",\"api\":\"x\","
	                       "\"variant\":\"\",\"family\":\"copy\",\"t_ns\":1,\"dur_ns\":1,\"ret\":0,"
	                       "\"ret_name\":null,\"args\":{}}",
	                       &ev, err),
	                 PW_LINE_BAD);
	assert_non_null(strstr(err, "vendor \"level0\" is not one this reader knows"));
	assert_int_equal(parse("{\"type\":\"call\",\"seq\":1,\"tid\":1,\"vendor\":\"acl\",\"api\":\"x\","
	                       "\"variant\":\"\",\"family\":\"copy\",\"t_ns\":1,\"dur_ns\":1,\"ret\":0,"
	                       "\"ret_name\":null,\"args\":{\"copies\":[{\"src_dev\":\"0\"}]}}",
	                       &ev, err),
	                 PW_LINE_BAD);
	assert_non_null(strstr(err, "\"args.copies[0].src_dev\" must be a device ordinal"));
}

/* Traces written before events had "op": a call's and a violation's op
 * come from the hook tables by API name; an event's own "op" wins. */
static void ops_of_old_traces(void **state)
{
	(void)state;
	struct pw_event ev;
	char err[512];
	assert_int_equal(parse(CALL(1), &ev, err), PW_LINE_EVENT);
	assert_string_equal(ev.op, "peer_copy");
	assert_int_equal(parse("{\"type\":\"violation\",\"seq\":3,\"call\":1,\"api\":\"hipIpcOpenMemHandle\","
	                       "\"rule\":\"x\",\"severity\":\"error\",\"message\":\"m\"}",
	                       &ev, err),
	                 PW_LINE_EVENT);
	assert_string_equal(ev.op, "ipc_open");
	assert_int_equal(parse("{\"type\":\"violation\",\"seq\":3,\"api\":\"exit\",\"op\":\"vmm_exit\","
	                       "\"rule\":\"x\",\"severity\":\"error\",\"message\":\"m\"}",
	                       &ev, err),
	                 PW_LINE_EVENT);
	assert_string_equal(ev.op, "vmm_exit");
	assert_int_equal(parse("{\"type\":\"violation\",\"seq\":3,\"api\":\"exit\",\"rule\":\"x\","
	                       "\"severity\":\"error\",\"message\":\"m\"}",
	                       &ev, err),
	                 PW_LINE_EVENT);
	assert_null(ev.op);
}

/* Every row of the trace format's table is checked by the reader: each
 * member of a call event, of its args and of the objects in them, of a
 * violation and of a gpu_time event, given a real number (which no kind
 * is), makes the line refused with a message that names the member. */
static void every_row_checked(void **state)
{
	(void)state;
	static const struct pw_trace_field f[] = {PW_TRACE_FIELDS(PW_TRACE_FIELD_INIT)};
	const size_t n = sizeof f / sizeof *f;
	size_t tried = 0;
	for (size_t i = 0; i < n; i++) {
		const char *base = f[i].scope == PW_SC_VIOLATION
		                       ? "{\"type\":\"violation\",\"seq\":3,\"call\":1,\"rule\":\"x\","
		                         "\"severity\":\"error\",\"message\":\"m\"}"
		                   : f[i].scope == PW_SC_GPU_TIME
		                       ? "{\"type\":\"gpu_time\",\"call\":1,\"gpu_ns\":5,\"t_gpu_ns\":6}"
		                       : CALL(1);
		json_t *root = json_loads(base, 0, NULL), *args = json_object_get(root, "args"), *in = NULL;
		char path[160];
		if (f[i].scope == PW_SC_CALL || f[i].scope == PW_SC_VIOLATION ||
		    f[i].scope == PW_SC_GPU_TIME) {
			in = root;
			snprintf(path, sizeof path, "\"%s\"", f[i].key);
		} else if (f[i].scope == PW_SC_ARGS) {
			in = args;
			snprintf(path, sizeof path, "\"args.%s\"", f[i].key);
		} else {
			/* an object inside args: under the args member whose child scope it is */
			for (size_t j = 0; j < n && !in; j++) {
				if (f[j].scope != PW_SC_ARGS || f[j].child != f[i].scope)
					continue;
				in = json_object();
				bool many = f[j].kind == PW_J_OBJECTS;
				json_object_set_new(args, f[j].key,
				                    many ? json_pack("[O]", in) : json_incref(in));
				json_decref(in);
				snprintf(path, sizeof path, "\"args.%s%s.%s\"", f[j].key, many ? "[0]" : "",
				         f[i].key);
			}
		}
		if (!in) { /* the header's, the footer's and the device line's: read by their own parsers */
			json_decref(root);
			continue;
		}
		json_object_set_new(in, f[i].key, json_real(1.5));
		char *line = json_dumps(root, JSON_COMPACT), err[512];
		struct pw_event ev;
		if (parse(line, &ev, err) != PW_LINE_BAD || !strstr(err, path))
			fail_msg("%s (%s): not refused naming %s: %s", line, f[i].doc, path, err);
		free(line);
		json_decref(root);
		tried++;
	}
	assert_true(tried > 100);
}

static void long_lines(void **state)
{
	(void)state;
	size_t n = PW_MAX_LINE + 4096;
	char *big = xmalloc(n + 1);
	memset(big, 'x', n);
	big[n] = 0;
	char *text = xasprintf(HEADER "\n" CALL(1) "\n%s\n" CALL(2) "\n" FOOTER "\n", big);
	write_file("long.pw.jsonl", text);
	free(text);
	/* and one at the very end, without a newline */
	text = xasprintf(HEADER "\n" CALL(1) "\n%s", big);
	write_file("longtail.pw.jsonl", text);
	free(text);
	free(big);
	struct pw_input in;
	struct counts c;
	assert_int_equal(read_dir(&in, &c, false), PW_READ_OK);
	const struct pw_file *f = NULL, *g = NULL;
	for (size_t i = 0; i < in.n; i++) {
		if (strstr(in.files[i].path, "/long.pw"))
			f = &in.files[i];
		if (strstr(in.files[i].path, "/longtail.pw"))
			g = &in.files[i];
	}
	assert_non_null(f);
	assert_non_null(g);
	if (!f || !g)
		return; /* (for the static analyzer: cmocka's assertions return no more) */
	assert_int_equal(f->bad_lines, 1);
	assert_int_equal(f->calls, 2);
	assert_int_equal(f->lines, 5);
	assert_true(f->footer);
	assert_int_equal(g->bad_lines, 1);
	assert_int_equal(g->calls, 1);
	pw_input_free(&in);
	assert_int_equal(read_dir(&in, &c, true), PW_READ_FATAL);
	pw_input_free(&in);
}

/* A segment's reader (lines_until) copies the segment, not a whole
 * buffer's worth after it, and still reads on past it when asked. */
static void lines_until_a_segment_end(void **state)
{
	(void)state;
	write_file("seg.txt", "a\nbb\nccc\ndddd\n");
	for (off_t until = 3; until <= 5; until += 2) { /* inside "bb", and at its end */
		char *path = xasprintf("%s/seg.txt", dir);
		int fd = open(path, O_RDONLY);
		free(path);
		assert_true(fd >= 0);
		struct lines l = {0};
		lines_open(&l, fd, 0);
		lines_until(&l, until);
		const char *line;
		size_t len;
		assert_int_equal(next_line(&l, &line, &len), L_LINE);
		assert_true(len == 1 && !memcmp(line, "a", 1));
		assert_true(l.end <= 5); /* no more than the segment, and the line across its end */
		assert_int_equal(next_line(&l, &line, &len), L_LINE);
		assert_true(len == 2 && !memcmp(line, "bb", 2));
		assert_int_equal(lines_pos(&l), 5);
		assert_int_equal(next_line(&l, &line, &len), L_LINE); /* past it, as without */
		assert_true(len == 3 && !memcmp(line, "ccc", 3));
		assert_int_equal(next_line(&l, &line, &len), L_LINE);
		assert_int_equal(next_line(&l, &line, &len), L_EOF);
		assert_int_equal(l.lineno, 4);
		lines_free(&l);
		close(fd);
	}
}

/* ---- shapes (read/scan.h) ----
 * A line matched against the shape of an earlier one must give what the
 * scan and the checks give without shapes: the same tokens, the same
 * verdict, the same event.  Lines of a few shapes, each value slot filled
 * with a valid value most of the time and otherwise with something the
 * slot's row or the plain shape refuses (bad hex, a negative count, an
 * integer past 2^63-1, an escape, a real number, another type, spaces). */

static const char *const shape_base[] = {
    "{\"type\":\"call\",\"seq\":%s,\"tid\":%s,\"vendor\":\"cuda\",\"api\":\"cuMemPrefetchAsync\","
    "\"variant\":%s,\"family\":\"managed\",\"t_ns\":%s,\"dur_ns\":%s,\"ret\":%s,\"ret_name\":%s,"
    "\"cur_dev\":%s,\"parent\":%s,\"args\":{\"ptr\":%s,\"ptr_dev\":%s,\"bytes\":%s,\"location\":{"
    "\"type\":%s,\"id\":%s},\"flags\":0,\"stream\":%s},\"stack\":[%s,%s]}",
    "{\"type\":\"call\",\"seq\":%s,\"tid\":%s,\"vendor\":\"cuda\",\"api\":\"cuMemcpyPeerAsync\","
    "\"variant\":%s,\"family\":\"copy\",\"t_ns\":%s,\"dur_ns\":%s,\"ret\":%s,\"ret_name\":%s,"
    "\"args\":{\"dst\":%s,\"dst_dev\":%s,\"dst_ctx\":%s,\"src\":%s,\"src_dev\":%s,\"bytes\":%s,"
    "\"stream\":%s}}",
    "{\"type\":\"call\",\"seq\":%s,\"tid\":%s,\"vendor\":\"hip\",\"api\":\"hipIpcOpenMemHandle\","
    "\"variant\":%s,\"family\":\"ipc\",\"t_ns\":%s,\"dur_ns\":%s,\"ret\":%s,\"ret_name\":%s,"
    "\"op\":%s,\"args\":{\"handle\":%s,\"ptr\":%s,\"dev\":%s,\"flags\":%s}}",
};
/* A valid value for each slot kind, by the slot's place: x hex, u count,
 * i integer, s string, n string or null, d device or null, h hex bytes. */
static const char *const shape_kinds[] = {"uusuuinduxuusuxxx", "uusuuinxuxxuux", "uusuuinshxuu"};

static const char *shape_valid(char kind, unsigned r)
{
	static const char *const hex[] = {"\"0x7f0000\"", "\"0xAbC\"", "\"0x1\""};
	static const char *const cnt[] = {"1", "7", "4096", "4000000000000"};
	static const char *const str[] = {"\"\"", "\"_v2\"", "\"CUDA_SUCCESS\"", "\"device\""};
	switch (kind) {
	case 'x': return hex[r % 3];
	case 'u': return cnt[r % 4];
	case 'i': return r % 2 ? "-3" : "0";
	case 's': return str[r % 4];
	case 'n': return r % 8 ? "\"hipErrorInvalidValue\"" : "null";
	case 'h': return r % 2 ? "\"00ff\"" : "\"a0b1c2\"";
	default: return r % 8 ? "2" : "null";
	}
}

static const char *const shape_odd[] = {"\"0x\"",
                                        "\"0xZZ\"",
                                        "\"0x12345678901234567\"",
                                        "\"12\"",
                                        "-1",
                                        "9223372036854775808",
                                        "01",
                                        "1.5",
                                        "null",
                                        "true",
                                        "\"a\\\"b\"",
                                        "\"\xc3\xa9\"",
                                        " 5",
                                        "-0",
                                        "2147483648",
                                        "{}",
                                        "[]",
                                        "\"\"",
                                        "0",
                                        "\"x\"",
                                        "-9223372036854775808",
                                        "9223372036854775807"};

/* The tokens of a scan as text, to compare two scans. */
static void tok_dump(const struct pw_flat *f, char *out, size_t cap)
{
	size_t at = 0;
	out[0] = 0;
	for (size_t i = 0; f && i < f->n && at < cap; i++) {
		const struct pw_tok *t = &f->t[i];
		int w = t->type == PW_T_STR
		            ? snprintf(out + at, cap - at, "%u/%u/%u/%u/%zu:%s|", t->type, t->n, t->next,
		                       t->hash, strlen(t->v.s), t->v.s)
		            : snprintf(out + at, cap - at, "%u/%u/%u/%lld|", t->type, t->n, t->next,
		                       t->type == PW_T_INT ? (long long)t->v.i : 0LL);
		at += w > 0 ? (size_t)w : 0;
	}
}

/* What a parse said of a line, as text. */
static void ev_dump(const char *line, char *out, size_t cap)
{
	struct pw_event ev;
	char err[512];
	enum pw_line_kind k = parse(line, &ev, err);
	if (k != PW_LINE_EVENT || !pw_parse_was_fast()) {
		snprintf(out, cap, "kind %d, fast %d: %s", (int)k, pw_parse_was_fast(),
		         k == PW_LINE_BAD ? err : "");
		return;
	}
	char *args = json_dumps(pw_ev_args(&ev), JSON_SORT_KEYS | JSON_COMPACT);
	snprintf(out, cap, "%llu %lld %s %s %s %s %lld %lld %lld %s %d %llu %lld %s %zu %llx %s",
	         (unsigned long long)ev.seq, (long long)ev.tid, ev.vendor, ev.api, ev.variant, ev.family,
	         (long long)ev.t_ns, (long long)ev.dur_ns, (long long)ev.ret, ev.ret_name ? ev.ret_name : "-",
	         ev.has_parent, (unsigned long long)ev.parent, (long long)ev.cur_dev, ev.op ? ev.op : "-",
	         ev.nstack, ev.nstack ? (unsigned long long)ev.stack[0] : 0ULL, args ? args : "?");
	free(args);
}

static void shapes_as_scan(void **state)
{
	(void)state;
	unsigned seed = 7;
	size_t matched = 0, tried = 0, fast = 0;
	static char line[4096], base[4096], a[16384], b[16384];
	for (size_t s = 0; s < sizeof shape_base / sizeof *shape_base; s++) {
		const char *kinds = shape_kinds[s];
		size_t nslots = strlen(kinds);
		for (int round = 0; round < 600; round++) {
			const char *v[20] = {0}; /* past the shape's slots: not printed */
			for (size_t i = 0; i < nslots; i++) {
				unsigned r = (unsigned)rand_r(&seed);
				v[i] = round == 0 || r % 100 < 97
				           ? shape_valid(kinds[i], r >> 8)
				           : shape_odd[(r >> 8) % (sizeof shape_odd / sizeof *shape_odd)];
			}
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
			snprintf(line, sizeof line, shape_base[s], v[0], v[1], v[2], v[3], v[4], v[5], v[6],
			         v[7], v[8], v[9], v[10], v[11], v[12], v[13], v[14], v[15], v[16], v[17],
			         v[18], v[19]);
#pragma GCC diagnostic pop
			if (round == 0) { /* the shape, learnt from a valid line */
				strcpy(base, line);
				const struct pw_flat *f = pw_scan(base, strlen(base));
				assert_non_null(f);
				assert_non_null(pw_shape_learn(f, base, 1000 + (uint32_t)s));
			}
			/* the scan: tokens with and without the shape */
			struct pw_shape *sh;
			tok_dump(pw_scan_shaped(line, strlen(line), 1000 + (uint32_t)s, &sh), a, sizeof a);
			tok_dump(pw_scan(line, strlen(line)), b, sizeof b);
			if (strcmp(a, b))
				fail_msg("shape %zu, %s:\n shaped %s\n scanned %s", s, line, a, b);
			matched += sh != NULL;
			/* the whole parse: verdict and event, shapes on and off */
			pw_scan_shapes = true;
			ev_dump(line, a, sizeof a);
			ev_dump(line, a, sizeof a); /* the second time by the shape the first learnt */
			pw_scan_shapes = false;
			ev_dump(line, b, sizeof b);
			pw_scan_shapes = true;
			if (strcmp(a, b))
				fail_msg("shape %zu, %s:\n with shapes %s\n without %s", s, line, a, b);
			fast += !strncmp(a, "kind", 4) ? 0 : 1;
			tried++;
		}
	}
	/* both sides were tried: lines matched and not, taken and refused */
	print_message("%zu lines: %zu matched a shape, %zu taken by the fast path\n", tried, matched, fast);
	assert_true(matched > tried / 4 && matched < tried);
	assert_true(fast > tried / 4 && fast < tried);
}

/* The scan's integers (scan.c, read_int: the first eight digits at once):
 * of 1 to 21 digits, either sign, each followed by every byte a member
 * may end with, the value strtoll reads, or a refusal where JSON or the
 * 64 bits have none (a leading zero, a fraction, an exponent, beyond
 * 2^63-1), as the byte-at-a-time reading gave. */
static void numbers_as_strtoll(void **state)
{
	(void)state;
	static const char *const after[] = {"}", ",\"b\":1}", " }", "\t}", ".5}", "e3}", "E3}"};
	unsigned seed = 11;
	char num[40], line[80];
	for (int digits = 1; digits <= 21; digits++)
		for (int round = 0; round < 300; round++) {
			int o = 0;
			if (round % 3 == 0)
				num[o++] = '-';
			for (int i = 0; i < digits; i++) /* a leading zero now and then */
				num[o++] = (char)('0' + (i || round % 7 ? rand_r(&seed) % 10 : 0));
			if (round % 10 == 0 && digits >= 18) /* at and around 2^63 */
				o = snprintf(num, sizeof num, "%s92233720368547758%02d",
				             round % 20 ? "" : "-", round / 10 % 12);
			num[o] = 0;
			const char *rest = after[rand_r(&seed) % (sizeof after / sizeof *after)];
			snprintf(line, sizeof line, "{\"a\":%s%s", num, rest);
			const struct pw_flat *f = pw_scan(line, strlen(line));
			const char *d = num + (num[0] == '-');
			bool json_int =
			    !(d[0] == '0' && d[1]) && rest[0] != '.' && rest[0] != 'e' && rest[0] != 'E';
			errno = 0;
			long long want = strtoll(num, NULL, 10);
			bool fits = errno == 0 && want != LLONG_MIN; /* the scan's magnitude ends at 2^63-1 */
			if (!json_int || !fits) {
				if (f && f->n > 2 && f->t[2].type == PW_T_INT)
					fail_msg("%s: read as %lld, not refused", line,
					         (long long)f->t[2].v.i);
				continue;
			}
			if (!f || f->t[2].type != PW_T_INT || f->t[2].v.i != want)
				fail_msg("%s: %s, strtoll %lld", line,
				         !f                         ? "refused"
				         : f->t[2].type == PW_T_INT ? "another value"
				                                    : "not an integer",
				         want);
		}
}

/* ---- containers, histogram, tables ---- */

/* The pre-phase's strings (base/util.c, needles): the mask is that of a
 * memmem per string, for every set of strings and text tried — short and
 * long strings together (the window is the shortest), strings sharing
 * their ends, a string at the text's very start and end, texts shorter
 * than the window, and texts over a small alphabet, where the strings
 * occur often and in part. */
static uint64_t naive_mask(const char *const *keys, const uint64_t *bits, size_t n, const char *s, size_t len)
{
	uint64_t m = 0;
	for (size_t k = 0; k < n; k++)
		if (memmem(s, len, keys[k], strlen(keys[k])))
			m |= bits[k];
	return m;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* One pattern of seqs into a seqset and into a sorted array: the same
 * answers for every seq added and for seqs around them. */
static void seqset_check(const uint64_t *v, size_t n, bool want_sparse)
{
	struct seqset s;
	seqset_init(&s);
	uint64_t *sorted = malloc((n ? n : 1) * sizeof *sorted);
	assert_non_null(sorted);
	for (size_t i = 0; i < n; i++)
		seqset_add(&s, v[i]);
	memcpy(sorted, v, n * sizeof *v);
	qsort(sorted, n, sizeof *sorted, cmp_u64);
	seqset_done(&s);
	assert_int_equal(s.sparse, want_sparse);
	if (!s.sparse) /* bits, not more words than seqs past the floor */
		assert_true(s.nwords <= (n > 4096 ? n : 4096));
	static const int near[] = {-65, -64, -63, -2, -1, 0, 1, 2, 63, 64, 65};
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < sizeof near / sizeof *near; k++) {
			uint64_t q = v[i] + (uint64_t)(int64_t)near[k];
			bool want = bsearch(&q, sorted, n, sizeof q, cmp_u64) != NULL;
			if (seqset_has(&s, q) != want)
				fail_msg("seq %llu (added %llu): %d, the array says %d",
				         (unsigned long long)q, (unsigned long long)v[i], !want, want);
		}
	assert_false(n == 0 && seqset_has(&s, 0));
	seqset_clear(&s);
	assert_false(n && seqset_has(&s, v[0]));
	seqset_free(&s);
	free(sorted);
}

static void seqset_as_array(void **state)
{
	(void)state;
	enum { N = 50000 };
	uint64_t *v = malloc(N * sizeof *v);
	assert_non_null(v);
	unsigned seed = 777;
	/* a process's calls, 1 to N, in order */
	for (size_t i = 0; i < N; i++)
		v[i] = i + 1;
	seqset_check(v, N, false);
	/* threads' blocks written out of order, some seqs missing (dropped) */
	for (size_t i = 0; i < N; i++)
		v[i] = (i / 256 % 2 ? i - 256 : i + 256) * 3 / 2 + 1;
	seqset_check(v, N, false);
	/* a forked child: numbering goes on from its parent's, downwards too */
	for (size_t i = 0; i < N; i++)
		v[i] = 5000000 + N - i;
	seqset_check(v, N, false);
	/* at the top of the range, and 0 */
	uint64_t top[] = {UINT64_MAX, UINT64_MAX - 1, UINT64_MAX - 64, 0, UINT64_MAX - 200};
	seqset_check(top, 5, true);
	uint64_t top2[] = {UINT64_MAX, UINT64_MAX - 3, UINT64_MAX - 63};
	seqset_check(top2, 3, false);
	/* spread wide (a hostile trace): an array, not bits */
	for (size_t i = 0; i < N; i++)
		v[i] = ((uint64_t)rand_r(&seed) << 32) ^ (uint64_t)rand_r(&seed);
	seqset_check(v, N, true);
	/* dense, then one far away: the bits go over to the array */
	for (size_t i = 0; i < N; i++)
		v[i] = i + 1;
	v[N / 2] = (uint64_t)1 << 40;
	seqset_check(v, N, true);
	/* the same seq twice, and none */
	uint64_t twice[] = {7, 7, 7};
	seqset_check(twice, 3, false);
	seqset_check(v, 0, false);
	free(v);
}

static void needles_as_memmem(void **state)
{
	(void)state;
	struct needles *nd = malloc(sizeof *nd);
	assert_non_null(nd);
	unsigned seed = 12345;
	char keybuf[24][16], text[200];
	const char *keys[24];
	uint64_t bits[24];
	size_t hits = 0, tried = 0;
	for (int set = 0; set < 400; set++) {
		size_t n = 1 + rand_r(&seed) % 24;
		needles_init(nd);
		for (size_t k = 0; k < n; k++) {
			size_t len = 2 + rand_r(&seed) % 13;
			for (size_t i = 0; i < len; i++)
				keybuf[k][i] = (char)("ab\"c:"[rand_r(&seed) % 5]);
			keybuf[k][len] = 0;
			keys[k] = keybuf[k];
			bits[k] = 1ull << (rand_r(&seed) % 6); /* several strings a sink */
			needles_add(nd, keys[k], bits[k]);
		}
		for (int t = 0; t < 200; t++) {
			size_t len = rand_r(&seed) % sizeof text;
			for (size_t i = 0; i < len; i++)
				text[i] = (char)("ab\"c:xy"[rand_r(&seed) % 7]);
			uint64_t want = naive_mask(keys, bits, n, text, len);
			uint64_t got = needles_mask(nd, text, len);
			if (got != want)
				fail_msg("set %d: \"%.*s\": mask %#llx, memmem says %#llx", set, (int)len,
				         text, (unsigned long long)got, (unsigned long long)want);
			hits += want != 0;
			tried++;
		}
	}
	assert_true(hits > tried / 10 && hits < tried); /* both answers were tried */

	/* the sinks' own strings on a trace line: at its start, its end, nowhere */
	static const char *const sinkkeys[] = {"\"violation\"", "IpcGetMemHandle\"", "Reset", "\"parent\":"};
	needles_init(nd);
	for (size_t k = 0; k < 4; k++)
		needles_add(nd, sinkkeys[k], 1ull << k);
	static const char line[] = "{\"type\":\"call\",\"api\":\"cuIpcGetMemHandle\",\"parent\":3}";
	assert_int_equal(needles_mask(nd, line, sizeof line - 1), 2 | 8);
	assert_int_equal(needles_mask(nd, "\"violation\"", 11), 1);
	assert_int_equal(needles_mask(nd, "cuDeviceReset", 13), 4);
	assert_int_equal(needles_mask(nd, "Rese", 4), 0);
	assert_int_equal(needles_mask(nd, line, 20), 0);
	needles_init(nd);
	assert_int_equal(needles_mask(nd, line, sizeof line - 1), 0); /* no strings */
	free(nd);
}

/* The scan's plain strings, read a word at a time: any byte but a plain
 * one, anywhere in a string of any length, ends the plain shape; every
 * plain one is kept, and the string ends at its quote. */
static void plain_string_bytes(void **state)
{
	(void)state;
	char line[64], want[32];
	for (size_t n = 1; n <= 20; n++)
		for (size_t at = 0; at < n; at++)
			for (int b = 1; b < 256; b++) {
				for (size_t i = 0; i < n; i++)
					want[i] = (char)('a' + i);
				want[at] = (char)b;
				want[n] = 0;
				snprintf(line, sizeof line, "{\"k\":\"%s\",\"n\":1}", want);
				const struct pw_flat *f = pw_scan(line, strlen(line));
				bool plain = b >= 0x20 && b != '"' && b != '\\' && b < 0x80;
				if (!plain) {
					assert_null(f);
					continue;
				}
				assert_non_null(f);
				assert_int_equal(f->n, 5);
				assert_int_equal(f->t[2].n, n);
				assert_string_equal(f->t[2].v.s, want);
				assert_true(f->t[4].type == PW_T_INT && f->t[4].v.i == 1);
			}
}

static void hmap_many(void **state)
{
	(void)state;
	struct hmap h;
	hmap_init(&h);
	for (uint64_t i = 0; i < 100000; i++)
		*hmap_put_u64(&h, i * 7919) = (void *)(uintptr_t)(i + 1);
	assert_int_equal(h.len, 100000);
	for (uint64_t i = 0; i < 100000; i += 999)
		assert_int_equal((uintptr_t)hmap_get_u64(&h, i * 7919), i + 1);
	assert_null(hmap_get_u64(&h, 1));
	*hmap_put_str(&h, "key") = (void *)1;
	for (size_t i = 0; i < h.cap; i++)
		if (h.slots[i].key && h.slots[i].klen == 3)
			assert_string_equal(h.slots[i].key, "key"); /* string keys read back as C strings */
	hmap_free(&h, NULL);
}

/* Percentiles from the histogram are within 1.6 % of the exact ones. */
static void histogram(void **state)
{
	(void)state;
	enum { N = 20000 };
	uint64_t *v = xmalloc(N * sizeof *v);
	struct hist a = {0}, b = {0};
	srand(7);
	for (int i = 0; i < N; i++) {
		v[i] = (uint64_t)(exp((double)rand() / RAND_MAX * 20) + 1); /* 1 .. 5e8, log-spread */
		hist_add(i % 2 ? &a : &b, v[i]);
	}
	hist_merge(&a, &b);
	qsort(v, N, sizeof *v, cmp_u64);
	assert_int_equal(a.n, N);
	assert_int_equal(a.min, v[0]);
	assert_int_equal(a.max, v[N - 1]);
	static const double ps[] = {1, 10, 50, 90, 99, 99.9};
	for (size_t i = 0; i < sizeof ps / sizeof *ps; i++) {
		size_t rank = (size_t)ceil(ps[i] / 100 * N);
		double exact = (double)v[rank - 1], got = (double)hist_percentile(&a, ps[i]);
		if (fabs(got - exact) > exact * 0.016 + 0.5)
			fail_msg("p%g: %g, exact %g", ps[i], got, exact);
	}
	assert_int_equal(hist_percentile(&a, 100), v[N - 1]);
	hist_free(&a);
	hist_free(&b);
	free(v);
}

static void row_of(void *ctx, size_t i, const char **cells)
{
	(void)ctx;
	static const char *const rows[][2] = {
	    {"a\x1b[31m", "7"}, {"\xc3\xa9t\xc3\xa9", "1234"}, {"b\x9b\xc2\x9b", "2"}, {"-\\x", NULL}};
	cells[0] = rows[i][0];
	cells[1] = rows[i][1]; /* NULL: "-" */
}

static void table_alignment(void **state)
{
	(void)state;
	struct table t;
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	table_init(&t, "lr", "NAME", "N");
	table_row(&t, "a\x1b[31m", "7");            /* an escape sequence is not printed */
	table_row(&t, "\xc3\xa9t\xc3\xa9", "1234"); /* "été": 3 characters wide */
	table_row(&t, "b\x9b\xc2\x9b", "2");        /* a raw CSI byte, and CSI in UTF-8 */
	table_print(&t, out, "");
	table_free(&t);
	fclose(out);
	assert_string_equal(buf, "NAME            N\n"
	                         "a\\x1b[31m       7\n"
	                         "\xc3\xa9t\xc3\xa9          1234\n"
	                         "b\\x9b\\u009b     2\n");
	free(buf);
	/* the same rows and one more made by a callback (table_print_rows):
	 * as table_print prints them, plain cells as they are */
	static const char *const heads[] = {"NAME", "N"};
	char *want = NULL, *got = NULL;
	out = open_memstream(&want, &len);
	table_init(&t, "lr", "NAME", "N");
	for (size_t i = 0; i < 4; i++) {
		const char *cells[2];
		row_of(NULL, i, cells);
		table_rowv(&t, cells);
	}
	table_print(&t, out, "  ");
	table_free(&t);
	fclose(out);
	out = open_memstream(&got, &len);
	table_print_rows(out, "  ", "lr", heads, 4, row_of, NULL);
	fclose(out);
	assert_string_equal(got, want);
	assert_non_null(strstr(got, "\n  -\\\\x"));
	free(want);
	free(got);
}

/* A listing longer than the cells table_print_rows keeps from its
 * measuring pass (4 MiB): its first rows printed from what was kept,
 * the rest made again; the whole as table_print prints the same rows. */
struct long_rows {
	char a[200], b[24];
	size_t calls;
};

static void long_row(void *ctx, size_t i, const char **cells)
{
	struct long_rows *x = ctx;
	x->calls++;
	size_t n = (size_t)snprintf(x->a, sizeof x->a, "row %zu ", i);
	for (size_t k = 0; k < i * 37 % 150; k++) /* another width each row */
		x->a[n++] = (char)('a' + k % 26);
	x->a[n] = 0;
	if (i % 97 == 0) /* now and then a cell to sanitize, wider than its bytes say */
		memcpy(x->a, "\x1b\xc3\xa9", 3);
	snprintf(x->b, sizeof x->b, "%zu", i * 7919);
	cells[0] = x->a;
	cells[1] = i % 13 ? x->b : NULL;
	cells[2] = "ok";
}

static void long_listing(void **state)
{
	(void)state;
	enum { ROWS = 60000 };
	static const char *const heads[] = {"WHAT", "N", "RESULT"};
	struct long_rows x = {.calls = 0};
	char *want = NULL, *got = NULL;
	size_t len = 0;
	struct table t;
	FILE *out = open_memstream(&want, &len);
	table_init(&t, "lrl", "WHAT", "N", "RESULT");
	for (size_t i = 0; i < ROWS; i++) {
		const char *cells[3];
		long_row(&x, i, cells);
		table_rowv(&t, cells);
	}
	table_print(&t, out, "  ");
	table_free(&t);
	fclose(out);
	assert_true(len > (5u << 20)); /* past what is kept */
	x.calls = 0;
	out = open_memstream(&got, &len);
	table_print_rows(out, "  ", "lrl", heads, ROWS, long_row, &x);
	fclose(out);
	assert_string_equal(got, want);
	/* each row measured once; the rows past the kept ones made again */
	assert_true(x.calls > ROWS && x.calls < 2 * ROWS);
	free(want);
	free(got);
}

static void formats(void **state)
{
	(void)state;
	char b[32];
	fmt_ns(b, sizeof b, 812);
	assert_string_equal(b, "812ns");
	fmt_ns(b, sizeof b, 4500);
	assert_string_equal(b, "4.50us");
	fmt_ns(b, sizeof b, 27841);
	assert_string_equal(b, "27.8us");
	fmt_ns(b, sizeof b, 999999);
	assert_string_equal(b, "1.00ms");
	fmt_ns(b, sizeof b, 1.5e9);
	assert_string_equal(b, "1.50s");
	fmt_bytes(b, sizeof b, 1048576 + 131072);
	assert_string_equal(b, "1.12MiB");
	fmt_bytes(b, sizeof b, 512);
	assert_string_equal(b, "512B");
	uint64_t x;
	assert_true(parse_hex_u64("0xffffffffffffffff", &x));
	assert_true(x == UINT64_MAX);
	assert_false(parse_hex_u64("0x", &x));
	assert_false(parse_hex_u64("12", &x));
	assert_false(parse_hex_u64("0x1g", &x));
	assert_int_equal(hex_digit('0'), 0);
	assert_int_equal(hex_digit('F'), 15);
	assert_int_equal(hex_digit('a'), 10);
	assert_int_equal(hex_digit('g'), -1);
	assert_int_equal(hex_digit('\x80'), -1);
	/* a time relative to an origin, cut as snprintf cuts */
	fmt_rel(b, sizeof b, 1000 + 4500, 1000);
	assert_string_equal(b, "+4.50us");
	fmt_rel(b, sizeof b, 1000, 1000 + 27841);
	assert_string_equal(b, "-27.8us");
	fmt_rel(b, 4, 1000 + 4500, 1000);
	assert_string_equal(b, "+4.");
	fmt_rel(b, 2, 1000, 1000 + 27841);
	assert_string_equal(b, "-");
	b[0] = 'x';
	fmt_rel(b, 1, 1000, 1000);
	assert_int_equal(b[0], 0);
}

/* The lines a sink's pre_keys ask for (every one of a needles set). */
static bool wanted_by(const struct pw_sink_ops *ops, const char *line)
{
	struct needles nd;
	needles_init(&nd);
	for (const char *const *k = ops->pre_keys; k && *k; k++)
		needles_add(&nd, *k, 1);
	return needles_mask(&nd, line, strlen(line)) != 0;
}

/* A trace's most common line, a peer copy as the library writes it (with
 * its op), is read once: no sink's pre-phase asks for it (the matrix's
 * asked for every "peer_" op and parsed each copy twice).  And the lines
 * the matrix's pre-phase needs are still asked for. */
static void pre_keys_leave_copies(void **state)
{
	(void)state;
	static const char copy[] =
	    "{\"type\":\"call\",\"seq\":4,\"tid\":48240,\"vendor\":\"cuda\",\"api\":\"cuMemcpyPeerAsync\","
	    "\"variant\":\"_ptsz\",\"family\":\"copy\",\"op\":\"peer_copy\",\"t_ns\":912346002113906,"
	    "\"dur_ns\":5120,\"ret\":0,\"ret_name\":\"CUDA_SUCCESS\",\"args\":{\"dst\":\"0x7f3a5c000000\","
	    "\"dst_dev\":1,\"dst_ctx\":\"0x55d0c3a81f30\",\"dst_ctx_dev\":1,\"src\":\"0x7f3a3a000000\","
	    "\"src_dev\":0,\"src_ctx\":\"0x55d0c3a7e2a0\",\"src_ctx_dev\":0,\"bytes\":268435456,"
	    "\"stream\":\"0x55d0c3b01a40\"}}";
	const struct pw_sink_ops *sinks[] = {&summary_ops, &copies_ops,        &findings_ops,
	                                     &ipc_ops,     &ipc_findings_ops,  &managed_ops,
	                                     &umfx_ops,    &umfx_findings_ops, NULL};
	for (size_t i = 0; sinks[i]; i++)
		assert_false(wanted_by(sinks[i], copy));
	static const char *const needed[] = {
	    "{\"type\":\"call\",\"api\":\"cuCtxEnablePeerAccess\",\"op\":\"peer_enable\"}",
	    "{\"type\":\"call\",\"api\":\"hipDeviceDisablePeerAccess\",\"op\":\"peer_disable\"}",
	    "{\"type\":\"call\",\"api\":\"cuMemSetAccess\",\"op\":\"vmm_set_access\"}",
	    "{\"type\":\"call\",\"api\":\"cuMemPoolSetAccess\",\"op\":\"pool_set_access\"}",
	    "{\"type\":\"call\",\"api\":\"cudaDeviceReset\",\"op\":\"device_reset\"}",
	    "{\"type\":\"gpu_time\",\"call\":4}",
	    "{\"type\":\"call\",\"op\":\"peer_copy\",\"parent\":3}",
	    /* a trace without ops, by API */
	    "{\"type\":\"call\",\"api\":\"cuCtxDisablePeerAccess\"}",
	    "{\"type\":\"call\",\"api\":\"cuMemSetAccess\"}",
	    "{\"type\":\"call\",\"api\":\"hipDeviceReset\"}",
	    "{\"type\":\"call\",\"api\":\"aclrtResetDevice\"}",
	};
	for (size_t i = 0; i < sizeof needed / sizeof *needed; i++)
		assert_true(wanted_by(&copies_ops, needed[i]));
}

int main(void)
{
	json_object_seed(0);
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(a_call),
	    cmocka_unit_test(fast_path),
	    cmocka_unit_test(plain_string_bytes),
	    cmocka_unit_test(jout_layout),
	    cmocka_unit_test(kinds_of_lines),
	    cmocka_unit_test(refused_lines),
	    cmocka_unit_test(refused_args),
	    cmocka_unit_test(what_the_library_writes),
	    cmocka_unit_test(header_and_footer),
	    cmocka_unit_test_setup_teardown(files_and_phases, make_dir, remove_dir),
	    cmocka_unit_test_setup_teardown(long_lines, make_dir, remove_dir),
	    cmocka_unit_test_setup_teardown(lines_until_a_segment_end, make_dir, remove_dir),
	    cmocka_unit_test_setup_teardown(nesting, make_dir, remove_dir),
	    cmocka_unit_test_setup_teardown(stages, make_dir, remove_dir),
	    cmocka_unit_test_setup_teardown(changed_between_stages, make_dir, remove_dir),
	    cmocka_unit_test(new_members),
	    cmocka_unit_test(every_row_checked),
	    cmocka_unit_test(ops_of_old_traces),
	    cmocka_unit_test(shapes_as_scan),
	    cmocka_unit_test(numbers_as_strtoll),
	    cmocka_unit_test(long_listing),
	    cmocka_unit_test(needles_as_memmem),
	    cmocka_unit_test(pre_keys_leave_copies),
	    cmocka_unit_test(seqset_as_array),
	    cmocka_unit_test(hmap_many),
	    cmocka_unit_test(histogram),
	    cmocka_unit_test(table_alignment),
	    cmocka_unit_test(formats),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
