// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * xcma_pingpong: an example kernel consumer of the rdma_cm API. It is
 * built against the target kernel's own <rdma/rdma_cm.h> and uses nothing
 * of xcma, so it runs the same over xcma in drop-in mode as over the
 * in-tree CM.
 *
 * On load a server listens on the wildcard address and a client connects
 * to addr:port over RC (both in this module, over one RDMA device), sends
 * "ping #n", gets "pong #n" back, and the connection stays up until the
 * module is unloaded. Every CM event of both ends is logged as
 * "pingpong: <side>: <EVENT> status <n>".
 *
 * On DEVICE_REMOVAL each end returns 0 from its callback and releases its
 * QP and id later, from a work item: the CM holds the removal until every
 * id on the device is destroyed, so a consumer need not destroy the id
 * from the callback (by returning non-zero) but must destroy it soon.
 * With reconnect=<seconds> the client then tries to connect again every
 * 500 ms until it is connected or the time is up; the wildcard listener
 * is bound to no device, gets no DEVICE_REMOVAL, and serves the new
 * connection once the device is back. With redial=<seconds> the same
 * happens when the peer disconnects (on two hosts: the other host's
 * device was removed), and the server frees the disconnected connection
 * so that it can serve the next.
 *
 *   insmod xcma_pingpong.ko addr=10.99.0.1 port=7471 reconnect=30
 */
#define pr_fmt(fmt) "pingpong: " fmt

#include <linux/inet.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <net/net_namespace.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#define PP_MSG_LEN 64
#define PP_RETRY_MS 500
#define PP_RESOLVE_MS 2000

static char *addr = "10.99.0.1";
module_param(addr, charp, 0444);
MODULE_PARM_DESC(addr, "address the client connects to, IPv4 or IPv6 (the server listens on the wildcard address)");

static ushort port = 7471;
module_param(port, ushort, 0444);
MODULE_PARM_DESC(port, "port the server listens on");

static uint reconnect = 30;
module_param(reconnect, uint, 0644);
MODULE_PARM_DESC(reconnect, "after DEVICE_REMOVAL, seconds during which the client tries to connect again every 500 ms (0: not at all)");

static uint redial;
module_param(redial, uint, 0644);
MODULE_PARM_DESC(redial, "after DISCONNECTED (the peer went away), seconds during which the client tries to connect again, and the server frees the connection for a new one (default 0: the connection is kept until the device goes)");

static uint hold_secs;
module_param(hold_secs, uint, 0644);
MODULE_PARM_DESC(hold_secs, "after DEVICE_REMOVAL, keep the ids this long before releasing them, like a slow owner (default 0)");

struct pp_side;

/**
 * struct pp_conn - one end of one connection and its verbs resources
 * @side: the end it belongs to
 * @id: its rdma_cm id, the context of which is this struct
 * @pd: protection domain, or NULL before the QP is set up
 * @cq: completion queue of both work queues (IB_POLL_WORKQUEUE, so that
 *	completion handlers can take @side->lock)
 * @has_qp: rdma_create_qp() succeeded
 * @recv_buf: receives the peer's message (its own allocation: DMA)
 * @send_buf: holds ours (likewise)
 * @recv_dma: @recv_buf mapped for the device (0: not mapped)
 * @send_dma: @send_buf mapped for the device (0: not mapped)
 * @recv_cqe: completion of the receive
 * @send_cqe: completion of the send
 * @dead: being released; from then on neither CM callbacks nor
 *	completions touch the resources (@side->lock)
 */
struct pp_conn {
	struct pp_side *side;
	struct rdma_cm_id *id;
	struct ib_pd *pd;
	struct ib_cq *cq;
	bool has_qp;
	char *recv_buf;
	char *send_buf;
	u64 recv_dma;
	u64 send_dma;
	struct ib_cqe recv_cqe;
	struct ib_cqe send_cqe;
	bool dead;
};

/**
 * struct pp_side - the server or the client, one connection at a time
 * @name: for the log
 * @lock: protects @conn and the resources of a connection while they are
 *	set up, used or released; never held across rdma_destroy_id(),
 *	which waits for the id's running callback, which may want it
 * @conn: the current connection, or NULL
 * @down: releases @conn; queued by the callbacks that end it
 */
