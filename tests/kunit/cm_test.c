// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * xcma_cm: the CM end to end over Soft-RoCE. Two kernel ids in one VM
 * connect over rxe0 (10.99.0.1, fd00:99::1 and eth0's link-local address),
 * exchange a message, write and read the server's memory, disconnect, and
 * every event of both sides is checked in order;
 * then rejection, a port nobody listens on, an unreachable address, a
 * table of bad inputs (errno and unchanged state), and destroy with an
 * operation in flight.
 */
#include <kunit/test.h>
#include <kunit/test-bug.h>
#include <linux/delay.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/inet.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <net/flow.h>
#include <net/net_namespace.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "../../cma/id.h"
#include "../../cma/ops.h"
#include "../../cma/wire.h"
#include "cm_util.h"
#include "xcma/fsm.h"
#include "xcma_kunit.h"

static void connect_exchange_disconnect(struct kunit *test,
					struct sockaddr_storage *listen_addr,
					struct sockaddr_storage *src,
					struct sockaddr_storage *dst)
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
	struct rdma_conn_param param = {
		.private_data = "hi", .private_data_len = 3,
		.responder_resources = 1, .initiator_depth = 1,
		.retry_count = 7, .rnr_retry_count = 7,
	};
	struct side *cs, *ss;
	struct rdma_cm_id *cli, *lis;
	struct ib_pd *pd;
	struct ib_cq *cq;

	cs = cm_new_side(test);
	ss = cm_new_side(test);

	lis = cm_listen(test, ss, listen_addr);
	KUNIT_EXPECT_EQ(test, cm_state(lis), (unsigned int)XCMA_FSM_LISTEN);

	cli = cm_new_id(test, cs, IB_QPT_RC);
	KUNIT_ASSERT_EQ(test, cm_resolve(test, cs, cli, src, dst), 0);
	KUNIT_ASSERT_EQ(test, cm_make_qp(cli, &pd, &cq), 0);
	KUNIT_ASSERT_EQ(test, rdma_connect(cli, &param), 0);
	KUNIT_ASSERT_TRUE(test, cm_wait_events(cs, false, 3));
	KUNIT_ASSERT_TRUE(test, cm_wait_events(ss, true, 2));
	KUNIT_EXPECT_EQ(test, ss->err, 0);
	KUNIT_EXPECT_EQ(test, cs->ev[2], RDMA_CM_EVENT_ESTABLISHED);
	KUNIT_EXPECT_EQ(test, ss->cev[1], RDMA_CM_EVENT_ESTABLISHED);
	KUNIT_EXPECT_STREQ(test, (char *)ss->pdata, "hi");
	/* the REQ area less the rdma_cm header, whatever was sent */
	KUNIT_EXPECT_EQ(test, ss->pdata_full,
			IB_CM_REQ_PRIVATE_DATA_SIZE - XCMA_WIRE_HDR_LEN);
	KUNIT_ASSERT_NOT_NULL(test, ss->conn);

	KUNIT_EXPECT_EQ(test, cm_exchange(test, cli, pd, cq, ss->conn, ss->pd,
					  ss->cq), 0);
	/* remote access and READ depth as rdma_connect/rdma_accept set them */
	KUNIT_EXPECT_EQ(test, cm_rdma_write_read(cli, pd, cq, ss->conn, ss->pd,
						 ss->cq), 0);

	KUNIT_EXPECT_EQ(test, rdma_disconnect(cli), 0);
	KUNIT_EXPECT_TRUE(test, cm_wait_events(ss, true, 3));
	KUNIT_EXPECT_EQ(test, rdma_disconnect(ss->conn), 0);
	KUNIT_EXPECT_TRUE(test, cm_wait_events(cs, false, 5));
	KUNIT_EXPECT_TRUE(test, cm_wait_events(ss, true, 4));
	cm_expect_events(test, cs, false, want_cli, ARRAY_SIZE(want_cli));
	cm_expect_events(test, ss, true, want_srv, ARRAY_SIZE(want_srv));
	KUNIT_EXPECT_EQ(test, ss->n, 0); /* the listener itself saw nothing */

	cm_free_qp(cli, pd, cq);
	rdma_destroy_id(cli);
	cm_free_qp(ss->conn, ss->pd, ss->cq);
	rdma_destroy_id(ss->conn);
	rdma_destroy_id(lis);
}

/* IPv4 through a wildcard listener (one child per device) */
static void connect_ipv4_wildcard(struct kunit *test)
{
	struct sockaddr_storage l, d;

	cm_addr4(&l, NULL, 18515);
	cm_addr4(&d, "10.99.0.1", 18515);
	connect_exchange_disconnect(test, &l, NULL, &d);
}

/*
 * IPv6 through a listener on the address (attached to rxe0), from a
 * client that names its source (attached at bind, not at resolution)
 */
static void connect_ipv6_bound(struct kunit *test)
{
	struct sockaddr_storage l, s, d;

	cm_addr6(&l, "fd00:99::1", 18516);
	cm_addr6(&s, "fd00:99::1", 0);
	cm_addr6(&d, "fd00:99::1", 18516);
	connect_exchange_disconnect(test, &l, &s, &d);
}

/*
 * IPv6 link-local: eth0's fe80:: address with eth0's scope, for the
 * listener, the client's source and the destination
 */
static void connect_ipv6_linklocal(struct kunit *test)
{
	struct sockaddr_storage l, s, d;

	KUNIT_ASSERT_GT(test, cm_addr6_linklocal(&l, 18534), 0);
	KUNIT_ASSERT_GT(test, cm_addr6_linklocal(&s, 0), 0);
	KUNIT_ASSERT_GT(test, cm_addr6_linklocal(&d, 18534), 0);
	connect_exchange_disconnect(test, &l, &s, &d);
}

