/*
 * The listing of every memory and event handle's life (the ipc command),
 * in memory bounded by the handles, not by the calls.
 *
 * ipc_derive (ipclife.h) places every IPC call of every file in one time
 * order before it matches them; all a call's matching needs of other files
 * is its handle's first export.  So each file's IPC calls are matched on
 * their own, in the file's time order (sorted beyond memory where the file
 * holds many, base/xsort.h), as ipc_derive would match them: a close to
 * the latest open of its pointer (ACL: of its key) not yet ended, a free
 * (an event's destroy) to the handles the file exported it under.  A row
 * that holds only if the file is its handle's first exporter (a free, a
 * destroy, the exporter's close of an ACL key) is kept or let go when
 * every file is read.  The rows are then sorted beyond memory into the
 * listing's order: handles by their first call (host, time, file, seq),
 * each handle's calls in time order, then the closes no open explains.
 *
 * VMM and pool sharing is not listed here: its chains are in the findings'
 * report (ipc_findings_ops with vmm_detail), as are the findings.
 */
#ifndef PW_AN_IPCLIST_H
#define PW_AN_IPCLIST_H

#include "base/xsort.h"
#include "model/ipclife.h"

enum {
	ROW_PTR = 1,         /* has a pointer (an event's value) */
	ROW_ENDS = 2,        /* a close (destroy) that ended an open */
	ROW_IF_EXPORTER = 4, /* holds if its file is the handle's first exporter ... */
	ROW_ELSE_STRAY = 8,  /* ... else it is a close no open explains */
};

/* One line of the listing: a call as its handle's life lists it. */
struct ipc_row {
	uint32_t grank; /* its handle's place in the listing; IPC_ROW_STRAY: a stray close */
	uint32_t hrank; /* its host's place (by name) */
	int64_t t_ns;
	uint64_t seq;
	uint32_t file;
	uint32_t group; /* while read: the reading worker's handle index, or IPC_ROW_STRAY */
	uint8_t op;     /* enum ipc_op */
	uint8_t flags;  /* ROW_* */
	int64_t ret, dev;
	uint64_t ptr;
	uint64_t of_seq;                     /* ROW_ENDS: the seq of the open it ended (in its file) */
	const char *api, *ret_name, *vendor; /* interned: live as long as the listing */
};

#define IPC_ROW_STRAY UINT32_MAX

/* A handle as the listing shows it. */
struct ipc_lhandle {
	const char *key; /* ipc_handle_key's (the index's copy) */
	size_t klen;
	const char *handle, *host, *vendor;
	bool event;
	bool exported, freed;  /* a successful export; its exporter's free (destroy) */
	uint64_t ex_ptr;       /* the first export's pointer */
	int64_t ex_t, first_t; /* the first export; the first call */
	uint64_t ex_seq, first_seq;
	uint32_t ex_file, first_file;
	size_t row0, nrows; /* its rows (after ipc_list_done) */
};

struct ipc_list {
	struct vec parts;   /* struct ipc_lpart * (ipclist.c), one per reading worker */
	struct hmap index;  /* handle key -> index + 1 in handles */
	struct vec handles; /* struct ipc_lhandle, in the listing's order after ipc_list_done */
	struct xsort rows;  /* struct ipc_row, sorted */
	size_t stray0;      /* the first stray close's row */
};

extern const struct pw_sink_ops ipc_list_ops;

void ipc_list_init(struct ipc_list *l);
/* Every file read: the conditional rows decided, handles ranked, rows sorted. */
void ipc_list_done(struct ipc_list *l, const struct pw_input *in);
/* The place of the handle with key k in the listing, or IPC_ROW_STRAY. */
uint32_t ipc_list_rank(const struct ipc_list *l, const char *k, size_t klen);
static inline const struct ipc_row *ipc_list_row(struct ipc_list *l, size_t i)
{
	return xsort_at(&l->rows, i);
}
void ipc_list_free(struct ipc_list *l);

#endif
