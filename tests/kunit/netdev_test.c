// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * xcma_netdev: RDMA_CM_EVENT_ADDR_CHANGE (cma/netdev.c). The in-tree rule:
 * a bonding master's failover, for the ids whose dev_addr names that
 * netdev and whose source hardware address it no longer has. The KUnit
 * kernel has no bonding driver, so the failover is played on rxe0's eth0:
 * its MAC address changes (what a failover with fail_over_mac does to a
 * bond) and the scan the notifier runs for a bond master is run for it.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/if_bonding.h>
#include <linux/kthread.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <rdma/ib_cache.h>
#include <rdma/rdma_cm.h>

#include "../../cma/id.h"
#include "../../cma/netdev.h"
#include "cm_util.h"
#include "gid_util.h"
#include "xcma_kunit.h"

#define PORT 18701

/* ---- which netdev events concern ids ---- */

struct filter_case {
	const char *name;
	unsigned long event;
	bool bond;
	bool wanted;
};

static const struct filter_case filter_cases[] = {
	{ "failover_on_bond", NETDEV_BONDING_FAILOVER, true, true },
	{ "failover_on_plain", NETDEV_BONDING_FAILOVER, false, false },
	{ "changeaddr_on_bond", NETDEV_CHANGEADDR, true, false },
	{ "changeaddr_on_plain", NETDEV_CHANGEADDR, false, false },
	{ "up_on_bond", NETDEV_UP, true, false },
	{ "down_on_bond", NETDEV_DOWN, true, false },
	{ "change_on_bond", NETDEV_CHANGE, true, false },
	{ "unregister_on_bond", NETDEV_UNREGISTER, true, false },
	{ "changeupper_on_bond", NETDEV_CHANGEUPPER, true, false },
};

KUNIT_ARRAY_PARAM_DESC(filter, filter_cases, name);

static void netdev_event_filter(struct kunit *test)
{
	const struct filter_case *c = test->param_value;
	struct net_device *nd = kunit_kzalloc(test, sizeof(*nd), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, nd);
	/* what netif_is_bond_master() looks at */
	if (c->bond) {
		nd->flags = IFF_MASTER;
		nd->priv_flags = IFF_BONDING;
	}
	KUNIT_EXPECT_EQ(test, xcma_netdev_event_wanted(c->event, nd),
			c->wanted);
}

/* ---- helpers ---- */

struct mac_restore {
	struct net_device *ndev;
	u8 mac[ETH_ALEN];
};

/* @ip binds: rxe0 has the GID of that address of eth0 */
static bool ip_gid_present(const char *ip, bool v6)
{
	struct sockaddr_storage a;

	if (v6)
		cm_addr6(&a, ip, 0);
	else
		cm_addr4(&a, ip, 0);
	return !cm_bind_probe(&a, RDMA_PS_TCP, IB_QPT_RC);
}

/*
 * A new MAC makes ib_core's GID work item delete every GID of eth0, then
 * add the default GID of the new MAC, then the GIDs of eth0's IPv4 and
 * IPv6 addresses, in that order; it may run after the MAC change returned.
 * Wait until it has run, up to 10 s: the default GID of the MAC eth0 has
 * now is in a default slot, which only happens once the delete is over
 * (gid_util_default_is()), and the addresses' GIDs, added last, are back.
 *
 * The value of the new default GID is no marker on its own: the boot
 * MAC's is also the GID of eth0's IPv6 link-local address (addrconf
 * ignores a MAC change), which the delete reaches after the old default
 * GIDs. Waiting for that value, and for the old default GID gone, let the
 * next case resolve in the middle of the delete and get -ENODEV (issue
 * 22: twice in cold runs, here and in xcma_interop_gid).
 */
static int wait_gids_follow_mac(struct net_device *ndev)
{
	struct ib_device *ibdev = ib_device_get_by_name("rxe0", RDMA_DRIVER_UNKNOWN);
	int i, ret = -ETIMEDOUT;

	if (!ibdev)
		return -ENODEV;
	for (i = 0; i < 200 && ret; i++) {
		if (gid_util_default_is(ibdev, ndev, ndev->dev_addr) &&
		    ip_gid_present("10.99.0.1", false) &&
		    ip_gid_present("fd00:99::1", true))
			ret = 0;
		else
			msleep(50);
	}
	ib_device_put(ibdev);
	return ret;
}