struct pp_side {
	const char *name;
	struct mutex lock; /* see above */
	struct pp_conn *conn;
	struct work_struct down;
};

/**
 * struct pp_state - the module's state
 * @dst: where the client connects to
 * @listener_id: the server's listener, to tell its events apart
 * @listener: the same while it is ours to destroy (xchg() decides
 *	between the unload and a destroy by return, whichever comes first)
 * @server: the accepting end
 * @client: the connecting end
 * @wq: ordered: releases and connection attempts never overlap
 * @connect: the client's next connection attempt
 * @lock: protects @stopping and @deadline
 * @stopping: the module is being unloaded, queue no more work
 * @deadline: the client gives up trying to connect after this
 * @round: connections made so far, numbers the messages
 */
struct pp_state {
	struct sockaddr_storage dst;
	struct rdma_cm_id *listener_id;
	struct rdma_cm_id *listener;
	struct pp_side server;
	struct pp_side client;
	struct workqueue_struct *wq;
	struct delayed_work connect;
	spinlock_t lock; /* see above */
	bool stopping;
	unsigned long deadline;
	atomic_t round;
};

static int pp_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev);

static struct pp_state pp = {
	.server = { .name = "server" },
	.client = { .name = "client" },
};

static const char * const pp_event_names[] = {
	[RDMA_CM_EVENT_ADDR_RESOLVED] = "ADDR_RESOLVED",
	[RDMA_CM_EVENT_ADDR_ERROR] = "ADDR_ERROR",
	[RDMA_CM_EVENT_ROUTE_RESOLVED] = "ROUTE_RESOLVED",
	[RDMA_CM_EVENT_ROUTE_ERROR] = "ROUTE_ERROR",
	[RDMA_CM_EVENT_CONNECT_REQUEST] = "CONNECT_REQUEST",
	[RDMA_CM_EVENT_CONNECT_RESPONSE] = "CONNECT_RESPONSE",
	[RDMA_CM_EVENT_CONNECT_ERROR] = "CONNECT_ERROR",
	[RDMA_CM_EVENT_UNREACHABLE] = "UNREACHABLE",
	[RDMA_CM_EVENT_REJECTED] = "REJECTED",
	[RDMA_CM_EVENT_ESTABLISHED] = "ESTABLISHED",
	[RDMA_CM_EVENT_DISCONNECTED] = "DISCONNECTED",
	[RDMA_CM_EVENT_DEVICE_REMOVAL] = "DEVICE_REMOVAL",
	[RDMA_CM_EVENT_MULTICAST_JOIN] = "MULTICAST_JOIN",
	[RDMA_CM_EVENT_MULTICAST_ERROR] = "MULTICAST_ERROR",
	[RDMA_CM_EVENT_ADDR_CHANGE] = "ADDR_CHANGE",
	[RDMA_CM_EVENT_TIMEWAIT_EXIT] = "TIMEWAIT_EXIT",
};

static void pp_log_event(const char *who, const struct rdma_cm_event *ev)
{
	if ((unsigned int)ev->event < ARRAY_SIZE(pp_event_names) &&
	    pp_event_names[ev->event])
		pr_info("%s: %s status %d\n", who, pp_event_names[ev->event],
			ev->status);
	else
		pr_info("%s: event %d status %d\n", who, ev->event, ev->status);
}

/* queue @work unless the module is going away; false if not queued */
static bool pp_queue(struct work_struct *work)
{
	bool queued = false;

	spin_lock(&pp.lock);
	if (!pp.stopping)
		queued = queue_work(pp.wq, work);
	spin_unlock(&pp.lock);
	return queued;
}

/* the client's next attempt in 500 ms, while its time allows */
static void pp_retry(void)
{
	spin_lock(&pp.lock);
	if (!pp.stopping && time_before(jiffies, pp.deadline))
		queue_delayed_work(pp.wq, &pp.connect,
				   msecs_to_jiffies(PP_RETRY_MS));
	else if (!pp.stopping)
		pr_info("client: not trying to connect again\n");
	spin_unlock(&pp.lock);
}

