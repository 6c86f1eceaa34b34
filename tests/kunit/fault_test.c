// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * xcma_fault: failure injection over rxe0 (10.99.0.1).
 *
 * Every call xcma makes into ib_core, ib_cm and address resolution goes
 * through struct xcma_ops (iw_cm's too: those fail in xcma_iw, on siw0).
 * fault_ops delegates to the kernel's functions and fails one call: the
 * Nth call of one op on one side of the connection (client: its id's
 * ib_cm id and its PD; server: the rest).
 * One case per (op, call site) drives the API to that point and checks
 * what the in-tree CM (drivers/infiniband/core/cma.c) reports there: the
 * errno of the call, or the event and its status when the failure is
 * asynchronous; the id's state; a retry where the in-tree CM allows one;
 * and that nothing is left behind: no id (xcma_id_live()), no ib_cm id
 * or QP or GID attribute reference that fault_ops handed out and did not
 * get back, no port, no hold on rxe0.
 *
 * Then allocation failures (failslab, through current->fail_nth): on the
 * paths of create, bind, resolve, route, listen, connect, the conn id a
 * REQ creates and accept, the 1st, 2nd, ... allocation fails in turn
 * until the path makes no more; each run is checked the same way.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/in.h>
#include <linux/inet.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/umh.h>
#include <linux/wait.h>
#include <net/net_namespace.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "../../cma/addr.h"
#include "../../cma/id.h"
#include "../../cma/ops.h"
#include "../../cma/device.h"
#include "xcma/fsm.h"
#include "xcma_kunit.h"

#define MAX_EV 16
#define WAIT_MS 20000
#define QUIET_MS 300
#define OPS_PORT 18600
#define ALLOC_PORT 18700
#define MAX_NTH 100
#define MAX_CM_IDS 16

/* ---- the fake ops ---- */

enum fop {
	OP_NONE,
	OP_RESOLVE_IP,		/* rdma_resolve_ip() refuses */
	OP_RESOLVE_CB,		/* it resolves, its callback gets an error */
	OP_TRANSLATE_IP,
	OP_FIND_GID,
	OP_CREATE_CM_ID,
	OP_INSERT_LISTEN,
	OP_SEND_REQ,
	OP_SEND_REP,
	OP_SEND_RTU,
	OP_SEND_REJ,
	OP_SEND_MRA,
	OP_SEND_DREQ,
	OP_SEND_DREP,
	OP_CM_NOTIFY,
	OP_CM_INIT_QP_ATTR,
	OP_CREATE_QP,
	OP_MODIFY_QP,
	OP_FIND_CACHED_PKEY,
};

enum fside { ANY, CLI, SRV };

/**
 * struct fault - one call that fails
 * @op: which op
 * @side: on which side its calls are counted
 * @nth: the failing call, from 1
 * @err: what it returns (ERR_PTR(@err) for a pointer)
 */
struct fault {
	enum fop op;
	enum fside side;
	int nth;
	int err;
};

/**
 * struct fault_state - what fault_ops does and saw in the running case
 * @f: the failures (a second one for the error path of the first)
 * @seen: calls counted for each of @f
 * @hit: how often each of @f was injected (must end at 1)
 * @client_ctx: the client's struct xcma_id, context of its ib_cm ids
 * @client_pd: the client's PD
 * @cb: the resolution callback OP_RESOLVE_CB stands in front of
 * @cb_ctx: its context
 * @cb_err: the status it gets
 * @req_handler: xcma's ib_cm listen handler, which f_req_handler calls
 * @child_nth: failslab: fail_nth for the next REQ's handler, 0 for none
 * @child_left: fail_nth left after it (0: a failure was injected)
 * @child_ret: what the handler returned
 * @child_calls: REQs handled with @child_nth set
 * @wq: woken when @child_calls moves
 * @lock: protects @cm_ids
 * @cm_ids: ib_cm ids handed out (create_cm_id, insert_listen) and not
 *	destroyed yet
 * @overflow: more than MAX_CM_IDS at once
 * @qps: QPs created and not destroyed
 * @gids: GID attributes found and not put
 */
struct fault_state {
	struct fault f[2];
	atomic_t seen[2];
	atomic_t hit[2];
	void *client_ctx;
	struct ib_pd *client_pd;
	xcma_resolve_cb cb;
	void *cb_ctx;
	int cb_err;
	ib_cm_handler req_handler;
	unsigned int child_nth;
	unsigned int child_left;
	int child_ret;
	atomic_t child_calls;
	wait_queue_head_t wq;
	spinlock_t lock; /* see above */
	struct ib_cm_id *cm_ids[MAX_CM_IDS];
	bool overflow;
	atomic_t qps;
	atomic_t gids;
};

static struct fault_state fx;

static void fx_reset(const struct fault *f, const struct fault *f2)
{
	memset(&fx, 0, sizeof(fx));
	spin_lock_init(&fx.lock);
	init_waitqueue_head(&fx.wq);
	if (f)
		fx.f[0] = *f;
	if (f2)
		fx.f[1] = *f2;
}

/* Count the call against each matching failure; true if one fires. */
static bool inject(enum fop op, enum fside side, int *err)
{
	bool fire = false;
	int i;

	for (i = 0; i < ARRAY_SIZE(fx.f); i++) {
		const struct fault *f = &fx.f[i];

		if (f->op != op || (f->side != ANY && f->side != side))
			continue;
		if (atomic_inc_return(&fx.seen[i]) != f->nth || fire)
			continue;
		atomic_inc(&fx.hit[i]);
		*err = f->err;
		fire = true;
	}
	return fire;
}

static enum fside cm_side(struct ib_cm_id *cm_id)
{
	return fx.client_ctx && cm_id->context == fx.client_ctx ? CLI : SRV;
}

static enum fside pd_side(struct ib_pd *pd)
{
	return fx.client_pd && pd == fx.client_pd ? CLI : SRV;
}

static void track_cm_id(struct ib_cm_id *cm_id)
{
	int i;

	spin_lock(&fx.lock);
	for (i = 0; i < MAX_CM_IDS && fx.cm_ids[i]; i++)
		;
	if (i < MAX_CM_IDS)
		fx.cm_ids[i] = cm_id;
	else
		fx.overflow = true;
	spin_unlock(&fx.lock);
}

static void untrack_cm_id(struct ib_cm_id *cm_id)
{
	int i;

	spin_lock(&fx.lock);
	for (i = 0; i < MAX_CM_IDS; i++) {
		if (fx.cm_ids[i] == cm_id) {
			fx.cm_ids[i] = NULL;
			break;
		}
	}
	spin_unlock(&fx.lock);
}

static int tracked_cm_ids(void)
{
	int i, n = 0;

	spin_lock(&fx.lock);
	for (i = 0; i < MAX_CM_IDS; i++)
		n += !!fx.cm_ids[i];
	spin_unlock(&fx.lock);
	return n + fx.overflow;
}

#if IS_ENABLED(CONFIG_FAULT_INJECTION)
static void fail_nth_set(unsigned int nth)
{
	current->fail_nth = nth;
}

/* stop injecting; return what was left (0: a failure was injected) */
static unsigned int fail_nth_clear(void)
{
	unsigned int left = current->fail_nth;

	current->fail_nth = 0;
	return left;
}
#else
static void fail_nth_set(unsigned int nth)
{
}

static unsigned int fail_nth_clear(void)
{
	return 1;
}
#endif

static void wrap_resolve_cb(int status, struct sockaddr *src,
			    struct rdma_dev_addr *addr, void *unused)
{
	fx.cb(fx.cb_err, src, addr, fx.cb_ctx);
}

static int f_resolve_ip(struct sockaddr *src, const struct sockaddr *dst,
			struct rdma_dev_addr *addr, unsigned long timeout_ms,
			xcma_resolve_cb cb, bool by_gid_attr, void *context)
{
	int err;

	if (inject(OP_RESOLVE_IP, ANY, &err))
		return err;
	if (inject(OP_RESOLVE_CB, ANY, &err)) {
		fx.cb = cb;
		fx.cb_ctx = context;
		fx.cb_err = err;
		cb = wrap_resolve_cb;
		context = NULL;
	}
	return xcma_kernel_ops.resolve_ip(src, dst, addr, timeout_ms, cb,
					  by_gid_attr, context);
}

static int f_translate_ip(const struct sockaddr *addr,
			  struct rdma_dev_addr *dev_addr)
{
	int err;

	if (inject(OP_TRANSLATE_IP, ANY, &err))
		return err;
	return xcma_kernel_ops.translate_ip(addr, dev_addr);
}

static const struct ib_gid_attr *
f_find_gid_by_port(struct ib_device *dev, const union ib_gid *gid,
		   enum ib_gid_type type, u32 port, struct net_device *ndev)
{
	const struct ib_gid_attr *attr;
	int err;

	if (inject(OP_FIND_GID, ANY, &err))
		return ERR_PTR(err);
	attr = xcma_kernel_ops.find_gid_by_port(dev, gid, type, port, ndev);
	if (!IS_ERR(attr))
		atomic_inc(&fx.gids);
	return attr;
}

static void f_hold_gid_attr(const struct ib_gid_attr *attr)
{
	atomic_inc(&fx.gids);
	xcma_kernel_ops.hold_gid_attr(attr);
}

static void f_put_gid_attr(const struct ib_gid_attr *attr)
{
	atomic_dec(&fx.gids);
	xcma_kernel_ops.put_gid_attr(attr);
}

static struct ib_cm_id *f_create_cm_id(struct ib_device *dev,
				       ib_cm_handler handler, void *context)
{
	struct ib_cm_id *cm_id;
	int err;

	if (inject(OP_CREATE_CM_ID, context == fx.client_ctx ? CLI : SRV,
		   &err))
		return ERR_PTR(err);
	cm_id = xcma_kernel_ops.create_cm_id(dev, handler, context);
	if (!IS_ERR(cm_id))
		track_cm_id(cm_id);
	return cm_id;
}

static void f_destroy_cm_id(struct ib_cm_id *cm_id)
{
	untrack_cm_id(cm_id);
	xcma_kernel_ops.destroy_cm_id(cm_id);
}

/* xcma's listen handler, with failslab armed for one REQ if asked */
static int f_req_handler(struct ib_cm_id *cm_id,
			 const struct ib_cm_event *ev)
{
	unsigned int nth = READ_ONCE(fx.child_nth);
	int ret;

	if (!nth)
		return fx.req_handler(cm_id, ev);
	WRITE_ONCE(fx.child_nth, 0);
	fail_nth_set(nth);
	ret = fx.req_handler(cm_id, ev);
	fx.child_left = fail_nth_clear();
	fx.child_ret = ret;
	atomic_inc(&fx.child_calls);
	wake_up(&fx.wq);
	return ret;
}

static struct ib_cm_id *f_insert_listen(struct ib_device *dev,
					ib_cm_handler handler,
					__be64 service_id)
{
	struct ib_cm_id *cm_id;
	int err;

	if (inject(OP_INSERT_LISTEN, SRV, &err))
		return ERR_PTR(err);
	fx.req_handler = handler;
	cm_id = xcma_kernel_ops.insert_listen(dev, f_req_handler, service_id);
	if (!IS_ERR(cm_id))
		track_cm_id(cm_id);
	return cm_id;
}

static int f_send_req(struct ib_cm_id *cm_id, struct ib_cm_req_param *param)
{
	int err;

	if (inject(OP_SEND_REQ, cm_side(cm_id), &err))
		return err;
	return xcma_kernel_ops.send_req(cm_id, param);
}

static int f_send_rep(struct ib_cm_id *cm_id, struct ib_cm_rep_param *param)
{
	int err;

	if (inject(OP_SEND_REP, cm_side(cm_id), &err))
		return err;
	return xcma_kernel_ops.send_rep(cm_id, param);
}

static int f_send_rtu(struct ib_cm_id *cm_id, const void *data, u8 len)
{
	int err;

	if (inject(OP_SEND_RTU, cm_side(cm_id), &err))
		return err;
	return xcma_kernel_ops.send_rtu(cm_id, data, len);
}

static int f_send_rej(struct ib_cm_id *cm_id, enum ib_cm_rej_reason reason,
		      void *ari, u8 ari_len, const void *data, u8 len)
{
	int err;

	if (inject(OP_SEND_REJ, cm_side(cm_id), &err))
		return err;
	return xcma_kernel_ops.send_rej(cm_id, reason, ari, ari_len, data, len);
}

static int f_send_mra(struct ib_cm_id *cm_id, u8 timeout, const void *data,
		      u8 len)
{
	int err;

	if (inject(OP_SEND_MRA, cm_side(cm_id), &err))
		return err;
	return xcma_kernel_ops.send_mra(cm_id, timeout, data, len);
}

static int f_send_dreq(struct ib_cm_id *cm_id, const void *data, u8 len)
{
	int err;

	if (inject(OP_SEND_DREQ, cm_side(cm_id), &err))
		return err;
	return xcma_kernel_ops.send_dreq(cm_id, data, len);
}

static int f_send_drep(struct ib_cm_id *cm_id, const void *data, u8 len)
{
	int err;

	if (inject(OP_SEND_DREP, cm_side(cm_id), &err))
		return err;
	return xcma_kernel_ops.send_drep(cm_id, data, len);
}

static int f_cm_notify(struct ib_cm_id *cm_id, enum ib_event_type event)
{
	int err;

	if (inject(OP_CM_NOTIFY, cm_side(cm_id), &err))
		return err;
	return xcma_kernel_ops.cm_notify(cm_id, event);
}

static int f_cm_init_qp_attr(struct ib_cm_id *cm_id, struct ib_qp_attr *attr,
			     int *mask)
{
	int err;

	if (inject(OP_CM_INIT_QP_ATTR, cm_side(cm_id), &err))
		return err;
	return xcma_kernel_ops.cm_init_qp_attr(cm_id, attr, mask);
}

static struct ib_qp *f_create_qp(struct ib_pd *pd,
				 struct ib_qp_init_attr *attr)
{
	struct ib_qp *qp;
	int err;

	if (inject(OP_CREATE_QP, pd_side(pd), &err))
		return ERR_PTR(err);
	qp = xcma_kernel_ops.create_qp(pd, attr);
	if (!IS_ERR(qp))
		atomic_inc(&fx.qps);
	return qp;
}

static int f_modify_qp(struct ib_qp *qp, struct ib_qp_attr *attr, int mask)
{
	int err;

	if (inject(OP_MODIFY_QP, pd_side(qp->pd), &err))
		return err;
	return xcma_kernel_ops.modify_qp(qp, attr, mask);
}

static int f_destroy_qp(struct ib_qp *qp)
{
	atomic_dec(&fx.qps);
	return xcma_kernel_ops.destroy_qp(qp);
}

static int f_find_cached_pkey(struct ib_device *dev, u32 port, u16 pkey,
			      u16 *index)
{
	int err;

	if (inject(OP_FIND_CACHED_PKEY, ANY, &err))
		return err;
	return xcma_kernel_ops.find_cached_pkey(dev, port, pkey, index);
}

static void f_addr_cancel(struct rdma_dev_addr *addr)
{
	xcma_kernel_ops.addr_cancel(addr);
}

static const char *f_reject_msg(int reason)
{
	return xcma_kernel_ops.reject_msg(reason);
}

/*
 * Added to the ops layer for the loopback source and for holding a route
 * resolution in flight; passed through, none of them fails here.
 */
static int f_get_cached_pkey(struct ib_device *dev, u32 port, int index,
			     u16 *pkey)
{
	return xcma_kernel_ops.get_cached_pkey(dev, port, index, pkey);
}

static int f_get_port_state(struct ib_device *dev, u32 port,
			    enum ib_port_state *state)
{
	return xcma_kernel_ops.get_port_state(dev, port, state);
}

static int f_query_gid(struct ib_device *dev, u32 port, int index,
		       union ib_gid *gid)
{
	return xcma_kernel_ops.query_gid(dev, port, index, gid);
}

static bool f_queue_route(struct work_struct *work)
{
	return xcma_kernel_ops.queue_route(work);
}

/* no fault: a REQ's namespace */
static struct net_device *f_gid_attr_ndev_rcu(const struct ib_gid_attr *attr)
{
	return xcma_kernel_ops.gid_attr_ndev_rcu(attr);
}

/* no fault: whether a REQ's answer leaves by its netdev */
static bool f_route_leaves_by(struct net_device *ndev,
			      const struct sockaddr *remote,
			      const struct sockaddr *local)
{
	return xcma_kernel_ops.route_leaves_by(ndev, remote, local);
}

/* no fault: whether a device is a namespace's */
static bool f_dev_access_netns(const struct ib_device *dev,
			       const struct net *net)
{
	return xcma_kernel_ops.dev_access_netns(dev, net);
}

static const struct xcma_ops fault_ops = {
	.resolve_ip = f_resolve_ip,
	.addr_cancel = f_addr_cancel,
	.translate_ip = f_translate_ip,
	.find_gid_by_port = f_find_gid_by_port,
	.put_gid_attr = f_put_gid_attr,
	.hold_gid_attr = f_hold_gid_attr,
	.gid_attr_ndev_rcu = f_gid_attr_ndev_rcu,
	.create_cm_id = f_create_cm_id,
	.destroy_cm_id = f_destroy_cm_id,
	.insert_listen = f_insert_listen,
	.send_req = f_send_req,
	.send_rep = f_send_rep,
	.send_rtu = f_send_rtu,
	.send_rej = f_send_rej,
	.send_mra = f_send_mra,
	.send_dreq = f_send_dreq,
	.send_drep = f_send_drep,
	.cm_notify = f_cm_notify,
	.cm_init_qp_attr = f_cm_init_qp_attr,
	.reject_msg = f_reject_msg,
	.create_qp = f_create_qp,
	.modify_qp = f_modify_qp,
	.destroy_qp = f_destroy_qp,
	.find_cached_pkey = f_find_cached_pkey,
	.get_cached_pkey = f_get_cached_pkey,
	.get_port_state = f_get_port_state,
	.query_gid = f_query_gid,
	.queue_route = f_queue_route,
	/* no fault: the transport decision (ops.h) */
	.port_transport = xcma_ops_port_transport,
	.get_net_dev_by_params = ib_get_net_dev_by_params,
	.route_leaves_by = f_route_leaves_by,
	.dev_access_netns = f_dev_access_netns,
};

static void restore_ops(void *unused)
{
	xcma_ops_set(NULL);
}

/* ---- ids, their events and their QPs ---- */

enum req_action { REQ_ACCEPT, REQ_REJECT };

/**
 * struct peer - one side: a client id, or a listener and its conn id
 * @lock: protects the logs
 * @wq: woken on every event
 * @id: the client id or the listener
 * @ev: events of @id
 * @st: their status
 * @n: how many
 * @conn: the conn id the listener got (NULL once its callback destroyed it)
 * @cev: events of @conn
 * @cst: their status
 * @cn: how many
 * @action: what the listener does with a CONNECT_REQUEST
 * @accept_response: the client answers CONNECT_RESPONSE with rdma_accept()
 * @pd: PD of @id's (client) or @conn's (server) QP
 * @cq: its CQ
 * @qp_err: rdma_create_qp() in CONNECT_REQUEST
 * @qp_retry: the second one, if the first failed
 * @accept_err: rdma_accept() in CONNECT_REQUEST or CONNECT_RESPONSE
 * @accept_nth: failslab: fail_nth for that rdma_accept(), 0 for none
 * @accept_left: fail_nth left after it
 * @reject_err: rdma_reject() in CONNECT_REQUEST
 * @reject_retry: the second one, if the first failed
 * @pdata: private data of the last REJECTED
 * @pdata_len: its length
 */
struct peer {
	spinlock_t lock; /* see above */
	wait_queue_head_t wq;
	struct rdma_cm_id *id;
	int ev[MAX_EV], st[MAX_EV], n;
	struct rdma_cm_id *conn;
	int cev[MAX_EV], cst[MAX_EV], cn;
	enum req_action action;
	bool accept_response;
	struct ib_pd *pd;
	struct ib_cq *cq;
	int qp_err;
	int qp_retry;
	int accept_err;
	unsigned int accept_nth;
	unsigned int accept_left;
	int reject_err;
	int reject_retry;
	u8 pdata[8];
	u8 pdata_len;
};

static struct peer *new_peer(struct kunit *test)
{
	struct peer *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	spin_lock_init(&p->lock);
	init_waitqueue_head(&p->wq);
	return p;
}

static int make_qp(struct rdma_cm_id *id, struct ib_pd **pd,
		   struct ib_cq **cq, bool client)
{
	struct ib_qp_init_attr attr = {
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.sq_sig_type = IB_SIGNAL_ALL_WR,
		.qp_type = IB_QPT_RC,
	};
	int ret;

	*pd = ib_alloc_pd(id->device, 0);
	if (IS_ERR(*pd)) {
		ret = PTR_ERR(*pd);
		*pd = NULL;
		return ret;
	}
	if (client)
		fx.client_pd = *pd;
	*cq = ib_alloc_cq(id->device, NULL, 16, 0, IB_POLL_DIRECT);
	if (IS_ERR(*cq)) {
		ret = PTR_ERR(*cq);
		goto err_pd;
	}
	attr.send_cq = *cq;
	attr.recv_cq = *cq;
	ret = rdma_create_qp(id, *pd, &attr);
	if (!ret)
		return 0;
	ib_free_cq(*cq);
err_pd:
	ib_dealloc_pd(*pd);
	*pd = NULL;
	*cq = NULL;
	return ret;
}

static void free_qp(struct rdma_cm_id *id, struct ib_pd **pd,
		    struct ib_cq **cq)
{
	if (id->qp)
		rdma_destroy_qp(id);
	if (*cq)
		ib_free_cq(*cq);
	if (*pd)
		ib_dealloc_pd(*pd);
	*pd = NULL;
	*cq = NULL;
}

/* CONNECT_REQUEST on the listener's new conn id */
static int on_request(struct peer *p, struct rdma_cm_id *id)
{
	struct rdma_conn_param param = {
		.responder_resources = 1, .initiator_depth = 1,
		.rnr_retry_count = 7,
	};

	if (p->action == REQ_REJECT) {
		p->reject_err = rdma_reject(id, "nope", 5,
					    IB_CM_REJ_CONSUMER_DEFINED);
		if (p->reject_err)
			p->reject_retry = rdma_reject(id, "nope", 5,
						      IB_CM_REJ_CONSUMER_DEFINED);
		return 1; /* destroy the conn id */
	}
	p->conn = id;
	p->qp_err = make_qp(id, &p->pd, &p->cq, false);
	if (p->qp_err) {
		p->qp_retry = make_qp(id, &p->pd, &p->cq, false);
		if (p->qp_retry)
			return 0;
	}
	fail_nth_set(p->accept_nth);
	p->accept_err = rdma_accept(id, &param);
	p->accept_left = fail_nth_clear();
	return 0;
}

static int handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct peer *p = id->context;
	bool conn = id != p->id;
	/* failslab on a REQ counts xcma's allocations, not the user's */
	unsigned int saved = fail_nth_clear();
	int ret = 0;

	if (conn && ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
		ret = on_request(p, id);
	} else if (ev->event == RDMA_CM_EVENT_CONNECT_RESPONSE &&
		   p->accept_response) {
		p->accept_err = rdma_accept(id, NULL);
	} else if (ev->event == RDMA_CM_EVENT_REJECTED) {
		const void *d;
		u8 len;

		d = rdma_consumer_reject_data(id, ev, &len);
		p->pdata_len = min_t(u8, len, sizeof(p->pdata));
		if (d)
			memcpy(p->pdata, d, p->pdata_len);
	}
	spin_lock(&p->lock);
	if (conn && p->cn < MAX_EV) {
		p->cev[p->cn] = ev->event;
		p->cst[p->cn++] = ev->status;
	} else if (!conn && p->n < MAX_EV) {
		p->ev[p->n] = ev->event;
		p->st[p->n++] = ev->status;
	}
	if (conn && ret)
		p->conn = NULL;
	spin_unlock(&p->lock);
	fail_nth_set(saved);
	wake_up(&p->wq);
	return ret;
}

