// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * xcma_interop: xcma and the in-tree rdma_cm, loaded together (xcma built
 * side by side), talk to each other over rxe0. An xcma client connects to
 * an in-tree listener and an in-tree client to an xcma listener, over IPv4
 * and IPv6; each pair sends a message both ways, disconnects, and the
 * events of both sides are checked in order, with what crossed the wire:
 * the private data after the REQ's rdma_cm header (and its length), the
 * REP's private data, the addresses and ports the listener read from the
 * header and the service ID. Then a rejection with private data, both
 * ways. After each case, neither CM holds an id on rxe0 and the device has
 * as many QPs, CQs and PDs as before.
 *
 * xcma_interop_iw does the same over Soft-iWARP (siw0 on a dummy netdev
 * of its own; both CMs go through iw_cm): connect, private data both
 * ways as MPA carries it, a message each way, disconnect, and a reject
 * with private data in the MPA reply, both ways.
 *
 * After the disconnect, both cases also compare the state each end's id
 * is left in, as ib_core's restrack reads it (rdma res show cm_id): over
 * ib_cm DISCONNECT, over iw_cm still CONNECT (the in-tree iWARP handler
 * moves no state on CLOSE).
 *
 * This file calls neither CM directly: each side goes through its struct
 * interop_cm (interop.h).
 */
#include <kunit/test.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/inet.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <net/net_namespace.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>
#include <rdma/restrack.h>

#include "../../../cma/restrack.h"
#include "../kunit_inline.h"
#include "interop.h"

#define MAX_EVENTS 16
#define WAIT_MS 20000
/* the rdma_cm header in front of a REQ's private data */
#define CMA_HDR_LEN 36

enum req_action { REQ_ACCEPT, REQ_REJECT };

/**
 * struct side - one end: an id (or a listener and its conn id) and its CM
 * @cm: the CM that drives it
 * @lock: protects the logs
 * @wq: woken on every event
 * @ev: events of the id itself (the listener for a server)
 * @st: their status
 * @n: how many
 * @cev: events of the conn id a listener created
 * @cst: their status
 * @cn: how many
 * @conn: that conn id
 * @listener: the listener, to tell its events from the conn id's
 * @action: what the listener does with a CONNECT_REQUEST
 * @pdata: private data of CONNECT_REQUEST, ESTABLISHED (client) or REJECTED
 * @pdata_len: how much of it @pdata holds
 * @pdata_full: its length as the event reported it
 * @conn_src: the conn id's source address at CONNECT_REQUEST
 * @conn_dst: the conn id's destination address at CONNECT_REQUEST
 * @conn_da: the conn id's hardware address at CONNECT_REQUEST
 * @conn_port: the conn id's port number then
 * @qpn: the peer's QP number as CONNECT_REQUEST (server) or ESTABLISHED
 *	(client) reported it
 * @pd: PD of the id (the conn id for a server)
 * @cq: CQ of the id (the conn id for a server)
 * @err: first failure inside a callback
 * @raw_reject: keep REJECTED's private data as the event has it (iWARP:
 *	siw reports an MPA reject as -ECONNRESET, which is no consumer
 *	reject for rdma_consumer_reject_data(), in-tree as in xcma)
 */
struct side {
	const struct interop_cm *cm;
	spinlock_t lock; /* see above */
	wait_queue_head_t wq;
	int ev[MAX_EVENTS], st[MAX_EVENTS], n;
	int cev[MAX_EVENTS], cst[MAX_EVENTS], cn;
	struct rdma_cm_id *conn;
	struct rdma_cm_id *listener;
	enum req_action action;
	u8 pdata[64];
	u8 pdata_len;
	u8 pdata_full;
	struct sockaddr_storage conn_src, conn_dst;
	struct rdma_dev_addr conn_da;
	u32 conn_port;
	u32 qpn;
	struct ib_pd *pd;
	struct ib_cq *cq;
	int err;
	bool raw_reject;
};

/**
 * struct transport - what the cases expect of one device and its CM below
 * @dev: the device
 * @ip4: its IPv4 address
 * @ip6: its IPv6 address, NULL if the cases run over IPv4 only
 * @req_len: CONNECT_REQUEST's private data length, 3 bytes sent
 * @rep_len: the client's ESTABLISHED's, 3 bytes accepted
 * @rej_len: REJECTED's, 5 bytes rejected
 * @rej_status: REJECTED's status
 * @timewait: both ends of a connection end with TIMEWAIT_EXIT
 * @srv_disconnects: the server's conn id, once DISCONNECTED, disconnects
 *	too (a DREP answers the client's DREQ)
 * @qpn: REQ and REP carry each end's QP number to the other
 * @raw_reject: see struct side
 * @rej_qp: the client needs a QP to be rejected (iw_cm connects one)
 * @closed_state: the state (the in-tree enum rdma_cm_state's value, as
 *	restrack reports it) of both ends' ids once disconnected
 * @rej_tries: rejects to try for one that carries the data: siw may see
 *	the server's close before it reads the MPA reply, and then reports
 *	the same status with no data, whichever CM is the client (seen with
 *	the in-tree client); a CM that drops the data fails them all
 */
