// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * xcma_removal_stress: device hot-removal under load. Kthreads create,
 * bind, resolve, listen (on rxe0's address and on the wildcard address),
 * connect, accept, exchange SEND/RECV messages over RC, disconnect and
 * destroy ids with random delays, while the case thread deletes rxe0 and
 * adds it again, round after round (stress_rounds, default 200). Callbacks
 * destroy their id by returning non-zero at random, DEVICE_REMOVAL
 * included; the other ids are destroyed by their thread, soon after a
 * DEVICE_REMOVAL since the removal waits for them.
 *
 * Every id keeps a log, and what the lifecycle contract promises is
 * checked where randomness leaves it decidable:
 *   G1  no two callbacks of an id overlap
 *   G2  no callback once rdma_destroy_id() returned, none running then
 *   G3  no callback after one returned non-zero
 *   G4  at most one DEVICE_REMOVAL, and nothing after it (ids that wait
 *       for the notice to let go would hold the removal up for ever if it
 *       did not come: the hung-task detector watches the delete)
 *   G5  a removal of the device an id holds does not complete before the
 *       id is destroyed
 *   G7  a wildcard listener gets no DEVICE_REMOVAL
 *   G8  at the end of each batch every id is released, the module holds
 *       no id reference, rxe0 has no holder, the device counters add up
 * and an event reaches the id its context belongs to.
 *
 * The rounds run in batches, one parameter of the case each, so that no
 * case runs longer than the hung-task timeout of the VM while KUnit
 * waits for it; a batch starts and stops its own threads. The suite is
 * very_slow: make check runs it in a VM boot of its own.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/inet.h>
#include <linux/kthread.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/prandom.h>
#include <linux/random.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <net/net_namespace.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "../../cma/id.h"
#include "../../cma/device.h"
#include "cm_util.h"
#include "xcma/fsm.h"
#include "xcma_kunit.h"

static unsigned int stress_rounds = 200;
module_param(stress_rounds, uint, 0444);
MODULE_PARM_DESC(stress_rounds,
		 "xcma_removal_stress: device removal and re-add rounds (default 200)");

static ulong stress_seed;
module_param(stress_seed, ulong, 0444);
MODULE_PARM_DESC(stress_seed,
		 "xcma_removal_stress: seed of the threads' random choices (0: a random one, printed)");

#define ST_WORKERS 4
#define ST_LOG 16
#define ST_NEV (RDMA_CM_EVENT_TIMEWAIT_EXIT + 1)
/*
 * A round starts only if the batch, with it, likely stays under this: the
 * VM's hung-task detector (20 s) watches KUnit's runner while it waits.
 */
#define ST_BATCH_MS 12000
#define ST_WAIT_MS 4000
#define ST_MSG_LEN 32
#define ST_RECVS 2
#define ST_BUF_LEN ((1 + ST_RECVS) * ST_MSG_LEN)
#define ST_WR_SEND 1
#define ST_WR_RECV 2
#define ST_PORT_BASE 20000
#define ST_PORTS 10000

enum st_role { ST_CHURN, ST_LISTENER, ST_CLIENT, ST_SERVER };

static const char *const st_role_names[] = {
	[ST_CHURN] = "churn", [ST_LISTENER] = "listener",
	[ST_CLIENT] = "client", [ST_SERVER] = "server",
};

/* bits of st_sid.flags */
enum {
	SF_DESTROY_CALLED,	/* its thread called rdma_destroy_id() */
	SF_DESTROYED,		/* ... which returned */
	SF_BY_RETURN,		/* a callback returned non-zero */
	SF_REMOVAL,		/* DEVICE_REMOVAL came */
	SF_ADDR,		/* ADDR_RESOLVED came */
	SF_ROUTE,		/* ROUTE_RESOLVED came */
	SF_ESTABLISHED,
	SF_DISCONNECTED,
	SF_FAILED,		/* an error event came */
	SF_ATTACHED,		/* holds rxe0 (g_after is set) */
	SF_WILDCARD,		/* a listener bound to no device */
};

struct st_worker;

/**
 * struct st_sid - one id of the stress and its log
 * @node: on st.ids (st.ids_lock) until the end of its batch
 * @id: the id
 * @w: the thread that owns it
 * @role: what it is for
 * @lock: the owner's: held around every call on @id and every use of
 *	the verbs below; a callback only ever trylocks it, to destroy @id by
 *	returning non-zero when the owner is not using it
 * @flags: SF_* bits
 * @in_cb: callbacks of @id running now
 * @g_after: value of st.gen_started read after @id got rxe0: the delete
 *	numbered @g_after + 1 started later, so it removes that rxe0 unless
 *	an earlier one did, and cannot complete while @id holds it (G5)
 * @rnd: the callbacks' random choices (callbacks of an id are serialized)
 * @log_lock: protects @log and @nlog
 * @log: the events, in order
 * @nlog: how many (more than ST_LOG: the first ST_LOG are kept)
 * @conn: a listener's conn id, handed to its thread (@w->lock)
 * @pd: verbs of a client or a server conn id, NULL if none
 * @cq: its CQ, polled directly by the owner
 * @has_qp: rdma_create_qp() succeeded
 * @buf: the send slot, then ST_RECVS receive slots
 * @dma: @buf mapped for the device
 * @mapped: @dma is valid
 */
struct st_sid {
	struct list_head node;
	struct rdma_cm_id *id;
	struct st_worker *w;
	enum st_role role;
	struct mutex lock; /* see above */
	unsigned long flags;
	atomic_t in_cb;
	unsigned int g_after;
	struct rnd_state rnd;
	spinlock_t log_lock; /* see above */
	u8 log[ST_LOG];
	int nlog;
	struct st_sid *conn;
	struct ib_pd *pd;
	struct ib_cq *cq;
	bool has_qp;
	char *buf;
	u64 dma;
	bool mapped;
};

/**
 * struct st_worker - one thread of the stress
 * @task: the kthread, with a reference
 * @rnd: its random choices
 * @wq: it waits here; every callback of its ids wakes it
 * @lock: protects the @conn of its listeners
 * @attached: how many of its ids got rxe0
 */
struct st_worker {
	struct task_struct *task;
	struct rnd_state rnd;
	wait_queue_head_t wq;
	spinlock_t lock; /* see above */
	atomic_t attached;
};

/**
 * struct st_stats - what the whole run did (atomics: any thread counts)
 * @ids: ids created, conn ids included
 * @conn_ids: conn ids created by connect requests
 * @user_destroys: rdma_destroy_id() calls
 * @by_return: ids destroyed by a callback's non-zero return
 * @pairs: client/server episodes
 * @churns: single-id episodes
 * @connections: pairs whose both ends saw ESTABLISHED
 * @messages: SEND/RECV messages received intact
 * @refused: operations refused or failed (rxe0 absent, port in use...),
 *	which is allowed
 * @events: callbacks by event type
 */
struct st_stats {
	atomic_long_t ids;
	atomic_long_t conn_ids;
	atomic_long_t user_destroys;
	atomic_long_t by_return;
	atomic_long_t pairs;
	atomic_long_t churns;
	atomic_long_t connections;
	atomic_long_t messages;
	atomic_long_t refused;
	atomic_long_t events[ST_NEV];
};

static struct {
	struct st_worker workers[ST_WORKERS];
	spinlock_t ids_lock; /* protects ids */
	struct list_head ids;
	struct rnd_state rnd;	/* the case thread's */
	atomic_t gen_started;	/* rdma link delete calls started */
	atomic_t gen_done;	/* ... and returned */
	atomic_t port;
	bool stop;
	bool aborted;
	int base_refs;
	u64 seed;
	unsigned int rounds;
	unsigned int batches;
	u64 delete_ns, add_ns, round_ns, max_round_ns, run_ns;
	struct st_stats n;
	atomic_t violations;
	spinlock_t why_lock; /* protects why */
	char why[240];
} st;

/* ---- randomness ---- */

static u32 st_below(struct rnd_state *r, u32 n)
{
	return n ? prandom_u32_state(r) % n : 0;
}

static bool st_one_in(struct rnd_state *r, u32 n)
{
	return st_below(r, n) == 0;
}

/* ---- the log and the rules ---- */

static const char *st_ev_name(int ev)
{
	static const char *const names[ST_NEV] = {
		"ADDR_RESOLVED", "ADDR_ERROR", "ROUTE_RESOLVED",
		"ROUTE_ERROR", "CONNECT_REQUEST", "CONNECT_RESPONSE",
		"CONNECT_ERROR", "UNREACHABLE", "REJECTED", "ESTABLISHED",
		"DISCONNECTED", "DEVICE_REMOVAL", "MULTICAST_JOIN",
		"MULTICAST_ERROR", "ADDR_CHANGE", "TIMEWAIT_EXIT",
	};

	return ev >= 0 && ev < ST_NEV ? names[ev] : "?";
}

/* A broken rule: count it, and describe the first one with its id's log. */
static void st_violation(struct st_sid *s, const char *what, int ev)
{
	char trail[96] = "";
	unsigned long flags;
	int i, len = 0;

	if (atomic_inc_return(&st.violations) != 1)
		return;
	if (s) {
		spin_lock_irqsave(&s->log_lock, flags);
		for (i = 0; i < min(s->nlog, ST_LOG) && len < sizeof(trail); i++)
			len += scnprintf(trail + len, sizeof(trail) - len, " %s",
					 st_ev_name(s->log[i]));
		spin_unlock_irqrestore(&s->log_lock, flags);
	}
	spin_lock(&st.why_lock);
	scnprintf(st.why, sizeof(st.why), "%s: %s id %p (%s), events:%s",
		  what, st_ev_name(ev), s ? s->id : NULL,
		  s ? st_role_names[s->role] : "-", trail);
	spin_unlock(&st.why_lock);
	pr_err("xcma_removal_stress: %s\n", st.why);
}

/* @s holds rxe0 from now on; @gen: deletes started before it got it */
static void st_attached(struct st_sid *s, unsigned int gen)
{
	if (test_bit(SF_ATTACHED, &s->flags))
		return;
	atomic_inc(&s->w->attached);
	s->g_after = gen;
	/* g_after before the bit: st_check_held() reads them the other way */
	smp_mb__before_atomic();
	set_bit(SF_ATTACHED, &s->flags);
}

/* G5, before the owner destroys @s: its device's removal is not over */
static void st_check_held(struct st_sid *s)
{
	if (!test_bit(SF_ATTACHED, &s->flags))
		return;
	/* pairs with st_attached(): the bit, then g_after */
	smp_rmb();
	if ((unsigned int)atomic_read(&st.gen_done) >= s->g_after + 1)
		st_violation(s, "G5: the removal of its device completed while it held it",
			     -1);
}

static void st_enter(struct st_sid *s, struct rdma_cm_id *id, int ev)
{
	unsigned long flags;

	if (atomic_inc_return(&s->in_cb) != 1)
		st_violation(s, "G1: callbacks overlap", ev);
	if (id != s->id)
		st_violation(s, "event for another id than its context's", ev);
	if (test_bit(SF_DESTROYED, &s->flags))
		st_violation(s, "G2: callback after rdma_destroy_id() returned", ev);
	if (test_bit(SF_BY_RETURN, &s->flags))
		st_violation(s, "G3: callback after one returned non-zero", ev);
	if (test_bit(SF_REMOVAL, &s->flags))
		st_violation(s, "G4: callback after DEVICE_REMOVAL", ev);
	spin_lock_irqsave(&s->log_lock, flags);
	if (s->nlog < ST_LOG)
		s->log[s->nlog] = ev;
	s->nlog++;
	spin_unlock_irqrestore(&s->log_lock, flags);
	if (ev >= 0 && ev < ST_NEV)
		atomic_long_inc(&st.n.events[ev]);
	/* widen the window of an overlapping callback, if there is one */
	if (st_one_in(&s->rnd, 4))
		udelay(st_below(&s->rnd, 30));
}

static void st_leave(struct st_sid *s)
{
	struct st_worker *w = s->w;

	/* the last touch of s: the batch frees it once no callback runs */
	atomic_dec(&s->in_cb);
	wake_up_all(&w->wq);
}

/* ---- ids ---- */

static int st_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev);

