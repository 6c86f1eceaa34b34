// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The ops layer: the real ib_core / ib_cm / address resolution functions
 * behind one table of pointers. Several of them are static inlines in the
 * kernel's headers (ib_create_qp, ib_destroy_qp): wrapping them here gives
 * each one an address a test can replace. The same goes for the work item
 * that stands for a RoCE route query.
 */
#include <linux/export.h>
#include <linux/workqueue.h>

#include "ops.h"

static struct ib_qp *create_qp(struct ib_pd *pd, struct ib_qp_init_attr *attr)
{
	return ib_create_qp(pd, attr);
}

static int destroy_qp(struct ib_qp *qp)
{
	return ib_destroy_qp(qp);
}

static bool queue_route(struct work_struct *work)
{
	return queue_work(system_unbound_wq, work);
}

const struct xcma_ops xcma_kernel_ops = {
	.resolve_ip = rdma_resolve_ip,
	.addr_cancel = rdma_addr_cancel,
	.translate_ip = rdma_translate_ip,
	.find_gid_by_port = rdma_find_gid_by_port,
	.put_gid_attr = rdma_put_gid_attr,
	.create_cm_id = ib_create_cm_id,
	.destroy_cm_id = ib_destroy_cm_id,
	.insert_listen = ib_cm_insert_listen,
	.send_req = ib_send_cm_req,
	.send_rep = ib_send_cm_rep,
	.send_rtu = ib_send_cm_rtu,
	.send_rej = ib_send_cm_rej,
	.send_mra = ib_send_cm_mra,
	.send_dreq = ib_send_cm_dreq,
	.send_drep = ib_send_cm_drep,
	.cm_notify = ib_cm_notify,
	.cm_init_qp_attr = ib_cm_init_qp_attr,
	.reject_msg = ibcm_reject_msg,
	.create_qp = create_qp,
	.modify_qp = ib_modify_qp,
	.destroy_qp = destroy_qp,
	.find_cached_pkey = ib_find_cached_pkey,
	.get_cached_pkey = ib_get_cached_pkey,
	.get_port_state = ib_get_cached_port_state,
	.query_gid = rdma_query_gid,
	.queue_route = queue_route,
};
EXPORT_SYMBOL_NS_GPL(xcma_kernel_ops, XCMA_INTERNAL);

const struct xcma_ops *xcma_ops = &xcma_kernel_ops;

/**
 * xcma_ops_set - substitute the ops (KUnit)
 * @ops: the new table, or NULL for the kernel's functions
 *
 * Only while no other thread is inside xcma (a test between its own
 * calls): callers in flight read the pointer unlocked.
 *
 * Return: the previous table.
 */
const struct xcma_ops *xcma_ops_set(const struct xcma_ops *ops)
{
	const struct xcma_ops *old = xcma_ops;

	WRITE_ONCE(xcma_ops, ops ? ops : &xcma_kernel_ops);
	return old;
}
EXPORT_SYMBOL_NS_GPL(xcma_ops_set, XCMA_INTERNAL);
