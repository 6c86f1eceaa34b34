// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * xcma_cm2: more of the CM end to end over Soft-RoCE (rxe0 on eth0, as in
 * xcma_cm). Every expectation is what the in-tree CM of 6.12 does
 * (drivers/infiniband/core/cma.c over cm.c) in the same situation: a
 * listen backlog, both ends disconnecting at once, destroy in every state
 * with something in flight and what the peer then sees, resolution to the
 * host itself and without a source address, an IPv6 neighbour that never
 * answers, and private data too long for the answer to a request.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/kthread.h>
#include <linux/slab.h>
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

static const struct rdma_conn_param conn_param = {
	.responder_resources = 1, .initiator_depth = 1,
	.retry_count = 7, .rnr_retry_count = 7,
};

static unsigned int holders(struct kunit *test)
{
	unsigned int h = 0;
	int state;

	KUNIT_EXPECT_EQ(test, xcma_device_query("rxe0", &state, &h), 0);
	return h;
}

static u16 src_port(struct rdma_cm_id *id)
{
	return ntohs(xcma_addr_get_port((struct sockaddr *)&id->route.addr.src_addr));
}

static void listen_on(struct kunit *test, struct side *ss,
		      struct rdma_cm_id **lis, const char *ip, u16 port,
		      int backlog)
{
	struct sockaddr_storage l;

	cm_addr4(&l, ip, port);
	*lis = cm_new_id(test, ss, IB_QPT_RC);
	ss->listener = *lis;
	KUNIT_ASSERT_EQ(test, rdma_bind_addr(*lis, (struct sockaddr *)&l), 0);
	KUNIT_ASSERT_EQ(test, rdma_listen(*lis, backlog), 0);
}

/* a client with a QP, resolved and connecting to 10.99.0.1:@port */
static struct rdma_cm_id *client(struct kunit *test, struct side *cs, u16 port,
				 u8 ack_timeout, struct ib_pd **pd,
				 struct ib_cq **cq)
{
	struct rdma_conn_param param = conn_param;
	struct sockaddr_storage d;
	struct rdma_cm_id *cli;

	cm_addr4(&d, "10.99.0.1", port);
	cli = cm_new_id(test, cs, IB_QPT_RC);
	/* also the RoCE packet lifetime, hence ib_cm's timewait */
	if (ack_timeout)
		KUNIT_ASSERT_EQ(test, rdma_set_ack_timeout(cli, ack_timeout), 0);
	KUNIT_ASSERT_EQ(test, cm_resolve(test, cs, cli, NULL, &d), 0);
	KUNIT_ASSERT_EQ(test, cm_make_qp(cli, pd, cq), 0);
	KUNIT_ASSERT_EQ(test, rdma_connect(cli, &param), 0);
	return cli;
}

/* a connected pair: a client and the conn id of a listener, with QPs */
struct pair {
	struct side *cs, *ss;
	struct rdma_cm_id *cli, *lis;
	struct ib_pd *pd;
	struct ib_cq *cq;
};

static void pair_connect(struct kunit *test, struct pair *p, u16 port,
			 u8 ack_timeout)
{
	p->cs = cm_new_side(test);
	p->ss = cm_new_side(test);
	listen_on(test, p->ss, &p->lis, "10.99.0.1", port, 8);
	p->cli = client(test, p->cs, port, ack_timeout, &p->pd, &p->cq);
	KUNIT_ASSERT_TRUE(test, cm_wait_events(p->cs, false, 3));
	KUNIT_ASSERT_TRUE(test, cm_wait_events(p->ss, true, 2));
	KUNIT_ASSERT_EQ(test, p->cs->ev[2], RDMA_CM_EVENT_ESTABLISHED);
	KUNIT_ASSERT_EQ(test, p->ss->cev[1], RDMA_CM_EVENT_ESTABLISHED);
	KUNIT_ASSERT_EQ(test, p->ss->err, 0);
	KUNIT_ASSERT_NOT_NULL(test, p->ss->conn);
}

static void pair_destroy(struct pair *p)
{
	if (p->cli) {
		cm_free_qp(p->cli, p->pd, p->cq);
		rdma_destroy_id(p->cli);
	}
	if (p->ss->conn) {
		cm_free_qp(p->ss->conn, p->ss->pd, p->ss->cq);
		rdma_destroy_id(p->ss->conn);
	}
	rdma_destroy_id(p->lis);
}

/* the event count of a side stays @n for a while */
static void expect_quiet(struct kunit *test, struct side *s, bool conn, int n,
			 unsigned int ms)
{
	msleep(ms);
	KUNIT_EXPECT_EQ_MSG(test, conn ? READ_ONCE(s->cn) : READ_ONCE(s->n), n,
			    "%s got an event after its destroy",
			    conn ? "conn" : "id");
}

/*
 * An rdma_* call in a thread of its own. @left is what the side's blocked
 * callback had done when the call returned. The struct is kmalloc'ed and
 * freed only once the thread is known to be done (@ended): a thread that
 * never ends (a failed case) keeps it.
 */
struct async {
	int (*fn)(struct rdma_cm_id *id);
	struct rdma_cm_id *id;
	struct completion *go;
	struct side *s;
	struct completion done;
	int ret;
	bool left;
	bool ended;
};

static int async_fn(void *arg)
{
	struct async *a = arg;

	if (a->go)
		wait_for_completion(a->go);
	a->ret = a->fn(a->id);
	if (a->s)
		a->left = READ_ONCE(a->s->left);
	kthread_complete_and_exit(&a->done, 0);
}

static struct async *async_start(struct kunit *test,
				 int (*fn)(struct rdma_cm_id *id),
				 struct rdma_cm_id *id, struct completion *go,
				 struct side *s)
{
	struct async *a = kzalloc(sizeof(*a), GFP_KERNEL);
	struct task_struct *t;

	KUNIT_ASSERT_NOT_NULL(test, a);
	a->fn = fn;
	a->id = id;
	a->go = go;
	a->s = s;
	init_completion(&a->done);
	t = kthread_run(async_fn, a, "xcma_kunit_cm2");
	if (IS_ERR(t)) {
		kfree(a);
		KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	}
	return a;
}

/* wait (once: it consumes @done) until the thread is done */
static bool async_wait(struct async *a)
{
	a->ended = wait_for_completion_timeout(&a->done,
					       msecs_to_jiffies(WAIT_MS)) > 0;
	return a->ended;
}

static void async_free(struct async *a)
{
	if (a->ended)
		kfree(a);
}

/* the side's blocked callback has started */
static bool entered(struct side *s)
{
	return wait_for_completion_timeout(&s->entered,
					   msecs_to_jiffies(WAIT_MS)) > 0;
}

static int do_destroy(struct rdma_cm_id *id)
{
	rdma_destroy_id(id);
	return 0;
}

/* ---- listen backlog ---- */

/*
 * rdma_listen's backlog is not enforced over ib_cm: the in-tree CM keeps
 * it only for iWARP (iw_cm_listen) and for the per-device listeners of a
 * wildcard listener; ib_cm has no queue of pending requests. So with a
 * backlog of 1, three requests that nobody has answered yet all reach the
 * user, none is rejected, and all three can be accepted.
 */