static struct st_sid *st_sid_alloc(struct st_worker *w, enum st_role role,
				   struct rnd_state *seed_from)
{
	struct st_sid *s = kzalloc(sizeof(*s), GFP_KERNEL);

	if (!s)
		return NULL;
	s->w = w;
	s->role = role;
	mutex_init(&s->lock);
	spin_lock_init(&s->log_lock);
	atomic_set(&s->in_cb, 0);
	prandom_seed_state(&s->rnd, ((u64)prandom_u32_state(seed_from) << 32) |
				    prandom_u32_state(seed_from));
	spin_lock(&st.ids_lock);
	list_add_tail(&s->node, &st.ids);
	spin_unlock(&st.ids_lock);
	atomic_long_inc(&st.n.ids);
	return s;
}

static struct st_sid *st_create(struct st_worker *w, enum st_role role)
{
	struct st_sid *s = st_sid_alloc(w, role, &w->rnd);
	struct rdma_cm_id *id;

	if (!s)
		return NULL;
	id = rdma_create_id(&init_net, st_handler, s, RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(id)) {
		/* nothing to destroy: mark it done for the end-of-batch check */
		set_bit(SF_DESTROYED, &s->flags);
		atomic_long_inc(&st.n.refused);
		return NULL;
	}
	s->id = id;
	return s;
}

