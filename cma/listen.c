// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Listeners. A listener bound to an address listens on that address's
 * device; a wildcard listener gets one internal child per device from the
 * lifecycle library (xcma_listen_child()), each listening on its device
 * and sharing its parent's port (xcma_port_share()). Every id that listens
 * on a device holds an ib_cm listen on the service ID of its port (ib_cm
 * shares one between the ids of a port); an incoming REQ finds its
 * listener through the port space, by (namespace, port space, port), then
 * among that port's ids by device and the addresses in the rdma_cm header.
 */
#include <linux/export.h>
#include <linux/mutex.h>

#include "export.h"
#include "addr.h"
#include "ib.h"
#include "id.h"
#include "iw.h"
#include "listen.h"
#include "ops.h"
#include "wire.h"
#include "device.h"

/*
 * listen_lock protects each id's listen_cm_id. Lock order: the ctx lock
 * (xcma_listen_child()), then listen_lock, then the port lock
 * (xcma_listen_find()); nothing else is taken under it but an id
 * reference.
 */
static DEFINE_MUTEX(listen_lock);

/* an iWARP device listens through iw_cm, on the id's address itself */
static int listen_iw(struct xcma_id *xid)
{
	struct iw_cm_id *iw = xcma_iw_listen(xid);

	if (IS_ERR(iw))
		return PTR_ERR(iw);
	mutex_lock(&listen_lock);
	xid->iw_listen_id = iw;
	mutex_unlock(&listen_lock);
	return 0;
}

/**
 * xcma_listen_start - listen on the id's device
 * @xid: the id, with a device and a bound source address
 *
 * Return: 0, or the errno of ib_cm_insert_listen() or of iw_cm.
 */
int xcma_listen_start(struct xcma_id *xid)
{
	struct ib_cm_id *cm_id;

	if (xcma_transport_iw(xid->id.device, xid->id.port_num))
		return listen_iw(xid);
	cm_id = xcma_ops->insert_listen(xid->id.device, xcma_ib_req_handler,
					xcma_wire_addr_service_id(xid->id.ps,
								  xcma_id_src(xid)));
	if (IS_ERR(cm_id))
		return PTR_ERR(cm_id);
	mutex_lock(&listen_lock);
	xid->listen_cm_id = cm_id;
	mutex_unlock(&listen_lock);
	return 0;
}

/**
 * xcma_listen_stop - stop listening; nothing happens if the id does not
 * @xid: the id
 *
 * Once this returns no REQ (no iWARP connection request) can pick the id
 * any more.
 */
void xcma_listen_stop(struct xcma_id *xid)
{
	struct ib_cm_id *cm_id;
	struct iw_cm_id *iw;

	mutex_lock(&listen_lock);
	cm_id = xid->listen_cm_id;
	xid->listen_cm_id = NULL;
	iw = xid->iw_listen_id;
	xid->iw_listen_id = NULL;
	mutex_unlock(&listen_lock);
	if (cm_id)
		xcma_ops->destroy_cm_id(cm_id);
	if (iw)
		xcma_iw_destroy(iw);
}

struct find_arg {
	struct ib_device *ibdev;
	u32 port;
	const struct xcma_wire_hdr *hdr;
	int ll_ifindex;
};

/*
 * port lock (and listen_lock) held. A REQ without an IP header (@hdr
 * NULL) is for an AF_IB listener of any port of the device or of its
 * own (in-tree cma_match_net_dev() without a netdev).
 */
static bool match_listener(struct xcma_port_binding *b, void *arg)
{
	struct xcma_id *xid = container_of(b, struct xcma_id, bind);
	struct find_arg *f = arg;
	int bound;

	lockdep_assert_held(&listen_lock);
	if (!xid->listen_cm_id || xid->id.device != f->ibdev)
		return false;
	if (!f->hdr)
		return xcma_id_src(xid)->sa_family == AF_IB &&
		       (!xid->id.port_num || xid->id.port_num == f->port);
	if (!xcma_wire_hdr_match(f->hdr, xcma_id_src(xid), b->afonly))
		return false;
	/*
	 * a link-local request only for a listener of any netdev or of its
	 * own (in-tree cma_match_net_dev())
	 */
	bound = xid->id.route.addr.dev_addr.bound_dev_if;
	return !f->ll_ifindex || !bound || bound == f->ll_ifindex;
}