/*
 * The client destroys its id by returning non-zero from ESTABLISHED: no
 * event after that, ib_cm takes the connection down, the server sees
 * DISCONNECTED. The client's ib_cm sent the RTU before the callback and
 * the DREQ after it, but the server's ib_cm may handle them in either
 * order (its workqueue runs one work per CPU, not one in all; a DREQ in
 * REP_SENT is taken): with two CPUs the server sees ESTABLISHED before
 * DISCONNECTED or not at all, as with the in-tree CM, whose DREQ in
 * CONNECT is DISCONNECTED too.
 */
static void destroy_by_return_established(struct kunit *test)
{
	static const int want_cli[] = { RDMA_CM_EVENT_ADDR_RESOLVED,
					RDMA_CM_EVENT_ROUTE_RESOLVED,
					RDMA_CM_EVENT_ESTABLISHED };
	static const int want_srv[] = { RDMA_CM_EVENT_CONNECT_REQUEST,
					RDMA_CM_EVENT_ESTABLISHED,
					RDMA_CM_EVENT_DISCONNECTED };
	static const int want_srv_dreq_first[] = {
		RDMA_CM_EVENT_CONNECT_REQUEST, RDMA_CM_EVENT_DISCONNECTED
	};
	struct rdma_conn_param param = {
		.responder_resources = 1, .initiator_depth = 1,
		.retry_count = 7, .rnr_retry_count = 7,
	};
	struct sockaddr_storage l, d;
	struct rdma_cm_id *cli, *lis;
	struct side *cs, *ss;
	struct ib_pd *pd;
	struct ib_cq *cq;
	bool rtu_first;

	cs = cm_new_side(test);
	ss = cm_new_side(test);
	cs->destroy_on = RDMA_CM_EVENT_ESTABLISHED + 1;
	cm_addr4(&l, "10.99.0.1", 18526);
	cm_addr4(&d, "10.99.0.1", 18526);
	lis = cm_listen(test, ss, &l);

	cli = cm_new_id(test, cs, IB_QPT_RC);
	KUNIT_ASSERT_EQ(test, cm_resolve(test, cs, cli, NULL, &d), 0);
	KUNIT_ASSERT_EQ(test, cm_make_qp(cli, &pd, &cq), 0);
	KUNIT_ASSERT_EQ(test, rdma_connect(cli, &param), 0);
	/* cli is gone once its ESTABLISHED callback returned */
	KUNIT_EXPECT_TRUE(test, cm_wait_events(cs, false, 3));
	KUNIT_EXPECT_TRUE(test, cm_wait_events(ss, true, 2));
	rtu_first = ss->cev[1] == RDMA_CM_EVENT_ESTABLISHED;
	if (rtu_first)
		KUNIT_EXPECT_TRUE(test, cm_wait_events(ss, true, 3));
	msleep(100);
	cm_expect_events(test, cs, false, want_cli, ARRAY_SIZE(want_cli));
	if (rtu_first)
		cm_expect_events(test, ss, true, want_srv,
				 ARRAY_SIZE(want_srv));
	else
		cm_expect_events(test, ss, true, want_srv_dreq_first,
				 ARRAY_SIZE(want_srv_dreq_first));
	kunit_info(test, "the server's ib_cm took the %s first",
		   rtu_first ? "RTU" : "DREQ");
	ib_free_cq(cq);
	ib_dealloc_pd(pd);
	if (ss->conn) {
		cm_free_qp(ss->conn, ss->pd, ss->cq);
		rdma_destroy_id(ss->conn);
	}
	rdma_destroy_id(lis);
}

static void reject_with_private_data(struct kunit *test)
{
	static const int want_cli[] = { RDMA_CM_EVENT_ADDR_RESOLVED,
					RDMA_CM_EVENT_ROUTE_RESOLVED,
					RDMA_CM_EVENT_REJECTED };
	static const int want_srv[] = { RDMA_CM_EVENT_CONNECT_REQUEST };
	struct sockaddr_storage l, d;
	struct rdma_cm_id *cli, *lis;
	struct side *cs, *ss;

	cs = cm_new_side(test);
	ss = cm_new_side(test);
	ss->action = REQ_REJECT;
	cm_addr4(&l, "10.99.0.1", 18517);
	cm_addr4(&d, "10.99.0.1", 18517);
	lis = cm_listen(test, ss, &l);

	cm_connect_and_get(test, cs, &cli, &d, 3);
	cm_expect_events(test, cs, false, want_cli, ARRAY_SIZE(want_cli));
	/* recorded after the REJ is sent: the REJECTED can be first */
	KUNIT_EXPECT_TRUE(test, cm_wait_events(ss, true, 1));
	cm_expect_events(test, ss, true, want_srv, ARRAY_SIZE(want_srv));
	KUNIT_EXPECT_EQ(test, cs->st[2], IB_CM_REJ_CONSUMER_DEFINED);
	KUNIT_EXPECT_EQ(test, cs->pdata_full, IB_CM_REJ_PRIVATE_DATA_SIZE);
	KUNIT_EXPECT_EQ(test, memcmp(cs->pdata, "nope", 4), 0);
	KUNIT_EXPECT_EQ(test, ss->err, 0);
	KUNIT_EXPECT_STREQ(test, rdma_reject_msg(cli, cs->st[2]),
			   "consumer defined");
	KUNIT_EXPECT_EQ(test, cm_state(cli), (unsigned int)XCMA_FSM_CONNECT);
	rdma_destroy_id(cli);
	rdma_destroy_id(lis);
}

/*
 * A REQ that comes while a wildcard listener's child is being made: the
 * child's ib_cm listen exists a moment before the child is in LISTEN
 * (the ctx lock held meanwhile). This fake of ib_cm_insert_listen() keeps
 * that moment open: once the listen exists it has the client's
 * rdma_connect() sent from a work item and returns only after ib_cm has
 * passed the REQ to xcma (and 200 ms more). In-tree the child is LISTEN
 * before its listen exists, so the REQ reaches the wildcard's user.
 */