/* with the verbs in the owner's hands (its lock, or a fresh conn id) */
static void st_verbs_release(struct st_sid *s)
{
	if (s->has_qp)
		rdma_destroy_qp(s->id);
	s->has_qp = false;
	if (s->cq)
		ib_free_cq(s->cq);
	s->cq = NULL;
	if (s->mapped)
		ib_dma_unmap_single(s->id->device, s->dma, ST_BUF_LEN,
				    DMA_BIDIRECTIONAL);
	s->mapped = false;
	kfree(s->buf);
	s->buf = NULL;
	if (s->pd)
		ib_dealloc_pd(s->pd);
	s->pd = NULL;
}

static int st_post_recv(struct st_sid *s, int slot)
{
	struct ib_sge sge = {
		.addr = s->dma + (1 + slot) * ST_MSG_LEN,
		.length = ST_MSG_LEN,
		.lkey = s->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_id = ST_WR_RECV + slot, .sg_list = &sge, .num_sge = 1,
	};

	return ib_post_recv(s->id->qp, &wr, NULL);
}

/* PD, CQ, buffers, an RC QP, and its receives posted */
static int st_verbs_setup(struct st_sid *s)
{
	struct ib_device *dev = s->id->device;
	struct ib_qp_init_attr attr = {
		.cap = { .max_send_wr = 4, .max_recv_wr = ST_RECVS,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.sq_sig_type = IB_SIGNAL_ALL_WR,
		.qp_type = IB_QPT_RC,
	};
	struct ib_pd *pd;
	struct ib_cq *cq;
	int ret, i;

	pd = ib_alloc_pd(dev, 0);
	if (IS_ERR(pd))
		return PTR_ERR(pd);
	s->pd = pd;
	cq = ib_alloc_cq(dev, NULL, 16, 0, IB_POLL_DIRECT);
	if (IS_ERR(cq))
		return PTR_ERR(cq);
	s->cq = cq;
	s->buf = kzalloc(ST_BUF_LEN, GFP_KERNEL);
	if (!s->buf)
		return -ENOMEM;
	s->dma = ib_dma_map_single(dev, s->buf, ST_BUF_LEN, DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(dev, s->dma))
		return -ENOMEM;
	s->mapped = true;
	attr.send_cq = cq;
	attr.recv_cq = cq;
	ret = rdma_create_qp(s->id, pd, &attr);
	if (ret)
		return ret;
	s->has_qp = true;
	for (i = 0; i < ST_RECVS && !ret; i++)
		ret = st_post_recv(s, i);
	return ret;
}

/* In a callback: destroy by return, if the owner is not using the id. */
static int st_try_return(struct st_sid *s)
{
	if (!mutex_trylock(&s->lock))
		return 0;
	st_verbs_release(s);
	set_bit(SF_BY_RETURN, &s->flags);
	mutex_unlock(&s->lock);
	atomic_long_inc(&st.n.by_return);
	return 1;
}

/* The owner destroys @s, unless a callback did. */
static void st_destroy(struct st_sid *s)
{
	if (!s)
		return;
	mutex_lock(&s->lock);
	if (!test_bit(SF_BY_RETURN, &s->flags) &&
	    !test_bit(SF_DESTROYED, &s->flags)) {
		st_verbs_release(s);
		st_check_held(s);
		set_bit(SF_DESTROY_CALLED, &s->flags);
		rdma_destroy_id(s->id);
		set_bit(SF_DESTROYED, &s->flags);
		/* the bit for later callbacks, before looking at running ones */
		smp_mb__after_atomic();
		if (atomic_read(&s->in_cb))
			st_violation(s, "G2: callback running after rdma_destroy_id() returned",
				     -1);
		atomic_long_inc(&st.n.user_destroys);
	}
	mutex_unlock(&s->lock);
}

/* ids the owner should let go of: notified, gone, failed or ended */
static bool st_done(struct st_sid *s)
{
	return s && (test_bit(SF_REMOVAL, &s->flags) ||
		     test_bit(SF_BY_RETURN, &s->flags) ||
		     test_bit(SF_FAILED, &s->flags) ||
		     test_bit(SF_DISCONNECTED, &s->flags));
}

static bool st_stopping(void)
{
	return READ_ONCE(st.stop) || kthread_should_stop();
}

static void st_nap(struct st_worker *w, unsigned int ms)
{
	wait_event_timeout(w->wq, st_stopping(), msecs_to_jiffies(ms));
}

/* ---- the server side, in the listener's callback ---- */

static struct st_sid *st_take_conn(struct st_sid *lis)
{
	struct st_sid *c;

	spin_lock(&lis->w->lock);
	c = lis->conn;
	lis->conn = NULL;
	spin_unlock(&lis->w->lock);
	return c;
}

static struct st_sid *st_peek_conn(struct st_sid *lis)
{
	struct st_sid *c;

	spin_lock(&lis->w->lock);
	c = lis->conn;
	spin_unlock(&lis->w->lock);
	return c;
}

/*
 * CONNECT_REQUEST on a new conn id: refuse it by returning non-zero (with
 * or without a REJ), or set its QP up, accept, and hand it to the
 * listener's thread. Nobody else knows @conn yet: no lock needed.
 */
static int st_request(struct st_sid *lis, struct st_sid *conn)
{
	struct rdma_conn_param param = {
		.responder_resources = 1, .initiator_depth = 1,
		.rnr_retry_count = 7,
	};
	bool handed = false;
	int ret;

	switch (st_below(&conn->rnd, 16)) {
	case 0:
		if (rdma_reject(conn->id, "busy", 4, IB_CM_REJ_CONSUMER_DEFINED))
			atomic_long_inc(&st.n.refused);
		fallthrough;
	case 1:
		set_bit(SF_BY_RETURN, &conn->flags);
		atomic_long_inc(&st.n.by_return);
		return 1;
	}
	ret = st_verbs_setup(conn);
	if (!ret)
		ret = rdma_accept(conn->id, &param);
	if (!ret) {
		spin_lock(&lis->w->lock);
		if (!lis->conn) {
			lis->conn = conn;
			handed = true;
		}
		spin_unlock(&lis->w->lock);
	}
	if (handed)
		return 0;
	atomic_long_inc(&st.n.refused);
	st_verbs_release(conn);
	set_bit(SF_BY_RETURN, &conn->flags);
	atomic_long_inc(&st.n.by_return);
	return 1;
}

static int st_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct st_sid *s = id->context, *lis = NULL;
	int ret = 0;

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
		lis = s;
		s = st_sid_alloc(lis->w, ST_SERVER, &lis->rnd);
		if (!s)
			return 1;
		s->id = id;
		id->context = s;
		atomic_long_inc(&st.n.conn_ids);
	}
	st_enter(s, id, ev->event);
	switch (ev->event) {
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		st_attached(s, atomic_read(&st.gen_started));
		ret = st_request(lis, s);
		break;
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		st_attached(s, atomic_read(&st.gen_started));
		set_bit(SF_ADDR, &s->flags);
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		set_bit(SF_ROUTE, &s->flags);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		set_bit(SF_ESTABLISHED, &s->flags);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		set_bit(SF_DISCONNECTED, &s->flags);
		break;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		if (test_bit(SF_WILDCARD, &s->flags))
			st_violation(s, "G7: a wildcard listener was notified", ev->event);
		/* the removal under way is the one that waits for s */
		st_attached(s, atomic_read(&st.gen_started) - 1);
		break;
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		break;
	default:
		set_bit(SF_FAILED, &s->flags);
		break;
	}
	/* destroy by return: often on DEVICE_REMOVAL, now and then else */
	if (!ret && ev->event != RDMA_CM_EVENT_CONNECT_REQUEST &&
	    st_one_in(&s->rnd, ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL ? 2 :
			       s->role == ST_CHURN ? 6 : 24))
		ret = st_try_return(s);
	if (ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL)
		set_bit(SF_REMOVAL, &s->flags);
	st_leave(s);
	return ret;
}

