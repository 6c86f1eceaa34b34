// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The id's QP: created on the id's device and port and moved to INIT at
 * once; RTR and RTS when the connection is made (ib.c), ERR when it ends.
 * The attributes of each step come from ib_cm once there is a connection.
 */
#include <linux/export.h>
#include <linux/mutex.h>
#include <rdma/ib_cache.h>

#include "id.h"
#include "ops.h"
#include "qp.h"
#include "trace.h"
#include "transport.h"

/**
 * xcma_qp_attr_noconn - the attributes of an id's QP before a connection
 * @xid: the id, on an IB or RoCE port
 * @attr: out: its pkey index and port
 * @mask: out: IB_QP_STATE, IB_QP_PKEY_INDEX and IB_QP_PORT
 *
 * The transport adds its own (RC the access flags, UD the QKEY).
 *
 * Return: 0, or -ENOENT when the port has not the pkey.
 */
int xcma_qp_attr_noconn(struct xcma_id *xid, struct ib_qp_attr *attr,
			int *mask)
{
	struct rdma_cm_id *id = &xid->id;
	u16 pkey;
	int ret;

	/* RoCE has the default pkey only; IB the address's (IPoIB's) */
	pkey = xcma_transport(id->device, id->port_num) == XCMA_TRANSPORT_ROCE ?
		       0xffff :
		       ib_addr_get_pkey(&id->route.addr.dev_addr);
	ret = xcma_ops->find_cached_pkey(id->device, id->port_num, pkey,
					 &attr->pkey_index);
	if (ret)
		return ret;
	attr->port_num = id->port_num;
	*mask = IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT;
	return 0;
}

/**
 * xcma_qp_take_num - the QP number and SRQ of a user-managed QP
 * @xid: the id
 * @param: the caller's connection parameters, or NULL
 *
 * An id with its own QP (rdma_create_qp()) keeps that one's.
 */
void xcma_qp_take_num(struct xcma_id *xid, struct rdma_conn_param *param)
{
	mutex_lock(&xid->qp_mutex);
	if (!xid->id.qp && param) {
		xid->qp_num = param->qp_num;
		xid->srq = param->srq;
	}
	mutex_unlock(&xid->qp_mutex);
}

/**
 * rdma_init_qp_attr - the attributes for moving the id's QP to a state
 * @id: the id
 * @qp_attr: in: qp_state; out: the attributes
 * @qp_attr_mask: out: which attributes are set
 *
 * A UD id's attributes are always its own (its QKEY among them: the port
 * space's, see ud.c), ib_cm has none for it.
 *
 * Return: 0; -ENOSYS on a device without ib_cm or iw_cm; for a UD id of
 * PS_IPOIB, ib_sa's errno when it knows no broadcast group (-ENODEV on
 * RoCE); the errnos of ib_cm and iw_cm.
 */
int rdma_init_qp_attr(struct rdma_cm_id *id, struct ib_qp_attr *qp_attr,
		      int *qp_attr_mask)
{
	struct xcma_id *xid = xcma_id_of(id);
	const struct xcma_transport_ops *ops = xcma_id_transport(xid);
	int ret;

	if (!ops)
		return -XCMA_ENOTRANSPORT;
	ret = ops->init_qp_attr(xid, qp_attr, qp_attr_mask);
	if (ret)
		return ret;
	if (qp_attr->qp_state == IB_QPS_RTR)
		qp_attr->rq_psn = xid->seq_num;
	/* the user's overrides; read as in-tree, without qp_mutex */
	if ((*qp_attr_mask & IB_QP_TIMEOUT) && xid->timeout_set)
		qp_attr->timeout = xid->timeout;
	if ((*qp_attr_mask & IB_QP_MIN_RNR_TIMER) && xid->min_rnr_timer_set)
		qp_attr->min_rnr_timer = xid->min_rnr_timer;
	return 0;
}
EXPORT_SYMBOL(rdma_init_qp_attr);

/* a UD QP needs no peer: INIT with the id's QKEY, then RTR and RTS */
static int init_ud_qp(struct xcma_id *xid, struct ib_qp *qp)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_INIT };
	int mask, ret;

	ret = rdma_init_qp_attr(&xid->id, &attr, &mask);
	if (!ret)
		ret = xcma_ops->modify_qp(qp, &attr, mask);
	if (ret)
		return ret;
	attr.qp_state = IB_QPS_RTR;
	ret = xcma_ops->modify_qp(qp, &attr, IB_QP_STATE);
	if (ret)
		return ret;
	attr.qp_state = IB_QPS_RTS;
	attr.sq_psn = 0;
	return xcma_ops->modify_qp(qp, &attr, IB_QP_STATE | IB_QP_SQ_PSN);
}

static int init_conn_qp(struct xcma_id *xid, struct ib_qp *qp)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_INIT };
	int mask, ret;

	ret = rdma_init_qp_attr(&xid->id, &attr, &mask);
	if (!ret)
		ret = xcma_ops->modify_qp(qp, &attr, mask);
	return ret;
}

