// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Multicast on RoCE: rdma_join_multicast() and rdma_leave_multicast().
 *
 * A group is joined by the consumer's call: the in-tree checks, the
 * group's GID from its IP address, IPv4 membership (IGMP) on the netdev
 * for RoCE v2 full members; then the lifecycle library links it on the id
 * (xcma_fsm_id_group_add(): the table decides the state, and no group is
 * linked once the id let go of its device), and a work item delivers
 * MULTICAST_JOIN with the group's address handle attributes.
 *
 * A group leaves the id exactly once: taken by rdma_leave_multicast()
 * (xcma_fsm_id_group_take()) or dropped by the library when the id lets
 * go of its device (destroy, removal followed by destroy, an operation's
 * error path: xcma_mcast_drop()). Whoever gets it leaves the IP group and
 * drops the id's reference on it; the join work holds a reference of its
 * own, so a group left while its MULTICAST_JOIN is queued is freed by the
 * work, never under it (the in-tree CM freed it under the work once).
 */
#include <linux/atomic.h>
#include <linux/export.h>
#include <linux/igmp.h>
#include <linux/inetdevice.h>
#include <linux/kref.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <net/ipv6.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_sa.h>
#include <rdma/rdma_cm.h>
#include <rdma/rdma_cm_ib.h>

#include "id.h"
#include "mcast.h"
#include "ops.h"
#include "ud.h"

/*
 * The in-tree CM's answer to an IPv6 group over RoCE v2 is the
 * kernel-internal ENOTSUPP, 524; consumers see that number, so keep it.
 */
#define XCMA_ENOTSUPP 524

/* the QP number of a multicast destination */
#define XCMA_MC_QPN 0xFFFFFF

/**
 * struct xcma_mc - a multicast group of an id
 * @link: on the id's groups while joined (the library's, id lock)
 * @ref: one for the id's membership, one for the join work while queued
 * @xid: the id, which outlives the work (the work holds a reference on it)
 *	but not the group once the group is left (the work's then)
 * @addr: the group's IP address, as joined (constant)
 * @context: the consumer's, for the event (constant)
 * @mgid: the group's GID (constant)
 * @gid_type: the id's GID type when joined (constant)
 * @ifindex: the netdev the membership is on (constant)
 * @mtu: the netdev's MTU as an IB MTU (constant)
 * @hop_limit: for the address handle (constant)
 * @qkey: for the event (constant)
 * @igmp: IPv4 membership taken on @ifindex (constant)
 * @left: taken off the id; a queued MULTICAST_JOIN goes no further once
 *	it sees this under the id's handler mutex
 * @work: delivers MULTICAST_JOIN or MULTICAST_ERROR
 */
struct xcma_mc {
	struct xcma_fsm_link link;
	struct kref ref;
	struct xcma_id *xid;
	struct sockaddr_storage addr;
	void *context;
	union ib_gid mgid;
	enum ib_gid_type gid_type;
	int ifindex;
	enum ib_mtu mtu;
	u8 hop_limit;
	u32 qkey;
	bool igmp;
	bool left;
	struct work_struct work;
};

/* groups allocated and not freed yet (KUnit's leak checks) */
static atomic_t live_groups = ATOMIC_INIT(0);

/**
 * xcma_mcast_live - how many groups are allocated
 *
 * Return: groups joined, or left with their MULTICAST_JOIN still queued.
 */
unsigned int xcma_mcast_live(void)
{
	return atomic_read(&live_groups);
}
EXPORT_SYMBOL_NS_GPL(xcma_mcast_live, XCMA_INTERNAL);

static bool zero_addr(const struct sockaddr *addr)
{
	if (addr->sa_family == AF_INET)
		return ipv4_is_zeronet(((struct sockaddr_in *)addr)->sin_addr.s_addr);
	return ipv6_addr_any(&((struct sockaddr_in6 *)addr)->sin6_addr);
}