static void listen_backlog_not_enforced(struct kunit *test)
{
	static const int want_cli[] = { RDMA_CM_EVENT_ADDR_RESOLVED,
					RDMA_CM_EVENT_ROUTE_RESOLVED,
					RDMA_CM_EVENT_ESTABLISHED };
	static const int want_srv[] = {
		RDMA_CM_EVENT_CONNECT_REQUEST, RDMA_CM_EVENT_CONNECT_REQUEST,
		RDMA_CM_EVENT_CONNECT_REQUEST, RDMA_CM_EVENT_ESTABLISHED,
		RDMA_CM_EVENT_ESTABLISHED, RDMA_CM_EVENT_ESTABLISHED,
	};
	struct rdma_conn_param param = conn_param;
	struct rdma_cm_id *cli[3], *lis;
	struct ib_pd *cpd[3], *spd[3];
	struct ib_cq *ccq[3], *scq[3];
	struct side *cs[3], *ss;
	int i, ret;

	ss = cm_new_side(test);
	ss->action = REQ_KEEP;
	listen_on(test, ss, &lis, "10.99.0.1", 18600, 1);
	for (i = 0; i < 3; i++) {
		cs[i] = cm_new_side(test);
		cli[i] = client(test, cs[i], 18600, 0, &cpd[i], &ccq[i]);
	}
	KUNIT_ASSERT_TRUE(test, cm_wait_events(ss, true, 3));
	KUNIT_ASSERT_EQ(test, ss->nconns, 3);
	for (i = 0; i < 3; i++) {
		KUNIT_EXPECT_EQ(test, cm_state(ss->conns[i]),
				(unsigned int)XCMA_FSM_CONNECT);
		KUNIT_EXPECT_EQ(test, READ_ONCE(cs[i]->n), 2);
	}

	for (i = 0; i < 3; i++) {
		struct rdma_cm_id *conn = ss->conns[i];

		KUNIT_ASSERT_EQ(test, cm_make_qp(conn, &spd[i], &scq[i]), 0);
		rdma_lock_handler(conn);
		ret = rdma_accept(conn, &param);
		rdma_unlock_handler(conn);
		KUNIT_EXPECT_EQ(test, ret, 0);
	}
	for (i = 0; i < 3; i++) {
		KUNIT_EXPECT_TRUE(test, cm_wait_events(cs[i], false, 3));
		cm_expect_events(test, cs[i], false, want_cli,
				 ARRAY_SIZE(want_cli));
	}
	KUNIT_EXPECT_TRUE(test, cm_wait_events(ss, true, 6));
	cm_expect_events(test, ss, true, want_srv, ARRAY_SIZE(want_srv));
	KUNIT_EXPECT_EQ(test, ss->n, 0);

	for (i = 0; i < 3; i++) {
		cm_free_qp(cli[i], cpd[i], ccq[i]);
		rdma_destroy_id(cli[i]);
		cm_free_qp(ss->conns[i], spd[i], scq[i]);
		rdma_destroy_id(ss->conns[i]);
	}
	rdma_destroy_id(lis);
}

/*
 * A CONNECT_REQUEST callback's -ENOMEM is not a refusal: ib_cm gets the
 * user's value as it is (in-tree cma_ib_req_handler() returns it), and
 * for -ENOMEM in REQ_RCVD it sends no REJ, so that the peer's REQ is
 * retried once its response timeout expires. rdma_ucm answers -ENOMEM
 * when a listener's backlog is full: a connection storm waits for room
 * instead of being rejected. Here the listener refuses the first REQ
 * with -ENOMEM and accepts the retry; the client never hears REJECTED.
 */
static atomic_t enomem_left;
static atomic_t enomem_given;

static int enomem_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST &&
	    atomic_dec_if_positive(&enomem_left) >= 0) {
		atomic_inc(&enomem_given);
		return -ENOMEM;
	}
	return cm_handler(id, ev);
}

static void request_enomem_is_retried(struct kunit *test)
{
	static const int want_cli[] = { RDMA_CM_EVENT_ADDR_RESOLVED,
					RDMA_CM_EVENT_ROUTE_RESOLVED,
					RDMA_CM_EVENT_ESTABLISHED };
	static const int want_srv[] = { RDMA_CM_EVENT_CONNECT_REQUEST,
					RDMA_CM_EVENT_ESTABLISHED };
	struct side *cs = cm_new_side(test), *ss = cm_new_side(test);
	struct sockaddr_storage l;
	struct rdma_cm_id *cli, *lis;
	struct ib_pd *pd;
	struct ib_cq *cq;

	atomic_set(&enomem_left, 1);
	atomic_set(&enomem_given, 0);
	lis = rdma_create_id(&init_net, enomem_handler, ss, RDMA_PS_TCP,
			     IB_QPT_RC);
	KUNIT_ASSERT_FALSE(test, IS_ERR(lis));
	ss->listener = lis;
	cm_addr4(&l, "10.99.0.1", 18616);
	KUNIT_ASSERT_EQ(test, rdma_bind_addr(lis, (struct sockaddr *)&l), 0);
	KUNIT_ASSERT_EQ(test, rdma_listen(lis, 1), 0);
	cli = client(test, cs, 18616, 0, &pd, &cq);
	KUNIT_EXPECT_TRUE(test, cm_wait_events(cs, false, 3));
	cm_expect_events(test, cs, false, want_cli, ARRAY_SIZE(want_cli));
	KUNIT_EXPECT_TRUE(test, cm_wait_events(ss, true, 2));
	cm_expect_events(test, ss, true, want_srv, ARRAY_SIZE(want_srv));
	KUNIT_EXPECT_EQ(test, atomic_read(&enomem_given), 1);
	KUNIT_EXPECT_EQ(test, ss->n, 0);
	KUNIT_EXPECT_EQ(test, ss->nconns, 1);

	cm_pair_destroy(cli, pd, cq, ss, lis);
}

/* ---- a consumer that disconnects and drains on removal (RDS) ---- */

/*
 * RDS answers DEVICE_REMOVAL by dropping the connection: its callback
 * returns 0 and its shutdown work calls rdma_disconnect(), waits for the
 * receive ring to flush, then destroys the QP and the id. The in-tree
 * rdma_disconnect() checks only that the id has an ib_cm id: after
 * DEVICE_REMOVAL it still moves the QP to ERR and sends the DREQ, so the
 * flush comes and the removal, which waits for the destroys, ends.
 */
struct drain {
	struct pair *p;
	struct work_struct work;
	int disc[2];
	int flush[2];
};

/* the status of the next completion of @cq, -ETIMEDOUT after ~2 s */
static int drain_wait(struct ib_cq *cq)
{
	struct ib_wc wc;
	int i;

	for (i = 0; i < 1000; i++) {
		if (ib_poll_cq(cq, 1, &wc) == 1)
			return wc.status;
		usleep_range(1000, 3000);
	}
	return -ETIMEDOUT;
}

