/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * UD ids over ib_cm (SIDR). See ud.c.
 */
#ifndef XCMA_UD_H
#define XCMA_UD_H

#include <linux/types.h>
#include <rdma/rdma_user_cm.h>

struct ib_cm_event;
struct ib_cm_id;
struct xcma_id;

int xcma_ud_set_qkey(struct xcma_id *xid, u32 qkey);
u32 xcma_ud_ps_qkey(enum rdma_ucm_port_space ps);
int xcma_ud_default_qkey(struct xcma_id *xid);
int xcma_ud_req_handler(struct ib_cm_id *cm_id,
			const struct ib_cm_event *ib_event);

#endif /* XCMA_UD_H */