static struct {
	struct xcma_ops ops;
	ib_cm_handler handler;
	struct rdma_cm_id *cli;
	struct work_struct connect;
	wait_queue_head_t wq;
	atomic_t reqs;
	int connect_ret;
	bool armed;
} mk;

static int mk_req_handler(struct ib_cm_id *cm_id,
			  const struct ib_cm_event *ev)
{
	if (ev->event == IB_CM_REQ_RECEIVED) {
		atomic_inc(&mk.reqs);
		wake_up(&mk.wq);
	}
	return mk.handler(cm_id, ev);
}

static void mk_connect(struct work_struct *work)
{
	struct rdma_conn_param param = {
		.responder_resources = 1, .initiator_depth = 1,
		.retry_count = 7, .rnr_retry_count = 7,
	};

	mk.connect_ret = rdma_connect(mk.cli, &param);
	wake_up(&mk.wq);
}

static struct ib_cm_id *mk_insert_listen(struct ib_device *dev,
					 ib_cm_handler handler,
					 __be64 service_id)
{
	struct ib_cm_id *cm_id;

	mk.handler = handler;
	cm_id = xcma_kernel_ops.insert_listen(dev, mk_req_handler,
					      service_id);
	if (IS_ERR(cm_id) || !mk.armed)
		return cm_id;
	mk.armed = false;
	schedule_work(&mk.connect);
	wait_event_timeout(mk.wq, atomic_read(&mk.reqs), 10 * HZ);
	msleep(200);
	return cm_id;
}

static void mk_restore(void *unused)
{
	xcma_ops_set(NULL);
	flush_work(&mk.connect);
}

static void request_while_a_wildcard_child_is_made(struct kunit *test)
{
	static const int want_cli[] = { RDMA_CM_EVENT_ADDR_RESOLVED,
					RDMA_CM_EVENT_ROUTE_RESOLVED,
					RDMA_CM_EVENT_REJECTED };
	static const int want_srv[] = { RDMA_CM_EVENT_CONNECT_REQUEST };
	struct sockaddr_storage w, d;
	struct rdma_cm_id *lis;
	struct side *cs, *ss;

	mk.ops = xcma_kernel_ops;
	mk.ops.insert_listen = mk_insert_listen;
	INIT_WORK(&mk.connect, mk_connect);
	init_waitqueue_head(&mk.wq);
	atomic_set(&mk.reqs, 0);
	mk.connect_ret = -EINPROGRESS;
	mk.armed = false;
	xcma_ops_set(&mk.ops);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, mk_restore, NULL),
			0);

	cs = cm_new_side(test);
	ss = cm_new_side(test);
	ss->action = REQ_REJECT;
	cm_addr4(&w, NULL, 18542);
	cm_addr4(&d, "10.99.0.1", 18542);
	mk.cli = cm_new_id(test, cs, IB_QPT_RC);
	KUNIT_ASSERT_EQ(test, cm_resolve(test, cs, mk.cli, NULL, &d), 0);
	mk.armed = true;
	lis = cm_listen(test, ss, &w);
	KUNIT_EXPECT_FALSE(test, mk.armed);
	KUNIT_EXPECT_EQ(test, atomic_read(&mk.reqs), 1);
	KUNIT_EXPECT_EQ(test, mk.connect_ret, 0);

	KUNIT_ASSERT_TRUE(test, cm_wait_events(cs, false, 3));
	cm_expect_events(test, cs, false, want_cli, ARRAY_SIZE(want_cli));
	KUNIT_EXPECT_EQ(test, cs->st[2], IB_CM_REJ_CONSUMER_DEFINED);
	KUNIT_EXPECT_EQ_MSG(test, memcmp(cs->pdata, "nope", 4), 0,
			    "the REJ is not the wildcard listener's");
	KUNIT_EXPECT_TRUE(test, cm_wait_events(ss, true, 1));
	cm_expect_events(test, ss, true, want_srv, ARRAY_SIZE(want_srv));
	rdma_destroy_id(mk.cli);
	rdma_destroy_id(lis);
}

/* ib_cm answers a REQ for an unknown service ID itself: REJ reason 8 */
static void connect_no_listener(struct kunit *test)
{
	static const int want[] = { RDMA_CM_EVENT_ADDR_RESOLVED,
				    RDMA_CM_EVENT_ROUTE_RESOLVED,
				    RDMA_CM_EVENT_REJECTED };
	struct sockaddr_storage d;
	struct rdma_cm_id *cli;
	struct side *cs;

	cs = cm_new_side(test);
	cm_addr4(&d, "10.99.0.1", 18599);
	cm_connect_and_get(test, cs, &cli, &d, 3);
	cm_expect_events(test, cs, false, want, ARRAY_SIZE(want));
	KUNIT_EXPECT_EQ(test, cs->st[2], IB_CM_REJ_INVALID_SERVICE_ID);
	KUNIT_EXPECT_EQ(test, cs->pdata_full, 0);
	rdma_destroy_id(cli);
}

/* no route to the address: refused at once, as in-tree; still ADDR_BOUND */
static void resolve_no_route(struct kunit *test)
{
	struct sockaddr_storage d;
	struct rdma_cm_id *id;
	struct side *s;

	s = cm_new_side(test);
	cm_addr4(&d, "192.0.2.1", 18518);
	id = cm_new_id(test, s, IB_QPT_RC);
	KUNIT_EXPECT_EQ(test, rdma_resolve_addr(id, NULL, (struct sockaddr *)&d,
						1000), -ENETUNREACH);
	KUNIT_EXPECT_EQ(test, cm_state(id), (unsigned int)XCMA_FSM_ADDR_BOUND);
	msleep(100);
	KUNIT_EXPECT_EQ(test, READ_ONCE(s->n), 0);
	rdma_destroy_id(id);
}

