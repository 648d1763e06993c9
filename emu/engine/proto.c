// SPDX-License-Identifier: GPL-2.0-or-later
/* Tried regions on the wire, field by field (no padding bytes travel). */
#include "proto.h"

int proto_put_tried(struct emu_buf *b, const struct emu_tried_region *r)
{
	int err = emu_buf_put(b, &r->start, sizeof(r->start));

	if (!err)
		err = emu_buf_put(b, &r->end, sizeof(r->end));
	if (!err)
		err = emu_buf_put(b, &r->nr_accesses, sizeof(r->nr_accesses));
	if (!err)
		err = emu_buf_put(b, &r->age, sizeof(r->age));
	if (!err)
		err = emu_buf_put(b, &r->sz_filter_passed, sizeof(r->sz_filter_passed));
	if (!err)
		err = emu_buf_put(b, r->probe_hits, sizeof(r->probe_hits));
	return err;
}

int proto_get_tried(struct emu_reader *rd, struct emu_tried_region *r)
{
	int err = emu_rd_get(rd, &r->start, sizeof(r->start));

	if (!err)
		err = emu_rd_get(rd, &r->end, sizeof(r->end));
	if (!err)
		err = emu_rd_get(rd, &r->nr_accesses, sizeof(r->nr_accesses));
	if (!err)
		err = emu_rd_get(rd, &r->age, sizeof(r->age));
	if (!err)
		err = emu_rd_get(rd, &r->sz_filter_passed, sizeof(r->sz_filter_passed));
	if (!err)
		err = emu_rd_get(rd, r->probe_hits, sizeof(r->probe_hits));
	return err;
}
