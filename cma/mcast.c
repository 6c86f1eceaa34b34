// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Multicast on RoCE and InfiniBand: rdma_join_multicast() and
 * rdma_leave_multicast().
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
 * rdma_leave_multicast() returns only once no callback of the group runs
 * (the in-tree CM cancels or waits for the join's work, or the SA's
 * callback): a consumer frees what it passed as the group's context right
 * after the leave, as rdma_ucm does with its struct ucma_multicast. It
 * waits for a delivery already past its check of @left, unless that
 * delivery is the caller's own (a leave from the group's callback); a
 * delivery that has not reached the check is not waited for: it finds the
 * group left and delivers nothing, and it may be waiting for the handler
 * mutex of a caller inside another callback of the id.
 *
 * On InfiniBand the join is an MCMember join with the subnet
 * administrator (ib_sa_join_multicast(), xcma's SA client). ib_sa calls
 * back once with the join's answer and, after a successful one, maybe
 * once more with an error (-ENETRESET) until ib_sa_free_multicast() has
 * returned. The callback never reaches the user itself: it keeps the
 * answer on the group and queues the group's work item (with references
 * of its own on the group and the id), which delivers it under the table
 * as the RoCE join's does; so the callback takes no lock but the group's
 * spinlock, and ib_sa_free_multicast(), which waits for it, may be called
 * from anywhere but the callback, the handler mutex held or not. The
 * group's leave (take or drop, exactly once) marks it left, then frees
 * the SA membership: exactly once, after which no answer comes, and an
 * answer that came meanwhile is dropped by the work item. Answers that
 * come before the group is linked on the id wait for the link.
 */
#include <linux/atomic.h>
#include <linux/export.h>
#include <linux/igmp.h>
#include <linux/inetdevice.h>
#include <linux/kref.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <rdma/ib.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_sa.h>
#include <rdma/rdma_cm.h>
#include <rdma/rdma_cm_ib.h>
#if IS_ENABLED(CONFIG_KUNIT)
#include <kunit/static_stub.h>
#endif

#include "export.h"
#include "id.h"
#include "mcast.h"
#include "ops.h"
#include "sa.h"
#include "ud.h"

/*
 * The in-tree CM's answer to an IPv6 group over RoCE v2 is the
 * kernel-internal ENOTSUPP, 524; consumers see that number, so keep it.
 */
#define XCMA_ENOTSUPP 524

/* the QP number of a multicast destination */
#define XCMA_MC_QPN 0xFFFFFF

/* ib_sa calls back at most twice: the join's answer, then an error */
#define XCMA_MC_ANSWERS 2

/* an SA multicast MGID: ff1x:a01b::/32, taken as it is (as in-tree) */
#define XCMA_SA_MGID 0xFF10A01B
#define XCMA_SA_MGID_MASK 0xFFF0FFFF

/* what the in-tree CM asks of every MCMember join, and more for IPoIB */
#define XCMA_MC_COMP_MASK (IB_SA_MCMEMBER_REC_MGID |			\
			   IB_SA_MCMEMBER_REC_PORT_GID |		\
			   IB_SA_MCMEMBER_REC_PKEY |			\
			   IB_SA_MCMEMBER_REC_JOIN_STATE |		\
			   IB_SA_MCMEMBER_REC_QKEY |			\
			   IB_SA_MCMEMBER_REC_SL |			\
			   IB_SA_MCMEMBER_REC_FLOW_LABEL |		\
			   IB_SA_MCMEMBER_REC_TRAFFIC_CLASS)
#define XCMA_MC_COMP_MASK_IPOIB (IB_SA_MCMEMBER_REC_RATE |		\
				 IB_SA_MCMEMBER_REC_RATE_SELECTOR |	\
				 IB_SA_MCMEMBER_REC_MTU_SELECTOR |	\
				 IB_SA_MCMEMBER_REC_MTU |		\
				 IB_SA_MCMEMBER_REC_HOP_LIMIT)

