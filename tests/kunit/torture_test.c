// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * xcma_torture: random API calls on random ids, valid and invalid alike,
 * while rxe0 is deleted and re-added at random moments.
 *
 * torture_threads kthreads share a pool of T_SLOTS ids. Each draws, per
 * operation, exactly two numbers from its own generator (seeded from
 * torture_seed): which call, on which slot, and its arguments. An empty
 * slot gets a new id whatever was drawn; otherwise the call is made on
 * the slot's id, in whatever state it is. The drawn sequence thus depends
 * on the seed alone: each thread prints its counts and a hash of it.
 * Callbacks log every event, accept or reject requests (or park the conn
 * id in a free slot), and destroy their id by returning non-zero at random.
 *
 * Checked from the per-id logs: G1 no overlapping callbacks; G2 none
 * after rdma_destroy_id() returned; G3 none after a non-zero return;
 * G4 at most one DEVICE_REMOVAL and no event after it; G5 a removal of
 * the device an id holds does not complete before the id is destroyed;
 * G8 at the end of each batch no id, ib_cm id, QP, GID attribute, module
 * reference or hold on rxe0 is left (counted through the ops layer).
 * Calls whose errno does not depend on timing must return the in-tree
 * CM's (as cm_test.c asserts); the other errnos are counted by call.
 *
 * The operations run in batches of at most T_BATCH_MS, one parameter of
 * the case each, so that no case outlives the VM's hung-task timeout.
 * Very slow: make check runs it in a boot of its own.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/inet.h>
#include <linux/jhash.h>
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
#include <linux/xarray.h>
#include <net/net_namespace.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "../../cma/id.h"
#include "../../cma/ops.h"
#include "../../cma/device.h"
#include "cm_util.h"
#include "xcma/fsm.h"
#include "xcma_kunit.h"

static ulong torture_seed;
module_param(torture_seed, ulong, 0444);
MODULE_PARM_DESC(torture_seed,
		 "xcma_torture: seed (0: a random one, printed)");

static uint torture_ops = 250000;
module_param(torture_ops, uint, 0444);
MODULE_PARM_DESC(torture_ops,
		 "xcma_torture: operations drawn, all threads together (default 250000)");

static uint torture_threads = 4;
module_param(torture_threads, uint, 0444);
MODULE_PARM_DESC(torture_threads, "xcma_torture: threads, 1-8 (default 4)");

static bool torture_removal = true;
module_param(torture_removal, bool, 0444);
MODULE_PARM_DESC(torture_removal,
		 "xcma_torture: delete and re-add rxe0 during the run (default on)");

#define T_MAX_THREADS 8
#define T_SLOTS 32
#define T_LOG 12
#define T_NEV (RDMA_CM_EVENT_TIMEWAIT_EXIT + 1)
#define T_BATCH_MS 12000
#define T_PORT_BASE 22000
#define T_PORTS 8
#define T_MSG "xcma torture"
#define T_MSG_LEN 32
#define T_RECVS 2
#define T_BUF_LEN ((1 + T_RECVS) * T_MSG_LEN)
#define T_WR_SEND 1
#define T_WR_RECV 2
#define T_NERR 134	/* errnos 0..133; 134: anything else */

/* what a thread draws */
enum t_op {
	OP_CREATE_BAD, OP_BIND, OP_RESOLVE_ADDR, OP_RESOLVE_ROUTE, OP_CONNECT,
	OP_LISTEN, OP_ACCEPT, OP_REJECT, OP_DISCONNECT, OP_NOTIFY, OP_SET,
	OP_CREATE_QP, OP_DESTROY_QP, OP_DESTROY, OP_SEND, OP_POLL, OP_QUERY,
	OP_ADVANCE, T_NOPS
};

static const struct {
	const char *name;
	u8 weight;
} t_ops_info[T_NOPS] = {
	[OP_CREATE_BAD] = { "create_bad", 2 },
	[OP_BIND] = { "bind", 8 },
	[OP_RESOLVE_ADDR] = { "resolve_addr", 9 },
	[OP_RESOLVE_ROUTE] = { "resolve_route", 8 },
	[OP_CONNECT] = { "connect", 8 },
	[OP_LISTEN] = { "listen", 6 },
	[OP_ACCEPT] = { "accept", 4 },
	[OP_REJECT] = { "reject", 2 },
	[OP_DISCONNECT] = { "disconnect", 3 },
	[OP_NOTIFY] = { "notify", 2 },
	[OP_SET] = { "set_option", 6 },
	[OP_CREATE_QP] = { "create_qp", 4 },
	[OP_DESTROY_QP] = { "destroy_qp", 1 },
	[OP_DESTROY] = { "destroy_id", 5 },
	[OP_SEND] = { "send", 4 },
	[OP_POLL] = { "poll", 4 },
	[OP_QUERY] = { "query", 3 },
	[OP_ADVANCE] = { "advance", 24 },
};

/* what is called, for the errno table */
enum t_call {
	C_CREATE, C_CREATE_BAD, C_BIND, C_RESOLVE_ADDR, C_RESOLVE_ROUTE,
	C_CONNECT, C_CONNECT_ECE, C_LISTEN, C_ACCEPT, C_ACCEPT_ECE, C_REJECT,
	C_DISCONNECT, C_NOTIFY, C_SET_TOS, C_SET_REUSEADDR, C_SET_AFONLY,
	C_SET_ACK_TIMEOUT, C_SET_MIN_RNR, C_CREATE_QP, C_DESTROY_QP,
	C_DESTROY, C_DESTROY_REACTION, C_BY_RETURN, C_INIT_QP_ATTR,
	C_READ_GIDS, C_SERVICE_ID, C_REJECT_MSG, C_POST_SEND, C_POLL,
	C_VERBS, C_SKIPPED, T_NCALLS
};

static const char *const t_call_names[T_NCALLS] = {
	"create_id", "create_id(bad)", "bind_addr", "resolve_addr",
	"resolve_route", "connect", "connect_ece", "listen", "accept",
	"accept_ece", "reject", "disconnect", "notify", "set_service_type",
	"set_reuseaddr", "set_afonly", "set_ack_timeout", "set_min_rnr_timer",
	"create_qp", "destroy_qp", "destroy_id", "destroy_id(notified)",
	"destroy_by_return", "init_qp_attr", "read_gids", "get_service_id",
	"reject_msg", "post_send", "poll_cq", "pd/cq(verbs)",
	"skipped(ib_cm stalls)",
};

/* bits of t_rec.flags */
enum {
	RF_DESTROY_CALLED,	/* its owner called rdma_destroy_id() */
	RF_DESTROYED,		/* ... which returned */
	RF_BY_RETURN,		/* a callback returned non-zero */
	RF_REMOVAL,		/* DEVICE_REMOVAL came */
	RF_ATTACHED,		/* holds rxe0 (g_after is set) */
	RF_UD,			/* a UD id */
	RF_ACTIVE,		/* rdma_connect() succeeded once */
	RF_ACCEPTED,		/* rdma_accept() succeeded once */
	RF_ESTABLISHED,		/* ESTABLISHED came */
	RF_NOTIFIED,		/* rdma_notify() succeeded */
};

/**
 * struct t_ev - one callback of an id
 * @ev: the event
 * @overlap: callbacks of the id running when it started, itself included
 * @start_us: its start, in us since the run began
 * @end_us: its end, 0 while it runs
 */
struct t_ev {
	u8 ev;
	u8 overlap;
	u32 start_us;
	u32 end_us;
};

/**
 * struct t_rec - an id of the torture and its log
 * @node: on t.recs (t.recs_lock) until the end of its batch
 * @id: the id
 * @slot: the slot it lives in, -1 while it has none
 * @num: its number since the run began
 * @flags: RF_* bits
 * @in_cb: callbacks of @id running now
 * @g_after: t.gen_started read once @id held rxe0
 * @rnd: the callbacks' random choices (serialized by G1)
 * @log_lock: protects @log and @nlog
 * @log: the first T_LOG callbacks
 * @nlog: how many callbacks in all
 * @pd: verbs of the id, NULL if none; used under the slot's lock, or by
 *	the CONNECT_REQUEST callback before the id is in a slot
 * @cq: its CQ, polled directly
 * @has_qp: rdma_create_qp() succeeded and no rdma_destroy_qp() since
 * @buf: the send slot, then T_RECVS receive slots
 * @dma: @buf mapped for the device
 * @mapped: @dma is valid
 * @sent: messages posted
 */
