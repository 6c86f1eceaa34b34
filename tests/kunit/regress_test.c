// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * xcma_regress: the in-tree CM's bug history as regression tests.
 *
 * Each case is one class of lifecycle bug that the in-tree CM
 * (drivers/infiniband/core/cma.c) fixed since 2018, most of them found by
 * syzkaller through rdma_ucm, turned into the interleaving that exposed
 * it, forced where it can be with fakes in the ops layer (an address query
 * that stays parked, a route completion held behind a plug, an ib_cm
 * listen callback or listen insertion that waits for the test) and checked
 * for the in-tree CM's errno, the exact events, no callback after destroy
 * (G2), one DEVICE_REMOVAL (G4) and nothing left behind: ids
 * (xcma_id_live()), ib_cm ids, QPs and GID attributes the fakes handed
 * out, holders of the device. docs/regressions.md has the table.
 *
 * rxe0 on eth0 (10.99.0.1) as in the other suites; the cases that add or
 * remove a device use rxe1 on a dummy netdev of their own, xr0 with
 * 10.98.0.1, so that rxe0 stays as the other suites expect it.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/kthread.h>
#include <linux/slab.h>
#include <linux/umh.h>
#include <linux/un.h>
#include <linux/workqueue.h>
#include <net/net_namespace.h>
#include <rdma/ib_cm.h>
#include <rdma/rdma_cm.h>

#include "../../cma/addr.h"
#include "../../cma/id.h"
#include "../../cma/ops.h"
#include "../../cma/port.h"
#include "../../cma/device.h"
#include "cm_util.h"
#include "xcma_kunit.h"
#include "xcma/fsm.h"

#define RG_MAX_EV 16
#define RG_WAIT_MS 10000
#define RG_CM_IDS 32
#define RG_IP "10.99.0.1"
#define RG_IP1 "10.98.0.1"
#define RG_NETDEV_ADD "/usr/sbin/ip link add xr0 type dummy"
#define RG_NETDEV_UP "/usr/sbin/ip link set xr0 up"
#define RG_NETDEV_DEL "/usr/sbin/ip link del xr0"
#define RG_ADDR_ADD "/usr/sbin/ip addr add 10.98.0.1/24 dev xr0"
#define RG_ADDR_DEL "/usr/sbin/ip addr del 10.98.0.1/24 dev xr0"
#define RG_RXE1_ADD "/usr/sbin/rdma link add rxe1 type rxe netdev xr0"
#define RG_RXE1_DEL "/usr/sbin/rdma link delete rxe1"

/* ---- the fakes ---- */

enum rg_q { RG_Q_NONE, RG_Q_PARKED, RG_Q_RUNNING, RG_Q_DONE, RG_Q_CANCELLED };

/* what the fakes record, in order, for cases that check an order */
enum rg_call { RG_CALL_RESOLVE, RG_CALL_CANCEL };

/**
 * struct rg_state - what the fake ops do and saw in the running case
 * @lock: protects the fields marked (lock)
 * @park: the next resolve_ip() parks its query (lock)
 * @resolve_err: the next resolve_ip() fails at once with it
 * @cb_err: the next resolve_ip() completes from a work item with it
 * @qstate: the parked query (enum rg_q) (lock)
 * @cb: its callback
 * @ctx: its context
 * @addr: its dev_addr
 * @src: its source
 * @status: what its callback gets
 * @aq_work: runs the callback
 * @calls: resolve_ip and addr_cancel calls, in order (lock)
 * @ncalls: how many (lock)
 * @plug_wq: route completions queue here behind @plug while @plugging
 * @plug: blocks @plug_wq until @unplug
 * @unplug: lets @plug_wq run
 * @plugging: queue_route() queues on @plug_wq
 * @req_handler: xcma's ib_cm listen handler
 * @hold_req: the next REQ waits in front of xcma's listen handler
 * @req_entered: it is waiting
 * @req_release: let it go on
 * @req_ret: what xcma's handler returned for it
 * @listen_dev: insert_listen() for this device waits for @listen_release
 * @listen_entered: it is waiting
 * @listen_release: let it go on
 * @listen_err: insert_listen() fails with it
 * @cm_ids: ib_cm ids handed out by create_cm_id/insert_listen (lock)
 * @overflow: more than RG_CM_IDS of them (lock)
 * @gids: GID attributes found and not put
 * @qps: QPs created and not destroyed
 * @watch: count @rtus and @mras sent on ib_cm ids of this id
 * @rtus: RTUs sent for @watch
 * @mras: MRAs sent for @watch
 */
struct rg_state {
	spinlock_t lock; /* see above */
	bool park;
	int resolve_err;
	int cb_err;
	int qstate;
	xcma_resolve_cb cb;
	void *ctx;
	struct rdma_dev_addr *addr;
	struct sockaddr_storage src;
	int status;
	struct work_struct aq_work;
	int calls[16];
	int ncalls;
	struct workqueue_struct *plug_wq;
	struct work_struct plug;
	struct completion unplug;
	bool plugging;
	ib_cm_handler req_handler;
	bool hold_req;
	struct completion req_entered;
	struct completion req_release;
	int req_ret;
	const char *listen_dev;
	struct completion listen_entered;
	struct completion listen_release;
	int listen_err;
	struct ib_cm_id *cm_ids[RG_CM_IDS];
	bool overflow;
	atomic_t gids;
	atomic_t qps;
	void *watch;
	atomic_t rtus;
	atomic_t mras;
};

static struct rg_state rg;
static struct xcma_ops rg_ops;

static void rg_call(enum rg_call c)
{
	spin_lock(&rg.lock);
	if (rg.ncalls < ARRAY_SIZE(rg.calls))
		rg.calls[rg.ncalls++] = c;
	spin_unlock(&rg.lock);
}

static void rg_track(struct ib_cm_id *cm_id)
{
	int i;

	spin_lock(&rg.lock);
	for (i = 0; i < RG_CM_IDS && rg.cm_ids[i]; i++)
		;
	if (i < RG_CM_IDS)
		rg.cm_ids[i] = cm_id;
	else
		rg.overflow = true;
	spin_unlock(&rg.lock);
}

static void rg_untrack(struct ib_cm_id *cm_id)
{
	int i;

	spin_lock(&rg.lock);
	for (i = 0; i < RG_CM_IDS; i++) {
		if (rg.cm_ids[i] == cm_id) {
			rg.cm_ids[i] = NULL;
			break;
		}
	}
	spin_unlock(&rg.lock);
}

static int rg_tracked(void)
{
	int i, n = 0;

	spin_lock(&rg.lock);
	for (i = 0; i < RG_CM_IDS; i++)
		n += !!rg.cm_ids[i];
	n += rg.overflow;
	spin_unlock(&rg.lock);
	return n;
}

static void rg_aq_complete(struct work_struct *work)
{
	rg.cb(rg.status, (struct sockaddr *)&rg.src, rg.addr, rg.ctx);
	spin_lock(&rg.lock);
	rg.qstate = RG_Q_DONE;
	spin_unlock(&rg.lock);
}

static int rg_resolve_ip(struct sockaddr *src, const struct sockaddr *dst,
			 struct rdma_dev_addr *addr, unsigned long timeout_ms,
			 xcma_resolve_cb cb, bool by_gid_attr, void *context)
{
	int err = 0;

	rg_call(RG_CALL_RESOLVE);
	spin_lock(&rg.lock);
	if (rg.resolve_err) {
		err = rg.resolve_err;
		rg.resolve_err = 0;
		spin_unlock(&rg.lock);
		return err;
	}
	if (!rg.park && !rg.cb_err) {
		spin_unlock(&rg.lock);
		return xcma_kernel_ops.resolve_ip(src, dst, addr, timeout_ms,
						  cb, by_gid_attr, context);
	}
	rg.cb = cb;
	rg.ctx = context;
	rg.addr = addr;
	memcpy(&rg.src, src, xcma_addr_size(src));
	rg.qstate = RG_Q_PARKED;
	rg.park = false;
	if (rg.cb_err) {
		rg.status = rg.cb_err;
		rg.cb_err = 0;
		rg.qstate = RG_Q_RUNNING;
		queue_work(system_unbound_wq, &rg.aq_work);
	}
	spin_unlock(&rg.lock);
	return 0;
}

/* as rdma_addr_cancel(): once it returns, the callback is not running */
static void rg_addr_cancel(struct rdma_dev_addr *addr)
{
	bool running, ours;

	rg_call(RG_CALL_CANCEL);
	spin_lock(&rg.lock);
	ours = rg.addr == addr && rg.qstate != RG_Q_NONE;
	running = ours && rg.qstate == RG_Q_RUNNING;
	if (ours && rg.qstate == RG_Q_PARKED)
		rg.qstate = RG_Q_CANCELLED;
	spin_unlock(&rg.lock);
	if (running)
		flush_work(&rg.aq_work);
	if (!ours)
		xcma_kernel_ops.addr_cancel(addr);
}

/* the parked query completes now, with @status */
static bool rg_kick(int status)
{
	bool run;

	spin_lock(&rg.lock);
	run = rg.qstate == RG_Q_PARKED;
	if (run) {
		rg.qstate = RG_Q_RUNNING;
		rg.status = status;
	}
	spin_unlock(&rg.lock);
	if (run)
		queue_work(system_unbound_wq, &rg.aq_work);
	return run;
}

static const struct ib_gid_attr *
rg_find_gid_by_port(struct ib_device *dev, const union ib_gid *gid,
		    enum ib_gid_type type, u32 port, struct net_device *ndev)
{
	const struct ib_gid_attr *attr;

	attr = xcma_kernel_ops.find_gid_by_port(dev, gid, type, port, ndev);
	if (!IS_ERR(attr))
		atomic_inc(&rg.gids);
	return attr;
}

static void rg_hold_gid_attr(const struct ib_gid_attr *attr)
{
	atomic_inc(&rg.gids);
	xcma_kernel_ops.hold_gid_attr(attr);
}

static void rg_put_gid_attr(const struct ib_gid_attr *attr)
{
	atomic_dec(&rg.gids);
	xcma_kernel_ops.put_gid_attr(attr);
}

