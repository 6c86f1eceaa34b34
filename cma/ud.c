// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * UD ids over ib_cm: SIDR. rdma_connect() on a UD id sends a SIDR REQ;
 * its REP (or ib_cm's timeout) becomes ESTABLISHED with rdma_ud_param or
 * UNREACHABLE. A listener gets a SIDR REQ as a CONNECT_REQUEST on a new
 * UD id, whose rdma_accept() or rdma_reject() sends the SIDR REP. UD ids
 * stay CONNECT after their exchange, as in-tree.
 *
 * The QKEY: PS_UDP and PS_IB use RDMA_UDP_QKEY; a SIDR REP or the
 * accepting user may name one, taken only while the id has none or the
 * same one.
 */
#include <linux/slab.h>
#include <rdma/ib.h>
#include <rdma/ib_cm.h>
#include <rdma/rdma_cm.h>
#include <rdma/rdma_cm_ib.h>

#include "addr.h"
#include "ib.h"
#include "id.h"
#include "passive.h"
#include "ops.h"
#include "qp.h"
#include "resolve.h"
#include "trace.h"
#include "transport.h"
#include "ud.h"
#include "wire.h"

/*
 * in-tree: SIDR REQs wait 2^(CM response timeout - 8) ms for their REP,
 * so a peer that never answers is UNREACHABLE after 16 times 4 s
 */
#define SIDR_TIMEOUT_MS (1UL << (XCMA_CM_RESPONSE_TIMEOUT - 8))

/**
 * xcma_ud_set_qkey - take a QKEY named by the user or the peer
 * @xid: a UD id
 * @qkey: the QKEY
 *
 * Return: 0; -EINVAL for 0 or when @xid already has another QKEY.
 */
int xcma_ud_set_qkey(struct xcma_id *xid, u32 qkey)
{
	u32 old;

	if (!qkey)
		return -EINVAL;
	old = cmpxchg(&xid->qkey, 0, qkey);
	return old && old != qkey ? -EINVAL : 0;
}

/**
 * xcma_ud_ps_qkey - the QKEY the in-tree CM gives a port space's UD ids
 * @ps: the port space
 *
 * Return: RDMA_UDP_QKEY for PS_UDP and PS_IB; 0 for the others (IPoIB's
 * is its broadcast group's, which only the SA knows).
 */
u32 xcma_ud_ps_qkey(enum rdma_ucm_port_space ps)
{
	return ps == RDMA_PS_UDP || ps == RDMA_PS_IB ? RDMA_UDP_QKEY : 0;
}

/**
 * xcma_ud_default_qkey - give a UD id its port space's QKEY
 * @xid: the id, on a device
 *
 * PS_UDP and PS_IB always use RDMA_UDP_QKEY, written over any other as
 * in-tree; PS_IPOIB takes the QKEY of its IPoIB broadcast group, which
 * ib_sa knows once IPoIB has joined it (ib_sa_get_mcmember_rec(): a port
 * without an SA, RoCE's, says -ENODEV; a group not joined -EADDRNOTAVAIL);
 * the other port spaces keep what they have.
 *
 * Return: 0, or ib_sa's errno for PS_IPOIB.
 */
int xcma_ud_default_qkey(struct xcma_id *xid)
{
	u32 qkey = xcma_ud_ps_qkey(xid->id.ps);
	struct ib_sa_mcmember_rec rec;
	int ret;

	if (xid->id.ps == RDMA_PS_IPOIB) {
		ib_addr_get_mgid(&xid->id.route.addr.dev_addr, &rec.mgid);
		ret = xcma_ops->sa_get_mcmember_rec(xid->id.device,
						    xid->id.port_num,
						    &rec.mgid, &rec);
		if (ret)
			return ret;
		qkey = be32_to_cpu(rec.qkey);
	}
	if (qkey)
		WRITE_ONCE(xid->qkey, qkey);
	return 0;
}

/* a successful SIDR REP: the QKEY and the way to the peer's QP */
static unsigned int sidr_rep_ok(struct xcma_id *xid,
				const struct ib_cm_sidr_rep_event_param *rep,
				struct rdma_cm_event *ev)
{
	struct rdma_cm_id *id = &xid->id;
	int ret;

	ret = xcma_ud_set_qkey(xid, rep->qkey);
	if (ret) {
		ev->status = ret;
		return XCMA_EV_UD_ADDR_ERROR;
	}
	ret = xcma_ops->init_ah_attr_from_path(id->device, id->port_num,
					       id->route.path_rec,
					       &ev->param.ud.ah_attr,
					       rep->sgid_attr);
	if (ret) {
		ev->status = ret;
		return XCMA_EV_UNREACHABLE;
	}
	ev->param.ud.qp_num = rep->qpn;
	ev->param.ud.qkey = rep->qkey;
	return XCMA_EV_ESTABLISHED;
}

/*
 * The active side's ib_cm callback: the SIDR REP, or ib_cm giving up.
 * Entered as a REP (nothing for the user yet), the outcome fired under
 * the handler mutex, where the QKEY is decided.
 */
static int sidr_handler(struct ib_cm_id *cm_id,
			const struct ib_cm_event *ib_event)
{
	const struct ib_cm_sidr_rep_event_param *rep =
		&ib_event->param.sidr_rep_rcvd;
	struct xcma_id *xid = cm_id->context;
	struct rdma_cm_event ev = {};
	unsigned int fev;
	int ret;

	if (ib_event->event != IB_CM_SIDR_REQ_ERROR &&
	    ib_event->event != IB_CM_SIDR_REP_RECEIVED)
		return 0;
	/* alive: its destroy destroys cm_id, which waits for us */
	xcma_fsm_id_get(&xid->life.fsm);
	if (xcma_fsm_id_enter(&xid->life.fsm, XCMA_EV_REP_RECEIVED,
			      XCMA_FSM_PUT_REF))
		return 0;
	if (ib_event->event == IB_CM_SIDR_REQ_ERROR) {
		fev = XCMA_EV_UNREACHABLE;
		ev.status = -ETIMEDOUT;
	} else {
		ev.param.ud.private_data = ib_event->private_data;
		ev.param.ud.private_data_len = IB_CM_SIDR_REP_PRIVATE_DATA_SIZE;
		if (rep->status != IB_SIDR_SUCCESS) {
			fev = XCMA_EV_UNREACHABLE;
			ev.status = rep->status;
		} else {
			fev = sidr_rep_ok(xid, rep, &ev);
		}
	}
	/* CONNECT stays CONNECT under the handler mutex: always let through */
	WARN_ON_ONCE(xcma_fsm_id_fire(&xid->life.fsm, fev));
	ev.event = xcma_fsm_event_cm_event(fev);
	ret = xcma_id_call_user(xid, &ev);
	xcma_ops->destroy_ah_attr(&ev.param.ud.ah_attr);
	return xcma_ib_leave(xid, cm_id, ret);
}

/**
 * send_sidr_req - send a UD id's SIDR REQ
 * @xid: the id, CONNECT, its handler mutex held
 * @param: the user's private data
 *
 * Return: 0, then ESTABLISHED or UNREACHABLE follows; the errnos of
 * ib_cm.
 */
static int send_sidr_req(struct xcma_id *xid, struct rdma_conn_param *param)
{
	struct ib_cm_sidr_req_param req = {};
	void *buf;

	lockdep_assert_held(&xid->life.handler_mutex);
	buf = xcma_ib_req_begin(xid, param, sidr_handler,
				&req.private_data_len);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	req.private_data = req.private_data_len ? buf : NULL;
	req.path = xid->id.route.path_rec;
	req.sgid_attr = xid->id.route.addr.dev_addr.sgid_attr;
	req.service_id = xcma_wire_addr_service_id(xid->id.ps, xcma_id_dst(xid));
	req.timeout_ms = SIDR_TIMEOUT_MS;
	req.max_cm_retries = XCMA_MAX_CM_RETRIES;
	trace_cm_send_sidr_req(xid);
	return xcma_ib_req_end(xid, buf,
			       xcma_ops->send_sidr_req(xid->cm_id, &req));
}

static int send_sidr_rep(struct xcma_id *xid, struct ib_cm_sidr_rep_param *rep,
			 const void *data, u8 len)
{
	int ret;

	ret = xcma_wire_check_private_data(XCMA_WIRE_SIDR_REP,
					   xcma_id_src(xid)->sa_family, data,
					   len);
	if (ret)
		return ret;
	rep->private_data = data;
	rep->private_data_len = len;
	trace_cm_send_sidr_rep(xid);
	return xcma_ops->send_sidr_rep(xid->cm_id, rep);
}

/**
 * ud_accept - answer a SIDR REQ with our QP and QKEY
 * @xid: the conn id, CONNECT, with its ib_cm id
 * @param: the QKEY (0: the port space's) and private data, or NULL
 *
 * Return: 0; -EINVAL for a QKEY other than the id's or too much private
 * data; the errnos of ib_cm.
 */
static int ud_accept(struct xcma_id *xid, struct rdma_conn_param *param)
{
	struct ib_cm_sidr_rep_param rep = { .status = IB_SIDR_SUCCESS };
	int ret;

	if (param && param->qkey)
		ret = xcma_ud_set_qkey(xid, param->qkey);
	else
		ret = xcma_ud_default_qkey(xid);
	if (ret)
		return ret;
	rep.qp_num = xid->qp_num;
	rep.qkey = READ_ONCE(xid->qkey);
	rep.ece.vendor_id = xid->ece.vendor_id;
	rep.ece.attr_mod = xid->ece.attr_mod;
	return send_sidr_rep(xid, &rep, param ? param->private_data : NULL,
			     param ? param->private_data_len : 0);
}

static int ud_connect(struct xcma_id *xid, struct rdma_conn_param *param)
{
	return xcma_ib_connect_prep(xid, param, XCMA_WIRE_SIDR_REQ) ?:
	       send_sidr_req(xid, param);
}

/* a SIDR REP of status IB_SIDR_REJECT: SIDR has no REJ */
static int ud_reject(struct xcma_id *xid, const void *data, u8 len,
		     u8 reason)
{
	struct ib_cm_sidr_rep_param rep = { .status = IB_SIDR_REJECT };

	return xcma_ib_reject_prep(xid, XCMA_WIRE_SIDR_REP, data, len) ?:
	       send_sidr_rep(xid, &rep, data, len);
}

/* a UD QP's attributes are the id's own: its QKEY, the port space's */
static int ud_init_qp_attr(struct xcma_id *xid, struct ib_qp_attr *attr,
			   int *mask)
{
	int ret;

	ret = xcma_qp_attr_noconn(xid, attr, mask);
	if (!ret)
		ret = xcma_ud_default_qkey(xid);
	if (ret)
		return ret;
	attr->qkey = READ_ONCE(xid->qkey);
	*mask |= IB_QP_QKEY;
	return 0;
}

/* the SIDR exchange's ib_cm id goes as an RC connection's */
const struct xcma_transport_ops xcma_ud_transport = {
	.connect = ud_connect,
	.accept = ud_accept,
	.reject = ud_reject,
	.disconnect = xcma_ib_disconnect,
	.release = xcma_ib_release,
	.listen = xcma_ib_listen,
	.unlisten = xcma_ib_unlisten,
	.init_qp_attr = ud_init_qp_attr,
	.notify = xcma_ib_notify,
	.reject_msg = xcma_ib_reject_msg,
	.consumer_reject = IB_CM_REJ_CONSUMER_DEFINED,
};

/*
 * The addresses of a SIDR REQ to an AF_IB listener: a SIDR REQ carries
 * no path, so ours is the listener's under a full service ID mask and the
 * peer's is AF_IB and nothing more (in-tree cma_save_ib_info() without a
 * path).
 */
static void sidr_ib_addrs(struct xcma_id *listener,
			  struct sockaddr_storage *local,
			  struct sockaddr_storage *remote)
{
	const struct sockaddr_ib *l =
		(const struct sockaddr_ib *)xcma_id_src(listener);

	xcma_ib_sib_set(local, l->sib_pkey, l->sib_flowinfo,
			(const union ib_gid *)&l->sib_addr, l->sib_sid,
			cpu_to_be64(~0ULL));
	((struct sockaddr_ib *)local)->sib_scope_id = l->sib_scope_id;
	xcma_ib_sib_set(remote, 0, 0, NULL, 0, 0);
}

/* a SIDR request's ib_cm id is its conn id's; ib_cm sends it nothing more */
static void sidr_adopt(struct xcma_id *conn, void *cm)
{
	struct ib_cm_id *cm_id = cm;

	conn->cm_id = cm_id;
	cm_id->context = conn;
	cm_id->cm_handler = sidr_handler;
}

static const struct xcma_req_ops sidr_req_ops = {
	.adopt = sidr_adopt,
	.drop = xcma_ib_req_drop,
};

/**
 * xcma_ud_req_handler - a SIDR REQ for one of our listeners
 * @cm_id: ib_cm's id of the request
 * @ib_event: the SIDR REQ
 *
 * Return: 0 if a listener's user took it; else non-zero, and ib_cm
 * destroys @cm_id.
 */
int xcma_ud_req_handler(struct ib_cm_id *cm_id,
			const struct ib_cm_event *ib_event)
{
	const struct ib_cm_sidr_req_event_param *req =
		&ib_event->param.sidr_req_rcvd;
	const struct xcma_ib_req in = {
		.pdata = ib_event->private_data,
		.pdata_len = IB_CM_SIDR_REQ_PRIVATE_DATA_SIZE,
		.sid = req->service_id,
		.port = req->port,
		.sgid_attr = req->sgid_attr,
		.pkey = req->pkey,
	};
	struct sockaddr_storage local, remote;
	struct net_device *ndev;
	struct xcma_id *listener, *conn;
	struct rdma_cm_event ev = {};
	size_t off;
	int ret;

	/* a SIDR REQ names no GID of ours (in-tree: has_gid false) */
	listener = xcma_ib_req_listener(cm_id->device, &in, &local, &remote,
					&ndev);
	if (IS_ERR(listener))
		return PTR_ERR(listener);
	if (!ndev)
		sidr_ib_addrs(listener, &local, &remote);
	trace_cm_req_handler(listener, ib_event->event);
	if (listener->id.qp_type != IB_QPT_UD) {
		ret = -EINVAL;
		goto out;
	}
	conn = xcma_passive_conn_alloc(listener, IB_QPT_UD, &local, &remote);
	if (!conn) {
		ret = -ENOMEM;
		goto out;
	}
	conn->id.port_num = req->port;
	if (local.ss_family == AF_IB) {
		/* a bound listener's GID and pkey (in-tree cma_translate_ib()) */
		if (!xcma_addr_is_any((struct sockaddr *)&local))
			xcma_translate_ib((struct sockaddr_ib *)&local,
					  &conn->id.route.addr.dev_addr);
	} else {
		/* the netdev's hardware address, as in-tree (RoCE and IB) */
		xcma_ib_conn_copy_l2(&conn->id.route.addr.dev_addr, ndev);
		/* on IB, IPoIB's names the GID; written again, as for a REQ */
		if (req->sgid_attr &&
		    xcma_transport(conn->id.device, req->port) ==
		    XCMA_TRANSPORT_IB) {
			union ib_gid gid = req->sgid_attr->gid;

			rdma_addr_set_sgid(&conn->id.route.addr.dev_addr,
					   &gid);
		}
	}

	off = xcma_wire_hdr_len(local.ss_family);
	ev.event = RDMA_CM_EVENT_CONNECT_REQUEST;
	ev.param.ud.private_data = ib_event->private_data + off;
	ev.param.ud.private_data_len = IB_CM_SIDR_REQ_PRIVATE_DATA_SIZE - off;
	ret = xcma_passive_deliver(listener, conn, &ev, &sidr_req_ops, cm_id);
out:
	dev_put(ndev);
	xcma_fsm_id_put(&listener->life.fsm);
	return ret;
}