/**
 * struct xcma_mc_answer - one callback of ib_sa
 * @status: its status
 * @rec: the record it handed over
 */
struct xcma_mc_answer {
	int status;
	struct ib_sa_mcmember_rec rec;
};

/**
 * struct xcma_mc - a multicast group of an id
 * @link: on the id's groups while joined (the library's, id lock)
 * @ref: one for the id's membership, one for the join work while queued,
 *	one for the IB join while it links the group
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
 *	it sees this under the id's handler mutex (written under @lock)
 * @delivering: the task in the user's callback for this group, if any
 *	(@lock); the leave waits for it on mc_wq
 * @work: delivers MULTICAST_JOIN or MULTICAST_ERROR
 * @sa_mc: IB: ib_sa's membership, freed by the leave (constant once the
 *	join returned)
 * @lock: protects @left's writes and @delivering; IB: @linked, @nans,
 *	@ntaken and @ans
 * @linked: IB: on the id's groups; answers wait for it
 * @sa_busy: IB: the work item is delivering an answer; answers wait
 * @nans: IB: answers kept so far
 * @ntaken: IB: answers taken by the work item
 * @ans: IB: the answers, in order
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
	struct task_struct *delivering;
	struct work_struct work;
	struct ib_sa_multicast *sa_mc;
	spinlock_t lock; /* see above */
	bool linked;
	bool sa_busy;
	u8 nans;
	u8 ntaken;
	struct xcma_mc_answer ans[XCMA_MC_ANSWERS];
};

/* groups allocated and not freed yet (KUnit's leak checks) */
static atomic_t live_groups = ATOMIC_INIT(0);

/* a leave waits here for a group's callback to return (rare: one queue) */
static DECLARE_WAIT_QUEUE_HEAD(mc_wq);

/**
 * xcma_mcast_live - how many groups are allocated
 *
 * Return: groups joined, or left with their MULTICAST_JOIN still queued.
 */
unsigned int xcma_mcast_live(void)
{
	return atomic_read(&live_groups);
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_mcast_live);

static bool zero_addr(const struct sockaddr *addr)
{
	if (addr->sa_family == AF_INET)
		return ipv4_is_zeronet(((struct sockaddr_in *)addr)->sin_addr.s_addr);
	if (addr->sa_family == AF_IB)
		return ib_addr_any(&((struct sockaddr_ib *)addr)->sib_addr);
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
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_mcast_mgid);

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

static bool mc_idle(struct xcma_mc *mc)
{
	bool idle;

	spin_lock_irq(&mc->lock);
	idle = !mc->delivering;
	spin_unlock_irq(&mc->lock);
	return idle;
}

/*
 * The group is off the id (leave or drop): leave the IP group, once. A
 * leave (@wait) also waits for a callback of the group in progress in
 * another task; a drop needs not: the id's destroy waits for every
 * delivery's reference on the id.
 */
