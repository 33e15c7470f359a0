# The budget lines of latency.sh, each with how sure the figure is.
#
#   awk -v last=BUNDLE -v modes="observe warn" -v ops=can,async4 \
#       [-v boot=2000] [-v seed=1] -f latency_budget.awk RAW
#
# RAW: latency.sh's raw figures, one run's line per row:
#   round variant config op threads thr_cpu_ns dropped
# A figure is made of medians over the rounds ("added" = a configuration's
# median minus plain's, a ratio = one added over another).  One process's
# figure moves by tens of ns on the GPU hosts, so each line also gives a
# 95% interval: the figure recomputed over boot resamplings of the rounds
# (a round drawn whole, so that the runs of one round stay together), and
# the 2.5th and 97.5th percentiles of those.  The verdict:
#   PASS   the whole interval within the limit
#   OVER   the whole interval past it
#   PASS?  the figure within it, the interval across it (not settled)
#   OVER?  the figure past it, the interval across it (not settled)
# The resampling is seeded (seed), so one RAW always gives one report with
# one awk (mawk and gawk draw different numbers from one seed).

{
	if (!($1 in rid)) {
		rid[$1] = ++nr
	}
	k = $4 SUBSEP $2 SUBSEP $5 SUBSEP $3
	if (!(k in nk))
		nk[k] = 0
	j = ++nk[k]
	val[k, j] = $6 + 0
	rnd[k, j] = rid[$1]
}

# sort the runs of every configuration by their figure, once
function presort(k, n, i, j, tv, tr) {
	n = nk[k]
	for (i = 2; i <= n; i++) {
		tv = val[k, i]
		tr = rnd[k, i]
		for (j = i - 1; j >= 1 && val[k, j] > tv; j--) {
			val[k, j + 1] = val[k, j]
			rnd[k, j + 1] = rnd[k, j]
		}
		val[k, j + 1] = tv
		rnd[k, j + 1] = tr
	}
}

# the median of configuration k over the rounds drawn (cnt[r]: how many
# times round r was drawn); "" when none of its runs was drawn
function med(k, n, i, tot, c, lo, hi, a) {
	n = nk[k]
	tot = 0
	for (i = 1; i <= n; i++)
		tot += cnt[rnd[k, i]]
	if (!tot)
		return ""
	lo = int((tot + 1) / 2) # the middle run, or the two middle ones
	hi = int(tot / 2) + 1
	c = 0
	a = ""
	for (i = 1; i <= n; i++) {
		c += cnt[rnd[k, i]]
		if (a == "" && c >= lo)
			a = val[k, i]
		if (c >= hi)
			return (a + val[k, i]) / 2
	}
	return a
}

# what configuration cfg adds over plain for (op, variant, threads)
function added(op, variant, th, cfg, m, p) {
	m = med(op SUBSEP variant SUBSEP th SUBSEP cfg)
	p = med(op SUBSEP variant SUBSEP th SUBSEP "plain")
	return (m == "" || p == "") ? "" : m - p
}

# the figure of budget line i under the current draw
function figure(i, x, y) {
	x = added(L_op[i], L_v[i], L_th[i], L_cfg[i])
	if (L_kind[i] == "ns")
		return x
	y = added(L_op2[i], L_v2[i], L_th2[i], L_cfg[i])
	if (x == "" || y == "")
		return ""
	return y > 0 ? x / y : 1e9 # nothing added below: no ratio can pass
}

# a budget line: the added figure of (op, v, th, cfg), or its ratio to that
# of (op2, v2, th2, cfg) (op2: op when not given)
function line(desc, kind, limit, op, v, th, cfg, v2, th2, op2) {
	n_l++
	L_desc[n_l] = desc
	L_kind[n_l] = kind
	L_lim[n_l] = limit
	L_op[n_l] = op
	L_v[n_l] = v
	L_th[n_l] = th
	L_cfg[n_l] = cfg
	L_v2[n_l] = v2
	L_th2[n_l] = th2
	L_op2[n_l] = op2 == "" ? op : op2
}

function has(list, x, sep) {
	return index(sep list sep, sep x sep) > 0
}

function pct(arr, n, p, idx) {
	idx = int(p * (n - 1) + 0.5) + 1
	return arr[idx]
}