static struct ib_cm_id *rg_create_cm_id(struct ib_device *dev,
					ib_cm_handler handler, void *context)
{
	struct ib_cm_id *cm_id = xcma_kernel_ops.create_cm_id(dev, handler,
							      context);

	if (!IS_ERR(cm_id))
		rg_track(cm_id);
	return cm_id;
}

static void rg_destroy_cm_id(struct ib_cm_id *cm_id)
{
	rg_untrack(cm_id);
	xcma_kernel_ops.destroy_cm_id(cm_id);
}

/* xcma's listen handler, the next REQ held in front of it if asked */
static int rg_req_handler(struct ib_cm_id *cm_id, const struct ib_cm_event *ev)
{
	bool hold = false;
	int ret;

	spin_lock(&rg.lock);
	if (ev->event == IB_CM_REQ_RECEIVED && rg.hold_req) {
		rg.hold_req = false;
		hold = true;
	}
	spin_unlock(&rg.lock);
	if (!hold)
		return rg.req_handler(cm_id, ev);
	complete(&rg.req_entered);
	wait_for_completion_timeout(&rg.req_release,
				    msecs_to_jiffies(RG_WAIT_MS));
	ret = rg.req_handler(cm_id, ev);
	WRITE_ONCE(rg.req_ret, ret);
	return ret;
}

static struct ib_cm_id *rg_insert_listen(struct ib_device *dev,
					 ib_cm_handler handler,
					 __be64 service_id)
{
	const char *name = READ_ONCE(rg.listen_dev);
	struct ib_cm_id *cm_id;

	if (rg.listen_err)
		return ERR_PTR(rg.listen_err);
	if (name && !strcmp(dev_name(&dev->dev), name)) {
		WRITE_ONCE(rg.listen_dev, NULL);
		complete(&rg.listen_entered);
		wait_for_completion_timeout(&rg.listen_release,
					    msecs_to_jiffies(RG_WAIT_MS));
	}
	rg.req_handler = handler;
	cm_id = xcma_kernel_ops.insert_listen(dev, rg_req_handler, service_id);
	if (!IS_ERR(cm_id))
		rg_track(cm_id);
	return cm_id;
}

static int rg_send_rtu(struct ib_cm_id *cm_id, const void *data, u8 len)
{
	if (rg.watch && cm_id->context == rg.watch)
		atomic_inc(&rg.rtus);
	return xcma_kernel_ops.send_rtu(cm_id, data, len);
}

static int rg_send_mra(struct ib_cm_id *cm_id, u8 timeout, const void *data,
		       u8 len)
{
	if (rg.watch && cm_id->context == rg.watch)
		atomic_inc(&rg.mras);
	return xcma_kernel_ops.send_mra(cm_id, timeout, data, len);
}

static struct ib_qp *rg_create_qp(struct ib_pd *pd,
				  struct ib_qp_init_attr *attr)
{
	struct ib_qp *qp = xcma_kernel_ops.create_qp(pd, attr);

	if (!IS_ERR(qp))
		atomic_inc(&rg.qps);
	return qp;
}

static int rg_destroy_qp(struct ib_qp *qp)
{
	atomic_dec(&rg.qps);
	return xcma_kernel_ops.destroy_qp(qp);
}

static bool rg_queue_route(struct work_struct *work)
{
	if (READ_ONCE(rg.plugging))
		return queue_work(rg.plug_wq, work);
	return xcma_kernel_ops.queue_route(work);
}

static void rg_plug(struct work_struct *work)
{
	wait_for_completion(&rg.unplug);
}

static void rg_unplug(void)
{
	complete_all(&rg.unplug);
}

/* ---- an id and what it saw ---- */

/**
 * struct rg_id - one id of a case and its event log
 * @id: the id
 * @lock: protects @ev, @st, @n
 * @wq: woken after every callback
 * @ev: events, in order
 * @st: their status
 * @n: how many
 * @ret_on: 1 + the event whose callback returns non-zero (destroy by
 *	return; its QP is destroyed first)
 * @block_on: 1 + the event whose callback completes @entered and waits for
 *	@release before it returns
 * @entered: see @block_on
 * @release: see @block_on
 * @connect_on_route: ROUTE_RESOLVED calls rdma_connect_locked()
 * @connect_ret: what it returned
 * @refs_at_connect: the id's references just before it connected
 * @unplug_on_removal: DEVICE_REMOVAL lets the plugged route completion
 *	run, then waits 20 ms before returning
 * @in_cb: callbacks running now (G1)
 * @overlaps: callbacks that started while another one ran (G1)
 * @destroyed: rdma_destroy_id() returned, or a callback returned non-zero
 * @late: callbacks that started after @destroyed (G2, G3)
 * @pd: PD of its QP
 * @cq: CQ of its QP
 */
struct rg_id {
	struct rdma_cm_id *id;
	spinlock_t lock; /* see above */
	wait_queue_head_t wq;
	int ev[RG_MAX_EV];
	int st[RG_MAX_EV];
	int n;
	int ret_on;
	int block_on;
	struct completion entered;
	struct completion release;
	bool connect_on_route;
	int connect_ret;
	unsigned int refs_at_connect;
	bool unplug_on_removal;
	atomic_t in_cb;
	int overlaps;
	bool destroyed;
	int late;
	struct ib_pd *pd;
	struct ib_cq *cq;
};

static const struct rdma_conn_param rg_param = {
	.responder_resources = 1, .initiator_depth = 1,
	.retry_count = 7, .rnr_retry_count = 7,
};

static int rg_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct rg_id *r = id->context;
	struct rdma_conn_param param = rg_param;
	int ret = 0;

	if (READ_ONCE(r->destroyed))
		r->late++;
	if (atomic_inc_return(&r->in_cb) != 1)
		r->overlaps++;
	spin_lock(&r->lock);
	if (r->n < RG_MAX_EV) {
		r->ev[r->n] = ev->event;
		r->st[r->n] = ev->status;
	}
	spin_unlock(&r->lock);
	if (r->connect_on_route && ev->event == RDMA_CM_EVENT_ROUTE_RESOLVED) {
		r->refs_at_connect = refcount_read(&xcma_id_of(id)->life.refcount);
		r->connect_ret = rdma_connect_locked(id, &param);
	}
	if (r->unplug_on_removal && ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL) {
		rg_unplug();
		msleep(20);
	}
	if (r->block_on == ev->event + 1) {
		complete(&r->entered);
		wait_for_completion_timeout(&r->release,
					    msecs_to_jiffies(RG_WAIT_MS));
	}
	if (r->ret_on == ev->event + 1) {
		if (id->qp)
			rdma_destroy_qp(id);
		/* a conn id has its listener's context: the listener lives */
		if (ev->event != RDMA_CM_EVENT_CONNECT_REQUEST)
			WRITE_ONCE(r->destroyed, true);
		ret = 1;
	}
	atomic_dec(&r->in_cb);
	spin_lock(&r->lock);
	r->n++;
	spin_unlock(&r->lock);
	wake_up_all(&r->wq);
	return ret;
}

static void rg_destroy(struct rg_id *r)
{
	if (r->pd) {
		/* a destroy by return freed the id, after its QP */
		if (!READ_ONCE(r->destroyed) && r->id->qp)
			rdma_destroy_qp(r->id);
		ib_free_cq(r->cq);
		ib_dealloc_pd(r->pd);
		r->pd = NULL;
	}
	if (READ_ONCE(r->destroyed))
		return;
	rdma_destroy_id(r->id);
	WRITE_ONCE(r->destroyed, true);
}

/* deferred cleanup: after the case, whatever it did not destroy */
static void rg_cleanup(void *data)
{
	struct rg_id *r = data;

	complete_all(&r->release);
	rg_destroy(r);
}

static struct rg_id *rg_new(struct kunit *test)
{
	struct rg_id *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, r);
	spin_lock_init(&r->lock);
	init_waitqueue_head(&r->wq);
	init_completion(&r->entered);
	init_completion(&r->release);
	r->id = rdma_create_id(&init_net, rg_handler, r, RDMA_PS_TCP,
			       IB_QPT_RC);
	KUNIT_ASSERT_FALSE(test, IS_ERR(r->id));
	/* a case that stopped half-way leaves nothing to the next one */
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, rg_cleanup, r),
			0);
	return r;
}

static bool rg_wait(struct rg_id *r, int n)
{
	return wait_event_timeout(r->wq, READ_ONCE(r->n) >= n,
				  msecs_to_jiffies(RG_WAIT_MS)) > 0;
}

/* the events are exactly @want, and G1 held */
static void rg_expect(struct kunit *test, struct rg_id *r, const int *want,
		      int count)
{
	int i, n = READ_ONCE(r->n);

	KUNIT_EXPECT_EQ_MSG(test, n, count, "events seen");
	for (i = 0; i < min(r->n, count); i++)
		KUNIT_EXPECT_EQ_MSG(test, r->ev[i], want[i], "event %d: %s", i,
				    rdma_event_msg(r->ev[i]));
	KUNIT_EXPECT_EQ_MSG(test, r->overlaps, 0, "G1: callbacks overlapped");
	KUNIT_EXPECT_EQ_MSG(test, r->late, 0,
			    "G2/G3: callback after destroy");
}

/* a held callback or fake has been reached */
static bool rg_entered(struct completion *c)
{
	return wait_for_completion_timeout(c, msecs_to_jiffies(RG_WAIT_MS)) > 0;
}

static unsigned int rg_state_of(struct rdma_cm_id *id)
{
	return xcma_fsm_id_state(&xcma_id_of(id)->life.fsm);
}

static unsigned int rg_refs(struct rdma_cm_id *id)
{
	return refcount_read(&xcma_id_of(id)->life.refcount);
}

static unsigned int rg_holders(struct kunit *test, const char *dev)
{
	unsigned int h = ~0U;
	int state;

	KUNIT_EXPECT_EQ_MSG(test, xcma_device_query(dev, &state, &h), 0,
			    "%s unknown to xcma", dev);
	return h;
}

