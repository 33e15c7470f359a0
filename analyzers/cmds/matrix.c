/*
 * matrix: per host and vendor, device x device — bytes, copies and
 * bandwidth of the copies between devices, peer-access state, and the
 * copies made while peer access between the two devices was off
 * (model/copies.h counts them).  The text report draws three grids per
 * host and vendor: bytes, peer access at exit (on / off / refused) and
 * device GB/s, then the pair table.
 */
#include <stdlib.h>
#include <string.h>

#include "base/opts.h"
#include "base/show.h"
#include "base/table.h"
#include "cmds/cmds.h"
#include "model/copies.h"
#include "model/devices.h"
#include "read/files.h"
#include "read/reader.h"

/* The physical devices of the traces; the cells below are merged onto them. */
static const struct pw_devmap *dm;

static void fmt_key(char *buf, size_t len, int64_t key)
{
	pw_devkey_fmt(dm, key, buf, len);
}

/* Beyond this many devices on a host the grid would not fit a screen; the
 * pair table below it says everything anyway. */
#define GRID_MAX 32

/* What one grid shows in a cell; false: "-". */
typedef bool (*grid_fmt)(char *buf, size_t len, const struct copy_cell *c);

static bool grid_bytes(char *buf, size_t len, const struct copy_cell *c)
{
	if (!c->copies)
		return false;
	fmt_bytes(buf, len, c->bytes);
	return true;
}

/* Peer access from SRC to DST as the processes left it: "on" where one
 * left it on, "off" where it was turned on (or granted) and off again,
 * "refused" where every enable failed (llama.cpp#21883's too many peers). */
static bool grid_peer(char *buf, size_t len, const struct copy_cell *c)
{
	if (c->on_at_end)
		snprintf(buf, len, "on");
	else if (c->enables || c->grants)
		snprintf(buf, len, "off");
	else if (c->enable_failed)
		snprintf(buf, len, "refused");
	else
		return false;
	return true;
}

static bool grid_gpu(char *buf, size_t len, const struct copy_cell *c)
{
	if (!c->gpu_ns)
		return false;
	fmt_gbps(buf, len, c->gpu_bytes, c->gpu_ns);
	return true;
}

static void print_grid(struct copy_cell **cells, size_t from, size_t to, const char *title, grid_fmt fmt)
{
	size_t nd;
	int64_t *dev = copies_devices(cells, from, to, &nd);
	if (nd > GRID_MAX) {
		printf("  %s: %zu devices, too many for a grid, see the table\n", title, nd);
		free(dev);
		return;
	}
	char(*buf)[32] = xcalloc(nd + 1, sizeof *buf);
	const char **cell = xcalloc(nd + 1, sizeof *cell);
	char align[GRID_MAX + 2] = "l";
	cell[0] = "SRC\\DST";
	for (size_t j = 0; j < nd; j++) {
		fmt_key(buf[j + 1], sizeof buf[j + 1], dev[j]);
		cell[j + 1] = buf[j + 1];
		align[j + 1] = 'r';
	}
	align[nd + 1] = 0;
	struct table t;
	table_initv(&t, align, cell);
	for (size_t i = 0; i < nd; i++) {
		fmt_key(buf[0], sizeof buf[0], dev[i]);
		cell[0] = buf[0];
		for (size_t j = 0; j < nd; j++) {
			const struct copy_cell *c = copies_find(cells, from, to, dev[i], dev[j]);
			if (!c || !fmt(buf[j + 1], sizeof buf[j + 1], c))
				snprintf(buf[j + 1], sizeof buf[j + 1], "-");
		}
		table_rowv(&t, cell);
	}
	printf("  %s\n", title);
	table_print(&t, stdout, "  ");
	table_free(&t);
	free(buf);
	free(cell);
	free(dev);
}

/* The grids of one host and vendor: bytes, peer access where any was
 * turned on, device bandwidth where any copy was timed on the device. */
static void print_grids(struct copy_cell **cells, size_t from, size_t to)
{
	bool peer = false, gpu = false, copies = false;
	for (size_t i = from; i < to; i++) {
		copies |= cells[i]->copies > 0;
		peer |= cells[i]->enables || cells[i]->grants || cells[i]->enable_failed;
		gpu |= cells[i]->gpu_ns > 0;
	}
	if (copies)
		print_grid(cells, from, to, "bytes copied (row: source, column: destination)", grid_bytes);
	if (peer) {
		if (copies)
			printf("\n");
		print_grid(cells, from, to,
		           "peer access at exit (row: the device that has access, column: its peer)",
		           grid_peer);
	}
	if (gpu) {
		printf("\n");
		print_grid(cells, from, to,
		           "device-measured GB/s (gpu_timing=1; row: source, column: destination)", grid_gpu);
	}
}