/* on the link but nobody answers ARP: ADDR_ERROR -ETIMEDOUT, ADDR_BOUND */
static void resolve_unreachable(struct kunit *test)
{
	struct sockaddr_storage d;
	struct rdma_cm_id *id;
	struct side *s;

	s = cm_new_side(test);
	cm_addr4(&d, "10.99.0.78", 18519);
	id = cm_new_id(test, s, IB_QPT_RC);
	KUNIT_EXPECT_EQ(test, rdma_resolve_addr(id, NULL, (struct sockaddr *)&d,
						500), 0);
	KUNIT_EXPECT_TRUE(test, cm_wait_events(s, false, 1));
	KUNIT_EXPECT_EQ(test, s->ev[0], RDMA_CM_EVENT_ADDR_ERROR);
	KUNIT_EXPECT_EQ(test, s->st[0], -ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, cm_state(id), (unsigned int)XCMA_FSM_ADDR_BOUND);
	rdma_destroy_id(id);
}

/* ---- bad input: the in-tree errno, and the state does not change ---- */

enum setup { SETUP_IDLE, SETUP_BOUND, SETUP_LISTEN, SETUP_ROUTE };

/*
 * @leaves: 0 if the failed call leaves the id as it was (state and source
 * address), else 1 + the state the in-tree CM leaves it in
 */
struct bad_case {
	const char *name;
	enum setup setup;
	enum ib_qp_type qp_type;
	int (*op)(struct rdma_cm_id *id);
	int err;
	unsigned int leaves;
};

#define LEAVES(state) ((state) + 1)

static int op_bind_unix(struct rdma_cm_id *id)
{
	struct sockaddr_storage ss = { .ss_family = AF_UNIX };

	return rdma_bind_addr(id, (struct sockaddr *)&ss);
}

static int op_bind_again(struct rdma_cm_id *id)
{
	struct sockaddr_storage ss;

	cm_addr4(&ss, "10.99.0.1", 18531);
	return rdma_bind_addr(id, (struct sockaddr *)&ss);
}

static int op_bind_in_use(struct rdma_cm_id *id)
{
	struct sockaddr_storage ss;
	struct rdma_cm_id *other;
	int ret;

	other = rdma_create_id(&init_net, cm_handler, id->context, RDMA_PS_TCP,
			       IB_QPT_RC);
	if (IS_ERR(other))
		return PTR_ERR(other);
	cm_addr4(&ss, "10.99.0.1", 18530);
	ret = rdma_bind_addr(other, (struct sockaddr *)&ss);
	if (!ret)
		ret = rdma_bind_addr(id, (struct sockaddr *)&ss);
	else
		ret = -EIO;
	rdma_destroy_id(other);
	return ret;
}

/* eth0's link-local address with scope id @scope (-1: eth0's own) */
static int bind_linklocal(struct rdma_cm_id *id, int scope)
{
	struct sockaddr_storage ss;
	int ifindex = cm_addr6_linklocal(&ss, 18536);

	/* a failed lookup must not pass for the errno of a row */
	if (ifindex < 0)
		return -ENOKEY;
	if (scope >= 0)
		((struct sockaddr_in6 *)&ss)->sin6_scope_id = scope;
	return rdma_bind_addr(id, (struct sockaddr *)&ss);
}

static int op_bind_linklocal_no_scope(struct rdma_cm_id *id)
{
	return bind_linklocal(id, 0);
}

/* the address is eth0's, the scope is lo's: no RDMA device has it there */
static int op_bind_linklocal_scope_lo(struct rdma_cm_id *id)
{
	return bind_linklocal(id, LOOPBACK_IFINDEX);
}

static int op_bind_linklocal_scope_unknown(struct rdma_cm_id *id)
{
	return bind_linklocal(id, 9999);
}

/* another id holds the wildcard on that port */
static int op_bind_taken_by_wildcard(struct rdma_cm_id *id)
{
	struct sockaddr_storage ss;
	struct rdma_cm_id *other;
	int ret;

	other = rdma_create_id(&init_net, cm_handler, id->context, RDMA_PS_TCP,
			       IB_QPT_RC);
	if (IS_ERR(other))
		return PTR_ERR(other);
	cm_addr4(&ss, NULL, 18537);
	ret = rdma_bind_addr(other, (struct sockaddr *)&ss);
	cm_addr4(&ss, "10.99.0.1", 18537);
	if (!ret)
		ret = rdma_bind_addr(id, (struct sockaddr *)&ss);
	else
		ret = -EIO;
	rdma_destroy_id(other);
	return ret;
}

/*
 * An address no RDMA device has (on a dummy netdev of its own), on a port
 * another id holds: the device is looked for first, as in-tree, so the
 * address's errno wins over the port's.
 */
static int op_bind_no_device_port_in_use(struct rdma_cm_id *id)
{
	struct kunit *test = kunit_get_current_test();
	struct sockaddr_storage ss;
	struct rdma_cm_id *other;
	int ret;

	if (xcma_kunit_run(test, "/usr/sbin/ip link add xb0 type dummy") ||
	    xcma_kunit_run(test, "/usr/sbin/ip link set xb0 up") ||
	    xcma_kunit_run(test, "/usr/sbin/ip addr add 10.97.0.1/24 dev xb0")) {
		ret = -ENOKEY;
		goto out;
	}
	other = rdma_create_id(&init_net, cm_handler, id->context, RDMA_PS_TCP,
			       IB_QPT_RC);
	if (IS_ERR(other)) {
		ret = PTR_ERR(other);
		goto out;
	}
	cm_addr4(&ss, NULL, 18546);
	ret = rdma_bind_addr(other, (struct sockaddr *)&ss);
	cm_addr4(&ss, "10.97.0.1", 18546);
	if (!ret)
		ret = rdma_bind_addr(id, (struct sockaddr *)&ss);
	else
		ret = -EIO;
	rdma_destroy_id(other);
out:
	xcma_kunit_run(test, "/usr/sbin/ip link del xb0");
	return ret;
}