struct transport {
	const char *dev;
	const char *ip4, *ip6;
	u8 req_len, rep_len, rej_len;
	int rej_status;
	bool timewait;
	bool srv_disconnects;
	bool qpn;
	bool raw_reject;
	bool rej_qp;
	unsigned int closed_state;
	int rej_tries;
};

/* the in-tree enum rdma_cm_state (cma_priv.h, not shipped) */
#define INTREE_CM_CONNECT 5
#define INTREE_CM_DISCONNECT 6

/* rxe0, through ib_cm */
static const struct transport roce = {
	.dev = "rxe0",
	.ip4 = "10.99.0.1",
	.ip6 = "fd00:99::1",
	/* the REQ's area after the rdma_cm header, the REP's and REJ's whole */
	.req_len = IB_CM_REQ_PRIVATE_DATA_SIZE - CMA_HDR_LEN,
	.rep_len = IB_CM_REP_PRIVATE_DATA_SIZE,
	.rej_len = IB_CM_REJ_PRIVATE_DATA_SIZE,
	.rej_status = IB_CM_REJ_CONSUMER_DEFINED,
	.timewait = true,
	.srv_disconnects = true,
	.qpn = true,
	.closed_state = INTREE_CM_DISCONNECT,
};

/*
 * siw0 (on a dummy netdev of its own, see iw_setup), through iw_cm: MPA
 * carries private data as it was sent, no rdma_cm header, no padding;
 * siw reports a peer's MPA reject as -ECONNRESET, both CMs pass that on
 * as REJECTED.
 */
#define IW_IP "10.96.0.1"

static const struct transport iwarp = {
	.dev = "siw0",
	.ip4 = IW_IP,
	.req_len = 3,
	.rep_len = 3,
	.rej_len = 5,
	.rej_status = -ECONNRESET,
	.raw_reject = true,
	.rej_qp = true,
	.closed_state = INTREE_CM_CONNECT,
	.rej_tries = 3,
};

/**
 * struct interop_case - one pairing
 * @name: KUnit parameter name
 * @cli: the client's CM
 * @srv: the listener's CM
 * @family: AF_INET or AF_INET6
 * @port: the listener's port, one per case
 * @tp: the device, and what to expect of it
 */
struct interop_case {
	const char *name;
	const struct interop_cm *cli;
	const struct interop_cm *srv;
	int family;
	u16 port;
	const struct transport *tp;
};

/* what a test case holds on its device at its start, to compare at its end */
struct usage {
	int ids_intree, ids_xcma;
	int qp, cq, pd;
};

/*
 * @id's state as ib_core's restrack reads it for rdma res show cm_id: at
 * the in-tree private id's offset (xcma keeps its own there, restrack.h)
 */
static unsigned int restrack_state(struct rdma_cm_id *id)
{
	return READ_ONCE(container_of(id, struct xcma_intree_id, id)->state);
}

static struct side *new_side(struct kunit *test, const struct interop_cm *cm)
{
	struct side *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);

	if (!s)
		return NULL;
	s->cm = cm;
	spin_lock_init(&s->lock);
	init_waitqueue_head(&s->wq);
	return s;
}

static int make_qp(struct side *s, struct rdma_cm_id *id)
{
	struct ib_qp_init_attr attr = {
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.sq_sig_type = IB_SIGNAL_ALL_WR,
		.qp_type = IB_QPT_RC,
	};
	int ret;

	s->pd = ib_alloc_pd(id->device, 0);
	if (IS_ERR(s->pd))
		return PTR_ERR(s->pd);
	s->cq = ib_alloc_cq(id->device, NULL, 16, 0, IB_POLL_DIRECT);
	if (IS_ERR(s->cq)) {
		ib_dealloc_pd(s->pd);
		return PTR_ERR(s->cq);
	}
	attr.send_cq = s->cq;
	attr.recv_cq = s->cq;
	ret = s->cm->create_qp(id, s->pd, &attr);
	if (ret) {
		ib_free_cq(s->cq);
		ib_dealloc_pd(s->pd);
	}
	return ret;
}

static void free_qp(struct side *s, struct rdma_cm_id *id)
{
	s->cm->destroy_qp(id);
	ib_free_cq(s->cq);
	ib_dealloc_pd(s->pd);
}