static void mc_release(struct xcma_mc *mc, bool wait)
{
	struct task_struct *delivering;

	/* under the lock: no work item is queued, no delivery starts after */
	spin_lock_irq(&mc->lock);
	WRITE_ONCE(mc->left, true);
	delivering = mc->delivering;
	spin_unlock_irq(&mc->lock);
	/* waits for ib_sa's callback in progress; none comes after it */
	if (mc->sa_mc)
		xcma_ops->sa_free_multicast(mc->sa_mc);
	if (wait && delivering && delivering != current)
		wait_event(mc_wq, mc_idle(mc));
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
 * Enter the id for a group's notification @fev, consuming the work's
 * reference on the id. False if the table refused it or the group was
 * left meanwhile (the id is then left again, nothing delivered); true
 * with the caller marked as the group's delivering task, which a leave
 * waits for until mc_delivered().
 */
static bool mc_enter(struct xcma_id *xid, struct xcma_mc *mc,
		     unsigned int fev)
{
	bool left;

	if (xcma_fsm_id_enter(&xid->life.fsm, fev, XCMA_FSM_PUT_REF))
		return false;
	spin_lock_irq(&mc->lock);
	left = mc->left;
	if (!left)
		mc->delivering = current;
	spin_unlock_irq(&mc->lock);
	if (left) {
		xcma_fsm_id_leave(&xid->life.fsm, 0, XCMA_FSM_PUT_REF);
		return false;
	}
	return true;
}

/* the user's callback for the group returned: a waiting leave goes on */
static void mc_delivered(struct xcma_mc *mc)
{
	spin_lock_irq(&mc->lock);
	mc->delivering = NULL;
	spin_unlock_irq(&mc->lock);
	wake_up(&mc_wq);
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

	if (!mc_enter(xid, mc, XCMA_EV_MULTICAST_JOIN))
		goto out;
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
	mc_delivered(mc);
	if (ah)
		rdma_destroy_ah_attr(&ev.param.ud.ah_attr);
	xcma_fsm_id_leave(&xid->life.fsm, ret, XCMA_FSM_PUT_REF);
out:
	kref_put(&mc->ref, mc_free);
}

/* ---- InfiniBand: MCMember joins through ib_sa ---- */

/*
 * The group's MGID on IB, as in-tree: zero for the wildcard (the SA gives
 * one), an SA MGID or an AF_IB address as it is, an IP group mapped into
 * the prefix of the port's IPoIB broadcast address (its scope and pkey),
 * with the RDMA CM signature for PS_UDP.
 */
static void ib_mgid(struct xcma_id *xid, const struct sockaddr *addr,
		    union ib_gid *mgid)
{
	const unsigned char *bcast = xid->id.route.addr.dev_addr.broadcast;
	const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)addr;
	unsigned char map[MAX_ADDR_LEN];

	if (zero_addr(addr)) {
		memset(mgid, 0, sizeof(*mgid));
		return;
	}
	if (addr->sa_family == AF_IB) {
		memcpy(mgid, &((const struct sockaddr_ib *)addr)->sib_addr,
		       sizeof(*mgid));
		return;
	}
	if (addr->sa_family == AF_INET6 &&
	    (be32_to_cpu(sin6->sin6_addr.s6_addr32[0]) & XCMA_SA_MGID_MASK) ==
	    XCMA_SA_MGID) {
		memcpy(mgid, &sin6->sin6_addr, sizeof(*mgid));
		return;
	}
	if (addr->sa_family == AF_INET6)
		ipv6_ib_mc_map(&sin6->sin6_addr, bcast, map);
	else
		ip_ib_mc_map(((const struct sockaddr_in *)addr)->sin_addr.s_addr,
			     bcast, map);
	if (xid->id.ps == RDMA_PS_UDP)
		map[7] = 0x01;
	memcpy(mgid, &map[4], sizeof(*mgid));
}

/*
 * The MCMember record and component mask of the join, as in-tree: the
 * broadcast group's record as ib_sa knows it (MTU, rate, SL, flow label,
 * traffic class, hop limit), then the group's MGID, the id's QKEY (its
 * port space's, or for IPoIB the broadcast group's, when it has none
 * yet), the source GID, the pkey and the join state as given.
 */
static int ib_prepare(struct xcma_id *xid, struct xcma_mc *mc, u8 join_state,
		      struct ib_sa_mcmember_rec *rec, ib_sa_comp_mask *mask)
{
	struct rdma_dev_addr *da = &xid->id.route.addr.dev_addr;
	u32 qkey;
	int ret;

