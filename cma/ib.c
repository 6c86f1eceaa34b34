// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Connections over ib_cm (IB and RoCE, RC): REQ/REP/RTU, REJ, DREQ/DREP,
 * and the ib_cm callbacks that turn them into rdma_cm events.
 *
 * Each callback builds its rdma_cm_event on the stack, enters the id
 * (handler mutex, table), does what must happen before the user hears of
 * it (moving the QP on a REP and sending the RTU, moving it to ERR on a
 * REJ), calls the user and leaves.
 */
#include <linux/export.h>
#include <linux/netdevice.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <net/ip6_route.h>
#include <net/ip_fib.h>
#include <net/net_namespace.h>
#include <rdma/ib.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cm.h>
#if IS_ENABLED(CONFIG_KUNIT)
#include <kunit/static_stub.h>
#endif

#include "export.h"
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
#include "device.h"

static int ib_handler(struct ib_cm_id *cm_id,
		      const struct ib_cm_event *ib_event);

/**
 * xcma_ib_release - let go of the ib_cm connection
 * @xid: the id, destroyed or its device removed; no callback of it runs
 *	any more, ib_cm's own may still be running and are waited for
 */
void xcma_ib_release(struct xcma_id *xid)
{
	struct ib_cm_id *cm_id = xid->cm_id;

	xid->cm_id = NULL;
	if (cm_id)
		xcma_ops->destroy_cm_id(cm_id);
}

static int rep_recv(struct xcma_id *xid)
{
	int ret;

	ret = xcma_qp_modify_rtr(xid, NULL);
	if (!ret)
		ret = xcma_qp_modify_rts(xid, NULL);
	if (!ret) {
		trace_cm_send_rtu(xid);
		ret = xcma_ops->send_rtu(xid->cm_id, NULL, 0);
	}
	if (!ret)
		return 0;
	xcma_qp_modify_err(xid);
	trace_cm_send_rej(xid);
	if (xcma_ops->send_rej(xid->cm_id, IB_CM_REJ_CONSUMER_DEFINED, NULL, 0,
			       NULL, 0))
		pr_debug("xcma: REJ after a failed REP failed\n");
	return ret;
}

/**
 * xcma_ib_leave - leave an id entered from an ib_cm callback (RC or SIDR)
 * @xid: the id
 * @cm_id: the callback's ib_cm id
 * @ret: the user's value
 *
 * On a destroy by return the id lets go of @cm_id, which ib_cm destroys
 * itself when the callback returns non-zero.
 *
 * Return: what the callback returns to ib_cm (xcma_id_leave_cb()).
 */
int xcma_ib_leave(struct xcma_id *xid, struct ib_cm_id *cm_id, int ret)
{
	if (ret && xid->cm_id == cm_id)
		xid->cm_id = NULL;
	return xcma_id_leave_cb(xid, ret);
}

/*
 * REP received on an id still connecting: with a QP, RTR, RTS and RTU,
 * whose outcome is ESTABLISHED or CONNECT_ERROR; without one, the user
 * moves the QP itself and calls rdma_accept() after CONNECT_RESPONSE.
 */
static int rep_handler(struct xcma_id *xid, struct ib_cm_id *cm_id,
		       const struct ib_cm_event *ib_event)
{
	const struct ib_cm_rep_event_param *rep = &ib_event->param.rep_rcvd;
	struct rdma_cm_event ev = {};
	unsigned int fev;

	if (xcma_fsm_id_enter(&xid->life.fsm, XCMA_EV_REP_RECEIVED,
			      XCMA_FSM_PUT_REF))
		return 0;
	trace_cm_send_mra(xid);
	if (xcma_ops->send_mra(xid->cm_id, XCMA_CM_MRA_SETTING, NULL, 0))
		pr_debug("xcma: MRA not sent\n");
	if (xid->id.qp) {
		ev.status = rep_recv(xid);
		fev = ev.status ? XCMA_EV_CONNECT_ERROR : XCMA_EV_ESTABLISHED;
	} else {
		fev = XCMA_EV_CONNECT_RESPONSE;
	}
	/* CONNECT stays CONNECT under the handler mutex: always let through */
	WARN_ON_ONCE(xcma_fsm_id_fire(&xid->life.fsm, fev));
	ev.event = xcma_fsm_event_cm_event(fev);
	ev.param.conn.private_data = ib_event->private_data;
	ev.param.conn.private_data_len = IB_CM_REP_PRIVATE_DATA_SIZE;
	ev.param.conn.responder_resources = rep->responder_resources;
	ev.param.conn.initiator_depth = rep->initiator_depth;
	ev.param.conn.flow_control = rep->flow_control;
	ev.param.conn.rnr_retry_count = rep->rnr_retry_count;
	ev.param.conn.srq = rep->srq;
	ev.param.conn.qp_num = rep->remote_qpn;
	ev.ece.vendor_id = rep->ece.vendor_id;
	ev.ece.attr_mod = rep->ece.attr_mod;
	return xcma_ib_leave(xid, cm_id, xcma_id_call_user(xid, &ev));
}

