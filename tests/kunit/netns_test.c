// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * xcma_netns: a connect request finds its listener by (namespace, port
 * space, port). Two wildcard listeners on the same port, one in init_net
 * and one in a second namespace: the lookup a REQ makes on rxe0 finds the
 * one of the REQ's namespace, and nothing once that one is gone, whatever
 * listens in the other.
 *
 * The second namespace is a process's: the boot that runs this suite
 * starts one ('unshare -n sleep 600 & insmod xcma_kunit.ko netns_pid=$!');
 * without it the cases are skipped.
 */
#include <kunit/test.h>
#include <linux/in.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <net/net_namespace.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "../../cma/id.h"
#include "../../cma/listen.h"
#include "../../cma/wire.h"
#include "xcma/fsm.h"
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
	return xcma_listen_find(net, ibdev,
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
	KUNIT_ASSERT_FALSE(test, IS_ERR(net2));
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

static struct kunit_case netns_cases[] = {
	KUNIT_CASE(listener_of_the_request_namespace),
	{}
};

static struct kunit_suite netns_suite = {
	.name = "xcma_netns",
	.init = xcma_kunit_sweep_init,
	.test_cases = netns_cases,
};

kunit_test_suite(netns_suite);