	memset(rec, 0, sizeof(*rec));
	ib_addr_get_mgid(da, &rec->mgid);
	ret = xcma_ops->sa_get_mcmember_rec(xid->id.device, xid->id.port_num,
					    &rec->mgid, rec);
	if (ret)
		return ret;
	if (!READ_ONCE(xid->qkey)) {
		qkey = xid->id.ps == RDMA_PS_IPOIB ? be32_to_cpu(rec->qkey) :
						     xcma_ud_ps_qkey(xid->id.ps);
		if (qkey)
			xcma_ud_set_qkey(xid, qkey);
	}
	ib_mgid(xid, (struct sockaddr *)&mc->addr, &rec->mgid);
	rec->qkey = cpu_to_be32(READ_ONCE(xid->qkey));
	rdma_addr_get_sgid(da, &rec->port_gid);
	rec->pkey = cpu_to_be16(ib_addr_get_pkey(da));
	rec->join_state = join_state;
	*mask = XCMA_MC_COMP_MASK;
	if (xid->id.ps == RDMA_PS_IPOIB)
		*mask |= XCMA_MC_COMP_MASK_IPOIB;
	mc->qkey = READ_ONCE(xid->qkey);
	return 0;
}

/*
 * The work item delivers the next answer kept: with a reference on the
 * group and on the id, once the group is linked, while it is not left,
 * and not while the work item runs (it kicks again as it ends). Group
 * lock held.
 */
static void sa_kick(struct xcma_mc *mc)
{
	if (!mc->linked || READ_ONCE(mc->left) || mc->sa_busy ||
	    mc->ntaken == mc->nans)
		return;
	kref_get(&mc->ref);
	xcma_fsm_id_get(&mc->xid->life.fsm);
	if (xcma_ops->queue_mc(&mc->work))
		return;
	/* queued already, and will take this answer: never the last refs */
	xcma_fsm_id_put(&mc->xid->life.fsm);
	WARN_ON_ONCE(kref_put(&mc->ref, mc_free));
}

/*
 * ib_sa's callback: keep the answer for the work item. The group is
 * alive: its leave waits here in ib_sa_free_multicast(). Returns 0: the
 * membership is freed by the leave, never by ib_sa.
 */
static int sa_answer(int status, struct ib_sa_multicast *multicast)
{
	struct xcma_mc *mc = multicast->context;
	struct xcma_mc_answer *a;
	unsigned long flags;

	spin_lock_irqsave(&mc->lock, flags);
	/* at most two by ib_sa's rules; a further one replaces the last */
	a = &mc->ans[min_t(u8, mc->nans, XCMA_MC_ANSWERS - 1)];
	a->status = status;
	a->rec = multicast->rec;
	if (mc->nans < XCMA_MC_ANSWERS)
		mc->nans++;
	sa_kick(mc);
	spin_unlock_irqrestore(&mc->lock, flags);
	return 0;
}

/* MULTICAST_JOIN's fields from the SA's record, as cma_make_mc_event() */
static int sa_event(struct xcma_id *xid, struct xcma_mc *mc,
		    struct xcma_mc_answer *a, struct rdma_cm_event *ev)
{
	struct rdma_dev_addr *da = &xid->id.route.addr.dev_addr;
	enum ib_gid_type type = IB_GID_TYPE_IB;
	struct net_device *ndev;
	int ret;

	if (da->sgid_attr)
		type = da->sgid_attr->gid_type;
	ndev = da->bound_dev_if ? dev_get_by_index(da->net, da->bound_dev_if) :
				  NULL;
	ret = xcma_ops->init_mc_ah(xid->id.device, xid->id.port_num, &a->rec,
				   ndev, type, &ev->param.ud.ah_attr);
	dev_put(ndev);
	if (ret)
		return ret;
	ev->event = RDMA_CM_EVENT_MULTICAST_JOIN;
	ev->param.ud.qp_num = XCMA_MC_QPN;
	ev->param.ud.qkey = READ_ONCE(xid->qkey);
	return 0;
}

/*
 * One answer of ib_sa to the user, under the table: MULTICAST_ERROR with
 * its status, or MULTICAST_JOIN built from its record (MULTICAST_ERROR,
 * status 0, if no address handle can be made of it, as in-tree). The
 * record's QKEY becomes the id's; one that differs from the id's is an
 * error (-EINVAL) here, where the in-tree CM drops the answer and WARNs.
 */