static int ib_handler(struct ib_cm_id *cm_id,
		      const struct ib_cm_event *ib_event)
{
	struct xcma_id *xid = cm_id->context;
	struct rdma_cm_event ev = {};
	unsigned int fev;

	switch (ib_event->event) {
	case IB_CM_REQ_ERROR:
	case IB_CM_REP_ERROR:
		fev = XCMA_EV_UNREACHABLE;
		ev.status = -ETIMEDOUT;
		break;
	case IB_CM_REP_RECEIVED:
		/* alive: its destroy destroys cm_id, which waits for us */
		xcma_fsm_id_get(&xid->life.fsm);
		return rep_handler(xid, cm_id, ib_event);
	case IB_CM_RTU_RECEIVED:
	case IB_CM_USER_ESTABLISHED:
		fev = XCMA_EV_ESTABLISHED;
		break;
	case IB_CM_DREQ_ERROR:
		ev.status = -ETIMEDOUT;
		fallthrough;
	case IB_CM_DREQ_RECEIVED:
	case IB_CM_DREP_RECEIVED:
		fev = XCMA_EV_DISCONNECTED;
		break;
	case IB_CM_TIMEWAIT_EXIT:
		fev = XCMA_EV_TIMEWAIT_EXIT;
		break;
	case IB_CM_REJ_RECEIVED:
		fev = XCMA_EV_REJECTED;
		ev.status = ib_event->param.rej_rcvd.reason;
		ev.param.conn.private_data = ib_event->private_data;
		ev.param.conn.private_data_len = IB_CM_REJ_PRIVATE_DATA_SIZE;
		break;
	default:
		/* MRA and the rest: nothing for the user */
		return 0;
	}

	xcma_fsm_id_get(&xid->life.fsm);
	if (xcma_fsm_id_enter(&xid->life.fsm, fev, XCMA_FSM_PUT_REF))
		return 0;
	if (fev == XCMA_EV_REJECTED)
		xcma_qp_modify_err(xid);
	ev.event = xcma_fsm_event_cm_event(fev);
	return xcma_ib_leave(xid, cm_id, xcma_id_call_user(xid, &ev));
}

static void set_req_event(struct rdma_cm_event *ev,
			  const struct ib_cm_event *ib_event, size_t offset)
{
	const struct ib_cm_req_event_param *req = &ib_event->param.req_rcvd;

	ev->param.conn.private_data = ib_event->private_data + offset;
	ev->param.conn.private_data_len = IB_CM_REQ_PRIVATE_DATA_SIZE - offset;
	ev->param.conn.responder_resources = req->responder_resources;
	ev->param.conn.initiator_depth = req->initiator_depth;
	ev->param.conn.flow_control = req->flow_control;
	ev->param.conn.retry_count = req->retry_count;
	ev->param.conn.rnr_retry_count = req->rnr_retry_count;
	ev->param.conn.srq = req->srq;
	ev->param.conn.qp_num = req->remote_qpn;
	ev->ece.vendor_id = req->ece.vendor_id;
	ev->ece.attr_mod = req->ece.attr_mod;
}

/**
 * xcma_ib_conn_copy_l2 - a passive id's hardware address
 * @da: the id's
 * @ndev: the netdev the request came in on (xcma_ib_req_netdev())
 *
 * Its ifindex, type, hardware and broadcast addresses, as in-tree
 * cma_ib_new_conn_id() copies them (rdma_copy_src_l2_addr(), which is not
 * in ib_core's headers): on RoCE the GID's netdev, on IB the IPoIB one.
 */
void xcma_ib_conn_copy_l2(struct rdma_dev_addr *da,
			  const struct net_device *ndev)
{
	da->bound_dev_if = ndev->ifindex;
	da->dev_type = ndev->type;
	memcpy(da->src_dev_addr, ndev->dev_addr, MAX_ADDR_LEN);
	memcpy(da->broadcast, ndev->broadcast, MAX_ADDR_LEN);
}

