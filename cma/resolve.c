// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Binding, address resolution and route resolution (RoCE here, the SA
 * path record query of IB in sa.c).
 *
 * Address resolution is ib_core's rdma_resolve_ip(); its callback finds
 * the device whose GID table holds the resolved source address and
 * delivers ADDR_RESOLVED or ADDR_ERROR. A route over RoCE needs no query:
 * it is built from the netdev at once and reported from a work item, so
 * that ROUTE_RESOLVED, like every event, reaches the user from another
 * context than the call.
 */
#include <linux/export.h>
#include <linux/if_vlan.h>
#include <linux/netdevice.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <net/addrconf.h>
#include <net/route.h>
#include <rdma/ib.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_sa.h>
#include <rdma/rdma_cm_ib.h>

#include "addr.h"
#include "defaults.h"
#include "id.h"
#include "ops.h"
#include "resolve.h"
#include "sa.h"
#include "device.h"

/**
 * xcma_translate_ib - the hardware address of an AF_IB address
 * @sib: the address
 * @da: gets its GID and pkey, as an IPoIB address's would be (in-tree
 *	cma_translate_ib())
 */
void xcma_translate_ib(const struct sockaddr_ib *sib, struct rdma_dev_addr *da)
{
	da->dev_type = ARPHRD_INFINIBAND;
	rdma_addr_set_sgid(da, (union ib_gid *)&sib->sib_addr);
	ib_addr_set_pkey(da, ntohs(sib->sib_pkey));
}

/*
 * ADDR_RESOLVED with nothing to resolve (loopback, AF_IB): from the
 * work item, which holds a reference; cancel gives it back if it never
 * runs.
 */
static void queue_addr_resolved(struct xcma_id *xid)
{
	xcma_fsm_id_get(&xid->life.fsm);
	WRITE_ONCE(xid->work_event, XCMA_EV_ADDR_RESOLVED);
	queue_work(system_unbound_wq, &xid->work);
}

/*
 * @dev_if, if not NULL, is the interface a link-local destination pins
 * (rdma_resolve_addr() without a source). Like every other field of the
 * id it is written only once the state machine let the bind through: a
 * refused call must not touch a live id (in-tree 22e9f71072fa).
 */
static int bind_addr(struct xcma_id *xid, const struct sockaddr *addr,
		     const struct sockaddr *daddr, const int *dev_if)
{
	struct rdma_dev_addr *da = &xid->id.route.addr.dev_addr;
	struct sockaddr_storage old_src, old_dst;
	struct rdma_dev_addr old_da;
	int bound_dev_if;
	int ret;

	if (addr->sa_family != AF_INET && addr->sa_family != AF_INET6 &&
	    addr->sa_family != AF_IB)
		return -EAFNOSUPPORT;
	ret = xcma_id_transition(xid, XCMA_EV_BIND);
	if (ret)
		return ret;
	old_da = *da;
	bound_dev_if = dev_if ? *dev_if : da->bound_dev_if;
	ret = xcma_addr_check_linklocal(addr, &bound_dev_if);
	if (ret)
		goto err_state;

	old_src = xid->id.route.addr.src_addr;
	old_dst = xid->id.route.addr.dst_addr;
	ret = xcma_addr_copy(&xid->id.route.addr.src_addr, addr);
	if (ret)
		goto err_addr;
	if (daddr) {
		ret = xcma_addr_copy(&xid->id.route.addr.dst_addr, daddr);
		if (ret)
			goto err_addr;
	}
	xcma_id_dst(xid)->sa_family = addr->sa_family;

	/*
	 * The device before the port, as in-tree: an address no device has
	 * fails with the address's errno even when its port is taken.
	 */
	da->bound_dev_if = bound_dev_if;
	if (!xcma_addr_is_any(addr)) {
		if (addr->sa_family == AF_IB) {
			xcma_translate_ib((const struct sockaddr_ib *)addr, da);
			ret = 0;
		} else {
			ret = xcma_ops->translate_ip(addr, da);
		}
		if (!ret)
			ret = xcma_device_acquire(xid);
		if (ret)
			goto err_addr;
	}
	if (!xid->afonly_set)
		xid->bind.afonly = xcma_port_default_afonly(da->net,
							    addr->sa_family);
	ret = xcma_port_bind(&xid->bind, xid->id.ps);
	if (ret)
		goto err_dev;
	return 0;

err_dev:
	xcma_id_detach(xid);
err_addr:
	xid->id.route.addr.src_addr = old_src;
	xid->id.route.addr.dst_addr = old_dst;
	/* what the translation wrote; the device is released by now */
	*da = old_da;
err_state:
	if (xcma_id_transition(xid, XCMA_EV_BIND_UNDO))
		pr_debug("xcma: bind undo refused\n");
	return ret;
}