static void drain_work(struct work_struct *work)
{
	struct drain *d = container_of(work, struct drain, work);
	struct pair *p = d->p;

	/* both ends and the listener heard DEVICE_REMOVAL, and returned 0 */
	cm_wait_events(p->cs, false, 4);
	cm_wait_events(p->ss, true, 3);
	cm_wait_events(p->ss, false, 1);
	d->disc[0] = rdma_disconnect(p->cli);
	d->disc[1] = rdma_disconnect(p->ss->conn);
	d->flush[0] = drain_wait(p->cq);
	d->flush[1] = drain_wait(p->ss->cq);
	pair_destroy(p);
}

/* rxe0's IPv4 and IPv6 address GIDs are back (ib_core adds them later) */
static bool rxe0_addrs_usable(void)
{
	struct sockaddr_storage a4, a6;
	int i;

	cm_addr4(&a4, "10.99.0.1", 0);
	cm_addr6(&a6, "fd00:99::1", 0);
	for (i = 0; i < 200; i++) {
		if (!cm_bind_probe(&a4, RDMA_PS_TCP, IB_QPT_RC) &&
		    !cm_bind_probe(&a6, RDMA_PS_TCP, IB_QPT_RC))
			return true;
		msleep(50);
	}
	return false;
}

static int post_empty_recv(struct rdma_cm_id *id)
{
	struct ib_recv_wr wr = { .wr_id = 1 };

	return ib_post_recv(id->qp, &wr, NULL);
}

static void removal_disconnect_drain(struct kunit *test)
{
	static const int want_cli[] = { RDMA_CM_EVENT_ADDR_RESOLVED,
					RDMA_CM_EVENT_ROUTE_RESOLVED,
					RDMA_CM_EVENT_ESTABLISHED,
					RDMA_CM_EVENT_DEVICE_REMOVAL };
	static const int want_conn[] = { RDMA_CM_EVENT_CONNECT_REQUEST,
					 RDMA_CM_EVENT_ESTABLISHED,
					 RDMA_CM_EVENT_DEVICE_REMOVAL };
	static const int want_lis[] = { RDMA_CM_EVENT_DEVICE_REMOVAL };
	struct pair p = {};
	struct drain d = { .p = &p };

	pair_connect(test, &p, 18617, 0);
	KUNIT_ASSERT_EQ(test, post_empty_recv(p.cli), 0);
	KUNIT_ASSERT_EQ(test, post_empty_recv(p.ss->conn), 0);
	INIT_WORK_ONSTACK(&d.work, drain_work);
	schedule_work(&d.work);
	KUNIT_EXPECT_EQ(test, cm_rxe_delete(test), 0);
	flush_work(&d.work);
	destroy_work_on_stack(&d.work);
	KUNIT_EXPECT_EQ_MSG(test, d.disc[0], 0, "client: rdma_disconnect()");
	KUNIT_EXPECT_EQ_MSG(test, d.disc[1], 0, "conn: rdma_disconnect()");
	KUNIT_EXPECT_EQ_MSG(test, d.flush[0], IB_WC_WR_FLUSH_ERR,
			    "client: its receive flushed");
	KUNIT_EXPECT_EQ_MSG(test, d.flush[1], IB_WC_WR_FLUSH_ERR,
			    "conn: its receive flushed");
	cm_expect_events(test, p.cs, false, want_cli, ARRAY_SIZE(want_cli));
	cm_expect_events(test, p.ss, true, want_conn, ARRAY_SIZE(want_conn));
	cm_expect_events(test, p.ss, false, want_lis, ARRAY_SIZE(want_lis));
	KUNIT_ASSERT_EQ(test, cm_rxe_add(test), 0);
	cm_expect_rxe0_idle(test);
	/* the next cases resolve at once: both address GIDs back first */
	KUNIT_EXPECT_TRUE(test, rxe0_addrs_usable());
}

/* ---- disconnect ---- */

/*
 * Both ends call rdma_disconnect() at once. Either the two DREQs cross
 * (each ib_cm id goes DREQ_SENT -> DREQ_RCVD and reports the peer's DREQ)
 * or one end's DREQ arrives first and that end answers it with a DREP
 * from its own rdma_disconnect(). In both interleavings each end gets
 * exactly one DISCONNECTED, with status 0, and both calls return 0. Each
 * end then answers its DISCONNECTED with rdma_disconnect() as a ULP does
 * (this sends the DREP when the DREQs crossed, and is a no-op returning
 * 0 otherwise), and each gets one TIMEWAIT_EXIT. A disconnect after that
 * still returns 0: the ib_cm id is there until destroy, as in-tree.
 */
static void disconnect_both_sides_at_once(struct kunit *test)
{
	static const int want_cli[] = {
		RDMA_CM_EVENT_ADDR_RESOLVED, RDMA_CM_EVENT_ROUTE_RESOLVED,
		RDMA_CM_EVENT_ESTABLISHED, RDMA_CM_EVENT_DISCONNECTED,
		RDMA_CM_EVENT_TIMEWAIT_EXIT,
	};
	static const int want_srv[] = {
		RDMA_CM_EVENT_CONNECT_REQUEST, RDMA_CM_EVENT_ESTABLISHED,
		RDMA_CM_EVENT_DISCONNECTED, RDMA_CM_EVENT_TIMEWAIT_EXIT,
	};
	struct async *ac, *as;
	struct completion go;
	struct pair p = {};
	bool ended;

	pair_connect(test, &p, 18601, 0);
	init_completion(&go);
	ac = async_start(test, rdma_disconnect, p.cli, &go, NULL);
	as = async_start(test, rdma_disconnect, p.ss->conn, &go, NULL);
	complete_all(&go);
	ended = async_wait(ac);
	ended = async_wait(as) && ended;
	KUNIT_ASSERT_TRUE(test, ended);
	KUNIT_EXPECT_EQ(test, ac->ret, 0);
	KUNIT_EXPECT_EQ(test, as->ret, 0);
	async_free(ac);
	async_free(as);

	KUNIT_ASSERT_TRUE(test, cm_wait_events(p.cs, false, 4));
	KUNIT_ASSERT_TRUE(test, cm_wait_events(p.ss, true, 3));
	KUNIT_EXPECT_EQ(test, p.cs->st[3], 0);
	KUNIT_EXPECT_EQ(test, p.ss->cst[2], 0);
	KUNIT_EXPECT_EQ(test, rdma_disconnect(p.cli), 0);
	KUNIT_EXPECT_EQ(test, rdma_disconnect(p.ss->conn), 0);
	KUNIT_EXPECT_TRUE(test, cm_wait_events(p.cs, false, 5));
	KUNIT_EXPECT_TRUE(test, cm_wait_events(p.ss, true, 4));
	KUNIT_EXPECT_EQ(test, rdma_disconnect(p.cli), 0);
	msleep(50);
	cm_expect_events(test, p.cs, false, want_cli, ARRAY_SIZE(want_cli));
	cm_expect_events(test, p.ss, true, want_srv, ARRAY_SIZE(want_srv));
	KUNIT_EXPECT_EQ(test, cm_state(p.cli), (unsigned int)XCMA_FSM_DISCONNECT);
	KUNIT_EXPECT_EQ(test, cm_state(p.ss->conn),
			(unsigned int)XCMA_FSM_DISCONNECT);
	pair_destroy(&p);
}