static struct xcma_id *new_conn(struct xcma_id *listener,
				const struct ib_cm_event *ib_event,
				const struct sockaddr_storage *local,
				const struct sockaddr_storage *remote,
				const struct net_device *ndev)
{
	const struct ib_cm_req_event_param *req = &ib_event->param.req_rcvd;
	struct rdma_dev_addr *da;
	struct xcma_id *conn;
	u8 n;

	conn = xcma_passive_conn_alloc(listener, req->qp_type, local, remote);
	if (!conn)
		return NULL;
	/* the primary path, and the alternate one if the REQ names one */
	n = req->alternate_path ? 2 : 1;
	conn->id.route.path_rec = kmalloc_array(n, sizeof(*req->primary_path),
						GFP_KERNEL);
	if (!conn->id.route.path_rec) {
		xcma_id_free_unused(conn);
		return NULL;
	}
	conn->id.route.path_rec[0] = *req->primary_path;
	if (req->alternate_path)
		conn->id.route.path_rec[1] = *req->alternate_path;
	conn->id.route.num_pri_alt_paths = n;
	conn->id.port_num = req->port;
	da = &conn->id.route.addr.dev_addr;
	/*
	 * The hardware address of the netdev the REQ came in on, as in-tree
	 * (cma_ib_new_conn_id()'s rdma_copy_src_l2_addr()): its ifindex,
	 * type, hardware and broadcast addresses (a bond's ADDR_CHANGE and a
	 * UD join look for them). On RoCE the source GID is then the IP
	 * address's; on IB it is the path's, which is the one in IPoIB's
	 * hardware address (written again, so that it holds whatever that
	 * address is).
	 */
	if (ndev)
		xcma_ib_conn_copy_l2(da, ndev);
	if (!ndev || xcma_transport(conn->id.device, req->port) ==
		     XCMA_TRANSPORT_IB)
		rdma_addr_set_sgid(da, &req->primary_path->sgid);
	rdma_addr_set_dgid(da, &req->primary_path->dgid);
	/* an AF_IB id's hardware address (in-tree cma_ib_new_conn_id()) */
	if (local->ss_family != AF_IB)
		return conn;
	if (!xcma_addr_is_any((const struct sockaddr *)local)) {
		xcma_translate_ib((const struct sockaddr_ib *)local, da);
	} else if (!rdma_protocol_roce(conn->id.device, req->port)) {
		da->dev_type = ARPHRD_INFINIBAND;
		ib_addr_set_pkey(da, be16_to_cpu(req->primary_path->pkey));
	}
	return conn;
}

/**
 * xcma_ib_req_netdev - the netdev a request came in on
 * @dev: its device
 * @port: its port
 * @attr: the GID it came in on (a REQ's or a SIDR REQ's), may be NULL
 * @pkey: its partition
 * @gid: our GID in it, or NULL (a SIDR REQ names none)
 * @local: the IP address it is for (its rdma_cm header's)
 *
 * As in-tree cma_get_net_dev(): on RoCE the GID's netdev; on InfiniBand,
 * whose GIDs have no netdev, the IPoIB netdev that ib_core's clients
 * name for the port, partition, GID and address
 * (ib_get_net_dev_by_params()). Its namespace is the request's, so that
 * a listener in one namespace never sees a request that arrived in
 * another, and the passive id takes its hardware address.
 *
 * Return: the netdev, held, or NULL.
 */
struct net_device *xcma_ib_req_netdev(struct ib_device *dev, u32 port,
				      const struct ib_gid_attr *attr, u16 pkey,
				      const union ib_gid *gid,
				      const struct sockaddr *local)
{
	struct net_device *ndev;

	if (xcma_transport(dev, port) == XCMA_TRANSPORT_IB)
		return xcma_ops->get_net_dev_by_params(dev, port, pkey, gid,
						       local);
	if (!attr)
		return NULL;
	rcu_read_lock();
	ndev = xcma_ops->gid_attr_ndev_rcu(attr);
	if (IS_ERR(ndev))
		ndev = NULL;
	else
		dev_hold(ndev);
	rcu_read_unlock();
	return ndev;
}

static bool route4_leaves_by(struct net_device *ndev,
			     const struct sockaddr_in *remote,
			     const struct sockaddr_in *local)
{
	__be32 peer = remote->sin_addr.s_addr, ours = local->sin_addr.s_addr;
	struct flowi4 fl4 = {
		.flowi4_oif = ndev->ifindex,
		.daddr = peer,
		.saddr = ours,
	};
	struct fib_result res;

	/* nothing is answered to or from these, whatever the routes say */
	if (ipv4_is_multicast(ours) || ipv4_is_lbcast(ours) ||
	    ipv4_is_zeronet(ours) || ipv4_is_loopback(ours) ||
	    ipv4_is_lbcast(peer) || ipv4_is_zeronet(peer) ||
	    ipv4_is_loopback(peer))
		return false;
	return !fib_lookup(dev_net(ndev), &fl4, &res, 0) &&
	       FIB_RES_DEV(res) == ndev;
}

