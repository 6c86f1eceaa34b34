// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Connections over iw_cm (iWARP, RDMA_PS_TCP): connect, listen, accept,
 * reject (MPA private data), disconnect, and the iw_cm callbacks that
 * turn into rdma_cm events.
 *
 * The delivery path is ib.c's: a callback builds its rdma_cm_event on the
 * stack, enters the id through the table, calls the user and leaves.
 *
 * An iw_cm id's context is a struct iw_link, not the xcma id: a release
 * cuts the link under iw_link_lock, so a callback either took its
 * reference on the id before the cut (the destroy waits for it) or finds
 * no id and drops the event. The iw_cm id itself may then outlive its
 * xcma id for a while: iw_destroy_cm_id() flushes iw_cm's workqueue when
 * the iw_cm id still has references (siw holds one for as long as it
 * listens or is connected), that workqueue is ordered and runs every
 * iw_cm callback, and those callbacks take handler locks. So a release
 * that runs in one of our iw_cm callbacks, or in a user's callback (whose
 * handler lock an iw_cm callback may be waiting for), hands the iw_cm id
 * to iw_release_wq; each device's removal flushes that before it returns.
 * A release anywhere else destroys it at once, as the in-tree CM does, so
 * that a listener's port is free when rdma_destroy_id() returns. A
 * listener released in a callback keeps its port until its work item
 * runs: a listen outside a callback that meets it waits for that
 * (iw_listen()), so that only a listen from a callback can still
 * find the port taken.
 */
#include <linux/export.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <rdma/iw_cm.h>

#include "export.h"
#include "addr.h"
#include "id.h"
#include "iw.h"
#include "passive.h"
#include "ops.h"
#include "qp.h"
#include "trace.h"
#include "transport.h"

/**
 * struct iw_link - the context of an iw_cm id of ours
 * @xid: its id, NULL once released (under iw_link_lock)
 * @iw: the iw_cm id
 * @work: its destroy on iw_release_wq
 */
struct iw_link {
	struct xcma_id *xid;
	struct iw_cm_id *iw;
	struct work_struct work;
};

static DEFINE_SPINLOCK(iw_link_lock);
static struct workqueue_struct *iw_release_wq;
/* iw_cm ids handed to iw_release_wq and not destroyed yet */
static atomic_t iw_deferred = ATOMIC_INIT(0);

static struct iw_link *iw_link_new(struct xcma_id *xid)
{
	struct iw_link *link = kzalloc(sizeof(*link), GFP_KERNEL);

	if (link)
		link->xid = xid;
	return link;
}

/* the id of @iw's callback, with a reference; NULL: released */
static struct xcma_id *iw_link_get(struct iw_cm_id *iw)
{
	struct iw_link *link = iw->context;
	struct xcma_id *xid;

	spin_lock(&iw_link_lock);
	xid = link->xid;
	if (xid)
		xcma_fsm_id_get(&xid->life.fsm);
	spin_unlock(&iw_link_lock);
	return xid;
}

static void iw_release_fn(struct work_struct *work)
{
	struct iw_link *link = container_of(work, struct iw_link, work);

	xcma_ops->iw_destroy_id(link->iw);
	kfree(link);
	atomic_dec(&iw_deferred);
}

/**
 * iw_destroy - cut an iw_cm id of ours from its id and destroy it
 * @iw: connected, connecting or listening
 *
 * When this returns, no callback of @iw reaches its id any more. @iw is
 * destroyed before this returns, or, in a user's callback, on
 * iw_release_wq (xcma_iw_flush()). Every iw_cm callback of ours runs on
 * iw_cm's ordered workqueue, which iw_destroy_cm_id() may flush; the only
 * way one of them comes to destroy an iw_cm id is through the user's
 * callback it calls (the id it was called for gives its iw_cm id back to
 * iw_cm by the return value, iw_leave()).
 */
static void iw_destroy(struct iw_cm_id *iw)
{
	struct iw_link *link = iw->context;

	spin_lock(&iw_link_lock);
	link->xid = NULL;
	spin_unlock(&iw_link_lock);
	if (xcma_id_in_callback()) {
		atomic_inc(&iw_deferred);
		INIT_WORK(&link->work, iw_release_fn);
		queue_work(iw_release_wq, &link->work);
		return;
	}
	xcma_ops->iw_destroy_id(iw);
	kfree(link);
}

