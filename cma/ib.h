/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Connections over ib_cm. See ib.c.
 */
#ifndef XCMA_IB_H
#define XCMA_IB_H

struct ib_cm_event;
struct ib_cm_id;
struct xcma_id;

int xcma_ib_req_handler(struct ib_cm_id *cm_id,
			const struct ib_cm_event *ib_event);
void xcma_ib_release(struct xcma_id *xid);

#endif /* XCMA_IB_H */