static void restore_mac(void *arg)
{
	struct mac_restore *r = arg;

	if (gid_util_set_mac(r->ndev, r->mac))
		pr_err("xcma_netdev: eth0's MAC not restored\n");
	else if (wait_gids_follow_mac(r->ndev))
		pr_err("xcma_netdev: rxe0's GIDs did not follow eth0's MAC back\n");
	dev_put(r->ndev);
	kfree(r);
}

/* eth0, its MAC changed until the case ends; the old one in @old */
static struct net_device *eth0_new_mac(struct kunit *test, u8 *old)
{
	struct mac_restore *r = kzalloc(sizeof(*r), GFP_KERNEL);
	struct net_device *ndev;
	u8 mac[ETH_ALEN];

	KUNIT_ASSERT_NOT_NULL(test, r);
	ndev = dev_get_by_name(&init_net, "eth0");
	if (!ndev)
		kfree(r);
	KUNIT_ASSERT_NOT_NULL(test, ndev);
	r->ndev = ndev;
	ether_addr_copy(r->mac, ndev->dev_addr);
	ether_addr_copy(mac, ndev->dev_addr);
	if (old)
		ether_addr_copy(old, ndev->dev_addr);
	mac[5] ^= 0x5a;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, restore_mac, r),
			0);
	KUNIT_ASSERT_EQ(test, gid_util_set_mac(ndev, mac), 0);
	KUNIT_ASSERT_EQ(test, wait_gids_follow_mac(ndev), 0);
	return ndev;
}

/* an id whose address is resolved (bound to rxe0 through eth0) */
static struct rdma_cm_id *resolved(struct kunit *test, struct side *s)
{
	struct sockaddr_storage d;
	struct rdma_cm_id *id = cm_new_id(test, s, IB_QPT_RC);

	cm_addr4(&d, "10.99.0.1", PORT);
	KUNIT_EXPECT_EQ(test, rdma_resolve_addr(id, NULL, (struct sockaddr *)&d,
						2000), 0);
	KUNIT_EXPECT_TRUE(test, cm_wait_events(s, false, 1));
	KUNIT_EXPECT_EQ(test, s->ev[0], RDMA_CM_EVENT_ADDR_RESOLVED);
	/* an ADDR_ERROR's status says which step failed */
	KUNIT_EXPECT_EQ(test, s->st[0], 0);
	return id;
}

/* the scan a bond master's failover runs, for eth0; the count queued */
static int failover(struct kunit *test, struct net_device *ndev)
{
	struct xcma_netdev_scan scan = { .ndev = ndev };
	int ret;

	/* under rtnl, as the notifier runs */
	rtnl_lock();
	ret = xcma_netdev_addr_change(&scan);
	rtnl_unlock();
	KUNIT_EXPECT_EQ(test, ret, 0);
	return scan.queued;
}

static int count_of(struct side *s, int event)
{
	int i, n = 0;

	for (i = 0; i < s->n; i++)
		n += s->ev[i] == event;
	return n;
}

/* ---- the cases ---- */

/*
 * Only the ids whose source MAC eth0 no longer has; a MAC change alone
 * (NETDEV_CHANGEADDR through the real notifier chain) gives none.
 */