static bool wait_ev(struct peer *p, bool conn, int count)
{
	return wait_event_timeout(p->wq, (conn ? READ_ONCE(p->cn) :
					      READ_ONCE(p->n)) >= count,
				  msecs_to_jiffies(WAIT_MS)) > 0;
}

/* the @i-th event of the id (or conn id), or -1 if there is none */
static int ev_at(struct peer *p, bool conn, int i)
{
	if (i >= (conn ? READ_ONCE(p->cn) : READ_ONCE(p->n)))
		return -1;
	return conn ? p->cev[i] : p->ev[i];
}

static int st_at(struct peer *p, bool conn, int i)
{
	return conn ? p->cst[i] : p->st[i];
}

static int state_of(struct rdma_cm_id *id)
{
	return xcma_fsm_id_state(&xcma_id_of(id)->life.fsm);
}

static bool is_bound(struct rdma_cm_id *id)
{
	return xcma_port_is_bound(&xcma_id_of(id)->bind);
}

static void addr4(struct sockaddr_storage *ss, const char *ip, u16 port)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	sin->sin_family = AF_INET;
	sin->sin_port = htons(port);
	if (ip)
		sin->sin_addr.s_addr = in_aton(ip);
}

static struct sockaddr *sa(struct sockaddr_storage *ss)
{
	return (struct sockaddr *)ss;
}