/* the connection ended or failed: release it from the work queue */
static void pp_conn_down(struct pp_conn *c)
{
	struct pp_side *s = c->side;

	mutex_lock(&s->lock);
	if (!c->dead && s->conn == c)
		pp_queue(&s->down);
	mutex_unlock(&s->lock);
}

/* with the side's lock held, on a live connection */
static int pp_post_send(struct pp_conn *c)
{
	struct ib_device *dev = c->id->device;
	struct ib_sge sge = {
		.addr = c->send_dma,
		.length = strlen(c->send_buf) + 1,
		.lkey = c->pd->local_dma_lkey,
	};
	struct ib_send_wr wr = {
		.wr_cqe = &c->send_cqe,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};

	ib_dma_sync_single_for_device(dev, c->send_dma, PP_MSG_LEN,
				      DMA_TO_DEVICE);
	return ib_post_send(c->id->qp, &wr, NULL);
}

static void pp_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct pp_conn *c = container_of(wc->wr_cqe, struct pp_conn, send_cqe);

	/* a flush is the QP going down under a release: nothing to say */
	if (wc->status == IB_WC_SUCCESS)
		pr_info("%s: sent \"%s\"\n", c->side->name, c->send_buf);
	else if (wc->status != IB_WC_WR_FLUSH_ERR)
		pr_info("%s: send failed: %s\n", c->side->name,
			ib_wc_status_msg(wc->status));
}

static void pp_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct pp_conn *c = container_of(wc->wr_cqe, struct pp_conn, recv_cqe);
	struct pp_side *s = c->side;
	int ret;

	if (wc->status != IB_WC_SUCCESS) {
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			pr_info("%s: receive failed: %s\n", s->name,
				ib_wc_status_msg(wc->status));
		return;
	}
	ib_dma_sync_single_for_cpu(c->id->device, c->recv_dma, PP_MSG_LEN,
				   DMA_FROM_DEVICE);
	c->recv_buf[PP_MSG_LEN - 1] = '\0';
	pr_info("%s: received \"%s\"\n", s->name, c->recv_buf);
	if (s != &pp.server || strncmp(c->recv_buf, "ping", 4))
		return;

	/* the lock keeps the QP from being destroyed under the post */
	mutex_lock(&s->lock);
	if (!c->dead) {
		snprintf(c->send_buf, PP_MSG_LEN, "pong%s", c->recv_buf + 4);
		ret = pp_post_send(c);
		if (ret)
			pr_info("%s: ib_post_send: %d\n", s->name, ret);
	}
	mutex_unlock(&s->lock);
}

/*
 * PD, CQ, RC QP, buffers, and the receive posted before the connection
 * is accepted or requested, so that the peer's first message finds it.
 * With the side's lock held; on error what was made stays for
 * pp_conn_release().
 */
