/*
 * The op column: every hooked function says what it does, every rule says
 * which ops it looks at, and the two meet.  A row without an op, a rule
 * without one, or a rule that names an op no hooked function produces (so
 * that it would never run) fails here.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <ctype.h>
#include <string.h>

#include "rules/check.h"
#include "vendors/cudart/cudart.h"
#include "rules/rules.h"
#include "state/state.h"
#include "core/vendor.h"

/* The ops the layer makes up when the process ends (trace_format.h: END). */
#define PW_OP_ROW_END(name, str, when, doc) | (when##_OP ? PW_OPBIT(name) : 0)
#define CALL_OP 0
#define END_OP 1
static const uint64_t end_ops = 0 PW_OPS(PW_OP_ROW_END);

/* The ops some row of some vendor's table produces. */
static uint64_t row_ops(void)
{
	uint64_t ops = 0;
	for (const struct pw_vendor *const *v = pw_vendors; *v; v++)
		for (int i = 0; i < (*v)->nfns; i++)
			ops |= 1ull << (*v)->fns[i].op;
	/* the CUDA 12 runtime's ABIs of two rows (cudart_hooks.c) */
	ops |= 1ull << pw_cudart_desc_advise12.op | 1ull << pw_cudart_desc_prefetch12.op |
	       1ull << pw_cudart_desc_prefetch12_ptsz.op;
	return ops;
}

static void every_row_has_an_op(void **state)
{
	(void)state;
	int rows = 0;
	for (const struct pw_vendor *const *v = pw_vendors; *v; v++)
		for (int i = 0; i < (*v)->nfns; i++, rows++) {
			const struct pw_fn_desc *fn = &(*v)->fns[i];
			if (fn->op <= PW_OP_NONE || fn->op >= PW_OP_KINDS)
				fail_msg("%s (%s) has no op", fn->symbol, (*v)->name);
			if (end_ops & (1ull << fn->op))
				fail_msg("%s (%s) has op %s, which only the end of a process makes",
				         fn->symbol, (*v)->name, pw_op_name(fn->op));
			assert_ptr_equal(fn->lib, *v);
		}
	assert_true(rows > 100);
}

static void every_rule_has_ops(void **state)
{
	(void)state;
	for (int r = 0; r < PW_RULE_COUNT; r++) {
		if (!pw_rules[r].ops)
			fail_msg("rule %s applies to no op", pw_rules[r].id);
		if (pw_rules[r].ops & 1)
			fail_msg("rule %s names PW_OP_NONE", pw_rules[r].id);
	}
}

/* A rule whose ops no row produces never runs. */
static void every_rule_op_is_produced(void **state)
{
	(void)state;
	uint64_t produced = row_ops() | end_ops;
	for (int r = 0; r < PW_RULE_COUNT; r++) {
		uint64_t never = pw_rules[r].ops & ~produced;
		for (int k = 0; never && k < PW_OP_KINDS; k++)
			if (never & (1ull << k))
				fail_msg("rule %s names op %s, which no hooked function produces",
				         pw_rules[r].id, pw_op_name(k));
	}
}

/* An op in the table that no row produces is a name nothing writes. */
static void every_call_op_is_some_rows(void **state)
{
	(void)state;
	uint64_t produced = row_ops();
	for (int k = 1; k < PW_OP_KINDS; k++)
		if (!(end_ops & (1ull << k)) && !(produced & (1ull << k)))
			fail_msg("op %s is produced by no hooked function", pw_op_name(k));
}

/* Names are the trace's: lower case, digits and '_', and distinct. */
static void op_names(void **state)
{
	(void)state;
	assert_null(pw_op_name(PW_OP_NONE));
	assert_null(pw_op_name(PW_OP_KINDS));
	for (int k = 1; k < PW_OP_KINDS; k++) {
		const char *n = pw_op_name(k);
		assert_non_null(n);
		for (const char *p = n; *p; p++)
			if (!islower((unsigned char)*p) && !isdigit((unsigned char)*p) && *p != '_')
				fail_msg("op name '%s' is not lower case", n);
		for (int j = 1; j < k; j++)
			if (!strcmp(n, pw_op_name(j)))
				fail_msg("op name '%s' twice", n);
	}
	assert_string_equal(pw_op_name(PW_OP_PEER_COPY), "peer_copy");
}