static struct rdma_cm_id *new_id(struct kunit *test, struct peer *p)
{
	struct rdma_cm_id *id;

	id = rdma_create_id(&init_net, handler, p, RDMA_PS_TCP, IB_QPT_RC);
	KUNIT_ASSERT_FALSE(test, IS_ERR(id));
	p->id = id;
	return id;
}

/* the client: create it and make it the side fault_ops calls CLI */
static struct rdma_cm_id *new_client(struct kunit *test, struct peer *p)
{
	struct rdma_cm_id *id = new_id(test, p);

	fx.client_ctx = xcma_id_of(id);
	return id;
}

/* resolve address and route, waiting for both events */
static int resolve(struct peer *p, struct rdma_cm_id *id,
		   struct sockaddr_storage *src, struct sockaddr_storage *dst)
{
	int n = p->n, ret;

	ret = rdma_resolve_addr(id, src ? sa(src) : NULL, sa(dst), 2000);
	if (ret)
		return ret;
	if (!wait_ev(p, false, n + 1))
		return -ETIMEDOUT;
	if (p->ev[n] != RDMA_CM_EVENT_ADDR_RESOLVED)
		return -EHOSTUNREACH;
	ret = rdma_resolve_route(id, 2000);
	if (ret)
		return ret;
	if (!wait_ev(p, false, n + 2))
		return -ETIMEDOUT;
	return p->ev[n + 1] == RDMA_CM_EVENT_ROUTE_RESOLVED ? 0 : -ENETUNREACH;
}

/* after rxe0 is re-added its GIDs appear a little later: retry */
static int resolve_retry(struct peer *p, struct rdma_cm_id *id,
			 struct sockaddr_storage *dst)
{
	int i, ret = -ENODEV;

	for (i = 0; i < 50 && ret; i++) {
		ret = resolve(p, id, NULL, dst);
		if (ret)
			msleep(100);
	}
	return ret;
}

static struct rdma_conn_param conn_param = {
	.private_data = "fault", .private_data_len = 6,
	.responder_resources = 1, .initiator_depth = 1,
	.retry_count = 7, .rnr_retry_count = 7,
};

/* a listener of @ps that rejects: does a REQ to @port reach it? */
static void expect_reaches_listener(struct kunit *test, u16 port,
				    struct peer *ls)
{
	struct sockaddr_storage d;
	struct rdma_cm_id *cli;
	struct peer *cs = new_peer(test);
	int cn = ls->cn;