/* devices xcma knows: a wildcard listener has one child on each */
static int rg_devices(void)
{
	struct xcma_device_counters c;

	xcma_device_get_counters(&c);
	return c.live;
}

static void rg_addr(struct sockaddr_storage *ss, const char *ip, u16 port)
{
	cm_addr4(ss, ip, port);
}

static int rg_resolve_addr(struct rg_id *r, const char *src, const char *dst,
			   u16 port)
{
	struct sockaddr_storage s, d;

	rg_addr(&s, src, 0);
	rg_addr(&d, dst, port);
	return rdma_resolve_addr(r->id, src ? (struct sockaddr *)&s : NULL,
				 (struct sockaddr *)&d, 2000);
}

static int rg_bind(struct rg_id *r, const char *ip, u16 port)
{
	struct sockaddr_storage a;

	rg_addr(&a, ip, port);
	return rdma_bind_addr(r->id, (struct sockaddr *)&a);
}

/* ---- a thread for the call that must block ---- */

/**
 * struct rg_async - a call in a thread of its own
 * @fn: the call
 * @arg: its argument
 * @done: completed when it returned
 * @ret: what it returned
 * @ended: @done was seen (else the struct is left to the thread)
 */
struct rg_async {
	int (*fn)(void *arg);
	void *arg;
	struct completion done;
	int ret;
	bool ended;
};

static int rg_async_fn(void *data)
{
	struct rg_async *a = data;

	a->ret = a->fn(a->arg);
	kthread_complete_and_exit(&a->done, 0);
}

static struct rg_async *rg_async_start(struct kunit *test,
				       int (*fn)(void *arg), void *arg)
{
	struct rg_async *a = kzalloc(sizeof(*a), GFP_KERNEL);
	struct task_struct *t;

	KUNIT_ASSERT_NOT_NULL(test, a);
	a->fn = fn;
	a->arg = arg;
	init_completion(&a->done);
	t = kthread_run(rg_async_fn, a, "xcma_regress");
	if (IS_ERR(t)) {
		kfree(a);
		KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	}
	return a;
}

static bool rg_async_wait(struct rg_async *a)
{
	a->ended = wait_for_completion_timeout(&a->done,
					       msecs_to_jiffies(RG_WAIT_MS)) > 0;
	return a->ended;
}

static void rg_async_free(struct rg_async *a)
{
	if (a->ended)
		kfree(a);
}

static int rg_do_destroy(void *arg)
{
	struct rg_id *r = arg;

	rdma_destroy_id(r->id);
	WRITE_ONCE(r->destroyed, true);
	return 0;
}

struct rg_cmd {
	struct kunit *test;
	const char *cmd;
};

static int rg_do_cmd(void *arg)
{
	struct rg_cmd *c = arg;

	return xcma_kunit_run(c->test, c->cmd);
}

/* ---- per case: the fakes in, a baseline, and the leak check ---- */

static unsigned int rg_base_ids;
static int rg_base_refs;

static int rg_init(struct kunit *test)
{
	int ret = xcma_kunit_sweep_init(test);

	if (ret)
		return ret;
	memset(&rg, 0, sizeof(rg));
	spin_lock_init(&rg.lock);
	INIT_WORK(&rg.aq_work, rg_aq_complete);
	INIT_WORK(&rg.plug, rg_plug);
	init_completion(&rg.unplug);
	init_completion(&rg.req_entered);
	init_completion(&rg.req_release);
	init_completion(&rg.listen_entered);
	init_completion(&rg.listen_release);
	rg.plug_wq = alloc_ordered_workqueue("xcma_rg_plug", 0);
	if (!rg.plug_wq)
		return -ENOMEM;
	rg_ops = xcma_kernel_ops;
	rg_ops.resolve_ip = rg_resolve_ip;
	rg_ops.addr_cancel = rg_addr_cancel;
	rg_ops.find_gid_by_port = rg_find_gid_by_port;
	rg_ops.put_gid_attr = rg_put_gid_attr;
	rg_ops.hold_gid_attr = rg_hold_gid_attr;
	rg_ops.create_cm_id = rg_create_cm_id;
	rg_ops.destroy_cm_id = rg_destroy_cm_id;
	rg_ops.insert_listen = rg_insert_listen;
	rg_ops.send_rtu = rg_send_rtu;
	rg_ops.send_mra = rg_send_mra;
	rg_ops.create_qp = rg_create_qp;
	rg_ops.destroy_qp = rg_destroy_qp;
	rg_ops.queue_route = rg_queue_route;
	rg_base_ids = xcma_id_live();
	rg_base_refs = xcma_id_module_refs();
	xcma_ops_set(&rg_ops);
	return 0;
}

static void rg_exit(struct kunit *test)
{
	/* whatever a failed case left waiting */
	rg_unplug();
	complete_all(&rg.req_release);
	complete_all(&rg.listen_release);
	rg_kick(-ECANCELED);
	flush_work(&rg.aq_work);
	destroy_workqueue(rg.plug_wq);
	xcma_ops_set(NULL);
}

/* G8 and the ops: nothing of the case is left */
static void rg_expect_clean(struct kunit *test)
{
	KUNIT_EXPECT_EQ_MSG(test, xcma_id_live(), rg_base_ids, "G8: ids left");
	KUNIT_EXPECT_EQ_MSG(test, xcma_id_module_refs(), rg_base_refs,
			    "G8: module references left");
	KUNIT_EXPECT_EQ_MSG(test, rg_tracked(), 0, "ib_cm ids left");
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&rg.gids), 0,
			    "GID attributes left");
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&rg.qps), 0, "QPs left");
	KUNIT_EXPECT_EQ_MSG(test, rg_holders(test, "rxe0"), 0U,
			    "rxe0 still held");
}

/* ---- rxe1 on xr0, for the cases that add or remove a device ---- */

static int rg_bind_probe(const char *ip)
{
	struct sockaddr_storage a;

	rg_addr(&a, ip, 0);
	return cm_bind_probe(&a, RDMA_PS_TCP, IB_QPT_RC);
}

/* wait until @ip binds: the device has its GID */
static int rg_wait_gid(const char *ip)
{
	int i, ret = -ETIMEDOUT;

	for (i = 0; i < 100 && ret; i++) {
		ret = rg_bind_probe(ip);
		if (ret)
			msleep(50);
	}
	return ret;
}

static bool rg_rxe1_present(void)
{
	unsigned int h;
	int st;

	return !xcma_device_query("rxe1", &st, &h);
}

/* xr0 with its address, and rxe1 on it if @rxe1 */
static void rg_rxe1_setup(struct kunit *test, bool rxe1)
{
	if (xcma_kunit_run(test, "/usr/sbin/ip link show xr0")) {
		KUNIT_ASSERT_EQ(test, xcma_kunit_run(test, RG_NETDEV_ADD), 0);
		KUNIT_ASSERT_EQ(test, xcma_kunit_run(test, RG_ADDR_ADD), 0);
		KUNIT_ASSERT_EQ(test, xcma_kunit_run(test, RG_NETDEV_UP), 0);
	}
	if (rg_rxe1_present() && !rxe1)
		KUNIT_ASSERT_EQ(test, xcma_kunit_run(test, RG_RXE1_DEL), 0);
	if (!rg_rxe1_present() && rxe1) {
		KUNIT_ASSERT_EQ(test, xcma_kunit_run(test, RG_RXE1_ADD), 0);
		KUNIT_ASSERT_EQ(test, rg_wait_gid(RG_IP1), 0);
	}
}

/*
 * ib_cm's counters of rxe0's port that are not 0 (messages sent and
 * received, retransmissions, duplicates) into the console, each as
 * "cm_tx_retries/req:1": a diagnosis, no check
 */
static void rg_cm_counters(void)
{
	char sh[] = "/bin/sh", opt[] = "-c";
	char cmd[] =
		"cd /sys/class/infiniband/rxe0/ports/1&&grep -H . cm_*/*|grep -v ':0$'>/dev/kmsg";
	char home[] = "HOME=/", path[] = "PATH=/bin:/sbin:/usr/bin:/usr/sbin";
	char *argv[4] = { sh, opt, cmd, NULL };
	char *envp[3] = { home, path, NULL };

	call_usermodehelper(argv[0], argv, envp, UMH_WAIT_PROC);
}

/* ---- the cases ---- */

/*
 * Destroy from a callback racing an event. in-tree: "RDMA/cma: Execute
 * rdma_cm destruction from a handler properly" (f6a9d47ae685)
 *
 * The client connects from its ROUTE_RESOLVED callback and holds it; the
 * server accepts, and ib_cm delivers the REP to the client, whose event
 * source takes its reference and waits for the handler lock (seen as the
 * id's refcount going up). Then the callback returns non-zero: the REP
 * must be dropped, not delivered and not acted upon (no MRA, no RTU);
 * destroying the ib_cm id in REP_RCVD rejects, so the server's conn id
 * gets REJECTED, consumer defined.
 */