static void keep_pdata(struct side *s, const void *data, u8 len)
{
	s->pdata_full = len;
	s->pdata_len = min_t(u8, len, sizeof(s->pdata));
	if (data)
		memcpy(s->pdata, data, s->pdata_len);
}

static int on_request(struct side *s, struct rdma_cm_id *id,
		      struct rdma_cm_event *ev)
{
	struct rdma_conn_param param = {
		.private_data = "ok", .private_data_len = 3,
		.responder_resources = 1, .initiator_depth = 1,
		.rnr_retry_count = 7,
	};
	int ret;

	s->conn = id;
	s->qpn = ev->param.conn.qp_num;
	keep_pdata(s, ev->param.conn.private_data,
		   ev->param.conn.private_data_len);
	memcpy(&s->conn_src, &id->route.addr.src_addr, sizeof(s->conn_src));
	memcpy(&s->conn_dst, &id->route.addr.dst_addr, sizeof(s->conn_dst));
	memcpy(&s->conn_da, &id->route.addr.dev_addr, sizeof(s->conn_da));
	s->conn_port = id->port_num;
	if (s->action == REQ_REJECT) {
		ret = s->cm->reject(id, "nope", 5, IB_CM_REJ_CONSUMER_DEFINED);
		if (ret)
			s->err = ret;
		s->conn = NULL;
		return 1; /* destroy the conn id */
	}
	ret = make_qp(s, id);
	if (!ret)
		ret = s->cm->accept(id, &param);
	if (ret)
		s->err = ret;
	return 0;
}

static int handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct side *s = id->context;
	bool conn = s->listener && id != s->listener;
	int ret = 0;

	if (conn && ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		ret = on_request(s, id, ev);
	if (!conn && ev->event == RDMA_CM_EVENT_ESTABLISHED) {
		s->qpn = ev->param.conn.qp_num;
		keep_pdata(s, ev->param.conn.private_data,
			   ev->param.conn.private_data_len);
	}
	if (ev->event == RDMA_CM_EVENT_REJECTED) {
		const void *d;
		u8 len = 0;

		d = s->cm->consumer_reject_data(id, ev, &len);
		/* over iw_cm: the MPA reply's data, whatever the status */
		if (s->raw_reject) {
			d = ev->param.conn.private_data;
			len = ev->param.conn.private_data_len;
		}
		keep_pdata(s, d, len);
	}
	spin_lock(&s->lock);
	if (conn && s->cn < MAX_EVENTS) {
		s->cev[s->cn] = ev->event;
		s->cst[s->cn++] = ev->status;
	} else if (!conn && s->n < MAX_EVENTS) {
		s->ev[s->n] = ev->event;
		s->st[s->n++] = ev->status;
	}
	spin_unlock(&s->lock);
	wake_up(&s->wq);
	return ret;
}

/* wait until the id (conn: the conn id) has seen @count events */
static bool wait_events(struct side *s, bool conn, int count)
{
	return wait_event_timeout(s->wq, (conn ? READ_ONCE(s->cn) :
						 READ_ONCE(s->n)) >= count,
				  msecs_to_jiffies(WAIT_MS)) > 0;
}

static void expect_events(struct kunit *test, struct side *s, bool conn,
			  const int *want, int count)
{
	const char *who = conn ? "server conn id" : "client";
	int *got = conn ? s->cev : s->ev;
	int n = conn ? s->cn : s->n;
	int i;

	KUNIT_EXPECT_EQ_MSG(test, n, count, "%s (%s) saw %d events", who,
			    s->cm->name, n);
	for (i = 0; i < min(n, count); i++)
		KUNIT_EXPECT_EQ_MSG(test, got[i], want[i],
				    "%s (%s) event %d: %s", who, s->cm->name, i,
				    s->cm->event_msg(got[i]));
}

static void make_addr(struct sockaddr_storage *ss, const struct interop_case *c)
{
	memset(ss, 0, sizeof(*ss));
	if (c->family == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)ss;

		sin->sin_family = AF_INET;
		sin->sin_port = htons(c->port);
		sin->sin_addr.s_addr = in_aton(c->tp->ip4);
	} else {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(c->port);
		in6_pton(c->tp->ip6, -1, sin6->sin6_addr.s6_addr, -1, NULL);
	}
}

/* same family, address and port (scope and flow label aside) */
static bool same_addr(const struct sockaddr_storage *a,
		      const struct sockaddr_storage *b)
{
	const struct sockaddr_in6 *a6 = (const struct sockaddr_in6 *)a;
	const struct sockaddr_in6 *b6 = (const struct sockaddr_in6 *)b;
	const struct sockaddr_in *a4 = (const struct sockaddr_in *)a;
	const struct sockaddr_in *b4 = (const struct sockaddr_in *)b;

	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET)
		return a4->sin_port == b4->sin_port &&
		       a4->sin_addr.s_addr == b4->sin_addr.s_addr;
	return a6->sin6_port == b6->sin6_port &&
	       ipv6_addr_equal(&a6->sin6_addr, &b6->sin6_addr);
}

