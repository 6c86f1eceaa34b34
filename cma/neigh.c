// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * RDMA_CM_EVENT_UNREACHABLE (status -ETIMEDOUT) when a neighbour an id
 * resolved to answers from another hardware address: the in-tree rule of
 * cma_netevent_callback(), present in Debian's 6.1 and 6.12 rdma_cm alike.
 * An id enters the index when its RoCE route is resolved and leaves it
 * once, when the library cancels it (destroy, or device removal after
 * DEVICE_REMOVAL); a closed entry never enters again, so a route
 * resolution racing the removal cannot leave a freed id behind.
 *
 * The index is an rbtree keyed by (namespace, ifindex, family, destination
 * IP), equal keys side by side, so a neighbour update costs a lookup and
 * the ids on that very neighbour. Unlike in-tree the namespace is part of
 * the key: ifindexes repeat across namespaces. NETEVENT_NEIGH_UPDATE comes
 * in atomic context (softirq included): the index lock is a spinlock, and
 * each id has one work item (its rdma_cm_id's net_work), so a storm of
 * updates queues at most one event per id. The work item holds a
 * reference; the library drops the event once the id is DESTROYING or
 * DEVICE_REMOVAL and destroys the id if the callback returns non-zero.
 */
#include <linux/export.h>
#include <linux/in6.h>
#include <linux/netdevice.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <net/neighbour.h>
#include <net/netevent.h>
#include <rdma/rdma_cm.h>

#include "export.h"
#include "id.h"
#include "neigh.h"
#include "notify.h"
#include "device.h"

static struct xcma_notify neigh_notify;

/* protects the index, every entry's node and every id's neigh_closed */
static DEFINE_SPINLOCK(index_lock);
static struct rb_root index_root = RB_ROOT;

/* what an id is filed under, and what a neighbour update looks for */
struct neigh_key {
	const struct net *net;
	int ifindex;
	sa_family_t family;
	const void *ip; /* 4 or 16 bytes, by family */
};

static struct xcma_id *id_of_node(struct rb_node *node)
{
	return rb_entry(node, struct xcma_neigh_entry, node)->xid;
}

static void key_of_id(struct xcma_id *xid, struct neigh_key *k)
{
	struct rdma_dev_addr *da = &xid->id.route.addr.dev_addr;
	struct sockaddr *dst = xcma_id_dst(xid);

	k->net = da->net;
	k->ifindex = da->bound_dev_if;
	k->family = dst->sa_family;
	if (k->family == AF_INET6)
		k->ip = &((struct sockaddr_in6 *)dst)->sin6_addr;
	else
		k->ip = &((struct sockaddr_in *)dst)->sin_addr;
}

static int key_cmp(const struct neigh_key *a, const struct neigh_key *b)
{
	if (a->net != b->net)
		return (uintptr_t)a->net < (uintptr_t)b->net ? -1 : 1;
	if (a->ifindex != b->ifindex)
		return a->ifindex < b->ifindex ? -1 : 1;
	if (a->family != b->family)
		return a->family < b->family ? -1 : 1;
	return memcmp(a->ip, b->ip, a->family == AF_INET6 ?
			  sizeof(struct in6_addr) : sizeof(struct in_addr));
}

static int key_cmp_id(const struct neigh_key *k, struct rb_node *node)
{
	struct neigh_key b;

	key_of_id(id_of_node(node), &b);
	return key_cmp(k, &b);
}

/* the leftmost id filed under @k, or NULL */
static struct rb_node *first_of(const struct neigh_key *k)
{
	struct rb_node *node = index_root.rb_node, *found = NULL;

	lockdep_assert_held(&index_lock);
	while (node) {
		int c = key_cmp_id(k, node);

		if (c <= 0) {
			if (!c)
				found = node;
			node = node->rb_left;
		} else {
			node = node->rb_right;
		}
	}
	return found;
}

static void neigh_work(struct work_struct *work)
{
	struct xcma_id *xid = container_of(work, struct xcma_id, id.net_work);
	struct rdma_cm_event ev = { .status = -ETIMEDOUT };

	/* consumes the reference taken by xcma_neigh_update() */
	xcma_id_deliver(xid, XCMA_EV_NEIGH_UNREACHABLE, &ev);
}

/**
 * xcma_neigh_prepare - allocate the id's entry, if it has none yet
 * @xid: the id, resolving a RoCE route (ROUTE_QUERY); no xcma lock held
 *
 * On failure the caller undoes its transition. The entry is set once and
 * kept until the id is freed, so a device removal's xcma_neigh_unwatch()
 * that runs meanwhile reads NULL or the entry.
 *
 * Return: 0 or -ENOMEM.
 */
int xcma_neigh_prepare(struct xcma_id *xid)
{
	struct xcma_neigh_entry *e;

	if (READ_ONCE(xid->neigh))
		return 0;
	e = kmalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	RB_CLEAR_NODE(&e->node);
	e->xid = xid;
	/* the index lock's release publishes it to the index's readers */
	if (cmpxchg(&xid->neigh, NULL, e)) {
		kfree(e);
		return 0;
	}
	/* used only once the id is filed, which needs the entry */
	INIT_WORK(&xid->id.net_work, neigh_work);
	return 0;
}

/**
 * xcma_neigh_id_free - free the id's entry (the id is freed)
 * @xid: the id, out of the index (xcma_neigh_unwatch() ran)
 */
void xcma_neigh_id_free(struct xcma_id *xid)
{
	kfree(xid->neigh);
	xid->neigh = NULL;
}

/**
 * xcma_neigh_watch - file an id under the neighbour its route goes to
 * @xid: the id, its RoCE route just resolved (ROUTE_QUERY)
 *
 * Once filed or once closed, nothing happens.
 */
void xcma_neigh_watch(struct xcma_id *xid)
{
	struct xcma_neigh_entry *e = xid->neigh;
	struct rb_node **link = &index_root.rb_node, *parent = NULL;
	struct neigh_key k;
	unsigned long flags;

	/* xcma_neigh_prepare() succeeded for this resolution */
	if (WARN_ON_ONCE(!e))
		return;
	key_of_id(xid, &k);
	spin_lock_irqsave(&index_lock, flags);
	if (xid->neigh_closed || !RB_EMPTY_NODE(&e->node))
		goto out;
	while (*link) {
		parent = *link;
		/* equal keys go right: the leftmost is found first */
		if (key_cmp_id(&k, parent) < 0)
			link = &parent->rb_left;
		else
			link = &parent->rb_right;
	}
	rb_link_node(&e->node, parent, link);
	rb_insert_color(&e->node, &index_root);
out:
	spin_unlock_irqrestore(&index_lock, flags);
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_neigh_watch);

/* the id's entry if it is in the index, else NULL */
static struct xcma_neigh_entry *filed_entry(struct xcma_id *xid)
{
	/* NULL, or set for good by a racing xcma_neigh_prepare() */
	struct xcma_neigh_entry *e = READ_ONCE(xid->neigh);

	lockdep_assert_held(&index_lock);
	return e && !RB_EMPTY_NODE(&e->node) ? e : NULL;
}

/**
 * xcma_neigh_unwatch - the id leaves the index for good
 * @xid: the id, being destroyed or removed with its device (the
 *	library's cancel, once per id); no xcma lock held
 *
 * A queued UNREACHABLE is taken back with its reference. One already
 * running keeps its reference, which the destroyer waits for; it is not
 * waited for here, so this is safe from that very work item (a callback
 * returning non-zero) and from another id's callback.
 */
void xcma_neigh_unwatch(struct xcma_id *xid)
{
	struct xcma_neigh_entry *e;
	unsigned long flags;

	spin_lock_irqsave(&index_lock, flags);
	xid->neigh_closed = true;
	e = filed_entry(xid);
	if (e) {
		rb_erase(&e->node, &index_root);
		RB_CLEAR_NODE(&e->node);
	}
	spin_unlock_irqrestore(&index_lock, flags);
	/* only a filed id can have had its work queued */
	if (e && cancel_work(&xid->id.net_work))
		xcma_fsm_id_put(&xid->life.fsm);
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_neigh_unwatch);

/**
 * xcma_neigh_watched - is the id in the index? (for tests and free)
 * @xid: the id
 *
 * Return: true while filed.
 */
bool xcma_neigh_watched(struct xcma_id *xid)
{
	unsigned long flags;
	bool filed;

	spin_lock_irqsave(&index_lock, flags);
	filed = filed_entry(xid);
	spin_unlock_irqrestore(&index_lock, flags);
	return filed;
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_neigh_watched);

/**
 * xcma_neigh_update - queue UNREACHABLE for the ids on a changed neighbour
 * @n: the neighbour of a NETEVENT_NEIGH_UPDATE; any context
 *
 * Every id filed under @n's (namespace, device, address) whose resolved
 * destination hardware address differs from @n's gets its work item
 * queued, unless it is queued already.
 *
 * Return: how many were queued now.
 */
unsigned int xcma_neigh_update(struct neighbour *n)
{
	struct net_device *ndev = n->dev;
	char ha[MAX_ADDR_LEN];
	struct neigh_key k = {
		.net = dev_net(ndev),
		.ifindex = ndev->ifindex,
		.family = n->tbl->family,
		.ip = n->primary_key,
	};
	unsigned int queued = 0;
	struct rb_node *node;
	unsigned long flags;

	if (k.family != AF_INET && k.family != AF_INET6)
		return 0;
	neigh_ha_snapshot(ha, n, ndev);
	spin_lock_irqsave(&index_lock, flags);
	for (node = first_of(&k); node && !key_cmp_id(&k, node);
	     node = rb_next(node)) {
		struct xcma_id *xid = id_of_node(node);
		struct rdma_dev_addr *da = &xid->id.route.addr.dev_addr;

		if (!memcmp(da->dst_dev_addr, ha, ndev->addr_len))
			continue;
		/* a filed id still has the reference its leaving drops */
		xcma_fsm_id_get(&xid->life.fsm);
		if (queue_work(neigh_notify.wq, &xid->id.net_work))
			queued++;
		else
			xcma_fsm_id_put(&xid->life.fsm);
	}
	spin_unlock_irqrestore(&index_lock, flags);
	return queued;
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_neigh_update);

/**
 * xcma_neigh_flush - wait until every queued UNREACHABLE was handled
 */
void xcma_neigh_flush(void)
{
	flush_workqueue(neigh_notify.wq);
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_neigh_flush);

static int netevent(struct notifier_block *nb, unsigned long event, void *ptr)
{
	if (event == NETEVENT_NEIGH_UPDATE)
		xcma_neigh_update(ptr);
	return NOTIFY_DONE;
}

/* not ordered: a callback that blocks holds up no other id's event */
static struct xcma_notify neigh_notify = {
	.nb.notifier_call = netevent,
	.reg = register_netevent_notifier,
	.unreg = unregister_netevent_notifier,
	.wq_name = "xcma_neigh",
};

int xcma_neigh_init(void)
{
	return xcma_notify_start(&neigh_notify);
}

/* every id is freed by now (each holds the module), so the index is empty */
void xcma_neigh_exit(void)
{
	xcma_notify_stop(&neigh_notify);
}