/* the implicit bind of resolve_addr meets a port in use */
static int op_resolve_src_in_use(struct rdma_cm_id *id)
{
	struct sockaddr_storage src, dst;
	struct rdma_cm_id *other;
	int ret;

	other = rdma_create_id(&init_net, cm_handler, id->context, RDMA_PS_TCP,
			       IB_QPT_RC);
	if (IS_ERR(other))
		return PTR_ERR(other);
	cm_addr4(&src, "10.99.0.1", 18538);
	cm_addr4(&dst, "10.99.0.1", 18539);
	ret = rdma_bind_addr(other, (struct sockaddr *)&src);
	if (!ret)
		ret = rdma_resolve_addr(id, (struct sockaddr *)&src,
					(struct sockaddr *)&dst, 1000);
	else
		ret = -EIO;
	rdma_destroy_id(other);
	return ret;
}

static int op_resolve_dst_unix(struct rdma_cm_id *id)
{
	struct sockaddr_storage ss = { .ss_family = AF_UNIX };

	return rdma_resolve_addr(id, NULL, (struct sockaddr *)&ss, 1000);
}

/*
 * Source and destination of different families on an IDLE id: in-tree
 * binds the source first, then refuses the pair and leaves the id bound.
 */
static int op_resolve_v4_src_v6_dst(struct rdma_cm_id *id)
{
	struct sockaddr_storage src, dst;

	cm_addr4(&src, "10.99.0.1", 0);
	cm_addr6(&dst, "fd00:99::1", 18540);
	return rdma_resolve_addr(id, (struct sockaddr *)&src,
				 (struct sockaddr *)&dst, 1000);
}

static int op_resolve(struct rdma_cm_id *id)
{
	struct sockaddr_storage ss;

	cm_addr4(&ss, "10.99.0.1", 18541);
	return rdma_resolve_addr(id, NULL, (struct sockaddr *)&ss, 1000);
}

static int op_resolve_v6_on_v4(struct rdma_cm_id *id)
{
	struct sockaddr_storage ss;

	cm_addr6(&ss, "fd00:99::1", 18532);
	return rdma_resolve_addr(id, NULL, (struct sockaddr *)&ss, 1000);
}

static int op_connect(struct rdma_cm_id *id)
{
	struct rdma_conn_param p = { .retry_count = 7 };

	return rdma_connect(id, &p);
}

static int op_connect_pdata_too_long(struct rdma_cm_id *id)
{
	static const u8 data[IB_CM_REQ_PRIVATE_DATA_SIZE];
	struct rdma_conn_param p = {
		.private_data = data,
		/* the header takes 36 of the 92 bytes */
		.private_data_len = IB_CM_REQ_PRIVATE_DATA_SIZE - 35,
	};

	return rdma_connect(id, &p);
}

static int op_listen(struct rdma_cm_id *id)
{
	return rdma_listen(id, 8);
}

static int op_accept(struct rdma_cm_id *id)
{
	struct rdma_conn_param p = {};
	int ret;

	rdma_lock_handler(id);
	ret = rdma_accept(id, &p);
	rdma_unlock_handler(id);
	return ret;
}

static int op_reject(struct rdma_cm_id *id)
{
	return rdma_reject(id, NULL, 0, IB_CM_REJ_CONSUMER_DEFINED);
}

static int op_disconnect(struct rdma_cm_id *id)
{
	return rdma_disconnect(id);
}

static int op_route_zero_timeout(struct rdma_cm_id *id)
{
	return rdma_resolve_route(id, 0);
}

static int op_route(struct rdma_cm_id *id)
{
	return rdma_resolve_route(id, 1000);
}

static int op_ack_timeout(struct rdma_cm_id *id)
{
	return rdma_set_ack_timeout(id, 14);
}

/* 5 bits on the wire, but neither in-tree nor xcma checks the range */
static int op_ack_timeout_32(struct rdma_cm_id *id)
{
	return rdma_set_ack_timeout(id, 32);
}

static int op_min_rnr_32(struct rdma_cm_id *id)
{
	return rdma_set_min_rnr_timer(id, 32);
}

static int op_afonly(struct rdma_cm_id *id)
{
	return rdma_set_afonly(id, 1);
}

static int op_reuseaddr_off(struct rdma_cm_id *id)
{
	return rdma_set_reuseaddr(id, 0);
}

static int op_notify(struct rdma_cm_id *id)
{
	return rdma_notify(id, IB_EVENT_COMM_EST);
}

/* a wildcard listener has no ib_cm id of its own */
static int op_listen_any_disconnect(struct rdma_cm_id *id)
{
	int ret = rdma_listen(id, 1);

	return ret ?: rdma_disconnect(id);
}

static int fake_send_req(struct ib_cm_id *cm_id, struct ib_cm_req_param *p)
{
	return -EMSGSIZE;
}

/* ib_cm refuses the REQ (a fake through the ops layer): back to ROUTE_RESOLVED */
static int op_connect_send_req_fails(struct rdma_cm_id *id)
{
	static struct xcma_ops fake;
	const struct xcma_ops *old;
	int ret;

	fake = xcma_kernel_ops;
	fake.send_req = fake_send_req;
	old = xcma_ops_set(&fake);
	ret = op_connect(id);
	xcma_ops_set(old);
	return ret;
}