/* resolve address and route, waiting for both events */
static int resolve(struct side *s, struct rdma_cm_id *id,
		   struct sockaddr_storage *dst)
{
	int n = s->n, ret;

	ret = s->cm->resolve_addr(id, NULL, (struct sockaddr *)dst, 2000);
	if (ret)
		return ret;
	if (!wait_events(s, false, n + 1))
		return -ETIMEDOUT;
	if (s->ev[n] != RDMA_CM_EVENT_ADDR_RESOLVED)
		return -EHOSTUNREACH;
	ret = s->cm->resolve_route(id, 2000);
	if (ret)
		return ret;
	if (!wait_events(s, false, n + 2))
		return -ETIMEDOUT;
	return s->ev[n + 1] == RDMA_CM_EVENT_ROUTE_RESOLVED ? 0 : -ENETUNREACH;
}

static void get_usage(struct kunit *test, struct ib_device *ibdev,
		      struct usage *u)
{
	u->ids_intree = interop_intree.live_ids(ibdev);
	u->ids_xcma = interop_xcma.live_ids(ibdev);
	u->qp = rdma_restrack_count(ibdev, RDMA_RESTRACK_QP, false);
	u->cq = rdma_restrack_count(ibdev, RDMA_RESTRACK_CQ, false);
	u->pd = rdma_restrack_count(ibdev, RDMA_RESTRACK_PD, false);
	KUNIT_EXPECT_GE(test, u->ids_xcma, 0);
}

static int ids_of(const struct usage *u, const struct interop_cm *cm)
{
	return cm == &interop_intree ? u->ids_intree : u->ids_xcma;
}

/* everything the case created is gone again */
static void expect_usage(struct kunit *test, struct ib_device *ibdev,
			 const struct usage *before)
{
	const char *dev = dev_name(&ibdev->dev);
	struct usage now;

	get_usage(test, ibdev, &now);
	KUNIT_EXPECT_EQ_MSG(test, now.ids_intree, before->ids_intree,
			    "in-tree ids on %s", dev);
	KUNIT_EXPECT_EQ_MSG(test, now.ids_xcma, before->ids_xcma,
			    "xcma ids on %s", dev);
	KUNIT_EXPECT_EQ_MSG(test, now.qp, before->qp, "QPs on %s", dev);
	KUNIT_EXPECT_EQ_MSG(test, now.cq, before->cq, "CQs on %s", dev);
	KUNIT_EXPECT_EQ_MSG(test, now.pd, before->pd, "PDs on %s", dev);
}

static struct ib_device *get_dev(struct kunit *test, const char *name)
{
	struct ib_device *ibdev;

	ibdev = ib_device_get_by_name(name, RDMA_DRIVER_UNKNOWN);
	KUNIT_ASSERT_NOT_NULL_MSG(test, ibdev, "no %s", name);
	return ibdev;
}

static struct rdma_cm_id *listen_on(struct kunit *test, struct side *ss,
				    struct sockaddr_storage *addr)
{
	struct rdma_cm_id *lis;

	lis = ss->cm->create_id(&init_net, handler, ss, RDMA_PS_TCP,
				IB_QPT_RC);
	KUNIT_ASSERT_FALSE(test, IS_ERR(lis));
	ss->listener = lis;
	KUNIT_ASSERT_EQ(test, ss->cm->bind_addr(lis, (struct sockaddr *)addr),
			0);
	KUNIT_ASSERT_EQ(test, ss->cm->listen(lis, 8), 0);
	return lis;
}

static struct rdma_cm_id *client_to(struct kunit *test, struct side *cs,
				    struct sockaddr_storage *dst, bool qp)
{
	struct rdma_cm_id *cli;

	cli = cs->cm->create_id(&init_net, handler, cs, RDMA_PS_TCP,
				IB_QPT_RC);
	KUNIT_ASSERT_FALSE(test, IS_ERR(cli));
	KUNIT_ASSERT_EQ(test, resolve(cs, cli, dst), 0);
	if (qp)
		KUNIT_ASSERT_EQ(test, make_qp(cs, cli), 0);
	return cli;
}

/*
 * Connect, a message each way, the client disconnects (over ib_cm the
 * server then too, answering the DREQ); both sides see their whole
 * sequence, TIMEWAIT_EXIT included where the CM has one. Checked on the
 * way: the private data both ways and the lengths reported (see struct
 * transport), the addresses the listener read (over ib_cm from the REQ's
 * header), each CM's ids, the QP numbers REQ and REP carried.
 */