/**
 * xcma_mcast_mgid - the GID of the group of an IP address, as in-tree
 * @addr: AF_INET or AF_INET6
 * @type: the id's GID type
 * @mgid: the result
 *
 * IPv6 groups are their own address; IPv4 groups are IPv4-mapped for
 * RoCE v2 and in ff0e::ffff:0:0/96 for RoCE v1; the wildcard gives zero.
 */
void xcma_mcast_mgid(const struct sockaddr *addr, enum ib_gid_type type,
		     union ib_gid *mgid)
{
	const struct sockaddr_in *sin = (const struct sockaddr_in *)addr;
	bool v2 = type == IB_GID_TYPE_ROCE_UDP_ENCAP;

	memset(mgid, 0, sizeof(*mgid));
	if (zero_addr(addr))
		return;
	if (addr->sa_family == AF_INET6) {
		memcpy(mgid->raw,
		       &((const struct sockaddr_in6 *)addr)->sin6_addr,
		       sizeof(mgid->raw));
		return;
	}
	if (!v2) {
		mgid->raw[0] = 0xff;
		mgid->raw[1] = 0x0e;
	}
	mgid->raw[10] = 0xff;
	mgid->raw[11] = 0xff;
	memcpy(&mgid->raw[12], &sin->sin_addr.s_addr, 4);
}
EXPORT_SYMBOL_NS_GPL(xcma_mcast_mgid, XCMA_INTERNAL);

/* IPv4 membership of the group on the netdev; false if it has no in_dev */
static bool igmp(struct xcma_mc *mc, struct net *net, bool join)
{
	__be32 group = ((struct sockaddr_in *)&mc->addr)->sin_addr.s_addr;
	struct in_device *in_dev = NULL;
	struct net_device *ndev;

	ndev = dev_get_by_index(net, mc->ifindex);
	if (!ndev)
		return false;
	rtnl_lock();
	in_dev = __in_dev_get_rtnl(ndev);
	if (in_dev && join)
		ip_mc_inc_group(in_dev, group);
	else if (in_dev)
		ip_mc_dec_group(in_dev, group);
	rtnl_unlock();
	dev_put(ndev);
	return in_dev;
}

/* what the group needs from the id and its netdev; joins the IP group */
static int prepare(struct xcma_id *xid, struct xcma_mc *mc, u8 join_state)
{
	struct rdma_dev_addr *da = &xid->id.route.addr.dev_addr;
	struct sockaddr *addr = (struct sockaddr *)&mc->addr;
	bool send_only = join_state == BIT(SENDONLY_FULLMEMBER_JOIN);
	struct net_device *ndev;
	bool v2;

	if (zero_addr(addr))
		return -EINVAL;
	if (!da->sgid_attr)
		return -ENODEV;
	mc->gid_type = da->sgid_attr->gid_type;
	v2 = mc->gid_type == IB_GID_TYPE_ROCE_UDP_ENCAP;
	xcma_mcast_mgid(addr, mc->gid_type, &mc->mgid);

	mc->ifindex = da->bound_dev_if;
	ndev = mc->ifindex ? dev_get_by_index(da->net, mc->ifindex) : NULL;
	if (!ndev)
		return -ENODEV;
	mc->mtu = iboe_get_mtu(ndev->mtu);
	dev_put(ndev);

	mc->hop_limit = 1;
	if (addr->sa_family == AF_INET6 && v2)
		return -XCMA_ENOTSUPP;
	if (addr->sa_family == AF_INET && v2) {
		mc->hop_limit = IPV6_DEFAULT_HOPLIMIT;
		if (!send_only) {
			if (!igmp(mc, da->net, true))
				return -ENODEV;
			mc->igmp = true;
		}
	}
	if (!mc->mtu) {
		if (mc->igmp)
			igmp(mc, da->net, false);
		return -EINVAL;
	}
	mc->qkey = xcma_ud_ps_qkey(xid->id.ps);
	return 0;
}