static void destroy_by_return_races_rep(struct kunit *test)
{
	static const int want_cli[] = { RDMA_CM_EVENT_ADDR_RESOLVED,
					RDMA_CM_EVENT_ROUTE_RESOLVED };
	static const int want_srv[] = { RDMA_CM_EVENT_CONNECT_REQUEST,
					RDMA_CM_EVENT_REJECTED };
	struct rdma_cm_id *lis;
	struct sockaddr_storage l;
	unsigned int refs;
	struct rg_id *c;
	struct side *ss;
	ktime_t t0;
	int i;

	ss = cm_new_side(test);
	ss->action = REQ_ACCEPT;
	cm_addr4(&l, RG_IP, 18800);
	lis = cm_listen(test, ss, &l);

	c = rg_new(test);
	rg.watch = xcma_id_of(c->id);
	c->connect_on_route = true;
	c->block_on = RDMA_CM_EVENT_ROUTE_RESOLVED + 1;
	c->ret_on = RDMA_CM_EVENT_ROUTE_RESOLVED + 1;
	KUNIT_ASSERT_EQ(test, rg_resolve_addr(c, NULL, RG_IP, 18800), 0);
	KUNIT_ASSERT_TRUE(test, rg_wait(c, 1));
	KUNIT_ASSERT_EQ(test, cm_make_qp(c->id, &c->pd, &c->cq), 0);
	KUNIT_ASSERT_EQ(test, rdma_resolve_route(c->id, 2000), 0);
	KUNIT_ASSERT_TRUE(test, rg_entered(&c->entered));
	KUNIT_EXPECT_EQ(test, c->connect_ret, 0);
	/*
	 * The REP's delivery holds a reference and waits for the lock. The
	 * count to exceed is the one before the REQ went out: one read here
	 * could already include the REP's (seen under load: "no REP came").
	 */
	refs = c->refs_at_connect;
	t0 = ktime_get();
	for (i = 0; i < 2000 && rg_refs(c->id) <= refs; i++)
		usleep_range(1000, 2000);
	if (rg_refs(c->id) <= refs) {
		/*
		 * Seen once in a make check beside other VMs (refs stayed 3,
		 * yet the server's REJECTED was consumer defined: the REP had
		 * reached the client's ib_cm by its destroy). Say where the
		 * REP was: the client's ib_cm id still IB_CM_REQ_SENT (2), or
		 * IB_CM_REP_RCVD (7) with xcma's delivery not yet begun; and
		 * whether ib_cm retransmitted or saw duplicates (MADs lost).
		 */
		struct ib_cm_id *cm = READ_ONCE(xcma_id_of(c->id)->cm_id);

		kunit_info(test,
			   "no REP in %lld ms: client ib_cm state %d, server CONNECT_REQUESTs %d, accept error %d\n",
			   ktime_ms_delta(ktime_get(), t0),
			   cm ? (int)READ_ONCE(cm->state) : -1, ss->cn, ss->err);
		rg_cm_counters();
	}
	KUNIT_EXPECT_GT_MSG(test, rg_refs(c->id), refs, "no REP came");
	KUNIT_EXPECT_TRUE(test, cm_wait_events(ss, true, 1));
	complete(&c->release);

	KUNIT_EXPECT_TRUE(test, cm_wait_events(ss, true, 2));
	msleep(50);
	rg_expect(test, c, want_cli, ARRAY_SIZE(want_cli));
	KUNIT_EXPECT_EQ(test, atomic_read(&rg.rtus), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&rg.mras), 0);
	cm_expect_events(test, ss, true, want_srv, ARRAY_SIZE(want_srv));
	KUNIT_EXPECT_EQ(test, ss->cst[1], IB_CM_REJ_CONSUMER_DEFINED);
	KUNIT_EXPECT_EQ(test, ss->err, 0);
	KUNIT_EXPECT_EQ(test, ss->n, 0);

	rg.watch = NULL;
	rg_destroy(c);
	if (ss->conn) {
		cm_free_qp(ss->conn, ss->pd, ss->cq);
		rdma_destroy_id(ss->conn);
	}
	rdma_destroy_id(lis);
	rg_expect_clean(test);
}

/*
 * A second rdma_resolve_addr() while the first is in flight. in-tree:
 * "RDMA/cma: Ensure rdma_addr_cancel() happens before issuing more
 * requests" (305d568b72f1)
 *
 * The first query is parked. The second call is refused with -EINVAL
 * (the id is ADDR_QUERY, not IDLE or ADDR_BOUND), issues nothing, cancels
 * nothing and leaves the destination alone; the first then completes
 * into exactly one ADDR_RESOLVED.
 */
static void resolve_addr_twice_in_flight(struct kunit *test)
{
	static const int want[] = { RDMA_CM_EVENT_ADDR_RESOLVED };
	struct sockaddr_storage d;
	struct rg_id *r;

	r = rg_new(test);
	rg.park = true;
	KUNIT_ASSERT_EQ(test, rg_resolve_addr(r, RG_IP, RG_IP, 18801), 0);
	KUNIT_ASSERT_EQ(test, rg.qstate, RG_Q_PARKED);
	KUNIT_EXPECT_EQ(test, rg_state_of(r->id), XCMA_FSM_ADDR_QUERY);

	KUNIT_EXPECT_EQ(test, rg_resolve_addr(r, NULL, "10.99.0.2", 18802),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, rg_resolve_addr(r, RG_IP, RG_IP, 18801),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, rg.ncalls, 1);
	KUNIT_EXPECT_EQ(test, rg.qstate, RG_Q_PARKED);
	KUNIT_EXPECT_EQ(test, rg_state_of(r->id), XCMA_FSM_ADDR_QUERY);
	rg_addr(&d, RG_IP, 18801);
	KUNIT_EXPECT_EQ(test, xcma_addr_cmp((struct sockaddr *)&d,
					    (struct sockaddr *)&r->id->route.addr.dst_addr),
			0);

	KUNIT_EXPECT_TRUE(test, rg_kick(0));
	KUNIT_EXPECT_TRUE(test, rg_wait(r, 1));
	msleep(20);
	rg_expect(test, r, want, ARRAY_SIZE(want));
	KUNIT_EXPECT_EQ(test, rg_state_of(r->id), XCMA_FSM_ADDR_RESOLVED);
	rg_destroy(r);
	rg_expect_clean(test);
}

/*
 * rdma_resolve_addr() again after the first ended in ADDR_ERROR. in-tree:
 * "RDMA/cma: Ensure rdma_addr_cancel() happens before issuing more
 * requests" (305d568b72f1)
 *
 * ib_addr may still hold the failed request (its callback has run, its
 * work item not necessarily finished): the new query is issued only after
 * rdma_addr_cancel() on the old one, and it resolves.
 */
static void resolve_addr_again_cancels_first(struct kunit *test)
{
	static const int want[] = { RDMA_CM_EVENT_ADDR_ERROR,
				    RDMA_CM_EVENT_ADDR_RESOLVED };
	struct rg_id *r;

	r = rg_new(test);
	rg.cb_err = -ETIMEDOUT;
	KUNIT_ASSERT_EQ(test, rg_resolve_addr(r, NULL, RG_IP, 18803), 0);
	KUNIT_ASSERT_TRUE(test, rg_wait(r, 1));
	flush_work(&rg.aq_work);
	KUNIT_EXPECT_EQ(test, r->st[0], -ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, rg_state_of(r->id), XCMA_FSM_ADDR_BOUND);

	KUNIT_ASSERT_EQ(test, rg_resolve_addr(r, NULL, RG_IP, 18803), 0);
	KUNIT_ASSERT_TRUE(test, rg_wait(r, 2));
	rg_expect(test, r, want, ARRAY_SIZE(want));
	KUNIT_EXPECT_EQ_MSG(test, rg.ncalls, 3, "resolve_ip/addr_cancel calls");
	KUNIT_EXPECT_EQ(test, rg.calls[0], RG_CALL_RESOLVE);
	if (rg.ncalls >= 2)
		KUNIT_EXPECT_EQ_MSG(test, rg.calls[1], RG_CALL_CANCEL,
				    "the failed request was not cancelled first");
	if (rg.ncalls >= 3)
		KUNIT_EXPECT_EQ(test, rg.calls[2], RG_CALL_RESOLVE);
	rg_destroy(r);
	rg_expect_clean(test);
}

/*
 * A refused rdma_resolve_addr() changes nothing. in-tree: "RDMA/cma: Do
 * not change route.addr.src_addr outside state checks" (22e9f71072fa),
 * "RDMA/cma: Do not change route.addr.src_addr.ss_family" (bc0bdc5afaa7)
 *
 * On an id past ADDR_BOUND (resolved; a listener) a resolve without a
 * source, to an IPv6 link-local destination, is refused with -EINVAL,
 * and the id keeps its source, its destination and its interface: the
 * resolved id still resolves its route, the listener still takes a REQ
 * and its destroy stops its ib_cm listen.
 */
static void resolve_addr_refused_changes_nothing(struct kunit *test)
{
	static const int want_r[] = { RDMA_CM_EVENT_ADDR_RESOLVED,
				      RDMA_CM_EVENT_ROUTE_RESOLVED };
	struct { struct sockaddr_storage ll, src, dst, lsrc; } *a;
	struct rg_id *r, *l, *c;
	int ifindex;

	/* a kunit allocation: four sockaddrs are too much for the stack */
	a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	ifindex = cm_addr6_linklocal(&a->ll, 18805);
	KUNIT_ASSERT_GT(test, ifindex, 0);

	r = rg_new(test);
	KUNIT_ASSERT_EQ(test, rg_resolve_addr(r, NULL, RG_IP, 18804), 0);
	KUNIT_ASSERT_TRUE(test, rg_wait(r, 1));
	a->src = r->id->route.addr.src_addr;
	a->dst = r->id->route.addr.dst_addr;
	KUNIT_EXPECT_EQ(test, r->id->route.addr.dev_addr.bound_dev_if, ifindex);
	KUNIT_EXPECT_EQ(test, rdma_resolve_addr(r->id, NULL,
						(struct sockaddr *)&a->ll, 2000),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, rg_state_of(r->id), XCMA_FSM_ADDR_RESOLVED);
	KUNIT_EXPECT_EQ(test, memcmp(&a->src, &r->id->route.addr.src_addr,
				     sizeof(a->src)), 0);
	KUNIT_EXPECT_EQ(test, memcmp(&a->dst, &r->id->route.addr.dst_addr,
				     sizeof(a->dst)), 0);
	KUNIT_EXPECT_EQ_MSG(test, r->id->route.addr.dev_addr.bound_dev_if,
			    ifindex, "the refused call changed the interface");
	KUNIT_EXPECT_EQ(test, rdma_resolve_route(r->id, 2000), 0);
	KUNIT_EXPECT_TRUE(test, rg_wait(r, 2));
	rg_expect(test, r, want_r, ARRAY_SIZE(want_r));
	rg_destroy(r);

	l = rg_new(test);
	l->ret_on = RDMA_CM_EVENT_CONNECT_REQUEST + 1;
	KUNIT_ASSERT_EQ(test, rg_bind(l, RG_IP, 18806), 0);
	KUNIT_ASSERT_EQ(test, rdma_listen(l->id, 8), 0);
	a->lsrc = l->id->route.addr.src_addr;
	KUNIT_EXPECT_EQ(test, rdma_resolve_addr(l->id, NULL,
						(struct sockaddr *)&a->ll, 2000),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, rg_state_of(l->id), XCMA_FSM_LISTEN);
	KUNIT_EXPECT_EQ(test, memcmp(&a->lsrc, &l->id->route.addr.src_addr,
				     sizeof(a->lsrc)), 0);
	KUNIT_EXPECT_EQ(test, rdma_resolve_route(l->id, 2000), -EINVAL);

	/* the listener still listens: a REQ reaches it (and is refused) */
	c = rg_new(test);
	KUNIT_ASSERT_EQ(test, rg_resolve_addr(c, NULL, RG_IP, 18806), 0);
	KUNIT_ASSERT_TRUE(test, rg_wait(c, 1));
	KUNIT_ASSERT_EQ(test, rdma_resolve_route(c->id, 2000), 0);
	KUNIT_ASSERT_TRUE(test, rg_wait(c, 2));
	KUNIT_ASSERT_EQ(test, rdma_connect(c->id, (struct rdma_conn_param *)
					   &rg_param), 0);
	KUNIT_EXPECT_TRUE(test, rg_wait(c, 3));
	KUNIT_EXPECT_EQ(test, c->ev[2], RDMA_CM_EVENT_REJECTED);
	KUNIT_EXPECT_EQ(test, c->st[2], IB_CM_REJ_CONSUMER_DEFINED);
	/* the conn id's context is the listener's: its log has the REQ */
	KUNIT_EXPECT_TRUE(test, rg_wait(l, 1));
	rg_destroy(c);
	rg_destroy(l);
	rg_expect_clean(test);
}