/**
 * xcma_iw_flush - wait until the iw_cm ids handed to iw_release_wq are
 *	destroyed
 *
 * A device's removal calls it once its ids are released, so that none of
 * them outlives the device; never from a callback.
 */
void xcma_iw_flush(void)
{
	flush_workqueue(iw_release_wq);
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_iw_flush);

/**
 * xcma_iw_init - create iw_release_wq (module init)
 *
 * Return: 0 or -ENOMEM.
 */
int xcma_iw_init(void)
{
	iw_release_wq = alloc_workqueue("xcma_iw_release", WQ_MEM_RECLAIM, 0);
	return iw_release_wq ? 0 : -ENOMEM;
}

/**
 * xcma_iw_exit - destroy it (module exit, after the devices' removal)
 */
void xcma_iw_exit(void)
{
	destroy_workqueue(iw_release_wq);
}

/**
 * xcma_iw_release - let go of the iw_cm connection
 * @xid: the id, destroyed or its device removed; no callback of it runs,
 *	or the one running is the caller's
 */
void xcma_iw_release(struct xcma_id *xid)
{
	struct iw_cm_id *iw = xid->iw_id;

	xid->iw_id = NULL;
	if (iw)
		iw_destroy(iw);
}

static int iw_leave(struct xcma_id *xid, struct iw_cm_id *iw, int ret)
{
	/*
	 * iw_cm destroys @iw when the callback returns non-zero, and calls
	 * it no more: its link is ours to free
	 */
	if (ret && xid->iw_id == iw) {
		xid->iw_id = NULL;
		kfree(iw->context);
	}
	return xcma_id_leave_cb(xid, ret);
}

/* the outcome of an MPA exchange we started, as the in-tree CM maps it */
static unsigned int reply_event(int status)
{
	switch (status) {
	case 0:
		return XCMA_EV_ESTABLISHED;
	case -ECONNRESET:
	case -ECONNREFUSED:
		return XCMA_EV_REJECTED;
	case -ETIMEDOUT:
		return XCMA_EV_UNREACHABLE;
	default:
		return XCMA_EV_CONNECT_ERROR;
	}
}

/*
 * The connection's addresses as iw_cm reports them with its reply, over
 * the id's, whatever the outcome (in-tree cma_iw_handler()): a port
 * mapper's (iwpm) may differ from those the id asked for.
 */
static void iw_reply_addrs(struct xcma_id *xid,
			   const struct iw_cm_event *iw_ev)
{
	const struct sockaddr *l = (const struct sockaddr *)&iw_ev->local_addr;
	const struct sockaddr *r = (const struct sockaddr *)&iw_ev->remote_addr;

	if (xcma_addr_size(l))
		memcpy(&xid->id.route.addr.src_addr, l, xcma_addr_size(l));
	if (xcma_addr_size(r))
		memcpy(&xid->id.route.addr.dst_addr, r, xcma_addr_size(r));
}

static int iw_event(struct iw_cm_id *iw, struct iw_cm_event *iw_ev)
{
	struct rdma_cm_event ev = {};
	struct xcma_id *xid;
	unsigned int fev;

	switch (iw_ev->event) {
	case IW_CM_EVENT_CONNECT_REPLY:
		fev = reply_event(iw_ev->status);
		break;
	case IW_CM_EVENT_ESTABLISHED:
		fev = XCMA_EV_ESTABLISHED;
		break;
	case IW_CM_EVENT_CLOSE:
		fev = XCMA_EV_IW_CLOSE;
		break;
	default:
		/* DISCONNECT: iw_cm moves the QP, CLOSE follows */
		return 0;
	}
	if (fev == XCMA_EV_ESTABLISHED) {
		/* the peer's view: its ORD is our responder resources */
		ev.param.conn.initiator_depth = iw_ev->ird;
		ev.param.conn.responder_resources = iw_ev->ord;
	}
	ev.status = iw_ev->status;
	ev.param.conn.private_data = iw_ev->private_data;
	ev.param.conn.private_data_len = iw_ev->private_data_len;

	xid = iw_link_get(iw);
	if (!xid)
		return 0;
	if (xcma_fsm_id_enter(&xid->life.fsm, fev, XCMA_FSM_PUT_REF))
		return 0;
	if (iw_ev->event == IW_CM_EVENT_CONNECT_REPLY)
		iw_reply_addrs(xid, iw_ev);
	ev.event = xcma_fsm_event_cm_event(fev);
	return iw_leave(xid, iw, xcma_id_call_user(xid, &ev));
}

