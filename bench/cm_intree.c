// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * One CM's table for xcma_bench. Compiled twice: as cm_intree.o, with
 * nothing force-included, the rdma_* names below are the in-tree rdma_cm's;
 * as cm_xcma.o (which includes this file), with sbs.h force-included, they
 * are xcma's xcma_* exports. Only the table's name differs.
 */
#include <linux/module.h>
#include <rdma/rdma_cm.h>

#include "bench.h"

#ifdef XCMA_SIDE_BY_SIDE
#define BENCH_CM bench_xcma
#define BENCH_CM_NAME "xcma"
#else
#define BENCH_CM bench_intree
#define BENCH_CM_NAME "intree"
#endif

static struct rdma_cm_id *create_id(struct net *net,
				    rdma_cm_event_handler handler,
				    void *context, enum rdma_ucm_port_space ps,
				    enum ib_qp_type qp_type)
{
	return rdma_create_id(net, handler, context, ps, qp_type);
}

const struct bench_cm BENCH_CM = {
	.name = BENCH_CM_NAME,
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
	.disconnect = rdma_disconnect,
};
