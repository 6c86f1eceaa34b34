// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * xcma_netns: a connect request finds its listener by (namespace, port
 * space, port). Two wildcard listeners on the same port, one in init_net
 * and one in a second namespace: the lookup a REQ makes on rxe0 finds the
 * one of the REQ's namespace, and nothing once that one is gone, whatever
 * listens in the other.
 *
 * The second namespace is a process's: the boot that runs this suite
 * starts one ('unshare -n sleep 86400 &', then waits until the process is
 * in its namespace, then 'insmod xcma_kunit.ko netns_pid=$p'); without it
 * that case is skipped.
 *
 * In ib_core's exclusive netns mode a device is one namespace's, and the
 * in-tree CM takes no device that is not the id's namespace's (its
 * cma_validate_port() asks rdma_dev_access_netns() first): not for a
 * bind or an address resolution, not for the id a connect request makes.
 * 6.12's rxe and siw cannot change namespace (no disassociate_ucontext),
 * so the cases that check this ask ib_core's question through a fake in
 * the ops layer (cm_netns_fake()), which says rxe0 is not init_net's.
 */
#include <kunit/test.h>
#include <linux/in.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <net/net_namespace.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "../../cma/id.h"
#include "../../cma/passive.h"
#include "../../cma/wire.h"
#include "xcma/fsm.h"
#include "cm_util.h"
#include "xcma_kunit.h"

static int netns_pid;
module_param(netns_pid, int, 0444);
MODULE_PARM_DESC(netns_pid,
		 "xcma_netns: a process in a second network namespace (0: skip)");

#define NS_PORT 18671

static int ns_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	return 0;
}

static struct rdma_cm_id *listener(struct kunit *test, struct net *net)
{
	struct sockaddr_in any = {
		.sin_family = AF_INET,
		.sin_port = htons(NS_PORT),
	};
	struct rdma_cm_id *id;

	id = rdma_create_id(net, ns_handler, NULL, RDMA_PS_TCP, IB_QPT_RC);
	KUNIT_ASSERT_FALSE(test, IS_ERR(id));
	KUNIT_ASSERT_EQ(test, rdma_bind_addr(id, (struct sockaddr *)&any), 0);
	KUNIT_ASSERT_EQ(test, rdma_listen(id, 0), 0);
	return id;
}

/* what xcma_ib_req_handler() asks for a REQ to 10.0.0.2:NS_PORT on rxe0 */
static struct xcma_id *lookup(struct kunit *test, struct net *net,
			      struct ib_device *ibdev)
{
	struct sockaddr_in src = { .sin_family = AF_INET,
				   .sin_port = htons(40000) };
	struct sockaddr_in dst = { .sin_family = AF_INET,
				   .sin_port = htons(NS_PORT) };
	u8 buf[XCMA_WIRE_HDR_LEN];

	src.sin_addr.s_addr = htonl(0x0a000001);
	dst.sin_addr.s_addr = htonl(0x0a000002);
	KUNIT_ASSERT_EQ(test,
			xcma_wire_hdr_encode(buf, sizeof(buf),
					     (struct sockaddr *)&src,
					     (struct sockaddr *)&dst),
			0);
	return xcma_passive_find(net, ibdev,
				xcma_wire_addr_service_id(RDMA_PS_TCP,
							  (struct sockaddr *)&dst),
				(const struct xcma_wire_hdr *)buf, 0);
}

/* the wildcard listener whose per-device child @found is, or NULL */
static struct rdma_cm_id *parent_of(struct xcma_id *found)
{
	struct xcma_fsm_id *p = found->life.fsm.parent;

	return p ? &xcma_id_of_life(xcma_life_id_of(p))->id : NULL;
}