static int pp_conn_setup(struct pp_conn *c)
{
	struct ib_device *dev = c->id->device;
	struct ib_qp_init_attr attr = {
		.cap = { .max_send_wr = 2, .max_recv_wr = 2,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.sq_sig_type = IB_SIGNAL_ALL_WR,
		.qp_type = IB_QPT_RC,
	};
	struct ib_sge sge;
	struct ib_recv_wr wr = {
		.wr_cqe = &c->recv_cqe,
		.sg_list = &sge,
		.num_sge = 1,
	};
	struct ib_pd *pd;
	struct ib_cq *cq;
	u64 dma;
	int ret;

	pd = ib_alloc_pd(dev, 0);
	if (IS_ERR(pd))
		return PTR_ERR(pd);
	c->pd = pd;
	cq = ib_alloc_cq(dev, c, 4, 0, IB_POLL_WORKQUEUE);
	if (IS_ERR(cq))
		return PTR_ERR(cq);
	c->cq = cq;

	c->recv_buf = kzalloc(PP_MSG_LEN, GFP_KERNEL);
	c->send_buf = kzalloc(PP_MSG_LEN, GFP_KERNEL);
	if (!c->recv_buf || !c->send_buf)
		return -ENOMEM;
	dma = ib_dma_map_single(dev, c->recv_buf, PP_MSG_LEN, DMA_FROM_DEVICE);
	if (ib_dma_mapping_error(dev, dma))
		return -ENOMEM;
	c->recv_dma = dma;
	dma = ib_dma_map_single(dev, c->send_buf, PP_MSG_LEN, DMA_TO_DEVICE);
	if (ib_dma_mapping_error(dev, dma))
		return -ENOMEM;
	c->send_dma = dma;

	attr.send_cq = cq;
	attr.recv_cq = cq;
	ret = rdma_create_qp(c->id, pd, &attr);
	if (ret)
		return ret;
	c->has_qp = true;

	sge = (struct ib_sge){ .addr = c->recv_dma, .length = PP_MSG_LEN,
			       .lkey = pd->local_dma_lkey };
	return ib_post_recv(c->id->qp, &wr, NULL);
}

/*
 * Undo pp_conn_setup(). The QP goes first: after that no completion is
 * generated, and ib_free_cq() waits for a completion handler that runs.
 */
static void pp_conn_release(struct pp_conn *c)
{
	struct ib_device *dev = c->id->device;

	if (c->has_qp)
		rdma_destroy_qp(c->id);
	if (c->cq)
		ib_free_cq(c->cq);
	if (c->send_dma)
		ib_dma_unmap_single(dev, c->send_dma, PP_MSG_LEN,
				    DMA_TO_DEVICE);
	if (c->recv_dma)
		ib_dma_unmap_single(dev, c->recv_dma, PP_MSG_LEN,
				    DMA_FROM_DEVICE);
	kfree(c->send_buf);
	kfree(c->recv_buf);
	if (c->pd)
		ib_dealloc_pd(c->pd);
}

static struct pp_conn *pp_conn_alloc(struct pp_side *s)
{
	struct pp_conn *c = kzalloc(sizeof(*c), GFP_KERNEL);

	if (!c)
		return NULL;
	c->side = s;
	c->recv_cqe.done = pp_recv_done;
	c->send_cqe.done = pp_send_done;
	return c;
}

/*
 * Release a side's connection: mark it dead under the lock (no callback
 * or completion uses it from then on), free its resources, and destroy
 * its id without the lock: rdma_destroy_id() waits for a callback of the
 * id that may be running, and that callback may be waiting for the lock.
 */
static void pp_side_release(struct pp_side *s)
{
	struct pp_conn *c;
	bool had_qp;

	mutex_lock(&s->lock);
	c = s->conn;
	s->conn = NULL;
	if (c)
		c->dead = true;
	mutex_unlock(&s->lock);
	if (!c)
		return;
	had_qp = c->has_qp;
	pp_conn_release(c);
	rdma_destroy_id(c->id);
	pr_info("%s: released its %s\n", s->name, had_qp ? "QP and id" : "id");
	kfree(c);
}

static void pp_down_work(struct work_struct *work)
{
	struct pp_side *s = container_of(work, struct pp_side, down);
	uint hold = READ_ONCE(hold_secs);

	/* a slow owner: the removal waits for it and names its ids */
	if (hold)
		msleep(hold * 1000);
	pp_side_release(s);
	if (s == &pp.client)
		pp_retry();
}

static void pp_connect_work(struct work_struct *work)
{
	struct pp_side *s = &pp.client;
	struct rdma_cm_id *id;
	struct pp_conn *c;
	int ret;

	c = pp_conn_alloc(s);
	if (!c) {
		pp_retry();
		return;
	}
	id = rdma_create_id(&init_net, pp_handler, c, RDMA_PS_TCP,
			    IB_QPT_RC);
	if (IS_ERR(id)) {
		pr_info("client: rdma_create_id: %ld\n", PTR_ERR(id));
		kfree(c);
		pp_retry();
		return;
	}
	c->id = id;
	mutex_lock(&s->lock);
	s->conn = c;
	mutex_unlock(&s->lock);

	pr_info("client: connecting to %pISpc\n", &pp.dst);
	ret = rdma_resolve_addr(id, NULL, (struct sockaddr *)&pp.dst,
				PP_RESOLVE_MS);
	if (ret) {
		/* e.g. no RDMA device for the address (yet) */
		pr_info("client: rdma_resolve_addr: %d\n", ret);
		pp_side_release(s);
		pp_retry();
	}
}

/* client, ROUTE_RESOLVED: set the QP up and ask for the connection */
static void pp_route_resolved(struct pp_conn *c)
{
	struct rdma_conn_param param = {
		.responder_resources = 1,
		.initiator_depth = 1,
		.retry_count = 7,
		.rnr_retry_count = 7,
	};
	struct pp_side *s = c->side;
	int ret = 0;

	mutex_lock(&s->lock);
	if (!c->dead) {
		ret = pp_conn_setup(c);
		/*
		 * the _locked variant: the CM holds the id's handler lock
		 * around its callbacks, and rdma_connect() would take it
		 */
		if (!ret)
			ret = rdma_connect_locked(c->id, &param);
		if (ret)
			pr_info("client: connect: %d\n", ret);
	}
	mutex_unlock(&s->lock);
	if (ret)
		pp_conn_down(c);
}

/* client, ESTABLISHED: say ping (the server's receive is posted) */
static void pp_established(struct pp_conn *c)
{
	struct pp_side *s = c->side;
	int ret = 0;

	if (s != &pp.client)
		return;
	mutex_lock(&s->lock);
	if (!c->dead) {
		snprintf(c->send_buf, PP_MSG_LEN, "ping #%d",
			 atomic_inc_return(&pp.round));
		ret = pp_post_send(c);
		if (ret)
			pr_info("client: ib_post_send: %d\n", ret);
	}
	mutex_unlock(&s->lock);
}

/*
 * server, CONNECT_REQUEST on a new id: accept it if the server has no
 * connection. Returning non-zero makes the CM destroy the new id (and
 * reject the request), which is all a refusal needs.
 */
static int pp_request(struct rdma_cm_id *id)
{
	struct rdma_conn_param param = {
		.responder_resources = 1,
		.initiator_depth = 1,
		.rnr_retry_count = 7,
	};
	struct pp_side *s = &pp.server;
	struct pp_conn *c;
	int ret;

	/* (scripts/pair-guest.sh tells a request from its peer by this) */
	pr_info("server: request from %pISpc\n", &id->route.addr.dst_addr);
	c = pp_conn_alloc(s);
	if (!c)
		return 1;
	c->id = id;
	/* the id's later events find their connection */
	id->context = c;
	mutex_lock(&s->lock);
	if (s->conn) {
		mutex_unlock(&s->lock);
		pr_info("server: busy, refusing the request\n");
		kfree(c);
		return 1;
	}
	ret = pp_conn_setup(c);
	if (!ret)
		ret = rdma_accept(id, &param);
	if (ret) {
		mutex_unlock(&s->lock);
		pr_info("server: accept: %d\n", ret);
		pp_conn_release(c);
		kfree(c);
		return 1;
	}
	s->conn = c;
	mutex_unlock(&s->lock);
	return 0;
}

/*
 * The listener is bound to no device: the CM gives it no DEVICE_REMOVAL.
 * Should one come all the same, the listener is let go by returning
 * non-zero, unless the unload has already taken it to destroy it.
 */
static int pp_listener_event(struct rdma_cm_event *ev)
{
	pp_log_event("server (listener)", ev);
	if (ev->event != RDMA_CM_EVENT_DEVICE_REMOVAL)
		return 0;
	return xchg(&pp.listener, NULL) ? 1 : 0;
}

static int pp_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct pp_conn *c = id->context;

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
		pp_log_event("server", ev);
		return pp_request(id);
	}
	if (id == pp.listener_id)
		return pp_listener_event(ev);

	pp_log_event(c->side->name, ev);
	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		if (rdma_resolve_route(id, PP_RESOLVE_MS))
			pp_conn_down(c);
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		pp_route_resolved(c);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		pp_established(c);
		break;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		/*
		 * The removal waits until the id is destroyed: do it from
		 * the work queue, and give the client its time to come back.
		 */
		if (c->side == &pp.client) {
			spin_lock(&pp.lock);
			pp.deadline = jiffies + READ_ONCE(reconnect) * HZ;
			spin_unlock(&pp.lock);
		}
		pp_conn_down(c);
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_REJECTED:
		pp_conn_down(c);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		/*
		 * With redial, a peer's departure frees the connection: the
		 * server can take a new one, the client dials again.
		 */
		if (!READ_ONCE(redial))
			break;
		if (c->side == &pp.client) {
			spin_lock(&pp.lock);
			pp.deadline = jiffies + READ_ONCE(redial) * HZ;
			spin_unlock(&pp.lock);
		}
		pp_conn_down(c);
		break;
	default:
		/*
		 * DISCONNECTED without redial, and the rest: the connection
		 * is kept as it is until the device goes or the module is
		 * unloaded.
		 */
		break;
	}
	return 0;
}