static void connect_exchange_disconnect(struct kunit *test)
{
	/* the last of each only where the transport has a TIMEWAIT_EXIT */
	static const int want_cli[] = {
		RDMA_CM_EVENT_ADDR_RESOLVED, RDMA_CM_EVENT_ROUTE_RESOLVED,
		RDMA_CM_EVENT_ESTABLISHED, RDMA_CM_EVENT_DISCONNECTED,
		RDMA_CM_EVENT_TIMEWAIT_EXIT,
	};
	static const int want_srv[] = {
		RDMA_CM_EVENT_CONNECT_REQUEST, RDMA_CM_EVENT_ESTABLISHED,
		RDMA_CM_EVENT_DISCONNECTED, RDMA_CM_EVENT_TIMEWAIT_EXIT,
	};
	const struct interop_case *c = test->param_value;
	const struct transport *tp = c->tp;
	int n_cli = ARRAY_SIZE(want_cli) - !tp->timewait;
	int n_srv = ARRAY_SIZE(want_srv) - !tp->timewait;
	struct rdma_conn_param param = {
		.private_data = "hi", .private_data_len = 3,
		.responder_resources = 1, .initiator_depth = 1,
		.retry_count = 7, .rnr_retry_count = 7,
	};
	struct side *cs = new_side(test, c->cli), *ss = new_side(test, c->srv);
	struct ib_device *ibdev = get_dev(test, tp->dev);
	struct rdma_cm_id *cli, *lis;
	struct sockaddr_storage addr;
	struct usage before;

	KUNIT_ASSERT_TRUE(test, cs && ss);
	get_usage(test, ibdev, &before);
	make_addr(&addr, c);
	lis = listen_on(test, ss, &addr);
	cli = client_to(test, cs, &addr, true);
	KUNIT_ASSERT_PTR_EQ(test, cli->device, ibdev);
	KUNIT_ASSERT_EQ(test, cs->cm->connect(cli, &param), 0);
	KUNIT_ASSERT_TRUE(test, wait_events(cs, false, 3));
	KUNIT_ASSERT_TRUE(test, wait_events(ss, true, 2));
	KUNIT_EXPECT_EQ(test, ss->err, 0);
	KUNIT_EXPECT_EQ(test, cs->ev[2], RDMA_CM_EVENT_ESTABLISHED);
	KUNIT_EXPECT_EQ(test, ss->cev[1], RDMA_CM_EVENT_ESTABLISHED);
	KUNIT_ASSERT_NOT_NULL(test, ss->conn);

	/* the client's data and its reported length, then the server's */
	KUNIT_EXPECT_STREQ(test, (char *)ss->pdata, "hi");
	KUNIT_EXPECT_EQ(test, ss->pdata_full, tp->req_len);
	KUNIT_EXPECT_STREQ(test, (char *)cs->pdata, "ok");
	KUNIT_EXPECT_EQ(test, cs->pdata_full, tp->rep_len);
	/* the listener read the client's address and port */
	KUNIT_EXPECT_TRUE(test, same_addr(&ss->conn_dst,
					  &cli->route.addr.src_addr));
	KUNIT_EXPECT_TRUE(test, same_addr(&ss->conn_src, &addr));
	KUNIT_EXPECT_TRUE(test, same_addr(&cli->route.addr.dst_addr, &addr));
	/* each CM drives its own end: the client, the listener and its child */
	KUNIT_EXPECT_EQ(test, cs->cm->live_ids(ibdev),
			ids_of(&before, cs->cm) + 1);
	KUNIT_EXPECT_EQ(test, ss->cm->live_ids(ibdev),
			ids_of(&before, ss->cm) + 2);
	KUNIT_ASSERT_NOT_NULL(test, ss->conn->qp);
	/* each end learnt the other's QP number from REQ and REP */
	if (tp->qpn) {
		KUNIT_EXPECT_EQ(test, ss->qpn, cli->qp->qp_num);
		KUNIT_EXPECT_EQ(test, cs->qpn, ss->conn->qp->qp_num);
	}

	KUNIT_EXPECT_EQ(test, xcma_kunit_send(cli->qp, ss->conn->qp,
					      "client to server"), 0);
	KUNIT_EXPECT_EQ(test, xcma_kunit_send(ss->conn->qp, cli->qp,
					      "server to client"), 0);

	KUNIT_EXPECT_EQ(test, cs->cm->disconnect(cli), 0);
	if (tp->srv_disconnects) {
		KUNIT_EXPECT_TRUE(test, wait_events(ss, true, 3));
		KUNIT_EXPECT_EQ(test, ss->cm->disconnect(ss->conn), 0);
	}
	KUNIT_EXPECT_TRUE(test, wait_events(cs, false, n_cli));
	KUNIT_EXPECT_TRUE(test, wait_events(ss, true, n_srv));
	expect_events(test, cs, false, want_cli, n_cli);
	expect_events(test, ss, true, want_srv, n_srv);
	KUNIT_EXPECT_EQ(test, ss->n, 0); /* the listener itself saw nothing */
	KUNIT_EXPECT_EQ_MSG(test, restrack_state(cli), tp->closed_state,
			    "%s client's state once disconnected", cs->cm->name);
	KUNIT_EXPECT_EQ_MSG(test, restrack_state(ss->conn), tp->closed_state,
			    "%s server's state once disconnected", ss->cm->name);

	free_qp(cs, cli);
	cs->cm->destroy_id(cli);
	free_qp(ss, ss->conn);
	ss->cm->destroy_id(ss->conn);
	ss->cm->destroy_id(lis);
	expect_usage(test, ibdev, &before);
	ib_device_put(ibdev);
}