static void mc_free(struct kref *ref)
{
	kfree(container_of(ref, struct xcma_mc, ref));
	atomic_dec(&live_groups);
}

/* The group is off the id (leave or drop): leave the IP group, once. */
static void mc_release(struct xcma_mc *mc)
{
	WRITE_ONCE(mc->left, true);
	if (mc->igmp)
		igmp(mc, mc->xid->id.route.addr.dev_addr.net, false);
	kref_put(&mc->ref, mc_free);
}

/* the address handle attributes of the group, as in-tree builds them */
static int make_ah(struct xcma_id *xid, struct xcma_mc *mc,
		   struct rdma_ah_attr *ah)
{
	struct rdma_dev_addr *da = &xid->id.route.addr.dev_addr;
	struct ib_sa_mcmember_rec rec = {};
	struct net_device *ndev;
	int ret;

	rec.mgid = mc->mgid;
	rdma_ip2gid(xcma_id_src(xid), &rec.port_gid);
	rec.pkey = cpu_to_be16(0xffff);
	rec.mtu = mc->mtu;
	rec.rate = IB_RATE_PORT_CURRENT;
	rec.hop_limit = mc->hop_limit;
	ndev = dev_get_by_index(da->net, mc->ifindex);
	ret = xcma_ops->init_mc_ah(xid->id.device, xid->id.port_num, &rec,
				   ndev, mc->gid_type, ah);
	dev_put(ndev);
	return ret;
}

/*
 * MULTICAST_JOIN, under the table: never once the id is being destroyed
 * or got DEVICE_REMOVAL, and not for a group left meanwhile. The address
 * handle is built while the id is entered, so it holds the device's GID
 * attribute only while the device is the id's.
 */
static void join_work(struct work_struct *work)
{
	struct xcma_mc *mc = container_of(work, struct xcma_mc, work);
	struct xcma_id *xid = mc->xid;
	struct rdma_cm_event ev = {};
	bool ah = false;
	int ret;

	if (xcma_fsm_id_enter(&xid->life.fsm, XCMA_EV_MULTICAST_JOIN,
			      XCMA_FSM_PUT_REF))
		goto out;
	if (READ_ONCE(mc->left)) {
		xcma_fsm_id_leave(&xid->life.fsm, 0, XCMA_FSM_PUT_REF);
		goto out;
	}
	ev.param.ud.private_data = mc->context;
	if (make_ah(xid, mc, &ev.param.ud.ah_attr)) {
		/* both notifications have the same rows: cannot be refused */
		WARN_ON(xcma_fsm_id_fire(&xid->life.fsm,
					 XCMA_EV_MULTICAST_ERROR));
		ev.event = RDMA_CM_EVENT_MULTICAST_ERROR;
	} else {
		ah = true;
		ev.event = RDMA_CM_EVENT_MULTICAST_JOIN;
		ev.param.ud.qp_num = XCMA_MC_QPN;
		ev.param.ud.qkey = mc->qkey;
	}
	ret = xcma_id_call_user(xid, &ev);
	if (ah)
		rdma_destroy_ah_attr(&ev.param.ud.ah_attr);
	xcma_fsm_id_leave(&xid->life.fsm, ret, XCMA_FSM_PUT_REF);
out:
	kref_put(&mc->ref, mc_free);
}

/**
 * rdma_join_multicast - join a multicast group (RoCE)
 * @id: a UD id, ADDR_BOUND or ADDR_RESOLVED, on a device, without a QP of
 *	the CM's (the consumer attaches its own QP with ib_attach_mcast())
 * @addr: the group's IPv4 or IPv6 address
 * @join_state: BIT(FULLMEMBER_JOIN) or BIT(SENDONLY_FULLMEMBER_JOIN); as
 *	in-tree on RoCE, any other value joins as a full member
 * @context: returned in the event's ud.private_data
 *
 * Return: 0, then MULTICAST_JOIN (or MULTICAST_ERROR) follows from a work
 * item; -EINVAL for an id with a QP, in another state, not UD, for a
 * zero address or a family other than IPv4/IPv6; -ENOMEM; -ENODEV
 * without a netdev; 524 (ENOTSUPP) for IPv6 over RoCE v2, as in-tree;
 * errno 38 on a device that is not RoCE.
 */