	addr4(&d, "10.99.0.1", port);
	cli = new_client(test, cs);
	KUNIT_ASSERT_EQ(test, resolve_retry(cs, cli, &d), 0);
	KUNIT_ASSERT_EQ(test, rdma_connect(cli, &conn_param), 0);
	KUNIT_EXPECT_TRUE(test, wait_ev(cs, false, 3));
	KUNIT_EXPECT_EQ(test, ev_at(cs, false, 2), RDMA_CM_EVENT_REJECTED);
	if (ev_at(cs, false, 2) == RDMA_CM_EVENT_REJECTED)
		KUNIT_EXPECT_EQ(test, st_at(cs, false, 2),
				IB_CM_REJ_CONSUMER_DEFINED);
	/*
	 * The listener's callback records its CONNECT_REQUEST after its
	 * rdma_reject() has sent the REJ: wait for the record, the client's
	 * REJECTED can come first.
	 */
	KUNIT_EXPECT_TRUE(test, wait_ev(ls, true, cn + 1));
	KUNIT_EXPECT_EQ(test, ls->cn, cn + 1);
	rdma_destroy_id(cli);
	fx.client_ctx = NULL;
}

/* ---- what every case checks at its end ---- */

struct baseline {
	unsigned int live;
	u16 port;
};

static void begin(struct kunit *test, struct baseline *b, u16 port,
		  const struct fault *f, const struct fault *f2)
{
	b->live = xcma_id_live();
	b->port = port;
	fx_reset(f, f2);
	KUNIT_ASSERT_EQ(test, kunit_add_action(test, restore_ops, NULL), 0);
	xcma_ops_set(&fault_ops);
}

/* everything destroyed: nothing of it is left anywhere */
static void expect_nothing_left(struct kunit *test, struct baseline *b)
{
	unsigned int holders = 0;
	int state;

	KUNIT_EXPECT_EQ_MSG(test, xcma_id_live(), b->live, "ids left");
	KUNIT_EXPECT_EQ_MSG(test, tracked_cm_ids(), 0, "ib_cm ids left");
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&fx.qps), 0, "QPs left");
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&fx.gids), 0, "GID refs left");
	KUNIT_EXPECT_EQ(test, xcma_port_owners(&init_net, RDMA_PS_TCP, b->port),
			0U);
	KUNIT_EXPECT_EQ(test, xcma_device_query("rxe0", &state, &holders), 0);
	KUNIT_EXPECT_EQ_MSG(test, holders, 0U, "rxe0 still held");
}

static void expect_hits(struct kunit *test)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(fx.f); i++)
		if (fx.f[i].op != OP_NONE)
			KUNIT_EXPECT_EQ_MSG(test, atomic_read(&fx.hit[i]), 1,
					    "failure %d injected %d times (%d calls)",
					    i, atomic_read(&fx.hit[i]),
					    atomic_read(&fx.seen[i]));
}

/* ---- one failing call per case ---- */

/* where the failure shows, and what the scenario does around it */
enum stage {
	ST_BIND,		/* rdma_bind_addr() */
	ST_RESOLVE_SRC,		/* rdma_resolve_addr() with a source */
	ST_RESOLVE,		/* rdma_resolve_addr() */
	ST_ADDR_EVENT,		/* ADDR_ERROR */
	ST_INIT_QP_ATTR,	/* rdma_init_qp_attr(), no connection */
	ST_LISTEN,		/* rdma_listen(), bound to 10.99.0.1 */
	ST_LISTEN_WILD,		/* rdma_listen(), wildcard */
	ST_DEV_ADD,		/* rxe0 added under a wildcard listener */
	ST_CLIENT_QP,		/* the client's rdma_create_qp() */
	ST_CONNECT,		/* rdma_connect() */
	ST_SERVER_QP,		/* rdma_create_qp() in CONNECT_REQUEST */
	ST_ACCEPT,		/* rdma_accept() in CONNECT_REQUEST */
	ST_REP,			/* CONNECT_ERROR at the client */
	ST_ACCEPT_NULL,		/* rdma_accept(NULL) in CONNECT_RESPONSE */
	ST_ESTABLISHED,		/* not at all: the connection is made */
	ST_CONN_INIT_QP_ATTR,	/* rdma_init_qp_attr() when connected */
	ST_NOTIFY,		/* rdma_notify() */
	ST_DISC_CLIENT,		/* the client's rdma_disconnect() */
	ST_DREQ_LOST,		/* it returns 0, the DREQ is not sent */
	ST_DISC_SERVER,		/* the server's rdma_disconnect() */
	ST_DREP_LOST,		/* it returns 0, the DREP is not sent */
	ST_REJECT,		/* rdma_reject() in CONNECT_REQUEST */
	ST_REJECTED,		/* not at all: the client is REJECTED */
};

/**
 * struct op_case - one call site
 * @name: case name
 * @f: the failing call
 * @f2: a second one, on the error path of the first (op OP_NONE if none)
 * @stage: where it shows
 * @want: the errno of the call, or the status of the event, as in-tree
 */
struct op_case {
	const char *name;
	struct fault f;
	struct fault f2;
	enum stage stage;
	int want;
};

#define F(op, side, nth, err) { OP_##op, side, nth, err }
#define NOF { OP_NONE, ANY, 0, 0 }