/*
 * The listener rejects with private data: the client gets REJECTED with
 * the transport's status and that data (see struct transport); the
 * server's conn id saw the client's data and is destroyed by its
 * callback's return. Return: whether the data came (over siw, a REJECTED
 * with no data is its close-first race, struct transport's @rej_tries).
 */
static bool reject_once(struct kunit *test, const struct interop_case *c)
{
	static const int want_cli[] = { RDMA_CM_EVENT_ADDR_RESOLVED,
					RDMA_CM_EVENT_ROUTE_RESOLVED,
					RDMA_CM_EVENT_REJECTED };
	static const int want_srv[] = { RDMA_CM_EVENT_CONNECT_REQUEST };
	const struct transport *tp = c->tp;
	struct rdma_conn_param param = {
		.private_data = "rq", .private_data_len = 3,
		.responder_resources = 1, .initiator_depth = 1,
		.retry_count = 7, .rnr_retry_count = 7,
	};
	struct side *cs = new_side(test, c->cli), *ss = new_side(test, c->srv);
	struct rdma_cm_id *cli, *lis;
	struct sockaddr_storage addr;
	bool got;

	KUNIT_ASSERT_TRUE(test, cs && ss);
	ss->action = REQ_REJECT;
	cs->raw_reject = tp->raw_reject;
	make_addr(&addr, c);
	lis = listen_on(test, ss, &addr);
	cli = client_to(test, cs, &addr, tp->rej_qp);
	KUNIT_ASSERT_EQ(test, cs->cm->connect(cli, &param), 0);
	KUNIT_EXPECT_TRUE(test, wait_events(cs, false, 3));
	KUNIT_EXPECT_TRUE(test, wait_events(ss, true, 1));
	expect_events(test, cs, false, want_cli, ARRAY_SIZE(want_cli));
	expect_events(test, ss, true, want_srv, ARRAY_SIZE(want_srv));
	KUNIT_EXPECT_EQ(test, cs->st[2], tp->rej_status);
	got = cs->pdata_full || tp->rej_tries <= 1;
	if (got) {
		/* over ib_cm, the whole REJ area is reported, whatever was sent */
		KUNIT_EXPECT_EQ(test, cs->pdata_full, tp->rej_len);
		KUNIT_EXPECT_STREQ(test, (char *)cs->pdata, "nope");
	}
	KUNIT_EXPECT_STREQ(test, (char *)ss->pdata, "rq");
	KUNIT_EXPECT_EQ(test, ss->err, 0);

	if (tp->rej_qp)
		free_qp(cs, cli);
	cs->cm->destroy_id(cli);
	ss->cm->destroy_id(lis);
	return got;
}

static void reject_with_private_data(struct kunit *test)
{
	const struct interop_case *c = test->param_value;
	struct ib_device *ibdev = get_dev(test, c->tp->dev);
	struct usage before;
	int tries = 0;
	bool got = false;

	get_usage(test, ibdev, &before);
	while (!got && tries < max(c->tp->rej_tries, 1)) {
		got = reject_once(test, c);
		tries++;
	}
	KUNIT_EXPECT_TRUE_MSG(test, got, "no reject data in %d tries", tries);
	if (got && tries > 1)
		kunit_info(test, "reject data on try %d (siw's close first)",
			   tries);
	expect_usage(test, ibdev, &before);
	ib_device_put(ibdev);
}

/* ---- what a passive id is given ---- */

/**
 * struct passive_case - a listener whose conn id's fields are compared
 * @name: KUnit parameter name
 * @family: AF_INET or AF_INET6
 * @wildcard: the listener is bound to the any address
 * @port: the in-tree listener's port; xcma's is the next one
 * @tp: the device
 */
struct passive_case {
	const char *name;
	int family;
	bool wildcard;
	u16 port;
	const struct transport *tp;
};

/*
 * An in-tree client connects to a listener of @srv: the conn id's
 * hardware address and port as they were at CONNECT_REQUEST, in @ss.
 */
