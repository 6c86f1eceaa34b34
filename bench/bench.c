// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * xcma_bench: xcma and the in-tree rdma_cm, loaded side by side, doing the
 * same work on the same RDMA device, interleaved: in each round a batch of
 * one CM, then a batch of the other (who goes first rotates), and for
 * connect a batch on ib_cm alone. Driven through debugfs (scripts/bench.sh,
 * make bench):
 *
 *   echo <figure> > /sys/kernel/debug/xcma_bench/run
 *	ids       create, bind to addr:0 (a device and an ephemeral port),
 *		  destroy; all of it timed
 *	resolve   resolve_addr to addr and resolve_route, each to its event;
 *		  create and destroy of the id are not timed
 *	connect   on a route-resolved client id (not timed): create its QP,
 *		  connect to a listener of the same CM whose callback creates
 *		  the conn id's QP and accepts; both ESTABLISHED; the client
 *		  disconnects, the server answers from its DISCONNECTED
 *		  callback; both DISCONNECTED; both QPs and ids destroyed.
 *		  The same handshake on ib_cm alone (floor.c) runs as a
 *		  third batch in each round.
 *	listeners connect-<listeners>-listeners: the connect batches of
 *		  each CM with its one listener and with listeners - 1
 *		  more bound on distinct ports (made and destroyed around
 *		  the batch, not timed), and as the control with
 *		  listeners - 1 of the other CM's bound instead (which
 *		  the connecting CM never looks up: what they cost it is
 *		  in ib_cm, ib_core and the machine), the six batches of a
 *		  round in rotating order; "bench connect-1000-listeners
 *		  xcma= xcma-1= ratio=" (many over one), the same for
 *		  intree, and "bench connect-1000-listeners-control
 *		  xcma=<other's over one> intree=<other's over one>"
 *	all       the four in turn
 *   A second word, xcma, intree or raw, runs only that one's batches and
 *   prints no result line: for profiling one of them (scripts/bench.sh
 *   with BENCH_PROFILE=1).
 *   The kernel log gets, per figure and run, the spread of ops/s over the
 *   rounds and the mean time per op of each phase (for connect also of
 *   each step of the handshake, enum bench_mark), the median of the
 *   per-round ratios, then "bench <figure> xcma=<ops/s> intree=<ops/s>
 *   ratio=<xcma/intree>" (medians over the rounds) and, for connect,
 *   "bench connect-floor raw=<ops/s> xcma/raw=<r> intree/raw=<r>".
 *   Each batch's own line is a pr_debug (dynamic debug).
 *
 *   echo '<xcma|intree> <idle|bound|resolved> <count>' > .../hold
 *   echo release > .../hold
 *	create that many ids in that state and keep them, for the memory
 *	figure: the script reads the slab caches before and after.
 *	Nothing else in this module allocates while ids are held.
 *
 *   echo '<xcma|intree> <count>' > .../removal; echo start > .../removal;
 *   rdma link delete rxe0; echo end > .../removal; cat .../removal
 *	count ids of one CM, a fifth each idle, bound, resolved, listening
 *	and in connected pairs with QPs; the removal's time in us, from
 *	"start" to "end" (scripts/bench-vm.sh). On DEVICE_REMOVAL each id's
 *	callback destroys its QP and returns non-zero; the last one frees
 *	the PD and CQ.
 */
#define pr_fmt(fmt) "xcma_bench: " fmt

#include <linux/debugfs.h>
#include <linux/inet.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <net/net_namespace.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "bench.h"

#define BENCH_MAX_ROUNDS 10000
#define BENCH_WAIT_MS 10000
#define BENCH_RESOLVE_MS 2000
#define BENCH_PHASES 4

/*
 * Short batches, many rounds: under TCG on a shared machine the time of
 * anything that waits for another thread swings by 10x from one second to
 * the next, so the CMs must take turns often for their medians to meet
 * the same conditions (batches of 50 resolutions gave ratios from 0.8 to
 * 2.2 from run to run; batches of 2-10 agree within 15%). Creating ids
 * waits for nothing: longer batches. The defaults take about 2 minutes
 * under TCG on 2 busy cores.
 */
static uint ids = 1000;
module_param(ids, uint, 0644);
MODULE_PARM_DESC(ids, "create+bind+destroy per batch (default 1000)");

static uint resolves = 10;
module_param(resolves, uint, 0644);
MODULE_PARM_DESC(resolves, "resolve_addr+resolve_route per batch (default 10)");

static uint connects = 4;
module_param(connects, uint, 0644);
MODULE_PARM_DESC(connects, "connections per batch, each CM and the floor (default 4)");

static uint rounds = 500;
module_param(rounds, uint, 0644);
MODULE_PARM_DESC(rounds, "rounds of interleaved batches, at most 10000 (default 500)");

static uint mem_ids = 10000;
module_param(mem_ids, uint, 0444);
MODULE_PARM_DESC(mem_ids, "most ids the hold file keeps (default 10000)");

static uint listeners = 1000;
module_param(listeners, uint, 0644);
MODULE_PARM_DESC(listeners, "listeners bound for the connect-<n>-listeners figure (default 1000)");

static uint listen_rounds = 150;
module_param(listen_rounds, uint, 0644);
MODULE_PARM_DESC(listen_rounds, "rounds of that figure, at most 10000 (default 150)");

static char *ibdev = "rxe0";
module_param(ibdev, charp, 0444);
MODULE_PARM_DESC(ibdev, "the RDMA device (default rxe0)");

static char *addr = "10.99.0.1";
module_param(addr, charp, 0444);
MODULE_PARM_DESC(addr, "a local address of that device, IPv4 or IPv6 (default 10.99.0.1)");

static ushort port = 18700;
module_param(port, ushort, 0444);
MODULE_PARM_DESC(port, "listeners use port, port+1 (in-tree) and port+2 (floor)");

/**
 * struct bench_ctx - what the callbacks of one CM's ids share with the
 *	thread that drives them
 * @cm: the CM
 * @res: verbs resources (NULL while holding ids)
 * @lock: protects @srv, @cli_ev, @srv_ev, @err and @mark
 * @wq: woken on every event
 * @cli: the client id (or the id being resolved); set before any call
 *	that can make an event
 * @srv: the conn id of the current connection, set by its
 *	CONNECT_REQUEST callback
 * @cli_ev: bits of the enum rdma_cm_event_type values @cli has seen
 * @srv_ev: likewise for @srv
 * @err: first failure (an error event, or a failed call in a callback)
 * @mark: moments of the current connection, enum bench_mark
 */
