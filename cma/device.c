// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The ib_client: one struct xcma_device per RDMA device, created by .add
 * and torn down by .remove. Whether a device is usable, who holds it and
 * when removal may finish are decided by the lifecycle library (fsm); this
 * file allocates, lists, waits where the library says so, and frees.
 */
#include <linux/debugfs.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_marshall.h>
#include <rdma/ib_verbs.h>

#include "export.h"
#include "defaults.h"
#include "id.h"
#include "lifecycle.h"
#include "ops.h"
#include "trace.h"
#include "device.h"

/*
 * The devices are the lifecycle library's list (xcma_life_walk_devs()):
 * a walk holds the ctx lock, so a device it sees stays until the walk
 * ends, and an id attaches to a device in the same hold of the lock that
 * found it. counters_lock, a leaf, protects the counters.
 */
static DEFINE_MUTEX(counters_lock);
static struct xcma_device_counters counters;
static struct dentry *debug_dir;

static struct ib_client xcma_client;

/*
 * ib_core calls the clients' .remove newest-registered first. ib_uverbs's
 * .remove waits until the user contexts on the device are gone, and the
 * processes that own them wait for the DEVICE_REMOVAL that rdma_ucm gets
 * from this client's .remove: if this client were older than ib_uverbs's,
 * `rdma link delete` would hang with them. This reference to one of
 * ib_uverbs's exports makes xcma.ko depend on ib_uverbs.ko: modprobe loads
 * it first, insmod refuses xcma while it is not loaded ("Unknown symbol
 * ib_copy_path_rec_from_user"), the loader runs xcma's init only once
 * ib_uverbs's init (its ib_register_client) has completed, and ib_uverbs
 * cannot be unloaded while xcma is loaded. So this client is always the
 * newer of the two, in every order modules are asked for.
 */
static const void *const xcma_uverbs_dep __used = ib_copy_path_rec_from_user;

static int add_one(struct ib_device *ibdev)
{
	struct xcma_device *dev;
	u32 port;
	int ret;

	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	dev->ibdev = ibdev;
	/* before any id can hold an iw_cm id: see xcma_id_mark_callbacks() */
	rdma_for_each_port(ibdev, port)
		if (xcma_transport(ibdev, port) == XCMA_TRANSPORT_IWARP)
			xcma_id_mark_callbacks();
	dev->defaults = xcma_defaults_alloc(ibdev);
	if (!dev->defaults) {
		ret = -ENOMEM;
		goto err_dev;
	}
	/* visible to wildcard listeners from here; on error already removed */
	ret = xcma_life_dev_init(&dev->life);
	if (ret)
		goto err_defaults;

	mutex_lock(&counters_lock);
	counters.added++;
	counters.live++;
	mutex_unlock(&counters_lock);

	ib_set_client_data(ibdev, &xcma_client, dev);
	trace_cm_add_one(ibdev);
	pr_info("xcma: %s: added\n", dev_name(&ibdev->dev));
	return 0;

err_defaults:
	xcma_defaults_free(dev->defaults);
err_dev:
	kfree(dev);
	return ret;
}

static void remove_one(struct ib_device *ibdev, void *client_data)
{
	struct xcma_device *dev = client_data;

	trace_cm_remove_one(ibdev);
	/*
	 * Takes the device off the list (no new id can attach to it past
	 * that point), notifies the ids that hold it, waits until none does
	 * and finishes what they deferred (owner.c).
	 */
	xcma_life_dev_remove(&dev->life);

	mutex_lock(&counters_lock);
	counters.removed++;
	counters.live--;
	mutex_unlock(&counters_lock);
	pr_info("xcma: %s: removed\n", dev_name(&ibdev->dev));
	xcma_life_dev_destroy(&dev->life);
	xcma_defaults_free(dev->defaults);
	kfree(dev);
}

static struct ib_client xcma_client = {
	.name = "xcma",
	.add = add_one,
	.remove = remove_one,
};