static bool route6_leaves_by(struct net_device *ndev,
			     const struct sockaddr_in6 *remote,
			     const struct sockaddr_in6 *local)
{
#if IS_ENABLED(CONFIG_IPV6)
	int strict = ipv6_addr_type(&remote->sin6_addr) & IPV6_ADDR_LINKLOCAL;
	struct rt6_info *rt;
	bool ret;

	rt = rt6_lookup(dev_net(ndev), &remote->sin6_addr, &local->sin6_addr,
			ndev->ifindex, NULL, strict);
	if (!rt)
		return false;
	/* by its inet6 device: a local address's route goes by lo */
	ret = rt->rt6i_idev && rt->rt6i_idev->dev == ndev;
	ip6_rt_put(rt);
	return ret;
#else
	return false;
#endif
}

/**
 * xcma_ib_route_leaves_by - whether the answer to a request would leave by
 *	the netdev it came in on
 * @ndev: that netdev
 * @remote: the request's source, where the answer goes
 * @local: its destination, ours
 *
 * As in-tree validate_net_dev(): the route the namespace of @ndev has
 * from @local to @remote for @ndev's ifindex must leave by @ndev, and no
 * answer goes to a broadcast, zero or loopback address, or from those or
 * a multicast one. Called under rcu_read_lock().
 *
 * Return: true if it would.
 */
bool xcma_ib_route_leaves_by(struct net_device *ndev,
			     const struct sockaddr *remote,
			     const struct sockaddr *local)
{
	if (remote->sa_family != local->sa_family)
		return false;
	switch (remote->sa_family) {
	case AF_INET:
		return route4_leaves_by(ndev,
					(const struct sockaddr_in *)remote,
					(const struct sockaddr_in *)local);
	case AF_INET6:
		return route6_leaves_by(ndev,
					(const struct sockaddr_in6 *)remote,
					(const struct sockaddr_in6 *)local);
	default:
		return false;
	}
}

/**
 * ip_listener - the listener of a request with an IP header
 * @ndev: the request's netdev (xcma_ib_req_netdev()), held
 * @ibdev: the device the request came in on
 * @service_id: its service ID
 * @hdr: its rdma_cm header
 * @local: our address in it
 * @remote: the peer's
 *
 * As in-tree cma_ib_id_from_event(): a netdev that is down may be on its
 * way to another namespace, and one by which the answer would not leave
 * is not the peer's way to us; the request is refused for either
 * (-EHOSTUNREACH, which ib_cm turns into a REJ). The namespace is read in
 * the RCU section that saw the netdev up: a move closes the netdev and
 * waits for such readers before it changes the namespace. The lookup
 * takes it as a key only; a request to an IPv6 link-local address goes
 * only to a listener bound to no netdev or to this one.
 *
 * Return: the listener, held; NULL if there is none; or
 * ERR_PTR(-EHOSTUNREACH).
 */
static struct xcma_id *ip_listener(struct net_device *ndev,
				   struct ib_device *ibdev, __be64 service_id,
				   const void *hdr,
				   const struct sockaddr_storage *local,
				   const struct sockaddr_storage *remote)
{
	const struct sockaddr_in6 *l6 = (const struct sockaddr_in6 *)local;
	struct net *net = NULL;
	int ll_ifindex = 0;

	rcu_read_lock();
	if ((READ_ONCE(ndev->flags) & IFF_UP) &&
	    xcma_ops->route_leaves_by(ndev, (const struct sockaddr *)remote,
				      (const struct sockaddr *)local))
		net = dev_net(ndev);
	rcu_read_unlock();
	if (!net)
		return ERR_PTR(-EHOSTUNREACH);
	if (local->ss_family == AF_INET6 &&
	    (ipv6_addr_type(&l6->sin6_addr) & IPV6_ADDR_LINKLOCAL))
		ll_ifindex = ndev->ifindex;
	return xcma_passive_find(net, ibdev, service_id, hdr, ll_ifindex);
}

/**
 * xcma_ib_req_listener - the listener a REQ or SIDR REQ is for
 * @ibdev: the device it came in on
 * @req: what it says
 * @local: set to our address in it
 * @remote: set to the peer's
 * @ndev: set to the netdev it came in on, held; NULL for a request
 *	without an IP header, whose addresses the caller writes (AF_IB)
 *
 * A request with the rdma_cm header goes to the listener of its address
 * on its netdev; one without, to an AF_IB listener of its service ID (in-
 * tree cma_get_net_dev() and cma_ib_id_from_event()).
 *
 * Return: the listener, held; an ERR_PTR: the header's errno, -ENODEV
 * without a netdev, -EHOSTUNREACH (ip_listener()), -EINVAL without a
 * listener.
 */
struct xcma_id *xcma_ib_req_listener(struct ib_device *ibdev,
				     const struct xcma_ib_req *req,
				     struct sockaddr_storage *local,
				     struct sockaddr_storage *remote,
				     struct net_device **ndev)
{
	struct xcma_id *listener;
	int ret;