static const struct op_case op_cases[] = {
	/* bind: translate_ip, then the device of the address (resolve.c) */
	{ "bind_translate_ip", F(TRANSLATE_IP, ANY, 1, -EADDRNOTAVAIL), NOF,
	  ST_BIND, -EADDRNOTAVAIL },
	/* cma_acquire_dev_by_src_ip(): no port with the GID is -ENODEV */
	{ "bind_find_gid", F(FIND_GID, ANY, 1, -ENOENT), NOF, ST_BIND,
	  -ENODEV },
	{ "resolve_src_translate_ip", F(TRANSLATE_IP, ANY, 1, -EADDRNOTAVAIL),
	  NOF, ST_RESOLVE_SRC, -EADDRNOTAVAIL },
	{ "resolve_src_find_gid", F(FIND_GID, ANY, 1, -ENOENT), NOF,
	  ST_RESOLVE_SRC, -ENODEV },
	/* rdma_resolve_addr(): refused at once, or the callback's status */
	{ "resolve_ip", F(RESOLVE_IP, ANY, 1, -ENETUNREACH), NOF, ST_RESOLVE,
	  -ENETUNREACH },
	{ "resolve_ip_callback", F(RESOLVE_CB, ANY, 1, -EHOSTUNREACH), NOF,
	  ST_ADDR_EVENT, -EHOSTUNREACH },
	/* addr_handler(): the device of the resolved source */
	{ "addr_handler_find_gid", F(FIND_GID, ANY, 1, -ENOENT), NOF,
	  ST_ADDR_EVENT, -ENODEV },
	/* rdma_init_qp_attr() before a connection: the cached P_Key */
	{ "init_qp_attr_find_cached_pkey",
	  F(FIND_CACHED_PKEY, ANY, 1, -ENOENT), NOF, ST_INIT_QP_ATTR,
	  -ENOENT },
	/* rdma_listen(): cma_ib_listen(), cma_listen_on_all() */
	{ "listen_insert_listen", F(INSERT_LISTEN, SRV, 1, -EBUSY), NOF,
	  ST_LISTEN, -EBUSY },
	{ "listen_wildcard_insert_listen", F(INSERT_LISTEN, SRV, 1, -EBUSY),
	  NOF, ST_LISTEN_WILD, -EBUSY },
	/* cma_add_one(): the device is not added, the listener stays */
	{ "device_add_insert_listen", F(INSERT_LISTEN, SRV, 2, -EBUSY), NOF,
	  ST_DEV_ADD, 0 },
	/* rdma_create_qp() of the client: create, P_Key, INIT */
	{ "client_create_qp", F(CREATE_QP, CLI, 1, -ENOMEM), NOF,
	  ST_CLIENT_QP, -ENOMEM },
	{ "client_qp_find_cached_pkey", F(FIND_CACHED_PKEY, ANY, 1, -ENOENT),
	  NOF, ST_CLIENT_QP, -ENOENT },
	{ "client_qp_modify_init", F(MODIFY_QP, CLI, 1, -EIO), NOF,
	  ST_CLIENT_QP, -EIO },
	/* cma_connect_ib() */
	{ "connect_create_cm_id", F(CREATE_CM_ID, CLI, 1, -ENOMEM), NOF,
	  ST_CONNECT, -ENOMEM },
	{ "connect_send_req", F(SEND_REQ, CLI, 1, -EIO), NOF, ST_CONNECT,
	  -EIO },
	/* rdma_create_qp() on the conn id: create, ib_cm's INIT, INIT */
	{ "server_create_qp", F(CREATE_QP, SRV, 1, -ENOMEM), NOF,
	  ST_SERVER_QP, -ENOMEM },
	{ "server_qp_cm_init_qp_attr", F(CM_INIT_QP_ATTR, SRV, 1, -EIO), NOF,
	  ST_SERVER_QP, -EIO },
	{ "server_qp_modify_init", F(MODIFY_QP, SRV, 1, -EIO), NOF,
	  ST_SERVER_QP, -EIO },
	/* cma_accept_ib(): INIT again, RTR, RTS, REP; then QP ERR and REJ */
	{ "accept_cm_init_qp_attr_init", F(CM_INIT_QP_ATTR, SRV, 2, -EIO),
	  NOF, ST_ACCEPT, -EIO },
	{ "accept_modify_init", F(MODIFY_QP, SRV, 2, -EIO), NOF, ST_ACCEPT,
	  -EIO },
	{ "accept_cm_init_qp_attr_rtr", F(CM_INIT_QP_ATTR, SRV, 3, -EIO), NOF,
	  ST_ACCEPT, -EIO },
	{ "accept_modify_rtr", F(MODIFY_QP, SRV, 3, -EIO), NOF, ST_ACCEPT,
	  -EIO },
	{ "accept_cm_init_qp_attr_rts", F(CM_INIT_QP_ATTR, SRV, 4, -EIO), NOF,
	  ST_ACCEPT, -EIO },
	{ "accept_modify_rts", F(MODIFY_QP, SRV, 4, -EIO), NOF, ST_ACCEPT,
	  -EIO },
	{ "accept_send_rep", F(SEND_REP, SRV, 1, -EIO), NOF, ST_ACCEPT, -EIO },
	{ "accept_failed_modify_err", F(SEND_REP, SRV, 1, -EIO),
	  F(MODIFY_QP, SRV, 5, -EIO), ST_ACCEPT, -EIO },
	{ "accept_failed_send_rej", F(SEND_REP, SRV, 1, -EIO),
	  F(SEND_REJ, SRV, 1, -EIO), ST_ACCEPT, -EIO },
	/* the MRAs: their errors are ignored, in-tree too */
	{ "request_send_mra", F(SEND_MRA, SRV, 1, -EIO), NOF, ST_ESTABLISHED,
	  0 },
	{ "reply_send_mra", F(SEND_MRA, CLI, 1, -EIO), NOF, ST_ESTABLISHED,
	  0 },
	/* cma_rep_recv(): CONNECT_ERROR with the errno, QP ERR, REJ */
	{ "reply_cm_init_qp_attr_init", F(CM_INIT_QP_ATTR, CLI, 1, -EIO), NOF,
	  ST_REP, -EIO },
	{ "reply_modify_init", F(MODIFY_QP, CLI, 2, -EIO), NOF, ST_REP, -EIO },
	{ "reply_cm_init_qp_attr_rtr", F(CM_INIT_QP_ATTR, CLI, 2, -EIO), NOF,
	  ST_REP, -EIO },
	{ "reply_modify_rtr", F(MODIFY_QP, CLI, 3, -EIO), NOF, ST_REP, -EIO },
	{ "reply_cm_init_qp_attr_rts", F(CM_INIT_QP_ATTR, CLI, 3, -EIO), NOF,
	  ST_REP, -EIO },
	{ "reply_modify_rts", F(MODIFY_QP, CLI, 4, -EIO), NOF, ST_REP, -EIO },
	{ "reply_send_rtu", F(SEND_RTU, CLI, 1, -EIO), NOF, ST_REP, -EIO },
	{ "reply_failed_modify_err", F(SEND_RTU, CLI, 1, -EIO),
	  F(MODIFY_QP, CLI, 5, -EIO), ST_REP, -EIO },
	{ "reply_failed_send_rej", F(SEND_RTU, CLI, 1, -EIO),
	  F(SEND_REJ, CLI, 1, -EIO), ST_REP, -EIO },
	/* the active side moves its own QP: rdma_accept(id, NULL) */
	{ "accept_response_send_rtu", F(SEND_RTU, CLI, 1, -EIO), NOF,
	  ST_ACCEPT_NULL, -EIO },
	/* connected */
	{ "connected_init_qp_attr", F(CM_INIT_QP_ATTR, CLI, 4, -EIO), NOF,
	  ST_CONN_INIT_QP_ATTR, -EIO },
	{ "notify_cm_notify", F(CM_NOTIFY, CLI, 1, -EIO), NOF, ST_NOTIFY,
	  -EIO },
	/* rdma_disconnect(): QP ERR first; DREQ, or else DREP, not checked */
	{ "disconnect_modify_err", F(MODIFY_QP, CLI, 5, -EIO), NOF,
	  ST_DISC_CLIENT, -EIO },
	{ "disconnect_send_dreq", F(SEND_DREQ, CLI, 1, -EIO), NOF,
	  ST_DREQ_LOST, 0 },
	{ "disconnect_reply_modify_err", F(MODIFY_QP, SRV, 5, -EIO), NOF,
	  ST_DISC_SERVER, -EIO },
	{ "disconnect_reply_send_drep", F(SEND_DREP, SRV, 1, -EIO), NOF,
	  ST_DREP_LOST, 0 },
	/* rdma_reject(): returns ib_cm's errno, may be called again */
	{ "reject_send_rej", F(SEND_REJ, SRV, 1, -EIO), NOF, ST_REJECT, -EIO },
	/* REJ received: the QP to ERR, its error ignored */
	{ "rejected_modify_err", F(MODIFY_QP, CLI, 2, -EIO), NOF, ST_REJECTED,
	  IB_CM_REJ_CONSUMER_DEFINED },
};

static void op_desc(const struct op_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(op, op_cases, op_desc);

/* bind, resolve and init_qp_attr of one id, no peer */
static void run_local(struct kunit *test, const struct op_case *c, u16 port)
{
	struct sockaddr_storage src, dst;
	struct ib_qp_attr attr = { .qp_state = IB_QPS_INIT };
	struct peer *p = new_peer(test);
	struct rdma_cm_id *id = new_client(test, p);
	int mask, ret;

	addr4(&dst, "10.99.0.1", port);
	switch (c->stage) {
	case ST_BIND:
		addr4(&src, "10.99.0.1", port);
		KUNIT_EXPECT_EQ(test, rdma_bind_addr(id, sa(&src)), c->want);
		/* as in-tree: back to IDLE, the port and the device let go */
		KUNIT_EXPECT_EQ(test, state_of(id), XCMA_FSM_IDLE);
		KUNIT_EXPECT_FALSE(test, is_bound(id));
		KUNIT_EXPECT_EQ(test, atomic_read(&fx.gids), 0);
		KUNIT_EXPECT_EQ(test, rdma_bind_addr(id, sa(&src)), 0);
		KUNIT_EXPECT_EQ(test, resolve(p, id, NULL, &dst), 0);
		break;
	case ST_RESOLVE_SRC:
		addr4(&src, "10.99.0.1", 0);
		KUNIT_EXPECT_EQ(test, rdma_resolve_addr(id, sa(&src), sa(&dst),
							2000), c->want);
		KUNIT_EXPECT_EQ(test, state_of(id), XCMA_FSM_IDLE);
		KUNIT_EXPECT_FALSE(test, is_bound(id));
		KUNIT_EXPECT_EQ(test, resolve(p, id, &src, &dst), 0);
		break;
	case ST_RESOLVE:
		KUNIT_EXPECT_EQ(test, rdma_resolve_addr(id, NULL, sa(&dst), 2000),
				c->want);
		/* the implicit bind stays, as in-tree */
		KUNIT_EXPECT_EQ(test, state_of(id), XCMA_FSM_ADDR_BOUND);
		KUNIT_EXPECT_EQ(test, resolve(p, id, NULL, &dst), 0);
		break;
	case ST_ADDR_EVENT:
		KUNIT_ASSERT_EQ(test, rdma_resolve_addr(id, NULL, sa(&dst), 2000),
				0);
		KUNIT_ASSERT_TRUE(test, wait_ev(p, false, 1));
		KUNIT_EXPECT_EQ(test, ev_at(p, false, 0),
				RDMA_CM_EVENT_ADDR_ERROR);
		KUNIT_EXPECT_EQ(test, st_at(p, false, 0), c->want);
		KUNIT_EXPECT_EQ(test, state_of(id), XCMA_FSM_ADDR_BOUND);
		/* the source it had before: the wildcard */
		KUNIT_EXPECT_TRUE(test,
				  xcma_addr_is_any(sa(&id->route.addr.src_addr)));
		KUNIT_EXPECT_EQ(test, atomic_read(&fx.gids), 0);
		KUNIT_EXPECT_EQ(test, resolve(p, id, NULL, &dst), 0);
		break;
	case ST_INIT_QP_ATTR:
		KUNIT_ASSERT_EQ(test, resolve(p, id, NULL, &dst), 0);
		ret = rdma_init_qp_attr(id, &attr, &mask);
		KUNIT_EXPECT_EQ(test, ret, c->want);
		KUNIT_EXPECT_EQ(test, state_of(id), XCMA_FSM_ROUTE_RESOLVED);
		attr.qp_state = IB_QPS_INIT;
		KUNIT_EXPECT_EQ(test, rdma_init_qp_attr(id, &attr, &mask), 0);
		break;
	default:
		break;
	}
	rdma_destroy_id(id);
	fx.client_ctx = NULL;
}

static void run_listen(struct kunit *test, const struct op_case *c, u16 port,
		       unsigned int live)
{
	struct peer *s = new_peer(test);
	struct rdma_cm_id *lis = new_id(test, s);
	struct sockaddr_storage l;

	s->action = REQ_REJECT;
	addr4(&l, c->stage == ST_LISTEN ? "10.99.0.1" : NULL, port);
	KUNIT_ASSERT_EQ(test, rdma_bind_addr(lis, sa(&l)), 0);
	KUNIT_EXPECT_EQ(test, rdma_listen(lis, 8), c->want);
	KUNIT_EXPECT_EQ(test, state_of(lis), XCMA_FSM_ADDR_BOUND);
	/* no child, no ib_cm listen left */
	KUNIT_EXPECT_EQ(test, xcma_id_live(), live + 1);
	KUNIT_EXPECT_EQ(test, tracked_cm_ids(), 0);
	/* a second listen succeeds, and a REQ reaches it */
	KUNIT_ASSERT_EQ(test, rdma_listen(lis, 8), 0);
	KUNIT_EXPECT_EQ(test, state_of(lis), XCMA_FSM_LISTEN);
	expect_reaches_listener(test, port, s);
	rdma_destroy_id(lis);
}

static void run_dev_add(struct kunit *test, const struct op_case *c, u16 port,
			unsigned int live)
{
	struct peer *s = new_peer(test);
	struct rdma_cm_id *wild = new_id(test, s);
	struct sockaddr_storage l;
	unsigned int holders;
	int state;

	s->action = REQ_REJECT;
	addr4(&l, NULL, port);
	KUNIT_ASSERT_EQ(test, rdma_bind_addr(wild, sa(&l)), 0);
	KUNIT_ASSERT_EQ(test, rdma_listen(wild, 8), 0);
	KUNIT_EXPECT_EQ(test, xcma_id_live(), live + 2);
	KUNIT_ASSERT_EQ(test, xcma_kunit_run(test, "/usr/sbin/rdma link delete rxe0"),
			0);
	KUNIT_EXPECT_EQ(test, xcma_id_live(), live + 1);
	/* the child's listen fails: xcma leaves the device out */
	KUNIT_ASSERT_EQ(test, xcma_kunit_run(test,
					     "/usr/sbin/rdma link add rxe0 type rxe netdev eth0"),
			0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx.hit[0]), 1);
	KUNIT_EXPECT_EQ(test, xcma_device_query("rxe0", &state, &holders),
			-ENODEV);
	KUNIT_EXPECT_EQ(test, xcma_id_live(), live + 1);
	KUNIT_EXPECT_EQ(test, tracked_cm_ids(), 0);
	KUNIT_EXPECT_EQ(test, state_of(wild), XCMA_FSM_LISTEN);
	KUNIT_EXPECT_EQ(test, s->n, 0);
	/* the next add works, and the listener gets its child back */
	KUNIT_ASSERT_EQ(test, xcma_kunit_run(test, "/usr/sbin/rdma link delete rxe0"),
			0);
	KUNIT_ASSERT_EQ(test, xcma_kunit_run(test,
					     "/usr/sbin/rdma link add rxe0 type rxe netdev eth0"),
			0);
	KUNIT_EXPECT_EQ(test, xcma_device_query("rxe0", &state, &holders), 0);
	KUNIT_EXPECT_EQ(test, xcma_id_live(), live + 2);
	expect_reaches_listener(test, port, s);
	rdma_destroy_id(wild);
}