/**
 * xcma_listen_settle - wait until no listener child is being made
 * @xid: the listener a request found, or NULL if it found none
 *
 * A wildcard listener's child listens on its device (ib_cm or iw_cm)
 * while the library still holds the ctx lock, before it has attached the
 * child and moved it to LISTEN (xcma_listen_child()); in-tree the child
 * is LISTEN before its listen exists. A request that meets a child in
 * that moment, or finds no listener yet, waits for the ctx lock and so
 * for the child; a request for a listener in LISTEN does not wait.
 */
void xcma_listen_settle(struct xcma_id *xid)
{
	struct xcma_life_ctx *ctx = &xcma_life;

	if (xid) {
		if (xcma_id_state(xid) == XCMA_FSM_LISTEN)
			return;
		ctx = xcma_life_ctx_of(xid->life.fsm.ctx);
	}
	mutex_lock(&ctx->lock);
	mutex_unlock(&ctx->lock);
}

/* the listener of @service_id in @net that match_listener() takes, held */
static struct xcma_id *find_listener_once(struct net *net, __be64 service_id,
					  struct find_arg *f)
{
	struct xcma_port_binding *b;
	struct xcma_id *xid = NULL;

	mutex_lock(&listen_lock);
	b = xcma_port_find(net, xcma_wire_service_id_ps(service_id),
			   ntohs(xcma_wire_service_id_port(service_id)),
			   match_listener, f);
	if (b) {
		xid = container_of(b, struct xcma_id, bind);
		/* listening, so its destroy has not dropped its last ref */
		xcma_fsm_id_get(&xid->life.fsm);
	}
	mutex_unlock(&listen_lock);
	return xid;
}

/* the same, once no listener child is being made (xcma_listen_settle()) */
static struct xcma_id *find_listener(struct net *net, __be64 service_id,
				     struct find_arg *f)
{
	struct xcma_id *xid = find_listener_once(net, service_id, f);

	xcma_listen_settle(xid);
	return xid ?: find_listener_once(net, service_id, f);
}

/**
 * xcma_listen_find - the listener a REQ is for
 * @net: the namespace of the netdev the REQ came in on
 * @ibdev: the device the REQ came in on
 * @service_id: its service ID
 * @hdr: its rdma_cm header, decoded once already
 * @ll_ifindex: for a request to an IPv6 link-local address, the ifindex
 *	of that netdev (a listener bound to another one does not take it);
 *	else 0
 *
 * Return: the listener with a reference the caller must put, or NULL.
 */
struct xcma_id *xcma_listen_find(struct net *net, struct ib_device *ibdev,
				 __be64 service_id,
				 const struct xcma_wire_hdr *hdr, int ll_ifindex)
{
	struct find_arg f = { .ibdev = ibdev, .hdr = hdr,
			      .ll_ifindex = ll_ifindex };

	return find_listener(net, service_id, &f);
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_listen_find);

/**
 * xcma_listen_find_ib - the AF_IB listener a REQ without IP header is for
 * @ibdev: the device the REQ came in on
 * @port: its port
 * @service_id: its service ID
 *
 * Such a REQ has no netdev to take a namespace from: init_net's
 * listeners, as in-tree (cma_ib_id_from_event()).
 *
 * Return: the listener with a reference the caller must put, or NULL.
 */
struct xcma_id *xcma_listen_find_ib(struct ib_device *ibdev, u32 port,
				    __be64 service_id)
{
	struct find_arg f = { .ibdev = ibdev, .port = port };

	return find_listener(&init_net, service_id, &f);
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_listen_find_ib);

/**
 * xcma_listen_child - ctx ops->listen_child: a wildcard listener's child
 * @parent: the wildcard listener
 * @life: the device
 * @out: set to the child
 *
 * The child takes the parent's address, options, callback and context;
 * the library binds it, attaches it and makes it LISTEN after this. An
 * AF_IB listener gets none on a device without ib_cm (iWARP), as in-tree
 * (cma_listen_on_dev()): iw_cm cannot listen on a GID.
 * Context: the ctx lock is held.
 *
 * Return: 0 and *@out set (NULL: no child on @life), or the errno
 * (rdma_listen() returns it).
 */
int xcma_listen_child(struct xcma_life_id *parent, struct xcma_life_dev *life,
		      struct xcma_life_id **out)
{
	struct xcma_device *dev = xcma_device_of_life(life);
	struct xcma_id *p = xcma_id_of_life(parent);
	struct xcma_id *child;
	int ret = -ENOMEM;