/* The rules of an op run for it, and no other rule does. */
static int fired[PW_RULE_COUNT];
static void sink(void *arg, int rule, const char *msg)
{
	(void)arg;
	(void)msg;
	fired[rule]++;
}

static void rules_run_by_op(void **state)
{
	(void)state;
	struct pw_state s;
	pw_state_reset(&s);
	struct pw_op op;
	memset(&op, 0, sizeof op);
	op.vendor = PW_VENDOR_CUDA;
	op.api = "test";
	op.cur_dev = op.peer_dev = 0; /* peer.enable.self fires, if its rules run */
	op.can_access = -1;
	op.kind = PW_OP_IPC_EVENT_EXPORT; /* no rule looks at it */
	memset(fired, 0, sizeof fired);
	assert_int_equal(pw_rules_check(&s, &op, sink, NULL), 0);
	op.kind = PW_OP_PEER_ENABLE;
	assert_true(pw_rules_check(&s, &op, sink, NULL) > 0);
	for (int r = 0; r < PW_RULE_COUNT; r++)
		if (fired[r] && !(pw_rules[r].ops & PW_OPBIT(PEER_ENABLE)))
			fail_msg("rule %s ran for peer_enable", pw_rules[r].id);
	assert_int_equal(fired[PW_RULE_PEER_ENABLE_SELF], 1);
}

/* Bytes, padding included: each side is a byte copy of the other taken
 * with memcpy, so only a change of some member makes them differ. */
static bool bytes_differ(const void *a, const void *b, size_t n)
{
	return memcmp(a, b, n) != 0;
}

/* The wrapper skips the steps after a call for the ops of PW_OPS_NO_AFTER
 * (op.h).  That is right only while none of those steps does anything for
 * them: every vendor's op_after leaves such an op as it was, and
 * pw_check_after leaves the state as it was, for a call that succeeded
 * (its registry step is not seen here: no registry in a unit test). */
static void no_after_ops_change_nothing(void **state)
{
	(void)state;
	static unsigned char out[256]; /* what an out-parameter would point to */
	static unsigned char before[sizeof pw_state], was[sizeof(struct pw_op)];
	int kinds = 0;
	for (int k = 1; k < PW_OP_KINDS; k++) {
		struct pw_op op;
		memset(&op, 0, sizeof op);
		op.kind = (enum pw_op_kind)k;
		if (pw_op_has_after(&op))
			continue;
		kinds++;
		for (const struct pw_vendor *const *v = pw_vendors; *v; v++) {
			op.vendor = (*v)->vendor;
			op.api = "test";
			op.cur_dev = 0;
			op.peer_dev = 1;
			op.dst = (struct pw_mem){.ptr = 0x7000001000,
			                         .dev = 1,
			                         .named_dev = 1,
			                         .known = true,
			                         .base = 0x7000000000,
			                         .size = 1 << 20};
			op.src = (struct pw_mem){.ptr = 0x7100000000, .dev = 0, .named_dev = 0};
			op.bytes = 4;
			struct pw_call c;
			memset(&c, 0, sizeof c);
			for (int i = 0; i < PW_MAX_ARGS; i++)
				c.a[i] = (uint64_t)(uintptr_t)out;
			memcpy(was, &op, sizeof op);
			if ((*v)->op_after) {
				(*v)->op_after(&c, &op);
				if (bytes_differ(&op, was, sizeof op))
					fail_msg("%s's op_after changes a %s op", (*v)->name, pw_op_name(k));
			}
			memcpy(before, &pw_state, sizeof before);
			pw_check_after(&op, 0, false);
			if (bytes_differ(before, &pw_state, sizeof before))
				fail_msg("pw_check_after changes the state for a %s op (%s)", pw_op_name(k),
				         (*v)->name);
		}
	}
	assert_int_equal(kinds, __builtin_popcountll(PW_OPS_NO_AFTER));
	/* and the ops whose after steps matter are not among them */
	struct pw_op op = {.kind = PW_OP_CAN_ACCESS};
	assert_true(pw_op_has_after(&op));
	op.kind = PW_OP_IPC_OPEN;
	assert_true(pw_op_has_after(&op));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(every_row_has_an_op),
	    cmocka_unit_test(every_rule_has_ops),
	    cmocka_unit_test(every_rule_op_is_produced),
	    cmocka_unit_test(every_call_op_is_some_rows),
	    cmocka_unit_test(op_names),
	    cmocka_unit_test(rules_run_by_op),
	    cmocka_unit_test(no_after_ops_change_nothing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