struct bench_ctx {
	const struct interop_cm *cm;
	struct bench_res *res;
	spinlock_t lock; /* see above */
	wait_queue_head_t wq;
	struct rdma_cm_id *cli;
	struct rdma_cm_id *srv;
	unsigned long cli_ev, srv_ev;
	int err;
	u64 mark[BENCH_MARKS];
};

/* the profile of a connection, from its moments */
enum {
	ST_REQ, ST_REQ_CB, ST_REP, ST_RTU, ST_WAKE_EST,
	ST_DREQ, ST_DREQ_CB, ST_DREP, ST_WAKE_DISC, ST_DESTROY, BENCH_STEPS
};

static const char * const step_names[BENCH_STEPS] = {
	"req", "req_cb", "rep", "rtu", "wake_est",
	"dreq", "dreq_cb", "drep", "wake_disc", "destroy",
};

/* one batch: total time, its split by phase, the connection profile */
struct batch {
	u64 ns;
	u64 phase[BENCH_PHASES];
	u64 step[BENCH_STEPS];
};

static struct sockaddr_storage bench_addr;
static struct dentry *bench_dir;
/* serializes the debugfs commands; protects the held ids */
static DEFINE_MUTEX(bench_mutex);
static struct rdma_cm_id **held;
static unsigned int n_held;
static const struct interop_cm *held_cm;
static struct bench_ctx hold_ctx;

void bench_qp_init_attr(struct bench_res *res, struct ib_qp_init_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->cap.max_send_wr = 4;
	attr->cap.max_recv_wr = 4;
	attr->cap.max_send_sge = 1;
	attr->cap.max_recv_sge = 1;
	attr->sq_sig_type = IB_SIGNAL_ALL_WR;
	attr->qp_type = IB_QPT_RC;
	attr->send_cq = res->cq;
	attr->recv_cq = res->cq;
}

static void ctx_init(struct bench_ctx *c, const struct interop_cm *cm,
		     struct bench_res *res)
{
	memset(c, 0, sizeof(*c));
	c->cm = cm;
	c->res = res;
	spin_lock_init(&c->lock);
	init_waitqueue_head(&c->wq);
}

/* a new client id (or id to resolve): no event of the last one counts */
static void ctx_reset(struct bench_ctx *c, struct rdma_cm_id *cli)
{
	spin_lock(&c->lock);
	c->cli = cli;
	c->srv = NULL;
	c->cli_ev = 0;
	c->srv_ev = 0;
	c->err = 0;
	memset(c->mark, 0, sizeof(c->mark));
	spin_unlock(&c->lock);
}

static void stamp(struct bench_ctx *c, int mark)
{
	u64 now = ktime_get_ns();

	spin_lock(&c->lock);
	c->mark[mark] = now;
	spin_unlock(&c->lock);
}

/*
 * Steps of a connection that went through: REQ to the server's callback,
 * that callback (QP, accept), from its return to the client's ESTABLISHED
 * (REP) and to the server's (RTU), until the client's thread runs; the
 * same for DREQ and DREP; destroy.
 */
static void add_steps(const u64 *m, u64 *step)
{
	u64 est = max(m[MK_CLI_EST], m[MK_SRV_EST]);
	u64 disc = max(m[MK_CLI_DISC], m[MK_DREQ_OUT]);

	step[ST_REQ] += m[MK_REQ_IN] - m[MK_CONNECT];
	step[ST_REQ_CB] += m[MK_REQ_OUT] - m[MK_REQ_IN];
	step[ST_REP] += m[MK_CLI_EST] - m[MK_REQ_OUT];
	step[ST_RTU] += m[MK_SRV_EST] - m[MK_REQ_OUT];
	step[ST_WAKE_EST] += m[MK_EST] - est;
	step[ST_DREQ] += m[MK_DREQ_IN] - m[MK_DISCONNECT];
	step[ST_DREQ_CB] += m[MK_DREQ_OUT] - m[MK_DREQ_IN];
	step[ST_DREP] += m[MK_CLI_DISC] - m[MK_DREQ_OUT];
	step[ST_WAKE_DISC] += m[MK_DISC] - disc;
	step[ST_DESTROY] += m[MK_FREED] - m[MK_DISC];
}

static void ctx_fail(struct bench_ctx *c, int err)
{
	spin_lock(&c->lock);
	if (!c->err)
		c->err = err;
	spin_unlock(&c->lock);
}

static struct sockaddr *sa_port(struct sockaddr_storage *ss, u16 p)
{
	*ss = bench_addr;
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = htons(p);
	else
		((struct sockaddr_in6 *)ss)->sin6_port = htons(p);
	return (struct sockaddr *)ss;
}

static int make_qp(struct bench_ctx *c, struct rdma_cm_id *id)
{
	struct ib_qp_init_attr attr;

	bench_qp_init_attr(c->res, &attr);
	return c->cm->create_qp(id, c->res->pd, &attr);
}

/* the listener's callback for a new conn id: QP, accept */
static int on_request(struct bench_ctx *c, struct rdma_cm_id *id)
{
	struct rdma_conn_param param = {
		.private_data = "ok", .private_data_len = 3,
		.responder_resources = 1, .initiator_depth = 1,
		.rnr_retry_count = 7,
	};
	int ret;

	ret = make_qp(c, id);
	if (!ret) {
		ret = c->cm->accept(id, &param);
		if (ret)
			c->cm->destroy_qp(id);
	}
	if (ret) {
		ctx_fail(c, ret);
		return 1; /* the CM destroys the conn id */
	}
	spin_lock(&c->lock);
	c->srv = id;
	spin_unlock(&c->lock);
	return 0;
}

/* the moment an event's callback starts (in) and returns (out) */
static void event_marks(struct bench_ctx *c, bool cli, int event, u64 in,
			u64 out)
{
	lockdep_assert_held(&c->lock);
	switch (event) {
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		c->mark[MK_REQ_IN] = in;
		c->mark[MK_REQ_OUT] = out;
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		c->mark[cli ? MK_CLI_EST : MK_SRV_EST] = in;
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		if (cli) {
			c->mark[MK_CLI_DISC] = in;
		} else {
			c->mark[MK_DREQ_IN] = in;
			c->mark[MK_DREQ_OUT] = out;
		}
		break;
	}
}