/**
 * xcma_device_get_counters - snapshot of what the ib_client has seen
 * @c: filled in
 */
void xcma_device_get_counters(struct xcma_device_counters *c)
{
	mutex_lock(&counters_lock);
	*c = counters;
	mutex_unlock(&counters_lock);
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_device_get_counters);

struct named {
	const char *name;
	int (*fn)(struct xcma_device *dev, void *arg);
	void *arg;
	int ret;
};

/* a device walk's step: @fn on the device of that name, if it is this one */
static int with_named(struct xcma_life_dev *life, void *arg)
{
	struct xcma_device *dev = xcma_device_of_life(life);
	struct named *n = arg;

	if (strcmp(dev_name(&dev->ibdev->dev), n->name))
		return 0;
	n->ret = n->fn(dev, n->arg);
	return 1;
}

/**
 * xcma_device_with - run @fn on the device named @name
 * @name: its ib_device name
 * @fn: called with the ctx lock held: the device stays until it returns
 * @arg: for @fn
 *
 * Return: what @fn returns, or -ENODEV if xcma has no such device.
 */
int xcma_device_with(const char *name,
		     int (*fn)(struct xcma_device *dev, void *arg), void *arg)
{
	struct named n = { .name = name, .fn = fn, .arg = arg };

	if (!xcma_life_walk_devs(with_named, &n))
		return -ENODEV;
	return n.ret;
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_device_with);

struct query {
	unsigned int state;
	unsigned int holders;
};

static int query_one(struct xcma_device *dev, void *arg)
{
	struct query *q = arg;

	xcma_life_dev_query_locked(&dev->life, &q->state, &q->holders);
	return 0;
}

/**
 * xcma_device_query - lifecycle state of a device xcma knows by name
 * @name: the ib_device's name, e.g. "rxe0"
 * @state: its state (enum xcma_dev_state of xcma/fsm.h)
 * @holders: how many ids hold it
 *
 * Return: 0, or -ENODEV if no such device is recorded (never added, or
 * its removal has started).
 */
int xcma_device_query(const char *name, int *state, unsigned int *holders)
{
	struct query q;
	int ret = xcma_device_with(name, query_one, &q);

	if (!ret) {
		*state = q.state;
		*holders = q.holders;
	}
	return ret;
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_device_query);

/**
 * xcma_device_of_id - the device an id holds
 * @xid: an id attached to a device, which it holds until it releases it
 *
 * Return: the device, or NULL if the id holds none.
 */
struct xcma_device *xcma_device_of_id(struct xcma_id *xid)
{
	struct xcma_fsm_dev *fdev = READ_ONCE(xid->life.fsm.dev);

	return fdev ? xcma_device_of_life(xcma_life_dev_of(fdev)) : NULL;
}

/* the source GID of the port's default type (RoCE v2 unless configured) */
static const struct ib_gid_attr *find_gid(struct xcma_device *dev, u32 port,
					  const union ib_gid *gid,
					  struct net_device *ndev)
{
	int type = xcma_defaults_gid_type(dev->defaults, port);

	if (type < 0)
		return ERR_PTR(type);
	return xcma_ops->find_gid_by_port(dev->ibdev, gid, type, port, ndev);
}

/*
 * An iWARP port has one GID, its netdev's, as in-tree: the port is the
 * address's if that GID's netdev is the address's. 6.1's ib_core records
 * no netdev with an iWARP GID (-ENODEV): there, as 6.1's CM does, the
 * port is the address's if its GID is the address's hardware address
 * (an iWARP GID is its netdev's MAC).
 */
static const struct ib_gid_attr *iw_gid(struct xcma_device *dev, u32 port,
					struct net_device *ndev,
					struct rdma_dev_addr *da)
{
	const struct ib_gid_attr *attr;
	struct net_device *gid_ndev;
	bool same;