struct t_rec {
	struct list_head node;
	struct rdma_cm_id *id;
	int slot;
	unsigned int num;
	unsigned long flags;
	atomic_t in_cb;
	unsigned int g_after;
	struct rnd_state rnd;
	spinlock_t log_lock; /* see above */
	struct t_ev log[T_LOG];
	int nlog;
	struct ib_pd *pd;
	struct ib_cq *cq;
	bool has_qp;
	char *buf;
	u64 dma;
	bool mapped;
	unsigned int sent;
};

/**
 * struct t_slot - a place in the pool
 * @lock: held around every call on @r's id by a thread, and by a
 *	callback that destroys its id by returning non-zero (trylock)
 * @r: the id living here, NULL if none
 */
struct t_slot {
	struct mutex lock; /* see above */
	struct t_rec *r;
};

/**
 * struct t_thread - one thread of the torture
 * @task: the kthread, with a reference
 * @rnd: its draws, kept from batch to batch
 * @left: operations still to draw
 * @drawn: operations drawn, by kind
 * @hash: hash of the drawn sequence (kind, slot, arguments)
 * @cpus: the CPUs it ran operations on (only it writes them; read once it
 *	has stopped)
 */
struct t_thread {
	struct task_struct *task;
	struct rnd_state rnd;
	unsigned int left;
	unsigned long drawn[T_NOPS];
	u32 hash;
	unsigned long cpus;
};

static struct {
	struct t_thread threads[T_MAX_THREADS];
	unsigned int nthreads;
	unsigned int weights;	/* sum of t_ops_info[].weight */
	struct t_slot slots[T_SLOTS];
	spinlock_t recs_lock; /* protects recs */
	struct list_head recs;
	struct rnd_state rnd;	/* the case thread's */
	u64 seed;
	u64 t0;
	bool stop;
	bool closing;		/* no conn id may take a slot any more */
	bool aborted;
	atomic_t done;		/* threads whose quota is drawn */
	wait_queue_head_t wq;
	atomic_t gen_started;	/* rdma link delete calls started */
	atomic_t gen_done;	/* ... and returned */
	atomic_t nrec;
	int base_refs;
	unsigned int base_live;
	unsigned int batches;
	unsigned int removals;
	u64 run_ns, removal_ns;
	atomic_long_t errs[T_NCALLS][T_NERR + 1];
	atomic_long_t events[T_NEV];
	atomic_long_t ids, conn_ids, by_return, parked, accepted_in_cb;
	atomic_long_t messages, sends, notified_destroy, removal_in_destroy;
	atomic_t violations;
	atomic_t slow_destroys;	/* rdma_destroy_id() calls over 5 s */
	spinlock_t why_lock; /* protects why */
	char why[256];
} t;

/* ---- what the ops layer hands out, for G8 ---- */

static DEFINE_XARRAY(t_cm_ids);	/* ib_cm id -> xa_mk_value(holds) */
static DEFINE_SPINLOCK(t_cm_lock); /* serializes the counts in t_cm_ids */
static atomic_t t_cm_held, t_qps, t_gids, t_cm_untracked;
static ib_cm_handler t_req_handler_orig;
/* xcma's ib_cm handlers (RC and SIDR), each behind a wrapper of its own */
static ib_cm_handler t_ib_handler_orig[2];

static void t_cm_track(struct ib_cm_id *cm_id, int delta)
{
	unsigned long n;
	void *old;

	spin_lock(&t_cm_lock);
	old = xa_load(&t_cm_ids, (unsigned long)cm_id);
	n = old ? xa_to_value(old) : 0;
	if (delta < 0 && !n) {
		atomic_inc(&t_cm_untracked);
	} else {
		n += delta;
		if (n)
			xa_store(&t_cm_ids, (unsigned long)cm_id, xa_mk_value(n),
				 GFP_ATOMIC);
		else
			xa_erase(&t_cm_ids, (unsigned long)cm_id);
		atomic_add(delta, &t_cm_held);
	}
	spin_unlock(&t_cm_lock);
}

/* a non-zero return makes ib_cm destroy the ib_cm id itself */
static int t_ib_handler_n(int n, struct ib_cm_id *cm_id,
			  const struct ib_cm_event *ev)
{
	ib_cm_handler h = READ_ONCE(t_ib_handler_orig[n]);
	int ret = h(cm_id, ev);

	if (ret)
		t_cm_track(cm_id, -1);
	return ret;
}

static int t_ib_handler0(struct ib_cm_id *cm_id, const struct ib_cm_event *ev)
{
	return t_ib_handler_n(0, cm_id, ev);
}

static int t_ib_handler1(struct ib_cm_id *cm_id, const struct ib_cm_event *ev)
{
	return t_ib_handler_n(1, cm_id, ev);
}

static const ib_cm_handler t_ib_wrappers[2] = { t_ib_handler0, t_ib_handler1 };

/* the wrapper of xcma's handler @h (NULL: a third handler, not watched) */
static ib_cm_handler t_ib_wrapper(ib_cm_handler h)
{
	int n;

	for (n = 0; n < 2; n++) {
		if (!cmpxchg(&t_ib_handler_orig[n], NULL, h) ||
		    READ_ONCE(t_ib_handler_orig[n]) == h)
			return t_ib_wrappers[n];
	}
	return NULL;
}

static int t_req_handler(struct ib_cm_id *cm_id, const struct ib_cm_event *ev)
{
	ib_cm_handler w;
	int ret;

	t_cm_track(cm_id, 1);
	ret = t_req_handler_orig(cm_id, ev);
	if (ret) {
		t_cm_track(cm_id, -1);
		return ret;
	}
	/* a conn id took it over: watch its handler's returns too */
	w = t_ib_wrapper(cm_id->cm_handler);
	if (w)
		cm_id->cm_handler = w;
	return 0;
}

static struct ib_cm_id *t_create_cm_id(struct ib_device *dev,
				       ib_cm_handler handler, void *context)
{
	ib_cm_handler w = t_ib_wrapper(handler);
	struct ib_cm_id *cm_id;

	cm_id = xcma_kernel_ops.create_cm_id(dev, w ? w : handler, context);
	if (!IS_ERR(cm_id))
		t_cm_track(cm_id, 1);
	return cm_id;
}

static void t_destroy_cm_id(struct ib_cm_id *cm_id)
{
	t_cm_track(cm_id, -1);
	xcma_kernel_ops.destroy_cm_id(cm_id);
}

static struct ib_cm_id *t_insert_listen(struct ib_device *dev,
					ib_cm_handler handler,
					__be64 service_id)
{
	struct ib_cm_id *cm_id;

	WRITE_ONCE(t_req_handler_orig, handler);
	cm_id = xcma_kernel_ops.insert_listen(dev, t_req_handler, service_id);
	if (!IS_ERR(cm_id))
		t_cm_track(cm_id, 1);
	return cm_id;
}

static struct ib_qp *t_create_qp(struct ib_pd *pd, struct ib_qp_init_attr *a)
{
	struct ib_qp *qp = xcma_kernel_ops.create_qp(pd, a);

	if (!IS_ERR(qp))
		atomic_inc(&t_qps);
	return qp;
}

static int t_destroy_qp(struct ib_qp *qp)
{
	atomic_dec(&t_qps);
	return xcma_kernel_ops.destroy_qp(qp);
}

static const struct ib_gid_attr *
t_find_gid_by_port(struct ib_device *dev, const union ib_gid *gid,
		   enum ib_gid_type type, u32 port, struct net_device *ndev)
{
	const struct ib_gid_attr *attr;

	attr = xcma_kernel_ops.find_gid_by_port(dev, gid, type, port, ndev);
	if (!IS_ERR(attr))
		atomic_inc(&t_gids);
	return attr;
}

static void t_hold_gid_attr(const struct ib_gid_attr *attr)
{
	atomic_inc(&t_gids);
	xcma_kernel_ops.hold_gid_attr(attr);
}

static void t_put_gid_attr(const struct ib_gid_attr *attr)
{
	atomic_dec(&t_gids);
	xcma_kernel_ops.put_gid_attr(attr);
}

static struct xcma_ops t_ops;

