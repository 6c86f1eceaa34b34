/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The body of one CM's struct interop_cm, for xcma_interop and
 * xcma_bench: the file that includes it defines INTEROP_CM (the table's
 * name), INTEROP_CM_NAME and INTEROP_LIVE_IDS (a live_ids function or
 * NULL), and is compiled once plain (the in-tree rdma_cm's names) and
 * once with sbs.h force-included (xcma's xcma_* names).
 */
#include <rdma/rdma_cm.h>

#include "interop.h"

static struct rdma_cm_id *create_id(struct net *net,
				    rdma_cm_event_handler handler,
				    void *context, enum rdma_ucm_port_space ps,
				    enum ib_qp_type qp_type)
{
	return rdma_create_id(net, handler, context, ps, qp_type);
}

const struct interop_cm INTEROP_CM = {
	.name = INTEROP_CM_NAME,
	.create_id = create_id,
	.destroy_id = rdma_destroy_id,
	.bind_addr = rdma_bind_addr,
	.resolve_addr = rdma_resolve_addr,
	.resolve_route = rdma_resolve_route,
	.create_qp = rdma_create_qp,
	.destroy_qp = rdma_destroy_qp,
	.listen = rdma_listen,
	.connect = rdma_connect,
	.accept = rdma_accept,
	.reject = rdma_reject,
	.consumer_reject_data = rdma_consumer_reject_data,
	.disconnect = rdma_disconnect,
	.event_msg = rdma_event_msg,
	.live_ids = INTEROP_LIVE_IDS,
};