/*
 * A conn id for a request on @listener: the listener's device and port,
 * the netdev of the address the request came in on; RDMA_PS_TCP and RC
 * whatever the listener's, as in-tree (iw_cm has nothing else).
 */
static struct xcma_id *iw_new_conn(struct xcma_id *listener,
				   struct iw_cm_event *iw_ev)
{
	struct xcma_id *conn;

	conn = xcma_passive_conn_alloc(listener, IB_QPT_RC,
				       &iw_ev->local_addr, &iw_ev->remote_addr);
	if (!conn)
		return NULL;
	conn->id.ps = RDMA_PS_TCP;
	conn->id.port_num = listener->id.port_num;
	if (xcma_ops->translate_ip((struct sockaddr *)&iw_ev->local_addr,
				   &conn->id.route.addr.dev_addr)) {
		xcma_id_free_unused(conn);
		return NULL;
	}
	return conn;
}

/* a request's iw_cm id is its conn id's, through @cm, its link */
static void iw_req_adopt(struct xcma_id *conn, void *cm)
{
	struct iw_link *link = cm;

	link->xid = conn;
	conn->iw_id = link->iw;
	link->iw->context = link;
	link->iw->cm_handler = iw_event;
}

/* iw_cm destroys its id when the request handler returns non-zero */
static void iw_req_drop(struct xcma_id *conn, void *cm, bool adopted)
{
	if (adopted)
		conn->iw_id = NULL;
	kfree(cm);
}

static const struct xcma_req_ops iw_req_ops = {
	.adopt = iw_req_adopt,
	.drop = iw_req_drop,
};

/*
 * iw_cm listen callback: a connection request. Its iw_cm id is new (with
 * the listen's handler and context) and ours to take; a non-zero return
 * makes iw_cm reject and destroy it.
 */
static int iw_request(struct iw_cm_id *iw, struct iw_cm_event *iw_ev)
{
	struct xcma_id *listener, *conn;
	struct rdma_cm_event ev = {};
	struct iw_link *link;
	int ret;

	if (iw_ev->event != IW_CM_EVENT_CONNECT_REQUEST)
		return -EINVAL;
	listener = iw_link_get(iw);
	if (!listener)
		return -ECONNREFUSED;
	xcma_passive_settle(listener);
	link = iw_link_new(NULL);
	conn = link ? iw_new_conn(listener, iw_ev) : NULL;
	if (!conn) {
		kfree(link);
		ret = -ENOMEM;
		goto out;
	}
	ev.event = RDMA_CM_EVENT_CONNECT_REQUEST;
	ev.param.conn.private_data = iw_ev->private_data;
	ev.param.conn.private_data_len = iw_ev->private_data_len;
	ev.param.conn.initiator_depth = iw_ev->ird;
	ev.param.conn.responder_resources = iw_ev->ord;
	link->iw = iw;
	ret = xcma_passive_deliver(listener, conn, &ev, &iw_req_ops, link);
out:
	xcma_fsm_id_put(&listener->life.fsm);
	return ret;
}

static struct iw_cm_id *iw_listen_once(struct xcma_id *xid)
{
	struct iw_link *link = iw_link_new(xid);
	struct iw_cm_id *iw;
	int ret;