/**
 * rdma_bind_addr - bind an id to a source address and port
 * @id: the id, IDLE
 * @addr: AF_INET, AF_INET6 or AF_IB; port 0 (for AF_IB the port bits of
 *	the service ID under its mask) picks an ephemeral port
 *
 * A specific address also attaches the id to the device that has it; an
 * AF_IB address's service ID picks the port space (see port.c).
 *
 * Return: 0; -EAFNOSUPPORT for another family; -EINVAL unless IDLE or for
 * a link-local address without scope; the port errnos of port.c; -ENODEV
 * or -EADDRNOTAVAIL if no RDMA device has the address (-ENODEV for an
 * AF_IB GID that no IB port has).
 */
int rdma_bind_addr(struct rdma_cm_id *id, struct sockaddr *addr)
{
	return bind_addr(xcma_id_of(id), addr, NULL, NULL);
}
EXPORT_SYMBOL(rdma_bind_addr);

static void addr_handler(int status, struct sockaddr *src_addr,
			 struct rdma_dev_addr *dev_addr, void *context)
{
	struct xcma_id *xid = context;
	struct sockaddr_storage old;
	struct rdma_cm_event ev = {};

	/* only this callback writes the address while in ADDR_QUERY */
	old = xid->id.route.addr.src_addr;
	if (!status) {
		status = xcma_port_set_src(&xid->bind, src_addr);
		if (!status && !xid->id.device) {
			status = xcma_device_acquire(xid);
			/*
			 * No device: the old source back, as in-tree. Other
			 * ids' binds read it under the port lock, so it is
			 * written under it too, like every change once bound.
			 */
			if (status &&
			    xcma_port_set_src(&xid->bind, (struct sockaddr *)&old))
				pr_debug("xcma: source address not restored\n");
		}
	}
	ev.status = status;
	xcma_fsm_id_get(&xid->life.fsm);
	xcma_id_deliver(xid, status ? XCMA_EV_ADDR_ERROR : XCMA_EV_ADDR_RESOLVED,
			&ev);
}

/*
 * A queued completion that never ran gives its reference back. One that
 * is running holds its own: the table refuses its delivery to an id being
 * destroyed, and the destroy's wait for the last reference waits for it
 * (in-tree, a cma_work's reference and the wait on id_priv->comp). It is
 * not waited for here: the destroy may come from another id's callback,
 * whose handler lock the running completion does not need but lockdep,
 * with one class for every id's, sees as a cycle (handler lock -> work ->
 * handler lock, first seen on two vCPUs, where the flush really waits).
 */
static void cancel_resolve_work(struct xcma_id *xid)
{
	if (cancel_work(&xid->work))
		xcma_fsm_id_put(&xid->life.fsm);
}

/**
 * xcma_resolve_cancel_addr - the id is destroyed during ADDR_QUERY
 * @xid: the id
 *
 * Returns once addr_handler() is not running and will not run; a loopback
 * completion already running holds its reference (cancel_resolve_work()).
 */
void xcma_resolve_cancel_addr(struct xcma_id *xid)
{
	xcma_ops->addr_cancel(&xid->id.route.addr.dev_addr);
	cancel_resolve_work(xid);
}

static void set_loopback(struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_addr.s_addr =
			htonl(INADDR_LOOPBACK);
	else if (ss->ss_family == AF_IB)
		ib_addr_set(&((struct sockaddr_ib *)ss)->sib_addr, 0, 0, 0,
			    htonl(1));
	else
		ipv6_addr_set(&((struct sockaddr_in6 *)ss)->sin6_addr, 0, 0, 0,
			      htonl(1));
}