static void sa_work(struct work_struct *work)
{
	struct xcma_mc *mc = container_of(work, struct xcma_mc, work);
	struct xcma_id *xid = mc->xid;
	struct rdma_cm_event ev = {};
	struct xcma_mc_answer a;
	bool have, ah = false;
	int ret;

	spin_lock_irq(&mc->lock);
	have = mc->ntaken < mc->nans;
	if (have)
		a = mc->ans[mc->ntaken++];
	mc->sa_busy = have;
	spin_unlock_irq(&mc->lock);
	if (!have) {
		xcma_fsm_id_put(&xid->life.fsm);
		goto out;
	}
	/* refused (destroying, DEVICE_REMOVAL): so would the next answer be */
	if (!mc_enter(xid, mc, a.status ? XCMA_EV_MULTICAST_ERROR :
					  XCMA_EV_MULTICAST_JOIN)) {
		spin_lock_irq(&mc->lock);
		mc->sa_busy = false;
		spin_unlock_irq(&mc->lock);
		goto out;
	}
	ev.param.ud.private_data = mc->context;
	ev.status = a.status;
	if (!a.status && xcma_ud_set_qkey(xid, be32_to_cpu(a.rec.qkey)))
		ev.status = -EINVAL;
	if (!ev.status && !sa_event(xid, mc, &a, &ev))
		ah = true;
	if (!ah) {
		/* both notifications have the same rows: cannot be refused */
		if (!a.status)
			WARN_ON(xcma_fsm_id_fire(&xid->life.fsm,
						 XCMA_EV_MULTICAST_ERROR));
		ev.event = RDMA_CM_EVENT_MULTICAST_ERROR;
	}
	ret = xcma_id_call_user(xid, &ev);
	mc_delivered(mc);
	if (ah)
		rdma_destroy_ah_attr(&ev.param.ud.ah_attr);
	xcma_fsm_id_leave(&xid->life.fsm, ret, XCMA_FSM_PUT_REF);
	/*
	 * The next answer (one that came during the callback waited for
	 * this), after the leave: a destroy by return in the leave waits for
	 * every reference on the id, and one taken for this work item queued
	 * again could not be dropped before this instance returns. The id
	 * may be gone now: sa_kick() touches it only while the group is not
	 * left, and whatever frees the id leaves its groups first, under the
	 * group's lock.
	 */
	spin_lock_irq(&mc->lock);
	mc->sa_busy = false;
	sa_kick(mc);
	spin_unlock_irq(&mc->lock);
out:
	kref_put(&mc->ref, mc_free);
}

/* the SA join of @mc; its answers wait until ib_linked() */
static int ib_join(struct xcma_id *xid, struct xcma_mc *mc, u8 join_state)
{
	struct ib_sa_mcmember_rec rec;
	struct ib_sa_multicast *sa_mc;
	ib_sa_comp_mask mask;
	int ret;

	INIT_WORK(&mc->work, sa_work);
	ret = ib_prepare(xid, mc, join_state, &rec, &mask);
	if (ret)
		return ret;
	sa_mc = xcma_ops->sa_join_multicast(xcma_sa_client(), xid->id.device,
					    xid->id.port_num, &rec, mask,
					    GFP_KERNEL, sa_answer, mc);
	if (IS_ERR(sa_mc))
		return PTR_ERR(sa_mc);
	mc->sa_mc = sa_mc;
	return 0;
}

/* on the id's groups now: the answers kept so far go to the work item */
static void ib_linked(struct xcma_mc *mc)
{
	spin_lock_irq(&mc->lock);
	mc->linked = true;
	sa_kick(mc);
	spin_unlock_irq(&mc->lock);
}

/*
 * The IB join: the SA's membership first, then the link on the id (which
 * the id's leave or drop frees, once); if the id refuses the link, the
 * group leaves at once and its answers, if any, are dropped.
 */
