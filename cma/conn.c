// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The connection calls of the API: rdma_connect(), rdma_accept(),
 * rdma_reject(), rdma_disconnect(), rdma_notify() and the REJECTED
 * event's helpers (rdma_init_qp_attr() is qp.c's).
 * Each checks the id and its state, then hands over to the transport of
 * the id's port (transport.h): RC over ib_cm (ib.c), UD over ib_cm's SIDR
 * (ud.c), iWARP over iw_cm (iw.c). And what the core asks of every
 * transport: let go of an id's connection, wait for what a release
 * deferred.
 */
#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/lockdep.h>
#include <rdma/ib_cm.h>
#include <rdma/rdma_cm.h>

#include "conn.h"
#include "id.h"
#include "qp.h"
#include "transport.h"

/**
 * xcma_conn_release - let go of the id's connection in its CM
 * @xid: the id, destroyed or its device removed; none of its callbacks
 *	runs any more, or the one running is the caller's
 *
 * The CM's own callbacks may still be running: the transport waits for
 * them, or defers the destroy (iWARP, from inside one of them).
 */
void xcma_conn_release(struct xcma_id *xid)
{
	const struct xcma_transport_ops *ops = xcma_id_transport(xid);

	if (ops)
		ops->release(xid);
}

/**
 * xcma_conn_flush - wait for the CM ids every transport's release handed
 *	to a worker
 */
void xcma_conn_flush(void)
{
	static const struct xcma_transport_ops *const all[] = {
		&xcma_rc_transport, &xcma_ud_transport, &xcma_iw_transport
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(all); i++)
		if (all[i]->flush)
			all[i]->flush();
}

/* ECE values the next REQ or REP carries */
static void take_ece(struct rdma_cm_id *id, const struct rdma_ucm_ece *ece)
{
	struct xcma_id *xid = xcma_id_of(id);

	xid->ece.vendor_id = ece->vendor_id;
	xid->ece.attr_mod = ece->attr_mod;
}

/**
 * rdma_connect_locked - send a connection request
 * @id: the id, ROUTE_RESOLVED; its handler mutex held (e.g. in its
 *	ROUTE_RESOLVED callback)
 * @conn_param: connection parameters and private data
 *
 * A UD id sends a SIDR REQ instead (ud.c), an iWARP id an MPA request
 * (iw.c).
 *
 * Return: 0, then ESTABLISHED, REJECTED, UNREACHABLE or CONNECT_ERROR
 * follows (ESTABLISHED or UNREACHABLE for UD); -EINVAL in another state,
 * without parameters or with too much private data; -ENOSYS on a port
 * without ib_cm or iw_cm; the errnos of ib_cm, of iw_cm on iWARP.
 */
int rdma_connect_locked(struct rdma_cm_id *id,
			struct rdma_conn_param *conn_param)
{
	struct xcma_id *xid = xcma_id_of(id);
	const struct xcma_transport_ops *ops;
	int ret;

	lockdep_assert_held(&xid->life.handler_mutex);
	if (!conn_param)
		return -EINVAL;
	ret = xcma_id_transition(xid, XCMA_EV_CONNECT);
	if (ret)
		return ret;
	ops = xcma_id_transport(xid);
	ret = ops ? ops->connect(xid, conn_param) : -XCMA_ENOTRANSPORT;
	if (ret && xcma_id_transition(xid, XCMA_EV_CONNECT_UNDO))
		pr_debug("xcma: connect undo refused\n");
	return ret;
}
EXPORT_SYMBOL(rdma_connect_locked);

/**
 * rdma_connect - rdma_connect_locked() outside the id's callbacks
 * @id: the id
 * @conn_param: as rdma_connect_locked()
 *
 * Return: as rdma_connect_locked().
 */
int rdma_connect(struct rdma_cm_id *id, struct rdma_conn_param *conn_param)
{
	int ret;

	rdma_lock_handler(id);
	ret = rdma_connect_locked(id, conn_param);
	rdma_unlock_handler(id);
	return ret;
}
EXPORT_SYMBOL(rdma_connect);

/**
 * rdma_connect_ece - rdma_connect() with ECE values
 * @id: the id
 * @conn_param: as rdma_connect_locked()
 * @ece: sent in the REQ
 *
 * Return: as rdma_connect_locked().
 */
int rdma_connect_ece(struct rdma_cm_id *id, struct rdma_conn_param *conn_param,
		     struct rdma_ucm_ece *ece)
{
	take_ece(id, ece);
	return rdma_connect(id, conn_param);
}
EXPORT_SYMBOL(rdma_connect_ece);

/**
 * rdma_accept - accept a connection request (or a response, with a NULL
 *	@conn_param, on the active side of a user-managed QP)
 * @id: the id, CONNECT; its handler mutex held (its callback, or
 *	rdma_lock_handler())
 * @conn_param: parameters and private data of the REP
 *
 * Once the state allows it, any failure (too much private data included:
 * ib_cm refuses that only when the REP is sent) moves the QP to ERR and
 * sends a REJ, as in-tree: the peer gets REJECTED, the id stays CONNECT.
 *
 * A UD id answers with a SIDR REP (ud.c), a failure there with a SIDR REP
 * that rejects.
 *
 * Return: 0; -EINVAL in another state, with too much private data or,
 * for UD, a QKEY other than the id's; the errnos of the QP and ib_cm.
 */