/*
 * A loopback or wildcard destination is the host itself: as in-tree, an
 * id without a device takes a local one (xcma_device_acquire_loopback())
 * and the loopback source address, the destination GID is the source GID,
 * and ADDR_RESOLVED follows from a work item.
 */
static int resolve_loopback(struct xcma_id *xid)
{
	struct rdma_dev_addr *da = &xid->id.route.addr.dev_addr;
	struct sockaddr_storage src;
	union ib_gid gid;
	int ret;

	if (!xid->id.device) {
		ret = xcma_device_acquire_loopback(xid);
		if (ret)
			return ret;
		src = xid->id.route.addr.src_addr;
		set_loopback(&src);
		/* an IP family: cannot fail */
		ret = xcma_port_set_src(&xid->bind, (struct sockaddr *)&src);
		if (ret)
			return ret;
	}
	rdma_addr_get_sgid(da, &gid);
	rdma_addr_set_dgid(da, &gid);
	queue_addr_resolved(xid);
	return 0;
}

/*
 * An AF_IB destination names its GID: the id takes an IB port that can
 * reach it (xcma_device_acquire_ib()) unless bound to one, and its
 * source GID from there; ADDR_RESOLVED follows from a work item, no
 * neighbour to resolve (in-tree cma_resolve_ib_addr()).
 */
static int resolve_ib(struct xcma_id *xid)
{
	struct rdma_dev_addr *da = &xid->id.route.addr.dev_addr;
	struct sockaddr_ib *dst = (struct sockaddr_ib *)xcma_id_dst(xid);
	struct sockaddr_storage src;
	union ib_gid sgid;
	int ret;

	if (!xid->id.device) {
		ret = xcma_device_acquire_ib(xid, (union ib_gid *)&dst->sib_addr,
					     ntohs(dst->sib_pkey), &sgid);
		if (ret)
			return ret;
		src = xid->id.route.addr.src_addr;
		memcpy(&((struct sockaddr_ib *)&src)->sib_addr, &sgid,
		       sizeof(sgid));
		/* an AF_IB address: cannot fail */
		ret = xcma_port_set_src(&xid->bind, (struct sockaddr *)&src);
		if (ret)
			return ret;
		xcma_translate_ib((struct sockaddr_ib *)&src, da);
	}
	rdma_addr_set_dgid(da, (union ib_gid *)&dst->sib_addr);
	queue_addr_resolved(xid);
	return 0;
}

static int bind_for_resolve(struct xcma_id *xid, struct sockaddr *src,
			    const struct sockaddr *dst)
{
	struct sockaddr_storage any;
	int dev_if;

	if (src && src->sa_family)
		return bind_addr(xid, src, dst, NULL);
	/* no source: the wildcard of the destination's family */
	if (xcma_addr_set_any(&any, dst, &dev_if))
		return bind_addr(xid, (struct sockaddr *)&any, dst, &dev_if);
	return bind_addr(xid, (struct sockaddr *)&any, dst, NULL);
}

/**
 * rdma_resolve_addr - resolve the destination and the local device
 * @id: the id, IDLE or ADDR_BOUND
 * @src_addr: source address, may be NULL (for an IDLE id)
 * @dst_addr: destination (AF_INET, AF_INET6 or AF_IB)
 * @timeout_ms: for the neighbour resolution
 *
 * A loopback or wildcard destination resolves to a local device (see
 * resolve_loopback()), an AF_IB one to an IB port (resolve_ib()).
 *
 * Return: 0, then ADDR_RESOLVED or ADDR_ERROR follows; -EINVAL in
 * another state or for mixed families; the errnos of rdma_bind_addr();
 * -ENODEV for a loopback destination on a host without RDMA devices.
 */