static const struct bad_case bad_cases[] = {
	{ "bind_family_unix", SETUP_IDLE, IB_QPT_RC, op_bind_unix, -EAFNOSUPPORT },
	{ "bind_twice", SETUP_BOUND, IB_QPT_RC, op_bind_again, -EINVAL },
	{ "bind_port_in_use", SETUP_IDLE, IB_QPT_RC, op_bind_in_use, -EADDRINUSE },
	{ "bind_no_device_port_in_use", SETUP_IDLE, IB_QPT_RC,
	  op_bind_no_device_port_in_use, -ENODEV },
	{ "resolve_family_mismatch", SETUP_BOUND, IB_QPT_RC, op_resolve_v6_on_v4, -EINVAL },
	{ "connect_before_route", SETUP_IDLE, IB_QPT_RC, op_connect, -EINVAL },
	{ "connect_bound", SETUP_BOUND, IB_QPT_RC, op_connect, -EINVAL },
	{ "connect_private_data_too_long", SETUP_ROUTE, IB_QPT_RC,
	  op_connect_pdata_too_long, -EINVAL },
	{ "connect_ib_cm_refuses", SETUP_ROUTE, IB_QPT_RC,
	  op_connect_send_req_fails, -EMSGSIZE },
	{ "listen_twice", SETUP_LISTEN, IB_QPT_RC, op_listen, -EINVAL },
	{ "listen_after_route", SETUP_ROUTE, IB_QPT_RC, op_listen, -EINVAL },
	{ "accept_on_listener", SETUP_LISTEN, IB_QPT_RC, op_accept, -EINVAL },
	{ "accept_on_idle", SETUP_IDLE, IB_QPT_RC, op_accept, -EINVAL },
	{ "reject_without_request", SETUP_ROUTE, IB_QPT_RC, op_reject, -EINVAL },
	{ "disconnect_unconnected", SETUP_ROUTE, IB_QPT_RC, op_disconnect, -EINVAL },
	{ "notify_unconnected", SETUP_BOUND, IB_QPT_RC, op_notify, -EINVAL },
	/* in-tree: 0 for a listener with an ib_cm listen id (bound to a
	 * device: rdma_ucm's users reach this), -EINVAL for a wildcard one
	 */
	{ "disconnect_on_listener", SETUP_LISTEN, IB_QPT_RC, op_disconnect, 0 },
	{ "disconnect_on_wildcard_listener", SETUP_IDLE, IB_QPT_RC,
	  op_listen_any_disconnect, -EINVAL, LEAVES(XCMA_FSM_LISTEN) },
	{ "notify_on_listener", SETUP_LISTEN, IB_QPT_RC, op_notify, -EINVAL },
	{ "route_zero_timeout", SETUP_ROUTE, IB_QPT_RC, op_route_zero_timeout, -EINVAL },
	{ "route_before_addr", SETUP_BOUND, IB_QPT_RC, op_route, -EINVAL },
	{ "ack_timeout_on_ud", SETUP_IDLE, IB_QPT_UD, op_ack_timeout, -EINVAL },
	{ "min_rnr_timer_32", SETUP_IDLE, IB_QPT_RC, op_min_rnr_32, -EINVAL },
	{ "min_rnr_timer_on_ud", SETUP_IDLE, IB_QPT_UD, op_min_rnr_32, -EINVAL },
	{ "afonly_when_listening", SETUP_LISTEN, IB_QPT_RC, op_afonly, -EINVAL },
	{ "reuseaddr_off_when_bound", SETUP_BOUND, IB_QPT_RC, op_reuseaddr_off, -EINVAL },
	{ "bind_linklocal_without_scope", SETUP_IDLE, IB_QPT_RC,
	  op_bind_linklocal_no_scope, -EINVAL },
	{ "bind_linklocal_scope_mismatch", SETUP_IDLE, IB_QPT_RC,
	  op_bind_linklocal_scope_lo, -ENODEV },
	{ "bind_linklocal_scope_unknown", SETUP_IDLE, IB_QPT_RC,
	  op_bind_linklocal_scope_unknown, -ENODEV },
	{ "bind_on_listener", SETUP_LISTEN, IB_QPT_RC, op_bind_again, -EINVAL },
	{ "bind_port_taken_by_wildcard", SETUP_IDLE, IB_QPT_RC,
	  op_bind_taken_by_wildcard, -EADDRNOTAVAIL },
	{ "resolve_src_port_in_use", SETUP_IDLE, IB_QPT_RC,
	  op_resolve_src_in_use, -EADDRINUSE },
	{ "resolve_dst_family_unix", SETUP_IDLE, IB_QPT_RC, op_resolve_dst_unix,
	  -EAFNOSUPPORT },
	{ "resolve_bound_dst_family_unix", SETUP_BOUND, IB_QPT_RC,
	  op_resolve_dst_unix, -EINVAL },
	{ "resolve_src_dst_families_differ", SETUP_IDLE, IB_QPT_RC,
	  op_resolve_v4_src_v6_dst, -EINVAL, LEAVES(XCMA_FSM_ADDR_BOUND) },
	{ "resolve_on_listener", SETUP_LISTEN, IB_QPT_RC, op_resolve, -EINVAL },
	{ "resolve_after_route", SETUP_ROUTE, IB_QPT_RC, op_resolve, -EINVAL },
	{ "route_twice", SETUP_ROUTE, IB_QPT_RC, op_route, -EINVAL },
	{ "accept_before_request", SETUP_ROUTE, IB_QPT_RC, op_accept, -EINVAL },
	{ "ack_timeout_out_of_range", SETUP_IDLE, IB_QPT_RC, op_ack_timeout_32, 0 },
};