	attr = xcma_ops->get_gid_attr(dev->ibdev, port, 0);
	if (IS_ERR(attr))
		return attr;
	rcu_read_lock();
	gid_ndev = xcma_ops->gid_attr_ndev_rcu(attr);
	if (!IS_ERR(gid_ndev))
		same = gid_ndev == ndev;
	else
		same = PTR_ERR(gid_ndev) == -ENODEV &&
		       !memcmp(&attr->gid, da->src_dev_addr +
			       rdma_addr_gid_offset(da), sizeof(attr->gid));
	rcu_read_unlock();
	if (same)
		return attr;
	xcma_ops->put_gid_attr(attr);
	return ERR_PTR(-ENODEV);
}

/*
 * An IB port is the address's if the GID in the address's IPoIB hardware
 * address is one of the port's, of type IB (in-tree cma_validate_port()):
 * an Ethernet address never is an IB port's.
 */
static const struct ib_gid_attr *ib_gid(struct xcma_device *dev, u32 port,
					struct rdma_dev_addr *da)
{
	union ib_gid gid;

	if (da->dev_type != ARPHRD_INFINIBAND)
		return ERR_PTR(-ENODEV);
	rdma_addr_get_sgid(da, &gid);
	return xcma_ops->find_gid_by_port(dev->ibdev, &gid, IB_GID_TYPE_IB, port,
					  NULL);
}

/*
 * The GID of an address on one port, held (in-tree cma_validate_port()):
 * iWARP and RoCE need the address's netdev (@ndev; NULL for an AF_IB
 * address, which is an IB port's only) and RoCE the IP address's GID
 * (@gid); IB finds the GID in the hardware address.
 */
static const struct ib_gid_attr *port_gid(struct xcma_device *dev, u32 port,
					  struct rdma_dev_addr *da,
					  struct net_device *ndev,
					  const union ib_gid *gid)
{
	switch (xcma_transport(dev->ibdev, port)) {
	case XCMA_TRANSPORT_IWARP:
		return ndev ? iw_gid(dev, port, ndev, da) : ERR_PTR(-ENODEV);
	case XCMA_TRANSPORT_ROCE:
		return ndev ? find_gid(dev, port, gid, ndev) : ERR_PTR(-ENODEV);
	case XCMA_TRANSPORT_IB:
		return ib_gid(dev, port, da);
	default:
		return ERR_PTR(-ENODEV);
	}
}

/*
 * The id holds @dev and is on @port from now on; a device walk's step.
 * Return: 0; -EINVAL if the id is being destroyed or already holds a
 * device.
 */
static int attach(struct xcma_id *xid, struct xcma_device *dev, u32 port)
{
	int ret = xcma_fsm_id_attach_locked(&xid->life.fsm, &dev->life.fsm);

	if (ret)
		return ret;
	trace_cm_id_attach(xid, dev->ibdev);
	xid->id.device = dev->ibdev;
	xid->id.port_num = port;
	xid->id.route.addr.dev_addr.transport =
		rdma_node_get_transport(dev->ibdev->node_type);
	return 0;
}

struct acquire {
	struct xcma_id *xid;
	struct net_device *ndev;
	union ib_gid gid;
	int ret;
};

static int acquire_on(struct xcma_life_dev *life, void *arg)
{
	struct xcma_device *dev = xcma_device_of_life(life);
	struct acquire *a = arg;
	struct rdma_dev_addr *da = &a->xid->id.route.addr.dev_addr;
	const struct ib_gid_attr *attr;
	u32 port;

	/* in exclusive netns mode, the id's namespace's devices only */
	if (!xcma_ops->dev_access_netns(dev->ibdev, da->net))
		return 0;
	rdma_for_each_port(dev->ibdev, port) {
		attr = port_gid(dev, port, da, a->ndev, &a->gid);
		if (IS_ERR(attr))
			continue;
		a->ret = attach(a->xid, dev, port);
		if (a->ret) {
			xcma_ops->put_gid_attr(attr);
			return 1;
		}
		da->sgid_attr = attr;
		xcma_id_track_locked(a->xid);
		return 1;
	}
	return 0;
}