int rdma_join_multicast(struct rdma_cm_id *id, struct sockaddr *addr,
			u8 join_state, void *context)
{
	struct xcma_id *xid = xcma_id_of(id);
	struct xcma_mc *mc;
	int ret;

	/* the in-tree CM WARNs here; a consumer's mistake only refuses */
	if (READ_ONCE(id->qp))
		return -EINVAL;
	if (!id->device || xcma_fsm_rule(xcma_id_state(xid),
					 XCMA_EV_JOIN_MULTICAST, NULL))
		return -EINVAL;
	if (id->qp_type != IB_QPT_UD)
		return -EINVAL;
	if (addr->sa_family != AF_INET && addr->sa_family != AF_INET6)
		return -EINVAL;

	mc = kzalloc(sizeof(*mc), GFP_KERNEL);
	if (!mc)
		return -ENOMEM;
	atomic_inc(&live_groups);
	kref_init(&mc->ref);
	mc->xid = xid;
	memcpy(&mc->addr, addr, rdma_addr_size(addr));
	mc->context = context;
	INIT_WORK(&mc->work, join_work);

	/* IB's SA MCMember joins are not in xcma yet */
	if (xcma_transport(id->device, id->port_num) != XCMA_TRANSPORT_ROCE) {
		ret = -XCMA_ENOTRANSPORT;
		goto out_free;
	}
	ret = prepare(xid, mc, join_state);
	if (ret)
		goto out_free;

	/* the work's references, before anyone else may see the group */
	kref_get(&mc->ref);
	xcma_fsm_id_get(&xid->life.fsm);
	ret = xcma_fsm_id_group_add(&xid->life.fsm, &mc->link);
	if (ret) {
		xcma_fsm_id_put(&xid->life.fsm);
		kref_put(&mc->ref, mc_free);
		mc_release(mc);
		return ret;
	}
	xcma_ops->queue_mc(&mc->work);
	return 0;

out_free:
	kref_put(&mc->ref, mc_free);
	return ret;
}
EXPORT_SYMBOL(rdma_join_multicast);

static int same_addr(struct xcma_fsm_link *link, const void *arg)
{
	struct xcma_mc *mc = container_of(link, struct xcma_mc, link);
	const struct sockaddr *addr = arg;

	return !memcmp(&mc->addr, addr, rdma_addr_size(addr));
}

/**
 * rdma_leave_multicast - leave a group joined with rdma_join_multicast()
 * @id: the id
 * @addr: the group's address, as joined
 *
 * Leaves the first group of @id with that address; nothing if there is
 * none (left before, never joined, or dropped with the id's device). A
 * MULTICAST_JOIN of the group that has not started is not delivered.
 */
void rdma_leave_multicast(struct rdma_cm_id *id, struct sockaddr *addr)
{
	struct xcma_id *xid = xcma_id_of(id);
	struct xcma_fsm_link *link;

	link = xcma_fsm_id_group_take(&xid->life.fsm, same_addr, addr);
	if (link)
		mc_release(container_of(link, struct xcma_mc, link));
}
EXPORT_SYMBOL(rdma_leave_multicast);

/**
 * xcma_mcast_drop - the library took a group off an id letting go of its
 *	device (lifecycle ops ->group_drop)
 * @life: the id
 * @group: the group's link
 */
void xcma_mcast_drop(struct xcma_life_id *life, struct xcma_fsm_link *group)
{
	mc_release(container_of(group, struct xcma_mc, link));
}