static void netdev_addr_change_rules(struct kunit *test)
{
	struct side *sa = cm_new_side(test), *sb = cm_new_side(test);
	struct side *su = cm_new_side(test), *sl = cm_new_side(test);
	struct rdma_cm_id *a, *b, *u, *l;
	struct sockaddr_storage any;
	struct net_device *ndev;

	a = resolved(test, sa);
	u = cm_new_id(test, su, IB_QPT_RC);
	l = cm_new_id(test, sl, IB_QPT_RC);
	cm_addr4(&any, NULL, PORT + 1);
	KUNIT_EXPECT_EQ(test, rdma_bind_addr(l, (struct sockaddr *)&any), 0);
	KUNIT_EXPECT_EQ(test, rdma_listen(l, 1), 0);

	ndev = eth0_new_mac(test, NULL);
	KUNIT_EXPECT_EQ(test, a->route.addr.dev_addr.bound_dev_if,
			ndev->ifindex);
	xcma_netdev_flush();
	msleep(100);
	KUNIT_EXPECT_EQ(test, sa->n, 1); /* CHANGEADDR: nothing */

	b = resolved(test, sb); /* resolved with the new MAC */
	KUNIT_EXPECT_EQ(test, failover(test, ndev), 1);
	xcma_netdev_flush();
	KUNIT_EXPECT_EQ(test, sa->n, 2);
	KUNIT_EXPECT_EQ(test, sa->ev[1], RDMA_CM_EVENT_ADDR_CHANGE);
	KUNIT_EXPECT_EQ(test, sa->st[1], 0);
	KUNIT_EXPECT_EQ(test, cm_state(a), XCMA_FSM_ADDR_RESOLVED);
	KUNIT_EXPECT_EQ(test, sb->n, 1);
	KUNIT_EXPECT_EQ(test, su->n, 0);
	KUNIT_EXPECT_EQ(test, sl->n, 0);

	/* once per failover: a second one sends it again */
	KUNIT_EXPECT_EQ(test, failover(test, ndev), 1);
	xcma_netdev_flush();
	KUNIT_EXPECT_EQ(test, count_of(sa, RDMA_CM_EVENT_ADDR_CHANGE), 2);
	KUNIT_EXPECT_EQ(test, sb->n, 1);

	rdma_destroy_id(a);
	rdma_destroy_id(b);
	rdma_destroy_id(u);
	rdma_destroy_id(l);
}

/* a callback returning non-zero for ADDR_CHANGE destroys its id */
static void netdev_nonzero_return_destroys(struct kunit *test)
{
	struct side *s = cm_new_side(test);
	unsigned int live = xcma_id_live();
	struct net_device *ndev;

	s->destroy_on = RDMA_CM_EVENT_ADDR_CHANGE + 1;
	resolved(test, s);
	KUNIT_EXPECT_EQ(test, xcma_id_live(), live + 1);
	ndev = eth0_new_mac(test, NULL);
	KUNIT_EXPECT_EQ(test, failover(test, ndev), 1);
	xcma_netdev_flush();
	KUNIT_EXPECT_EQ(test, s->n, 2);
	KUNIT_EXPECT_EQ(test, xcma_id_live(), live);
	/* gone: a second failover finds nothing */
	KUNIT_EXPECT_EQ(test, failover(test, ndev), 0);
}

/* a thread that runs one step: rdma_destroy_id or an rdma link command */
struct bg {
	struct rdma_cm_id *id;
	struct kunit *test;
	const char *cmd;
	struct completion done;
	int ret;
};

static int bg_fn(void *arg)
{
	struct bg *g = arg;

	if (g->id)
		rdma_destroy_id(g->id);
	else
		g->ret = xcma_kunit_run(g->test, g->cmd);
	complete(&g->done);
	return 0;
}

static void bg_start(struct kunit *test, struct bg *g)
{
	struct task_struct *t;

	init_completion(&g->done);
	g->test = test;
	t = kthread_run(bg_fn, g, "xcma_kunit_netdev");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
}

static bool bg_wait(struct bg *g)
{
	return wait_for_completion_timeout(&g->done,
					   msecs_to_jiffies(WAIT_MS)) > 0;
}

/* the side's blocked callback has started */
static bool entered(struct side *s)
{
	return wait_for_completion_timeout(&s->entered,
					   msecs_to_jiffies(WAIT_MS)) > 0;
}

static bool wait_state(struct rdma_cm_id *id, unsigned int state)
{
	int i;

	for (i = 0; i < 2000 && cm_state(id) != state; i++)
		usleep_range(1000, 2000);
	return cm_state(id) == state;
}

/*
 * Destroy while B's ADDR_CHANGE is queued: A's callback holds the ordered
 * queue; B's destroy waits for the queued item's reference; the item then
 * finds B DESTROYING and drops the event.
 */