int rdma_resolve_addr(struct rdma_cm_id *id, struct sockaddr *src_addr,
		      const struct sockaddr *dst_addr, unsigned long timeout_ms)
{
	struct xcma_id *xid = xcma_id_of(id);
	int ret;

	ret = xcma_id_transition(xid, XCMA_EV_RESOLVE_ADDR);
	if (ret) {
		/* for a well-behaved consumer the id is IDLE */
		ret = bind_for_resolve(xid, src_addr, dst_addr);
		if (ret)
			return ret;
		ret = xcma_id_transition(xid, XCMA_EV_RESOLVE_ADDR);
		if (ret)
			return ret;
	} else if (xcma_addr_size(dst_addr)) {
		/* one the family does not size is refused below, as in-tree */
		ret = xcma_port_set_dst(&xid->bind, dst_addr);
		if (ret)
			goto err_state;
	}
	if (xcma_id_src(xid)->sa_family != dst_addr->sa_family) {
		ret = -EINVAL;
		goto err_state;
	}
	if (xcma_addr_is_any(dst_addr)) {
		ret = resolve_loopback(xid);
		if (ret)
			goto err_state;
		return 0;
	}
	if (dst_addr->sa_family == AF_IB) {
		ret = resolve_ib(xid);
		if (ret)
			goto err_state;
		return 0;
	}
	/* a resolution may have failed before: cancel it before a new one */
	if (xid->used_resolve_ip)
		xcma_ops->addr_cancel(&id->route.addr.dev_addr);
	xid->used_resolve_ip = true;
	ret = xcma_ops->resolve_ip(xcma_id_src(xid), dst_addr,
				   &id->route.addr.dev_addr, timeout_ms,
				   addr_handler, false, xid);
	if (ret)
		goto err_state;
	return 0;

err_state:
	if (xcma_id_transition(xid, XCMA_EV_RESOLVE_ADDR_UNDO))
		pr_debug("xcma: resolve undo refused\n");
	return ret;
}
EXPORT_SYMBOL(rdma_resolve_addr);

/**
 * xcma_resolve_cancel_route - the id is destroyed during ROUTE_QUERY
 * @xid: the id
 *
 * A completion that never ran gives its reference back here. Over IB the
 * SA query and the work item that carries its answer are cancelled
 * (sa.c); over RoCE the id's work item.
 */
void xcma_resolve_cancel_route(struct xcma_id *xid)
{
	xcma_sa_cancel_route(xid);
	cancel_resolve_work(xid);
}

/*
 * A VLAN's service level for a priority: the traffic class of the real
 * device's map if it has one, else the PCP the VLAN's egress QoS map
 * gives the priority (ip link ... egress-qos-map), as in-tree.
 */
static u8 vlan_sl(struct net_device *vlan, u32 prio)
{
	struct net_device *real = vlan_dev_real_dev(vlan);

	if (real->num_tc)
		return netdev_get_prio_tc_map(real, prio);
	return (vlan_dev_get_egress_qos_mask(vlan, prio) & VLAN_PRIO_MASK) >>
	       VLAN_PRIO_SHIFT;
}

/* what the first device below a netdev says; @sl stays -1 if none */
struct lower_sl {
	u32 prio;
	int sl;
};

static int first_lower_sl(struct net_device *lower,
			  struct netdev_nested_priv *priv)
{
	struct lower_sl *l = priv->data;

	if (IS_ENABLED(CONFIG_VLAN_8021Q) && is_vlan_dev(lower))
		l->sl = vlan_sl(lower, l->prio);
	else if (lower->num_tc)
		l->sl = netdev_get_prio_tc_map(lower, l->prio);
	else
		l->sl = 0;
	return 1; /* one level down, the first device only */
}

/*
 * The service level of a TOS on the id's netdev, as the in-tree
 * iboe_tos_to_sl() finds it: a VLAN's own (vlan_sl()); else the first
 * lower device's, if the netdev has one (a bond or macvlan over a VLAN);
 * else the netdev's priority-to-traffic-class map, or 0 without one.
 */
static u8 tos_to_sl(struct net_device *ndev, u8 tos)
{
	struct lower_sl l = { .prio = rt_tos2priority(tos), .sl = -1 };
	struct netdev_nested_priv priv = { .data = &l };

	if (IS_ENABLED(CONFIG_VLAN_8021Q) && is_vlan_dev(ndev))
		return vlan_sl(ndev, l.prio);
	rcu_read_lock();
	netdev_walk_all_lower_dev_rcu(ndev, first_lower_sl, &priv);
	rcu_read_unlock();
	if (l.sl >= 0)
		return l.sl;
	if (!ndev->num_tc)
		return 0;
	return netdev_get_prio_tc_map(ndev, l.prio);
}

