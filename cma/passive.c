// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The passive side of a connection, the one path of every transport's
 * connection request (RC and SIDR over ib_cm, iWARP over iw_cm): which
 * listener it is for, found through the port space by (namespace, port
 * space, port), then among that port's ids by device and the addresses in
 * the rdma_cm header; the new id it makes; and its CONNECT_REQUEST to the
 * listener's user. The transports call it; it calls none of them.
 */
#include <linux/export.h>
#include <linux/mutex.h>

#include "export.h"
#include "addr.h"
#include "id.h"
#include "ops.h"
#include "passive.h"
#include "wire.h"
#include "device.h"

/*
 * Protects each id's listen_cm_id and iw_listen_id (listen.c sets and
 * takes them). Lock order: the ctx lock (xcma_listen_child()), then this
 * lock, then the port lock (xcma_passive_find()); nothing else is taken
 * under it but an id reference.
 */
DEFINE_MUTEX(xcma_listen_lock);

struct find_arg {
	struct ib_device *ibdev;
	u32 port;
	const struct xcma_wire_hdr *hdr;
	int ll_ifindex;
};

/*
 * port lock (and xcma_listen_lock) held. A REQ without an IP header (@hdr
 * NULL) is for an AF_IB listener of any port of the device or of its
 * own (in-tree cma_match_net_dev() without a netdev).
 */
static bool match_listener(struct xcma_port_binding *b, void *arg)
{
	struct xcma_id *xid = container_of(b, struct xcma_id, bind);
	struct find_arg *f = arg;
	int bound;

	lockdep_assert_held(&xcma_listen_lock);
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
 * xcma_passive_settle - wait until no listener child is being made
 * @xid: the listener a request found, or NULL if it found none
 *
 * A wildcard listener's child listens on its device (ib_cm or iw_cm)
 * while the library still holds the ctx lock, before it has attached the
 * child and moved it to LISTEN (xcma_listen_child()); in-tree the child
 * is LISTEN before its listen exists. A request that meets a child in
 * that moment, or finds no listener yet, waits for the ctx lock and so
 * for the child; a request for a listener in LISTEN does not wait.
 */
void xcma_passive_settle(struct xcma_id *xid)
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

	mutex_lock(&xcma_listen_lock);
	b = xcma_port_find(net, xcma_wire_service_id_ps(service_id),
			   ntohs(xcma_wire_service_id_port(service_id)),
			   match_listener, f);
	if (b) {
		xid = container_of(b, struct xcma_id, bind);
		/* listening, so its destroy has not dropped its last ref */
		xcma_fsm_id_get(&xid->life.fsm);
	}
	mutex_unlock(&xcma_listen_lock);
	return xid;
}

/* the same, once no listener child is being made (xcma_passive_settle()) */
static struct xcma_id *find_listener(struct net *net, __be64 service_id,
				     struct find_arg *f)
{
	struct xcma_id *xid = find_listener_once(net, service_id, f);

	xcma_passive_settle(xid);
	return xid ?: find_listener_once(net, service_id, f);
}

/**
 * xcma_passive_find - the listener a REQ is for
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
struct xcma_id *xcma_passive_find(struct net *net, struct ib_device *ibdev,
				  __be64 service_id,
				  const struct xcma_wire_hdr *hdr, int ll_ifindex)
{
	struct find_arg f = { .ibdev = ibdev, .hdr = hdr,
			      .ll_ifindex = ll_ifindex };

	return find_listener(net, service_id, &f);
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_passive_find);

/**
 * xcma_passive_find_ib - the AF_IB listener a REQ without IP header is for
 * @ibdev: the device the REQ came in on
 * @port: its port
 * @service_id: its service ID
 *
 * Such a REQ has no netdev to take a namespace from: init_net's
 * listeners, as in-tree (cma_ib_id_from_event()).
 *
 * Return: the listener with a reference the caller must put, or NULL.
 */
struct xcma_id *xcma_passive_find_ib(struct ib_device *ibdev, u32 port,
				     __be64 service_id)
{
	struct find_arg f = { .ibdev = ibdev, .port = port };

	return find_listener(&init_net, service_id, &f);
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_passive_find_ib);

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
 * xcma_passive_conn_alloc - a new id for a request that reached a listener
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
struct xcma_id *xcma_passive_conn_alloc(struct xcma_id *listener,
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
 * xcma_passive_deliver - hand a connect request's new id to its listener's
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
int xcma_passive_deliver(struct xcma_id *listener, struct xcma_id *conn,
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