	*ndev = NULL;
	ret = xcma_wire_hdr_decode(req->pdata, req->pdata_len, req->sid, local,
				   remote);
	if (ret && ret != -EAFNOSUPPORT)
		return ERR_PTR(ret);
	if (ret) {
		listener = xcma_passive_find_ib(ibdev, req->port, req->sid);
		return listener ?: ERR_PTR(-EINVAL);
	}
	*ndev = xcma_ib_req_netdev(ibdev, req->port, req->sgid_attr, req->pkey,
				   req->sgid, (struct sockaddr *)local);
	if (!*ndev)
		return ERR_PTR(-ENODEV);
	listener = ip_listener(*ndev, ibdev, req->sid, req->pdata, local,
			       remote);
	if (IS_ERR_OR_NULL(listener)) {
		dev_put(*ndev);
		*ndev = NULL;
		return listener ?: ERR_PTR(-EINVAL);
	}
	return listener;
}

/**
 * xcma_ib_sib_set - write an AF_IB address of a connection
 * @ss: the address, cleared first
 * @pkey: its partition
 * @flowinfo: its flow label
 * @gid: its GID, or NULL for none
 * @sid: its service ID
 * @sid_mask: that ID's mask
 */
void xcma_ib_sib_set(struct sockaddr_storage *ss, __be16 pkey,
		     __be32 flowinfo, const union ib_gid *gid, __be64 sid,
		     __be64 sid_mask)
{
	struct sockaddr_ib *sib = (struct sockaddr_ib *)ss;

	memset(ss, 0, sizeof(*ss));
	sib->sib_family = AF_IB;
	sib->sib_pkey = pkey;
	sib->sib_flowinfo = flowinfo;
	if (gid)
		memcpy(&sib->sib_addr, gid, sizeof(*gid));
	sib->sib_sid = sid;
	sib->sib_sid_mask = sid_mask;
}

/*
 * The addresses of a connection to an AF_IB listener, from the REQ's
 * path as ib_cm turned it for us (in-tree cma_save_ib_info()): ours is
 * the path's source GID with the service ID the REQ was sent to, under a
 * full mask; the peer's its destination GID.
 */
static void ib_addrs(const struct sa_path_rec *path,
		     struct sockaddr_storage *local,
		     struct sockaddr_storage *remote)
{
	xcma_ib_sib_set(local, path->pkey, path->flow_label, &path->sgid,
			path->service_id, cpu_to_be64(~0ULL));
	xcma_ib_sib_set(remote, path->pkey, path->flow_label, &path->dgid, 0,
			0);
}

/* an RC request's ib_cm id is its conn id's from the user's callback on */
static void rc_adopt(struct xcma_id *conn, void *cm)
{
	struct ib_cm_id *cm_id = cm;

	conn->cm_id = cm_id;
	cm_id->context = conn;
	cm_id->cm_handler = ib_handler;
}

/**
 * xcma_ib_req_drop - a request's ib_cm id stays ib_cm's
 * @conn: the request's id
 * @cm: the ib_cm id
 * @adopted: @conn took it over
 *
 * ib_cm destroys it when the request handler returns non-zero.
 */
void xcma_ib_req_drop(struct xcma_id *conn, void *cm, bool adopted)
{
	if (adopted)
		conn->cm_id = NULL;
}

/* the user answers later: the peer is told to wait (an MRA) */
static void rc_pending(struct xcma_id *conn, void *cm)
{
	if (xcma_id_transition(conn, XCMA_EV_SEND_MRA))
		return;
	trace_cm_send_mra(conn);
	if (xcma_ops->send_mra(cm, XCMA_CM_MRA_SETTING, NULL, 0))
		pr_debug("xcma: MRA not sent\n");
}

static const struct xcma_req_ops rc_req_ops = {
	.adopt = rc_adopt,
	.drop = xcma_ib_req_drop,
	.pending = rc_pending,
};

/**
 * req_handler - ib_cm listen callback: a REQ for one of our ports
 * @cm_id: the new ib_cm id of the connection
 * @ib_event: the REQ
 *
 * Return: 0 if a listener's user took it; else non-zero, and ib_cm
 * rejects the REQ and destroys @cm_id.
 */