END {
	if (boot == "")
		boot = 2000
	if (seed == "")
		seed = 1
	for (k in nk)
		presort(k)
	split(modes, ML, " ")
	# what each call adds, between processes and then inside one (-ab-one)
	for (ab = 0; ab <= 1; ab++)
		for (o = 1; o <= 2; o++) {
			call = o == 1 ? "async4" : "can"
			# not "call (ab ? ... : ...)": mawk 1.3.4 reads past its buffer
			# on that here (AddressSanitizer, preloaded in the CI's pass)
			op = call
			if (ab)
				op = op "-ab-one"
			what = ab ? ", one layer, in-process A/B, 1 thread" : ", static cudart, 1 thread"
			if (!has(ops, op, ","))
				continue
			if (has(modes, "observe", " "))
				line("observe, added, " call what, "ns", 100, op, "static", 1, last ":observe")
			if (has(modes, "warn", " "))
				line("warn (every rule), added, " call what, "ns", 250, op, "static", 1, last ":warn")
		}
	for (o = 1; o <= 2; o++) {
		op = o == 1 ? "async4" : "can"
		if (!has(ops, op, ","))
			continue
		for (m = 1; m in ML; m++)
			line("shared cudart (runtime + nested driver call) / static, " op ", " ML[m], "x", 1.3, op,
			     "shared", 1, last ":" ML[m], "static", 1)
	}
	for (o = 1; o <= 2; o++) {
		ab = o == 1 ? "async4" : "can"
		if (!has(ops, ab "-ab-pair", ","))
			continue
		for (m = 1; m in ML; m++)
			line("runtime + nested driver call / one layer, " ab ", in-process A/B, " ML[m], "x", 1.3,
			     ab "-ab-pair", "shared", 1, last ":" ML[m], "shared", 1, ab "-ab-one")
	}
	for (o = 1; o <= 2; o++) {
		op = o == 1 ? "async4" : "can"
		if (!has(ops, op, ","))
			continue
		for (v = 1; v <= 2; v++) {
			variant = v == 1 ? "static" : "shared"
			for (m = 1; m in ML; m++)
				line("8 threads / 1 thread, added per call, " op ", " variant ", " ML[m], "x", 1.5, op,
				     variant, 8, last ":" ML[m], variant, 1)
		}
	}
	for (o = 1; o <= 4; o++) {
		op = (o <= 2 ? "async4" : "can") (o % 2 ? "-ab-one" : "-ab-pair")
		if (!has(ops, op, ","))
			continue
		for (m = 1; m in ML; m++)
			line("8 threads / 1 thread, added per call, " (o <= 2 ? "async4" : "can") ", " \
			     (o % 2 ? "one layer" : "runtime + nested") ", A/B, " ML[m], "x", 1.5, op,
			     o % 2 ? "static" : "shared", 8, last ":" ML[m], o % 2 ? "static" : "shared", 1)
	}
	# the figures over every round
	for (r = 1; r <= nr; r++)
		cnt[r] = 1
	for (i = 1; i <= n_l; i++)
		F[i] = figure(i)
	# and over each resampling
	srand(seed)
	for (b = 1; b <= boot; b++) {
		for (r = 1; r <= nr; r++)
			cnt[r] = 0
		for (r = 1; r <= nr; r++)
			cnt[int(rand() * nr) + 1]++
		for (i = 1; i <= n_l; i++) {
			x = figure(i)
			if (x != "")
				S[i, ++ns[i]] = x
		}
	}
	for (i = 1; i <= n_l; i++) {
		unit = L_kind[i] == "ns" ? "ns/call" : "x"
		fmt = L_kind[i] == "ns" ? "%.1f" : "%.2f"
		if (F[i] == "") {
			printf "%-5s  %-76s %8s %s (limit %s: no figures)\n", "OVER", L_desc[i], "-", unit, L_lim[i]
			continue
		}
		n = ns[i]
		for (a1 = 1; a1 <= n; a1++)
			T[a1] = S[i, a1]
		for (a1 = 2; a1 <= n; a1++) {
			t = T[a1]
			for (a2 = a1 - 1; a2 >= 1 && T[a2] > t; a2--)
				T[a2 + 1] = T[a2]
			T[a2 + 1] = t
		}
		lo = pct(T, n, 0.025)
		hi = pct(T, n, 0.975)
		if (hi <= L_lim[i])
			verdict = "PASS"
		else if (lo > L_lim[i])
			verdict = "OVER"
		else
			verdict = F[i] <= L_lim[i] ? "PASS?" : "OVER?"
		printf "%-5s  %-76s %8s %s (limit %s; 95%% interval " fmt "-" fmt ")\n", verdict, L_desc[i],
		       sprintf(fmt, F[i]), unit, L_lim[i], lo, hi
	}
}