/* ---- addresses ---- */

static void st_addr(struct sockaddr_storage *ss, bool v6, const char *ip,
		    u16 port)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	if (v6) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
		if (ip)
			in6_pton(ip, -1, sin6->sin6_addr.s6_addr, -1, NULL);
	} else {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		if (ip)
			sin->sin_addr.s_addr = in_aton(ip);
	}
}

static const char *st_local(bool v6)
{
	return v6 ? "fd00:99::1" : "10.99.0.1";
}

static u16 st_port(void)
{
	return ST_PORT_BASE + (u16)(atomic_inc_return(&st.port) % ST_PORTS);
}

/* ---- operations, each under the owner's lock, unless a callback took the id ---- */

static int st_bind(struct st_sid *s, struct sockaddr_storage *a, bool any)
{
	int ret = -ENODEV;

	mutex_lock(&s->lock);
	if (!test_bit(SF_BY_RETURN, &s->flags))
		ret = rdma_bind_addr(s->id, (struct sockaddr *)a);
	if (!ret && !any)
		st_attached(s, atomic_read(&st.gen_started));
	if (!ret && any)
		set_bit(SF_WILDCARD, &s->flags);
	mutex_unlock(&s->lock);
	if (ret)
		atomic_long_inc(&st.n.refused);
	return ret;
}