static void passive_run(struct kunit *test, const struct passive_case *pc,
			const struct interop_cm *srv, u16 port, struct side **out)
{
	struct rdma_conn_param param = {
		.private_data = "hi", .private_data_len = 3,
		.responder_resources = 1, .initiator_depth = 1,
		.retry_count = 7, .rnr_retry_count = 7,
	};
	struct interop_case c = { pc->name, &interop_intree, srv, pc->family,
				  port, pc->tp };
	struct side *cs = new_side(test, &interop_intree);
	struct side *ss = new_side(test, srv);
	struct sockaddr_storage addr, any;
	struct rdma_cm_id *cli, *lis;

	KUNIT_ASSERT_TRUE(test, cs && ss);
	make_addr(&addr, &c);
	memset(&any, 0, sizeof(any));
	any.ss_family = addr.ss_family;
	/* the port is at the same offset in both families */
	((struct sockaddr_in *)&any)->sin_port = htons(port);
	lis = listen_on(test, ss, pc->wildcard ? &any : &addr);
	cli = client_to(test, cs, &addr, true);
	KUNIT_ASSERT_EQ(test, cs->cm->connect(cli, &param), 0);
	KUNIT_EXPECT_TRUE(test, wait_events(cs, false, 3));
	KUNIT_EXPECT_TRUE(test, wait_events(ss, true, 2));
	KUNIT_EXPECT_EQ(test, ss->err, 0);
	KUNIT_EXPECT_NOT_NULL(test, ss->conn);
	free_qp(cs, cli);
	cs->cm->destroy_id(cli);
	if (ss->conn) {
		free_qp(ss, ss->conn);
		ss->cm->destroy_id(ss->conn);
	}
	ss->cm->destroy_id(lis);
	*out = ss;
}

static void same_field(struct kunit *test, const char *name, int x, int in)
{
	KUNIT_EXPECT_EQ_MSG(test, x, in, "dev_addr.%s: xcma %d, in-tree %d",
			    name, x, in);
}

/*
 * The same REQ, from the same in-tree client, to an in-tree listener and
 * to an xcma one: every field of the passive id's hardware address the
 * in-tree CM sets (cma_ib_new_conn_id()'s rdma_copy_src_l2_addr() of the
 * netdev the REQ came in on, or iw_conn_req_handler()'s translation of
 * the local address) is the same on xcma's, one by one. A bond failover's
 * ADDR_CHANGE and a UD join on a conn id need them.
 */
static void passive_id_fields(struct kunit *test)
{
	const struct passive_case *pc = test->param_value;
	const struct rdma_dev_addr *in, *x;
	struct side *si, *sx;

	passive_run(test, pc, &interop_intree, pc->port, &si);
	passive_run(test, pc, &interop_xcma, pc->port + 1, &sx);
	in = &si->conn_da;
	x = &sx->conn_da;
	same_field(test, "bound_dev_if", x->bound_dev_if, in->bound_dev_if);
	same_field(test, "dev_type", x->dev_type, in->dev_type);
	same_field(test, "transport", x->transport, in->transport);
	same_field(test, "hoplimit", x->hoplimit, in->hoplimit);
	KUNIT_EXPECT_MEMEQ_MSG(test, x->src_dev_addr, in->src_dev_addr,
			       MAX_ADDR_LEN, "dev_addr.src_dev_addr");
	KUNIT_EXPECT_MEMEQ_MSG(test, x->broadcast, in->broadcast,
			       MAX_ADDR_LEN, "dev_addr.broadcast");
	KUNIT_EXPECT_MEMEQ_MSG(test, x->dst_dev_addr, in->dst_dev_addr,
			       MAX_ADDR_LEN, "dev_addr.dst_dev_addr");
	KUNIT_EXPECT_EQ_MSG(test, !!x->sgid_attr, !!in->sgid_attr,
			    "dev_addr.sgid_attr set");
	KUNIT_EXPECT_EQ_MSG(test, sx->conn_port, si->conn_port, "port_num");
}

