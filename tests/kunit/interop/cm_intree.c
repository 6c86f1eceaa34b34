// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * One CM's table for xcma_interop. Compiled twice: as cm_intree.o, with
 * nothing force-included, the rdma_* names below are the in-tree rdma_cm's;
 * as cm_xcma.o (which includes this file), with sbs.h force-included, they
 * are xcma's xcma_* exports. Only the table's name and live_ids differ.
 */
#include <linux/module.h>
#include <rdma/rdma_cm.h>
#include <rdma/restrack.h>

#include "interop.h"

#ifdef XCMA_SIDE_BY_SIDE
#include "../../../cma/xcma.h"

#define INTEROP_CM interop_xcma
#define INTEROP_CM_NAME "xcma"

static int live_ids(struct ib_device *ibdev)
{
	unsigned int holders;
	int state, ret;

	ret = xcma_device_query(dev_name(&ibdev->dev), &state, &holders);
	return ret ? ret : holders;
}
#else
#define INTEROP_CM interop_intree
#define INTEROP_CM_NAME "in-tree"

static int live_ids(struct ib_device *ibdev)
{
	return rdma_restrack_count(ibdev, RDMA_RESTRACK_CM_ID, false);
}
#endif

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
	.live_ids = live_ids,
};