	lockdep_assert_held(&xcma_life_ctx_of(parent->fsm.ctx)->lock);
	*out = NULL;
	if (xcma_id_src(p)->sa_family == AF_IB &&
	    !xcma_transport_ib_cm(dev->ibdev, rdma_start_port(dev->ibdev)))
		return 0;
	child = xcma_id_alloc(p->id.route.addr.dev_addr.net,
			      p->id.event_handler, p->id.context, p->id.ps,
			      p->id.qp_type, p, NULL);
	if (!child)
		goto err;
	/* rdma_listen() of the parent runs: its owner stays */
	rdma_restrack_parent_name(&child->res, &p->res);
	ret = xcma_addr_copy(&child->id.route.addr.src_addr, xcma_id_src(p));
	if (ret)
		goto err_free;
	child->bind.afonly = p->bind.afonly;
	child->backlog = p->backlog;
	/* the parent's type of service, for an iw_cm listen (as in-tree) */
	mutex_lock(&p->qp_mutex);
	child->tos = p->tos;
	child->tos_set = p->tos_set;
	mutex_unlock(&p->qp_mutex);
	child->id.device = dev->ibdev;
	child->id.route.addr.dev_addr.transport =
		rdma_node_get_transport(dev->ibdev->node_type);
	child->id.port_num = rdma_start_port(dev->ibdev);
	/* found by a REQ through the parent's port; unbound when freed */
	xcma_port_share(&child->bind, &p->bind);
	ret = xcma_listen_start(child);
	if (ret)
		goto err_free;
	/*
	 * listed as the in-tree per-device listeners are; the library
	 * attaches it in this same hold of the ctx lock
	 */
	rdma_restrack_add(&child->res);
	*out = &child->life;
	return 0;

err_free:
	xcma_id_free_unused(child);
err:
	return ret;
}

/**
 * rdma_listen - wait for connection requests
 * @id: the id, ADDR_BOUND (or IDLE: it is bound to 0.0.0.0 first)
 * @backlog: for iw_cm (ib_cm has no backlog)
 *
 * Return: 0; -EINVAL in another state; -EADDRINUSE/-EADDRNOTAVAIL if a
 * reuseaddr id shares its address; -ENOMEM; the errno of
 * ib_cm_insert_listen() or iw_cm (for a wildcard listener: of one of its
 * children).
 */
int rdma_listen(struct rdma_cm_id *id, int backlog)
{
	struct xcma_id *xid = xcma_id_of(id);
	int ret;

	/* an unbound id (the table would let a bind through) binds first */
	if (!xcma_fsm_rule(xcma_id_state(xid), XCMA_EV_BIND, NULL)) {
		struct sockaddr_in any = { .sin_family = AF_INET };

		ret = rdma_bind_addr(id, (struct sockaddr *)&any);
		if (ret)
			return ret;
	}
	/*
	 * The port check needs a bound id: ask the table before it whether
	 * the listen (applied by xcma_fsm_id_listen() below) may happen.
	 */
	ret = xcma_fsm_rule(xcma_id_state(xid), XCMA_EV_LISTEN, NULL);
	if (ret)
		return ret;
	ret = xcma_port_listen(&xid->bind);
	if (ret)
		return ret;
	/* the id is not listening yet: nothing reads it concurrently */
	xid->backlog = backlog;
	/*
	 * A wildcard listener gets its children in there; if one cannot be
	 * made, that child's errno (e.g. of ib_cm_insert_listen()), as
	 * in-tree.
	 */
	ret = xcma_fsm_id_listen(&xid->life.fsm);
	if (ret)
		return ret;
	if (!xid->id.device)
		return 0;
	ret = xcma_listen_start(xid);
	if (ret && xcma_id_transition(xid, XCMA_EV_LISTEN_UNDO))
		pr_debug("xcma: listen undo refused\n");
	return ret;
}
EXPORT_SYMBOL(rdma_listen);

/**
 * conn_visible - whether a connect request's new id may have its device
 * @conn: the id the request made, entered; its device and namespace set
 *
 * In ib_core's exclusive netns mode a device is one namespace's: a request
 * on a device that is not the listener's namespace's makes no id, as
 * in-tree, where cma_validate_port() fails the new id's device lookup
 * (cma_ib_acquire_dev(), cma_iw_acquire_dev()) and the request is refused
 * with its -ENODEV before the listener hears of it.
 *
 * Return: 0, or -ENODEV.
 */