/* ---- randomness, violations, counts ---- */

static u32 t_below(struct rnd_state *r, u32 n)
{
	return n ? prandom_u32_state(r) % n : 0;
}

static const char *t_ev_name(int ev)
{
	return ev >= 0 && ev < T_NEV ? rdma_event_msg(ev) : "?";
}

static u32 t_now_us(void)
{
	return (u32)div_u64(ktime_get_ns() - t.t0, NSEC_PER_USEC);
}

/* A broken rule: count it; the first one is described with its id's log. */
static void t_violation(struct t_rec *r, const char *what, int ev)
{
	char trail[160] = "";
	unsigned long flags;
	int i, len = 0;

	if (atomic_inc_return(&t.violations) != 1)
		return;
	if (r) {
		spin_lock_irqsave(&r->log_lock, flags);
		for (i = 0; i < min(r->nlog, T_LOG) && len < sizeof(trail); i++)
			len += scnprintf(trail + len, sizeof(trail) - len,
					 " %s@%u-%u/%u", t_ev_name(r->log[i].ev),
					 r->log[i].start_us, r->log[i].end_us,
					 r->log[i].overlap);
		spin_unlock_irqrestore(&r->log_lock, flags);
	}
	spin_lock(&t.why_lock);
	scnprintf(t.why, sizeof(t.why), "%s: %s, id #%u flags %#lx, events:%s",
		  what, ev >= 0 ? t_ev_name(ev) : "-", r ? r->num : 0,
		  r ? r->flags : 0, trail);
	spin_unlock(&t.why_lock);
	pr_err("xcma_torture: %s\n", t.why);
}

/* not a violation, but what made a destroy wait: the id and its log */
static void t_slow(struct t_rec *r, u64 ns)
{
	char trail[160] = "";
	unsigned long flags;
	int i, len = 0;

	atomic_inc(&t.slow_destroys);
	spin_lock_irqsave(&r->log_lock, flags);
	for (i = 0; i < min(r->nlog, T_LOG) && len < sizeof(trail); i++)
		len += scnprintf(trail + len, sizeof(trail) - len, " %s",
				 t_ev_name(r->log[i].ev));
	spin_unlock_irqrestore(&r->log_lock, flags);
	pr_info("xcma_torture: rdma_destroy_id() of id #%u took %llu ms, flags %#lx, events:%s\n",
		r->num, div_u64(ns, NSEC_PER_MSEC), r->flags, trail);
}

/* the errno of a call; a positive value is never one */
static int t_count(enum t_call c, struct t_rec *r, int ret)
{
	int e = -ret;

	if (ret > 0)
		t_violation(r, "a call returned a positive value", -1);
	atomic_long_inc(&t.errs[c][e >= 0 && e < T_NERR ? e : T_NERR]);
	return ret;
}

/* a call whose errno the in-tree CM fixes whatever the timing */
static void t_expect(enum t_call c, struct t_rec *r, int ret, int want)
{
	char what[96];

	t_count(c, r, ret);
	if (ret == want)
		return;
	snprintf(what, sizeof(what), "%s returned %d, the in-tree CM %d",
		 t_call_names[c], ret, want);
	t_violation(r, what, -1);
}

/* @r holds rxe0 from now on; @gen: deletes started before it got it */
static void t_attached(struct t_rec *r, unsigned int gen)
{
	if (test_bit(RF_ATTACHED, &r->flags))
		return;
	r->g_after = gen;
	/* g_after before the bit: t_check_held() reads them the other way */
	smp_mb__before_atomic();
	set_bit(RF_ATTACHED, &r->flags);
}

/* after a call that may have attached the id (the owner's lock held) */
static void t_maybe_attached(struct t_rec *r)
{
	if (r->id->device && !test_bit(RF_ATTACHED, &r->flags))
		t_attached(r, atomic_read(&t.gen_started));
}

/* G5, before the owner destroys @r: the removal of its device is not over */
static void t_check_held(struct t_rec *r)
{
	if (!test_bit(RF_ATTACHED, &r->flags))
		return;
	/* pairs with t_attached(): the bit, then g_after */
	smp_rmb();
	if ((unsigned int)atomic_read(&t.gen_done) >= r->g_after + 1)
		t_violation(r, "G5: the removal of its device completed while it held it",
			    -1);
}

/* ---- ids and their verbs ---- */

static int t_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev);

static struct t_rec *t_rec_alloc(u64 seed)
{
	struct t_rec *r = kzalloc(sizeof(*r), GFP_KERNEL);

	if (!r)
		return NULL;
	r->slot = -1;
	r->num = atomic_inc_return(&t.nrec);
	atomic_set(&r->in_cb, 0);
	spin_lock_init(&r->log_lock);
	prandom_seed_state(&r->rnd, seed ^ ((u64)r->num << 32));
	spin_lock(&t.recs_lock);
	list_add_tail(&r->node, &t.recs);
	spin_unlock(&t.recs_lock);
	return r;
}

static void t_verbs_release(struct t_rec *r)
{
	if (r->has_qp)
		rdma_destroy_qp(r->id);
	r->has_qp = false;
	if (r->cq)
		ib_free_cq(r->cq);
	r->cq = NULL;
	if (r->mapped)
		ib_dma_unmap_single(r->pd->device, r->dma, T_BUF_LEN,
				    DMA_BIDIRECTIONAL);
	r->mapped = false;
	kfree(r->buf);
	r->buf = NULL;
	if (r->pd)
		ib_dealloc_pd(r->pd);
	r->pd = NULL;
}

static int t_post_recv(struct t_rec *r, int i)
{
	struct ib_sge sge = {
		.addr = r->dma + (1 + i) * T_MSG_LEN, .length = T_MSG_LEN,
		.lkey = r->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_id = T_WR_RECV + i, .sg_list = &sge, .num_sge = 1,
	};

	return ib_post_recv(r->id->qp, &wr, NULL);
}

/* PD, CQ and buffers on the id's device, kept until the id goes */
static int t_verbs_get(struct t_rec *r)
{
	struct ib_device *dev = r->id->device;
	struct ib_pd *pd;
	struct ib_cq *cq;

	if (r->pd)
		return 0;
	if (!dev)
		return -ENODEV;
	pd = ib_alloc_pd(dev, 0);
	if (IS_ERR(pd))
		return PTR_ERR(pd);
	r->pd = pd;
	cq = ib_alloc_cq(dev, NULL, 16, 0, IB_POLL_DIRECT);
	if (IS_ERR(cq))
		return PTR_ERR(cq);
	r->cq = cq;
	r->buf = kzalloc(T_BUF_LEN, GFP_KERNEL);
	if (!r->buf)
		return -ENOMEM;
	r->dma = ib_dma_map_single(dev, r->buf, T_BUF_LEN, DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(dev, r->dma))
		return -ENOMEM;
	r->mapped = true;
	return 0;
}