/*
 * rdma_listen() on an id whose bind failed. in-tree: "RDMA/cma: Do not
 * change route.addr.src_addr.ss_family" (bc0bdc5afaa7, syzbot: a
 * listener freed without cancelling its listens)
 *
 * A bind to an address no device has fails (-EADDRNOTAVAIL) and leaves
 * the id IDLE with no port; rdma_listen() then binds it to the IPv4
 * wildcard itself and listens on every device; its destroy leaves nothing.
 * A listen after a bind refused for the wrong family is the same.
 */
static void listen_after_failed_bind(struct kunit *test)
{
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	struct rg_id *r;

	r = rg_new(test);
	KUNIT_EXPECT_EQ(test, rg_bind(r, "10.99.0.99", 18807), -EADDRNOTAVAIL);
	KUNIT_EXPECT_EQ(test, rdma_bind_addr(r->id, (struct sockaddr *)&un),
			-EAFNOSUPPORT);
	KUNIT_EXPECT_EQ(test, rg_state_of(r->id), XCMA_FSM_IDLE);
	KUNIT_EXPECT_EQ(test, xcma_port_owners(&init_net, RDMA_PS_TCP, 18807),
			0U);
	KUNIT_EXPECT_EQ(test, atomic_read(&rg.gids), 0);
	KUNIT_EXPECT_NULL(test, r->id->device);

	KUNIT_ASSERT_EQ(test, rdma_listen(r->id, 8), 0);
	KUNIT_EXPECT_EQ(test, rg_state_of(r->id), XCMA_FSM_LISTEN);
	KUNIT_EXPECT_EQ(test, r->id->route.addr.src_addr.ss_family, AF_INET);
	KUNIT_EXPECT_NULL(test, r->id->device);
	/* one child, with its ib_cm listen, per device */
	KUNIT_EXPECT_EQ(test, rg_tracked(), rg_devices());
	KUNIT_EXPECT_EQ(test, xcma_id_live(), rg_base_ids + 1 + rg_devices());
	rg_destroy(r);
	KUNIT_EXPECT_EQ(test, r->n, 0);
	rg_expect_clean(test);
}

/*
 * rdma_bind_addr() twice, and the port after destroy. in-tree: "RDMA/core:
 * Refactor rdma_bind_addr" (8d037973d48c), "RDMA/cma: Protect bind_list
 * and listen_list while finding matching cm id" (730c89124841)
 *
 * The second bind is refused (-EINVAL) and changes nothing: same source,
 * one port owned, one hold on rxe0, one GID attribute. Another id cannot
 * take the port (-EADDRINUSE); once the first is destroyed it can.
 */
static void bind_twice_then_port_reuse(struct kunit *test)
{
	struct sockaddr_storage src;
	struct rg_id *r, *o;

	r = rg_new(test);
	KUNIT_ASSERT_EQ(test, rg_bind(r, RG_IP, 18808), 0);
	src = r->id->route.addr.src_addr;
	KUNIT_EXPECT_EQ(test, rg_bind(r, RG_IP, 18809), -EINVAL);
	KUNIT_EXPECT_EQ(test, rg_bind(r, NULL, 18808), -EINVAL);
	KUNIT_EXPECT_EQ(test, memcmp(&src, &r->id->route.addr.src_addr,
				     sizeof(src)), 0);
	KUNIT_EXPECT_EQ(test, rg_state_of(r->id), XCMA_FSM_ADDR_BOUND);
	KUNIT_EXPECT_EQ(test, xcma_port_owners(&init_net, RDMA_PS_TCP, 18808),
			1U);
	KUNIT_EXPECT_EQ(test, xcma_port_owners(&init_net, RDMA_PS_TCP, 18809),
			0U);
	KUNIT_EXPECT_EQ(test, rg_holders(test, "rxe0"), 1U);
	KUNIT_EXPECT_EQ(test, atomic_read(&rg.gids), 1);

	o = rg_new(test);
	KUNIT_EXPECT_EQ(test, rg_bind(o, RG_IP, 18808), -EADDRINUSE);
	KUNIT_EXPECT_EQ(test, rg_state_of(o->id), XCMA_FSM_IDLE);
	KUNIT_ASSERT_EQ(test, rdma_listen(r->id, 8), 0);
	rg_destroy(r);
	KUNIT_EXPECT_EQ(test, xcma_port_owners(&init_net, RDMA_PS_TCP, 18808),
			0U);
	KUNIT_EXPECT_EQ(test, rg_bind(o, RG_IP, 18808), 0);
	KUNIT_EXPECT_EQ(test, rdma_listen(o->id, 8), 0);
	rg_destroy(o);
	KUNIT_EXPECT_EQ(test, r->n + o->n, 0);
	rg_expect_clean(test);
}

/*
 * A listener destroyed while a connect request for it is being set up,
 * and a REQ after the listener went. in-tree: "RDMA/cma: Fix locking for
 * the RDMA_CM_LISTEN state" (2020, with 2a7cec538169), "RDMA/cma: Remove
 * unneeded locking for req paths"
 *
 * The REQ is held inside ib_cm's listen callback, before xcma matched it
 * to a listener; the listener is destroyed meanwhile. The destroy returns
 * only once that callback has (its ib_cm listen is waited for); the REQ
 * then finds no listener: no conn id is made, no callback runs, and
 * ib_cm rejects it (consumer defined, as in-tree when the handler fails).
 * A REQ sent after the destroy is refused by ib_cm itself: invalid
 * service ID.
 */
static void listener_destroyed_during_req_setup(struct kunit *test)
{
	struct rg_id *l, *c, *c2;
	struct rg_async *a;

	l = rg_new(test);
	KUNIT_ASSERT_EQ(test, rg_bind(l, RG_IP, 18810), 0);
	KUNIT_ASSERT_EQ(test, rdma_listen(l->id, 8), 0);

	c = rg_new(test);
	KUNIT_ASSERT_EQ(test, rg_resolve_addr(c, NULL, RG_IP, 18810), 0);
	KUNIT_ASSERT_TRUE(test, rg_wait(c, 1));
	KUNIT_ASSERT_EQ(test, rdma_resolve_route(c->id, 2000), 0);
	KUNIT_ASSERT_TRUE(test, rg_wait(c, 2));
	KUNIT_ASSERT_EQ(test, cm_make_qp(c->id, &c->pd, &c->cq), 0);
	rg.hold_req = true;
	KUNIT_ASSERT_EQ(test, rdma_connect(c->id, (struct rdma_conn_param *)
					   &rg_param), 0);
	KUNIT_ASSERT_TRUE(test, rg_entered(&rg.req_entered));

	a = rg_async_start(test, rg_do_destroy, l);
	msleep(200);
	KUNIT_EXPECT_FALSE_MSG(test, completion_done(&a->done),
			       "destroy returned while ib_cm ran its listen callback");
	complete(&rg.req_release);
	KUNIT_ASSERT_TRUE(test, rg_async_wait(a));
	rg_async_free(a);
	KUNIT_EXPECT_EQ(test, READ_ONCE(rg.req_ret), -EINVAL);
	KUNIT_EXPECT_EQ(test, l->n, 0);
	KUNIT_EXPECT_TRUE(test, rg_wait(c, 3));
	KUNIT_EXPECT_EQ(test, c->ev[2], RDMA_CM_EVENT_REJECTED);
	KUNIT_EXPECT_EQ(test, c->st[2], IB_CM_REJ_CONSUMER_DEFINED);
	KUNIT_EXPECT_EQ(test, xcma_id_live(), rg_base_ids + 1);

	c2 = rg_new(test);
	KUNIT_ASSERT_EQ(test, rg_resolve_addr(c2, NULL, RG_IP, 18810), 0);
	KUNIT_ASSERT_TRUE(test, rg_wait(c2, 1));
	KUNIT_ASSERT_EQ(test, rdma_resolve_route(c2->id, 2000), 0);
	KUNIT_ASSERT_TRUE(test, rg_wait(c2, 2));
	KUNIT_ASSERT_EQ(test, rdma_connect(c2->id, (struct rdma_conn_param *)
					   &rg_param), 0);
	KUNIT_EXPECT_TRUE(test, rg_wait(c2, 3));
	KUNIT_EXPECT_EQ(test, c2->ev[2], RDMA_CM_EVENT_REJECTED);
	KUNIT_EXPECT_EQ(test, c2->st[2], IB_CM_REJ_INVALID_SERVICE_ID);
	msleep(20);
	KUNIT_EXPECT_EQ(test, l->n, 0);
	rg_destroy(c);
	rg_destroy(c2);
	rg_expect_clean(test);
}