static void print_pairs(struct copy_cell **cells, size_t from, size_t to)
{
	struct table t;
	table_init(&t, "lllrrrrrrrrrrr", "SRC", "DST", "LINK", "COPIES", "FAILED", "BYTES", "HOST TIME",
	           "HOST GB/S", "GPU GB/S", "NO PEER", "IMPLICIT", "PEER ON/OFF", "GRANTS", "ON AT END");
	for (size_t i = from; i < to; i++) {
		const struct copy_cell *c = cells[i];
		char s[32], d[32], ln[48], n[24], fl[24], by[32], ht[32], hg[32], gg[32], np[24], im[24],
		    oo[48], gr[24], end[24];
		fmt_key(s, sizeof s, c->src);
		fmt_key(d, sizeof d, c->dst);
		pw_link_fmt(pw_devmap_link(dm, c->src, c->dst), ln, sizeof ln);
		snprintf(n, sizeof n, "%llu", (unsigned long long)c->copies);
		snprintf(fl, sizeof fl, "%llu", (unsigned long long)c->failed);
		fmt_bytes(by, sizeof by, c->bytes);
		fmt_ns(ht, sizeof ht, (double)c->host_ns);
		fmt_gbps(hg, sizeof hg, c->bytes, c->host_ns);
		fmt_gbps(gg, sizeof gg, c->gpu_bytes, c->gpu_ns);
		bool judged = c->src >= 0 && c->dst >= 0 && c->src != c->dst;
		snprintf(np, sizeof np, judged ? "%llu" : "-", (unsigned long long)c->no_peer);
		snprintf(oo, sizeof oo, "%llu/%llu", (unsigned long long)c->enables,
		         (unsigned long long)c->disables);
		snprintf(end, sizeof end, "%llu", (unsigned long long)c->on_at_end);
		snprintf(im, sizeof im, "%llu", (unsigned long long)c->implicit);
		snprintf(gr, sizeof gr, "%llu", (unsigned long long)c->grants);
		table_row(&t, s, d, ln, n, fl, by, ht, hg, gg, np, im, oo, gr, end);
	}
	printf("\n");
	table_print(&t, stdout, "  ");
	table_free(&t);
}

static void print_text(const struct copy_matrix *m, const struct pw_input *in)
{
	struct copy_cell **cells = copies_sorted(m);
	size_t n = m->cells.len;
	if (!n)
		printf("no copies between devices or peer-access changes in the traces\n");
	for (size_t from = 0; from < n;) {
		size_t to = from;
		while (to < n && !strcmp(cells[to]->host, cells[from]->host) &&
		       !strcmp(cells[to]->vendor, cells[from]->vendor))
			to++;
		char *h = sanitize(cells[from]->host);
		printf("%shost %s, %s devices\n", from ? "\n" : "", h, cells[from]->vendor);
		free(h);
		pw_devmap_legend(dm, in, cells[from]->host, cells[from]->vendor, "  ");
		print_grids(cells, from, to);
		print_pairs(cells, from, to);
		from = to;
	}
	if (n)
		printf(
		    "\nGB/s: 10^9 bytes/s.  HOST TIME: time in the call (an async copy returns before it is "
		    "done).\nNO PEER: copies between two devices while neither had peer access to the other "
		    "enabled (staged through the host).\nIMPLICIT: copies the program did not name as peer "
		    "copies (cuMemcpy and the like across devices; batch entries each count).\nPEER ON/OFF: "
		    "successful enables/disables from SRC's context to DST's; GRANTS: cuMemSetAccess/"
		    "cuMemPoolSetAccess\ngrants to DST of memory on SRC; ON AT END: processes that left "
		    "access "
		    "on.\nA call made inside another recorded call counts only through that call.\nGPUn: a "
		    "device by its UUID, numbered by PCI bus id among those the traces name (the legend "
		    "gives each process's ordinal of it); LINK: NVn (NVLinks), via NVSwitch, PCIe, as the "
		    "management library told the traced process.\n");
	if (n && pw_devmap_note(dm))
		printf("%s.\n", pw_devmap_note(dm));
	free(cells);
}

static json_t *gbps_json(uint64_t bytes, uint64_t ns)
{
	return ns ? json_real((double)bytes / (double)ns) : json_null();
}