static int st_listen(struct st_sid *s)
{
	int ret = -ENODEV;

	mutex_lock(&s->lock);
	if (!test_bit(SF_BY_RETURN, &s->flags))
		ret = rdma_listen(s->id, 8);
	mutex_unlock(&s->lock);
	if (ret)
		atomic_long_inc(&st.n.refused);
	return ret;
}

/* wait until one of @bits is set on @s, or it is done, or time is up */
static bool st_wait_bits(struct st_sid *s, unsigned long bits,
			 struct st_sid *other)
{
	wait_event_timeout(s->w->wq, (READ_ONCE(s->flags) & bits) ||
			   st_done(s) || st_done(other) || st_stopping(),
			   msecs_to_jiffies(ST_WAIT_MS));
	return (READ_ONCE(s->flags) & bits) && !st_done(s) &&
	       !st_done(other) && !st_stopping();
}

/* address, then route, to @dst; @other: an id whose end stops this too */
static int st_resolve(struct st_sid *s, struct sockaddr_storage *dst,
		      bool route, struct st_sid *other)
{
	int ret = -ENODEV;

	mutex_lock(&s->lock);
	if (!test_bit(SF_BY_RETURN, &s->flags))
		ret = rdma_resolve_addr(s->id, NULL, (struct sockaddr *)dst,
					2000);
	mutex_unlock(&s->lock);
	if (ret) {
		atomic_long_inc(&st.n.refused);
		return ret;
	}
	if (!st_wait_bits(s, BIT(SF_ADDR), other))
		return -ETIMEDOUT;
	if (!route)
		return 0;
	ret = -ENODEV;
	mutex_lock(&s->lock);
	if (!test_bit(SF_BY_RETURN, &s->flags))
		ret = rdma_resolve_route(s->id, 2000);
	mutex_unlock(&s->lock);
	if (ret) {
		atomic_long_inc(&st.n.refused);
		return ret;
	}
	return st_wait_bits(s, BIT(SF_ROUTE), other) ? 0 : -ETIMEDOUT;
}

static int st_connect(struct st_sid *s, bool with_qp)
{
	struct rdma_conn_param param = {
		.responder_resources = 1, .initiator_depth = 1,
		.retry_count = 7, .rnr_retry_count = 7,
	};
	int ret = -ENODEV;

	mutex_lock(&s->lock);
	if (!test_bit(SF_BY_RETURN, &s->flags) && !st_done(s)) {
		ret = with_qp ? st_verbs_setup(s) : 0;
		if (!ret)
			ret = rdma_connect(s->id, &param);
	}
	mutex_unlock(&s->lock);
	if (ret)
		atomic_long_inc(&st.n.refused);
	return ret;
}

static int st_disconnect(struct st_sid *s)
{
	int ret = -ENODEV;

	mutex_lock(&s->lock);
	if (!test_bit(SF_BY_RETURN, &s->flags))
		ret = rdma_disconnect(s->id);
	mutex_unlock(&s->lock);
	return ret;
}

/* ---- messages ---- */

static bool st_usable(struct st_sid *s)
{
	return s && s->has_qp && !st_done(s);
}

static int st_send(struct st_sid *s, const char *msg)
{
	struct ib_sge sge;
	struct ib_send_wr wr = {
		.wr_id = ST_WR_SEND, .sg_list = &sge, .num_sge = 1,
		.opcode = IB_WR_SEND, .send_flags = IB_SEND_SIGNALED,
	};
	int ret = -ENODEV;

	mutex_lock(&s->lock);
	if (st_usable(s)) {
		strscpy(s->buf, msg, ST_MSG_LEN);
		ib_dma_sync_single_for_device(s->id->device, s->dma,
					      ST_MSG_LEN, DMA_BIDIRECTIONAL);
		sge = (struct ib_sge){ .addr = s->dma, .length = ST_MSG_LEN,
				       .lkey = s->pd->local_dma_lkey };
		ret = ib_post_send(s->id->qp, &wr, NULL);
	}
	mutex_unlock(&s->lock);
	return ret;
}

/* poll @s's CQ until @want arrives; false on an error, an end or timeout */
static bool st_recv(struct st_sid *s, const char *want, struct st_sid *a,
		    struct st_sid *b)
{
	unsigned long end = jiffies + msecs_to_jiffies(ST_WAIT_MS);
	bool got = false, bad = false;
	struct ib_wc wc[4];
	int n, i;

	for (;;) {
		mutex_lock(&s->lock);
		if (!st_usable(s)) {
			mutex_unlock(&s->lock);
			return false;
		}
		n = ib_poll_cq(s->cq, ARRAY_SIZE(wc), wc);
		for (i = 0; i < n; i++) {
			int slot = wc[i].wr_id - ST_WR_RECV;
			char *msg;

			if (wc[i].status != IB_WC_SUCCESS) {
				bad = true;
				continue;
			}
			if (wc[i].wr_id == ST_WR_SEND)
				continue;
			msg = s->buf + (1 + slot) * ST_MSG_LEN;
			ib_dma_sync_single_for_cpu(s->id->device, s->dma,
						   ST_BUF_LEN, DMA_BIDIRECTIONAL);
			if (strncmp(msg, want, ST_MSG_LEN)) {
				st_violation(s, "a message arrived altered", -1);
				bad = true;
			} else {
				got = true;
			}
			if (st_post_recv(s, slot))
				bad = true;
		}
		mutex_unlock(&s->lock);
		if (got || bad)
			return got && !bad;
		if (time_after(jiffies, end) || st_done(a) || st_done(b) ||
		    st_stopping())
			return false;
		usleep_range(1000, 3000);
	}
}