static int __init pp_init(void)
{
	struct sockaddr_storage any = {};
	struct rdma_cm_id *id;
	char port_str[8];
	int ret;

	snprintf(port_str, sizeof(port_str), "%u", port);
	ret = inet_pton_with_scope(&init_net, AF_UNSPEC, addr, port_str,
				   &pp.dst);
	if (ret) {
		pr_err("bad address \"%s\"\n", addr);
		return ret;
	}
	/* the wildcard address of the same family, on the same port */
	any.ss_family = pp.dst.ss_family;
	if (any.ss_family == AF_INET)
		((struct sockaddr_in *)&any)->sin_port = htons(port);
	else
		((struct sockaddr_in6 *)&any)->sin6_port = htons(port);

	spin_lock_init(&pp.lock);
	mutex_init(&pp.server.lock);
	mutex_init(&pp.client.lock);
	INIT_WORK(&pp.server.down, pp_down_work);
	INIT_WORK(&pp.client.down, pp_down_work);
	INIT_DELAYED_WORK(&pp.connect, pp_connect_work);
	pp.wq = alloc_ordered_workqueue("xcma_pingpong", 0);
	if (!pp.wq)
		return -ENOMEM;

	id = rdma_create_id(&init_net, pp_handler, NULL, RDMA_PS_TCP,
			    IB_QPT_RC);
	if (IS_ERR(id)) {
		ret = PTR_ERR(id);
		goto err_wq;
	}
	pp.listener_id = id;
	pp.listener = id;
	ret = rdma_bind_addr(id, (struct sockaddr *)&any);
	if (!ret)
		ret = rdma_listen(id, 8);
	if (ret) {
		pr_err("server: cannot listen on %pISpc: %d\n", &any, ret);
		goto err_id;
	}
	pr_info("server: listening on %pISpc\n", &any);

	pp.deadline = jiffies + reconnect * HZ;
	queue_delayed_work(pp.wq, &pp.connect, 0);
	return 0;

err_id:
	rdma_destroy_id(id);
err_wq:
	destroy_workqueue(pp.wq);
	return ret;
}

/*
 * No work is queued past @stopping; the pending ones run or are
 * cancelled; then both ends and the listener go, the client first, so
 * that the server may log the DISCONNECTED its release causes.
 */
static void __exit pp_exit(void)
{
	struct rdma_cm_id *lis;

	spin_lock(&pp.lock);
	pp.stopping = true;
	spin_unlock(&pp.lock);
	cancel_delayed_work_sync(&pp.connect);
	flush_workqueue(pp.wq);

	pp_side_release(&pp.client);
	pp_side_release(&pp.server);
	lis = xchg(&pp.listener, NULL);
	if (lis)
		rdma_destroy_id(lis);
	destroy_workqueue(pp.wq);
	pr_info("unloaded\n");
}

module_init(pp_init);
module_exit(pp_exit);

MODULE_AUTHOR("xcma developers");
MODULE_DESCRIPTION("rdma_cm example: ping-pong over one RC connection, survives device removal");
MODULE_LICENSE("Dual BSD/GPL");