/**
 * rdma_create_qp - create the id's QP: in INIT, or in RTS for UD
 * @id: the id, with a device (address resolved, or a conn id)
 * @pd: a PD of the id's device
 * @qp_init_attr: as ib_create_qp(); port_num is set to the id's
 *
 * Return: 0; -EINVAL for a PD of another device or an id without one;
 * the errnos of rdma_init_qp_attr() and of the verbs.
 */
int rdma_create_qp(struct rdma_cm_id *id, struct ib_pd *pd,
		   struct ib_qp_init_attr *qp_init_attr)
{
	struct xcma_id *xid = xcma_id_of(id);
	struct ib_qp *qp;
	int ret;

	if (!id->device || id->device != pd->device)
		return -EINVAL;
	qp_init_attr->port_num = id->port_num;
	qp = xcma_ops->create_qp(pd, qp_init_attr);
	if (IS_ERR(qp)) {
		trace_cm_qp_create(xid, qp_init_attr, 0, PTR_ERR(qp));
		return PTR_ERR(qp);
	}
	if (id->qp_type == IB_QPT_UD)
		ret = init_ud_qp(xid, qp);
	else
		ret = init_conn_qp(xid, qp);
	trace_cm_qp_create(xid, qp_init_attr, qp->qp_num, ret);
	if (ret) {
		if (xcma_ops->destroy_qp(qp))
			pr_debug("xcma: destroying a new QP failed\n");
		return ret;
	}
	mutex_lock(&xid->qp_mutex);
	id->qp = qp;
	xid->qp_num = qp->qp_num;
	xid->srq = !!qp->srq;
	mutex_unlock(&xid->qp_mutex);
	return 0;
}
EXPORT_SYMBOL(rdma_create_qp);

/**
 * rdma_destroy_qp - destroy the id's QP
 * @id: the id
 */
void rdma_destroy_qp(struct rdma_cm_id *id)
{
	struct xcma_id *xid = xcma_id_of(id);

	mutex_lock(&xid->qp_mutex);
	if (id->qp)
		trace_cm_qp_destroy(xid);
	if (id->qp && xcma_ops->destroy_qp(id->qp))
		pr_debug("xcma: destroying a QP failed\n");
	id->qp = NULL;
	mutex_unlock(&xid->qp_mutex);
}
EXPORT_SYMBOL(rdma_destroy_qp);

/**
 * xcma_qp_modify_rtr - move the QP through INIT to RTR
 * @xid: the id; nothing happens without a QP
 * @param: the user's responder resources, or NULL for ib_cm's
 *
 * Return: 0, or the errno of the verbs or of ib_cm.
 */
int xcma_qp_modify_rtr(struct xcma_id *xid, struct rdma_conn_param *param)
{
	struct ib_qp_attr attr;
	int mask, ret = 0;

	mutex_lock(&xid->qp_mutex);
	if (!xid->id.qp)
		goto out;
	/* INIT again, with ib_cm's view of the attributes */
	attr.qp_state = IB_QPS_INIT;
	ret = rdma_init_qp_attr(&xid->id, &attr, &mask);
	if (!ret)
		ret = xcma_ops->modify_qp(xid->id.qp, &attr, mask);
	if (ret)
		goto out;
	attr.qp_state = IB_QPS_RTR;
	ret = rdma_init_qp_attr(&xid->id, &attr, &mask);
	if (ret)
		goto out;
	if (param)
		attr.max_dest_rd_atomic = param->responder_resources;
	ret = xcma_ops->modify_qp(xid->id.qp, &attr, mask);
out:
	mutex_unlock(&xid->qp_mutex);
	return ret;
}

/**
 * xcma_qp_modify_rts - move the QP to RTS
 * @xid: the id; nothing happens without a QP
 * @param: the user's initiator depth, or NULL for ib_cm's
 *
 * Return: 0, or the errno of the verbs or of ib_cm.
 */
int xcma_qp_modify_rts(struct xcma_id *xid, struct rdma_conn_param *param)
{
	struct ib_qp_attr attr;
	int mask, ret = 0;

	mutex_lock(&xid->qp_mutex);
	if (!xid->id.qp)
		goto out;
	attr.qp_state = IB_QPS_RTS;
	ret = rdma_init_qp_attr(&xid->id, &attr, &mask);
	if (ret)
		goto out;
	if (param)
		attr.max_rd_atomic = param->initiator_depth;
	ret = xcma_ops->modify_qp(xid->id.qp, &attr, mask);
out:
	mutex_unlock(&xid->qp_mutex);
	return ret;
}

/**
 * xcma_qp_modify_err - move the QP to ERR, flushing its work requests
 * @xid: the id; nothing happens without a QP
 *
 * Return: 0, or the errno of the verbs.
 */
int xcma_qp_modify_err(struct xcma_id *xid)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	int ret = 0;

	mutex_lock(&xid->qp_mutex);
	if (xid->id.qp)
		ret = xcma_ops->modify_qp(xid->id.qp, &attr, IB_QP_STATE);
	mutex_unlock(&xid->qp_mutex);
	return ret;
}