/* ping and pong, @rounds times: each received message counts */
static void st_exchange(struct st_sid *cli, struct st_sid *srv, int rounds)
{
	char msg[ST_MSG_LEN];
	int k;

	for (k = 1; k <= rounds; k++) {
		snprintf(msg, sizeof(msg), "ping %d", k);
		if (st_send(cli, msg) || !st_recv(srv, msg, cli, srv))
			return;
		atomic_long_inc(&st.n.messages);
		snprintf(msg, sizeof(msg), "pong %d", k);
		if (st_send(srv, msg) || !st_recv(cli, msg, cli, srv))
			return;
		atomic_long_inc(&st.n.messages);
	}
}

/* ---- episodes ---- */

static bool st_both_established(struct st_sid *cli, struct st_sid *lis,
				struct st_sid **srv)
{
	*srv = st_peek_conn(lis);
	return test_bit(SF_ESTABLISHED, &cli->flags) && *srv &&
	       test_bit(SF_ESTABLISHED, &(*srv)->flags);
}

/*
 * A listener (on rxe0's address or the wildcard), a client that connects
 * to it with a QP, the conn id the listener accepts; messages; maybe a
 * disconnect; the three destroyed in a random order. Any end notified,
 * failed or destroyed by its callback ends the episode early.
 */
static void st_pair(struct st_worker *w)
{
	bool v6 = st_one_in(&w->rnd, 4), any = st_one_in(&w->rnd, 2);
	struct st_sid *lis, *cli = NULL, *srv = NULL, *c;
	struct sockaddr_storage la, da;
	u16 port = st_port();
	int order, i;

	atomic_long_inc(&st.n.pairs);
	lis = st_create(w, ST_LISTENER);
	if (!lis)
		return;
	st_addr(&la, v6, any ? NULL : st_local(v6), port);
	st_addr(&da, v6, st_local(v6), port);
	if (st_bind(lis, &la, any) || st_listen(lis))
		goto out;
	st_nap(w, st_below(&w->rnd, 100));
	cli = st_create(w, ST_CLIENT);
	if (!cli || st_resolve(cli, &da, true, lis))
		goto out;
	st_nap(w, st_below(&w->rnd, 100));
	if (st_connect(cli, true))
		goto out;
	wait_event_timeout(w->wq, st_both_established(cli, lis, &srv) ||
			   st_done(cli) || st_done(lis) || st_done(srv) ||
			   st_stopping(), msecs_to_jiffies(ST_WAIT_MS));
	if (!st_both_established(cli, lis, &srv) || st_done(cli) ||
	    st_done(srv))
		goto out;
	atomic_long_inc(&st.n.connections);
	st_nap(w, st_below(&w->rnd, 50));
	st_exchange(cli, srv, 1 + st_below(&w->rnd, 6));

	switch (st_below(&w->rnd, 3)) {
	case 0:
		if (!st_disconnect(cli))
			st_wait_bits(srv, BIT(SF_DISCONNECTED), cli);
		break;
	case 1:
		if (!st_disconnect(srv))
			st_wait_bits(cli, BIT(SF_DISCONNECTED), srv);
		break;
	default:
		st_nap(w, st_below(&w->rnd, 200));
		break;
	}
out:
	order = st_below(&w->rnd, 6);
	for (i = 0; i < 3; i++) {
		switch ((order + i * (order & 1 ? 1 : 2)) % 3) {
		case 0:
			st_destroy(cli);
			break;
		case 1:
			st_destroy(lis);
			break;
		default:
			st_destroy(st_take_conn(lis));
			break;
		}
	}
	/* a request that came in before the listener was gone */
	c = st_take_conn(lis);
	st_destroy(c);
}

/*
 * One id driven to a random state, held a random time (or until it is
 * notified), destroyed; its callbacks destroy it by returning non-zero
 * more often than a pair's.
 */
static void st_churn(struct st_worker *w)
{
	bool v6 = st_one_in(&w->rnd, 4), waiter = st_one_in(&w->rnd, 3);
	struct sockaddr_storage a;
	u16 port = st_port();
	struct st_sid *s;

	atomic_long_inc(&st.n.churns);
	s = st_create(w, ST_CHURN);
	if (!s)
		return;
	switch (st_below(&w->rnd, 9)) {
	case 0:	/* IDLE */
		break;
	case 1:	/* bound to rxe0's address */
		st_addr(&a, v6, st_local(v6), port);
		st_bind(s, &a, false);
		break;
	case 2:	/* bound to the wildcard address */
		st_addr(&a, v6, NULL, port);
		st_bind(s, &a, true);
		break;
	case 3:	/* address resolved */
		st_addr(&a, v6, st_local(v6), port);
		st_resolve(s, &a, false, NULL);
		break;
	case 4:	/* route resolved */
		st_addr(&a, v6, st_local(v6), port);
		st_resolve(s, &a, true, NULL);
		break;
	case 5:	/* listening on rxe0's address */
		st_addr(&a, v6, st_local(v6), port);
		if (!st_bind(s, &a, false))
			st_listen(s);
		break;
	case 6:	/* listening on the wildcard address */
		st_addr(&a, v6, NULL, port);
		if (!st_bind(s, &a, true))
			st_listen(s);
		break;
	case 7:	/* connecting to a port nobody listens on: REJECTED */
		st_addr(&a, v6, st_local(v6), port);
		if (!st_resolve(s, &a, true, NULL) && !st_connect(s, false))
			st_wait_bits(s, BIT(SF_FAILED), NULL);
		break;
	default: /* an address nobody answers: ADDR_QUERY until it fails */
		st_addr(&a, v6, v6 ? "fd00:99::77" : "10.99.0.77", port);
		mutex_lock(&s->lock);
		if (rdma_resolve_addr(s->id, NULL, (struct sockaddr *)&a, 1000))
			atomic_long_inc(&st.n.refused);
		mutex_unlock(&s->lock);
		break;
	}
	/*
	 * A waiter on rxe0 lets go only when notified (or at the end of the
	 * batch): without the notice the delete would wait for it for ever.
	 * Interruptible, which a kthread is never, so that the hung-task
	 * detector watches the delete and not this.
	 */
	if (waiter && test_bit(SF_ATTACHED, &s->flags))
		wait_event_interruptible(w->wq, st_done(s) || st_stopping());
	else
		wait_event_timeout(w->wq, st_done(s) || st_stopping(),
				   msecs_to_jiffies(st_below(&w->rnd, 400)));
	st_destroy(s);
}