static int handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct bench_ctx *c = id->context;
	bool cli = id == READ_ONCE(c->cli);
	u64 in = ktime_get_ns(), out;
	int ret = 0, err = 0;

	switch (ev->event) {
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		ret = on_request(c, id);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		/* the server answers the client's DREQ */
		if (!cli)
			err = c->cm->disconnect(id);
		break;
	case RDMA_CM_EVENT_ADDR_RESOLVED:
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
	case RDMA_CM_EVENT_ESTABLISHED:
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		break;
	default:
		err = ev->status ? ev->status : -EIO;
		pr_err("%s: unexpected event %d status %d\n", c->cm->name,
		       ev->event, ev->status);
		break;
	}
	out = ktime_get_ns();
	spin_lock(&c->lock);
	if (err && !c->err)
		c->err = err;
	event_marks(c, cli, ev->event, in, out);
	if (!ret && ev->event < BITS_PER_LONG)
		__set_bit(ev->event, cli ? &c->cli_ev : &c->srv_ev);
	spin_unlock(&c->lock);
	wake_up(&c->wq);
	return ret;
}

static bool seen(struct bench_ctx *c, int event, bool both)
{
	bool done;

	spin_lock(&c->lock);
	done = c->err || (test_bit(event, &c->cli_ev) &&
			  (!both || test_bit(event, &c->srv_ev)));
	spin_unlock(&c->lock);
	return done;
}

/* the client (and with @both, the server) has seen @event */
static int wait_for(struct bench_ctx *c, int event, bool both)
{
	if (!wait_event_timeout(c->wq, seen(c, event, both),
				msecs_to_jiffies(BENCH_WAIT_MS))) {
		pr_err("%s: no event %d within %d ms\n", c->cm->name, event,
		       BENCH_WAIT_MS);
		return -ETIMEDOUT;
	}
	return READ_ONCE(c->err);
}

/* resolve_addr and resolve_route, to @p on the bench address */
static int resolve(struct bench_ctx *c, struct rdma_cm_id *id, u16 p,
		   u64 *phase, u64 *t)
{
	struct sockaddr_storage dst;
	int ret;

	ret = c->cm->resolve_addr(id, NULL, sa_port(&dst, p),
				  BENCH_RESOLVE_MS);
	if (!ret)
		ret = wait_for(c, RDMA_CM_EVENT_ADDR_RESOLVED, false);
	if (ret)
		return ret;
	if (phase)
		*t = bench_phase(phase, 0, *t);
	ret = c->cm->resolve_route(id, BENCH_RESOLVE_MS);
	if (!ret)
		ret = wait_for(c, RDMA_CM_EVENT_ROUTE_RESOLVED, false);
	if (!ret && phase)
		*t = bench_phase(phase, 1, *t);
	return ret;
}

static struct rdma_cm_id *new_id(struct bench_ctx *c)
{
	return c->cm->create_id(&init_net, handler, c, RDMA_PS_TCP, IB_QPT_RC);
}

/* (a) phases: create, bind, destroy */
static int run_ids(struct bench_ctx *c, unsigned int n, struct batch *b)
{
	struct sockaddr_storage src;
	struct rdma_cm_id *id;
	unsigned int i;
	u64 t0, t;
	int ret;

	sa_port(&src, 0);
	t0 = ktime_get_ns();
	t = t0;
	for (i = 0; i < n; i++) {
		id = new_id(c);
		if (IS_ERR(id))
			return PTR_ERR(id);
		t = bench_phase(b->phase, 0, t);
		ret = c->cm->bind_addr(id, (struct sockaddr *)&src);
		t = bench_phase(b->phase, 1, t);
		c->cm->destroy_id(id);
		t = bench_phase(b->phase, 2, t);
		if (ret)
			return ret;
	}
	b->ns = t - t0;
	return 0;
}

/* (b) phases: resolve_addr to ADDR_RESOLVED, resolve_route to ROUTE_RESOLVED */
static int run_resolve(struct bench_ctx *c, unsigned int n, struct batch *b)
{
	u16 p = port + (c->cm == &bench_intree);
	struct rdma_cm_id *id;
	unsigned int i;
	u64 t0, t;
	int ret;

	for (i = 0; i < n; i++) {
		id = new_id(c);
		if (IS_ERR(id))
			return PTR_ERR(id);
		ctx_reset(c, id);
		t0 = ktime_get_ns();
		t = t0;
		ret = resolve(c, id, p, b->phase, &t);
		b->ns += t - t0;
		c->cm->destroy_id(id);
		if (ret)
			return ret;
	}
	return 0;
}

static void drop_conn(struct bench_ctx *c, struct rdma_cm_id *id)
{
	if (!id)
		return;
	c->cm->destroy_qp(id);
	c->cm->destroy_id(id);
}

/*
 * (c) one connection on a route-resolved client id; phases: the client's
 * QP, connect to both ESTABLISHED, disconnect to both DISCONNECTED,
 * destroy of both QPs and ids
 */
static int connect_one(struct bench_ctx *c, struct rdma_cm_id *cli,
		       struct batch *b)
{
	struct rdma_conn_param param = {
		.private_data = "hi", .private_data_len = 3,
		.responder_resources = 1, .initiator_depth = 1,
		.retry_count = 7, .rnr_retry_count = 7,
	};
	struct rdma_cm_id *srv;
	u64 t0 = ktime_get_ns(), t = t0;
	int ret;

	ret = make_qp(c, cli);
	if (ret) {
		c->cm->destroy_id(cli);
		return ret;
	}
	t = bench_phase(b->phase, 0, t);
	stamp(c, MK_CONNECT);
	ret = c->cm->connect(cli, &param);
	if (!ret)
		ret = wait_for(c, RDMA_CM_EVENT_ESTABLISHED, true);
	if (!ret) {
		t = bench_phase(b->phase, 1, t);
		stamp(c, MK_EST);
		stamp(c, MK_DISCONNECT);
		ret = c->cm->disconnect(cli);
	}
	if (!ret)
		ret = wait_for(c, RDMA_CM_EVENT_DISCONNECTED, true);
	if (!ret) {
		t = bench_phase(b->phase, 2, t);
		stamp(c, MK_DISC);
	}
	drop_conn(c, cli);
	spin_lock(&c->lock);
	srv = c->srv;
	c->srv = NULL;
	spin_unlock(&c->lock);
	drop_conn(c, srv);
	t = bench_phase(b->phase, 3, t);
	b->ns += t - t0;
	if (!ret) {
		stamp(c, MK_FREED);
		add_steps(c->mark, b->step);
	}
	return ret;
}

static int run_connect(struct bench_ctx *c, unsigned int n, struct batch *b)
{
	u16 p = port + (c->cm == &bench_intree);
	struct sockaddr_storage src;
	struct rdma_cm_id *lis, *cli;
	unsigned int i;
	int ret;

	lis = new_id(c);
	if (IS_ERR(lis))
		return PTR_ERR(lis);
	ret = c->cm->bind_addr(lis, sa_port(&src, p));
	if (!ret)
		ret = c->cm->listen(lis, 16);
	for (i = 0; !ret && i < n; i++) {
		cli = new_id(c);
		if (IS_ERR(cli)) {
			ret = PTR_ERR(cli);
			break;
		}
		ctx_reset(c, cli);
		ret = resolve(c, cli, p, NULL, NULL);
		if (ret) {
			c->cm->destroy_id(cli);
			break;
		}
		ret = connect_one(c, cli, b);
	}
	c->cm->destroy_id(lis);
	return ret;
}