static void netdev_not_after_destroy(struct kunit *test)
{
	struct side *sa = cm_new_side(test), *sb = cm_new_side(test);
	struct bg *g = kunit_kzalloc(test, sizeof(*g), GFP_KERNEL);
	struct rdma_cm_id *a, *b;
	struct net_device *ndev;

	KUNIT_ASSERT_NOT_NULL(test, g);
	a = resolved(test, sa);
	b = resolved(test, sb);
	sa->block_on = RDMA_CM_EVENT_ADDR_CHANGE + 1;
	ndev = eth0_new_mac(test, NULL);
	KUNIT_EXPECT_EQ(test, failover(test, ndev), 2);
	KUNIT_ASSERT_TRUE(test, entered(sa));
	g->id = b;
	bg_start(test, g);
	KUNIT_EXPECT_TRUE(test, wait_state(b, XCMA_FSM_DESTROYING));
	/* B's destroy waits for the queued event's reference */
	KUNIT_EXPECT_FALSE(test, completion_done(&g->done));
	complete(&sa->release);
	KUNIT_EXPECT_TRUE(test, bg_wait(g));
	xcma_netdev_flush();
	KUNIT_EXPECT_EQ(test, sb->n, 1);
	KUNIT_EXPECT_EQ(test, count_of(sb, RDMA_CM_EVENT_ADDR_CHANGE), 0);
	KUNIT_EXPECT_EQ(test, count_of(sa, RDMA_CM_EVENT_ADDR_CHANGE), 1);
	rdma_destroy_id(a);
}

/*
 * Device removal while B's ADDR_CHANGE is queued behind A's running one:
 * B gets DEVICE_REMOVAL and then nothing (G4); A gets its DEVICE_REMOVAL
 * after its ADDR_CHANGE callback returned (G1). Removal visits ids in the
 * order they attached, so B attaches first, and two failovers (MAC M1 ->
 * M0 for A, M0 -> M1 for B) queue A's event before B's.
 */
static void netdev_racing_removal(struct kunit *test)
{
	struct side *sa = cm_new_side(test), *sb = cm_new_side(test);
	struct bg *g = kunit_kzalloc(test, sizeof(*g), GFP_KERNEL);
	struct rdma_cm_id *a, *b;
	struct net_device *ndev;
	u8 m0[ETH_ALEN], m1[ETH_ALEN];

	KUNIT_ASSERT_NOT_NULL(test, g);
	b = resolved(test, sb);
	ndev = eth0_new_mac(test, m0);
	ether_addr_copy(m1, ndev->dev_addr);
	a = resolved(test, sa);
	sa->block_on = RDMA_CM_EVENT_ADDR_CHANGE + 1;
	KUNIT_ASSERT_EQ(test, gid_util_set_mac(ndev, m0), 0);
	KUNIT_EXPECT_EQ(test, failover(test, ndev), 1);
	KUNIT_ASSERT_TRUE(test, entered(sa));
	KUNIT_ASSERT_EQ(test, gid_util_set_mac(ndev, m1), 0);
	KUNIT_EXPECT_EQ(test, failover(test, ndev), 1);
	g->cmd = CM_RXE_DELETE;
	bg_start(test, g);
	/* B is notified while its ADDR_CHANGE still waits in the queue */
	KUNIT_EXPECT_TRUE(test, cm_wait_events(sb, false, 2));
	KUNIT_EXPECT_EQ(test, sb->ev[1], RDMA_CM_EVENT_DEVICE_REMOVAL);
	complete(&sa->release);
	KUNIT_EXPECT_TRUE(test, cm_wait_events(sa, false, 3));
	xcma_netdev_flush();
	KUNIT_EXPECT_EQ(test, sb->n, 2);
	KUNIT_EXPECT_EQ(test, sa->n, 3);
	KUNIT_EXPECT_EQ(test, sa->ev[1], RDMA_CM_EVENT_ADDR_CHANGE);
	KUNIT_EXPECT_EQ(test, sa->ev[2], RDMA_CM_EVENT_DEVICE_REMOVAL);
	rdma_destroy_id(a);
	rdma_destroy_id(b);
	KUNIT_EXPECT_TRUE(test, bg_wait(g));
	KUNIT_EXPECT_EQ(test, g->ret, 0);
	KUNIT_EXPECT_EQ(test, cm_rxe_add(test), 0);
}

static struct kunit_case netdev_cases[] = {
	KUNIT_CASE_PARAM(netdev_event_filter, filter_gen_params),
	KUNIT_CASE(netdev_addr_change_rules),
	KUNIT_CASE(netdev_nonzero_return_destroys),
	KUNIT_CASE(netdev_not_after_destroy),
	KUNIT_CASE(netdev_racing_removal),
	{}
};

static struct kunit_suite netdev_suite = {
	.name = "xcma_netdev",
	.init = xcma_kunit_sweep_init,
	.test_cases = netdev_cases,
};

kunit_test_suite(netdev_suite);
