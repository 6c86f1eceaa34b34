// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Listeners. A listener bound to an address listens on that address's
 * device; a wildcard listener gets one internal child per device from the
 * lifecycle library (xcma_listen_child()), each listening on its device
 * and sharing its parent's port (xcma_port_share()). Every id that listens
 * on a device holds an ib_cm listen on the service ID of its port (ib_cm
 * shares one between the ids of a port), or an iw_cm listen on its
 * address. What a connection request then finds is passive.c's.
 */
#include <linux/export.h>
#include <linux/mutex.h>

#include "export.h"
#include "addr.h"
#include "id.h"
#include "listen.h"
#include "passive.h"
#include "ops.h"
#include "transport.h"
#include "device.h"

/**
 * xcma_listen_start - listen on the id's device
 * @xid: the id, with a device and a bound source address
 *
 * Its transport listens: on ib_cm, the service ID of its port (ib_cm
 * shares one between the ids of a port); on iw_cm, its address.
 *
 * Return: 0; -ENOSYS on a port with neither CM (as in-tree); the errno
 * of ib_cm_insert_listen() or of iw_cm.
 */
int xcma_listen_start(struct xcma_id *xid)
{
	const struct xcma_transport_ops *t = xcma_id_transport(xid);

	return t ? t->listen(xid) : -XCMA_ENOTRANSPORT;
}

/**
 * xcma_listen_stop - stop listening; nothing happens if the id does not
 * @xid: the id
 *
 * Once this returns no request (REQ, SIDR REQ or iWARP connection
 * request) can pick the id any more.
 */
void xcma_listen_stop(struct xcma_id *xid)
{
	const struct xcma_transport_ops *t;

	if (!xid->id.device)
		return;
	t = xcma_id_transport(xid);
	if (t)
		t->unlisten(xid);
}

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