	if (!link)
		return ERR_PTR(-ENOMEM);
	iw = xcma_ops->iw_create_id(xid->id.device, iw_request, link);
	if (IS_ERR(iw)) {
		kfree(link);
		return iw;
	}
	link->iw = iw;
	mutex_lock(&xid->qp_mutex);
	iw->tos = xid->tos;
	iw->tos_set = xid->tos_set;
	mutex_unlock(&xid->qp_mutex);
	iw->afonly = xid->bind.afonly;
	memcpy(&iw->local_addr, xcma_id_src(xid),
	       xcma_addr_size(xcma_id_src(xid)));
	ret = xcma_ops->iw_listen(iw, xid->backlog);
	if (ret) {
		iw_destroy(iw);
		return ERR_PTR(ret);
	}
	return iw;
}

/**
 * iw_listen - an iw_cm listen on the id's device and address
 * @xid: the id, LISTEN, with an iWARP device; it keeps the listen
 *
 * The type of service and the AF_INET6-only option go with it, and
 * @xid->backlog.
 *
 * A listener destroyed in a callback leaves its iw_cm id, and the
 * provider's endpoint on its port, to iw_release_wq; the in-tree destroy
 * frees both before it returns. So a listen that fails with -EADDRINUSE
 * while such destroys were pending waits for them, outside a callback,
 * and tries once more, with a new iw_cm id (iw_cm allocates a listen's
 * work entries once per id).
 *
 * Return: 0, or iw_cm's errno.
 */
static int iw_listen(struct xcma_id *xid)
{
	bool pending = atomic_read(&iw_deferred);
	struct iw_cm_id *iw = iw_listen_once(xid);

	if (PTR_ERR_OR_ZERO(iw) == -EADDRINUSE && !xcma_id_in_callback() &&
	    (pending || atomic_read(&iw_deferred))) {
		xcma_iw_flush();
		iw = iw_listen_once(xid);
	}
	if (IS_ERR(iw))
		return PTR_ERR(iw);
	mutex_lock(&xcma_listen_lock);
	xid->iw_listen_id = iw;
	mutex_unlock(&xcma_listen_lock);
	return 0;
}

/* let go of the id's iw_cm listen, if it holds one */
static void iw_unlisten(struct xcma_id *xid)
{
	struct iw_cm_id *iw;

	mutex_lock(&xcma_listen_lock);
	iw = xid->iw_listen_id;
	xid->iw_listen_id = NULL;
	mutex_unlock(&xcma_listen_lock);
	if (iw)
		iw_destroy(iw);
}

/**
 * iw_connect - start the MPA exchange
 * @xid: the id, CONNECT, handler mutex held
 * @param: the user's parameters: ORD from initiator_depth, IRD from
 *	responder_resources, private data
 *
 * Return: 0, then ESTABLISHED, REJECTED, UNREACHABLE or CONNECT_ERROR;
 * the errnos of the QP and of iw_cm (no iw_cm id is left behind).
 */
static int iw_connect(struct xcma_id *xid, struct rdma_conn_param *param)
{
	struct iw_cm_conn_param p = {};
	struct iw_link *link;
	struct iw_cm_id *iw;
	int ret;

	lockdep_assert_held(&xid->life.handler_mutex);
	xcma_qp_take_num(xid, param);
	link = iw_link_new(xid);
	if (!link)
		return -ENOMEM;
	iw = xcma_ops->iw_create_id(xid->id.device, iw_event, link);
	if (IS_ERR(iw)) {
		kfree(link);
		return PTR_ERR(iw);
	}
	link->iw = iw;
	mutex_lock(&xid->qp_mutex);
	iw->tos = xid->tos;
	iw->tos_set = xid->tos_set;
	p.qpn = xid->id.qp ? xid->qp_num : param->qp_num;
	mutex_unlock(&xid->qp_mutex);
	memcpy(&iw->local_addr, xcma_id_src(xid),
	       xcma_addr_size(xcma_id_src(xid)));
	memcpy(&iw->remote_addr, xcma_id_dst(xid),
	       xcma_addr_size(xcma_id_dst(xid)));
	xid->iw_id = iw;

	ret = xcma_qp_modify_rtr(xid, param);
	if (!ret) {
		p.ord = param->initiator_depth;
		p.ird = param->responder_resources;
		p.private_data = param->private_data;
		p.private_data_len = param->private_data_len;
		trace_cm_send_req(xid);
		ret = xcma_ops->iw_connect(iw, &p);
	}
	if (ret) {
		xid->iw_id = NULL;
		iw_destroy(iw);
	}
	return ret;
}