/* an RC QP on the id, its receives posted */
static int t_qp_create(struct t_rec *r)
{
	struct ib_qp_init_attr attr = {
		.cap = { .max_send_wr = 4, .max_recv_wr = T_RECVS,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.sq_sig_type = IB_SIGNAL_ALL_WR,
		.qp_type = IB_QPT_RC,
	};
	int ret, i;

	if (r->has_qp)
		return 0;
	ret = t_verbs_get(r);
	if (ret) {
		t_count(C_VERBS, r, ret);
		return ret;
	}
	attr.send_cq = r->cq;
	attr.recv_cq = r->cq;
	ret = t_count(C_CREATE_QP, r, rdma_create_qp(r->id, r->pd, &attr));
	if (ret)
		return ret;
	r->has_qp = true;
	for (i = 0; i < T_RECVS && !ret; i++)
		ret = t_post_recv(r, i);
	return ret;
}

/* the owner destroys the id of slot @sl (its lock held) */
static void t_destroy(struct t_slot *sl, enum t_call c)
{
	struct t_rec *r = sl->r;
	u64 t0;

	lockdep_assert_held(&sl->lock);
	t_verbs_release(r);
	t_check_held(r);
	set_bit(RF_DESTROY_CALLED, &r->flags);
	t0 = ktime_get_ns();
	rdma_destroy_id(r->id);
	t0 = ktime_get_ns() - t0;
	set_bit(RF_DESTROYED, &r->flags);
	if (t0 > 5 * NSEC_PER_SEC)
		t_slow(r, t0);
	/* the bit for later callbacks, before looking at running ones */
	smp_mb__after_atomic();
	if (atomic_read(&r->in_cb))
		t_violation(r, "G2: callback running after rdma_destroy_id() returned",
			    -1);
	t_count(c, r, 0);
	sl->r = NULL;
	r->slot = -1;
}

/* ---- callbacks ---- */

static void t_enter(struct t_rec *r, struct rdma_cm_id *id, int ev)
{
	int overlap = atomic_inc_return(&r->in_cb);
	unsigned long flags;

	if (overlap != 1)
		t_violation(r, "G1: callbacks overlap", ev);
	if (id != r->id)
		t_violation(r, "event for another id than its context's", ev);
	if (test_bit(RF_DESTROYED, &r->flags))
		t_violation(r, "G2: callback after rdma_destroy_id() returned", ev);
	if (test_bit(RF_BY_RETURN, &r->flags))
		t_violation(r, "G3: callback after one returned non-zero", ev);
	if (test_bit(RF_REMOVAL, &r->flags))
		t_violation(r, "G4: callback after DEVICE_REMOVAL", ev);
	spin_lock_irqsave(&r->log_lock, flags);
	if (r->nlog < T_LOG)
		r->log[r->nlog] = (struct t_ev){ .ev = ev, .overlap = overlap,
						 .start_us = t_now_us() };
	r->nlog++;
	spin_unlock_irqrestore(&r->log_lock, flags);
	if (ev >= 0 && ev < T_NEV)
		atomic_long_inc(&t.events[ev]);
	/* widen the window of an overlapping callback, if there is one */
	if (!t_below(&r->rnd, 4))
		udelay(t_below(&r->rnd, 30));
}

static void t_leave(struct t_rec *r, int n)
{
	unsigned long flags;

	spin_lock_irqsave(&r->log_lock, flags);
	if (n < T_LOG)
		r->log[n].end_us = t_now_us() ? : 1;
	spin_unlock_irqrestore(&r->log_lock, flags);
	/* the last touch of r: the batch frees it once no callback runs */
	atomic_dec(&r->in_cb);
}

/* In a callback: destroy by return, unless the owner is using the id. */
static int t_try_return(struct t_rec *r)
{
	struct t_slot *sl;

	if (r->slot < 0)
		return 0;
	sl = &t.slots[r->slot];
	if (!mutex_trylock(&sl->lock))
		return 0;
	if (sl->r != r) {
		mutex_unlock(&sl->lock);
		return 0;
	}
	t_verbs_release(r);
	set_bit(RF_BY_RETURN, &r->flags);
	sl->r = NULL;
	r->slot = -1;
	mutex_unlock(&sl->lock);
	t_count(C_BY_RETURN, r, 0);
	return 1;
}

/* a free slot for a conn id, locked; NULL if none or closing */
static struct t_slot *t_free_slot(struct t_rec *r)
{
	int i, k = t_below(&r->rnd, T_SLOTS);

	for (i = 0; i < T_SLOTS; i++) {
		struct t_slot *sl = &t.slots[(k + i) % T_SLOTS];

		if (!mutex_trylock(&sl->lock))
			continue;
		/* read under the slot's lock: see t_cleanup() */
		if (!sl->r && !READ_ONCE(t.closing)) {
			r->slot = sl - t.slots;
			return sl;
		}
		mutex_unlock(&sl->lock);
	}
	return NULL;
}

/*
 * CONNECT_REQUEST on a new conn id @c: refuse it by returning non-zero
 * (with or without a REJ), or accept it here (with a QP or without), or
 * leave it for a thread to answer; in the last two cases it takes a slot.
 */
static int t_request(struct t_rec *c)
{
	struct rdma_conn_param param = {
		.responder_resources = 1, .initiator_depth = 1,
		.rnr_retry_count = 7,
	};
	u32 how = t_below(&c->rnd, 16);
	struct t_slot *sl;
	int ret = 0;

	if (how < 2) {
		if (how == 0)
			t_count(C_REJECT, c,
				rdma_reject(c->id, "busy", 4,
					    IB_CM_REJ_CONSUMER_DEFINED));
		set_bit(RF_BY_RETURN, &c->flags);
		t_count(C_BY_RETURN, c, 0);
		return 1;
	}
	sl = t_free_slot(c);
	if (!sl) {
		set_bit(RF_BY_RETURN, &c->flags);
		t_count(C_BY_RETURN, c, 0);
		return 1;
	}
	if (how < 10) {
		if (how < 7)
			ret = t_qp_create(c);
		if (!ret)
			ret = t_count(C_ACCEPT, c, rdma_accept(c->id, &param));
		if (!ret)
			set_bit(RF_ACCEPTED, &c->flags);
		atomic_long_inc(&t.accepted_in_cb);
	} else {
		atomic_long_inc(&t.parked);
	}
	if (ret && !t_below(&c->rnd, 2)) {
		t_verbs_release(c);
		c->slot = -1;
		mutex_unlock(&sl->lock);
		set_bit(RF_BY_RETURN, &c->flags);
		t_count(C_BY_RETURN, c, 0);
		return 1;
	}
	sl->r = c;
	mutex_unlock(&sl->lock);
	return 0;
}

static int t_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct t_rec *r = id->context;
	int ret = 0, n;

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
		r = t_rec_alloc(get_random_u64());
		if (!r)
			return 1;
		r->id = id;
		id->context = r;
		/* a SIDR request's id is a UD one, as the requester's */
		if (id->qp_type == IB_QPT_UD)
			set_bit(RF_UD, &r->flags);
		atomic_long_inc(&t.conn_ids);
	}
	n = r->nlog;
	t_enter(r, id, ev->event);
	switch (ev->event) {
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		t_attached(r, atomic_read(&t.gen_started));
		ret = t_request(r);
		break;
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		t_attached(r, atomic_read(&t.gen_started));
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		set_bit(RF_ESTABLISHED, &r->flags);
		break;
	case RDMA_CM_EVENT_REJECTED: {
		u8 len;

		rdma_consumer_reject_data(id, ev, &len);
		break;
	}
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		/* the removal under way is the one that waits for r */
		t_attached(r, atomic_read(&t.gen_started) - 1);
		if (test_bit(RF_DESTROY_CALLED, &r->flags))
			atomic_long_inc(&t.removal_in_destroy);
		break;
	default:
		break;
	}
	/* destroy by return: often on DEVICE_REMOVAL, now and then else */
	if (!ret && ev->event != RDMA_CM_EVENT_CONNECT_REQUEST &&
	    !t_below(&r->rnd, ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL ? 2 : 16))
		ret = t_try_return(r);
	if (ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL)
		set_bit(RF_REMOVAL, &r->flags);
	t_leave(r, n);
	return ret;
}

/* ---- the operations ---- */

static void t_addr(struct sockaddr_storage *ss, int family, const char *ip,
		   u16 port)
{
	if (family == AF_INET6)
		cm_addr6(ss, ip, port);
	else if (family == AF_INET)
		cm_addr4(ss, ip, port);
	else
		*ss = (struct sockaddr_storage){ .ss_family = family };
}

static u16 t_port(u32 a)
{
	return T_PORT_BASE + a % T_PORTS;
}

static void t_create(struct t_slot *sl, u32 a)
{
	static const struct {
		enum rdma_ucm_port_space ps;
		enum ib_qp_type qpt;
	} kinds[16] = {
		[0 ... 10] = { RDMA_PS_TCP, IB_QPT_RC },
		[11] = { RDMA_PS_TCP, IB_QPT_UD },
		/* cm_test.c bind_unknown_port_space: refused at bind */
		[12] = { (enum rdma_ucm_port_space)0x0777, IB_QPT_RC },
		[13] = { RDMA_PS_UDP, IB_QPT_UD },
		[14] = { RDMA_PS_IB, IB_QPT_RC },
		[15] = { RDMA_PS_IPOIB, IB_QPT_UD },
	};
	struct rdma_cm_id *id;
	struct t_rec *r;
	int k = a % 16;

	r = t_rec_alloc(a);
	if (!r) {
		t_count(C_CREATE, NULL, -ENOMEM);
		return;
	}
	id = rdma_create_id(&init_net, t_handler, r, kinds[k].ps, kinds[k].qpt);
	if (IS_ERR(id)) {
		t_count(C_CREATE, r, PTR_ERR(id));
		/* nothing to destroy: done, for the end-of-batch check */
		set_bit(RF_DESTROYED, &r->flags);
		return;
	}
	t_count(C_CREATE, r, 0);
	atomic_long_inc(&t.ids);
	r->id = id;
	if (kinds[k].qpt == IB_QPT_UD)
		set_bit(RF_UD, &r->flags);
	r->slot = sl - t.slots;
	sl->r = r;
}