/* the server's conn id goes: its QP, then the id */
static void destroy_conn(struct peer *s)
{
	if (!s->conn)
		return;
	free_qp(s->conn, &s->pd, &s->cq);
	rdma_destroy_id(s->conn);
	s->conn = NULL;
}

static void destroy_client(struct peer *cs)
{
	if (!cs->id)
		return;
	free_qp(cs->id, &cs->pd, &cs->cq);
	rdma_destroy_id(cs->id);
	cs->id = NULL;
	fx.client_ctx = NULL;
	fx.client_pd = NULL;
}

/* both ends hear of a disconnection, with the failures of @c on the way */
static void run_disconnect(struct kunit *test, const struct op_case *c,
			   struct peer *cs, struct peer *ss)
{
	int ret;

	ret = rdma_disconnect(cs->id);
	if (c->stage == ST_DISC_CLIENT) {
		/* as in-tree: nothing is sent, the id stays connected */
		KUNIT_EXPECT_EQ(test, ret, c->want);
		msleep(QUIET_MS);
		KUNIT_EXPECT_EQ(test, READ_ONCE(ss->cn), 2);
		KUNIT_EXPECT_EQ(test, state_of(cs->id), XCMA_FSM_CONNECT);
		ret = rdma_disconnect(cs->id);
	}
	KUNIT_EXPECT_EQ(test, ret, 0);
	if (c->stage == ST_DREQ_LOST) {
		/* in-tree returns 0 too: the peer hears nothing... */
		msleep(QUIET_MS);
		KUNIT_EXPECT_EQ(test, READ_ONCE(ss->cn), 2);
		/* ...until a second call */
		KUNIT_EXPECT_EQ(test, rdma_disconnect(cs->id), 0);
	}
	KUNIT_ASSERT_TRUE(test, wait_ev(ss, true, 3));
	KUNIT_EXPECT_EQ(test, ev_at(ss, true, 2), RDMA_CM_EVENT_DISCONNECTED);

	ret = rdma_disconnect(ss->conn);
	if (c->stage == ST_DISC_SERVER) {
		KUNIT_EXPECT_EQ(test, ret, c->want);
		msleep(QUIET_MS);
		KUNIT_EXPECT_EQ(test, READ_ONCE(cs->n), 3);
		ret = rdma_disconnect(ss->conn);
	}
	KUNIT_EXPECT_EQ(test, ret, 0);
	if (c->stage == ST_DREP_LOST) {
		msleep(QUIET_MS);
		KUNIT_EXPECT_EQ(test, READ_ONCE(cs->n), 3);
		KUNIT_EXPECT_EQ(test, rdma_disconnect(ss->conn), 0);
	}
	KUNIT_EXPECT_TRUE(test, wait_ev(cs, false, 5));
	KUNIT_EXPECT_EQ(test, ev_at(cs, false, 3), RDMA_CM_EVENT_DISCONNECTED);
	KUNIT_EXPECT_EQ(test, st_at(cs, false, 3), 0);
	KUNIT_EXPECT_EQ(test, ev_at(cs, false, 4), RDMA_CM_EVENT_TIMEWAIT_EXIT);
	KUNIT_EXPECT_TRUE(test, wait_ev(ss, true, 4));
	KUNIT_EXPECT_EQ(test, ev_at(ss, true, 3), RDMA_CM_EVENT_TIMEWAIT_EXIT);
}

/* the connection is made: the cases that fail something after that */
static void run_connected(struct kunit *test, const struct op_case *c,
			  struct peer *cs, struct peer *ss)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_RTS };
	int mask;

	KUNIT_ASSERT_TRUE(test, wait_ev(cs, false, 3));
	KUNIT_EXPECT_EQ(test, ev_at(cs, false, 2), RDMA_CM_EVENT_ESTABLISHED);
	KUNIT_ASSERT_TRUE(test, wait_ev(ss, true, 2));
	KUNIT_EXPECT_EQ(test, ev_at(ss, true, 1), RDMA_CM_EVENT_ESTABLISHED);
	KUNIT_EXPECT_EQ(test, ss->accept_err, 0);
	switch (c->stage) {
	case ST_CONN_INIT_QP_ATTR:
		KUNIT_EXPECT_EQ(test, rdma_init_qp_attr(cs->id, &attr, &mask),
				c->want);
		attr.qp_state = IB_QPS_RTS;
		KUNIT_EXPECT_EQ(test, rdma_init_qp_attr(cs->id, &attr, &mask), 0);
		break;
	case ST_NOTIFY:
		KUNIT_EXPECT_EQ(test, rdma_notify(cs->id, IB_EVENT_COMM_EST),
				c->want);
		/* again, ib_cm's own answer: COMM_EST when established */
		KUNIT_EXPECT_EQ(test, rdma_notify(cs->id, IB_EVENT_COMM_EST),
				-EISCONN);
		break;
	case ST_DISC_CLIENT:
	case ST_DREQ_LOST:
	case ST_DISC_SERVER:
	case ST_DREP_LOST:
		run_disconnect(test, c, cs, ss);
		break;
	default:
		break;
	}
}

/* the client hears back from a failed accept: REJECTED */
static void expect_rejected(struct kunit *test, struct peer *cs)
{
	KUNIT_ASSERT_TRUE(test, wait_ev(cs, false, 3));
	KUNIT_EXPECT_EQ(test, ev_at(cs, false, 2), RDMA_CM_EVENT_REJECTED);
	KUNIT_EXPECT_EQ(test, st_at(cs, false, 2), IB_CM_REJ_CONSUMER_DEFINED);
	KUNIT_EXPECT_EQ(test, state_of(cs->id), XCMA_FSM_CONNECT);
}