static json_t *dev_json(int64_t d)
{
	return pw_devkey_json(dm, d);
}

static json_t *cell_json(const struct copy_cell *c)
{
	json_t *j = json_object();
	json_object_set_new(j, "src", dev_json(c->src));
	json_object_set_new(j, "dst", dev_json(c->dst));
	json_object_set_new(j, "link", pw_link_json(pw_devmap_link(dm, c->src, c->dst)));
	json_object_set_new(j, "copies", json_u64(c->copies));
	json_object_set_new(j, "failed", json_u64(c->failed));
	json_object_set_new(j, "bytes", json_u64(c->bytes));
	json_object_set_new(j, "host_ns", json_u64(c->host_ns));
	json_object_set_new(j, "host_gbps", gbps_json(c->bytes, c->host_ns));
	json_object_set_new(j, "gpu_copies", json_u64(c->gpu_copies));
	json_object_set_new(j, "gpu_bytes", json_u64(c->gpu_bytes));
	json_object_set_new(j, "gpu_ns", json_u64(c->gpu_ns));
	json_object_set_new(j, "gpu_gbps", gbps_json(c->gpu_bytes, c->gpu_ns));
	bool judged = c->src >= 0 && c->dst >= 0 && c->src != c->dst;
	json_object_set_new(j, "no_peer_copies", judged ? json_u64(c->no_peer) : json_null());
	json_object_set_new(j, "no_peer_bytes", judged ? json_u64(c->no_peer_bytes) : json_null());
	json_object_set_new(j, "implicit_copies", json_u64(c->implicit));
	json_object_set_new(j, "implicit_bytes", json_u64(c->implicit_bytes));
	json_object_set_new(j, "batch_copies", json_u64(c->batch));
	json_object_set_new(j, "peer_enables", json_u64(c->enables));
	json_object_set_new(j, "peer_enable_failures", json_u64(c->enable_failed));
	json_object_set_new(j, "peer_disables", json_u64(c->disables));
	json_object_set_new(j, "access_grants", json_u64(c->grants));
	json_object_set_new(j, "peer_on_at_end", json_u64(c->on_at_end));
	return j;
}

static void print_json(const struct copy_matrix *m, const struct pw_input *in)
{
	struct copy_cell **cells = copies_sorted(m);
	size_t n = m->cells.len;
	json_t *doc = json_object(), *hosts = json_array();
	for (size_t from = 0; from < n;) {
		size_t to = from, nd;
		while (to < n && !strcmp(cells[to]->host, cells[from]->host) &&
		       !strcmp(cells[to]->vendor, cells[from]->vendor))
			to++;
		json_t *h = json_object(), *devs = json_array(), *pairs = json_array();
		int64_t *dev = copies_devices(cells, from, to, &nd);
		for (size_t i = 0; i < nd; i++)
			json_array_append_new(devs, dev_json(dev[i]));
		free(dev);
		for (size_t i = from; i < to; i++)
			json_array_append_new(pairs, cell_json(cells[i]));
		json_object_set_new(h, "host", json_string(cells[from]->host));
		json_object_set_new(h, "vendor", json_string(cells[from]->vendor));
		json_object_set_new(h, "devices", devs);
		json_object_set_new(h, "identities",
		                    pw_devmap_json(dm, in, cells[from]->host, cells[from]->vendor));
		json_object_set_new(h, "pairs", pairs);
		json_array_append_new(hosts, h);
		from = to;
	}
	json_object_set_new(doc, "hosts", hosts);
	json_object_set_new(doc, "traces_without_devices", json_integer((json_int_t)dm->unidentified));
	json_print(doc);
	free(cells);
}

int cmd_matrix(const struct pw_opts *o)
{
	struct copy_matrix m;
	struct pw_input in = {0};
	hmap_init(&m.cells);
	struct pw_sink sink = {&copies_ops, &m};
	int st = an_read(o, &in, &sink, 1);
	if (st != PW_READ_FATAL && in.n) {
		struct pw_devmap map;
		struct copy_matrix merged;
		pw_devmap_build(&map, &in);
		dm = &map;
		hmap_init(&merged.cells);
		copies_regroup(&merged, &m, &map);
		if (o->json)
			print_json(&merged, &in);
		else
			print_text(&merged, &in);
		hmap_free(&merged.cells, copies_free_cell);
		pw_devmap_free(&map);
		dm = NULL;
	}
	hmap_free(&m.cells, copies_free_cell);
	pw_input_free(&in);
	return an_exit(st);
}