/* invalid arguments: -EINVAL, as in cm_test.c's create_refuses_bad_args */
static void t_create_bad(u32 a)
{
	struct rdma_cm_id *id;

	if (a & 1)
		id = rdma_create_id(&init_net, NULL, NULL, RDMA_PS_TCP,
				    IB_QPT_RC);
	else
		id = rdma_create_id(&init_net, t_handler, NULL, RDMA_PS_TCP,
				    IB_QPT_GSI);
	t_expect(C_CREATE_BAD, NULL, PTR_ERR_OR_ZERO(id), -EINVAL);
	if (!IS_ERR(id))
		rdma_destroy_id(id);
}

static void t_bind(struct t_rec *r, u32 a)
{
	bool idle = cm_state(r->id) == XCMA_FSM_IDLE;
	struct sockaddr_storage ss;
	u16 port = t_port(a >> 8);
	int ret;

	switch (a % 16) {
	case 6 ... 7:
		t_addr(&ss, AF_INET6, "fd00:99::1", port);
		break;
	case 8 ... 9:
		t_addr(&ss, AF_INET, NULL, port);
		break;
	case 10:
		t_addr(&ss, AF_INET6, NULL, port);
		break;
	case 11:
		t_addr(&ss, AF_INET, "10.99.0.1", 0);
		break;
	case 12:
		t_addr(&ss, AF_UNIX, NULL, 0);
		break;
	case 13:
		t_addr(&ss, AF_INET, "10.99.0.77", port);
		break;
	default:
		t_addr(&ss, AF_INET, "10.99.0.1", port);
		break;
	}
	ret = rdma_bind_addr(r->id, (struct sockaddr *)&ss);
	/* cm_test.c bind_family_unix */
	if (ss.ss_family == AF_UNIX && idle)
		t_expect(C_BIND, r, ret, -EAFNOSUPPORT);
	else
		t_count(C_BIND, r, ret);
	t_maybe_attached(r);
}

static void t_resolve_addr(struct t_rec *r, u32 a)
{
	struct sockaddr_storage src, dst;
	struct sockaddr *s = NULL;
	u16 port = t_port(a >> 8);
	unsigned long ms = 1000;

	switch (a % 16) {
	case 8 ... 9:
		t_addr(&dst, AF_INET6, "fd00:99::1", port);
		break;
	case 10:
		t_addr(&dst, AF_INET, "10.99.0.77", port);
		ms = 500;
		break;
	case 11:
		t_addr(&dst, AF_UNIX, NULL, 0);
		break;
	case 12:
		t_addr(&src, AF_INET, "10.99.0.1", 0);
		t_addr(&dst, AF_INET, "10.99.0.1", port);
		s = (struct sockaddr *)&src;
		break;
	case 13:
		t_addr(&src, AF_INET, "10.99.0.1", 0);
		t_addr(&dst, AF_INET6, "fd00:99::1", port);
		s = (struct sockaddr *)&src;
		break;
	default:
		t_addr(&dst, AF_INET, "10.99.0.1", port);
		break;
	}
	t_count(C_RESOLVE_ADDR, r,
		rdma_resolve_addr(r->id, s, (struct sockaddr *)&dst, ms));
	t_maybe_attached(r);
}

static void t_resolve_route(struct t_rec *r, u32 a)
{
	int ret;

	if (a % 8 == 0) {
		/* cm_test.c route_zero_timeout: refused in any state */
		t_expect(C_RESOLVE_ROUTE, r, rdma_resolve_route(r->id, 0),
			 -EINVAL);
		return;
	}
	ret = rdma_resolve_route(r->id, 1000);
	t_count(C_RESOLVE_ROUTE, r, ret);
}

static void t_connect(struct t_rec *r, u32 a)
{
	static const u8 data[IB_CM_REQ_PRIVATE_DATA_SIZE];
	struct rdma_conn_param p = {
		.private_data = "tt", .private_data_len = 3,
		.responder_resources = 1, .initiator_depth = 1,
		.retry_count = 7, .rnr_retry_count = 7,
	};
	struct rdma_ucm_ece ece = { .vendor_id = 0x15b3, .attr_mod = a };

	if ((a >> 4) % 2 == 0 && r->id->device &&
	    !test_bit(RF_UD, &r->flags))
		t_qp_create(r);
	switch (a % 8) {
	case 0:
		/* cm_test.c connect_private_data_too_long; -EINVAL too
		 * in any other state
		 */
		p.private_data = data;
		p.private_data_len = IB_CM_REQ_PRIVATE_DATA_SIZE - 35;
		if (test_bit(RF_UD, &r->flags))
			t_count(C_CONNECT, r, rdma_connect(r->id, &p));
		else
			t_expect(C_CONNECT, r, rdma_connect(r->id, &p), -EINVAL);
		break;
	case 1:
		if (!t_count(C_CONNECT_ECE, r,
			     rdma_connect_ece(r->id, &p, &ece)))
			set_bit(RF_ACTIVE, &r->flags);
		break;
	default:
		if (!t_count(C_CONNECT, r, rdma_connect(r->id, &p)))
			set_bit(RF_ACTIVE, &r->flags);
		break;
	}
}

/*
 * ib_cm accepts a REJ from the active side in REQ_SENT, and from the
 * passive side in REP_SENT (also sent by a second rdma_accept(), which
 * fails and rejects), as with the in-tree CM, but leaves the REQ or REP
 * MAD outstanding: destroying the id then waits until that MAD times out,
 * a minute or more, and so does a removal. Not asked here.
 */
static bool t_rej_would_stall(struct t_rec *r)
{
	if (!test_bit(RF_ACTIVE, &r->flags) &&
	    !test_bit(RF_ACCEPTED, &r->flags))
		return false;
	t_count(C_SKIPPED, r, 0);
	return true;
}

/*
 * COMM_EST on a conn id in REP_SENT moves ib_cm to ESTABLISHED at once
 * and cancels the REP MAD only later, from a work item that gives up if
 * a DREQ came first; the RTU is then ignored too, and the REP stays
 * outstanding until it times out: again a minute of destroy and removal.
 */
static bool t_notify_would_stall(struct t_rec *r)
{
	if (!test_bit(RF_ACCEPTED, &r->flags) ||
	    test_bit(RF_ESTABLISHED, &r->flags))
		return false;
	t_count(C_SKIPPED, r, 0);
	return true;
}

static void t_accept(struct t_rec *r, u32 a)
{
	struct rdma_conn_param p = {
		.responder_resources = 1, .initiator_depth = 1,
		.rnr_retry_count = 7,
	};
	struct rdma_ucm_ece ece = { .vendor_id = 0x15b3 };
	int ret;

	if (t_rej_would_stall(r))
		return;
	if ((a >> 4) % 2 == 0 && r->id->device &&
	    !test_bit(RF_UD, &r->flags))
		t_qp_create(r);
	rdma_lock_handler(r->id);
	switch (a % 4) {
	case 0:
		ret = t_count(C_ACCEPT, r, rdma_accept(r->id, NULL));
		break;
	case 1:
		ret = t_count(C_ACCEPT_ECE, r, rdma_accept_ece(r->id, &p, &ece));
		break;
	default:
		ret = t_count(C_ACCEPT, r, rdma_accept(r->id, &p));
		break;
	}
	rdma_unlock_handler(r->id);
	if (!ret)
		set_bit(RF_ACCEPTED, &r->flags);
}