static int req_handler(struct ib_cm_id *cm_id,
		       const struct ib_cm_event *ib_event)
{
	struct sockaddr_storage local, remote;
	const struct ib_cm_req_event_param *req;
	struct net_device *ndev;
	struct xcma_id *listener, *conn;
	struct rdma_cm_event ev = {};
	struct xcma_ib_req in;
	int ret;

	if (ib_event->event == IB_CM_SIDR_REQ_RECEIVED)
		return xcma_ud_req_handler(cm_id, ib_event);
	if (ib_event->event != IB_CM_REQ_RECEIVED)
		return -EINVAL;
	req = &ib_event->param.req_rcvd;
	in = (struct xcma_ib_req){
		.pdata = ib_event->private_data,
		.pdata_len = IB_CM_REQ_PRIVATE_DATA_SIZE,
		.sid = req->primary_path->service_id,
		.port = req->port,
		.sgid_attr = req->ppath_sgid_attr,
		.pkey = be16_to_cpu(req->primary_path->pkey),
		.sgid = &req->primary_path->sgid,
	};
	listener = xcma_ib_req_listener(cm_id->device, &in, &local, &remote,
					&ndev);
	if (IS_ERR(listener))
		return PTR_ERR(listener);
	if (!ndev)
		ib_addrs(req->primary_path, &local, &remote);
	trace_cm_req_handler(listener, ib_event->event);
	xcma_ib_req_found(&listener->id);
	if (req->qp_type != listener->id.qp_type) {
		ret = -EINVAL;
		goto out;
	}
	conn = new_conn(listener, ib_event, &local, &remote, ndev);
	if (!conn) {
		ret = -ENOMEM;
		goto out;
	}
	set_req_event(&ev, ib_event, xcma_wire_hdr_len(local.ss_family));
	ev.event = RDMA_CM_EVENT_CONNECT_REQUEST;
	ret = xcma_passive_deliver(listener, conn, &ev, &rc_req_ops, cm_id);
out:
	dev_put(ndev);
	xcma_fsm_id_put(&listener->life.fsm);
	return ret;
}

/**
 * xcma_ib_listen - the ib_cm listen of an RC or UD id on its device
 * @xid: the id, LISTEN, holding a device with ib_cm
 *
 * ib_cm shares one listen between the ids of a port: its service ID, the
 * port space's and port number's (SIDR requests come to it too).
 *
 * Return: 0, or the errno of ib_cm_insert_listen().
 */
int xcma_ib_listen(struct xcma_id *xid)
{
	struct ib_cm_id *cm_id;

	cm_id = xcma_ops->insert_listen(xid->id.device, req_handler,
					xcma_wire_addr_service_id(xid->id.ps,
								  xcma_id_src(xid)));
	if (IS_ERR(cm_id))
		return PTR_ERR(cm_id);
	mutex_lock(&xcma_listen_lock);
	xid->listen_cm_id = cm_id;
	mutex_unlock(&xcma_listen_lock);
	return 0;
}

/**
 * xcma_ib_unlisten - let go of the id's ib_cm listen, if it holds one
 * @xid: the id
 */
void xcma_ib_unlisten(struct xcma_id *xid)
{
	struct ib_cm_id *cm_id;

	mutex_lock(&xcma_listen_lock);
	cm_id = xid->listen_cm_id;
	xid->listen_cm_id = NULL;
	mutex_unlock(&xcma_listen_lock);
	if (cm_id)
		xcma_ops->destroy_cm_id(cm_id);
}

/* the private data of a REQ or SIDR REQ: see xcma_ib_req_begin() */
static void *req_pdata(struct xcma_id *xid, const struct rdma_conn_param *param,
		       u8 *len)
{
	size_t off = xcma_wire_hdr_len(xcma_id_src(xid)->sa_family);
	void *buf;
	int ret;

	*len = off + param->private_data_len;
	buf = kzalloc(*len, GFP_KERNEL);
	if (!buf)
		return ERR_PTR(-ENOMEM);
	if (param->private_data && param->private_data_len)
		memcpy(buf + off, param->private_data, param->private_data_len);
	ret = off ? xcma_wire_hdr_encode(buf, *len, xcma_id_src(xid),
					 xcma_id_dst(xid)) :
		    0;
	if (ret) {
		kfree(buf);
		return ERR_PTR(ret);
	}
	return buf;
}

/**
 * xcma_ib_req_begin - the private data and the ib_cm id of a REQ or SIDR REQ
 * @xid: the id that sends it, CONNECT; it gets the ib_cm id (@xid->cm_id)
 * @param: the user's connection parameters
 * @handler: the ib_cm id's event handler
 * @len: set to the data's length
 *
 * The data is the rdma_cm header of the id's addresses, then the user's
 * data; AF_IB sends the user's data alone (in-tree cma_format_hdr()).
 * xcma_ib_req_end() follows the send.
 *
 * Return: the data; an ERR_PTR: -ENOMEM, the header's errno, or that of
 * ib_create_cm_id().
 */
void *xcma_ib_req_begin(struct xcma_id *xid,
			const struct rdma_conn_param *param,
			ib_cm_handler handler, u8 *len)
{
	struct ib_cm_id *cm_id;
	void *buf;

	buf = req_pdata(xid, param, len);
	if (IS_ERR(buf))
		return buf;
	cm_id = xcma_ops->create_cm_id(xid->id.device, handler, xid);
	if (IS_ERR(cm_id)) {
		kfree(buf);
		return ERR_CAST(cm_id);
	}
	xid->cm_id = cm_id;
	return buf;
}