/* a listener on 10.99.0.1 and a client connecting to it */
static void run_conn(struct kunit *test, const struct op_case *c, u16 port)
{
	struct peer *ss = new_peer(test), *cs = new_peer(test);
	bool rej_lost = c->f2.op == OP_SEND_REJ;
	struct sockaddr_storage l;
	struct rdma_cm_id *lis, *cli;
	int ret;

	ss->action = c->stage == ST_REJECT || c->stage == ST_REJECTED ?
			     REQ_REJECT : REQ_ACCEPT;
	lis = new_id(test, ss);
	addr4(&l, "10.99.0.1", port);
	KUNIT_ASSERT_EQ(test, rdma_bind_addr(lis, sa(&l)), 0);
	KUNIT_ASSERT_EQ(test, rdma_listen(lis, 8), 0);

	cli = new_client(test, cs);
	KUNIT_ASSERT_EQ(test, resolve(cs, cli, NULL, &l), 0);
	if (c->stage == ST_ACCEPT_NULL) {
		cs->accept_response = true;
	} else {
		ret = make_qp(cli, &cs->pd, &cs->cq, true);
		if (c->stage == ST_CLIENT_QP) {
			/* no QP, nothing else changed; a second one works */
			KUNIT_EXPECT_EQ(test, ret, c->want);
			KUNIT_EXPECT_NULL(test, cli->qp);
			KUNIT_EXPECT_EQ(test, atomic_read(&fx.qps), 0);
			KUNIT_EXPECT_EQ(test, state_of(cli),
					XCMA_FSM_ROUTE_RESOLVED);
			ret = make_qp(cli, &cs->pd, &cs->cq, true);
		}
		KUNIT_ASSERT_EQ(test, ret, 0);
	}
	ret = rdma_connect(cli, &conn_param);
	if (c->stage == ST_CONNECT) {
		/* back to ROUTE_RESOLVED, no ib_cm id but the listen's */
		KUNIT_EXPECT_EQ(test, ret, c->want);
		KUNIT_EXPECT_EQ(test, state_of(cli), XCMA_FSM_ROUTE_RESOLVED);
		KUNIT_EXPECT_EQ(test, tracked_cm_ids(), 1);
		ret = rdma_connect(cli, &conn_param);
	}
	KUNIT_ASSERT_EQ(test, ret, 0);

	switch (c->stage) {
	case ST_REJECT:
	case ST_REJECTED:
		expect_rejected(test, cs);
		KUNIT_EXPECT_GE(test, cs->pdata_len, 5);
		KUNIT_EXPECT_STREQ(test, (char *)cs->pdata, "nope");
		KUNIT_EXPECT_EQ(test, ss->reject_err,
				c->stage == ST_REJECT ? c->want : 0);
		KUNIT_EXPECT_EQ(test, ss->reject_retry, 0);
		break;
	case ST_ACCEPT:
		/* the QP goes to ERR and a REJ is sent, as in-tree */
		KUNIT_ASSERT_TRUE(test, wait_ev(ss, true, 1));
		KUNIT_EXPECT_EQ(test, ss->accept_err, c->want);
		KUNIT_ASSERT_NOT_NULL(test, ss->conn);
		KUNIT_EXPECT_EQ(test, state_of(ss->conn), XCMA_FSM_CONNECT);
		/* no REJ went out: destroying the conn id sends one */
		if (rej_lost) {
			msleep(QUIET_MS);
			KUNIT_EXPECT_EQ(test, READ_ONCE(cs->n), 2);
			destroy_conn(ss);
		}
		expect_rejected(test, cs);
		break;
	case ST_ACCEPT_NULL:
		KUNIT_ASSERT_TRUE(test, wait_ev(cs, false, 3));
		KUNIT_EXPECT_EQ(test, ev_at(cs, false, 2),
				RDMA_CM_EVENT_CONNECT_RESPONSE);
		KUNIT_EXPECT_EQ(test, cs->accept_err, c->want);
		KUNIT_EXPECT_EQ(test, state_of(cli), XCMA_FSM_CONNECT);
		KUNIT_ASSERT_TRUE(test, wait_ev(ss, true, 2));
		KUNIT_EXPECT_EQ(test, ev_at(ss, true, 1), RDMA_CM_EVENT_REJECTED);
		break;
	case ST_REP:
		/* CONNECT_ERROR with the errno; QP ERR and REJ, as in-tree */
		KUNIT_ASSERT_TRUE(test, wait_ev(cs, false, 3));
		KUNIT_EXPECT_EQ(test, ev_at(cs, false, 2),
				RDMA_CM_EVENT_CONNECT_ERROR);
		KUNIT_EXPECT_EQ(test, st_at(cs, false, 2), c->want);
		KUNIT_EXPECT_EQ(test, state_of(cli), XCMA_FSM_CONNECT);
		if (rej_lost) {
			/*
			 * The conn id's CONNECT_REQUEST is recorded after its
			 * rdma_accept() has sent the REP: wait for the record,
			 * the client's CONNECT_ERROR can come first.
			 */
			KUNIT_EXPECT_TRUE(test, wait_ev(ss, true, 1));
			msleep(QUIET_MS);
			KUNIT_EXPECT_EQ(test, READ_ONCE(ss->cn), 1);
			destroy_client(cs);
		}
		KUNIT_ASSERT_TRUE(test, wait_ev(ss, true, 2));
		KUNIT_EXPECT_EQ(test, ev_at(ss, true, 1), RDMA_CM_EVENT_REJECTED);
		break;
	case ST_SERVER_QP:
		KUNIT_ASSERT_TRUE(test, wait_ev(ss, true, 1));
		KUNIT_EXPECT_EQ(test, ss->qp_err, c->want);
		KUNIT_EXPECT_EQ(test, ss->qp_retry, 0);
		run_connected(test, c, cs, ss);
		break;
	default:
		run_connected(test, c, cs, ss);
		break;
	}
	destroy_client(cs);
	destroy_conn(ss);
	rdma_destroy_id(lis);
}

static void op_fails(struct kunit *test)
{
	const struct op_case *c = test->param_value;
	u16 port = OPS_PORT + test->param_index;
	struct baseline b;

	begin(test, &b, port, &c->f, &c->f2);
	switch (c->stage) {
	case ST_BIND:
	case ST_RESOLVE_SRC:
	case ST_RESOLVE:
	case ST_ADDR_EVENT:
	case ST_INIT_QP_ATTR:
		run_local(test, c, port);
		break;
	case ST_LISTEN:
	case ST_LISTEN_WILD:
		run_listen(test, c, port, b.live);
		break;
	case ST_DEV_ADD:
		run_dev_add(test, c, port, b.live);
		break;
	default:
		run_conn(test, c, port);
		break;
	}
	expect_hits(test);
	expect_nothing_left(test, &b);
}

/* ---- allocation failures ---- */

enum apath {
	A_CREATE, A_BIND, A_BIND_ANY, A_RESOLVE, A_ROUTE, A_LISTEN,
	A_LISTEN_WILD, A_CONNECT, A_CHILD, A_ACCEPT,
};

struct alloc_case {
	const char *name;
	enum apath path;
};

static const struct alloc_case alloc_cases[] = {
	{ "create_id", A_CREATE },
	{ "bind", A_BIND },
	{ "bind_ephemeral", A_BIND_ANY },
	{ "resolve_addr", A_RESOLVE },
	{ "resolve_route", A_ROUTE },
	{ "listen", A_LISTEN },
	{ "listen_wildcard", A_LISTEN_WILD },
	{ "connect", A_CONNECT },
	{ "request_conn_id", A_CHILD },
	{ "accept", A_ACCEPT },
};