static void t_set(struct t_rec *r, u32 a)
{
	bool ud = test_bit(RF_UD, &r->flags);
	u8 v = a >> 8;
	int ret;

	switch (a % 6) {
	case 0:
		rdma_set_service_type(r->id, v);
		t_count(C_SET_TOS, r, 0);
		break;
	case 1:
		t_count(C_SET_REUSEADDR, r, rdma_set_reuseaddr(r->id, v & 1));
		break;
	case 2:
		t_count(C_SET_AFONLY, r, rdma_set_afonly(r->id, v & 1));
		break;
	case 3:
		ret = rdma_set_ack_timeout(r->id, v % 33);
		/* cm_test.c ack_timeout_on_ud, ack_timeout_out_of_range */
		t_expect(C_SET_ACK_TIMEOUT, r, ret, ud ? -EINVAL : 0);
		break;
	default:
		v %= 40;
		ret = rdma_set_min_rnr_timer(r->id, v);
		/* cm_test.c min_rnr_timer_32, min_rnr_timer_on_ud */
		t_expect(C_SET_MIN_RNR, r, ret, ud || v > 31 ? -EINVAL : 0);
		break;
	}
}

static void t_send(struct t_rec *r, u32 a)
{
	struct ib_sge sge;
	struct ib_send_wr wr = {
		.wr_id = T_WR_SEND, .sg_list = &sge, .num_sge = 1,
		.opcode = IB_WR_SEND, .send_flags = IB_SEND_SIGNALED,
	};

	if (!r->has_qp)
		return;
	snprintf(r->buf, T_MSG_LEN, "%s %u", T_MSG, r->sent++);
	ib_dma_sync_single_for_device(r->pd->device, r->dma, T_MSG_LEN,
				      DMA_BIDIRECTIONAL);
	sge = (struct ib_sge){ .addr = r->dma, .length = T_MSG_LEN,
			       .lkey = r->pd->local_dma_lkey };
	t_count(C_POST_SEND, r, ib_post_send(r->id->qp, &wr, NULL));
	atomic_long_inc(&t.sends);
}

static void t_poll(struct t_rec *r)
{
	struct ib_wc wc[4];
	int n, i;

	if (!r->cq)
		return;
	n = ib_poll_cq(r->cq, ARRAY_SIZE(wc), wc);
	t_count(C_POLL, r, n < 0 ? n : 0);
	for (i = 0; i < n; i++) {
		int slot = wc[i].wr_id - T_WR_RECV;
		char *msg;

		if (wc[i].status != IB_WC_SUCCESS || wc[i].wr_id == T_WR_SEND)
			continue;
		msg = r->buf + (1 + slot) * T_MSG_LEN;
		ib_dma_sync_single_for_cpu(r->pd->device, r->dma, T_BUF_LEN,
					   DMA_BIDIRECTIONAL);
		if (strncmp(msg, T_MSG, sizeof(T_MSG) - 1))
			t_violation(r, "a message arrived altered", -1);
		else
			atomic_long_inc(&t.messages);
		if (r->has_qp)
			t_post_recv(r, slot);
	}
}

static void t_query(struct t_rec *r, u32 a)
{
	struct ib_qp_attr attr = {};
	union ib_gid sgid, dgid;
	struct sockaddr_storage ss;
	int mask;

	switch (a % 4) {
	case 0:
		rdma_read_gids(r->id, &sgid, &dgid);
		t_count(C_READ_GIDS, r, 0);
		break;
	case 1:
		t_addr(&ss, AF_INET, "10.99.0.1", t_port(a >> 8));
		rdma_get_service_id(r->id, (struct sockaddr *)&ss);
		t_count(C_SERVICE_ID, r, 0);
		break;
	case 2:
		attr.qp_state = (a >> 8) % 3 == 0 ? IB_QPS_INIT :
				(a >> 8) % 3 == 1 ? IB_QPS_RTR : IB_QPS_RTS;
		t_count(C_INIT_QP_ATTR, r,
			rdma_init_qp_attr(r->id, &attr, &mask));
		break;
	default:
		rdma_reject_msg(r->id, (a >> 8) % 40);
		t_count(C_REJECT_MSG, r, 0);
		break;
	}
}

/*
 * The next step of a connection for the id's state, so that some ids get
 * through resolution, connect, accept and messages among all the noise.
 */
static void t_advance(struct t_rec *r, u32 a)
{
	struct sockaddr_storage ss;

	switch (cm_state(r->id)) {
	case XCMA_FSM_IDLE:
		if (a % 4 == 0) {
			t_addr(&ss, AF_INET, a & 16 ? NULL : "10.99.0.1",
			       t_port(a >> 8));
			if (!t_count(C_BIND, r,
				     rdma_bind_addr(r->id, (struct sockaddr *)&ss)))
				t_count(C_LISTEN, r, rdma_listen(r->id, 8));
			t_maybe_attached(r);
			break;
		}
		t_resolve_addr(r, 0 | (a & 0xff00));
		break;
	case XCMA_FSM_ADDR_RESOLVED:
		t_resolve_route(r, 1);
		break;
	case XCMA_FSM_ROUTE_RESOLVED:
		t_connect(r, 2 | (a & 0xf0));
		break;
	case XCMA_FSM_CONNECT:
		if (r->id->qp_type == IB_QPT_RC && !(a & 1))
			t_accept(r, 2 | (a & 0xf0));
		break;
	default:
		if (a & 1)
			t_send(r, a);
		else
			t_poll(r);
		break;
	}
}

/* one drawn operation on slot @sl, its lock held */
static void t_apply(struct t_slot *sl, enum t_op op, u32 a)
{
	struct t_rec *r = sl->r;

	lockdep_assert_held(&sl->lock);
	if (op == OP_CREATE_BAD) {
		t_create_bad(a);
		return;
	}
	if (!r) {
		t_create(sl, a);
		return;
	}
	/* the owner's reaction to DEVICE_REMOVAL, most of the time */
	if (test_bit(RF_REMOVAL, &r->flags) && (a >> 28) % 4) {
		atomic_long_inc(&t.notified_destroy);
		t_destroy(sl, C_DESTROY_REACTION);
		return;
	}
	switch (op) {
	case OP_BIND:
		t_bind(r, a);
		break;
	case OP_RESOLVE_ADDR:
		t_resolve_addr(r, a);
		break;
	case OP_RESOLVE_ROUTE:
		t_resolve_route(r, a);
		break;
	case OP_CONNECT:
		t_connect(r, a);
		break;
	case OP_LISTEN:
		t_count(C_LISTEN, r, rdma_listen(r->id, a % 4 ? 8 : 0));
		t_maybe_attached(r);
		break;
	case OP_ACCEPT:
		t_accept(r, a);
		break;
	case OP_REJECT:
		if (t_rej_would_stall(r))
			break;
		t_count(C_REJECT, r, rdma_reject(r->id, "no", a % 4 ? 3 : 0,
						 IB_CM_REJ_CONSUMER_DEFINED));
		break;
	case OP_DISCONNECT:
		t_count(C_DISCONNECT, r, rdma_disconnect(r->id));
		break;
	case OP_NOTIFY:
		if (t_notify_would_stall(r))
			break;
		if (!t_count(C_NOTIFY, r, rdma_notify(r->id, IB_EVENT_COMM_EST)))
			set_bit(RF_NOTIFIED, &r->flags);
		break;
	case OP_SET:
		t_set(r, a);
		break;
	case OP_CREATE_QP:
		if (r->id->device && !r->has_qp)
			t_qp_create(r);
		break;
	case OP_DESTROY_QP:
		rdma_destroy_qp(r->id);
		r->has_qp = false;
		t_count(C_DESTROY_QP, r, 0);
		break;
	case OP_DESTROY:
		t_destroy(sl, C_DESTROY);
		break;
	case OP_SEND:
		t_send(r, a);
		break;
	case OP_POLL:
		t_poll(r);
		break;
	case OP_QUERY:
		t_query(r, a);
		break;
	case OP_ADVANCE:
		t_advance(r, a);
		break;
	default:
		break;
	}
}

static bool t_stopping(void)
{
	return READ_ONCE(t.stop) || kthread_should_stop();
}

/* quota drawn: only destroy notified ids, so that removals complete */
static void t_react_only(void)
{
	int i;

	for (i = 0; i < T_SLOTS; i++) {
		struct t_slot *sl = &t.slots[i];

		mutex_lock(&sl->lock);
		if (sl->r && test_bit(RF_REMOVAL, &sl->r->flags)) {
			atomic_long_inc(&t.notified_destroy);
			t_destroy(sl, C_DESTROY_REACTION);
		}
		mutex_unlock(&sl->lock);
	}
}

