/*
 * The little preprocessor machinery the hook tables need: count a list of
 * argument tuples and apply a macro to each.  Nothing else uses it.
 */
#ifndef PW_PP_H
#define PW_PP_H

#define PW_CAT(a, b) PW_CAT_(a, b)
#define PW_CAT_(a, b) a##b

#define PW_NARG(...) PW_NARG_(__VA_ARGS__, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define PW_NARG_(_1, _2, _3, _4, _5, _6, _7, _8, _9, N, ...) N

/* Signatures travel in parentheses, so that each row has a fixed number of
 * macro arguments before they are expanded: PW_EXPAND sig opens them. */
#define PW_EXPAND(...) __VA_ARGS__

#define PW_COMMA() ,
#define PW_SEMI() ;

/* PW_MAP(m, sep, t0, t1, ...) -> m(0, t0) sep() m(1, t1) ... */
#define PW_MAP(m, sep, ...) PW_CAT(PW_MAP_, PW_NARG(__VA_ARGS__))(m, sep, __VA_ARGS__)
#define PW_MAP_1(m, s, a) m(0, a)
#define PW_MAP_2(m, s, a, b) PW_MAP_1(m, s, a) s() m(1, b)
#define PW_MAP_3(m, s, a, b, c) PW_MAP_2(m, s, a, b) s() m(2, c)
#define PW_MAP_4(m, s, a, b, c, d) PW_MAP_3(m, s, a, b, c) s() m(3, d)
#define PW_MAP_5(m, s, a, b, c, d, e) PW_MAP_4(m, s, a, b, c, d) s() m(4, e)
#define PW_MAP_6(m, s, a, b, c, d, e, f) PW_MAP_5(m, s, a, b, c, d, e) s() m(5, f)
#define PW_MAP_7(m, s, a, b, c, d, e, f, g) PW_MAP_6(m, s, a, b, c, d, e, f) s() m(6, g)
#define PW_MAP_8(m, s, a, b, c, d, e, f, g, h) PW_MAP_7(m, s, a, b, c, d, e, f, g) s() m(7, h)
#define PW_MAP_9(m, s, a, b, c, d, e, f, g, h, i) PW_MAP_8(m, s, a, b, c, d, e, f, g, h) s() m(8, i)

/* Each argument of a hooked function is a tuple (KIND, C type, name).  A
 * function of no arguments has the one tuple PW_SIG_VOID: its kind NONE is
 * captured and recorded as nothing, and its name expands to nothing, so that
 * no macro argument is empty. */
#define PW_NONAME
#define PW_SIG_VOID (NONE, void, PW_NONAME)

/* The number of arguments of a signature: 0 for PW_SIG_VOID.  (The kind of
 * the first tuple is NONE exactly when PW_VOID_PROBE_<kind> is defined, and
 * then it pushes 1 into PW_SECOND's place.) */
#define PW_NARGS(...) (PW_NARG(__VA_ARGS__) - PW_IS_VOID(__VA_ARGS__))
#define PW_IS_VOID(t, ...) PW_SECOND_(PW_CAT(PW_VOID_PROBE_, PW_ARG_KIND(0, t)), 0, ~)
#define PW_VOID_PROBE_NONE ~, 1
#define PW_SECOND(a, b, ...) b
#define PW_SECOND_(...) PW_SECOND(__VA_ARGS__)
#define PW_ARG_KIND(i, t) PW_EXPAND(PW_ARG_KIND_ t)
#define PW_ARG_KIND_(k, ty, n) k
#define PW_ARG_DECL(i, t) PW_EXPAND(PW_ARG_DECL_ t)
#define PW_ARG_DECL_(k, ty, n) ty n
#define PW_ARG_TYPE(i, t) PW_EXPAND(PW_ARG_TYPE_ t)
#define PW_ARG_TYPE_(k, ty, n) ty
#define PW_ARG_NAME(i, t) PW_EXPAND(PW_ARG_NAME_ t)
#define PW_ARG_NAME_(k, ty, n) n
#define PW_ARG_DESC(i, t) PW_EXPAND(PW_ARG_DESC_ t)
#define PW_ARG_DESC_(k, ty, n) \
	{                      \
		PW_K_##k, #n   \
	}

#endif