static int ib_join_link(struct xcma_id *xid, struct xcma_mc *mc,
			u8 join_state)
{
	int ret = ib_join(xid, mc, join_state);

	if (ret) {
		kref_put(&mc->ref, mc_free);
		return ret;
	}
	/* a leave may take the group once it is on the id: hold it here */
	kref_get(&mc->ref);
	ret = xcma_fsm_id_group_add(&xid->life.fsm, &mc->link);
	if (ret) {
		kref_put(&mc->ref, mc_free);
		mc_release(mc, false);
		return ret;
	}
	xcma_mcast_published(&xid->id, (struct sockaddr *)&mc->addr);
	ib_linked(mc);
	kref_put(&mc->ref, mc_free);
	return 0;
}

/**
 * rdma_join_multicast - join a multicast group (RoCE, InfiniBand)
 * @id: a UD id, ADDR_BOUND or ADDR_RESOLVED, on a device, without a QP of
 *	the CM's (the consumer attaches its own QP with ib_attach_mcast())
 * @addr: the group's IPv4 or IPv6 address, or on IB its AF_IB MGID
 * @join_state: BIT(FULLMEMBER_JOIN) or BIT(SENDONLY_FULLMEMBER_JOIN); as
 *	in-tree on RoCE, any other value joins as a full member; on IB the
 *	MCMember record's JoinState, as given
 * @context: returned in the event's ud.private_data
 *
 * Return: 0, then MULTICAST_JOIN (or MULTICAST_ERROR) follows from a work
 * item; -EINVAL for an id with a QP, in another state, not UD, for a
 * zero address (RoCE) or a family other than IPv4/IPv6 (and AF_IB on
 * IB); -ENOMEM; -ENODEV without a netdev; 524 (ENOTSUPP) for IPv6 over
 * RoCE v2, as in-tree; on IB, ib_sa's errno (-EADDRNOTAVAIL when it does
 * not know the port's broadcast group, -ENODEV, -ENOMEM); errno 38 on a
 * device that is neither RoCE nor IB.
 */
int rdma_join_multicast(struct rdma_cm_id *id, struct sockaddr *addr,
			u8 join_state, void *context)
{
	struct xcma_id *xid = xcma_id_of(id);
	enum xcma_transport transport;
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
	transport = xcma_transport(id->device, id->port_num);
	if (addr->sa_family != AF_INET && addr->sa_family != AF_INET6 &&
	    (addr->sa_family != AF_IB || transport != XCMA_TRANSPORT_IB))
		return -EINVAL;

	mc = kzalloc(sizeof(*mc), GFP_KERNEL);
	if (!mc)
		return -ENOMEM;
	atomic_inc(&live_groups);
	kref_init(&mc->ref);
	mc->xid = xid;
	memcpy(&mc->addr, addr, rdma_addr_size(addr));
	mc->context = context;
	spin_lock_init(&mc->lock);
	INIT_WORK(&mc->work, join_work);

	if (transport == XCMA_TRANSPORT_IB)
		return ib_join_link(xid, mc, join_state);
	if (transport != XCMA_TRANSPORT_ROCE) {
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
		mc_release(mc, false);
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
 * MULTICAST_JOIN of the group that has not started is not delivered; one
 * in the user's callback in another task is waited for, so that what
 * the consumer gave as the group's context may be freed on return.
 */
void rdma_leave_multicast(struct rdma_cm_id *id, struct sockaddr *addr)
{
	struct xcma_id *xid = xcma_id_of(id);
	struct xcma_fsm_link *link;

	link = xcma_fsm_id_group_take(&xid->life.fsm, same_addr, addr);
	if (link)
		mc_release(container_of(link, struct xcma_mc, link), true);
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
	mc_release(container_of(group, struct xcma_mc, link), false);
}

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * xcma_mcast_published - an IB join's group is on its id, not linked yet
 * @id: the id
 * @addr: the group's address
 *
 * Test kernels only: a KUnit case stops the join here (a static stub) to
 * leave the group from another task in this window.
 */
void xcma_mcast_published(struct rdma_cm_id *id, const struct sockaddr *addr)
{
	KUNIT_STATIC_STUB_REDIRECT(xcma_mcast_published, id, addr);
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_mcast_published);
#endif