/**
 * xcma_device_acquire - attach an id to the device of its source address
 * @xid: the id; its source address and dev_addr (netdev, namespace) set
 *
 * The device is the first whose GID table holds the GID of the source
 * address on the address's netdev (RoCE), or whose port's one GID is that
 * netdev's (iWARP), or the GID of the address's IPoIB hardware address
 * or of its AF_IB address (IB; in-tree cma_validate_port() takes no other
 * port for either). A device that is not the id's namespace's (ib_core's
 * exclusive netns mode) is skipped, as in-tree. On success @xid holds the
 * device, its port and the GID attribute (released with the device).
 *
 * Return: 0; -ENODEV if no device has the GID or the netdev is gone.
 */
int xcma_device_acquire(struct xcma_id *xid)
{
	struct rdma_dev_addr *da = &xid->id.route.addr.dev_addr;
	struct acquire a = { .xid = xid, .ret = -ENODEV };

	/* an AF_IB address names a GID, no netdev: IB ports only */
	if (xcma_id_src(xid)->sa_family != AF_IB) {
		a.ndev = dev_get_by_index(da->net, da->bound_dev_if);
		if (!a.ndev)
			return -ENODEV;
		rdma_ip2gid(xcma_id_src(xid), &a.gid);
	}
	xcma_life_walk_devs(acquire_on, &a);
	dev_put(a.ndev);
	return a.ret;
}

/**
 * xcma_device_conn_gid - the GID a passive id takes on its listener's port
 * @dev: the listener's device, or NULL if it has released it
 * @xid: the passive id: its addresses and hardware address are the
 *	request's
 * @port: the port the request came in on
 *
 * As in-tree cma_ib_acquire_dev(): on RoCE the GID of the id's source
 * address on the netdev the request came in on, of the port's default
 * type; on IB the GID in the id's hardware address (IPoIB's, or the
 * AF_IB address's), of type IB. It is not the GID the request came in
 * on: one that came without a GRH (native IB, on a subnet) names none.
 * On iWARP, as cma_iw_acquire_dev(), the port's one GID if its netdev is
 * the one of the id's address (the in-tree CM then tries every other
 * port of every device; xcma keeps the listener's, whose iw_cm has the
 * request).
 *
 * Return: the attribute, held; ERR_PTR(-EINVAL) for an id of the IPoIB
 * port space whose hardware address is not InfiniBand's; ERR_PTR(-ENODEV)
 * if the port has no such GID or the device is not the id's namespace's.
 */
const struct ib_gid_attr *xcma_device_conn_gid(struct xcma_device *dev,
					       struct xcma_id *xid, u32 port)
{
	struct rdma_dev_addr *da = &xid->id.route.addr.dev_addr;
	const struct ib_gid_attr *attr;
	struct net_device *ndev = NULL;
	union ib_gid gid = {};

	if (da->dev_type != ARPHRD_INFINIBAND && xid->id.ps == RDMA_PS_IPOIB)
		return ERR_PTR(-EINVAL);
	if (!dev || !xcma_ops->dev_access_netns(dev->ibdev, da->net))
		return ERR_PTR(-ENODEV);
	/*
	 * an IP address has the netdev iWARP and RoCE ports are matched by
	 * (a RoCE GID is only ever an Ethernet netdev's); an AF_IB one none
	 */
	if (!rdma_ip2gid(xcma_id_src(xid), &gid))
		ndev = dev_get_by_index(da->net, da->bound_dev_if);
	attr = port_gid(dev, port, da, ndev, &gid);
	dev_put(ndev);
	return attr;
}