/* (d) the same connections on ib_cm alone */
static int run_floor(struct bench_res *res, unsigned int n, struct batch *b)
{
	u64 t0, mark[BENCH_MARKS];
	struct sockaddr_storage a;
	struct bench_floor *f;
	unsigned int i;
	int ret = 0;

	f = bench_floor_create(res, sa_port(&a, 0), port + 2);
	if (IS_ERR(f))
		return PTR_ERR(f);
	for (i = 0; !ret && i < n; i++) {
		t0 = ktime_get_ns();
		ret = bench_floor_connect(f, b->phase, mark);
		b->ns += ktime_get_ns() - t0;
		if (!ret)
			add_steps(mark, b->step);
	}
	bench_floor_destroy(f);
	return ret;
}

/**
 * struct figure - one figure of the bench
 * @name: as printed
 * @n: ops per batch (a module parameter)
 * @phases: names of the phases its batches time
 * @run: one batch of one CM
 * @floor: a third batch per round on ib_cm alone
 */
struct figure {
	const char *name;
	uint *n;
	const char *phases[BENCH_PHASES];
	int (*run)(struct bench_ctx *c, unsigned int n, struct batch *b);
	bool floor;
};

static const struct figure figures[] = {
	{ "create-bind-destroy", &ids, { "create", "bind", "destroy" },
	  run_ids },
	{ "resolve-addr-route", &resolves, { "addr", "route" }, run_resolve },
	{ "connect", &connects, { "qp", "establish", "disconnect", "destroy" },
	  run_connect, true },
};

/* the batches of a figure: xcma, in-tree, floor */
enum { RUN_XCMA, RUN_INTREE, RUN_FLOOR, RUNS };
static const char * const run_names[RUNS] = { "xcma", "intree", "raw" };