static __be32 flow_label(struct xcma_id *xid)
{
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)xcma_id_src(xid);
	u32 fl = be32_to_cpu(s6->sin6_flowinfo) & IB_GRH_FLOWLABEL_MASK;
	u16 sport, dport;

	if (xcma_id_src(xid)->sa_family != AF_INET6 || !fl) {
		sport = be16_to_cpu(xcma_addr_get_port(xcma_id_src(xid)));
		dport = be16_to_cpu(xcma_addr_get_port(xcma_id_dst(xid)));
		fl = ((u32)sport * 31 + dport) & IB_GRH_FLOWLABEL_MASK;
	}
	return cpu_to_be32(fl);
}

/* The RoCE path record, from the netdev and the resolved neighbour. */
static int iboe_route(struct xcma_id *xid)
{
	struct rdma_route *route = &xid->id.route;
	struct rdma_dev_addr *da = &route->addr.dev_addr;
	const struct ib_gid_attr *attr = da->sgid_attr;
	struct sa_path_rec *path;
	struct net_device *ndev;
	struct xcma_device *dev = xcma_device_of_id(xid);
	int def_tos = dev ? xcma_defaults_tos(dev->defaults, xid->id.port_num) : 0;
	u8 tos, life;

	mutex_lock(&xid->qp_mutex);
	/* the port's default (configfs default_roce_tos) unless the user set one */
	tos = xid->tos_set ? xid->tos : max(def_tos, 0);
	life = xid->timeout_set && xid->timeout ? xid->timeout - 1 :
						  XCMA_IBOE_PACKET_LIFETIME;
	mutex_unlock(&xid->qp_mutex);

	if (!attr)
		return -ENODEV;
	ndev = dev_get_by_index(da->net, da->bound_dev_if);
	if (!ndev)
		return -ENODEV;
	path = kzalloc(sizeof(*path), GFP_KERNEL);
	if (!path) {
		dev_put(ndev);
		return -ENOMEM;
	}
	path->rec_type = sa_conv_gid_to_pathrec_type(attr->gid_type);
	path->roce.route_resolved = true;
	sa_path_set_dmac(path, da->dst_dev_addr);
	rdma_ip2gid(xcma_id_src(xid), &path->sgid);
	rdma_ip2gid(xcma_id_dst(xid), &path->dgid);
	path->hop_limit = da->hoplimit;
	path->reversible = 1;
	path->pkey = cpu_to_be16(0xffff);
	path->mtu_selector = IB_SA_EQ;
	path->sl = tos_to_sl(ndev, tos);
	path->traffic_class = tos;
	path->mtu = iboe_get_mtu(ndev->mtu);
	path->rate_selector = IB_SA_EQ;
	path->rate = IB_RATE_PORT_CURRENT;
	path->packet_life_time_selector = IB_SA_EQ;
	path->packet_life_time = life;
	dev_put(ndev);
	if (!path->mtu) {
		kfree(path);
		return -EINVAL;
	}
	if (rdma_protocol_roce_udp_encap(xid->id.device, xid->id.port_num))
		path->flow_label = flow_label(xid);

	kfree(route->path_rec);
	route->path_rec = path;
	route->num_pri_alt_paths = 1;
	return 0;
}

/**
 * rdma_resolve_route - find the path to the destination
 * @id: the id, ADDR_RESOLVED
 * @timeout_ms: not zero
 *
 * Over IB the route is an SA path record query (sa.c), whose answer
 * comes as ROUTE_RESOLVED or ROUTE_ERROR with ib_sa's status.
 *
 * Return: 0, then ROUTE_RESOLVED (or, over IB, ROUTE_ERROR) follows;
 * -EINVAL for a zero timeout or in another state; -ENOSYS on a port with
 * no transport xcma drives; -ENODEV, -ENOMEM; over IB the errno of
 * ib_sa_path_rec_get().
 */