/* the first port of @dev that is up, or 0 */
static u32 active_port(struct ib_device *ibdev)
{
	enum ib_port_state state;
	u32 port;

	rdma_for_each_port(ibdev, port) {
		if (!xcma_ops->get_port_state(ibdev, port, &state) &&
		    state == IB_PORT_ACTIVE)
			return port;
	}
	return 0;
}

struct loopback {
	struct xcma_id *xid;
	bool any;
	int ret;
};

/* a loopback id takes the port's first GID and pkey */
static int loopback_attach(struct xcma_id *xid, struct xcma_device *dev,
			   u32 port)
{
	struct rdma_dev_addr *da = &xid->id.route.addr.dev_addr;
	union ib_gid gid;
	u16 pkey;
	int ret;

	ret = xcma_ops->query_gid(dev->ibdev, port, 0, &gid);
	if (!ret)
		ret = xcma_ops->get_cached_pkey(dev->ibdev, port, 0, &pkey);
	if (!ret)
		ret = attach(xid, dev, port);
	if (ret)
		return ret;
	if (xcma_transport(dev->ibdev, port) == XCMA_TRANSPORT_IB)
		da->dev_type = ARPHRD_INFINIBAND;
	else
		da->dev_type = ARPHRD_ETHER;
	rdma_addr_set_sgid(da, &gid);
	ib_addr_set_pkey(da, pkey);
	xcma_id_track_locked(xid);
	return 0;
}

/* a device walk's step: the device, if it has an active port (or any) */
static int loopback_on(struct xcma_life_dev *life, void *arg)
{
	struct xcma_device *dev = xcma_device_of_life(life);
	struct loopback *l = arg;
	u32 port = 1;

	/* an AF_IB id needs ib_cm: no iWARP device (as in-tree) */
	if (xcma_id_src(l->xid)->sa_family == AF_IB &&
	    !xcma_transport_ib_cm(dev->ibdev, 1))
		return 0;
	if (!l->any) {
		port = active_port(dev->ibdev);
		if (!port)
			return 0;
	}
	l->ret = loopback_attach(l->xid, dev, port);
	return 1;
}

/**
 * xcma_device_acquire_loopback - attach an id that talks to itself
 * @xid: the id, resolving a loopback or wildcard destination, no device
 *
 * As in-tree: the first device with an active port, else port 1 of the
 * first device (for an AF_IB id, of those with ib_cm); the id's source
 * GID becomes the port's first GID and its pkey the port's first pkey.
 * No GID attribute is held: such an id has no netdev, and its route
 * resolution fails with -ENODEV.
 *
 * Return: 0; -ENODEV without any device; the errnos of the GID and pkey
 * caches.
 */
int xcma_device_acquire_loopback(struct xcma_id *xid)
{
	struct loopback l = { .xid = xid, .ret = -ENODEV };

	/* a device with an active port; else the first one, on port 1 */
	if (!xcma_life_walk_devs(loopback_on, &l)) {
		l.any = true;
		xcma_life_walk_devs(loopback_on, &l);
	}
	return l.ret;
}

/*
 * The GID of @port to reach @dgid from: @dgid itself, or one in its
 * subnet if the port is up, whichever the table lists first.
 */
static bool ib_port_gid(struct ib_device *ibdev, u32 port,
			const union ib_gid *dgid, union ib_gid *sgid)
{
	enum ib_port_state state;
	union ib_gid gid;
	int i;

	if (xcma_ops->get_port_state(ibdev, port, &state))
		return false;
	for (i = 0; i < ibdev->port_data[port].immutable.gid_tbl_len; i++) {
		if (xcma_ops->query_gid(ibdev, port, i, &gid))
			continue;
		if (!memcmp(&gid, dgid, sizeof(gid)) ||
		    (gid.global.subnet_prefix == dgid->global.subnet_prefix &&
		     state == IB_PORT_ACTIVE)) {
			*sgid = gid;
			return true;
		}
	}
	return false;
}

struct acquire_ib {
	struct xcma_id *xid;
	const union ib_gid *dgid;
	u16 pkey;
	union ib_gid *sgid;
	int ret;
};