/**
 * xcma_ib_req_end - after the send of a REQ or SIDR REQ
 * @xid: the id
 * @buf: xcma_ib_req_begin()'s data, freed here
 * @ret: the send's result: on failure the ib_cm id is destroyed
 *
 * Return: @ret.
 */
int xcma_ib_req_end(struct xcma_id *xid, void *buf, int ret)
{
	struct ib_cm_id *cm_id = xid->cm_id;

	if (ret) {
		xid->cm_id = NULL;
		xcma_ops->destroy_cm_id(cm_id);
	}
	kfree(buf);
	return ret;
}

static int connect_ib(struct xcma_id *xid, struct rdma_conn_param *param)
{
	struct rdma_route *route = &xid->id.route;
	struct ib_cm_req_param req = {};
	void *buf;

	buf = xcma_ib_req_begin(xid, param, ib_handler, &req.private_data_len);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	req.private_data = req.private_data_len ? buf : NULL;
	req.primary_path = &route->path_rec[0];
	req.primary_path_inbound = route->path_rec_inbound;
	req.primary_path_outbound = route->path_rec_outbound;
	req.ppath_sgid_attr = route->addr.dev_addr.sgid_attr;
	req.service_id = xcma_wire_addr_service_id(xid->id.ps, xcma_id_dst(xid));
	req.qp_num = xid->qp_num;
	req.qp_type = xid->id.qp_type;
	req.starting_psn = xid->seq_num;
	req.responder_resources = param->responder_resources;
	req.initiator_depth = param->initiator_depth;
	req.flow_control = param->flow_control;
	req.retry_count = min_t(u8, 7, param->retry_count);
	req.rnr_retry_count = min_t(u8, 7, param->rnr_retry_count);
	req.remote_cm_response_timeout = XCMA_CM_RESPONSE_TIMEOUT;
	req.local_cm_response_timeout = XCMA_CM_RESPONSE_TIMEOUT;
	req.max_cm_retries = XCMA_MAX_CM_RETRIES;
	req.srq = xid->srq;
	req.ece.vendor_id = xid->ece.vendor_id;
	req.ece.attr_mod = xid->ece.attr_mod;
	trace_cm_send_req(xid);
	return xcma_ib_req_end(xid, buf, xcma_ops->send_req(xid->cm_id, &req));
}

/**
 * xcma_ib_connect_prep - what an ib_cm connect does before its request
 * @xid: the id, CONNECT
 * @param: the user's parameters
 * @msg: the request (REQ or SIDR REQ), whose private data is checked
 *
 * Return: 0 with the QP number taken; -EINVAL for too much private data.
 */
int xcma_ib_connect_prep(struct xcma_id *xid, struct rdma_conn_param *param,
			 enum xcma_wire_msg msg)
{
	int ret;

	ret = xcma_wire_check_private_data(msg, xcma_id_src(xid)->sa_family,
					   param->private_data,
					   param->private_data_len);
	if (!ret)
		xcma_qp_take_num(xid, param);
	return ret;
}

static int rc_connect(struct xcma_id *xid, struct rdma_conn_param *param)
{
	return xcma_ib_connect_prep(xid, param, XCMA_WIRE_REQ) ?:
	       connect_ib(xid, param);
}

static int accept_ib(struct xcma_id *xid, struct rdma_conn_param *param)
{
	struct ib_cm_rep_param rep = {};
	int ret;

	/* ib_cm refuses it in the REP, and the caller rejects: as in-tree */
	ret = xcma_wire_check_private_data(XCMA_WIRE_REP,
					   xcma_id_src(xid)->sa_family,
					   param->private_data,
					   param->private_data_len);
	if (ret)
		return ret;
	ret = xcma_qp_modify_rtr(xid, param);
	if (!ret)
		ret = xcma_qp_modify_rts(xid, param);
	if (ret)
		return ret;
	rep.qp_num = xid->qp_num;
	rep.starting_psn = xid->seq_num;
	rep.private_data = param->private_data;
	rep.private_data_len = param->private_data_len;
	rep.responder_resources = param->responder_resources;
	rep.initiator_depth = param->initiator_depth;
	rep.flow_control = param->flow_control;
	rep.rnr_retry_count = min_t(u8, 7, param->rnr_retry_count);
	rep.srq = xid->srq;
	rep.ece.vendor_id = xid->ece.vendor_id;
	rep.ece.attr_mod = xid->ece.attr_mod;
	trace_cm_send_rep(xid);
	return xcma_ops->send_rep(xid->cm_id, &rep);
}

/* a NULL @param: the active side of a user-managed QP answers a REP */
static int rc_accept(struct xcma_id *xid, struct rdma_conn_param *param)
{
	return param ? accept_ib(xid, param) : rep_recv(xid);
}