/*
 * One end calls rdma_disconnect() twice before anything came back: the
 * second finds its DREQ outstanding (ib_cm refuses another DREQ and a
 * DREP) and returns 0, as in-tree. One DISCONNECTED per end all the same.
 */
static void disconnect_twice_one_side(struct kunit *test)
{
	static const int want_cli[] = {
		RDMA_CM_EVENT_ADDR_RESOLVED, RDMA_CM_EVENT_ROUTE_RESOLVED,
		RDMA_CM_EVENT_ESTABLISHED, RDMA_CM_EVENT_DISCONNECTED,
		RDMA_CM_EVENT_TIMEWAIT_EXIT,
	};
	static const int want_srv[] = {
		RDMA_CM_EVENT_CONNECT_REQUEST, RDMA_CM_EVENT_ESTABLISHED,
		RDMA_CM_EVENT_DISCONNECTED, RDMA_CM_EVENT_TIMEWAIT_EXIT,
	};
	struct pair p = {};

	pair_connect(test, &p, 18602, 0);
	KUNIT_EXPECT_EQ(test, rdma_disconnect(p.cli), 0);
	KUNIT_EXPECT_EQ(test, rdma_disconnect(p.cli), 0);
	KUNIT_ASSERT_TRUE(test, cm_wait_events(p.ss, true, 3));
	KUNIT_EXPECT_EQ(test, rdma_disconnect(p.ss->conn), 0);
	KUNIT_EXPECT_TRUE(test, cm_wait_events(p.cs, false, 5));
	KUNIT_EXPECT_TRUE(test, cm_wait_events(p.ss, true, 4));
	msleep(50);
	cm_expect_events(test, p.cs, false, want_cli, ARRAY_SIZE(want_cli));
	cm_expect_events(test, p.ss, true, want_srv, ARRAY_SIZE(want_srv));
	pair_destroy(&p);
}

/* ---- destroy in every state ---- */

enum dstate { D_IDLE, D_BOUND_ANY, D_BOUND_ADDR, D_ADDR_RESOLVED,
	      D_ROUTE_RESOLVED };

struct dcase {
	const char *name;
	enum dstate setup;
	unsigned int state;
	bool holds_dev;
};

static const struct dcase destroy_cases[] = {
	{ "idle", D_IDLE, XCMA_FSM_IDLE, false },
	{ "bound_wildcard", D_BOUND_ANY, XCMA_FSM_ADDR_BOUND, false },
	{ "bound_address", D_BOUND_ADDR, XCMA_FSM_ADDR_BOUND, true },
	{ "addr_resolved", D_ADDR_RESOLVED, XCMA_FSM_ADDR_RESOLVED, true },
	{ "route_resolved", D_ROUTE_RESOLVED, XCMA_FSM_ROUTE_RESOLVED, true },
};