static int conn_visible(struct xcma_id *conn)
{
	if (!xcma_ops->dev_access_netns(conn->id.device,
					conn->id.route.addr.dev_addr.net))
		return -ENODEV;
	return 0;
}

/**
 * xcma_listen_conn_alloc - a new id for a request that reached a listener
 * @listener: the listener (a wildcard's per-device child, or the id itself)
 * @qp_type: the request's QP type
 * @local: our address, from the request's header
 * @remote: the peer's
 *
 * The user's callback and context are those of the id the user created
 * (a wildcard's child has the parent's); the device is the listener's.
 *
 * Return: the id, unused (xcma_id_free_unused() frees it), or NULL.
 */
struct xcma_id *xcma_listen_conn_alloc(struct xcma_id *listener,
				       enum ib_qp_type qp_type,
				       const struct sockaddr_storage *local,
				       const struct sockaddr_storage *remote)
{
	struct xcma_fsm_id *pfsm = listener->life.fsm.parent;
	struct xcma_id *user = listener, *conn;

	if (pfsm)
		user = xcma_id_of_life(xcma_life_id_of(pfsm));
	conn = xcma_id_alloc(listener->id.route.addr.dev_addr.net,
			     user->id.event_handler, user->id.context,
			     listener->id.ps, qp_type, user, NULL);
	if (!conn)
		return NULL;
	conn->id.route.addr.src_addr = *local;
	conn->id.route.addr.dst_addr = *remote;
	conn->id.device = listener->id.device;
	conn->id.route.addr.dev_addr.transport =
		rdma_node_get_transport(conn->id.device->node_type);
	return conn;
}

/**
 * xcma_listen_deliver - hand a connect request's new id to its listener's
 *	user
 * @listener: the listener the request is for, held by the caller
 * @conn: the id the request made, not yet the library's; its addresses,
 *	hardware address, device and port set
 * @ev: the CONNECT_REQUEST event
 * @ops: how the transport's CM hands its new id over
 * @cm: that CM id (an ib_cm id, or an iWARP link with its iw_cm id)
 *
 * The one path of RC requests over ib_cm, SIDR requests and iWARP
 * requests: @conn takes the GID of its address on its port
 * (xcma_device_conn_gid(); none: the request is refused and @conn freed),
 * enters the library as the listener's request (it is gone if the
 * listener is no longer listening), is refused a device of another
 * namespace (conn_visible()), takes that GID, is listed, takes @cm over
 * and is handed to the user. A non-zero return from the user destroys
 * @conn; @ops->drop then gives @cm back to its CM, which destroys it.
 *
 * Return: 0 if the user took the request; else the user's value as it
 * is (ib_cm sends no REJ for -ENOMEM, as in-tree: the peer retries), or
 * the library's refusal.
 */
int xcma_listen_deliver(struct xcma_id *listener, struct xcma_id *conn,
			struct rdma_cm_event *ev,
			const struct xcma_req_ops *ops, void *cm)
{
	const struct ib_gid_attr *attr;
	int ret;

	attr = xcma_device_conn_gid(xcma_device_of_id(listener), conn,
				    conn->id.port_num);
	if (IS_ERR(attr)) {
		ops->drop(conn, cm, false);
		xcma_id_free_unused(conn);
		return PTR_ERR(attr);
	}
	ret = xcma_fsm_id_enter_req(&listener->life.fsm, &conn->life.fsm);
	if (ret) {
		/* conn is gone */
		ops->drop(conn, cm, false);
		goto put;
	}
	ret = conn_visible(conn);
	if (ret) {
		ops->drop(conn, cm, false);
		goto leave;
	}
	/* attached: the GID is the id's until it releases the device */
	conn->id.route.addr.dev_addr.sgid_attr = attr;
	attr = NULL;
	xcma_id_track_conn(conn, listener);
	/* no event of @cm before the CM has this callback's return */
	ops->adopt(conn, cm);
	ret = xcma_id_call_user(conn, ev);
	if (ret)
		ops->drop(conn, cm, true);
	else if (ops->pending)
		ops->pending(conn, cm);
leave:
	xcma_fsm_id_leave_req(&listener->life.fsm, &conn->life.fsm, ret);
put:
	if (attr)
		xcma_ops->put_gid_attr(attr);
	return ret;
}