/**
 * xcma_ib_reject_prep - what an ib_cm reject does before its message
 * @xid: the id, CONNECT
 * @msg: the message (REJ, or a SIDR REP), whose private data is checked
 * @data: the private data
 * @len: its length
 *
 * Return: 0 with the id moved by XCMA_EV_REJECT; -EINVAL for too much
 * private data or in another state.
 */
int xcma_ib_reject_prep(struct xcma_id *xid, enum xcma_wire_msg msg,
			const void *data, u8 len)
{
	return xcma_wire_check_private_data(msg, xcma_id_src(xid)->sa_family,
					    data, len) ?:
	       xcma_id_transition(xid, XCMA_EV_REJECT);
}

static int rc_reject(struct xcma_id *xid, const void *data, u8 len,
		     u8 reason)
{
	int ret;

	ret = xcma_ib_reject_prep(xid, XCMA_WIRE_REJ, data, len);
	if (ret)
		return ret;
	trace_cm_send_rej(xid);
	return xcma_ops->send_rej(xid->cm_id, reason, NULL, 0, data, len);
}

/**
 * xcma_ib_disconnect - an ib_cm id's disconnection: a DREQ, or the DREP
 *	when the peer's DREQ came first
 * @xid: the id
 *
 * The QP goes to ERR first, which flushes its work requests. A listener
 * bound to a device holds a listen id and no connection: only its QP, if
 * it made one, goes to ERR, as no DREQ or DREP goes out of a listen id.
 *
 * Return: 0; -EINVAL without a connection or listen id, or in a state
 * without one; the errno of the QP's modify.
 */
int xcma_ib_disconnect(struct xcma_id *xid)
{
	int ret;

	if (!xid->cm_id) {
		if (!READ_ONCE(xid->listen_cm_id))
			return -EINVAL;
		return xcma_qp_modify_err(xid);
	}
	ret = xcma_id_transition(xid, XCMA_EV_DISCONNECT);
	if (ret)
		return ret;
	ret = xcma_qp_modify_err(xid);
	if (ret)
		return ret;
	trace_cm_disconnect(xid);
	if (!xcma_ops->send_dreq(xid->cm_id, NULL, 0))
		trace_cm_sent_dreq(xid);
	else if (!xcma_ops->send_drep(xid->cm_id, NULL, 0))
		trace_cm_sent_drep(xid);
	else
		pr_debug("xcma: neither DREQ nor DREP could be sent\n");
	return 0;
}

/* ib_cm's attributes once there is a connection, the id's own before */
static int rc_init_qp_attr(struct xcma_id *xid, struct ib_qp_attr *attr,
			   int *mask)
{
	int ret;

	if (xid->cm_id)
		return xcma_ops->cm_init_qp_attr(xid->cm_id, attr, mask);
	ret = xcma_qp_attr_noconn(xid, attr, mask);
	if (ret)
		return ret;
	attr->qp_access_flags = 0;
	*mask |= IB_QP_ACCESS_FLAGS;
	return 0;
}

/**
 * xcma_ib_notify - pass a QP event to ib_cm
 * @xid: the id, with its ib_cm id
 * @event: the event (e.g. IB_EVENT_COMM_EST)
 *
 * Return: 0 (a device that is not an IB CA has nothing to tell ib_cm, as
 * in-tree); the errno of ib_cm.
 */
int xcma_ib_notify(struct xcma_id *xid, enum ib_event_type event)
{
	if (xid->id.device->node_type != RDMA_NODE_IB_CA)
		return 0;
	return xcma_ops->cm_notify(xid->cm_id, event);
}

/* ib_cm's text for a REJ's reason */
const char *xcma_ib_reject_msg(int reason)
{
	return xcma_ops->reject_msg(reason);
}

const struct xcma_transport_ops xcma_rc_transport = {
	.connect = rc_connect,
	.accept = rc_accept,
	.reject = rc_reject,
	.disconnect = xcma_ib_disconnect,
	.release = xcma_ib_release,
	.listen = xcma_ib_listen,
	.unlisten = xcma_ib_unlisten,
	.init_qp_attr = rc_init_qp_attr,
	.notify = xcma_ib_notify,
	.reject_msg = xcma_ib_reject_msg,
	.consumer_reject = IB_CM_REJ_CONSUMER_DEFINED,
};

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * xcma_ib_req_found - a REQ has its listener, nothing is built for it yet
 * @listener: the listener, held
 *
 * Test kernels only: a KUnit case stops the REQ here (a static stub) to
 * destroy the listener from another task in this window.
 */
void xcma_ib_req_found(struct rdma_cm_id *listener)
{
	KUNIT_STATIC_STUB_REDIRECT(xcma_ib_req_found, listener);
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_ib_req_found);
#endif