static int t_thread_fn(void *data)
{
	struct t_thread *th = data;
	unsigned int op, i;
	u32 r1, a, w;

	while (!t_stopping()) {
		if (!th->left) {
			t_react_only();
			wait_event_timeout(t.wq, t_stopping(),
					   msecs_to_jiffies(20));
			continue;
		}
		/* exactly two draws per operation, whatever happens */
		r1 = prandom_u32_state(&th->rnd);
		a = prandom_u32_state(&th->rnd);
		w = (r1 & 0xffff) % t.weights;
		for (op = 0; w >= t_ops_info[op].weight; op++)
			w -= t_ops_info[op].weight;
		i = (r1 >> 16) % T_SLOTS;
		th->drawn[op]++;
		th->hash = jhash_3words(op, i, a, th->hash);

		mutex_lock(&t.slots[i].lock);
		__set_bit(raw_smp_processor_id() % BITS_PER_LONG, &th->cpus);
		t_apply(&t.slots[i], op, a);
		mutex_unlock(&t.slots[i].lock);

		if (!--th->left && atomic_inc_return(&t.done) == t.nthreads)
			wake_up_all(&t.wq);
		/* let the event sources run: TCG has two CPUs for everyone */
		if ((r1 & 7) == 0)
			usleep_range(50, 300);
		else
			cond_resched();
	}
	return 0;
}

/* ---- the case ---- */

static void t_start_threads(struct kunit *test)
{
	struct task_struct *task;
	int i;

	WRITE_ONCE(t.stop, false);
	WRITE_ONCE(t.closing, false);
	for (i = 0; i < t.nthreads; i++) {
		struct t_thread *th = &t.threads[i];

		task = kthread_create(t_thread_fn, th, "xcma_torture/%d", i);
		if (IS_ERR(task)) {
			KUNIT_FAIL(test, "kthread_create: %ld", PTR_ERR(task));
			th->task = NULL;
			t.aborted = true;
			continue;
		}
		/* spread over every CPU: thread i runs on CPU i mod n */
		kthread_bind(task, cpumask_nth(i % num_online_cpus(),
					       cpu_online_mask));
		get_task_struct(task);
		th->task = task;
		wake_up_process(task);
	}
}

static void t_stop_threads(void)
{
	int i;

	WRITE_ONCE(t.stop, true);
	wake_up_all(&t.wq);
	for (i = 0; i < t.nthreads; i++) {
		struct task_struct *task = t.threads[i].task;

		if (!task)
			continue;
		kthread_stop(task);
		put_task_struct(task);
		t.threads[i].task = NULL;
	}
}

/*
 * The owner destroys what is left. closing first: a conn id that looks
 * for a slot afterwards finds it set, under the slot's lock, and returns
 * non-zero instead.
 */
static void t_cleanup(void)
{
	int i;

	WRITE_ONCE(t.closing, true);
	for (i = 0; i < T_SLOTS; i++) {
		struct t_slot *sl = &t.slots[i];

		mutex_lock(&sl->lock);
		if (sl->r)
			t_destroy(sl, C_DESTROY);
		mutex_unlock(&sl->lock);
	}
}

/* G8 for every id of the batch, then their logs go */
static void t_check_released(void)
{
	struct t_rec *r, *tmp;
	LIST_HEAD(done);
	int i;

	spin_lock(&t.recs_lock);
	list_splice_init(&t.recs, &done);
	spin_unlock(&t.recs_lock);
	list_for_each_entry_safe(r, tmp, &done, node) {
		if (!test_bit(RF_DESTROYED, &r->flags) &&
		    !test_bit(RF_BY_RETURN, &r->flags))
			t_violation(r, "G8: not released at the end", -1);
		for (i = 0; i < 100 && atomic_read(&r->in_cb); i++)
			usleep_range(10000, 20000);
		if (atomic_read(&r->in_cb))
			t_violation(r, "a callback never returned", -1);
		else
			kfree(r);
	}
}

/* what xcma frees late (after a callback's return) is gone in ~5 s */
static int t_settle(atomic_t *v)
{
	int i;

	for (i = 0; i < 300 && atomic_read(v); i++)
		usleep_range(10000, 20000);
	return atomic_read(v);
}

static unsigned int t_live_settle(void)
{
	int i;

	for (i = 0; i < 300 && xcma_id_live() != t.base_live; i++)
		usleep_range(10000, 20000);
	return xcma_id_live();
}

static void t_removal(struct kunit *test)
{
	u64 t0 = ktime_get_ns();

	atomic_inc(&t.gen_started);
	/* an id that reads the old count got rxe0 before this delete began */
	smp_mb__after_atomic();
	cm_rxe_delete(test);
	/* the delete is over before anybody sees it counted */
	smp_mb__before_atomic();
	atomic_inc(&t.gen_done);
	msleep(t_below(&t.rnd, 300));
	if (cm_rxe_add(test))
		t.aborted = true;
	t.removals++;
	t.removal_ns += ktime_get_ns() - t0;
}

static bool t_all_done(void)
{
	return atomic_read(&t.done) >= t.nthreads;
}

static void torture_batch(struct kunit *test)
{
	int violations = atomic_read(&t.violations);
	u64 start = ktime_get_ns(), limit = (u64)T_BATCH_MS * NSEC_PER_MSEC;
	unsigned int removals = t.removals;
	char why[sizeof(t.why)];
	u64 est;

	if (t.batches++ == 0) {
		t.t0 = start;
		kunit_info(test, "seed %llu: %u operations, %u threads, %d ids in the pool, removal %s (replay: torture_seed=%llu torture_ops=%u torture_threads=%u)",
			   t.seed, torture_ops, t.nthreads, T_SLOTS,
			   torture_removal ? "on" : "off", t.seed, torture_ops,
			   t.nthreads);
	}
	t_start_threads(test);
	while (!t.aborted && !t_all_done()) {
		wait_event_timeout(t.wq, t_all_done(),
				   msecs_to_jiffies(200 + t_below(&t.rnd, 1000)));
		/* a removal as long as the mean so far, 8 s at most */
		est = t.removals ? div_u64(t.removal_ns, t.removals) :
				   4 * NSEC_PER_SEC;
		est = min_t(u64, est, 8 * NSEC_PER_SEC);
		if (!torture_removal)
			est = 0;
		if (ktime_get_ns() - start + est > limit)
			break;
		if (torture_removal && !t_all_done())
			t_removal(test);
	}
	t_stop_threads();
	t_cleanup();
	t_check_released();

	KUNIT_EXPECT_EQ(test, t_live_settle(), t.base_live);
	KUNIT_EXPECT_EQ(test, cm_module_refs_settle(t.base_refs), t.base_refs);
	KUNIT_EXPECT_EQ_MSG(test, t_settle(&t_cm_held), 0, "ib_cm ids left");
	KUNIT_EXPECT_EQ_MSG(test, t_settle(&t_qps), 0, "QPs left");
	KUNIT_EXPECT_EQ_MSG(test, t_settle(&t_gids), 0, "GID attributes left");
	cm_expect_rxe0_idle(test);
	spin_lock(&t.why_lock);
	strscpy(why, t.why, sizeof(why));
	spin_unlock(&t.why_lock);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&t.violations), violations,
			    "first: %s", why);
	t.run_ns += ktime_get_ns() - start;
	kunit_info(test, "batch %u: %u removals, %ld ids so far, %d violations",
		   t.batches, t.removals - removals, atomic_long_read(&t.ids),
		   atomic_read(&t.violations));
}

static const void *torture_batch_gen(const void *prev, char *desc)
{
	unsigned long n = (unsigned long)prev + 1;

	if (t.aborted || (prev && t_all_done()) || n > 10000)
		return NULL;
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "batch_%03lu", n);
	return (const void *)n;
}