static void bad_desc(const struct bad_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(bad, bad_cases, bad_desc);

static void bad_input(struct kunit *test)
{
	const struct bad_case *c = test->param_value;
	struct sockaddr_storage ss, src;
	struct ib_device *dev;
	struct rdma_cm_id *id;
	unsigned int before;
	struct side *s;

	s = cm_new_side(test);
	id = cm_new_id(test, s, c->qp_type);
	switch (c->setup) {
	case SETUP_IDLE:
		break;
	case SETUP_BOUND:
	case SETUP_LISTEN:
		cm_addr4(&ss, "10.99.0.1", 18520);
		KUNIT_ASSERT_EQ(test, rdma_bind_addr(id, (struct sockaddr *)&ss), 0);
		if (c->setup == SETUP_LISTEN)
			KUNIT_ASSERT_EQ(test, rdma_listen(id, 1), 0);
		break;
	case SETUP_ROUTE:
		cm_addr4(&ss, "10.99.0.1", 18521);
		KUNIT_ASSERT_EQ(test, cm_resolve(test, s, id, NULL, &ss), 0);
		break;
	}
	before = cm_state(id);
	src = id->route.addr.src_addr;
	dev = id->device;
	KUNIT_EXPECT_EQ(test, c->op(id), c->err);
	if (c->leaves) {
		KUNIT_EXPECT_EQ_MSG(test, cm_state(id), c->leaves - 1,
				    "state %s -> %s",
				    xcma_fsm_state_name(before),
				    xcma_fsm_state_name(cm_state(id)));
		goto out;
	}
	KUNIT_EXPECT_EQ_MSG(test, cm_state(id), before, "state %s -> %s",
			    xcma_fsm_state_name(before),
			    xcma_fsm_state_name(cm_state(id)));
	KUNIT_EXPECT_EQ_MSG(test, memcmp(&src, &id->route.addr.src_addr,
					 sizeof(src)), 0,
			    "source %pISpc -> %pISpc", &src,
			    &id->route.addr.src_addr);
	/* a bind that attached before it failed lets go of the device */
	KUNIT_EXPECT_PTR_EQ(test, id->device, dev);
out:
	rdma_destroy_id(id);
}

static void create_refuses_bad_args(struct kunit *test)
{
	struct rdma_cm_id *id;

	id = rdma_create_id(&init_net, NULL, NULL, RDMA_PS_TCP, IB_QPT_RC);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(id), -EINVAL);
	id = rdma_create_id(&init_net, cm_handler, NULL, RDMA_PS_TCP, IB_QPT_GSI);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(id), -EINVAL);
}

/* an unknown port space is refused where in-tree refuses it: at bind */
static void bind_unknown_port_space(struct kunit *test)
{
	struct sockaddr_storage ss;
	struct rdma_cm_id *id;
	struct side *s;

	s = cm_new_side(test);
	id = rdma_create_id(&init_net, cm_handler, s, 0x0777, IB_QPT_RC);
	KUNIT_ASSERT_FALSE(test, IS_ERR(id));
	cm_addr4(&ss, "10.99.0.1", 18522);
	KUNIT_EXPECT_EQ(test, rdma_bind_addr(id, (struct sockaddr *)&ss),
			-EPROTONOSUPPORT);
	KUNIT_EXPECT_EQ(test, cm_state(id), (unsigned int)XCMA_FSM_IDLE);
	rdma_destroy_id(id);
}

/* ---- destroy with an operation in flight: no event after it ---- */

static void destroy_in_addr_query(struct kunit *test)
{
	struct sockaddr_storage d;
	struct rdma_cm_id *id;
	struct side *s;

	s = cm_new_side(test);
	/* on the link, nobody answers ARP: the query stays pending */
	cm_addr4(&d, "10.99.0.77", 18523);
	id = cm_new_id(test, s, IB_QPT_RC);
	KUNIT_ASSERT_EQ(test, rdma_resolve_addr(id, NULL, (struct sockaddr *)&d,
						5000), 0);
	KUNIT_EXPECT_EQ(test, cm_state(id), (unsigned int)XCMA_FSM_ADDR_QUERY);
	rdma_destroy_id(id);
	msleep(100);
	KUNIT_EXPECT_EQ(test, READ_ONCE(s->n), 0);
}

static void destroy_in_route_query(struct kunit *test)
{
	struct sockaddr_storage d;
	struct rdma_cm_id *id;
	struct side *s;
	int n;

	s = cm_new_side(test);
	cm_addr4(&d, "10.99.0.1", 18524);
	id = cm_new_id(test, s, IB_QPT_RC);
	KUNIT_ASSERT_EQ(test, rdma_resolve_addr(id, NULL, (struct sockaddr *)&d,
						2000), 0);
	KUNIT_ASSERT_TRUE(test, cm_wait_events(s, false, 1));
	KUNIT_ASSERT_EQ(test, rdma_resolve_route(id, 2000), 0);
	rdma_destroy_id(id);
	n = READ_ONCE(s->n);
	msleep(100);
	KUNIT_EXPECT_EQ(test, READ_ONCE(s->n), n);
	KUNIT_EXPECT_LE(test, n, 2);
}

static void destroy_in_connect(struct kunit *test)
{
	struct sockaddr_storage l, d;
	struct rdma_cm_id *cli, *lis;
	struct side *cs, *ss;
	int n;

	cs = cm_new_side(test);
	ss = cm_new_side(test);
	ss->action = REQ_KEEP;
	cm_addr4(&l, "10.99.0.1", 18525);
	cm_addr4(&d, "10.99.0.1", 18525);
	lis = cm_listen(test, ss, &l);

	/* the server holds the request without answering it */
	cm_connect_and_get(test, cs, &cli, &d, 2);
	KUNIT_ASSERT_TRUE(test, cm_wait_events(ss, true, 1));
	KUNIT_EXPECT_EQ(test, cm_state(cli), (unsigned int)XCMA_FSM_CONNECT);
	rdma_destroy_id(cli);
	n = READ_ONCE(cs->n);
	msleep(100);
	KUNIT_EXPECT_EQ(test, READ_ONCE(cs->n), n);
	KUNIT_EXPECT_EQ(test, n, 2);
	/*
	 * ib_cm cancels the REQ it was told to wait for with a REJ (reason
	 * timeout), which the server's conn id gets, as in-tree
	 */
	KUNIT_EXPECT_TRUE(test, cm_wait_events(ss, true, 2));
	KUNIT_EXPECT_EQ(test, ss->cev[1], RDMA_CM_EVENT_REJECTED);
	KUNIT_EXPECT_EQ(test, ss->cst[1], IB_CM_REJ_TIMEOUT);

	KUNIT_ASSERT_NOT_NULL(test, ss->conn);
	rdma_destroy_id(ss->conn);
	rdma_destroy_id(lis);
}

/* ---- device removal with ids in several states ---- */