/*
 * rdma_listen() on an id that is not ADDR_BOUND. in-tree: "RDMA/cma: Do
 * not change route.addr.src_addr.ss_family" (bc0bdc5afaa7, syzbot: the
 * refused listen rewrote a listener's address family, and its destroy
 * then missed its per-device listens)
 *
 * An IPv6 wildcard listener listens again: -EINVAL, still LISTEN, still
 * AF_INET6, one child per device as before; reuseaddr cannot be set on
 * it (-EINVAL). An ADDR_RESOLVED id is refused the same way. Destroying
 * the listener takes all its children and their ib_cm listens with it.
 */
static void listen_on_non_bound_id(struct kunit *test)
{
	struct sockaddr_storage any6;
	struct rg_id *l, *r;

	l = rg_new(test);
	cm_addr6(&any6, NULL, 18824);
	KUNIT_ASSERT_EQ(test, rdma_bind_addr(l->id, (struct sockaddr *)&any6),
			0);
	KUNIT_ASSERT_EQ(test, rdma_listen(l->id, 8), 0);
	KUNIT_EXPECT_EQ(test, rg_tracked(), rg_devices());
	KUNIT_EXPECT_EQ(test, rdma_listen(l->id, 8), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdma_set_reuseaddr(l->id, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, rg_state_of(l->id), XCMA_FSM_LISTEN);
	KUNIT_EXPECT_EQ(test, l->id->route.addr.src_addr.ss_family, AF_INET6);
	KUNIT_EXPECT_EQ(test, rg_tracked(), rg_devices());
	KUNIT_EXPECT_EQ(test, xcma_id_live(), rg_base_ids + 1 + rg_devices());

	r = rg_new(test);
	KUNIT_ASSERT_EQ(test, rg_resolve_addr(r, NULL, RG_IP, 18825), 0);
	KUNIT_ASSERT_TRUE(test, rg_wait(r, 1));
	KUNIT_EXPECT_EQ(test, rdma_listen(r->id, 8), -EINVAL);
	KUNIT_EXPECT_EQ(test, rg_state_of(r->id), XCMA_FSM_ADDR_RESOLVED);
	KUNIT_EXPECT_EQ(test, r->id->route.addr.src_addr.ss_family, AF_INET);
	rg_destroy(r);
	rg_destroy(l);
	KUNIT_EXPECT_EQ(test, l->n, 0);
	rg_expect_clean(test);
}

/*
 * A wildcard listener whose per-device listen fails. in-tree: "RDMA/cma:
 * Fix listener leak in rdma_cma_listen_on_all() failure" (ca465e1f1f9b),
 * "RDMA/cma: Add missing error handling of listen_id" (c80a0c52d85c)
 *
 * ib_cm_insert_listen() fails for rxe0: rdma_listen() returns its errno,
 * the id is ADDR_BOUND again with no child and no ib_cm listen, and a
 * second rdma_listen() works.
 */
static void wildcard_listen_failure_leaks_nothing(struct kunit *test)
{
	struct rg_id *r;

	r = rg_new(test);
	KUNIT_ASSERT_EQ(test, rg_bind(r, NULL, 18811), 0);
	rg.listen_err = -ENOMEM;
	KUNIT_EXPECT_EQ(test, rdma_listen(r->id, 8), -ENOMEM);
	KUNIT_EXPECT_EQ(test, rg_state_of(r->id), XCMA_FSM_ADDR_BOUND);
	KUNIT_EXPECT_EQ(test, xcma_id_live(), rg_base_ids + 1);
	KUNIT_EXPECT_EQ(test, rg_tracked(), 0);
	rg.listen_err = 0;
	KUNIT_EXPECT_EQ(test, rdma_listen(r->id, 8), 0);
	KUNIT_EXPECT_EQ(test, rg_state_of(r->id), XCMA_FSM_LISTEN);
	KUNIT_EXPECT_EQ(test, rg_tracked(), rg_devices());
	rg_destroy(r);
	KUNIT_EXPECT_EQ(test, r->n, 0);
	rg_expect_clean(test);
}

/*
 * A wildcard listener torn down while a device is added. in-tree:
 * "RDMA/cma: Fix deadlock on &lock in rdma_cma_listen_on_all() error
 * unwind" (dd37d2f59eb8), "RDMA/cma: Fix listener leak in
 * rdma_cma_listen_on_all() failure" (ca465e1f1f9b)
 *
 * rxe1 is added while a wildcard listener exists: xcma's .add makes the
 * listener a child on rxe1, whose ib_cm listen is held. The listener is
 * destroyed meanwhile: the destroy waits for the add (it must claim that
 * child too), the add completes, and then no child of the listener is
 * left on either device: no ib_cm listen, no id, no holder; rxe1 is
 * usable. No callback reaches the listener.
 */
static void wildcard_listener_destroyed_during_add(struct kunit *test)
{
	struct rg_cmd cmd = { test, RG_RXE1_ADD };
	struct rg_async *add, *des;
	struct rg_id *r;
	bool ended;

	rg_rxe1_setup(test, false);
	r = rg_new(test);
	KUNIT_ASSERT_EQ(test, rg_bind(r, NULL, 18812), 0);
	KUNIT_ASSERT_EQ(test, rdma_listen(r->id, 8), 0);
	KUNIT_EXPECT_EQ(test, rg_tracked(), rg_devices());

	rg.listen_dev = "rxe1";
	add = rg_async_start(test, rg_do_cmd, &cmd);
	if (!wait_for_completion_timeout(&rg.listen_entered,
					 msecs_to_jiffies(RG_WAIT_MS))) {
		KUNIT_FAIL(test, "xcma's .add never listened on rxe1");
		rg_async_wait(add);
		rg_async_free(add);
		rg_destroy(r);
		return;
	}
	des = rg_async_start(test, rg_do_destroy, r);
	msleep(200);
	KUNIT_EXPECT_FALSE_MSG(test, completion_done(&des->done),
			       "destroy returned while .add made its child");
	complete(&rg.listen_release);
	ended = rg_async_wait(des);
	ended = rg_async_wait(add) && ended;
	KUNIT_ASSERT_TRUE(test, ended);
	KUNIT_EXPECT_EQ(test, add->ret, 0);
	rg_async_free(des);
	rg_async_free(add);

	KUNIT_EXPECT_EQ(test, r->n, 0);
	KUNIT_EXPECT_TRUE(test, rg_rxe1_present());
	KUNIT_EXPECT_EQ(test, rg_holders(test, "rxe1"), 0U);
	KUNIT_EXPECT_EQ(test, rg_wait_gid(RG_IP1), 0);
	rg_expect_clean(test);
}

struct rqcase {
	const char *name;
	bool unplug_in_callback;
};

static const struct rqcase route_cases[] = {
	{ "completion_pending", false },
	{ "completion_runs_during_removal", true },
};

static void rqcase_desc(const struct rqcase *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(route_query, route_cases, rqcase_desc);

/*
 * A device removed while a route query is in flight. in-tree: "RDMA/cma:
 * Using the standard locking pattern when delivering the removal event"
 * (2020), "RDMA/cma: Fix rdma_resolve_route() memory leak" (2021)
 *
 * The id is ROUTE_QUERY on rxe1, its completion held behind a plug, when
 * rxe1 is deleted. It gets exactly one DEVICE_REMOVAL (G4) and returns
 * non-zero (G3). The completion is either still queued (it is cancelled,
 * its reference given back) or let go inside the DEVICE_REMOVAL callback
 * (it runs while the removal does, and is dropped): no ROUTE_RESOLVED, ever.
 */
static void device_removed_during_route_query(struct kunit *test)
{
	const struct rqcase *c = test->param_value;
	static const int want[] = { RDMA_CM_EVENT_ADDR_RESOLVED,
				    RDMA_CM_EVENT_DEVICE_REMOVAL };
	struct rg_id *r;

	rg_rxe1_setup(test, true);
	r = rg_new(test);
	r->ret_on = RDMA_CM_EVENT_DEVICE_REMOVAL + 1;
	r->unplug_on_removal = c->unplug_in_callback;
	KUNIT_ASSERT_EQ(test, rg_resolve_addr(r, RG_IP1, RG_IP1, 18813), 0);
	KUNIT_ASSERT_TRUE(test, rg_wait(r, 1));
	KUNIT_ASSERT_EQ(test, r->ev[0], RDMA_CM_EVENT_ADDR_RESOLVED);
	KUNIT_ASSERT_STREQ(test, dev_name(&r->id->device->dev), "rxe1");
	queue_work(rg.plug_wq, &rg.plug);
	WRITE_ONCE(rg.plugging, true);
	KUNIT_ASSERT_EQ(test, rdma_resolve_route(r->id, 2000), 0);
	KUNIT_EXPECT_EQ(test, rg_state_of(r->id), XCMA_FSM_ROUTE_QUERY);

	KUNIT_EXPECT_EQ(test, xcma_kunit_run(test, RG_RXE1_DEL), 0);
	KUNIT_EXPECT_FALSE(test, rg_rxe1_present());
	/* the CM destroyed it on return: nothing of it is left */
	KUNIT_EXPECT_EQ(test, xcma_id_live(), rg_base_ids);
	rg_unplug();
	flush_workqueue(rg.plug_wq);
	msleep(20);
	rg_expect(test, r, want, ARRAY_SIZE(want));
	rg_expect_clean(test);
}

/*
 * The netdev address removed under ids that use it. in-tree: "RDMA/cma:
 * Fix hang when cma_netevent_callback fails to queue_work" (92a251c3df8e)
 * and the netdev notifier's other fixes. xcma has no netdev notifier yet
 * (no ADDR_CHANGE): this checks what exists.
 *
 * One id is bound to 10.98.0.1 (rxe1, holding a GID attribute), another
 * resolving from it (the query parked), when the address is deleted from
 * xr0: neither hears anything; the query then fails (-ENETUNREACH, as
 * ib_addr reports it) and the id is back in ADDR_BOUND; the address no
 * longer binds (-EADDRNOTAVAIL); destroying both lets go of the GID
 * attributes of an entry ib_core has deleted meanwhile, and of rxe1.
 */
static void netdev_address_removed_under_ids(struct kunit *test)
{
	static const int want_b[] = { RDMA_CM_EVENT_ADDR_ERROR };
	struct rg_id *a, *b, *n;

	rg_rxe1_setup(test, true);
	a = rg_new(test);
	KUNIT_ASSERT_EQ(test, rg_bind(a, RG_IP1, 18814), 0);
	b = rg_new(test);
	rg.park = true;
	KUNIT_ASSERT_EQ(test, rg_resolve_addr(b, RG_IP1, "10.98.0.2", 18815),
			0);
	KUNIT_EXPECT_EQ(test, rg_holders(test, "rxe1"), 2U);
	KUNIT_EXPECT_EQ(test, atomic_read(&rg.gids), 2);

	KUNIT_ASSERT_EQ(test, xcma_kunit_run(test, RG_ADDR_DEL), 0);
	msleep(100);
	KUNIT_EXPECT_EQ(test, a->n + b->n, 0);
	KUNIT_EXPECT_EQ(test, rg_state_of(a->id), XCMA_FSM_ADDR_BOUND);
	KUNIT_EXPECT_EQ(test, rg_state_of(b->id), XCMA_FSM_ADDR_QUERY);
	KUNIT_EXPECT_TRUE(test, rg_kick(-ENETUNREACH));
	KUNIT_EXPECT_TRUE(test, rg_wait(b, 1));
	rg_expect(test, b, want_b, ARRAY_SIZE(want_b));
	KUNIT_EXPECT_EQ(test, b->st[0], -ENETUNREACH);
	KUNIT_EXPECT_EQ(test, rg_state_of(b->id), XCMA_FSM_ADDR_BOUND);

	n = rg_new(test);
	KUNIT_EXPECT_EQ(test, rg_bind(n, RG_IP1, 0), -EADDRNOTAVAIL);
	rg_destroy(n);
	rg_destroy(a);
	rg_destroy(b);
	KUNIT_EXPECT_EQ(test, a->n, 0);
	KUNIT_EXPECT_EQ(test, rg_holders(test, "rxe1"), 0U);
	rg_expect_clean(test);
	KUNIT_EXPECT_EQ(test, xcma_kunit_run(test, RG_ADDR_ADD), 0);
	KUNIT_EXPECT_EQ(test, rg_wait_gid(RG_IP1), 0);
}

/*
 * An id destroyed right after it was made, or right after an operation
 * failed. in-tree: the restrack class ("an id destroyed before its
 * restrack entry was added", e.g. with "RDMA/cma: Add missing error
 * handling of listen_id", c80a0c52d85c). xcma has no restrack entries
 * yet: this is the same early-destroy path without them.
 *
 * Each step, then destroy: no event, nothing left (ids, module references,
 * ib_cm ids, GID attributes, holders); the parked query is cancelled
 * exactly once. Errnos as in-tree: an address no device has binds with
 * -EADDRNOTAVAIL; rdma_resolve_ip()'s own refusal is returned as is and
 * the id is ADDR_BOUND again; a failed listen leaves it ADDR_BOUND.
 */
static void destroy_early(struct kunit *test)
{
	struct rg_id *r;
	int step;

	for (step = 0; step < 5; step++) {
		r = rg_new(test);
		switch (step) {
		case 0:
			break;
		case 1:
			KUNIT_EXPECT_EQ(test, rg_bind(r, "10.99.0.99", 0),
					-EADDRNOTAVAIL);
			break;
		case 2:
			rg.resolve_err = -ENETUNREACH;
			KUNIT_EXPECT_EQ(test, rg_resolve_addr(r, RG_IP, RG_IP,
							      18816),
					-ENETUNREACH);
			KUNIT_EXPECT_EQ(test, rg_state_of(r->id),
					XCMA_FSM_ADDR_BOUND);
			break;
		case 3:
			KUNIT_EXPECT_EQ(test, rg_bind(r, RG_IP, 18817), 0);
			rg.listen_err = -ENOMEM;
			KUNIT_EXPECT_EQ(test, rdma_listen(r->id, 1), -ENOMEM);
			rg.listen_err = 0;
			KUNIT_EXPECT_EQ(test, rg_state_of(r->id),
					XCMA_FSM_ADDR_BOUND);
			break;
		case 4:
			rg.park = true;
			rg.ncalls = 0;
			KUNIT_EXPECT_EQ(test, rg_resolve_addr(r, RG_IP, RG_IP,
							      18818), 0);
			break;
		}
		rg_destroy(r);
		KUNIT_EXPECT_EQ_MSG(test, r->n, 0, "step %d: an event", step);
		if (step == 4) {
			KUNIT_EXPECT_EQ(test, rg.qstate, RG_Q_CANCELLED);
			KUNIT_EXPECT_EQ(test, rg.ncalls, 2);
		}
		rg_expect_clean(test);
	}
}

/*
 * Operations on an id that is not (or no longer) a connection request or
 * a connection. in-tree: "RDMA/ucma: Check that device is connected prior
 * to access it", "RDMA/ucma: Check that device exists prior to accessing
 * it" (2018, syzbot), "RDMA/cma: Add missing locking to rdma_accept()"
 * (d114c6feedfe)
 *
 * rdma_reject(), rdma_notify() and rdma_accept() on an IDLE id, an
 * ADDR_RESOLVED one and a listener on rxe0 all fail with -EINVAL, as do
 * rdma_connect() on all three and rdma_disconnect() on the first two (on
 * a listener bound to a device the in-tree CM sends nothing and returns
 * 0); nothing is sent, nothing changes state.
 */
static void ops_on_non_connection_ids(struct kunit *test)
{
	struct rdma_conn_param param = rg_param;
	struct rg_id *ids[3];
	unsigned int st;
	int i, ret;

	ids[0] = rg_new(test);
	ids[1] = rg_new(test);
	KUNIT_ASSERT_EQ(test, rg_resolve_addr(ids[1], NULL, RG_IP, 18819), 0);
	KUNIT_ASSERT_TRUE(test, rg_wait(ids[1], 1));
	ids[2] = rg_new(test);
	KUNIT_ASSERT_EQ(test, rg_bind(ids[2], RG_IP, 18820), 0);
	KUNIT_ASSERT_EQ(test, rdma_listen(ids[2]->id, 1), 0);
	for (i = 0; i < 3; i++) {
		struct rdma_cm_id *id = ids[i]->id;

		st = rg_state_of(id);
		KUNIT_EXPECT_EQ_MSG(test, rdma_reject(id, NULL, 0,
						      IB_CM_REJ_CONSUMER_DEFINED),
				    -EINVAL, "reject, id %d", i);
		/* in-tree, a listener's disconnect is a no-op returning 0 */
		if (i < 2)
			KUNIT_EXPECT_EQ_MSG(test, rdma_disconnect(id), -EINVAL,
					    "disconnect, id %d", i);
		KUNIT_EXPECT_EQ_MSG(test, rdma_notify(id, IB_EVENT_COMM_EST),
				    -EINVAL, "notify, id %d", i);
		rdma_lock_handler(id);
		ret = rdma_accept(id, &param);
		rdma_unlock_handler(id);
		KUNIT_EXPECT_EQ_MSG(test, ret, -EINVAL, "accept, id %d", i);
		KUNIT_EXPECT_EQ_MSG(test, rdma_connect(id, &param), -EINVAL,
				    "connect, id %d", i);
		KUNIT_EXPECT_EQ(test, rg_state_of(id), st);
	}
	KUNIT_EXPECT_EQ(test, rg_tracked(), 1);
	for (i = 0; i < 3; i++)
		rg_destroy(ids[i]);
	KUNIT_EXPECT_EQ(test, ids[0]->n + ids[2]->n, 0);
	KUNIT_EXPECT_EQ(test, ids[1]->n, 1);
	rg_expect_clean(test);
}

/* a connected pair over rxe0: a client rg_id and a listener's conn id */
struct rg_pair {
	struct side *ss;
	struct rdma_cm_id *lis;
	struct rg_id *c;
};

static void rg_pair_connect(struct kunit *test, struct rg_pair *p, u16 port)
{
	struct sockaddr_storage l;

	p->ss = cm_new_side(test);
	p->ss->action = REQ_ACCEPT;
	cm_addr4(&l, RG_IP, port);
	p->lis = cm_new_id(test, p->ss, IB_QPT_RC);
	p->ss->listener = p->lis;
	KUNIT_ASSERT_EQ(test, rdma_bind_addr(p->lis, (struct sockaddr *)&l), 0);
	KUNIT_ASSERT_EQ(test, rdma_listen(p->lis, 8), 0);
	p->c = rg_new(test);
	KUNIT_ASSERT_EQ(test, rg_resolve_addr(p->c, NULL, RG_IP, port), 0);
	KUNIT_ASSERT_TRUE(test, rg_wait(p->c, 1));
	KUNIT_ASSERT_EQ(test, cm_make_qp(p->c->id, &p->c->pd, &p->c->cq), 0);
	KUNIT_ASSERT_EQ(test, rdma_resolve_route(p->c->id, 2000), 0);
	KUNIT_ASSERT_TRUE(test, rg_wait(p->c, 2));
	KUNIT_ASSERT_EQ(test, rdma_connect(p->c->id, (struct rdma_conn_param *)
					   &rg_param), 0);
	KUNIT_ASSERT_TRUE(test, rg_wait(p->c, 3));
	KUNIT_ASSERT_EQ(test, p->c->ev[2], RDMA_CM_EVENT_ESTABLISHED);
	KUNIT_ASSERT_TRUE(test, cm_wait_events(p->ss, true, 2));
	KUNIT_ASSERT_NOT_NULL(test, p->ss->conn);
}

static void rg_pair_destroy(struct rg_pair *p)
{
	rg_destroy(p->c);
	if (p->ss->conn) {
		cm_free_qp(p->ss->conn, p->ss->pd, p->ss->cq);
		rdma_destroy_id(p->ss->conn);
	}
	rdma_destroy_id(p->lis);
}

/*
 * rdma_connect() and rdma_accept() after rdma_disconnect(). in-tree:
 * "RDMA/cma: Fix locking for the RDMA_CM_CONNECT state" (2a7cec538169)
 *
 * Once the client disconnected, a connect on it is refused (-EINVAL: not
 * ROUTE_RESOLVED) and so is an accept on the server's conn id after its
 * DISCONNECTED; a second disconnect returns 0 (its DREQ is outstanding or
 * answered, as in-tree). Each end gets one DISCONNECTED.
 */
static void connect_after_disconnect(struct kunit *test)
{
	static const int want_c[] = { RDMA_CM_EVENT_ADDR_RESOLVED,
				      RDMA_CM_EVENT_ROUTE_RESOLVED,
				      RDMA_CM_EVENT_ESTABLISHED,
				      RDMA_CM_EVENT_DISCONNECTED,
				      RDMA_CM_EVENT_TIMEWAIT_EXIT };
	struct rdma_conn_param param = rg_param;
	struct rg_pair p = {};
	int ret;

	rg_pair_connect(test, &p, 18821);
	KUNIT_EXPECT_EQ(test, rdma_disconnect(p.c->id), 0);
	KUNIT_EXPECT_EQ(test, rdma_connect(p.c->id, &param), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdma_disconnect(p.c->id), 0);
	KUNIT_ASSERT_TRUE(test, cm_wait_events(p.ss, true, 3));
	KUNIT_EXPECT_EQ(test, p.ss->cev[2], RDMA_CM_EVENT_DISCONNECTED);
	rdma_lock_handler(p.ss->conn);
	ret = rdma_accept(p.ss->conn, &param);
	rdma_unlock_handler(p.ss->conn);
	KUNIT_EXPECT_EQ(test, ret, -EINVAL);
	KUNIT_EXPECT_EQ(test, rdma_disconnect(p.ss->conn), 0);
	KUNIT_EXPECT_TRUE(test, rg_wait(p.c, 5));
	KUNIT_EXPECT_TRUE(test, cm_wait_events(p.ss, true, 4));
	KUNIT_EXPECT_EQ(test, rdma_connect(p.c->id, &param), -EINVAL);
	msleep(20);
	rg_expect(test, p.c, want_c, ARRAY_SIZE(want_c));
	KUNIT_EXPECT_EQ(test, rg_state_of(p.c->id), XCMA_FSM_DISCONNECT);
	rg_pair_destroy(&p);
	rg_expect_clean(test);
}

/*
 * A DREQ racing destroy. in-tree: "RDMA/cma: Execute rdma_cm destruction
 * from a handler properly" (f6a9d47ae685), "RDMA/cma: Fix locking for the
 * RDMA_CM_CONNECT state" (2a7cec538169)
 *
 * The server disconnects; the client's DISCONNECTED callback is held when
 * another thread destroys the client: the destroy returns only after the
 * callback did (G2), the client hears nothing more (no TIMEWAIT_EXIT),
 * and the destroy of its ib_cm id answers the DREQ with a DREP: the server
 * gets DISCONNECTED, then TIMEWAIT_EXIT.
 */
static void dreq_races_destroy(struct kunit *test)
{
	static const int want_c[] = { RDMA_CM_EVENT_ADDR_RESOLVED,
				      RDMA_CM_EVENT_ROUTE_RESOLVED,
				      RDMA_CM_EVENT_ESTABLISHED,
				      RDMA_CM_EVENT_DISCONNECTED };
	static const int want_s[] = { RDMA_CM_EVENT_CONNECT_REQUEST,
				      RDMA_CM_EVENT_ESTABLISHED,
				      RDMA_CM_EVENT_DISCONNECTED,
				      RDMA_CM_EVENT_TIMEWAIT_EXIT };
	struct rg_pair p = {};
	struct rg_async *a;

	rg_pair_connect(test, &p, 18822);
	p.c->block_on = RDMA_CM_EVENT_DISCONNECTED + 1;
	KUNIT_EXPECT_EQ(test, rdma_disconnect(p.ss->conn), 0);
	KUNIT_ASSERT_TRUE(test, rg_entered(&p.c->entered));
	cm_free_qp(p.c->id, p.c->pd, p.c->cq);
	p.c->pd = NULL;
	a = rg_async_start(test, rg_do_destroy, p.c);
	msleep(200);
	KUNIT_EXPECT_FALSE_MSG(test, completion_done(&a->done),
			       "destroy returned during the DISCONNECTED callback");
	complete(&p.c->release);
	KUNIT_ASSERT_TRUE(test, rg_async_wait(a));
	rg_async_free(a);
	KUNIT_EXPECT_TRUE(test, cm_wait_events(p.ss, true, 4));
	msleep(50);
	rg_expect(test, p.c, want_c, ARRAY_SIZE(want_c));
	cm_expect_events(test, p.ss, true, want_s, ARRAY_SIZE(want_s));
	rg_pair_destroy(&p);
	rg_expect_clean(test);
}

/*
 * A conn id destroyed by its CONNECT_REQUEST callback, and its ib_cm id
 * afterwards. in-tree: "RDMA/cma: Execute rdma_cm destruction from a
 * handler properly" (f6a9d47ae685)
 *
 * The conn id rejects and returns non-zero: ib_cm destroys the ib_cm id
 * it came with, so whatever the client does next (its REJECTED, its
 * destroy) must not reach the freed conn id; the listener takes the next
 * REQ as before, on a new conn id.
 */
static void conn_destroyed_in_request_callback(struct kunit *test)
{
	struct rdma_cm_id *lis;
	struct sockaddr_storage l;
	struct rg_id *c[2];
	struct side *ss;
	int i;

	ss = cm_new_side(test);
	ss->action = REQ_REJECT;
	cm_addr4(&l, RG_IP, 18823);
	lis = cm_listen(test, ss, &l);
	for (i = 0; i < 2; i++) {
		c[i] = rg_new(test);
		KUNIT_ASSERT_EQ(test, rg_resolve_addr(c[i], NULL, RG_IP, 18823),
				0);
		KUNIT_ASSERT_TRUE(test, rg_wait(c[i], 1));
		KUNIT_ASSERT_EQ(test, rdma_resolve_route(c[i]->id, 2000), 0);
		KUNIT_ASSERT_TRUE(test, rg_wait(c[i], 2));
		KUNIT_ASSERT_EQ(test, rdma_connect(c[i]->id,
						   (struct rdma_conn_param *)&rg_param),
				0);
		KUNIT_EXPECT_TRUE(test, rg_wait(c[i], 3));
		KUNIT_EXPECT_EQ(test, c[i]->ev[2], RDMA_CM_EVENT_REJECTED);
		KUNIT_EXPECT_EQ(test, c[i]->st[2], IB_CM_REJ_CONSUMER_DEFINED);
		rg_destroy(c[i]);
	}
	/* each REQ is recorded after its REJ is sent: wait for both */
	KUNIT_EXPECT_TRUE(test, cm_wait_events(ss, true, 2));
	msleep(50);
	KUNIT_EXPECT_EQ(test, ss->cn, 2);
	KUNIT_EXPECT_EQ(test, ss->nconns, 2);
	KUNIT_EXPECT_EQ(test, ss->err, 0);
	KUNIT_EXPECT_EQ(test, ss->n, 0);
	rdma_destroy_id(lis);
	rg_expect_clean(test);
}

static void rg_run_quiet(char *cmd)
{
	char home[] = "HOME=/", path[] = "PATH=/bin:/sbin:/usr/bin:/usr/sbin";
	char *envp[3] = { home, path, NULL };
	char *argv[8], *p;
	int argc = 0;

	for (p = strsep(&cmd, " "); p && argc < 7; p = strsep(&cmd, " "))
		argv[argc++] = p;
	argv[argc] = NULL;
	call_usermodehelper(argv[0], argv, envp, UMH_WAIT_PROC);
}

/*
 * Suites before this one delete and re-add rxe0, whose GIDs come back a
 * little later: wait until 10.99.0.1 binds.
 */
static int regress_suite_init(struct kunit_suite *suite)
{
	return rg_wait_gid(RG_IP);
}

/* rxe1 and xr0 go, whatever the cases left */
static void regress_suite_exit(struct kunit_suite *suite)
{
	char rxe1[] = RG_RXE1_DEL, xr0[] = RG_NETDEV_DEL;

	if (rg_rxe1_present())
		rg_run_quiet(rxe1);
	rg_run_quiet(xr0);
}

static struct kunit_case regress_cases[] = {
	KUNIT_CASE(destroy_by_return_races_rep),
	KUNIT_CASE(resolve_addr_twice_in_flight),
	KUNIT_CASE(resolve_addr_again_cancels_first),
	KUNIT_CASE(resolve_addr_refused_changes_nothing),
	KUNIT_CASE(listen_after_failed_bind),
	KUNIT_CASE(bind_twice_then_port_reuse),
	KUNIT_CASE(listener_destroyed_during_req_setup),
	KUNIT_CASE(listen_on_non_bound_id),
	KUNIT_CASE(wildcard_listen_failure_leaks_nothing),
	KUNIT_CASE(wildcard_listener_destroyed_during_add),
	KUNIT_CASE(netdev_address_removed_under_ids),
	KUNIT_CASE_PARAM(device_removed_during_route_query,
			 route_query_gen_params),
	KUNIT_CASE(destroy_early),
	KUNIT_CASE(ops_on_non_connection_ids),
	KUNIT_CASE(connect_after_disconnect),
	KUNIT_CASE(dreq_races_destroy),
	KUNIT_CASE(conn_destroyed_in_request_callback),
	{}
};

static struct kunit_suite regress_suite = {
	.name = "xcma_regress",
	.init = rg_init,
	.exit = rg_exit,
	.suite_init = regress_suite_init,
	.suite_exit = regress_suite_exit,
	.test_cases = regress_cases,
};

kunit_test_suite(regress_suite);