/**
 * iw_accept - answer a connection request
 * @xid: the conn id, CONNECT, handler mutex held
 * @param: as iw_connect(); required
 *
 * Return: 0, then ESTABLISHED; -EINVAL without @param; the errnos of the
 * QP and of iw_cm.
 */
static int iw_accept(struct xcma_id *xid, struct rdma_conn_param *param)
{
	struct iw_cm_conn_param p = {};
	int ret;

	lockdep_assert_held(&xid->life.handler_mutex);
	if (!param)
		return -EINVAL;
	ret = xcma_qp_modify_rtr(xid, param);
	if (ret)
		return ret;
	mutex_lock(&xid->qp_mutex);
	p.qpn = xid->id.qp ? xid->qp_num : param->qp_num;
	mutex_unlock(&xid->qp_mutex);
	p.ord = param->initiator_depth;
	p.ird = param->responder_resources;
	p.private_data = param->private_data;
	p.private_data_len = param->private_data_len;
	trace_cm_send_rep(xid);
	return xcma_ops->iw_accept(xid->iw_id, &p);
}

/**
 * iw_reject - refuse a connection request, with MPA private data
 * @xid: the conn id, CONNECT
 * @data: private data, may be NULL
 * @len: its length
 * @reason: not sent: an MPA reply carries no reason
 *
 * Return: 0; -EINVAL in another state; the errno of iw_cm.
 */
static int iw_reject(struct xcma_id *xid, const void *data, u8 len,
		     u8 reason)
{
	int ret;

	ret = xcma_id_transition(xid, XCMA_EV_REJECT);
	if (ret)
		return ret;
	trace_cm_send_rej(xid);
	return xcma_ops->iw_reject(xid->iw_id, data, len);
}

/**
 * iw_disconnect - close the connection gracefully
 * @xid: the id, connected
 *
 * iw_cm moves the QP itself (to SQD, or ERR when the peer is gone).
 *
 * Return: 0; -EINVAL unconnected (a listener included: its iw_cm id is a
 * listen); the errno of iw_cm.
 */
static int iw_disconnect(struct xcma_id *xid)
{
	int ret;

	if (!xid->iw_id)
		return -EINVAL;
	ret = xcma_id_transition(xid, XCMA_EV_DISCONNECT);
	if (ret)
		return ret;
	trace_cm_disconnect(xid);
	return xcma_ops->iw_disconnect(xid->iw_id, 0);
}

/**
 * iw_init_qp_attr - the QP attributes of an id on an iWARP port
 * @xid: the id
 * @attr: in: qp_state; out: the attributes
 * @mask: out: which are set
 *
 * iw_cm's once there is a connection; before it, only the access flags
 * (none). The port is always the id's.
 *
 * Return: 0, or the errno of iw_cm.
 */
static int iw_init_qp_attr(struct xcma_id *xid, struct ib_qp_attr *attr,
			   int *mask)
{
	int ret = 0;

	if (xid->iw_id) {
		ret = xcma_ops->iw_init_qp_attr(xid->iw_id, attr, mask);
	} else {
		attr->qp_access_flags = 0;
		*mask = IB_QP_STATE | IB_QP_ACCESS_FLAGS;
	}
	attr->port_num = xid->id.port_num;
	*mask |= IB_QP_PORT;
	return ret;
}

/* iw_cm's text for a refusal's status */
static const char *iw_reject_msg(int reason)
{
	return xcma_ops->iw_reject_msg(reason);
}

const struct xcma_transport_ops xcma_iw_transport = {
	.connect = iw_connect,
	.accept = iw_accept,
	.reject = iw_reject,
	.disconnect = iw_disconnect,
	.release = xcma_iw_release,
	.listen = iw_listen,
	.unlisten = iw_unlisten,
	.init_qp_attr = iw_init_qp_attr,
	.flush = xcma_iw_flush,
	.reject_msg = iw_reject_msg,
	.consumer_reject = -ECONNREFUSED,
};
