// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * What xcma does when the lifecycle library (lifecycle.h) asks the owner
 * of an id or of the module's context: deliver an event of the library's
 * own, cancel what is pending, let go of a device, free an id, give a new
 * device a wildcard listener's child, say who holds up a removal.
 *
 * This is the one file that knows every concern an id has (its neighbour
 * watch, its address and route queries, its listens, its connection on
 * whichever transport, its multicast groups): the core (id.c, device.c)
 * names none of them and reaches them only through the tables below,
 * which main.c installs before the first device is added.
 */
#include <linux/bug.h>
#include <rdma/rdma_cm.h>

#include "conn.h"
#include "device.h"
#include "id.h"
#include "lifecycle.h"
#include "listen.h"
#include "mcast.h"
#include "neigh.h"
#include "ops.h"
#include "owner.h"
#include "resolve.h"
#include "sa.h"

/* The library delivers an event of its own (no payload). */
static int id_event(struct xcma_life_id *life, unsigned int cm_event,
		    int status)
{
	struct rdma_cm_event ev = { .event = cm_event, .status = status };

	return xcma_id_call_user(xcma_id_of_life(life), &ev);
}

static void id_cancel(struct xcma_life_id *life, unsigned int state)
{
	struct xcma_id *xid = xcma_id_of_life(life);

	/*
	 * Whatever the state: once per id, on destroy or after removal. A
	 * listener's listen on its device stays until the device is let go
	 * (id_release_dev()), as in-tree, where the cancel of a listener
	 * stops only a wildcard's per-device listens (the library's
	 * cancel_listens()): after DEVICE_REMOVAL, rdma_disconnect() on it
	 * still finds a CM id, and a REQ still finds the listener and is
	 * refused by it, not by ib_cm for want of one.
	 */
	xcma_neigh_unwatch(xid);
	switch (state) {
	case XCMA_FSM_ADDR_QUERY:
		xcma_resolve_cancel_addr(xid);
		break;
	case XCMA_FSM_ROUTE_QUERY:
		xcma_resolve_cancel_route(xid);
		break;
	default:
		break;
	}
}

/* Everything that belongs to the device goes before the device may. */
static void id_release_dev(struct xcma_life_id *life,
			   struct xcma_life_dev *dev)
{
	struct xcma_id *xid = xcma_id_of_life(life);
	struct rdma_dev_addr *da = &xid->id.route.addr.dev_addr;

	/* restrack finds the device through the id: untrack it first */
	rdma_restrack_del(&xid->res);
	xcma_listen_stop(xid);
	xcma_conn_release(xid);
	if (da->sgid_attr) {
		xcma_ops->put_gid_attr(da->sgid_attr);
		da->sgid_attr = NULL;
	}
}

static void id_free(struct xcma_life_id *life)
{
	struct xcma_id *xid = xcma_id_of_life(life);

	/* the library's cancel took it out of the index */
	WARN_ON_ONCE(xcma_neigh_watched(xid));
	xcma_neigh_id_free(xid);
	xcma_sa_free(xid);
	xcma_id_free(xid);
}

static const struct xcma_life_id_ops id_ops = {
	.event = id_event,
	.cancel = id_cancel,
	.group_drop = xcma_mcast_drop,
	.release_dev = id_release_dev,
	.free = id_free,
};

/* and the iw_cm ids they let go of in a callback are destroyed */
static void dev_removed(struct xcma_life_dev *dev)
{
	xcma_conn_flush();
}

static const struct xcma_life_ctx_ops ctx_ops = {
	.listen_child = xcma_listen_child,
	.report_holder = xcma_device_report_holder,
	.dev_removed = dev_removed,
};

/**
 * xcma_owner_init - install the tables in the module's context
 *
 * Before xcma_device_init(): listen_child may run from the first device's
 * ib_client.add on.
 */
void xcma_owner_init(void)
{
	xcma_life.ops = &ctx_ops;
	xcma_life.id_ops = &id_ops;
}