static void listener_of_the_request_namespace(struct kunit *test)
{
	struct rdma_cm_id *l1, *l2;
	struct ib_device *ibdev;
	struct xcma_id *found;
	struct net *net2;

	if (!netns_pid)
		kunit_skip(test, "no second namespace (netns_pid=)");
	net2 = get_net_ns_by_pid(netns_pid);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(net2),
			       "the process of netns_pid=%d is gone", netns_pid);
	KUNIT_ASSERT_PTR_NE(test, net2, &init_net);
	ibdev = ib_device_get_by_name("rxe0", RDMA_DRIVER_UNKNOWN);
	KUNIT_ASSERT_NOT_NULL(test, ibdev);

	/* two port spaces: the same port binds in each */
	l1 = listener(test, &init_net);
	l2 = listener(test, net2);

	found = lookup(test, &init_net, ibdev);
	KUNIT_EXPECT_NOT_NULL(test, found);
	if (found) {
		KUNIT_EXPECT_PTR_EQ(test, parent_of(found), l1);
		xcma_fsm_id_put(&found->life.fsm);
	}
	found = lookup(test, net2, ibdev);
	KUNIT_EXPECT_NOT_NULL(test, found);
	if (found) {
		KUNIT_EXPECT_PTR_EQ(test, parent_of(found), l2);
		xcma_fsm_id_put(&found->life.fsm);
	}

	/* a REQ in net2 never reaches init_net's listener */
	rdma_destroy_id(l2);
	found = lookup(test, net2, ibdev);
	KUNIT_EXPECT_NULL(test, found);
	if (found)
		xcma_fsm_id_put(&found->life.fsm);
	found = lookup(test, &init_net, ibdev);
	KUNIT_EXPECT_NOT_NULL(test, found);
	if (found)
		xcma_fsm_id_put(&found->life.fsm);

	/* nor the other way round */
	l2 = listener(test, net2);
	rdma_destroy_id(l1);
	found = lookup(test, &init_net, ibdev);
	KUNIT_EXPECT_NULL(test, found);
	if (found)
		xcma_fsm_id_put(&found->life.fsm);

	rdma_destroy_id(l2);
	ib_device_put(ibdev);
	put_net(net2);
}

/* ---- a device of another namespace (exclusive mode) ---- */

/*
 * A bind to rxe0's address finds no device (-ENODEV, the id still IDLE),
 * and neither does the address resolution of an unbound id (ADDR_ERROR,
 * -ENODEV), as in-tree; once rxe0 is init_net's again, the same id binds
 * to it: the refusal was the namespace's.
 */
static void device_of_another_namespace_is_not_taken(struct kunit *test)
{
	static const int want[] = { RDMA_CM_EVENT_ADDR_ERROR };
	struct sockaddr_storage a, d;
	struct rdma_cm_id *bound, *res;
	struct side *bs, *rs;

	cm_netns_fake(test);
	cm_netns_hide("rxe0");
	bs = cm_new_side(test);
	rs = cm_new_side(test);
	cm_addr4(&a, "10.99.0.1", 0);
	cm_addr4(&d, "10.99.0.1", NS_PORT + 1);
	bound = cm_new_id(test, bs, IB_QPT_RC);
	res = cm_new_id(test, rs, IB_QPT_RC);

	KUNIT_EXPECT_EQ(test, rdma_bind_addr(bound, (struct sockaddr *)&a),
			-ENODEV);
	KUNIT_EXPECT_EQ(test, cm_state(bound), (unsigned int)XCMA_FSM_IDLE);
	KUNIT_EXPECT_NULL(test, bound->device);

	KUNIT_ASSERT_EQ(test, rdma_resolve_addr(res, NULL,
						(struct sockaddr *)&d, 2000),
			0);
	KUNIT_ASSERT_TRUE(test, cm_wait_events(rs, false, 1));
	cm_expect_events(test, rs, false, want, ARRAY_SIZE(want));
	KUNIT_EXPECT_EQ(test, rs->st[0], -ENODEV);
	KUNIT_EXPECT_NULL(test, res->device);

	cm_netns_hide(NULL);
	KUNIT_EXPECT_EQ(test, rdma_bind_addr(bound, (struct sockaddr *)&a), 0);
	KUNIT_EXPECT_NOT_NULL(test, bound->device);
	rdma_destroy_id(res);
	rdma_destroy_id(bound);
}