int rdma_resolve_route(struct rdma_cm_id *id, unsigned long timeout_ms)
{
	struct xcma_id *xid = xcma_id_of(id);
	enum xcma_transport tr;
	int ret;

	if (!timeout_ms)
		return -EINVAL;
	ret = xcma_id_transition(xid, XCMA_EV_RESOLVE_ROUTE);
	if (ret)
		return ret;
	tr = xcma_transport(id->device, id->port_num);
	switch (tr) {
	case XCMA_TRANSPORT_IWARP:
		/* iWARP needs nothing more than the address: report it at once */
		ret = 0;
		break;
	case XCMA_TRANSPORT_ROCE:
		ret = xcma_neigh_prepare(xid);
		if (!ret)
			ret = iboe_route(xid);
		break;
	case XCMA_TRANSPORT_IB:
		/* the query holds the event reference; its answer delivers */
		ret = xcma_sa_resolve_route(xid, timeout_ms);
		break;
	default:
		ret = -XCMA_ENOTRANSPORT;
		break;
	}
	if (ret) {
		if (xcma_id_transition(xid, XCMA_EV_RESOLVE_ROUTE_UNDO))
			pr_debug("xcma: route undo refused\n");
		return ret;
	}
	if (tr == XCMA_TRANSPORT_IB)
		return 0;
	/*
	 * Filed before the work is queued: its callback may destroy the id
	 * by returning non-zero, after which the id is not ours to touch.
	 * RoCE only, as in-tree: an iWARP connection is TCP's to keep.
	 */
	if (tr == XCMA_TRANSPORT_ROCE)
		xcma_neigh_watch(xid);
	/* the work item's reference; cancel gives it back if it never runs */
	xcma_fsm_id_get(&xid->life.fsm);
	WRITE_ONCE(xid->work_event, XCMA_EV_ROUTE_RESOLVED);
	xcma_ops->queue_route(&xid->work);
	return 0;
}
EXPORT_SYMBOL(rdma_resolve_route);

/**
 * rdma_set_ib_path - set the route from a path record the caller found
 * @id: the id, ADDR_RESOLVED
 * @path_rec: the path (copied)
 *
 * The id is ROUTE_RESOLVED when this returns 0; no event follows (ucma
 * delivers its own). On RoCE the record gets its layer 2 fields from the
 * resolved neighbour, as a resolved route's.
 *
 * Return: 0; -EINVAL in another state; -ENOMEM; -ENODEV on RoCE when the
 * id's netdev is gone. On error the id is ADDR_RESOLVED again.
 */
int rdma_set_ib_path(struct rdma_cm_id *id, struct sa_path_rec *path_rec)
{
	struct xcma_id *xid = xcma_id_of(id);
	struct rdma_dev_addr *da = &id->route.addr.dev_addr;
	enum ib_gid_type gid_type;
	struct sa_path_rec *path;
	struct net_device *ndev;
	int ret;

	ret = xcma_id_transition(xid, XCMA_EV_SET_IB_PATH);
	if (ret)
		return ret;
	path = kmemdup(path_rec, sizeof(*path), GFP_KERNEL);
	if (!path) {
		ret = -ENOMEM;
		goto undo;
	}
	if (xcma_transport(id->device, id->port_num) == XCMA_TRANSPORT_ROCE) {
		ndev = da->bound_dev_if ?
			       dev_get_by_index(da->net, da->bound_dev_if) :
			       NULL;
		if (!ndev) {
			kfree(path);
			ret = -ENODEV;
			goto undo;
		}
		dev_put(ndev);
		gid_type = da->sgid_attr ? da->sgid_attr->gid_type :
					   ib_network_to_gid_type(da->network);
		path->rec_type = sa_conv_gid_to_pathrec_type(gid_type);
		path->roce.route_resolved = true;
		sa_path_set_dmac(path, da->dst_dev_addr);
	}
	kfree(id->route.path_rec);
	id->route.path_rec = path;
	id->route.num_pri_alt_paths = 1;
	return 0;

undo:
	if (xcma_id_transition(xid, XCMA_EV_SET_IB_PATH_UNDO))
		pr_debug("xcma: set_ib_path undo refused\n");
	return ret;
}
EXPORT_SYMBOL(rdma_set_ib_path);
