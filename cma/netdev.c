// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * RDMA_CM_EVENT_ADDR_CHANGE: the netdev under a bound id changed. The
 * in-tree rule: a bonding master's failover (NETDEV_BONDING_FAILOVER)
 * that left it with another hardware address than the one an id resolved
 * with concerns every id attached to a device whose dev_addr names that
 * netdev in that namespace. Each such id gets one event from a work item
 * holding a reference; the library drops it once the id got
 * DEVICE_REMOVAL or is being destroyed, and destroys the id if the
 * callback returns non-zero. Other netdev events (a plain MAC change, up,
 * down, unregister) give no ADDR_CHANGE, as in-tree.
 */
#include <linux/if_bonding.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <net/net_namespace.h>

#include "export.h"
#include "id.h"
#include "netdev.h"
#include "notify.h"
#include "device.h"

/* its workqueue is ordered: one id's events keep their order */
static struct xcma_notify netdev_notify;

struct addr_change {
	struct work_struct work;
	struct xcma_id *xid;
};

static void addr_change_work(struct work_struct *work)
{
	struct addr_change *ac = container_of(work, struct addr_change, work);
	struct rdma_cm_event ev = {};

	/* consumes the reference taken by queue_addr_change() */
	xcma_id_deliver(ac->xid, XCMA_EV_ADDR_CHANGE, &ev);
	kfree(ac);
}

/* does the id resolve through @ndev with an address @ndev no longer has? */
static bool id_uses_old_addr(struct xcma_id *xid, struct net_device *ndev)
{
	struct rdma_dev_addr *da = &xid->id.route.addr.dev_addr;

	return da->bound_dev_if == ndev->ifindex &&
	       net_eq(dev_net(ndev), da->net) &&
	       memcmp(da->src_dev_addr, ndev->dev_addr, ndev->addr_len);
}

/* ctx lock held: the id keeps its creation reference while listed */
static int queue_addr_change(struct xcma_fsm_id *fid, void *arg)
{
	struct xcma_id *xid = xcma_id_of_life(xcma_life_id_of(fid));
	struct xcma_netdev_scan *scan = arg;
	struct addr_change *ac;

	if (!id_uses_old_addr(xid, scan->ndev))
		return 0;
	ac = kmalloc(sizeof(*ac), GFP_KERNEL);
	if (!ac)
		return -ENOMEM;
	INIT_WORK(&ac->work, addr_change_work);
	ac->xid = xid;
	xcma_fsm_id_get(fid);
	queue_work(netdev_notify.wq, &ac->work);
	scan->queued++;
	return 0;
}

/**
 * xcma_netdev_addr_change - queue ADDR_CHANGE for the ids on @ndev
 * @scan: @scan->ndev set by the caller; @scan->queued counts the events
 *
 * Return: 0, or -ENOMEM (the ids before the failed one got theirs).
 */
int xcma_netdev_addr_change(struct xcma_netdev_scan *scan)
{
	scan->queued = 0;
	return xcma_fsm_ctx_for_each_id(&xcma_life.fsm, queue_addr_change,
					scan);
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_netdev_addr_change);

/**
 * xcma_netdev_event_wanted - does a netdev event concern bound ids?
 * @event: NETDEV_*
 * @ndev: its netdev
 *
 * Return: true for a bonding master's failover only.
 */
bool xcma_netdev_event_wanted(unsigned long event, struct net_device *ndev)
{
	return event == NETDEV_BONDING_FAILOVER && netif_is_bond_master(ndev);
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_netdev_event_wanted);

/**
 * xcma_netdev_flush - wait until every queued ADDR_CHANGE was handled
 */
void xcma_netdev_flush(void)
{
	flush_workqueue(netdev_notify.wq);
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_netdev_flush);

static int netdev_event(struct notifier_block *nb, unsigned long event,
			void *ptr)
{
	struct xcma_netdev_scan scan = {
		.ndev = netdev_notifier_info_to_dev(ptr),
	};

	if (!xcma_netdev_event_wanted(event, scan.ndev))
		return NOTIFY_DONE;
	/*
	 * A failed allocation loses events, as in-tree; unlike in-tree the
	 * errno is not returned as a notifier verdict, which would stop the
	 * chain for every later subscriber.
	 */
	if (xcma_netdev_addr_change(&scan))
		pr_warn("xcma: ADDR_CHANGE for %s not delivered to every id\n",
			scan.ndev->name);
	else if (scan.queued)
		pr_info("xcma: address change on %s for %u ids\n",
			scan.ndev->name, scan.queued);
	return NOTIFY_DONE;
}

static struct xcma_notify netdev_notify = {
	.nb.notifier_call = netdev_event,
	.reg = register_netdevice_notifier,
	.unreg = unregister_netdevice_notifier,
	.wq_name = "xcma_netdev",
	.ordered = true,
};

int xcma_netdev_init(void)
{
	/*
	 * The notifier takes the ctx lock under rtnl, which only a bond's
	 * failover exercises: tell lockdep the order up front, so that rtnl
	 * taken under the ctx lock is reported without a bond.
	 */
	if (IS_ENABLED(CONFIG_LOCKDEP)) {
		rtnl_lock();
		mutex_lock(&xcma_life.lock);
		mutex_unlock(&xcma_life.lock);
		rtnl_unlock();
	}
	return xcma_notify_start(&netdev_notify);
}

void xcma_netdev_exit(void)
{
	xcma_notify_stop(&netdev_notify);
}