/* ops per second, times 10 */
static u64 rate10(unsigned int n, u64 ns)
{
	return ns ? div64_u64((u64)n * 10 * NSEC_PER_SEC, ns) : 0;
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static u64 median(u64 *v, unsigned int n)
{
	sort(v, n, sizeof(*v), cmp_u64, NULL);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* "a/b" with two decimals, from two rates */
static void ratio(char *buf, size_t len, u64 a, u64 b)
{
	u64 r = b ? div64_u64(a * 100 + b / 2, b) : 0;

	snprintf(buf, len, "%llu.%02llu", r / 100, r % 100);
}

/* @rates sorted: their spread, @med, then the mean time by phase */
static void print_profile(const struct figure *fig, const char *who,
			  const u64 *rates, unsigned int nr, u64 med,
			  unsigned int ops, const struct batch *b)
{
	char buf[256];
	int i, len = 0;

	pr_info("%s %s: ops/s over %u rounds: min %llu.%llu median %llu.%llu max %llu.%llu\n",
		fig->name, who, nr, rates[0] / 10, rates[0] % 10, med / 10,
		med % 10, rates[nr - 1] / 10, rates[nr - 1] % 10);
	for (i = 0; i < BENCH_PHASES && fig->phases[i]; i++)
		len += scnprintf(buf + len, sizeof(buf) - len, " %s=%llu",
				 fig->phases[i], div_u64(b->phase[i], ops));
	pr_info("%s %s: ns/op%s\n", fig->name, who, buf);
	if (!fig->floor)
		return;
	for (i = 0, len = 0; i < BENCH_STEPS; i++)
		len += scnprintf(buf + len, sizeof(buf) - len, " %s=%llu",
				 step_names[i], div_u64(b->step[i], ops));
	pr_info("%s %s: steps ns/op%s\n", fig->name, who, buf);
}

static int run_batch(const struct figure *fig, int which,
		     struct bench_res *res, struct batch *b)
{
	struct bench_ctx *c;
	int ret;

	if (which == RUN_FLOOR)
		return run_floor(res, *fig->n, b);
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	ctx_init(c, which == RUN_XCMA ? &bench_xcma : &bench_intree, res);
	ret = fig->run(c, *fig->n, b);
	kfree(c);
	return ret;
}

static void add_batch(struct batch *total, const struct batch *b)
{
	int i;

	total->ns += b->ns;
	for (i = 0; i < BENCH_PHASES; i++)
		total->phase[i] += b->phase[i];
	for (i = 0; i < BENCH_STEPS; i++)
		total->step[i] += b->step[i];
}

static void print_result(const struct figure *fig, const u64 *med)
{
	char r1[24], r2[24];

	ratio(r1, sizeof(r1), med[RUN_XCMA], med[RUN_INTREE]);
	pr_info("bench %s xcma=%llu.%llu intree=%llu.%llu ratio=%s\n",
		fig->name, med[RUN_XCMA] / 10, med[RUN_XCMA] % 10,
		med[RUN_INTREE] / 10, med[RUN_INTREE] % 10, r1);
	if (!fig->floor)
		return;
	ratio(r1, sizeof(r1), med[RUN_XCMA], med[RUN_FLOOR]);
	ratio(r2, sizeof(r2), med[RUN_INTREE], med[RUN_FLOOR]);
	pr_info("bench %s-floor raw=%llu.%llu xcma/raw=%s intree/raw=%s\n",
		fig->name, med[RUN_FLOOR] / 10, med[RUN_FLOOR] % 10, r1, r2);
}

/*
 * The median over the rounds of each round's own ratio: the batches of a
 * round run back to back, under much the same load, so this is steadier
 * than the ratio of the medians when the machine is busy. For the log,
 * next to the result line.
 */
static void print_paired(const struct figure *fig, const u64 *rates,
			 unsigned int nr, unsigned int nruns)
{
	static const int pairs[][2] = { { RUN_XCMA, RUN_INTREE },
					{ RUN_XCMA, RUN_FLOOR },
					{ RUN_INTREE, RUN_FLOOR } };
	char buf[128], r[24];
	unsigned int p, i;
	int len = 0;
	u64 *q;

	q = kvcalloc(nr, sizeof(*q), GFP_KERNEL);
	if (!q)
		return;
	for (p = 0; p < ARRAY_SIZE(pairs) && pairs[p][1] < nruns; p++) {
		const u64 *a = &rates[pairs[p][0] * nr];
		const u64 *b = &rates[pairs[p][1] * nr];

		for (i = 0; i < nr; i++)
			q[i] = b[i] ? div64_u64(a[i] * 1000, b[i]) : 0;
		ratio(r, sizeof(r), median(q, nr), 1000);
		len += scnprintf(buf + len, sizeof(buf) - len, " %s/%s=%s",
				 run_names[pairs[p][0]],
				 run_names[pairs[p][1]], r);
	}
	pr_info("%s: median of the per-round ratios:%s\n", fig->name, buf);
	kvfree(q);
}

/*
 * Rounds of one batch per CM (and the floor), who goes first rotating;
 * the figure is the median over the rounds of each one's ops/s.
 */
static int run_figure(const struct figure *fig, struct bench_res *res,
		      int only)
{
	unsigned int nruns = fig->floor ? RUNS : RUN_FLOOR;
	unsigned int nr = clamp(rounds, 1U, (uint)BENCH_MAX_ROUNDS);
	unsigned int n = *fig->n, r, k, which;
	struct batch *total; /* per run, on the heap: KASAN's stack is tight */
	u64 *rates, med[RUNS];
	int ret = 0;

	if (!n)
		return -EINVAL;
	total = kcalloc(RUNS, sizeof(*total), GFP_KERNEL);
	rates = kvcalloc(RUNS * nr, sizeof(*rates), GFP_KERNEL);
	if (!rates || !total) {
		ret = -ENOMEM;
		goto out;
	}
	for (r = 0; !ret && r < nr; r++) {
		for (k = 0; !ret && k < nruns; k++) {
			struct batch b = {};
			u64 *rate;

			which = (r + k) % nruns;
			if (only >= 0 && which != only)
				continue;
			rate = &rates[which * nr + r];
			ret = run_batch(fig, which, res, &b);
			if (ret) {
				pr_err("%s %s round %u: error %d\n", fig->name,
				       run_names[which], r + 1, ret);
				break;
			}
			*rate = rate10(n, b.ns);
			/* not on the console: printing there takes time */
			pr_debug("%s round %u %s: %u ops in %llu us, %llu.%llu ops/s\n",
				 fig->name, r + 1, run_names[which], n,
				 div_u64(b.ns, NSEC_PER_USEC), *rate / 10,
				 *rate % 10);
			add_batch(&total[which], &b);
		}
	}
	if (!ret && only < 0)
		print_paired(fig, rates, nr, nruns);
	if (!ret) {
		for (k = 0; k < nruns; k++) {
			if (only >= 0 && k != only)
				continue;
			med[k] = median(&rates[k * nr], nr);
			print_profile(fig, run_names[k], &rates[k * nr], nr,
				      med[k], n * nr, &total[k]);
		}
		if (only < 0)
			print_result(fig, med);
	}
out:
	kvfree(rates);
	kfree(total);
	return ret;
}

/*
 * connect-<listeners>-listeners: the connect figure's batches, each CM
 * once with its one listener, once with listeners - 1 more of its own
 * bound on distinct ports of the same address (made before the batch and
 * destroyed after it, not timed) and once with listeners - 1 of the other
 * CM's instead (the control: the same ib_cm listens and memory, none of
 * them in the connecting CM's lookup), the six batches of a round in
 * rotating order.
 */
enum {
	LR_XCMA_N, LR_XCMA_1, LR_INTREE_N, LR_INTREE_1, LR_XCMA_O, LR_INTREE_O,
	LRUNS
};

/* the first port of a CM's extra listeners: above the other figures' */
static u16 extra_port(const struct interop_cm *cm)
{
	return port + 100 + (cm == &bench_intree) * listeners;
}

static void drop_listeners(struct bench_ctx *c, struct rdma_cm_id **ls,
			   unsigned int n)
{
	while (n)
		c->cm->destroy_id(ls[--n]);
}

/* @n listeners on ports from @base; returns how many were made or an errno */
static int make_listeners(struct bench_ctx *c, u16 base, unsigned int n,
			  struct rdma_cm_id **ls)
{
	struct sockaddr_storage a;
	struct rdma_cm_id *id;
	unsigned int i;
	int ret = 0;

	for (i = 0; i < n; i++) {
		id = new_id(c);
		if (IS_ERR(id)) {
			ret = PTR_ERR(id);
			break;
		}
		ret = c->cm->bind_addr(id, sa_port(&a, base + i));
		if (!ret)
			ret = c->cm->listen(id, 16);
		if (ret) {
			c->cm->destroy_id(id);
			break;
		}
		ls[i] = id;
	}
	if (ret)
		drop_listeners(c, ls, i);
	return ret;
}

static int listeners_batch(int which, struct bench_res *res,
			   struct rdma_cm_id **ls, struct batch *b)
{
	bool xcma = which == LR_XCMA_N || which == LR_XCMA_1 ||
		    which == LR_XCMA_O;
	bool other = which == LR_XCMA_O || which == LR_INTREE_O;
	unsigned int extra = which == LR_XCMA_1 || which == LR_INTREE_1 ?
			     0 : listeners - 1;
	struct bench_ctx *c, *l;
	int ret;

	/* c connects; l holds the extra listeners (c's own or the other's) */
	c = kcalloc(2, sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	l = other ? &c[1] : c;
	ctx_init(c, xcma ? &bench_xcma : &bench_intree, res);
	if (other)
		ctx_init(l, xcma ? &bench_intree : &bench_xcma, res);
	ret = make_listeners(l, extra_port(l->cm), extra, ls);
	if (!ret) {
		ret = run_connect(c, connects, b);
		drop_listeners(l, ls, extra);
	}
	kfree(c);
	return ret;
}

/* the median over the rounds of rate @a / rate @b, into @buf */
static void paired_ratio(char *buf, size_t len, const u64 *a, const u64 *b,
			 unsigned int nr)
{
	unsigned int i;
	u64 *q;

	q = kvcalloc(nr, sizeof(*q), GFP_KERNEL);
	if (!q) {
		strscpy(buf, "?", len);
		return;
	}
	for (i = 0; i < nr; i++)
		q[i] = b[i] ? div64_u64(a[i] * 1000, b[i]) : 0;
	ratio(buf, len, median(q, nr), 1000);
	kvfree(q);
}

static int run_listeners(struct bench_res *res)
{
	static const char * const names[LRUNS] = {
		"xcma", "xcma-1", "intree", "intree-1", "xcma-other",
		"intree-other" };
	unsigned int nr = clamp(listen_rounds, 1U, (uint)BENCH_MAX_ROUNDS);
	unsigned int r, k, which;
	struct rdma_cm_id **ls;
	u64 *rates, med[LRUNS];
	char name[40], px[24], pi[24], ox[24], oi[24];
	int ret = 0;

	if (!connects || listeners < 1 || listeners > 10000)
		return -EINVAL;
	snprintf(name, sizeof(name), "connect-%u-listeners", listeners);
	ls = kvcalloc(listeners, sizeof(*ls), GFP_KERNEL);
	rates = kvcalloc(LRUNS * nr, sizeof(*rates), GFP_KERNEL);
	if (!ls || !rates) {
		ret = -ENOMEM;
		goto out;
	}
	for (r = 0; !ret && r < nr; r++) {
		for (k = 0; !ret && k < LRUNS; k++) {
			struct batch b = {};

			which = (r + k) % LRUNS;
			ret = listeners_batch(which, res, ls, &b);
			if (ret)
				pr_err("%s %s round %u: error %d\n", name,
				       names[which], r + 1, ret);
			else
				rates[which * nr + r] = rate10(connects, b.ns);
		}
	}
	if (ret)
		goto out;
	/* the per-round ratios first: median() sorts the rates */
	paired_ratio(px, sizeof(px), &rates[LR_XCMA_N * nr],
		     &rates[LR_XCMA_1 * nr], nr);
	paired_ratio(pi, sizeof(pi), &rates[LR_INTREE_N * nr],
		     &rates[LR_INTREE_1 * nr], nr);
	paired_ratio(ox, sizeof(ox), &rates[LR_XCMA_O * nr],
		     &rates[LR_XCMA_1 * nr], nr);
	paired_ratio(oi, sizeof(oi), &rates[LR_INTREE_O * nr],
		     &rates[LR_INTREE_1 * nr], nr);
	for (k = 0; k < LRUNS; k++) {
		med[k] = median(&rates[k * nr], nr);
		pr_info("%s %s: ops/s over %u rounds: min %llu.%llu median %llu.%llu max %llu.%llu\n",
			name, names[k], nr, rates[k * nr] / 10,
			rates[k * nr] % 10, med[k] / 10, med[k] % 10,
			rates[k * nr + nr - 1] / 10, rates[k * nr + nr - 1] % 10);
	}
	pr_info("%s: median of the per-round ratios xcma/xcma-1=%s intree/intree-1=%s xcma-other/xcma-1=%s intree-other/intree-1=%s\n",
		name, px, pi, ox, oi);
	ratio(px, sizeof(px), med[LR_XCMA_N], med[LR_XCMA_1]);
	ratio(pi, sizeof(pi), med[LR_INTREE_N], med[LR_INTREE_1]);
	pr_info("bench %s xcma=%llu.%llu xcma-1=%llu.%llu ratio=%s\n", name,
		med[LR_XCMA_N] / 10, med[LR_XCMA_N] % 10,
		med[LR_XCMA_1] / 10, med[LR_XCMA_1] % 10, px);
	pr_info("bench %s-intree intree=%llu.%llu intree-1=%llu.%llu ratio=%s\n",
		name, med[LR_INTREE_N] / 10, med[LR_INTREE_N] % 10,
		med[LR_INTREE_1] / 10, med[LR_INTREE_1] % 10, pi);
	ratio(ox, sizeof(ox), med[LR_XCMA_O], med[LR_XCMA_1]);
	ratio(oi, sizeof(oi), med[LR_INTREE_O], med[LR_INTREE_1]);
	pr_info("bench %s-control xcma=%s intree=%s\n", name, ox, oi);
out:
	kvfree(rates);
	kvfree(ls);
	return ret;
}

static int res_get(struct bench_res *res)
{
	int ret;

	res->dev = ib_device_get_by_name(ibdev, RDMA_DRIVER_UNKNOWN);
	if (!res->dev)
		return -ENODEV;
	res->pd = ib_alloc_pd(res->dev, 0);
	if (IS_ERR(res->pd)) {
		ret = PTR_ERR(res->pd);
		goto err_dev;
	}
	res->cq = ib_alloc_cq(res->dev, NULL, 16, 0, IB_POLL_DIRECT);
	if (IS_ERR(res->cq)) {
		ret = PTR_ERR(res->cq);
		goto err_pd;
	}
	return 0;

err_pd:
	ib_dealloc_pd(res->pd);
err_dev:
	ib_device_put(res->dev);
	return ret;
}

static void res_put(struct bench_res *res)
{
	ib_free_cq(res->cq);
	ib_dealloc_pd(res->pd);
	ib_device_put(res->dev);
}

static bool figure_named(unsigned int i, const char *what)
{
	static const char * const short_names[] = { "ids", "resolve",
						    "connect" };

	return !strcmp(what, "all") || !strcmp(what, figures[i].name) ||
	       !strcmp(what, short_names[i]);
}

/* "<figure|all> [xcma|intree|raw]": the latter runs only that one's batches */
static int run_named(char *cmd)
{
	char *what = strsep(&cmd, " ");
	struct bench_res res;
	int ret, only = -1;
	bool any = false;
	unsigned int i;

	if (cmd) {
		only = match_string(run_names, RUNS, strim(cmd));
		if (only < 0)
			return only;
	}
	ret = res_get(&res);
	if (ret)
		return ret;
	for (i = 0; !ret && i < ARRAY_SIZE(figures); i++) {
		if (!figure_named(i, what))
			continue;
		if (only == RUN_FLOOR && !figures[i].floor)
			continue;
		any = true;
		ret = run_figure(&figures[i], &res, only);
	}
	if (!ret && only < 0 && (!strcmp(what, "all") ||
				 !strcmp(what, "listeners"))) {
		any = true;
		ret = run_listeners(&res);
	}
	res_put(&res);
	return any ? ret : -EINVAL;
}

/* ---- held ids, for the memory figure ---- */

static void release_held(void)
{
	while (n_held)
		held_cm->destroy_id(held[--n_held]);
	held_cm = NULL;
}

static int hold_one(const char *state, u16 p)
{
	struct bench_ctx *c = &hold_ctx;
	struct sockaddr_storage a;
	struct rdma_cm_id *id;
	int ret = 0;

	id = new_id(c);
	if (IS_ERR(id))
		return PTR_ERR(id);
	ctx_reset(c, id);
	if (!strcmp(state, "bound"))
		ret = c->cm->bind_addr(id, sa_port(&a, 0));
	else if (!strcmp(state, "resolved"))
		ret = resolve(c, id, p, NULL, NULL);
	else if (strcmp(state, "idle"))
		ret = -EINVAL;
	if (ret) {
		c->cm->destroy_id(id);
		return ret;
	}
	held[n_held++] = id;
	return 0;
}

static int hold(const char *cmd)
{
	char cm[8], state[10];
	unsigned int count, i;
	int ret = 0;

	if (sysfs_streq(cmd, "release")) {
		release_held();
		return 0;
	}
	if (sscanf(cmd, "%7s %9s %u", cm, state, &count) != 3)
		return -EINVAL;
	if (n_held || count > mem_ids)
		return -EINVAL;
	if (!strcmp(cm, "xcma"))
		held_cm = &bench_xcma;
	else if (!strcmp(cm, "intree"))
		held_cm = &bench_intree;
	else
		return -EINVAL;
	ctx_init(&hold_ctx, held_cm, NULL);
	for (i = 0; !ret && i < count; i++)
		ret = hold_one(state, port + 3);
	if (ret)
		release_held();
	return ret;
}

/* ---- removal of a device holding many ids ---- */

/**
 * struct rm_ctx - the ids on the device for the removal figure
 * @c: their callbacks' context (each id's context points here)
 * @res: the verbs resources of their QPs; the device reference is
 *	dropped when the removal starts, the PD and CQ freed by the
 *	callback of the last id notified
 * @ids: every id made, the idle ones first, for a failed or abandoned
 *	population; once the device is gone only the idle ones remain
 * @n: ids in @ids
 * @n_idle: idle ids (bound to no device: not notified)
 * @live: ids on the device not yet notified
 * @armed: the removal has started: events other than DEVICE_REMOVAL
 *	(a DISCONNECTED when the peer was destroyed first) are ignored
 * @first: when the first DEVICE_REMOVAL callback started
 * @last: when the last one returned
 * @t0: when the removal started
 * @us: the last removal's time in microseconds
 * @qp_ns: time the callbacks spent destroying QPs (the owner's part)
 * @seen: DEVICE_REMOVAL callbacks so far
 * @stamp: when each of them started, in order: both CMs notify in the
 *	order the ids took the device, the order they were made in, so
 *	that the log can split the time by kind of id
 */
struct rm_ctx {
	struct bench_ctx c;
	struct bench_res res;
	struct rdma_cm_id **ids;
	unsigned int n, n_idle;
	atomic_t live;
	bool armed;
	u64 first, last, t0, us;
	atomic_t seen;
	u64 *stamp;
	atomic64_t qp_ns;
};

static struct rm_ctx rm;

/*
 * DEVICE_REMOVAL: the owner destroys the id's QP and returns non-zero,
 * so that the CM destroys the id, as both CMs allow.
 */
static int rm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct rm_ctx *r = container_of(id->context, struct rm_ctx, c);
	unsigned int i;
	u64 now;

	if (ev->event != RDMA_CM_EVENT_DEVICE_REMOVAL)
		return READ_ONCE(r->armed) ? 0 : handler(id, ev);
	now = ktime_get_ns();
	cmpxchg64(&r->first, 0, now);
	i = atomic_inc_return(&r->seen) - 1;
	if (i < r->n)
		r->stamp[i] = now;
	if (id->qp) {
		r->c.cm->destroy_qp(id);
		atomic64_add(ktime_get_ns() - now, &r->qp_ns);
	}
	if (atomic_dec_and_test(&r->live)) {
		ib_free_cq(r->res.cq);
		ib_dealloc_pd(r->res.pd);
		WRITE_ONCE(r->last, ktime_get_ns());
	}
	return 1;
}

static struct rdma_cm_id *rm_id(void)
{
	struct rdma_cm_id *id;

	id = rm.c.cm->create_id(&init_net, rm_handler, &rm.c, RDMA_PS_TCP,
				IB_QPT_RC);
	if (!IS_ERR(id))
		rm.ids[rm.n++] = id;
	return id;
}

/* before the removal: every id (QP first), then the resources */
static void rm_release(void)
{
	struct rdma_cm_id *id;

	while (rm.n) {
		id = rm.ids[--rm.n];
		if (id->qp)
			rm.c.cm->destroy_qp(id);
		rm.c.cm->destroy_id(id);
	}
	if (rm.res.dev)
		res_put(&rm.res);
	rm.res.dev = NULL;
	kvfree(rm.ids);
	rm.ids = NULL;
	kvfree(rm.stamp);
	rm.stamp = NULL;
}

/* one connected pair: the client connects to @lis_port, both QPs */
static int rm_pair(u16 lis_port)
{
	struct rdma_conn_param param = {
		.private_data = "hi", .private_data_len = 3,
		.responder_resources = 1, .initiator_depth = 1,
		.retry_count = 7, .rnr_retry_count = 7,
	};
	struct bench_ctx *c = &rm.c;
	struct rdma_cm_id *cli, *srv;
	int ret;

	cli = rm_id();
	if (IS_ERR(cli))
		return PTR_ERR(cli);
	ctx_reset(c, cli);
	ret = resolve(c, cli, lis_port, NULL, NULL);
	if (!ret)
		ret = make_qp(c, cli);
	if (!ret)
		ret = c->cm->connect(cli, &param);
	if (!ret)
		ret = wait_for(c, RDMA_CM_EVENT_ESTABLISHED, true);
	spin_lock(&c->lock);
	srv = c->srv;
	c->srv = NULL;
	spin_unlock(&c->lock);
	if (srv)
		rm.ids[rm.n++] = srv;
	return ret;
}

/*
 * @count ids of @cm on the device, a fifth each idle, bound (to the
 * address, port 0), resolved (address and route), listening (on distinct
 * ports of the address) and in connected pairs (a client and the conn id
 * of the first listener, each with a QP)
 */
static int rm_build(const struct interop_cm *cm, unsigned int count)
{
	unsigned int q = count / 5, i;
	u16 lis = port + 5000;
	struct sockaddr_storage a;
	struct rdma_cm_id *id;
	int ret;

	if (rm.ids || count < 10 || count > 100000)
		return -EINVAL;
	memset(&rm, 0, sizeof(rm));
	ctx_init(&rm.c, cm, &rm.res);
	rm.ids = kvcalloc(count, sizeof(*rm.ids), GFP_KERNEL);
	rm.stamp = kvcalloc(count, sizeof(*rm.stamp), GFP_KERNEL);
	if (!rm.ids || !rm.stamp) {
		rm.res.dev = NULL;
		ret = -ENOMEM;
		goto err;
	}
	ret = res_get(&rm.res);
	if (ret) {
		rm.res.dev = NULL;
		goto err;
	}
	for (i = 0; !ret && i < q; i++) {
		id = rm_id();
		ret = PTR_ERR_OR_ZERO(id);
	}
	rm.n_idle = rm.n;
	for (i = 0; !ret && i < q; i++) {
		id = rm_id();
		ret = PTR_ERR_OR_ZERO(id);
		if (!ret)
			ret = cm->bind_addr(id, sa_port(&a, 0));
	}
	for (i = 0; !ret && i < q; i++) {
		id = rm_id();
		ret = PTR_ERR_OR_ZERO(id);
		if (!ret) {
			ctx_reset(&rm.c, id);
			ret = resolve(&rm.c, id, lis, NULL, NULL);
		}
	}
	for (i = 0; !ret && i < q; i++) {
		id = rm_id();
		ret = PTR_ERR_OR_ZERO(id);
		if (!ret)
			ret = cm->bind_addr(id, sa_port(&a, lis + i));
		if (!ret)
			ret = cm->listen(id, 64);
	}
	while (!ret && rm.n + 2 <= count)
		ret = rm_pair(lis);
	if (!ret)
		ret = READ_ONCE(rm.c.err);
	if (!ret)
		return 0;
err:
	pr_err("removal %s %u: error %d after %u ids\n", cm->name, count, ret,
	       rm.n);
	rm_release();
	return ret;
}

/* the device is about to go: from now on the callbacks own the resources */
static int rm_start(void)
{
	if (!rm.res.dev || rm.armed)
		return -EINVAL;
	atomic_set(&rm.live, rm.n - rm.n_idle);
	WRITE_ONCE(rm.armed, true);
	ib_device_put(rm.res.dev);
	rm.res.dev = NULL;
	rm.t0 = ktime_get_ns();
	return 0;
}

/*
 * The time from one kind's first callback to the next kind's: notifying
 * and destroying the bound ids, the resolved ones, the listeners, the
 * connected pairs (to the last callback's return).
 */
static void rm_split(void)
{
	static const char * const kinds[] = { "bound", "resolved",
					      "listening", "pairs" };
	unsigned int q = rm.n_idle, seen = atomic_read(&rm.seen), k, a, b;
	char buf[128];
	int len = 0;

	if (!q || seen != rm.n - rm.n_idle)
		return;
	for (k = 0; k < ARRAY_SIZE(kinds); k++) {
		a = k * q;
		b = (k + 1) * q;
		len += scnprintf(buf + len, sizeof(buf) - len, " %s=%llu",
				 kinds[k],
				 div_u64((b < seen ? rm.stamp[b] : rm.last) -
					 rm.stamp[a], NSEC_PER_USEC));
	}
	pr_info("removal %s %u ids: us by kind of id:%s (of which QPs destroyed by the owner %llu)\n",
		rm.c.cm->name, rm.n, buf,
		div_u64(atomic64_read(&rm.qp_ns), NSEC_PER_USEC));
}

/* rdma link delete returned */
static int rm_end(void)
{
	u64 t1 = ktime_get_ns();
	unsigned int live = atomic_read(&rm.live);

	if (!rm.armed)
		return -EINVAL;
	rm.us = div_u64(t1 - rm.t0, NSEC_PER_USEC);
	if (live) {
		/* the PD and CQ are left: the device they were on is gone */
		pr_err("removal %s: %u of %u ids on the device not notified\n",
		       rm.c.cm->name, live, rm.n - rm.n_idle);
		return -EBUSY;
	}
	pr_info("removal %s %u ids: %llu us; callbacks from %llu us to %llu us\n",
		rm.c.cm->name, rm.n, rm.us,
		div_u64(rm.first - rm.t0, NSEC_PER_USEC),
		div_u64(rm.last - rm.t0, NSEC_PER_USEC));
	rm_split();
	rm.n = rm.n_idle;
	rm.armed = false;
	rm_release();
	return 0;
}

/* "<xcma|intree> <count>", "start", "end" or "release" */
static int removal(const char *cmd)
{
	unsigned int count;
	char cm[8];

	if (sysfs_streq(cmd, "start"))
		return rm_start();
	if (sysfs_streq(cmd, "end"))
		return rm_end();
	if (sysfs_streq(cmd, "release")) {
		if (rm.armed)
			return -EBUSY;
		rm_release();
		return 0;
	}
	if (sscanf(cmd, "%7s %u", cm, &count) != 2)
		return -EINVAL;
	if (!strcmp(cm, "xcma"))
		return rm_build(&bench_xcma, count);
	if (!strcmp(cm, "intree"))
		return rm_build(&bench_intree, count);
	return -EINVAL;
}

/* the last removal's time in microseconds */
static ssize_t removal_read(struct file *file, char __user *ubuf,
			    size_t len, loff_t *ppos)
{
	char buf[24];
	int n;

	mutex_lock(&bench_mutex);
	n = scnprintf(buf, sizeof(buf), "%llu\n", rm.us);
	mutex_unlock(&bench_mutex);
	return simple_read_from_buffer(ubuf, len, ppos, buf, n);
}

static ssize_t cmd_write(struct file *file, const char __user *ubuf,
			 size_t len, loff_t *ppos)
{
	long which = (long)file->private_data;
	char buf[48], *cmd;
	ssize_t n;
	int ret;

	n = simple_write_to_buffer(buf, sizeof(buf) - 1, ppos, ubuf, len);
	if (n < 0)
		return n;
	buf[n] = '\0';
	cmd = strim(buf);
	mutex_lock(&bench_mutex);
	if (which == 1)
		ret = run_named(cmd);
	else if (which == 2)
		ret = hold(cmd);
	else
		ret = removal(cmd);
	mutex_unlock(&bench_mutex);
	return ret ? ret : len;
}

static const struct file_operations cmd_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = cmd_write,
	.read = removal_read,
};

static int __init bench_init(void)
{
	int ret;

	ret = inet_pton_with_scope(&init_net, AF_UNSPEC, addr, NULL,
				   &bench_addr);
	if (ret) {
		pr_err("bad address %s\n", addr);
		return ret;
	}
	held = kvcalloc(max(mem_ids, 1U), sizeof(*held), GFP_KERNEL);
	if (!held)
		return -ENOMEM;
	bench_dir = debugfs_create_dir("xcma_bench", NULL);
	debugfs_create_file("run", 0200, bench_dir, (void *)1, &cmd_fops);
	debugfs_create_file("hold", 0200, bench_dir, (void *)2, &cmd_fops);
	debugfs_create_file("removal", 0600, bench_dir, (void *)3, &cmd_fops);
	return 0;
}

static void __exit bench_exit(void)
{
	debugfs_remove_recursive(bench_dir);
	mutex_lock(&bench_mutex);
	release_held();
	if (!rm.armed)
		rm_release();
	mutex_unlock(&bench_mutex);
	kvfree(held);
}

module_init(bench_init);
module_exit(bench_exit);

MODULE_DESCRIPTION("xcma against the in-tree rdma_cm and ib_cm alone: speed and memory");
MODULE_LICENSE("Dual BSD/GPL");