/*
 * A REQ that reaches init_net's listener on a device init_net does not
 * have makes no id: the listener hears nothing, and ib_cm answers the
 * handler's -ENODEV with a consumer-defined REJ of its own (its private
 * data zeros), as in-tree (cma_ib_acquire_dev() fails). Control: rxe0
 * init_net's again, the next REQ reaches the listener, which rejects it
 * with its own data.
 */
static void request_on_a_device_of_another_namespace_is_refused(struct kunit *test)
{
	static const int want_cli[] = { RDMA_CM_EVENT_ADDR_RESOLVED,
					RDMA_CM_EVENT_ROUTE_RESOLVED,
					RDMA_CM_EVENT_REJECTED };
	static const int want_srv[] = { RDMA_CM_EVENT_CONNECT_REQUEST };
	struct rdma_conn_param param = {
		.responder_resources = 1, .initiator_depth = 1,
		.retry_count = 7, .rnr_retry_count = 7,
	};
	struct sockaddr_storage l, d;
	struct rdma_cm_id *cli, *lis;
	struct side *cs, *ss;

	cm_netns_fake(test);
	cs = cm_new_side(test);
	ss = cm_new_side(test);
	ss->action = REQ_REJECT;
	cm_addr4(&l, "10.99.0.1", NS_PORT + 2);
	cm_addr4(&d, "10.99.0.1", NS_PORT + 2);
	lis = cm_listen(test, ss, &l);

	cli = cm_new_id(test, cs, IB_QPT_RC);
	KUNIT_ASSERT_EQ(test, cm_resolve(test, cs, cli, NULL, &d), 0);
	cm_netns_hide("rxe0");
	KUNIT_ASSERT_EQ(test, rdma_connect(cli, &param), 0);
	KUNIT_ASSERT_TRUE(test, cm_wait_events(cs, false, 3));
	cm_expect_events(test, cs, false, want_cli, ARRAY_SIZE(want_cli));
	KUNIT_EXPECT_EQ(test, cs->st[2], IB_CM_REJ_CONSUMER_DEFINED);
	KUNIT_EXPECT_NE(test, memcmp(cs->pdata, "nope", 4), 0);
	KUNIT_EXPECT_EQ(test, ss->cn, 0);
	KUNIT_EXPECT_EQ(test, ss->n, 0);
	KUNIT_EXPECT_EQ(test, cm_state(lis), (unsigned int)XCMA_FSM_LISTEN);
	rdma_destroy_id(cli);

	cm_netns_hide(NULL);
	cs = cm_new_side(test);
	cli = cm_new_id(test, cs, IB_QPT_RC);
	KUNIT_ASSERT_EQ(test, cm_resolve(test, cs, cli, NULL, &d), 0);
	KUNIT_ASSERT_EQ(test, rdma_connect(cli, &param), 0);
	KUNIT_ASSERT_TRUE(test, cm_wait_events(cs, false, 3));
	cm_expect_events(test, cs, false, want_cli, ARRAY_SIZE(want_cli));
	KUNIT_EXPECT_TRUE(test, cm_wait_events(ss, true, 1));
	cm_expect_events(test, ss, true, want_srv, ARRAY_SIZE(want_srv));
	KUNIT_EXPECT_EQ(test, memcmp(cs->pdata, "nope", 4), 0);
	rdma_destroy_id(cli);
	rdma_destroy_id(lis);
}

static struct kunit_case netns_cases[] = {
	KUNIT_CASE(listener_of_the_request_namespace),
	KUNIT_CASE(device_of_another_namespace_is_not_taken),
	KUNIT_CASE(request_on_a_device_of_another_namespace_is_refused),
	{}
};

static struct kunit_suite netns_suite = {
	.name = "xcma_netns",
	.init = xcma_kunit_sweep_init,
	.test_cases = netns_cases,
};

kunit_test_suite(netns_suite);