/* after rxe0 is re-added its GIDs appear a little later: retry */
static int resolve_retry(struct kunit *test, struct side *s,
			 struct rdma_cm_id *id, struct sockaddr_storage *dst)
{
	int i, ret = -ENODEV;

	for (i = 0; i < 50 && ret; i++) {
		ret = cm_resolve(test, s, id, NULL, dst);
		if (ret)
			msleep(100);
	}
	return ret;
}

/*
 * rdma link delete rxe0: a listener on the address, an id in
 * ADDR_RESOLVED and one in ROUTE_RESOLVED each get DEVICE_REMOVAL once and
 * destroy themselves by returning non-zero; the wildcard listener hears
 * nothing and keeps listening; its child comes back with the device.
 */
static void device_removal(struct kunit *test)
{
	static const int want_lis[] = { RDMA_CM_EVENT_DEVICE_REMOVAL };
	static const int want_addr[] = { RDMA_CM_EVENT_ADDR_RESOLVED,
					 RDMA_CM_EVENT_DEVICE_REMOVAL };
	static const int want_route[] = { RDMA_CM_EVENT_ADDR_RESOLVED,
					  RDMA_CM_EVENT_ROUTE_RESOLVED,
					  RDMA_CM_EVENT_DEVICE_REMOVAL };
	struct side *sl = cm_new_side(test), *sw = cm_new_side(test);
	struct side *sa = cm_new_side(test), *sr = cm_new_side(test);
	struct side *sc = cm_new_side(test);
	struct rdma_conn_param param = { .retry_count = 7 };
	struct rdma_cm_id *wild, *ida, *idr, *cli;
	struct sockaddr_storage l, w, d;
	int ret;

	KUNIT_ASSERT_TRUE(test, sl && sw && sa && sr && sc);
	sl->destroy_on = RDMA_CM_EVENT_DEVICE_REMOVAL + 1;
	sa->destroy_on = RDMA_CM_EVENT_DEVICE_REMOVAL + 1;
	sr->destroy_on = RDMA_CM_EVENT_DEVICE_REMOVAL + 1;
	sw->action = REQ_REJECT;
	cm_addr4(&l, "10.99.0.1", 18527);
	cm_addr4(&w, NULL, 18528);
	cm_addr4(&d, "10.99.0.1", 18528);

	cm_listen(test, sl, &l);
	wild = cm_listen(test, sw, &w);
	ida = cm_new_id(test, sa, IB_QPT_RC);
	KUNIT_ASSERT_EQ(test, rdma_resolve_addr(ida, NULL, (struct sockaddr *)&d,
						2000), 0);
	KUNIT_ASSERT_TRUE(test, cm_wait_events(sa, false, 1));
	idr = cm_new_id(test, sr, IB_QPT_RC);
	KUNIT_ASSERT_EQ(test, cm_resolve(test, sr, idr, NULL, &d), 0);

	/* returns once no id holds the device any more */
	ret = xcma_kunit_run(test, "/usr/sbin/rdma link delete rxe0");
	KUNIT_EXPECT_EQ(test, ret, 0);
	cm_expect_events(test, sl, false, want_lis, ARRAY_SIZE(want_lis));
	cm_expect_events(test, sa, false, want_addr, ARRAY_SIZE(want_addr));
	cm_expect_events(test, sr, false, want_route, ARRAY_SIZE(want_route));
	KUNIT_EXPECT_EQ(test, sw->n, 0);
	KUNIT_EXPECT_EQ(test, cm_state(wild), (unsigned int)XCMA_FSM_LISTEN);

	ret = xcma_kunit_run(test,
			     "/usr/sbin/rdma link add rxe0 type rxe netdev eth0");
	KUNIT_ASSERT_EQ(test, ret, 0);
	/* the wildcard listener took the new device: a REQ reaches it */
	cli = cm_new_id(test, sc, IB_QPT_RC);
	ret = resolve_retry(test, sc, cli, &d);
	KUNIT_EXPECT_EQ(test, ret, 0);
	if (!ret) {
		int n = sc->n;

		KUNIT_EXPECT_EQ(test, rdma_connect(cli, &param), 0);
		KUNIT_EXPECT_TRUE(test, cm_wait_events(sc, false, n + 1));
		KUNIT_EXPECT_EQ(test, sc->ev[n], RDMA_CM_EVENT_REJECTED);
		KUNIT_EXPECT_EQ(test, sc->st[n], IB_CM_REJ_CONSUMER_DEFINED);
		/* recorded after the REJ is sent: the REJECTED can be first */
		KUNIT_EXPECT_TRUE(test, cm_wait_events(sw, true, 1));
		KUNIT_EXPECT_EQ(test, sw->cn, 1);
	}
	rdma_destroy_id(cli);
	rdma_destroy_id(wild);
}

static struct kunit_case cm_cases[] = {
	KUNIT_CASE_SLOW(connect_ipv4_wildcard),
	KUNIT_CASE_SLOW(connect_ipv6_bound),
	KUNIT_CASE_SLOW(connect_ipv6_linklocal),
	KUNIT_CASE_SLOW(destroy_by_return_established),
	KUNIT_CASE(reject_with_private_data),
	KUNIT_CASE(request_while_a_wildcard_child_is_made),
	KUNIT_CASE(connect_no_listener),
	KUNIT_CASE(resolve_no_route),
	KUNIT_CASE_SLOW(resolve_unreachable),
	KUNIT_CASE(create_refuses_bad_args),
	KUNIT_CASE(bind_unknown_port_space),
	KUNIT_CASE_PARAM(bad_input, bad_gen_params),
	KUNIT_CASE(destroy_in_addr_query),
	KUNIT_CASE(destroy_in_route_query),
	KUNIT_CASE(destroy_in_connect),
	KUNIT_CASE_SLOW(device_removal),
	{}
};

static struct kunit_suite cm_suite = {
	.name = "xcma_cm",
	.init = xcma_kunit_sweep_init,
	.test_cases = cm_cases,
};

kunit_test_suite(cm_suite);