static void dcase_desc(const struct dcase *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(destroy_state, destroy_cases, dcase_desc);

/*
 * Nothing in flight: destroy gives back the port and the device, and no
 * event follows.
 */
static void destroy_in_state(struct kunit *test)
{
	const struct dcase *c = test->param_value;
	struct sockaddr_storage a;
	struct rdma_cm_id *id;
	unsigned int h0;
	struct side *s;
	u16 port = 0;
	int n;

	h0 = holders(test);
	s = cm_new_side(test);
	id = cm_new_id(test, s, IB_QPT_RC);
	switch (c->setup) {
	case D_IDLE:
		break;
	case D_BOUND_ANY:
	case D_BOUND_ADDR:
		cm_addr4(&a, c->setup == D_BOUND_ANY ? NULL : "10.99.0.1",
			 18603);
		KUNIT_ASSERT_EQ(test, rdma_bind_addr(id, (struct sockaddr *)&a),
				0);
		break;
	case D_ADDR_RESOLVED:
		cm_addr4(&a, "10.99.0.1", 18603);
		KUNIT_ASSERT_EQ(test, rdma_resolve_addr(id, NULL,
							(struct sockaddr *)&a,
							2000), 0);
		KUNIT_ASSERT_TRUE(test, cm_wait_events(s, false, 1));
		break;
	case D_ROUTE_RESOLVED:
		cm_addr4(&a, "10.99.0.1", 18603);
		KUNIT_ASSERT_EQ(test, cm_resolve(test, s, id, NULL, &a), 0);
		break;
	}
	KUNIT_ASSERT_EQ(test, cm_state(id), c->state);
	KUNIT_EXPECT_EQ(test, holders(test), h0 + c->holds_dev);
	if (c->setup != D_IDLE) {
		port = src_port(id);
		KUNIT_EXPECT_EQ(test, xcma_port_owners(&init_net, RDMA_PS_TCP,
						       port), 1U);
	}
	n = s->n;
	rdma_destroy_id(id);
	expect_quiet(test, s, false, n, 20);
	KUNIT_EXPECT_EQ(test, holders(test), h0);
	if (port)
		KUNIT_EXPECT_EQ(test, xcma_port_owners(&init_net, RDMA_PS_TCP,
						       port), 0U);
}

struct cbcase {
	const char *name;
	enum rdma_cm_event_type event;
};

static const struct cbcase callback_cases[] = {
	{ "addr_resolved", RDMA_CM_EVENT_ADDR_RESOLVED },
	{ "route_resolved", RDMA_CM_EVENT_ROUTE_RESOLVED },
};

static void cbcase_desc(const struct cbcase *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(destroy_callback, callback_cases, cbcase_desc);

/*
 * The id's callback is running (held inside it) when another thread
 * destroys the id: rdma_destroy_id() returns only after the callback did,
 * as in-tree (destroy takes the handler mutex the callback runs under),
 * and no event follows.
 */
static void destroy_during_callback(struct kunit *test)
{
	const struct cbcase *c = test->param_value;
	struct sockaddr_storage d;
	struct rdma_cm_id *id;
	struct async *a;
	struct side *s;
	int n;

	s = cm_new_side(test);
	s->block_on = c->event + 1;
	cm_addr4(&d, "10.99.0.1", 18604);
	id = cm_new_id(test, s, IB_QPT_RC);
	KUNIT_ASSERT_EQ(test, rdma_resolve_addr(id, NULL, (struct sockaddr *)&d,
						2000), 0);
	if (c->event == RDMA_CM_EVENT_ROUTE_RESOLVED) {
		KUNIT_ASSERT_TRUE(test, cm_wait_events(s, false, 1));
		KUNIT_ASSERT_EQ(test, rdma_resolve_route(id, 2000), 0);
	}
	KUNIT_ASSERT_TRUE(test, entered(s));

	a = async_start(test, do_destroy, id, NULL, s);
	msleep(200);
	KUNIT_EXPECT_FALSE_MSG(test, completion_done(&a->done),
			       "destroy returned during the callback");
	complete(&s->release);
	KUNIT_ASSERT_TRUE(test, async_wait(a));
	KUNIT_EXPECT_TRUE(test, a->left);
	async_free(a);
	n = s->n;
	KUNIT_EXPECT_EQ(test, n, c->event == RDMA_CM_EVENT_ADDR_RESOLVED ? 1 : 2);
	KUNIT_EXPECT_EQ(test, s->ev[n - 1], c->event);
	expect_quiet(test, s, false, n, 50);
	KUNIT_EXPECT_EQ(test, s->err, 0);
}

struct lcase {
	const char *name;
	const char *ip;
	u16 port;
};

static const struct lcase listener_cases[] = {
	{ "address", "10.99.0.1", 18605 },
	{ "wildcard", NULL, 18606 },
};

static void lcase_desc(const struct lcase *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(destroy_listener, listener_cases, lcase_desc);

/*
 * A listener is destroyed while a request is being delivered (the
 * CONNECT_REQUEST callback of the new conn id is held). As in-tree the
 * request is delivered under the listener's handler lock (for a wildcard
 * listener, its per-device listener's, whose ib_cm listen the destroy
 * waits for), so the destroy returns only after the callback did. The
 * conn id is the user's and outlives the listener: accepting it still
 * connects. The port is then no longer listened on: ib_cm refuses the
 * next request itself (invalid service ID).
 */
static void destroy_listener_during_request(struct kunit *test)
{
	const struct lcase *c = test->param_value;
	static const int want_srv[] = { RDMA_CM_EVENT_CONNECT_REQUEST,
					RDMA_CM_EVENT_ESTABLISHED };
	struct rdma_conn_param param = conn_param;
	struct side *cs, *ss, *cs2;
	struct rdma_cm_id *cli, *cli2, *lis, *conn;
	struct sockaddr_storage d;
	struct ib_pd *cpd, *spd;
	struct ib_cq *ccq, *scq;
	struct async *a;
	int ret;

	ss = cm_new_side(test);
	ss->action = REQ_KEEP;
	ss->block_on = RDMA_CM_EVENT_CONNECT_REQUEST + 1;
	listen_on(test, ss, &lis, c->ip, c->port, 8);
	cs = cm_new_side(test);
	cli = client(test, cs, c->port, 0, &cpd, &ccq);
	KUNIT_ASSERT_TRUE(test, entered(ss));

	a = async_start(test, do_destroy, lis, NULL, ss);
	msleep(200);
	KUNIT_EXPECT_FALSE_MSG(test, completion_done(&a->done),
			       "destroy returned during the request's callback");
	complete(&ss->release);
	KUNIT_ASSERT_TRUE(test, async_wait(a));
	KUNIT_EXPECT_TRUE(test, a->left);
	async_free(a);
	KUNIT_EXPECT_EQ(test, ss->n, 0);
	conn = ss->conn;
	KUNIT_ASSERT_NOT_NULL(test, conn);
	KUNIT_EXPECT_EQ(test, cm_state(conn), (unsigned int)XCMA_FSM_CONNECT);

	KUNIT_ASSERT_EQ(test, cm_make_qp(conn, &spd, &scq), 0);
	rdma_lock_handler(conn);
	ret = rdma_accept(conn, &param);
	rdma_unlock_handler(conn);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_TRUE(test, cm_wait_events(cs, false, 3));
	KUNIT_EXPECT_EQ(test, cs->ev[2], RDMA_CM_EVENT_ESTABLISHED);
	KUNIT_EXPECT_TRUE(test, cm_wait_events(ss, true, 2));
	cm_expect_events(test, ss, true, want_srv, ARRAY_SIZE(want_srv));

	cs2 = cm_new_side(test);
	cm_addr4(&d, "10.99.0.1", c->port);
	cm_connect_and_get(test, cs2, &cli2, &d, 3);
	KUNIT_EXPECT_EQ(test, cs2->ev[2], RDMA_CM_EVENT_REJECTED);
	KUNIT_EXPECT_EQ(test, cs2->st[2], IB_CM_REJ_INVALID_SERVICE_ID);
	KUNIT_EXPECT_EQ(test, ss->nconns, 1);

	rdma_destroy_id(cli2);
	cm_free_qp(cli, cpd, ccq);
	rdma_destroy_id(cli);
	cm_free_qp(conn, spd, scq);
	rdma_destroy_id(conn);
}

/*
 * The server destroys a conn id it has not answered yet (its ib_cm id is
 * in MRA_REQ_SENT: xcma, like in-tree, told the client to wait): ib_cm
 * rejects the request, consumer defined, and the conn id hears nothing
 * more. The listener keeps listening.
 */
static void destroy_conn_before_accept(struct kunit *test)
{
	struct rdma_cm_id *cli, *lis, *conn;
	struct sockaddr_storage d;
	struct side *cs, *ss;

	ss = cm_new_side(test);
	ss->action = REQ_KEEP;
	listen_on(test, ss, &lis, "10.99.0.1", 18607, 8);
	cs = cm_new_side(test);
	cm_addr4(&d, "10.99.0.1", 18607);
	cm_connect_and_get(test, cs, &cli, &d, 2);
	KUNIT_ASSERT_TRUE(test, cm_wait_events(ss, true, 1));
	conn = ss->conn;
	KUNIT_ASSERT_NOT_NULL(test, conn);
	KUNIT_EXPECT_EQ(test, cm_state(conn), (unsigned int)XCMA_FSM_CONNECT);

	rdma_destroy_id(conn);
	KUNIT_EXPECT_TRUE(test, cm_wait_events(cs, false, 3));
	KUNIT_EXPECT_EQ(test, cs->ev[2], RDMA_CM_EVENT_REJECTED);
	KUNIT_EXPECT_EQ(test, cs->st[2], IB_CM_REJ_CONSUMER_DEFINED);
	KUNIT_EXPECT_EQ(test, cm_state(cli), (unsigned int)XCMA_FSM_CONNECT);
	expect_quiet(test, ss, true, 1, 50);
	KUNIT_EXPECT_EQ(test, ss->n, 0);
	KUNIT_EXPECT_EQ(test, cm_state(lis), (unsigned int)XCMA_FSM_LISTEN);
	rdma_destroy_id(cli);
	rdma_destroy_id(lis);
}

struct ecase {
	const char *name;
	bool server;
};

static const struct ecase established_cases[] = {
	{ "client", false },
	{ "server", true },
};

static void ecase_desc(const struct ecase *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(destroy_established, established_cases, ecase_desc);

/*
 * One end of an established connection is destroyed without a
 * disconnect: ib_cm sends the DREQ for it (ESTABLISHED -> DREQ_SENT), the
 * other end gets DISCONNECTED, answers with rdma_disconnect() (0: the
 * DREP goes to an ib_cm id that is in timewait) and gets TIMEWAIT_EXIT.
 * The destroyed end hears nothing more.
 */
static void destroy_established(struct kunit *test)
{
	const struct ecase *c = test->param_value;
	static const int want_cli[] = {
		RDMA_CM_EVENT_ADDR_RESOLVED, RDMA_CM_EVENT_ROUTE_RESOLVED,
		RDMA_CM_EVENT_ESTABLISHED, RDMA_CM_EVENT_DISCONNECTED,
		RDMA_CM_EVENT_TIMEWAIT_EXIT,
	};
	static const int want_srv[] = {
		RDMA_CM_EVENT_CONNECT_REQUEST, RDMA_CM_EVENT_ESTABLISHED,
		RDMA_CM_EVENT_DISCONNECTED, RDMA_CM_EVENT_TIMEWAIT_EXIT,
	};
	struct pair p = {};

	pair_connect(test, &p, 18608 + c->server, 0);
	if (c->server) {
		cm_free_qp(p.ss->conn, p.ss->pd, p.ss->cq);
		rdma_destroy_id(p.ss->conn);
		p.ss->conn = NULL;
		KUNIT_EXPECT_TRUE(test, cm_wait_events(p.cs, false, 4));
		KUNIT_EXPECT_EQ(test, p.cs->st[3], 0);
		KUNIT_EXPECT_EQ(test, rdma_disconnect(p.cli), 0);
		KUNIT_EXPECT_TRUE(test, cm_wait_events(p.cs, false, 5));
		cm_expect_events(test, p.cs, false, want_cli,
				 ARRAY_SIZE(want_cli));
		expect_quiet(test, p.ss, true, 2, 50);
	} else {
		cm_free_qp(p.cli, p.pd, p.cq);
		rdma_destroy_id(p.cli);
		p.cli = NULL;
		KUNIT_EXPECT_TRUE(test, cm_wait_events(p.ss, true, 3));
		KUNIT_EXPECT_EQ(test, p.ss->cst[2], 0);
		KUNIT_EXPECT_EQ(test, rdma_disconnect(p.ss->conn), 0);
		KUNIT_EXPECT_TRUE(test, cm_wait_events(p.ss, true, 4));
		cm_expect_events(test, p.ss, true, want_srv,
				 ARRAY_SIZE(want_srv));
		expect_quiet(test, p.cs, false, 3, 50);
	}
	pair_destroy(&p);
}

/*
 * The client disconnects and the server does not answer yet: the
 * client's DREQ is outstanding (its id still CONNECT, its ib_cm id
 * DREQ_SENT) when it is destroyed. It hears nothing more; the server got
 * DISCONNECTED from the DREQ, and its answer (to an ib_cm id that is
 * gone) returns 0 and ends in TIMEWAIT_EXIT.
 */
static void destroy_disconnect_unanswered(struct kunit *test)
{
	static const int want_srv[] = {
		RDMA_CM_EVENT_CONNECT_REQUEST, RDMA_CM_EVENT_ESTABLISHED,
		RDMA_CM_EVENT_DISCONNECTED, RDMA_CM_EVENT_TIMEWAIT_EXIT,
	};
	struct pair p = {};

	pair_connect(test, &p, 18610, 0);
	KUNIT_EXPECT_EQ(test, rdma_disconnect(p.cli), 0);
	KUNIT_ASSERT_TRUE(test, cm_wait_events(p.ss, true, 3));
	KUNIT_EXPECT_EQ(test, cm_state(p.cli), (unsigned int)XCMA_FSM_CONNECT);
	KUNIT_EXPECT_EQ(test, p.cs->n, 3);
	cm_free_qp(p.cli, p.pd, p.cq);
	rdma_destroy_id(p.cli);
	p.cli = NULL;
	KUNIT_EXPECT_EQ(test, rdma_disconnect(p.ss->conn), 0);
	KUNIT_EXPECT_TRUE(test, cm_wait_events(p.ss, true, 4));
	cm_expect_events(test, p.ss, true, want_srv, ARRAY_SIZE(want_srv));
	expect_quiet(test, p.cs, false, 3, 50);
	pair_destroy(&p);
}

/*
 * The client got DISCONNECTED (the server answered its DREQ) and is in
 * DISCONNECT, ib_cm's timewait running (about 0.5 s here), when it is
 * destroyed: no TIMEWAIT_EXIT reaches it, also after the timewait ended.
 * The server's own timewait ends with its TIMEWAIT_EXIT. Should the host
 * be so slow that the client's timewait ended before the destroy, the
 * client got its TIMEWAIT_EXIT before and nothing after: the case says so.
 */
static void destroy_in_timewait(struct kunit *test)
{
	static const int want_srv[] = {
		RDMA_CM_EVENT_CONNECT_REQUEST, RDMA_CM_EVENT_ESTABLISHED,
		RDMA_CM_EVENT_DISCONNECTED, RDMA_CM_EVENT_TIMEWAIT_EXIT,
	};
	struct pair p = {};
	int n;

	pair_connect(test, &p, 18611, 0);
	KUNIT_EXPECT_EQ(test, rdma_disconnect(p.cli), 0);
	KUNIT_ASSERT_TRUE(test, cm_wait_events(p.ss, true, 3));
	KUNIT_EXPECT_EQ(test, rdma_disconnect(p.ss->conn), 0);
	KUNIT_ASSERT_TRUE(test, cm_wait_events(p.cs, false, 4));
	cm_free_qp(p.cli, p.pd, p.cq);
	rdma_destroy_id(p.cli);
	n = READ_ONCE(p.cs->n);
	if (n != 4)
		kunit_info(test, "the client's timewait ended before its destroy");
	KUNIT_EXPECT_EQ(test, p.cs->ev[3], RDMA_CM_EVENT_DISCONNECTED);
	p.cli = NULL;
	/* past the client's timewait */
	expect_quiet(test, p.cs, false, n, 1000);
	KUNIT_EXPECT_TRUE(test, cm_wait_events(p.ss, true, 4));
	cm_expect_events(test, p.ss, true, want_srv, ARRAY_SIZE(want_srv));
	pair_destroy(&p);
}

/* ---- addresses ---- */

struct acase {
	const char *name;
	const char *ip;
	bool v6;
};

static void acase_desc(const struct acase *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

static const struct acase loopback_cases[] = {
	{ "ipv4_loopback", "127.0.0.1", false },
	{ "ipv6_loopback", "::1", true },
	{ "ipv4_wildcard", "0.0.0.0", false },
	{ "ipv6_wildcard", "::", true },
};

KUNIT_ARRAY_PARAM(loopback, loopback_cases, acase_desc);

/*
 * Resolving the host itself (a loopback or wildcard destination), with
 * no source address: as in-tree (cma_resolve_loopback) the id takes the
 * first device with an active port, rxe0, and the loopback address as
 * its source (on an ephemeral port), and gets ADDR_RESOLVED. On RoCE
 * the route cannot be resolved: no netdev is bound, so
 * rdma_resolve_route() fails with -ENODEV and the id stays
 * ADDR_RESOLVED.
 */
static void resolve_loopback(struct kunit *test)
{
	const struct acase *c = test->param_value;
	struct sockaddr *src;
	struct sockaddr_storage d;
	struct rdma_cm_id *id;
	unsigned int h0;
	struct side *s;

	h0 = holders(test);
	s = cm_new_side(test);
	if (c->v6)
		cm_addr6(&d, c->ip, 18612);
	else
		cm_addr4(&d, c->ip, 18612);
	id = cm_new_id(test, s, IB_QPT_RC);
	KUNIT_ASSERT_EQ(test, rdma_resolve_addr(id, NULL, (struct sockaddr *)&d,
						1000), 0);
	KUNIT_ASSERT_TRUE(test, cm_wait_events(s, false, 1));
	KUNIT_EXPECT_EQ(test, s->ev[0], RDMA_CM_EVENT_ADDR_RESOLVED);
	KUNIT_EXPECT_EQ(test, s->st[0], 0);
	KUNIT_EXPECT_EQ(test, cm_state(id), (unsigned int)XCMA_FSM_ADDR_RESOLVED);
	KUNIT_ASSERT_NOT_NULL(test, id->device);
	KUNIT_EXPECT_STREQ(test, dev_name(&id->device->dev), "rxe0");
	KUNIT_EXPECT_EQ(test, id->port_num, 1U);
	KUNIT_EXPECT_EQ(test, holders(test), h0 + 1);
	src = (struct sockaddr *)&id->route.addr.src_addr;
	KUNIT_EXPECT_EQ(test, src->sa_family, d.ss_family);
	KUNIT_EXPECT_TRUE(test, xcma_addr_is_loopback(src));
	KUNIT_EXPECT_NE(test, src_port(id), 0);

	KUNIT_EXPECT_EQ(test, rdma_resolve_route(id, 1000), -ENODEV);
	KUNIT_EXPECT_EQ(test, cm_state(id), (unsigned int)XCMA_FSM_ADDR_RESOLVED);
	msleep(20);
	KUNIT_EXPECT_EQ(test, s->n, 1);
	rdma_destroy_id(id);
	KUNIT_EXPECT_EQ(test, holders(test), h0);
}

static const struct acase nosrc_cases[] = {
	{ "ipv4", "10.99.0.1", false },
	{ "ipv6", "fd00:99::1", true },
	{ "ipv6_linklocal", NULL, true },
};

KUNIT_ARRAY_PARAM(nosrc, nosrc_cases, acase_desc);

/*
 * No source address: the id is bound to the wildcard of the destination's
 * family on an ephemeral port (a link-local destination's scope id with
 * it), and address resolution fills in the source (here the same local
 * address), keeping the port.
 */
static void resolve_without_source(struct kunit *test)
{
	const struct acase *c = test->param_value;
	struct sockaddr_storage d;
	struct rdma_cm_id *id;
	struct side *s;

	s = cm_new_side(test);
	if (!c->ip)
		KUNIT_ASSERT_GT(test, cm_addr6_linklocal(&d, 18613), 0);
	else if (c->v6)
		cm_addr6(&d, c->ip, 18613);
	else
		cm_addr4(&d, c->ip, 18613);
	id = cm_new_id(test, s, IB_QPT_RC);
	KUNIT_ASSERT_EQ(test, cm_resolve(test, s, id, NULL, &d), 0);
	KUNIT_EXPECT_EQ(test, cm_state(id),
			(unsigned int)XCMA_FSM_ROUTE_RESOLVED);
	KUNIT_EXPECT_EQ(test, xcma_addr_cmp((struct sockaddr *)&d,
					    (struct sockaddr *)&id->route.addr.src_addr),
			0);
	KUNIT_EXPECT_NE(test, src_port(id), 0);
	KUNIT_EXPECT_EQ(test, xcma_port_owners(&init_net, RDMA_PS_TCP,
					       src_port(id)), 1U);
	KUNIT_ASSERT_NOT_NULL(test, id->device);
	KUNIT_EXPECT_STREQ(test, dev_name(&id->device->dev), "rxe0");
	rdma_destroy_id(id);
}

/*
 * On the link but no neighbour answers (fd00:99::78): ADDR_ERROR with
 * -ETIMEDOUT once timeout_ms passed (ib_addr retries while the neighbour
 * is incomplete), back in ADDR_BOUND with the wildcard source and its
 * port. Resolving again from there (the failed request is cancelled
 * first) reaches the local address on the same port.
 */
static void resolve_unreachable_ipv6(struct kunit *test)
{
	struct sockaddr_storage d, any;
	struct rdma_cm_id *id;
	struct side *s;
	u16 port;

	s = cm_new_side(test);
	cm_addr6(&d, "fd00:99::78", 18614);
	id = cm_new_id(test, s, IB_QPT_RC);
	KUNIT_ASSERT_EQ(test, rdma_resolve_addr(id, NULL, (struct sockaddr *)&d,
						500), 0);
	KUNIT_ASSERT_TRUE(test, cm_wait_events(s, false, 1));
	KUNIT_EXPECT_EQ(test, s->ev[0], RDMA_CM_EVENT_ADDR_ERROR);
	KUNIT_EXPECT_EQ(test, s->st[0], -ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, cm_state(id), (unsigned int)XCMA_FSM_ADDR_BOUND);
	cm_addr6(&any, NULL, 0);
	KUNIT_EXPECT_EQ(test, xcma_addr_cmp((struct sockaddr *)&any,
					    (struct sockaddr *)&id->route.addr.src_addr),
			0);
	port = src_port(id);
	KUNIT_EXPECT_NE(test, port, 0);

	cm_addr6(&d, "fd00:99::1", 18614);
	KUNIT_ASSERT_EQ(test, rdma_resolve_addr(id, NULL, (struct sockaddr *)&d,
						2000), 0);
	KUNIT_ASSERT_TRUE(test, cm_wait_events(s, false, 2));
	KUNIT_EXPECT_EQ(test, s->ev[1], RDMA_CM_EVENT_ADDR_RESOLVED);
	KUNIT_EXPECT_EQ(test, xcma_addr_cmp((struct sockaddr *)&d,
					    (struct sockaddr *)&id->route.addr.src_addr),
			0);
	KUNIT_EXPECT_EQ(test, src_port(id), port);
	rdma_destroy_id(id);
}

/* ---- a REQ nobody answers ---- */

/*
 * The REQ goes out to a MAC nobody has (a permanent neighbour entry for
 * 10.99.0.77; QEMU drops the frame). ib_cm would retry for a minute with
 * xcma's (the in-tree CM's) timeouts, so this REQ alone asks for no
 * retry and a 1 ms response time through the ops layer: about half a
 * second later ib_cm reports IB_CM_REQ_ERROR, which the client gets as
 * UNREACHABLE with -ETIMEDOUT, as in-tree; nothing follows, and the id
 * is destroyed with nothing left behind.
 */
#define NEIGH_ADD "/usr/sbin/ip neigh replace 10.99.0.77 " \
	"lladdr 02:00:00:00:00:77 dev eth0 nud permanent"
#define NEIGH_DEL "/usr/sbin/ip neigh del 10.99.0.77 dev eth0"

static int req_no_retry(struct ib_cm_id *cm_id, struct ib_cm_req_param *p)
{
	p->max_cm_retries = 0;
	p->remote_cm_response_timeout = 8;
	return xcma_kernel_ops.send_req(cm_id, p);
}

static void connect_unreachable(struct kunit *test)
{
	static struct xcma_ops fake;
	struct rdma_conn_param param = { .retry_count = 7 };
	const struct xcma_ops *old;
	unsigned int live = xcma_id_live();
	struct sockaddr_storage d;
	struct rdma_cm_id *id;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct side *s;
	int ret;

	KUNIT_ASSERT_EQ(test, xcma_kunit_run(test, NEIGH_ADD), 0);
	s = cm_new_side(test);
	cm_addr4(&d, "10.99.0.77", 18615);
	id = cm_new_id(test, s, IB_QPT_RC);
	ret = cm_resolve(test, s, id, NULL, &d);
	KUNIT_EXPECT_EQ(test, ret, 0);
	if (!ret && !cm_make_qp(id, &pd, &cq)) {
		fake = xcma_kernel_ops;
		fake.send_req = req_no_retry;
		old = xcma_ops_set(&fake);
		KUNIT_EXPECT_EQ(test, rdma_connect(id, &param), 0);
		xcma_ops_set(old);
		KUNIT_EXPECT_TRUE(test, cm_wait_events(s, false, 3));
		KUNIT_EXPECT_EQ(test, s->ev[2], RDMA_CM_EVENT_UNREACHABLE);
		KUNIT_EXPECT_EQ(test, s->st[2], -ETIMEDOUT);
		msleep(200);
		KUNIT_EXPECT_EQ(test, s->n, 3);
		cm_free_qp(id, pd, cq);
	}
	rdma_destroy_id(id);
	KUNIT_EXPECT_EQ(test, xcma_id_live(), live);
	KUNIT_EXPECT_EQ(test, xcma_kunit_run(test, NEIGH_DEL), 0);
}

/* ---- private data the answer to a request cannot carry ---- */

/*
 * A request the server holds: a REJ with one byte more than its private
 * data area is refused by ib_cm (-EINVAL) and nothing is sent; an accept
 * with one byte more than the REP's area is refused too (-EINVAL), and as
 * in-tree rdma_accept() then rejects: the client gets REJECTED, consumer
 * defined. The conn id stays CONNECT throughout and hears nothing.
 */
static void answer_private_data_too_long(struct kunit *test)
{
	static u8 big[IB_CM_REP_PRIVATE_DATA_SIZE + 1];
	struct rdma_conn_param param = conn_param;
	struct rdma_cm_id *cli, *lis, *conn;
	struct sockaddr_storage d;
	struct side *cs, *ss;
	int ret;

	ss = cm_new_side(test);
	ss->action = REQ_KEEP;
	listen_on(test, ss, &lis, "10.99.0.1", 18615, 8);
	cs = cm_new_side(test);
	cm_addr4(&d, "10.99.0.1", 18615);
	cm_connect_and_get(test, cs, &cli, &d, 2);
	KUNIT_ASSERT_TRUE(test, cm_wait_events(ss, true, 1));
	conn = ss->conn;
	KUNIT_ASSERT_NOT_NULL(test, conn);

	KUNIT_EXPECT_EQ(test, rdma_reject(conn, big,
					  IB_CM_REJ_PRIVATE_DATA_SIZE + 1,
					  IB_CM_REJ_CONSUMER_DEFINED), -EINVAL);
	KUNIT_EXPECT_EQ(test, cm_state(conn), (unsigned int)XCMA_FSM_CONNECT);
	msleep(50);
	KUNIT_EXPECT_EQ(test, READ_ONCE(cs->n), 2);

	param.private_data = big;
	param.private_data_len = IB_CM_REP_PRIVATE_DATA_SIZE + 1;
	rdma_lock_handler(conn);
	ret = rdma_accept(conn, &param);
	rdma_unlock_handler(conn);
	KUNIT_EXPECT_EQ(test, ret, -EINVAL);
	KUNIT_EXPECT_EQ(test, cm_state(conn), (unsigned int)XCMA_FSM_CONNECT);
	KUNIT_EXPECT_TRUE(test, cm_wait_events(cs, false, 3));
	KUNIT_EXPECT_EQ(test, cs->ev[2], RDMA_CM_EVENT_REJECTED);
	KUNIT_EXPECT_EQ(test, cs->st[2], IB_CM_REJ_CONSUMER_DEFINED);
	KUNIT_EXPECT_EQ(test, ss->cn, 1);
	rdma_destroy_id(conn);
	rdma_destroy_id(cli);
	rdma_destroy_id(lis);
}

static int bind_probe(struct sockaddr_storage *a)
{
	return cm_bind_probe(a, RDMA_PS_TCP, IB_QPT_RC);
}

/*
 * xcma_cm ends by deleting and re-adding rxe0, whose GIDs come back a
 * little later: wait until each local address of the cases binds.
 */
static int cm2_suite_init(struct kunit_suite *suite)
{
	struct sockaddr_storage a4, a6, ll;
	int i, ret = -ETIMEDOUT;

	cm_addr4(&a4, "10.99.0.1", 0);
	cm_addr6(&a6, "fd00:99::1", 0);
	for (i = 0; i < 100 && ret; i++) {
		ret = cm_addr6_linklocal(&ll, 0);
		if (ret > 0)
			ret = bind_probe(&a4) ?: bind_probe(&a6) ?:
			      bind_probe(&ll);
		if (ret)
			msleep(100);
	}
	return ret;
}

static struct kunit_case cm2_cases[] = {
	KUNIT_CASE_SLOW(listen_backlog_not_enforced),
	KUNIT_CASE_SLOW(request_enomem_is_retried),
	KUNIT_CASE_SLOW(disconnect_both_sides_at_once),
	KUNIT_CASE_SLOW(disconnect_twice_one_side),
	KUNIT_CASE_PARAM(destroy_in_state, destroy_state_gen_params),
	KUNIT_CASE_PARAM(destroy_during_callback, destroy_callback_gen_params),
	KUNIT_CASE_PARAM(destroy_listener_during_request,
			 destroy_listener_gen_params),
	KUNIT_CASE(destroy_conn_before_accept),
	KUNIT_CASE_PARAM(destroy_established, destroy_established_gen_params),
	KUNIT_CASE(destroy_disconnect_unanswered),
	KUNIT_CASE_SLOW(destroy_in_timewait),
	KUNIT_CASE_PARAM(resolve_loopback, loopback_gen_params),
	KUNIT_CASE_PARAM(resolve_without_source, nosrc_gen_params),
	KUNIT_CASE_SLOW(resolve_unreachable_ipv6),
	KUNIT_CASE(answer_private_data_too_long),
	KUNIT_CASE_SLOW(connect_unreachable),
	/* last: it deletes and re-adds rxe0 */
	KUNIT_CASE_SLOW(removal_disconnect_drain),
	{}
};

static struct kunit_suite cm2_suite = {
	.name = "xcma_cm2",
	.init = xcma_kunit_sweep_init,
	.suite_init = cm2_suite_init,
	.test_cases = cm2_cases,
};

kunit_test_suite(cm2_suite);