static void passive_desc(const struct passive_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

static const struct interop_case connect_cases[] = {
	{ "xcma_to_intree_ipv4", &interop_xcma, &interop_intree, AF_INET, 18600, &roce },
	{ "intree_to_xcma_ipv4", &interop_intree, &interop_xcma, AF_INET, 18601, &roce },
	{ "xcma_to_intree_ipv6", &interop_xcma, &interop_intree, AF_INET6, 18602, &roce },
	{ "intree_to_xcma_ipv6", &interop_intree, &interop_xcma, AF_INET6, 18603, &roce },
};

static const struct interop_case reject_cases[] = {
	{ "xcma_to_intree", &interop_xcma, &interop_intree, AF_INET, 18610, &roce },
	{ "intree_to_xcma", &interop_intree, &interop_xcma, AF_INET, 18611, &roce },
};

static void case_desc(const struct interop_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(connect, connect_cases, case_desc);
KUNIT_ARRAY_PARAM(reject, reject_cases, case_desc);

static const struct passive_case passive_cases[] = {
	{ "ipv4", AF_INET, false, 18630, &roce },
	{ "ipv6", AF_INET6, false, 18632, &roce },
	{ "ipv4_wildcard", AF_INET, true, 18634, &roce },
	{ "ipv6_wildcard", AF_INET6, true, 18636, &roce },
};

KUNIT_ARRAY_PARAM(passive, passive_cases, passive_desc);

static struct kunit_case interop_cases[] = {
	KUNIT_CASE_PARAM_ATTR(connect_exchange_disconnect, connect_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	KUNIT_CASE_PARAM(reject_with_private_data, reject_gen_params),
	KUNIT_CASE_PARAM(passive_id_fields, passive_gen_params),
	{}
};

static struct kunit_suite interop_suite = {
	.name = "xcma_interop",
	.test_cases = interop_cases,
};

/* ---- over iWARP: siw0 ---- */

static const struct interop_case iw_connect_cases[] = {
	{ "xcma_to_intree", &interop_xcma, &interop_intree, AF_INET, 18620, &iwarp },
	{ "intree_to_xcma", &interop_intree, &interop_xcma, AF_INET, 18621, &iwarp },
};

static const struct interop_case iw_reject_cases[] = {
	{ "xcma_to_intree", &interop_xcma, &interop_intree, AF_INET, 18622, &iwarp },
	{ "intree_to_xcma", &interop_intree, &interop_xcma, AF_INET, 18623, &iwarp },
};

KUNIT_ARRAY_PARAM(iw_connect, iw_connect_cases, case_desc);
KUNIT_ARRAY_PARAM(iw_reject, iw_reject_cases, case_desc);

static const struct passive_case iw_passive_cases[] = {
	{ "ipv4", AF_INET, false, 18640, &iwarp },
	{ "ipv4_wildcard", AF_INET, true, 18642, &iwarp },
};

KUNIT_ARRAY_PARAM(iw_passive, iw_passive_cases, passive_desc);

static void iw_passive_id_fields(struct kunit *test)
{
	passive_id_fields(test);
}

/* the same two cases over siw0, under names of their own */
static void iw_connect_exchange_disconnect(struct kunit *test)
{
	connect_exchange_disconnect(test);
}

static void iw_reject_with_private_data(struct kunit *test)
{
	reject_with_private_data(test);
}

/* a command of the VM's userspace, from the suite's init or exit */
static int run_cmd(const char *cmdline)
{
	char *buf = kstrdup(cmdline, GFP_KERNEL);
	int ret;

	if (!buf)
		return -ENOMEM;
	ret = xcma_kunit_umh(buf);
	kfree(buf);
	return ret;
}

/* siw0 on a dummy netdev of its own (rxe0 holds eth0) */
static const char *const iw_setup[] = {
	"/sbin/modprobe siw",
	"/usr/sbin/ip link add xsb0 type dummy",
	"/usr/sbin/ip addr add " IW_IP "/24 dev xsb0",
	"/usr/sbin/ip link set xsb0 up",
	"/usr/sbin/rdma link add siw0 type siw netdev xsb0",
};

static int iw_init(struct kunit_suite *suite)
{
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(iw_setup); i++) {
		ret = run_cmd(iw_setup[i]);
		if (ret) {
			pr_err("xcma_interop_iw: '%s' -> %d\n", iw_setup[i],
			       ret);
			return -ENODEV;
		}
	}
	return 0;
}

static void iw_exit(struct kunit_suite *suite)
{
	run_cmd("/usr/sbin/rdma link delete siw0");
	run_cmd("/usr/sbin/ip link del xsb0");
}

static struct kunit_case interop_iw_cases[] = {
	KUNIT_CASE_PARAM(iw_connect_exchange_disconnect, iw_connect_gen_params),
	KUNIT_CASE_PARAM(iw_reject_with_private_data, iw_reject_gen_params),
	KUNIT_CASE_PARAM(iw_passive_id_fields, iw_passive_gen_params),
	{}
};

static struct kunit_suite interop_iw_suite = {
	.name = "xcma_interop_iw",
	.suite_init = iw_init,
	.suite_exit = iw_exit,
	.test_cases = interop_iw_cases,
};

kunit_test_suites(&interop_suite, &interop_iw_suite);

MODULE_DESCRIPTION("KUnit: xcma against the in-tree rdma_cm over the wire");
MODULE_LICENSE("Dual BSD/GPL");
MODULE_IMPORT_NS(XCMA_INTERNAL);