static int acquire_ib_on(struct xcma_life_dev *life, void *arg)
{
	struct xcma_device *dev = xcma_device_of_life(life);
	struct acquire_ib *a = arg;
	u16 index;
	u32 port;

	rdma_for_each_port(dev->ibdev, port) {
		if (xcma_transport(dev->ibdev, port) != XCMA_TRANSPORT_IB)
			continue;
		if (xcma_ops->find_cached_pkey(dev->ibdev, port, a->pkey,
					       &index))
			continue;
		if (!ib_port_gid(dev->ibdev, port, a->dgid, a->sgid))
			continue;
		a->ret = attach(a->xid, dev, port);
		if (!a->ret)
			xcma_id_track_locked(a->xid);
		return 1;
	}
	return 0;
}

/**
 * xcma_device_acquire_ib - attach an id that resolves an AF_IB address
 * @xid: the id, no device
 * @dgid: the destination GID
 * @pkey: the destination's partition, which the port must have
 * @sgid: set to the source GID on success
 *
 * As in-tree cma_resolve_ib_dev(): the first IB port with @pkey whose GID
 * table holds @dgid, or a GID of its subnet while the port is active. No
 * GID attribute is held (the in-tree CM holds none for AF_IB either).
 *
 * Return: 0, or -ENODEV if no port will do.
 */
int xcma_device_acquire_ib(struct xcma_id *xid, const union ib_gid *dgid,
			   u16 pkey, union ib_gid *sgid)
{
	struct acquire_ib a = {
		.xid = xid, .dgid = dgid, .pkey = pkey, .sgid = sgid,
		.ret = -ENODEV,
	};

	xcma_life_walk_devs(acquire_ib_on, &a);
	return a.ret;
}

/**
 * xcma_device_report_holder - removal of a device has waited a report
 *	period for this id: say who (the context's report_holder)
 * @life: the device
 * @l: the id; the ctx mutex is held
 */
void xcma_device_report_holder(struct xcma_life_dev *life,
			       struct xcma_life_id *l)
{
	struct xcma_device *dev = xcma_device_of_life(life);
	struct xcma_id *xid = xcma_id_of_life(l);

	lockdep_assert_held(&xcma_life_ctx_of(life->fsm.ctx)->lock);
	pr_warn("xcma: %s: removal waits for id %p state %s ps %d %pISpc -> %pISpc owner %s\n",
		dev_name(&dev->ibdev->dev), &xid->id,
		xcma_fsm_state_name(xcma_fsm_id_state(&l->fsm)), xid->id.ps,
		&xid->id.route.addr.src_addr, &xid->id.route.addr.dst_addr,
		xcma_id_owner(xid));
}

static int show_one(struct xcma_life_dev *life, void *arg)
{
	struct xcma_device *dev = xcma_device_of_life(life);
	unsigned int state, holders;

	xcma_life_dev_query_locked(life, &state, &holders);
	seq_printf(arg, "%s %s holders=%u\n", dev_name(&dev->ibdev->dev),
		   xcma_fsm_dev_state_name(state), holders);
	return 0;
}

static int devices_show(struct seq_file *s, void *unused)
{
	xcma_life_walk_devs(show_one, s);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(devices);

int xcma_device_init(void)
{
	int ret;

	debug_dir = debugfs_create_dir("xcma", NULL);
	debugfs_create_file("devices", 0444, debug_dir, NULL, &devices_fops);

	/* .add runs here for every device that already exists */
	ret = ib_register_client(&xcma_client);
	if (ret)
		goto err_debugfs;
	return 0;

err_debugfs:
	debugfs_remove_recursive(debug_dir);
	return ret;
}

void xcma_device_exit(void)
{
	/* .remove runs here for every device still registered */
	ib_unregister_client(&xcma_client);
	debugfs_remove_recursive(debug_dir);
}