static int st_worker_fn(void *data)
{
	struct st_worker *w = data;
	int attached;

	while (!st_stopping()) {
		attached = atomic_read(&w->attached);
		if (st_below(&w->rnd, 100) < 55)
			st_pair(w);
		else
			st_churn(w);
		/* back off while rxe0 is away: TCG has two CPUs for everyone */
		if (atomic_read(&w->attached) == attached)
			st_nap(w, 100 + st_below(&w->rnd, 300));
		else
			st_nap(w, st_below(&w->rnd, 50));
	}
	return 0;
}

/* ---- the case ---- */

static void st_start_workers(struct kunit *test)
{
	struct task_struct *t;
	int i;

	WRITE_ONCE(st.stop, false);
	for (i = 0; i < ST_WORKERS; i++) {
		struct st_worker *w = &st.workers[i];

		prandom_seed_state(&w->rnd, st.seed + 7919ULL * st.batches + i);
		t = kthread_create(st_worker_fn, w, "xcma_stress/%d", i);
		if (IS_ERR(t)) {
			KUNIT_FAIL(test, "kthread_create: %ld", PTR_ERR(t));
			w->task = NULL;
			continue;
		}
		/* spread over every CPU: worker i runs on CPU i mod n */
		kthread_bind(t, cpumask_nth(i % num_online_cpus(),
					    cpu_online_mask));
		get_task_struct(t);
		w->task = t;
		wake_up_process(t);
	}
}

static void st_stop_workers(void)
{
	int i;

	WRITE_ONCE(st.stop, true);
	for (i = 0; i < ST_WORKERS; i++)
		wake_up_all(&st.workers[i].wq);
	for (i = 0; i < ST_WORKERS; i++) {
		struct task_struct *t = st.workers[i].task;

		if (!t)
			continue;
		kthread_stop(t);
		put_task_struct(t);
		st.workers[i].task = NULL;
	}
}

/*
 * Every id of the batch is released; then their logs go. An id destroyed
 * by its callback's return is freed by xcma once that callback returned:
 * wait for the callback to be out of the log.
 */
static void st_check_released(struct kunit *test)
{
	struct st_sid *s, *tmp;
	LIST_HEAD(done);
	int i;

	spin_lock(&st.ids_lock);
	list_splice_init(&st.ids, &done);
	spin_unlock(&st.ids_lock);
	list_for_each_entry_safe(s, tmp, &done, node) {
		if (!test_bit(SF_DESTROYED, &s->flags) &&
		    !test_bit(SF_BY_RETURN, &s->flags)) {
			st_violation(s, "G8: not released at the end", -1);
			st_destroy(s);
		}
		for (i = 0; i < 100 && atomic_read(&s->in_cb); i++)
			usleep_range(10000, 20000);
		if (atomic_read(&s->in_cb))
			st_violation(s, "a callback never returned", -1);
		else
			kfree(s);
	}
}

static void st_round(struct kunit *test)
{
	u64 t0, t1, t2;
	int ret;

	msleep(100 + st_below(&st.rnd, 700));

	atomic_inc(&st.gen_started);
	/* an id that reads the old count got rxe0 before this delete began */
	smp_mb__after_atomic();
	t0 = ktime_get_ns();
	cm_rxe_delete(test);
	t1 = ktime_get_ns();
	/* the delete is over before anybody sees it counted */
	smp_mb__before_atomic();
	atomic_inc(&st.gen_done);

	msleep(st_below(&st.rnd, 200));

	ret = cm_rxe_add(test);
	t2 = ktime_get_ns();
	if (ret)
		st.aborted = true;
	st.delete_ns += t1 - t0;
	st.add_ns += t2 - t1;
}

