// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * What xcma does when the lifecycle library (lifecycle.h) asks the owner
 * of an id or of the module's context: deliver an event of the library's
 * own, cancel what is pending, let go of a device, free an id, give a new
 * device a wildcard listener's child, say who holds up a removal.
 *
 * This is the one file that knows every concern an id has (its neighbour
 * watch, its address and route queries, its listens, its connection on
 * whichever transport, its multicast groups): the core (id.c, device.c,
 * lifecycle.c) names none of them; the platform calls the xcma_owner_*()
 * functions that lifecycle.h declares, directly.
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
#include "resolve.h"
#include "sa.h"

/* The library delivers an event of its own (no payload). */
int xcma_owner_event(struct xcma_life_id *life, unsigned int cm_event,
		     int status)
{
	struct rdma_cm_event ev = { .event = cm_event, .status = status };

	return xcma_id_call_user(xcma_id_of_life(life), &ev);
}

void xcma_owner_cancel(struct xcma_life_id *life, unsigned int state)
{
	struct xcma_id *xid = xcma_id_of_life(life);

	/*
	 * Whatever the state: once per id, on destroy or after removal. A
	 * listener's listen on its device stays until the device is let go
	 * (xcma_owner_release_dev()), as in-tree, where the cancel of a listener
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
void xcma_owner_release_dev(struct xcma_life_id *life,
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

void xcma_owner_free(struct xcma_life_id *life)
{
	struct xcma_id *xid = xcma_id_of_life(life);

	/* the library's cancel took it out of the index */
	WARN_ON_ONCE(xcma_neigh_watched(xid));
	xcma_neigh_id_free(xid);
	xcma_sa_free(xid);
	xcma_id_free(xid);
}

void xcma_owner_group_drop(struct xcma_life_id *life,
			   struct xcma_fsm_link *group)
{
	xcma_mcast_drop(life, group);
}

/* and the iw_cm ids they let go of in a callback are destroyed */
void xcma_owner_dev_removed(struct xcma_life_dev *dev)
{
	xcma_conn_flush();
}

int xcma_owner_listen_child(struct xcma_life_id *parent,
			    struct xcma_life_dev *dev,
			    struct xcma_life_id **child)
{
	return xcma_listen_child(parent, dev, child);
}

void xcma_owner_report_holder(struct xcma_life_dev *dev,
			      struct xcma_life_id *id)
{
	xcma_device_report_holder(dev, id);
}
