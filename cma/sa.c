// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Route resolution over InfiniBand: a path record query to the subnet
 * administrator (ib_sa), with xcma's own registered SA client.
 *
 * The query in flight stands where the RoCE route's work item stands
 * (resolve.c): it holds the id's event reference, the id is in ROUTE_QUERY
 * until its answer is delivered, and the one cancel of the id (destroy, or
 * the device's removal) cancels it. The answer never reaches the user from
 * ib_sa's callback: the callback keeps the records and queues the query's
 * work item, which enters the id and installs the route only if the table
 * lets ROUTE_RESOLVED through. So an answer that comes after the cancel
 * (ib_sa calls back once per query, cancelled or not) is dropped with the
 * work item that would have carried it.
 */
#include <linux/completion.h>
#include <linux/in6.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <rdma/ib.h>
#include <rdma/ib_sa.h>
#include <rdma/ib_user_sa.h>

#include "id.h"
#include "ops.h"
#include "sa.h"
#include "wire.h"
#include "device.h"

static struct ib_sa_client sa_client;

enum { REC_PRIMARY, REC_INBOUND, REC_OUTBOUND, REC_KINDS };

/**
 * struct xcma_sa_route - an id's path record query (one at a time)
 * @xid: the id
 * @lock: held while a query is issued and while the cancel reads
 *	@pending, @query and @query_id, so that a cancel that comes while
 *	ib_sa is still being asked (a device removal racing
 *	rdma_resolve_route()) cancels that query, not the one before
 * @query: ib_sa's query, for the cancel (@lock)
 * @query_id: its id (@lock)
 * @answered: completed (for all waiters) once ib_sa's callback has kept
 *	the answer and queued @work; re-armed by each query
 * @work: delivers the answer (ROUTE_RESOLVED or ROUTE_ERROR) with the
 *	query's event reference
 * @pending: a query was issued and its answer not yet taken by the work
 *	item (written before the query, cleared by the work item)
 * @status: the answer's status, 0 or -errno (the callback's)
 * @have: which of @rec the answer holds (the callback's)
 * @rec: the primary path and the optional inbound and outbound ones
 *
 * Allocated by the id's first query, freed with the id: the callback, the
 * work item and the cancel may each still look at it after another one is
 * done with the query.
 */
struct xcma_sa_route {
	struct xcma_id *xid;
	struct mutex lock; /* see above */
	struct ib_sa_query *query;
	int query_id;
	struct completion answered;
	struct work_struct work;
	bool pending;
	int status;
	bool have[REC_KINDS];
	struct sa_path_rec rec[REC_KINDS];
};

/*
 * ib_sa's answer. As in-tree, a record without flags or with IB_PATH_GMP
 * is the primary path (the last one wins), IB_PATH_INBOUND and
 * IB_PATH_OUTBOUND are the primary path's one-way records, anything else
 * fails the route with -EINVAL. An answer without a primary path fails it
 * too (in-tree would report a route it never wrote).
 */
static void path_answer(int status, struct sa_path_rec *recs,
			XCMA_SA_COUNT num, void *context)
{
	struct xcma_sa_route *q = context;
	XCMA_SA_COUNT i;
	int kind;

	memset(q->have, 0, sizeof(q->have));
	for (i = 0; !status && i < num; i++) {
		if (!recs[i].flags || (recs[i].flags & IB_PATH_GMP))
			kind = REC_PRIMARY;
		else if (recs[i].flags & IB_PATH_INBOUND)
			kind = REC_INBOUND;
		else if (recs[i].flags & IB_PATH_OUTBOUND)
			kind = REC_OUTBOUND;
		else
			status = -EINVAL;
		if (!status) {
			q->rec[kind] = recs[i];
			q->have[kind] = true;
		}
	}
	if (!status && !q->have[REC_PRIMARY])
		status = -EINVAL;
	q->status = status;
	/* the work item carries the answer, or is cancelled with the id */
	xcma_ops->queue_route(&q->work);
	complete_all(&q->answered);
}

static void free_recs(struct sa_path_rec **recs)
{
	int i;

	for (i = 0; i < REC_KINDS; i++)
		kfree(recs[i]);
}

/*
 * A query's answer (@q->work); the query's event reference is put here.
 * The records are copied before the id is entered, so that nothing can
 * fail once the table has let ROUTE_RESOLVED through; they replace the
 * route's only then.
 */
static void answer_work(struct work_struct *work)
{
	struct xcma_sa_route *q = container_of(work, struct xcma_sa_route, work);
	struct xcma_id *xid = q->xid;
	struct rdma_route *route = &xid->id.route;
	struct sa_path_rec *recs[REC_KINDS] = {};
	struct rdma_cm_event ev = {};
	unsigned int fev;
	int i, status;

	/* the callback queued us just before completing: let it finish */
	wait_for_completion(&q->answered);
	WRITE_ONCE(q->pending, false);
	status = q->status;
	for (i = 0; !status && i < REC_KINDS; i++) {
		if (!q->have[i])
			continue;
		recs[i] = kmemdup(&q->rec[i], sizeof(q->rec[i]), GFP_KERNEL);
		if (!recs[i])
			status = -ENOMEM;
	}
	if (status)
		free_recs(recs);
	fev = status ? XCMA_EV_ROUTE_ERROR : XCMA_EV_ROUTE_RESOLVED;
	if (xcma_fsm_id_enter(&xid->life.fsm, fev, XCMA_FSM_PUT_REF)) {
		free_recs(recs);
		return;
	}
	if (!status) {
		swap(route->path_rec, recs[REC_PRIMARY]);
		swap(route->path_rec_inbound, recs[REC_INBOUND]);
		swap(route->path_rec_outbound, recs[REC_OUTBOUND]);
		route->num_pri_alt_paths = 1;
		/* now the old ones */
		free_recs(recs);
	}
	ev.event = xcma_fsm_event_cm_event(fev);
	ev.status = status;
	xcma_fsm_id_leave(&xid->life.fsm, xcma_id_call_user(xid, &ev),
			  XCMA_FSM_PUT_REF);
}

/* The request the in-tree CM sends (cma_query_ib_route()), field by field. */
static void path_request(struct xcma_id *xid, struct sa_path_rec *rec,
			 ib_sa_comp_mask *mask)
{
	struct rdma_dev_addr *da = &xid->id.route.addr.dev_addr;
	struct sockaddr_in6 *s6;
	struct sockaddr_ib *sib;
	u8 tos;

	memset(rec, 0, sizeof(*rec));
	rec->rec_type = rdma_cap_opa_ah(xid->id.device, xid->id.port_num) ?
				SA_PATH_REC_TYPE_OPA :
				SA_PATH_REC_TYPE_IB;
	rdma_addr_get_sgid(da, &rec->sgid);
	rdma_addr_get_dgid(da, &rec->dgid);
	rec->pkey = cpu_to_be16(ib_addr_get_pkey(da));
	rec->numb_path = 1;
	rec->reversible = 1;
	rec->service_id = xcma_wire_addr_service_id(xid->id.ps,
						    xcma_id_dst(xid));
	*mask = IB_SA_PATH_REC_DGID | IB_SA_PATH_REC_SGID |
		IB_SA_PATH_REC_PKEY | IB_SA_PATH_REC_NUMB_PATH |
		IB_SA_PATH_REC_REVERSIBLE | IB_SA_PATH_REC_SERVICE_ID;
	switch (xcma_id_src(xid)->sa_family) {
	case AF_INET:
		/* the user's TOS as set, no port default (unlike RoCE) */
		mutex_lock(&xid->qp_mutex);
		tos = xid->tos;
		mutex_unlock(&xid->qp_mutex);
		rec->qos_class = cpu_to_be16(tos);
		*mask |= IB_SA_PATH_REC_QOS_CLASS;
		break;
	case AF_INET6:
		s6 = (struct sockaddr_in6 *)xcma_id_src(xid);
		rec->traffic_class = be32_to_cpu(s6->sin6_flowinfo) >> 20;
		*mask |= IB_SA_PATH_REC_TRAFFIC_CLASS;
		break;
	case AF_IB:
		sib = (struct sockaddr_ib *)xcma_id_src(xid);
		rec->traffic_class = be32_to_cpu(sib->sib_flowinfo) >> 20;
		*mask |= IB_SA_PATH_REC_TRAFFIC_CLASS;
		break;
	}
}

/**
 * xcma_sa_resolve_route - start the path record query of an id
 * @xid: the id, ROUTE_QUERY on an IB port
 * @timeout_ms: the user's timeout, ib_sa's for the whole query (it
 *	retries within it, as for the in-tree CM)
 *
 * On success the query holds one event reference of the id, taken here;
 * ROUTE_RESOLVED or ROUTE_ERROR follows from the work item.
 *
 * Return: 0; -ENOMEM; the errno of ib_sa_path_rec_get().
 */
int xcma_sa_resolve_route(struct xcma_id *xid, unsigned long timeout_ms)
{
	struct xcma_sa_route *q = xid->sa;
	struct sa_path_rec rec;
	ib_sa_comp_mask mask;
	int ret;

	if (!q) {
		q = kzalloc(sizeof(*q), GFP_KERNEL);
		if (!q)
			return -ENOMEM;
		q->xid = xid;
		mutex_init(&q->lock);
		init_completion(&q->answered);
		INIT_WORK(&q->work, answer_work);
		xid->sa = q;
	}
	path_request(xid, &rec, &mask);
	mutex_lock(&q->lock);
	/* the previous answer's work item waited for its callback to finish */
	reinit_completion(&q->answered);
	WRITE_ONCE(q->pending, true);
	xcma_fsm_id_get(&xid->life.fsm);
	ret = xcma_ops->sa_path_rec_get(&sa_client, xid->id.device,
					xid->id.port_num, &rec, mask,
					timeout_ms, GFP_KERNEL, path_answer, q,
					&q->query);
	if (ret < 0) {
		WRITE_ONCE(q->pending, false);
		complete_all(&q->answered);
		xcma_fsm_id_put(&xid->life.fsm);
	} else {
		q->query_id = ret;
		ret = 0;
	}
	mutex_unlock(&q->lock);
	return ret;
}

/**
 * xcma_sa_cancel_route - cancel the id's query, once (the id's cancel)
 * @xid: the id, leaving ROUTE_QUERY for good (destroy or removal)
 *
 * Returns once ib_sa's callback has run (it always runs, with -EINTR or
 * with a late answer, and queues the work item) and the work item is
 * taken back, unless it is already delivering.
 */
void xcma_sa_cancel_route(struct xcma_id *xid)
{
	struct xcma_sa_route *q = xid->sa;
	bool pending;

	if (!q)
		return;
	/* ib_sa calls back from its own context, never under this lock */
	mutex_lock(&q->lock);
	pending = READ_ONCE(q->pending);
	if (pending)
		xcma_ops->sa_cancel_query(q->query_id, q->query);
	mutex_unlock(&q->lock);
	if (pending)
		wait_for_completion(&q->answered);
	/*
	 * An answer queued and not yet taken gives its reference back; one
	 * being delivered keeps it, and the destroy waits for it (see
	 * resolve.c's cancel).
	 */
	if (cancel_work(&q->work))
		xcma_fsm_id_put(&xid->life.fsm);
}

/**
 * xcma_sa_free - free what the id's queries left (the id is freed)
 * @xid: the id
 */
void xcma_sa_free(struct xcma_id *xid)
{
	if (xid->sa)
		mutex_destroy(&xid->sa->lock);
	kfree(xid->sa);
	xid->sa = NULL;
}

/**
 * xcma_sa_init - register xcma's SA client (module init)
 */
void xcma_sa_init(void)
{
	ib_sa_register_client(&sa_client);
}

/**
 * xcma_sa_exit - unregister it; waits for the queries it still has
 */
void xcma_sa_exit(void)
{
	ib_sa_unregister_client(&sa_client);
}

/**
 * xcma_sa_client - xcma's SA client, for the multicast joins (mcast.c)
 *
 * Return: the client registered by xcma_sa_init().
 */
struct ib_sa_client *xcma_sa_client(void)
{
	return &sa_client;
}
