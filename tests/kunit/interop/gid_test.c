// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * xcma_interop_gid: an address resolution while ib_core re-adds eth0's
 * GIDs, on both CMs, the same sequence each.
 *
 * A MAC change makes ib_core's GID work item delete every GID of eth0 and
 * add them again (roce_gid_mgmt.c, NETDEV_CHANGEADDR). A resolve whose
 * device lookup by source address falls between the two finds no GID. In
 * a cold make check, xcma_netdev's case after the MAC change once got
 * ADDR_ERROR with -ENODEV: its test had not waited for the work item.
 * Here each CM resolves 10.99.0.1 again and again from the MAC change on
 * until the work item is done; a failure must be ADDR_ERROR with -ENODEV
 * on both CMs, the first resolve after the work item must succeed on
 * both, and how often each CM fell into the window is printed.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/inet.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <net/addrconf.h>
#include <rdma/ib_cache.h>
#include <rdma/rdma_cm.h>

#include "../gid_util.h"
#include "interop.h"

#define ROUNDS 12
#define GID_PORT 18690

struct res {
	struct completion done;
	int event;
	int status;
};

static int res_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct res *r = id->context;

	r->event = ev->event;
	r->status = ev->status;
	complete(&r->done);
	return 0;
}

/* one resolve of 10.99.0.1 on @cm: 0, the ADDR_ERROR status, or -ETIME */
static int resolve_once(const struct interop_cm *cm, int *event)
{
	struct sockaddr_in dst = { .sin_family = AF_INET,
				   .sin_port = htons(GID_PORT) };
	struct rdma_cm_id *id;
	struct res r = { .event = -1 };
	int ret;

	init_completion(&r.done);
	dst.sin_addr.s_addr = in_aton("10.99.0.1");
	id = cm->create_id(&init_net, res_handler, &r, RDMA_PS_TCP,
			   IB_QPT_RC);
	if (IS_ERR(id))
		return PTR_ERR(id);
	ret = cm->resolve_addr(id, NULL, (struct sockaddr *)&dst, 2000);
	if (!ret) {
		if (!wait_for_completion_timeout(&r.done, 10 * HZ))
			ret = -ETIME;
		else if (r.event == RDMA_CM_EVENT_ADDR_RESOLVED)
			ret = 0;
		else
			ret = r.status ?: -EPROTO;
	}
	*event = r.event;
	cm->destroy_id(id);
	return ret;
}

/* the IPv4 and IPv6 address GIDs, the work item's last adds, are in */
static bool addr_gids_present(struct ib_device *ibdev, struct net_device *ndev)
{
	union ib_gid gid;

	ipv6_addr_set_v4mapped(in_aton("10.99.0.1"), (struct in6_addr *)&gid);
	if (!gid_util_present(ibdev, ndev, &gid))
		return false;
	if (in6_pton("fd00:99::1", -1, gid.raw, -1, NULL) != 1)
		return false;
	return gid_util_present(ibdev, ndev, &gid);
}

struct tally {
	int resolves, enodev, other, other_status;
};

/*
 * One MAC change on @cm: resolves from the change on until the work item
 * is done (@to's default GID in a default slot, the address GIDs back),
 * then one that must succeed.
 */
static void one_change(struct kunit *test, const struct interop_cm *cm,
		       struct ib_device *ibdev, struct net_device *ndev,
		       const u8 *to, struct tally *t)
{
	int i, ret, event;

	KUNIT_ASSERT_EQ(test, gid_util_set_mac(ndev, to), 0);
	for (i = 0; i < 400; i++) {
		if (gid_util_default_is(ibdev, ndev, to) &&
		    addr_gids_present(ibdev, ndev))
			break;
		ret = resolve_once(cm, &event);
		t->resolves++;
		if (ret == -ENODEV && event == RDMA_CM_EVENT_ADDR_ERROR) {
			t->enodev++;
		} else if (ret) {
			t->other++;
			t->other_status = ret;
		}
	}
	if (i == 400)
		gid_util_dump(ibdev, 12);
	KUNIT_ASSERT_LT_MSG(test, i, 400, "%s: GIDs did not follow the MAC",
			    cm->name);
	ret = resolve_once(cm, &event);
	KUNIT_EXPECT_EQ_MSG(test, ret, 0, "%s: resolve after the GID work",
			    cm->name);
	if (ret)
		gid_util_dump(ibdev, 12);
}

static void resolve_during_gid_readd(struct kunit *test)
{
	const struct interop_cm *cms[] = { &interop_intree, &interop_xcma };
	struct tally t[2] = {};
	struct ib_device *ibdev;
	struct net_device *ndev;
	u8 boot[ETH_ALEN], other[ETH_ALEN];
	int c, r;

	ndev = dev_get_by_name(&init_net, "eth0");
	KUNIT_ASSERT_NOT_NULL(test, ndev);
	ibdev = ib_device_get_by_name("rxe0", RDMA_DRIVER_UNKNOWN);
	if (!ibdev)
		dev_put(ndev);
	KUNIT_ASSERT_NOT_NULL(test, ibdev);
	ether_addr_copy(boot, ndev->dev_addr);
	ether_addr_copy(other, boot);
	other[5] ^= 0x3c;
	for (r = 0; r < ROUNDS; r++) {
		for (c = 0; c < 2; c++) {
			one_change(test, cms[c], ibdev, ndev, other, &t[c]);
			one_change(test, cms[c], ibdev, ndev, boot, &t[c]);
		}
	}
	for (c = 0; c < 2; c++) {
		kunit_info(test, "%s: %d MAC changes, %d resolves in the GID work's window, %d ADDR_ERROR -ENODEV, %d other failures",
			   cms[c]->name, 2 * ROUNDS, t[c].resolves,
			   t[c].enodev, t[c].other);
		KUNIT_EXPECT_EQ_MSG(test, t[c].other, 0,
				    "%s: a failure other than -ENODEV: %d",
				    cms[c]->name, t[c].other_status);
	}
	ib_device_put(ibdev);
	dev_put(ndev);
}

static struct kunit_case gid_cases[] = {
	KUNIT_CASE_SLOW(resolve_during_gid_readd),
	{}
};

static struct kunit_suite gid_suite = {
	.name = "xcma_interop_gid",
	.test_cases = gid_cases,
};

kunit_test_suite(gid_suite);