/* CONFIG_SYMBOLIC_ERRNAME is off in the test kernel: the usual ones */
static const char *t_errname(int e)
{
	static const char *const names[T_NERR] = {
		[EPERM] = "EPERM", [ENOENT] = "ENOENT", [EIO] = "EIO",
		[ENXIO] = "ENXIO", [EAGAIN] = "EAGAIN", [ENOMEM] = "ENOMEM",
		[EBUSY] = "EBUSY", [EEXIST] = "EEXIST", [ENODEV] = "ENODEV",
		[EINVAL] = "EINVAL", [ENOSPC] = "ENOSPC",
		[XCMA_ENOTRANSPORT] = "ENOSYS", [EMSGSIZE] = "EMSGSIZE",
		[EPROTONOSUPPORT] = "EPROTONOSUPPORT",
		[EOPNOTSUPP] = "EOPNOTSUPP", [EAFNOSUPPORT] = "EAFNOSUPPORT",
		[EADDRINUSE] = "EADDRINUSE", [EADDRNOTAVAIL] = "EADDRNOTAVAIL",
		[ENETUNREACH] = "ENETUNREACH", [ECONNRESET] = "ECONNRESET",
		[EISCONN] = "EISCONN", [ETIMEDOUT] = "ETIMEDOUT",
		[ECONNREFUSED] = "ECONNREFUSED", [EHOSTUNREACH] = "EHOSTUNREACH",
		[EALREADY] = "EALREADY",
	};

	return e > 0 && e < T_NERR ? names[e] : NULL;
}

static void t_print_errnos(struct kunit *test)
{
	char line[320];
	int c, e, len;

	for (c = 0; c < T_NCALLS; c++) {
		long n, sum = 0;

		len = 0;
		for (e = 0; e <= T_NERR; e++) {
			n = atomic_long_read(&t.errs[c][e]);
			sum += n;
			if (!n)
				continue;
			if (!e)
				len += scnprintf(line + len, sizeof(line) - len,
						 " ok=%ld", n);
			else if (t_errname(e))
				len += scnprintf(line + len, sizeof(line) - len,
						 " %s=%ld", t_errname(e), n);
			else if (e < T_NERR)
				len += scnprintf(line + len, sizeof(line) - len,
						 " -%d=%ld", e, n);
			else
				len += scnprintf(line + len, sizeof(line) - len,
						 " other=%ld", n);
		}
		if (sum)
			kunit_info(test, "  %-22s %7ld:%s", t_call_names[c], sum,
				   line);
	}
}

static void torture_summary(struct kunit *test)
{
	unsigned long drawn[T_NOPS] = {}, total = 0, cpus = 0;
	char line[400];
	int i, k, len;
	long ev_total = 0;

	if (!torture_ops)
		kunit_skip(test, "torture_ops=0");
	kunit_info(test, "seed %llu, %u threads, %u batches, %llu s, %u removals (%llu ms each)",
		   t.seed, t.nthreads, t.batches,
		   div_u64(t.run_ns, NSEC_PER_SEC), t.removals,
		   t.removals ? div_u64(t.removal_ns,
					t.removals * NSEC_PER_MSEC) : 0);
	for (i = 0; i < t.nthreads; i++) {
		struct t_thread *th = &t.threads[i];
		unsigned long n = 0;

		len = 0;
		for (k = 0; k < T_NOPS; k++) {
			n += th->drawn[k];
			drawn[k] += th->drawn[k];
			len += scnprintf(line + len, sizeof(line) - len, " %lu",
					 th->drawn[k]);
		}
		total += n;
		kunit_info(test, "thread %d: %lu ops, sequence hash %08x, CPUs %*pbl, by kind:%s",
			   i, n, th->hash, BITS_PER_LONG, &th->cpus, line);
		cpus |= th->cpus;
	}
	/* a torture on one CPU interleaves by preemption only */
	kunit_info(test, "CPUs online %u, threads ran on %*pbl",
		   num_online_cpus(), BITS_PER_LONG, &cpus);
	KUNIT_EXPECT_EQ(test, hweight_long(cpus),
			min(num_online_cpus(), t.nthreads));
	len = 0;
	for (k = 0; k < T_NOPS; k++)
		len += scnprintf(line + len, sizeof(line) - len, " %s=%lu",
				 t_ops_info[k].name, drawn[k]);
	kunit_info(test, "ops %lu:%s", total, line);
	len = 0;
	for (k = 0; k < T_NEV; k++) {
		long n = atomic_long_read(&t.events[k]);

		ev_total += n;
		if (n)
			len += scnprintf(line + len, sizeof(line) - len,
					 " %s=%ld", t_ev_name(k), n);
	}
	kunit_info(test, "events %ld:%s", ev_total, line);
	kunit_info(test, "ids %ld, conn ids %ld (accepted in the callback %ld, parked %ld), destroyed after DEVICE_REMOVAL %ld, DEVICE_REMOVAL while rdma_destroy_id() ran %ld",
		   atomic_long_read(&t.ids), atomic_long_read(&t.conn_ids),
		   atomic_long_read(&t.accepted_in_cb),
		   atomic_long_read(&t.parked),
		   atomic_long_read(&t.notified_destroy),
		   atomic_long_read(&t.removal_in_destroy));
	kunit_info(test, "messages: %ld sent, %ld received intact; ib_cm ids destroyed by ib_cm untracked %d; destroys over 5 s %d",
		   atomic_long_read(&t.sends), atomic_long_read(&t.messages),
		   atomic_read(&t_cm_untracked), atomic_read(&t.slow_destroys));
	kunit_info(test, "calls by errno:");
	t_print_errnos(test);

	KUNIT_EXPECT_EQ(test, total, (unsigned long)torture_ops);
	KUNIT_EXPECT_FALSE(test, t.aborted);
	KUNIT_EXPECT_EQ(test, atomic_read(&t.violations), 0);
	KUNIT_EXPECT_EQ(test, xcma_id_module_refs(), t.base_refs);
	if (torture_removal)
		KUNIT_EXPECT_GT(test, t.removals, 0U);
}

static int torture_init(struct kunit_suite *suite)
{
	unsigned int i, quota;

	memset(&t, 0, sizeof(t));
	spin_lock_init(&t.recs_lock);
	spin_lock_init(&t.why_lock);
	INIT_LIST_HEAD(&t.recs);
	init_waitqueue_head(&t.wq);
	for (i = 0; i < T_SLOTS; i++)
		mutex_init(&t.slots[i].lock);
	for (i = 0; i < T_NOPS; i++)
		t.weights += t_ops_info[i].weight;
	t.nthreads = clamp(torture_threads, 1U, (unsigned int)T_MAX_THREADS);
	t.seed = torture_seed ? torture_seed : get_random_u64();
	prandom_seed_state(&t.rnd, t.seed);
	quota = torture_ops / t.nthreads;
	for (i = 0; i < t.nthreads; i++) {
		prandom_seed_state(&t.threads[i].rnd, t.seed + 7919ULL * i);
		t.threads[i].left = quota + (i ? 0 : torture_ops % t.nthreads);
		if (!t.threads[i].left)
			atomic_inc(&t.done);
	}
	t.base_refs = xcma_id_module_refs();
	t.base_live = xcma_id_live();
	atomic_set(&t_cm_held, 0);
	atomic_set(&t_qps, 0);
	atomic_set(&t_gids, 0);
	atomic_set(&t_cm_untracked, 0);
	/* no id is alive: the ops may change */
	t_ops = xcma_kernel_ops;
	t_ops.create_cm_id = t_create_cm_id;
	t_ops.destroy_cm_id = t_destroy_cm_id;
	t_ops.insert_listen = t_insert_listen;
	t_ops.create_qp = t_create_qp;
	t_ops.destroy_qp = t_destroy_qp;
	t_ops.find_gid_by_port = t_find_gid_by_port;
	t_ops.put_gid_attr = t_put_gid_attr;
	t_ops.hold_gid_attr = t_hold_gid_attr;
	xcma_ops_set(&t_ops);
	return 0;
}

static void torture_exit(struct kunit_suite *suite)
{
	xcma_ops_set(NULL);
	xa_destroy(&t_cm_ids);
}

static struct kunit_case torture_cases[] = {
	KUNIT_CASE_PARAM_ATTR(torture_batch, torture_batch_gen,
			      { .speed = KUNIT_SPEED_VERY_SLOW }),
	KUNIT_CASE(torture_summary),
	{}
};

static struct kunit_suite torture_suite = {
	.name = "xcma_torture",
	.init = xcma_kunit_sweep_init,
	.suite_init = torture_init,
	.suite_exit = torture_exit,
	.test_cases = torture_cases,
	.attr = { .speed = KUNIT_SPEED_VERY_SLOW },
};

kunit_test_suite(torture_suite);