int rdma_accept(struct rdma_cm_id *id, struct rdma_conn_param *conn_param)
{
	struct xcma_id *xid = xcma_id_of(id);
	const struct xcma_transport_ops *ops;
	int ret;

	lockdep_assert_held(&xid->life.handler_mutex);
	ret = xcma_id_transition(xid, XCMA_EV_ACCEPT);
	if (ret)
		return ret;
	if (!xid->cm_id && !xid->iw_id)
		return -EINVAL;

	xcma_qp_take_num(xid, conn_param);
	ops = xcma_id_transport(xid);
	ret = ops ? ops->accept(xid, conn_param) : -XCMA_ENOTRANSPORT;
	if (ret) {
		xcma_qp_modify_err(xid);
		if (rdma_reject(id, NULL, 0, IB_CM_REJ_CONSUMER_DEFINED))
			pr_debug("xcma: REJ after a failed accept failed\n");
	}
	return ret;
}
EXPORT_SYMBOL(rdma_accept);

/**
 * rdma_accept_ece - rdma_accept() with ECE values
 * @id: the id
 * @conn_param: as rdma_accept()
 * @ece: sent in the REP
 *
 * Return: as rdma_accept().
 */
int rdma_accept_ece(struct rdma_cm_id *id, struct rdma_conn_param *conn_param,
		    struct rdma_ucm_ece *ece)
{
	take_ece(id, ece);
	return rdma_accept(id, conn_param);
}
EXPORT_SYMBOL(rdma_accept_ece);

/**
 * rdma_reject - reject a connection request (or response)
 * @id: the id, CONNECT with an ib_cm or iw_cm connection
 * @private_data: sent in the REJ (iWARP: the MPA reply), may be NULL
 * @private_data_len: its length
 * @reason: the REJ reason (IB_CM_REJ_CONSUMER_DEFINED for consumers);
 *	a UD id answers with a SIDR REP of status IB_SIDR_REJECT instead
 *
 * Return: 0; -EINVAL without a connection or with too much private data;
 * the errnos of ib_cm and iw_cm.
 */
int rdma_reject(struct rdma_cm_id *id, const void *private_data,
		u8 private_data_len, u8 reason)
{
	struct xcma_id *xid = xcma_id_of(id);
	const struct xcma_transport_ops *ops;

	if (!xid->cm_id && !xid->iw_id)
		return -EINVAL;
	ops = xcma_id_transport(xid);
	if (!ops)
		return -XCMA_ENOTRANSPORT;
	return ops->reject(xid, private_data, private_data_len, reason);
}
EXPORT_SYMBOL(rdma_reject);

/**
 * rdma_disconnect - start or answer a disconnection
 * @id: the id, connected
 *
 * The QP goes to ERR, which flushes its work requests: here on ib_cm,
 * by iw_cm on iWARP (see iw.c).
 *
 * Return: 0; -EINVAL without a connection. A listener bound to an
 * ib_cm device has one, its listen id, and gets 0 as from the in-tree CM:
 * only its QP, if it made one, goes to ERR.
 */
int rdma_disconnect(struct rdma_cm_id *id)
{
	const struct xcma_transport_ops *ops = xcma_id_transport(xcma_id_of(id));

	return ops ? ops->disconnect(xcma_id_of(id)) : -EINVAL;
}
EXPORT_SYMBOL(rdma_disconnect);

/**
 * rdma_notify - pass a QP event (e.g. IB_EVENT_COMM_EST) to the CM
 * @id: the id
 * @event: the event
 *
 * Return: 0; -EINVAL without a connection; the errno of ib_cm.
 */
int rdma_notify(struct rdma_cm_id *id, enum ib_event_type event)
{
	struct xcma_id *xid = xcma_id_of(id);
	const struct xcma_transport_ops *ops;

	if (!xid->cm_id && !xid->iw_id)
		return -EINVAL;
	ops = xcma_id_transport(xid);
	return ops && ops->notify ? ops->notify(xid, event) : 0;
}
EXPORT_SYMBOL(rdma_notify);

/**
 * rdma_reject_msg - text of a REJECTED event's reason
 * @id: the id that got it
 * @reason: the event's status
 *
 * Return: ib_cm's text for IB and RoCE, iw_cm's for iWARP,
 * "unrecognized transport" else.
 */
const char *__attribute_const__ rdma_reject_msg(struct rdma_cm_id *id,
						int reason)
{
	const struct xcma_transport_ops *ops =
		xcma_id_transport(xcma_id_of(id));

	return ops ? ops->reject_msg(reason) : "unrecognized transport";
}
EXPORT_SYMBOL(rdma_reject_msg);

/**
 * rdma_consumer_reject_data - private data of a consumer's REJ
 * @id: the id that got REJECTED
 * @ev: the event
 * @data_len: set to the data's length (0 if none)
 *
 * A consumer's REJ has the reason IB_CM_REJ_CONSUMER_DEFINED over ib_cm,
 * -ECONNREFUSED over iw_cm.
 *
 * Return: the data, or NULL unless the peer's consumer rejected.
 */
const void *rdma_consumer_reject_data(struct rdma_cm_id *id,
				      struct rdma_cm_event *ev, u8 *data_len)
{
	const struct xcma_transport_ops *ops =
		xcma_id_transport(xcma_id_of(id));

	if (ops && ev->status == ops->consumer_reject &&
	    ev->param.conn.private_data_len) {
		*data_len = ev->param.conn.private_data_len;
		return ev->param.conn.private_data;
	}
	*data_len = 0;
	return NULL;
}
EXPORT_SYMBOL(rdma_consumer_reject_data);