static void alloc_desc(const struct alloc_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(alloc, alloc_cases, alloc_desc);

static bool failslab_ready;

/*
 * The errno of a failed allocation on these paths, passed through as
 * in-tree: -ENOMEM (xcma's own, ib_cm's, the verbs'), -ENOBUFS (the
 * route's dst in rdma_resolve_ip()).
 */
static bool alloc_errno(int err)
{
	return err == -ENOMEM || err == -ENOBUFS;
}

/* an id consistent after a failed bind: IDLE and unbound, or bound */
static void expect_bind_consistent(struct kunit *test, struct rdma_cm_id *id)
{
	int state = state_of(id);

	KUNIT_EXPECT_TRUE_MSG(test, (state == XCMA_FSM_IDLE && !is_bound(id)) ||
			      (state == XCMA_FSM_ADDR_BOUND && is_bound(id)),
			      "state %s, %sbound", xcma_fsm_state_name(state),
			      is_bound(id) ? "" : "not ");
}

/*
 * One run of @path with its @nth allocation failing (current->fail_nth
 * around the call). Return: the call's errno; *@left: what was left of
 * fail_nth (0: the failure was injected).
 */
static int alloc_run(struct kunit *test, enum apath path, unsigned int nth,
		     u16 port, unsigned int live, bool first, unsigned int *left)
{
	struct peer *p = new_peer(test), *ss = NULL;
	struct sockaddr_storage a, d;
	struct rdma_cm_id *id, *lis = NULL;
	int ret, n;

	*left = 1;
	addr4(&a, "10.99.0.1", port);
	addr4(&d, "10.99.0.1", port);
	if (path == A_CREATE) {
		fail_nth_set(nth);
		id = rdma_create_id(&init_net, handler, p, RDMA_PS_TCP,
				    IB_QPT_RC);
		*left = fail_nth_clear();
		if (IS_ERR(id)) {
			KUNIT_EXPECT_EQ(test, xcma_id_live(), live);
			return PTR_ERR(id);
		}
		rdma_destroy_id(id);
		return 0;
	}
	if (path == A_CONNECT || path == A_CHILD || path == A_ACCEPT) {
		ss = new_peer(test);
		lis = new_id(test, ss);
		KUNIT_ASSERT_EQ(test, rdma_bind_addr(lis, sa(&a)), 0);
		KUNIT_ASSERT_EQ(test, rdma_listen(lis, 8), 0);
	}
	id = new_client(test, p);
	switch (path) {
	case A_BIND:
	case A_BIND_ANY:
		if (path == A_BIND_ANY)
			addr4(&a, NULL, 0);
		fail_nth_set(nth);
		ret = rdma_bind_addr(id, sa(&a));
		*left = fail_nth_clear();
		if (ret) {
			KUNIT_EXPECT_EQ(test, state_of(id), XCMA_FSM_IDLE);
			KUNIT_EXPECT_FALSE(test, is_bound(id));
			KUNIT_EXPECT_EQ(test, rdma_bind_addr(id, sa(&a)), 0);
		}
		break;
	case A_RESOLVE:
		fail_nth_set(nth);
		ret = rdma_resolve_addr(id, NULL, sa(&d), 2000);
		*left = fail_nth_clear();
		if (ret) {
			expect_bind_consistent(test, id);
		} else {
			KUNIT_ASSERT_TRUE(test, wait_ev(p, false, 1));
			if (ev_at(p, false, 0) == RDMA_CM_EVENT_ADDR_ERROR) {
				KUNIT_EXPECT_EQ(test, state_of(id),
						XCMA_FSM_ADDR_BOUND);
				kunit_info(test, "nth %u: ADDR_ERROR %d", nth,
					   st_at(p, false, 0));
				ret = st_at(p, false, 0);
			} else {
				KUNIT_EXPECT_EQ(test, ev_at(p, false, 0),
						RDMA_CM_EVENT_ADDR_RESOLVED);
			}
		}
		if (ret) {
			n = p->n;
			KUNIT_EXPECT_EQ(test, rdma_resolve_addr(id, NULL, sa(&d),
								2000), 0);
			KUNIT_EXPECT_TRUE(test, wait_ev(p, false, n + 1));
			KUNIT_EXPECT_EQ(test, ev_at(p, false, n),
					RDMA_CM_EVENT_ADDR_RESOLVED);
		}
		break;
	case A_ROUTE:
		KUNIT_ASSERT_EQ(test, rdma_resolve_addr(id, NULL, sa(&d), 2000),
				0);
		KUNIT_ASSERT_TRUE(test, wait_ev(p, false, 1));
		fail_nth_set(nth);
		ret = rdma_resolve_route(id, 2000);
		*left = fail_nth_clear();
		if (ret) {
			KUNIT_EXPECT_EQ(test, state_of(id),
					XCMA_FSM_ADDR_RESOLVED);
			KUNIT_EXPECT_EQ(test, rdma_resolve_route(id, 2000), 0);
		}
		KUNIT_EXPECT_TRUE(test, wait_ev(p, false, 2));
		KUNIT_EXPECT_EQ(test, ev_at(p, false, 1),
				RDMA_CM_EVENT_ROUTE_RESOLVED);
		break;
	case A_LISTEN:
	case A_LISTEN_WILD:
		if (path == A_LISTEN)
			KUNIT_ASSERT_EQ(test, rdma_bind_addr(id, sa(&a)), 0);
		fail_nth_set(nth);
		/* the wildcard one binds 0.0.0.0 itself, and has a child */
		ret = rdma_listen(id, 8);
		*left = fail_nth_clear();
		if (ret) {
			expect_bind_consistent(test, id);
			KUNIT_EXPECT_EQ(test, xcma_id_live(), live + 1);
			KUNIT_EXPECT_EQ(test, tracked_cm_ids(), 0);
			KUNIT_EXPECT_EQ(test, rdma_listen(id, 8), 0);
		}
		KUNIT_EXPECT_EQ(test, state_of(id), XCMA_FSM_LISTEN);
		KUNIT_EXPECT_EQ(test, xcma_id_live(),
				live + (path == A_LISTEN_WILD ? 2 : 1));
		break;
	case A_CONNECT:
		KUNIT_ASSERT_EQ(test, resolve(p, id, NULL, &d), 0);
		KUNIT_ASSERT_EQ(test, make_qp(id, &p->pd, &p->cq, true), 0);
		fail_nth_set(nth);
		ret = rdma_connect(id, &conn_param);
		*left = fail_nth_clear();
		if (ret) {
			KUNIT_EXPECT_EQ(test, state_of(id),
					XCMA_FSM_ROUTE_RESOLVED);
			KUNIT_EXPECT_EQ(test, tracked_cm_ids(), 1);
			KUNIT_EXPECT_EQ(test, rdma_connect(id, &conn_param), 0);
		}
		KUNIT_EXPECT_TRUE(test, wait_ev(p, false, 3));
		KUNIT_EXPECT_EQ(test, ev_at(p, false, 2),
				RDMA_CM_EVENT_ESTABLISHED);
		break;
	case A_CHILD:
	case A_ACCEPT:
		KUNIT_ASSERT_EQ(test, resolve(p, id, NULL, &d), 0);
		KUNIT_ASSERT_EQ(test, make_qp(id, &p->pd, &p->cq, true), 0);
		atomic_set(&fx.child_calls, 0);
		if (path == A_CHILD)
			WRITE_ONCE(fx.child_nth, nth);
		else
			ss->accept_nth = nth;
		KUNIT_ASSERT_EQ(test, rdma_connect(id, &conn_param), 0);
		if (path == A_CHILD) {
			KUNIT_ASSERT_TRUE(test,
					  wait_event_timeout(fx.wq,
							     atomic_read(&fx.child_calls),
							     msecs_to_jiffies(WAIT_MS)));
			*left = fx.child_left;
			ret = fx.child_ret;
			if (ret) {
				/* as in-tree: no event, no conn id left... */
				KUNIT_EXPECT_EQ(test, ret, -ENOMEM);
				KUNIT_EXPECT_EQ(test, READ_ONCE(ss->cn), 0);
				KUNIT_EXPECT_EQ(test, xcma_id_live(), live + 2);
				if (!first)
					break;
				/* ...and ib_cm takes the REQ's next copy */
			}
		} else {
			KUNIT_ASSERT_TRUE(test, wait_ev(ss, true, 1));
			*left = ss->accept_left;
			ret = ss->accept_err;
			if (ret) {
				expect_rejected(test, p);
				KUNIT_EXPECT_EQ(test, state_of(ss->conn),
						XCMA_FSM_CONNECT);
				break;
			}
		}
		KUNIT_EXPECT_TRUE(test, wait_ev(p, false, 3));
		KUNIT_EXPECT_EQ(test, ev_at(p, false, 2),
				RDMA_CM_EVENT_ESTABLISHED);
		break;
	default:
		ret = -EINVAL;
		break;
	}
	destroy_client(p);
	if (ss) {
		destroy_conn(ss);
		rdma_destroy_id(lis);
	}
	return ret;
}

static void alloc_fails(struct kunit *test)
{
	const struct alloc_case *c = test->param_value;
	u16 port = ALLOC_PORT + test->param_index;
	unsigned int nth, left = 0, failed = 0;
	char log[128] = "";
	struct baseline b;
	int ret;

	if (!failslab_ready)
		kunit_skip(test, "failslab not configured");
	begin(test, &b, port, NULL, NULL);
	for (nth = 1; nth <= MAX_NTH; nth++) {
		ret = alloc_run(test, c->path, nth, port, b.live, !failed,
				&left);
		if (left)
			break;
		/* the failure may be absorbed (kmemleak's own, a retry) */
		if (ret) {
			failed++;
			KUNIT_EXPECT_TRUE_MSG(test, alloc_errno(ret),
					      "nth %u: errno %d", nth, ret);
			if (strlen(log) < sizeof(log) - 8)
				snprintf(log + strlen(log),
					 sizeof(log) - strlen(log), " %u:%d",
					 nth, ret);
		}
		expect_nothing_left(test, &b);
		if (test->status == KUNIT_FAILURE)
			break;
	}
	kunit_info(test, "%u allocations, %u failed the call:%s", nth - 1,
		   failed, log);
	KUNIT_EXPECT_NE_MSG(test, left, 0U, "more than %d allocations", MAX_NTH);
	KUNIT_EXPECT_GT(test, failed, 0U);
	expect_nothing_left(test, &b);
}

/* ---- the suite ---- */

/* failslab's debugfs knobs, set through the VM's shell */
static int failslab_set(const char *verbose, const char *ignore_wait)
{
	char sh[] = "/bin/sh", opt[] = "-c", cmd[160];
	char home[] = "HOME=/", path[] = "PATH=/bin:/sbin:/usr/bin:/usr/sbin";
	char *argv[4] = { sh, opt, cmd, NULL };
	char *envp[3] = { home, path, NULL };

	snprintf(cmd, sizeof(cmd),
		 "echo %s >/sys/kernel/debug/failslab/verbose && echo %s >/sys/kernel/debug/failslab/ignore-gfp-wait",
		 verbose, ignore_wait);
	return call_usermodehelper(argv[0], argv, envp, UMH_WAIT_PROC);
}

static int fault_suite_init(struct kunit_suite *suite)
{
	/*
	 * fail_nth fails GFP_KERNEL allocations only with ignore-gfp-wait
	 * off, and quietly only with verbose 0 (else a stack dump)
	 */
	failslab_ready = IS_ENABLED(CONFIG_FAILSLAB) && !failslab_set("0", "N");
	return 0;
}

static void fault_suite_exit(struct kunit_suite *suite)
{
	if (failslab_ready && failslab_set("2", "Y"))
		pr_warn("xcma_fault: failslab defaults not restored\n");
	failslab_ready = false;
}

static struct kunit_case fault_cases[] = {
	KUNIT_CASE_PARAM_ATTR(op_fails, op_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	KUNIT_CASE_PARAM_ATTR(alloc_fails, alloc_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	{}
};

static struct kunit_suite fault_suite = {
	.name = "xcma_fault",
	.init = xcma_kunit_sweep_init,
	.suite_init = fault_suite_init,
	.suite_exit = fault_suite_exit,
	.test_cases = fault_cases,
};

kunit_test_suite(fault_suite);