static void removal_rounds(struct kunit *test)
{
	unsigned int first = st.rounds + 1;
	int violations = atomic_read(&st.violations);
	long ids = atomic_long_read(&st.n.ids);
	long conns = atomic_long_read(&st.n.connections);
	long msgs = atomic_long_read(&st.n.messages);
	long notices = atomic_long_read(&st.n.events[RDMA_CM_EVENT_DEVICE_REMOVAL]);
	u64 start = ktime_get_ns(), r0;
	char why[sizeof(st.why)];

	if (st.batches++ == 0)
		kunit_info(test, "%u rounds, %d threads, seed %llu", stress_rounds,
			   ST_WORKERS, st.seed);
	st_start_workers(test);
	do {
		r0 = ktime_get_ns();
		st_round(test);
		st.rounds++;
		r0 = ktime_get_ns() - r0;
		st.round_ns += r0;
		st.max_round_ns = max(st.max_round_ns, r0);
	} while (!st.aborted && st.rounds < stress_rounds &&
		 ktime_get_ns() - start +
			 max(r0, div_u64(st.round_ns * 5, 4 * st.rounds)) <
			 (u64)ST_BATCH_MS * NSEC_PER_MSEC);
	st_stop_workers();
	st_check_released(test);

	KUNIT_EXPECT_EQ(test, cm_module_refs_settle(st.base_refs), st.base_refs);
	cm_expect_rxe0_idle(test);
	spin_lock(&st.why_lock);
	strscpy(why, st.why, sizeof(why));
	spin_unlock(&st.why_lock);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&st.violations), violations,
			    "first: %s", why);
	st.run_ns += ktime_get_ns() - start;
	kunit_info(test, "rounds %u-%u: %ld ids, %ld connections, %ld messages, %ld DEVICE_REMOVAL",
		   first, st.rounds, atomic_long_read(&st.n.ids) - ids,
		   atomic_long_read(&st.n.connections) - conns,
		   atomic_long_read(&st.n.messages) - msgs,
		   atomic_long_read(&st.n.events[RDMA_CM_EVENT_DEVICE_REMOVAL]) -
			   notices);
}

static const void *removal_rounds_gen(const void *prev, char *desc)
{
	unsigned long n = (unsigned long)prev + 1;

	if (st.aborted || st.rounds >= stress_rounds || n > stress_rounds)
		return NULL;
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "batch_%03lu", n);
	return (const void *)n;
}

static void removal_summary(struct kunit *test)
{
	char line[200] = "";
	int ev, len = 0;

	if (!stress_rounds)
		kunit_skip(test, "stress_rounds=0");
	kunit_info(test, "rounds %u (device removals) in %u batches, seed %llu",
		   st.rounds, st.batches, st.seed);
	kunit_info(test, "ids %ld (conn ids %ld): destroyed by the user %ld, by a callback's return %ld",
		   atomic_long_read(&st.n.ids), atomic_long_read(&st.n.conn_ids),
		   atomic_long_read(&st.n.user_destroys),
		   atomic_long_read(&st.n.by_return));
	kunit_info(test, "episodes: %ld pairs, %ld single ids; connections established %ld, messages %ld, refused operations %ld",
		   atomic_long_read(&st.n.pairs), atomic_long_read(&st.n.churns),
		   atomic_long_read(&st.n.connections),
		   atomic_long_read(&st.n.messages),
		   atomic_long_read(&st.n.refused));
	for (ev = 0; ev < ST_NEV; ev++) {
		long n = atomic_long_read(&st.n.events[ev]);

		if (n)
			len += scnprintf(line + len, sizeof(line) - len, " %s %ld",
					 st_ev_name(ev), n);
	}
	kunit_info(test, "events:%s", line);
	if (st.rounds)
		kunit_info(test, "per round %llu ms (delete %llu ms, add %llu ms, longest round %llu ms); batches %llu s in all",
			   div_u64(st.round_ns, st.rounds * NSEC_PER_MSEC),
			   div_u64(st.delete_ns, st.rounds * NSEC_PER_MSEC),
			   div_u64(st.add_ns, st.rounds * NSEC_PER_MSEC),
			   div_u64(st.max_round_ns, NSEC_PER_MSEC),
			   div_u64(st.run_ns, NSEC_PER_SEC));
	KUNIT_EXPECT_EQ(test, st.rounds, stress_rounds);
	KUNIT_EXPECT_EQ(test, atomic_read(&st.violations), 0);
	KUNIT_EXPECT_EQ(test, xcma_id_module_refs(), st.base_refs);
	/* the stress did stress: each kind of thing happened */
	KUNIT_EXPECT_GT(test, atomic_long_read(&st.n.connections), 0);
	KUNIT_EXPECT_GT(test, atomic_long_read(&st.n.messages), 0);
	KUNIT_EXPECT_GT(test, atomic_long_read(&st.n.by_return), 0);
	KUNIT_EXPECT_GT(test, atomic_long_read(&st.n.events[RDMA_CM_EVENT_DEVICE_REMOVAL]), 0);
}

static int removal_stress_init(struct kunit_suite *suite)
{
	int i;

	memset(&st, 0, sizeof(st));
	spin_lock_init(&st.ids_lock);
	spin_lock_init(&st.why_lock);
	INIT_LIST_HEAD(&st.ids);
	for (i = 0; i < ST_WORKERS; i++) {
		init_waitqueue_head(&st.workers[i].wq);
		spin_lock_init(&st.workers[i].lock);
	}
	st.seed = stress_seed ? stress_seed : get_random_u64();
	prandom_seed_state(&st.rnd, st.seed);
	st.base_refs = xcma_id_module_refs();
	return 0;
}

static struct kunit_case removal_stress_cases[] = {
	KUNIT_CASE_PARAM_ATTR(removal_rounds, removal_rounds_gen,
			      { .speed = KUNIT_SPEED_VERY_SLOW }),
	KUNIT_CASE(removal_summary),
	{}
};

static struct kunit_suite removal_stress_suite = {
	.name = "xcma_removal_stress",
	.init = xcma_kunit_sweep_init,
	.suite_init = removal_stress_init,
	.test_cases = removal_stress_cases,
	.attr = { .speed = KUNIT_SPEED_VERY_SLOW },
};

kunit_test_suite(removal_stress_suite);
