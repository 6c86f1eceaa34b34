// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * xcma_mcast: multicast on RoCE over rxe0 (eth0, 10.99.0.1).
 *
 * Joins and leaves on UD ids, the MULTICAST_JOIN event field by field
 * against what the in-tree CM computes, a datagram sent to the group and
 * received on a QP attached as a consumer attaches it, IGMP membership
 * on eth0's in_device, the in-tree errnos, and the groups' lifecycle:
 * destroy, device removal (with a join in flight) and destroy racing a
 * join.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/igmp.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/inet.h>
#include <linux/inetdevice.h>
#include <linux/kthread.h>
#include <linux/netdevice.h>
#include <linux/slab.h>
#include <net/net_namespace.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>
#include <rdma/rdma_cm_ib.h>

#include "../../cma/id.h"
#include "../../cma/mcast.h"
#include "../../cma/ops.h"
#include "../../cma/device.h"
#include "cm_util.h"
#include "xcma_kunit.h"

#define MC_SRC "10.99.0.1"
#define MC_GROUP "239.1.2.3"
#define MC_GROUP2 "239.1.2.4"
#define MC_GROUP6 "ff0e::1:2:3"
#define MC_WAIT_MS 10000
#define MC_MAX_EV 8
#define MC_MSG "xcma multicast datagram"
#define MC_GRH 40

/* what one id saw, in order */
struct mc_log {
	spinlock_t lock; /* protects everything below */
	wait_queue_head_t wq;
	int ev[MC_MAX_EV];
	int status[MC_MAX_EV];
	int n;
	/* the first MULTICAST_JOIN's fields, copied in the callback */
	struct rdma_ah_attr ah;
	union ib_gid sgid;
	int sgid_type;
	u32 qp_num, qkey;
	void *private_data;
	struct ib_ah *made_ah; /* made from it when @pd is set */
	struct ib_pd *pd;
	/* DEVICE_REMOVAL: return non-zero (destroy by return) */
	bool destroy_on_removal;
	/* MULTICAST_JOIN: leave the group from the callback */
	struct sockaddr_storage leave_in_cb;
	/* MULTICAST_JOIN: return non-zero (G3: destroy by return) */
	bool destroy_on_join;
	/* MULTICAST_JOIN: say so on @in_cb, stay @hold_ms, then @cb_done */
	struct completion in_cb;
	unsigned int hold_ms;
	bool cb_done;
};

static int mc_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct mc_log *l = id->context;
	struct ib_ah *ah = NULL;
	bool first = false;
	int ret = 0;

	if (ev->event == RDMA_CM_EVENT_MULTICAST_JOIN && l->hold_ms) {
		complete(&l->in_cb);
		msleep(l->hold_ms);
		WRITE_ONCE(l->cb_done, true);
	}
	if (ev->event == RDMA_CM_EVENT_MULTICAST_JOIN && l->pd)
		ah = rdma_create_ah(l->pd, &ev->param.ud.ah_attr,
				    RDMA_CREATE_AH_SLEEPABLE);
	if (ev->event == RDMA_CM_EVENT_MULTICAST_JOIN &&
	    l->leave_in_cb.ss_family)
		rdma_leave_multicast(id, (struct sockaddr *)&l->leave_in_cb);
	spin_lock(&l->lock);
	if (l->n < MC_MAX_EV) {
		l->ev[l->n] = ev->event;
		l->status[l->n] = ev->status;
		l->n++;
	}
	if (ev->event == RDMA_CM_EVENT_MULTICAST_JOIN && !l->qp_num) {
		first = true;
		l->ah = ev->param.ud.ah_attr;
		l->ah.grh.sgid_attr = NULL; /* not ours to keep */
		if (ev->param.ud.ah_attr.grh.sgid_attr) {
			l->sgid = ev->param.ud.ah_attr.grh.sgid_attr->gid;
			l->sgid_type =
				ev->param.ud.ah_attr.grh.sgid_attr->gid_type;
		}
		l->qp_num = ev->param.ud.qp_num;
		l->qkey = ev->param.ud.qkey;
		l->private_data = (void *)ev->param.ud.private_data;
		l->made_ah = ah;
	}
	if (ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL)
		ret = l->destroy_on_removal;
	if (ev->event == RDMA_CM_EVENT_MULTICAST_JOIN)
		ret = l->destroy_on_join;
	spin_unlock(&l->lock);
	if (ah && !first)
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	wake_up(&l->wq);
	return ret;
}

static int mc_count(struct mc_log *l, int event)
{
	int i, c = 0;

	spin_lock(&l->lock);
	for (i = 0; i < l->n; i++)
		c += l->ev[i] == event;
	spin_unlock(&l->lock);
	return c;
}

static bool mc_wait(struct mc_log *l, int event)
{
	return wait_event_timeout(l->wq, mc_count(l, event) > 0,
				  msecs_to_jiffies(MC_WAIT_MS)) > 0;
}

static struct mc_log *mc_new_log(struct kunit *test)
{
	struct mc_log *l = kunit_kzalloc(test, sizeof(*l), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, l);
	spin_lock_init(&l->lock);
	init_waitqueue_head(&l->wq);
	init_completion(&l->in_cb);
	return l;
}

/* a UD id of RDMA_PS_UDP bound to 10.99.0.1 (on rxe0) */
static struct rdma_cm_id *mc_new_id(struct kunit *test, struct mc_log *l,
				    enum ib_qp_type qpt)
{
	struct rdma_cm_id *id;
	struct sockaddr_storage src;

	id = rdma_create_id(&init_net, mc_handler, l,
			    qpt == IB_QPT_UD ? RDMA_PS_UDP : RDMA_PS_TCP, qpt);
	KUNIT_ASSERT_FALSE(test, IS_ERR(id));
	cm_addr4(&src, MC_SRC, 0);
	KUNIT_ASSERT_EQ(test, rdma_bind_addr(id, (struct sockaddr *)&src), 0);
	KUNIT_ASSERT_NOT_NULL(test, id->device);
	return id;
}

static struct sockaddr *mc_addr4(struct sockaddr_storage *ss, const char *ip)
{
	cm_addr4(ss, ip, 0);
	return (struct sockaddr *)ss;
}

/* users of @group on eth0's in_device: 0 when not a member */
static int igmp_users(const char *group)
{
	struct sockaddr_storage ss;
	struct net_device *ndev;
	struct in_device *in_dev;
	struct ip_mc_list *im;
	__be32 addr;
	int users = -1;

	cm_addr4(&ss, group, 0);
	addr = ((struct sockaddr_in *)&ss)->sin_addr.s_addr;
	ndev = dev_get_by_name(&init_net, "eth0");
	if (!ndev)
		return -1;
	rcu_read_lock();
	in_dev = __in_dev_get_rcu(ndev);
	if (in_dev) {
		users = 0;
		for (im = rcu_dereference(in_dev->mc_list); im;
		     im = rcu_dereference(im->next_rcu))
			if (im->multiaddr == addr)
				users = im->users;
	}
	rcu_read_unlock();
	dev_put(ndev);
	return users;
}

/* @id joins MC_GROUP (@g), full member, @ctx; its MULTICAST_JOIN came */
static void mc_join_wait(struct kunit *test, struct rdma_cm_id *id,
			 struct mc_log *l, struct sockaddr_storage *g, void *ctx)
{
	KUNIT_ASSERT_EQ(test, rdma_join_multicast(id, mc_addr4(g, MC_GROUP),
						  BIT(FULLMEMBER_JOIN), ctx),
			0);
	KUNIT_ASSERT_TRUE(test, mc_wait(l, RDMA_CM_EVENT_MULTICAST_JOIN));
}

static void mc_expect_no_groups(struct kunit *test)
{
	int i;

	/* a left group's queued MULTICAST_JOIN frees it shortly after */
	for (i = 0; i < 100 && xcma_mcast_live(); i++)
		msleep(20);
	KUNIT_EXPECT_EQ(test, xcma_mcast_live(), 0U);
}

/* ---- the group's GID, as cma_iboe_set_mgid() computes it ---- */

struct mgid_case {
	const char *name;
	bool v6;
	const char *ip;
	enum ib_gid_type type;
	u8 raw[16];
};

static const struct mgid_case mgid_cases[] = {
	{ "ipv4_roce_v2", false, "239.1.2.3", IB_GID_TYPE_ROCE_UDP_ENCAP,
	  { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 239, 1, 2, 3 } },
	{ "ipv4_roce_v1", false, "224.0.0.251", IB_GID_TYPE_ROCE,
	  { 0xff, 0x0e, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 224, 0, 0, 251 } },
	{ "ipv6_roce_v1", true, "ff0e::1:2:3", IB_GID_TYPE_ROCE,
	  { 0xff, 0x0e, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 2, 0, 3 } },
	{ "ipv6_roce_v2", true, "ff02::fb", IB_GID_TYPE_ROCE_UDP_ENCAP,
	  { 0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xfb } },
	{ "ipv4_any", false, "0.0.0.0", IB_GID_TYPE_ROCE, { 0 } },
	{ "ipv6_any", true, "::", IB_GID_TYPE_ROCE_UDP_ENCAP, { 0 } },
};

static void mgid_desc(const struct mgid_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(mgid, mgid_cases, mgid_desc);

static void group_gid_of_address(struct kunit *test)
{
	const struct mgid_case *c = test->param_value;
	struct sockaddr_storage ss;
	union ib_gid mgid;

	if (c->v6)
		cm_addr6(&ss, c->ip, 0);
	else
		cm_addr4(&ss, c->ip, 0);
	memset(&mgid, 0xaa, sizeof(mgid));
	xcma_mcast_mgid((struct sockaddr *)&ss, c->type, &mgid);
	KUNIT_EXPECT_MEMEQ(test, mgid.raw, c->raw, 16);
}

/* ---- join, the event, leave ---- */

static void join_ipv4_event_fields(struct kunit *test)
{
	struct mc_log *l = mc_new_log(test);
	struct rdma_cm_id *id = mc_new_id(test, l, IB_QPT_UD);
	struct sockaddr_storage g;
	union ib_gid mgid = {}, sgid = {};
	int before = igmp_users(MC_GROUP);

	KUNIT_ASSERT_EQ(test, before, 0);
	KUNIT_ASSERT_EQ(test, rdma_join_multicast(id, mc_addr4(&g, MC_GROUP),
						  BIT(FULLMEMBER_JOIN), l),
			0);
	KUNIT_EXPECT_EQ(test, igmp_users(MC_GROUP), 1);
	KUNIT_ASSERT_TRUE(test, mc_wait(l, RDMA_CM_EVENT_MULTICAST_JOIN));
	KUNIT_EXPECT_EQ(test, l->n, 1);
	KUNIT_EXPECT_EQ(test, l->status[0], 0);

	/* what cma_make_mc_event() and ib_init_ah_from_mcmember() give */
	mgid.raw[10] = 0xff;
	mgid.raw[11] = 0xff;
	memcpy(&mgid.raw[12], &((struct sockaddr_in *)&g)->sin_addr, 4);
	sgid.raw[10] = 0xff;
	sgid.raw[11] = 0xff;
	cm_addr4(&g, MC_SRC, 0);
	memcpy(&sgid.raw[12], &((struct sockaddr_in *)&g)->sin_addr, 4);
	KUNIT_EXPECT_EQ(test, l->qp_num, 0xFFFFFFU);
	KUNIT_EXPECT_EQ(test, l->qkey, (u32)RDMA_UDP_QKEY);
	KUNIT_EXPECT_PTR_EQ(test, l->private_data, (void *)l);
	KUNIT_EXPECT_EQ(test, l->ah.type, RDMA_AH_ATTR_TYPE_ROCE);
	KUNIT_EXPECT_EQ(test, rdma_ah_get_port_num(&l->ah), 1U);
	KUNIT_EXPECT_TRUE(test, rdma_ah_get_ah_flags(&l->ah) & IB_AH_GRH);
	KUNIT_EXPECT_MEMEQ(test, l->ah.grh.dgid.raw, mgid.raw, 16);
	KUNIT_EXPECT_EQ(test, l->ah.grh.hop_limit, 64);
	KUNIT_EXPECT_EQ(test, l->ah.grh.traffic_class, 0);
	KUNIT_EXPECT_EQ(test, l->ah.grh.flow_label, 0U);
	KUNIT_EXPECT_EQ(test, rdma_ah_get_sl(&l->ah), 0);
	KUNIT_EXPECT_EQ(test, rdma_ah_get_dlid(&l->ah), 0U);
	KUNIT_EXPECT_EQ(test, rdma_ah_get_static_rate(&l->ah),
			(u8)IB_RATE_PORT_CURRENT);
	KUNIT_EXPECT_MEMEQ(test, l->sgid.raw, sgid.raw, 16);
	KUNIT_EXPECT_EQ(test, l->sgid_type, IB_GID_TYPE_ROCE_UDP_ENCAP);

	rdma_leave_multicast(id, mc_addr4(&g, MC_GROUP));
	KUNIT_EXPECT_EQ(test, igmp_users(MC_GROUP), 0);
	mc_expect_no_groups(test);
	rdma_destroy_id(id);
	KUNIT_EXPECT_EQ(test, l->n, 1);
}

static void join_ipv6_over_roce_v2_is_enotsupp(struct kunit *test)
{
	struct mc_log *l = mc_new_log(test);
	struct rdma_cm_id *id;
	struct sockaddr_storage src, g;

	id = rdma_create_id(&init_net, mc_handler, l, RDMA_PS_UDP, IB_QPT_UD);
	KUNIT_ASSERT_FALSE(test, IS_ERR(id));
	cm_addr6(&src, "fd00:99::1", 0);
	KUNIT_ASSERT_EQ(test, rdma_bind_addr(id, (struct sockaddr *)&src), 0);
	cm_addr6(&g, MC_GROUP6, 0);
	/* cma_iboe_join_multicast(): IPv6 groups need RoCE v1 */
	KUNIT_EXPECT_EQ(test, rdma_join_multicast(id, (struct sockaddr *)&g,
						  BIT(FULLMEMBER_JOIN), l),
			-524);
	KUNIT_EXPECT_EQ(test, xcma_mcast_live(), 0U);
	rdma_destroy_id(id);
	KUNIT_EXPECT_EQ(test, l->n, 0);
}

static void send_only_takes_no_igmp_membership(struct kunit *test)
{
	struct mc_log *l = mc_new_log(test);
	struct rdma_cm_id *id = mc_new_id(test, l, IB_QPT_UD);
	struct sockaddr_storage g;

	KUNIT_ASSERT_EQ(test, rdma_join_multicast(id, mc_addr4(&g, MC_GROUP),
						  BIT(SENDONLY_FULLMEMBER_JOIN),
						  l),
			0);
	KUNIT_EXPECT_TRUE(test, mc_wait(l, RDMA_CM_EVENT_MULTICAST_JOIN));
	KUNIT_EXPECT_EQ(test, igmp_users(MC_GROUP), 0);
	rdma_leave_multicast(id, mc_addr4(&g, MC_GROUP));
	KUNIT_EXPECT_EQ(test, igmp_users(MC_GROUP), 0);
	rdma_destroy_id(id);
	mc_expect_no_groups(test);
}

static void leave_twice_and_unknown_address_do_nothing(struct kunit *test)
{
	struct mc_log *l = mc_new_log(test);
	struct rdma_cm_id *id = mc_new_id(test, l, IB_QPT_UD);
	struct sockaddr_storage g;

	/* two joins of one group count twice, as in-tree */
	KUNIT_ASSERT_EQ(test, rdma_join_multicast(id, mc_addr4(&g, MC_GROUP),
						  BIT(FULLMEMBER_JOIN), l),
			0);
	KUNIT_ASSERT_EQ(test, rdma_join_multicast(id, mc_addr4(&g, MC_GROUP),
						  BIT(FULLMEMBER_JOIN), l),
			0);
	KUNIT_EXPECT_EQ(test, igmp_users(MC_GROUP), 2);
	rdma_leave_multicast(id, mc_addr4(&g, MC_GROUP2));
	KUNIT_EXPECT_EQ(test, igmp_users(MC_GROUP), 2);
	KUNIT_EXPECT_EQ(test, xcma_mcast_live(), 2U);
	rdma_leave_multicast(id, mc_addr4(&g, MC_GROUP));
	KUNIT_EXPECT_EQ(test, igmp_users(MC_GROUP), 1);
	rdma_leave_multicast(id, mc_addr4(&g, MC_GROUP));
	KUNIT_EXPECT_EQ(test, igmp_users(MC_GROUP), 0);
	rdma_leave_multicast(id, mc_addr4(&g, MC_GROUP));
	KUNIT_EXPECT_EQ(test, igmp_users(MC_GROUP), 0);
	mc_expect_no_groups(test);
	rdma_destroy_id(id);
}

static void join_refused_with_the_in_tree_errno(struct kunit *test)
{
	struct mc_log *l = mc_new_log(test);
	struct rdma_cm_id *idle, *rc, *ud;
	struct sockaddr_storage g;

	/* IDLE: no device */
	idle = rdma_create_id(&init_net, mc_handler, l, RDMA_PS_UDP,
			      IB_QPT_UD);
	KUNIT_ASSERT_FALSE(test, IS_ERR(idle));
	KUNIT_EXPECT_EQ(test, rdma_join_multicast(idle, mc_addr4(&g, MC_GROUP),
						  BIT(FULLMEMBER_JOIN), l),
			-EINVAL);
	rdma_destroy_id(idle);

	/* not UD */
	rc = mc_new_id(test, l, IB_QPT_RC);
	KUNIT_EXPECT_EQ(test, rdma_join_multicast(rc, mc_addr4(&g, MC_GROUP),
						  BIT(FULLMEMBER_JOIN), l),
			-EINVAL);
	rdma_destroy_id(rc);

	ud = mc_new_id(test, l, IB_QPT_UD);
	/* the zero network, and a family that is not IP */
	KUNIT_EXPECT_EQ(test, rdma_join_multicast(ud, mc_addr4(&g, "0.0.0.0"),
						  BIT(FULLMEMBER_JOIN), l),
			-EINVAL);
	g.ss_family = AF_UNSPEC;
	KUNIT_EXPECT_EQ(test, rdma_join_multicast(ud, (struct sockaddr *)&g,
						  BIT(FULLMEMBER_JOIN), l),
			-EINVAL);
	/* LISTEN is neither ADDR_BOUND nor ADDR_RESOLVED */
	KUNIT_ASSERT_EQ(test, rdma_listen(ud, 1), 0);
	KUNIT_EXPECT_EQ(test, rdma_join_multicast(ud, mc_addr4(&g, MC_GROUP),
						  BIT(FULLMEMBER_JOIN), l),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, igmp_users(MC_GROUP), 0);
	KUNIT_EXPECT_EQ(test, xcma_mcast_live(), 0U);
	rdma_destroy_id(ud);
	KUNIT_EXPECT_EQ(test, l->n, 0);
}

static int no_mc_ah(struct ib_device *dev, u32 port,
		    struct ib_sa_mcmember_rec *rec, struct net_device *ndev,
		    enum ib_gid_type type, struct rdma_ah_attr *ah)
{
	return -EINVAL;
}

/* cma_make_mc_event(): no address handle, MULTICAST_ERROR (status 0) */
static void join_without_address_handle_is_multicast_error(struct kunit *test)
{
	struct mc_log *l = mc_new_log(test);
	struct rdma_cm_id *id = mc_new_id(test, l, IB_QPT_UD);
	struct xcma_ops fake = xcma_kernel_ops;
	const struct xcma_ops *old;
	struct sockaddr_storage g;

	fake.init_mc_ah = no_mc_ah;
	old = xcma_ops_set(&fake);
	KUNIT_EXPECT_EQ(test, rdma_join_multicast(id, mc_addr4(&g, MC_GROUP),
						  BIT(FULLMEMBER_JOIN), l),
			0);
	KUNIT_EXPECT_TRUE(test, mc_wait(l, RDMA_CM_EVENT_MULTICAST_ERROR));
	xcma_ops_set(old);
	KUNIT_EXPECT_EQ(test, l->n, 1);
	KUNIT_EXPECT_EQ(test, l->status[0], 0);
	KUNIT_EXPECT_EQ(test, mc_count(l, RDMA_CM_EVENT_MULTICAST_JOIN), 0);
	/* still joined: the membership goes with the leave */
	KUNIT_EXPECT_EQ(test, igmp_users(MC_GROUP), 1);
	rdma_leave_multicast(id, mc_addr4(&g, MC_GROUP));
	KUNIT_EXPECT_EQ(test, igmp_users(MC_GROUP), 0);
	rdma_destroy_id(id);
	mc_expect_no_groups(test);
}

/* ---- a datagram to the group ---- */

static int post_recv(struct ib_qp *qp, struct ib_pd *pd, u64 dma, u32 len)
{
	struct ib_sge sge = { .addr = dma, .length = len,
			      .lkey = pd->local_dma_lkey };
	struct ib_recv_wr wr = { .sg_list = &sge, .num_sge = 1 };

	return ib_post_recv(qp, &wr, NULL);
}

static int ud_to_rts(struct ib_qp *qp)
{
	struct ib_qp_attr a = { .qp_state = IB_QPS_INIT, .port_num = 1,
				.pkey_index = 0, .qkey = RDMA_UDP_QKEY };
	int ret;

	ret = ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_PKEY_INDEX |
				   IB_QP_PORT | IB_QP_QKEY);
	if (ret)
		return ret;
	a.qp_state = IB_QPS_RTR;
	ret = ib_modify_qp(qp, &a, IB_QP_STATE);
	if (ret)
		return ret;
	a.qp_state = IB_QPS_RTS;
	a.sq_psn = 0;
	return ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_SQ_PSN);
}

static int poll_one(struct ib_cq *cq, struct ib_wc *wc)
{
	int i, n;

	for (i = 0; i < 250; i++) {
		n = ib_poll_cq(cq, 1, wc);
		if (n)
			return n;
		msleep(20);
	}
	return 0;
}

static void datagram_to_the_group_reaches_the_joined_qp(struct kunit *test)
{
	struct mc_log *l = mc_new_log(test);
	struct rdma_cm_id *id = mc_new_id(test, l, IB_QPT_UD);
	struct ib_device *dev = id->device;
	struct ib_qp_init_attr qa = {
		.cap = { .max_send_wr = 2, .max_recv_wr = 2,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.sq_sig_type = IB_SIGNAL_ALL_WR,
		.qp_type = IB_QPT_UD,
	};
	struct ib_qp *rx = NULL, *tx = NULL;
	struct ib_cq *cq;
	struct ib_pd *pd;
	struct sockaddr_storage g;
	char *buf;
	u64 dma;
	struct ib_sge sge;
	struct ib_ud_wr wr = {};
	struct ib_wc wc;
	const size_t len = MC_GRH + sizeof(MC_MSG);

	pd = ib_alloc_pd(dev, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(pd));
	cq = ib_alloc_cq(dev, NULL, 8, 0, IB_POLL_DIRECT);
	KUNIT_ASSERT_FALSE(test, IS_ERR(cq));
	buf = kzalloc(2 * len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	dma = ib_dma_map_single(dev, buf, 2 * len, DMA_BIDIRECTIONAL);
	KUNIT_ASSERT_FALSE(test, ib_dma_mapping_error(dev, dma));
	qa.send_cq = cq;
	qa.recv_cq = cq;
	/* the consumer's own QPs (the CM makes none for a multicast id) */
	rx = ib_create_qp(pd, &qa);
	KUNIT_ASSERT_FALSE(test, IS_ERR(rx));
	tx = ib_create_qp(pd, &qa);
	KUNIT_ASSERT_FALSE(test, IS_ERR(tx));
	KUNIT_ASSERT_EQ(test, ud_to_rts(rx), 0);
	KUNIT_ASSERT_EQ(test, ud_to_rts(tx), 0);

	l->pd = pd;
	mc_join_wait(test, id, l, &g, l);
	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(l->made_ah));
	KUNIT_ASSERT_EQ(test, ib_attach_mcast(rx, &l->ah.grh.dgid, 0), 0);
	KUNIT_ASSERT_EQ(test, post_recv(rx, pd, dma + len, len), 0);

	strscpy(buf, MC_MSG, len);
	ib_dma_sync_single_for_device(dev, dma, 2 * len, DMA_BIDIRECTIONAL);
	sge = (struct ib_sge){ .addr = dma, .length = sizeof(MC_MSG),
			       .lkey = pd->local_dma_lkey };
	wr.wr.sg_list = &sge;
	wr.wr.num_sge = 1;
	wr.wr.opcode = IB_WR_SEND;
	wr.wr.send_flags = IB_SEND_SIGNALED;
	wr.ah = l->made_ah;
	wr.remote_qpn = l->qp_num;
	wr.remote_qkey = l->qkey;
	KUNIT_ASSERT_EQ(test, ib_post_send(tx, &wr.wr, NULL), 0);

	/* the send's completion and the datagram's, in either order */
	KUNIT_EXPECT_EQ(test, poll_one(cq, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	if (wc.opcode == IB_WC_SEND) {
		KUNIT_EXPECT_EQ(test, poll_one(cq, &wc), 1);
		KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	}
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RECV);
	KUNIT_EXPECT_PTR_EQ(test, wc.qp, rx);
	KUNIT_EXPECT_EQ(test, wc.byte_len, (u32)len);
	ib_dma_sync_single_for_cpu(dev, dma, 2 * len, DMA_BIDIRECTIONAL);
	KUNIT_EXPECT_STREQ(test, buf + len + MC_GRH, MC_MSG);

	KUNIT_EXPECT_EQ(test, ib_detach_mcast(rx, &l->ah.grh.dgid, 0), 0);
	rdma_leave_multicast(id, mc_addr4(&g, MC_GROUP));
	KUNIT_EXPECT_EQ(test, igmp_users(MC_GROUP), 0);
	rdma_destroy_ah(l->made_ah, RDMA_DESTROY_AH_SLEEPABLE);
	ib_destroy_qp(tx);
	ib_destroy_qp(rx);
	ib_dma_unmap_single(dev, dma, 2 * len, DMA_BIDIRECTIONAL);
	kfree(buf);
	ib_free_cq(cq);
	ib_dealloc_pd(pd);
	rdma_destroy_id(id);
	mc_expect_no_groups(test);
}

/* ---- lifecycle ---- */

static void destroy_leaves_every_group(struct kunit *test)
{
	struct mc_log *l = mc_new_log(test);
	struct rdma_cm_id *id = mc_new_id(test, l, IB_QPT_UD);
	struct sockaddr_storage g;

	KUNIT_ASSERT_EQ(test, rdma_join_multicast(id, mc_addr4(&g, MC_GROUP),
						  BIT(FULLMEMBER_JOIN), l),
			0);
	KUNIT_ASSERT_EQ(test, rdma_join_multicast(id, mc_addr4(&g, MC_GROUP2),
						  BIT(FULLMEMBER_JOIN), l),
			0);
	KUNIT_EXPECT_EQ(test, igmp_users(MC_GROUP), 1);
	KUNIT_EXPECT_EQ(test, igmp_users(MC_GROUP2), 1);
	rdma_destroy_id(id);
	KUNIT_EXPECT_EQ(test, igmp_users(MC_GROUP), 0);
	KUNIT_EXPECT_EQ(test, igmp_users(MC_GROUP2), 0);
	mc_expect_no_groups(test);
}

/* a leave from the group's own MULTICAST_JOIN: no deadlock, left once */
static void leave_from_the_join_callback(struct kunit *test)
{
	struct mc_log *l = mc_new_log(test);
	struct rdma_cm_id *id = mc_new_id(test, l, IB_QPT_UD);
	struct sockaddr_storage g;

	cm_addr4(&l->leave_in_cb, MC_GROUP, 0);
	mc_join_wait(test, id, l, &g, l);
	KUNIT_EXPECT_EQ(test, igmp_users(MC_GROUP), 0);
	mc_expect_no_groups(test);
	rdma_destroy_id(id);
	KUNIT_EXPECT_EQ(test, l->n, 1);
}

/*
 * rdma_leave_multicast() while the group's MULTICAST_JOIN is in the
 * user's callback in another task returns after the callback, as in-tree
 * (destroy_mc() cancels the join's work synchronously): rdma_ucm frees
 * the group's context, its struct ucma_multicast, right after the leave,
 * and its callback reads it (issue 26, bug 1).
 */
static void leave_waits_for_the_join_callback(struct kunit *test)
{
	struct mc_log *l = mc_new_log(test);
	struct rdma_cm_id *id = mc_new_id(test, l, IB_QPT_UD);
	struct sockaddr_storage g;
	bool done;

	l->hold_ms = 300;
	KUNIT_ASSERT_EQ(test, rdma_join_multicast(id, mc_addr4(&g, MC_GROUP),
						  BIT(FULLMEMBER_JOIN), l),
			0);
	KUNIT_ASSERT_TRUE(test,
			  wait_for_completion_timeout(&l->in_cb,
						      msecs_to_jiffies(MC_WAIT_MS)));
	rdma_leave_multicast(id, mc_addr4(&g, MC_GROUP));
	done = READ_ONCE(l->cb_done);
	KUNIT_EXPECT_TRUE_MSG(test, done,
			      "the leave returned during the group's callback");
	KUNIT_EXPECT_EQ(test, igmp_users(MC_GROUP), 0);
	rdma_destroy_id(id);
	KUNIT_EXPECT_EQ(test, l->n, 1);
	mc_expect_no_groups(test);
}

/*
 * A MULTICAST_JOIN callback that returns non-zero destroys its id (G3, as
 * rdma_cm.h documents for every callback): the group is left, nothing
 * more is delivered. Kept on purpose where the in-tree CM differs: its
 * multicast handlers WARN_ON(ret) and keep the id. No in-tree consumer
 * returns non-zero there (rdma_ucm returns 0).
 */
static void join_callback_return_destroys_the_id(struct kunit *test)
{
	struct mc_log *l = mc_new_log(test);
	unsigned int base = xcma_id_live();
	struct rdma_cm_id *id = mc_new_id(test, l, IB_QPT_UD);
	struct sockaddr_storage g;
	int i;

	l->destroy_on_join = true;
	mc_join_wait(test, id, l, &g, l);
	for (i = 0; i < 100 && xcma_id_live() != base; i++)
		msleep(20);
	KUNIT_EXPECT_EQ_MSG(test, xcma_id_live(), base,
			    "the id outlived its callback's return");
	KUNIT_EXPECT_EQ(test, igmp_users(MC_GROUP), 0);
	mc_expect_no_groups(test);
	KUNIT_EXPECT_EQ(test, l->n, 1);
}

/*
 * One address joined twice, as rdma_ucm lets a process do (badinput's
 * "join the same group again"): the leave takes the newest join, as the
 * in-tree mc_list does, and so waits for that join's callback. rdma_ucm
 * leaves by address and then frees the context of the join librdmacm
 * left, its newest: a leave that took the older join returned while the
 * newer one's MULTICAST_JOIN was being delivered with the context being
 * freed (KASAN: slab-use-after-free in ucma_create_uevent from join_work,
 * the freed struct ucma_multicast from ucma_leave_multicast, in a
 * fresh-clone make check's user/kunit-xcma-misuse).
 */
static void leave_of_a_group_joined_twice_takes_the_newest(struct kunit *test)
{
	struct mc_log *l = mc_new_log(test);
	struct rdma_cm_id *id = mc_new_id(test, l, IB_QPT_UD);
	struct sockaddr_storage g;
	static int older, newer;
	bool done;
	int i;

	mc_join_wait(test, id, l, &g, &older);
	KUNIT_EXPECT_PTR_EQ(test, l->private_data, (void *)&older);
	/* the second join's callback stays 300 ms */
	l->hold_ms = 300;
	KUNIT_ASSERT_EQ(test, rdma_join_multicast(id, mc_addr4(&g, MC_GROUP),
						  BIT(FULLMEMBER_JOIN), &newer),
			0);
	KUNIT_ASSERT_TRUE(test,
			  wait_for_completion_timeout(&l->in_cb,
						      msecs_to_jiffies(MC_WAIT_MS)));
	rdma_leave_multicast(id, mc_addr4(&g, MC_GROUP));
	done = READ_ONCE(l->cb_done);
	KUNIT_EXPECT_TRUE_MSG(test, done,
			      "the leave returned during the newest join's callback: it took the older join");
	KUNIT_EXPECT_EQ(test, mc_count(l, RDMA_CM_EVENT_MULTICAST_JOIN), 2);
	/*
	 * the older join is still there: the second leave takes it (the
	 * newer one's work item drops its group's last reference after its
	 * callback, which the leave waited for, so the count falls shortly
	 * after)
	 */
	for (i = 0; i < 100 && xcma_mcast_live() > 1; i++)
		msleep(20);
	KUNIT_EXPECT_EQ(test, xcma_mcast_live(), 1);
	rdma_leave_multicast(id, mc_addr4(&g, MC_GROUP));
	KUNIT_EXPECT_EQ(test, igmp_users(MC_GROUP), 0);
	rdma_destroy_id(id);
	mc_expect_no_groups(test);
}

/*
 * Join, then destroy at once, many times, with the MULTICAST_JOIN held
 * back: the test holds the id's handler lock over the join (and, every
 * other round, a leave), so the work waits in the table's enter while the
 * destroy follows the unlock. A left group's MULTICAST_JOIN is never
 * delivered; none is delivered after rdma_destroy_id() returned; every
 * group goes exactly once (no membership, no group left).
 */
static void join_racing_destroy(struct kunit *test)
{
	struct sockaddr_storage g;
	int i, late = 0, after_leave = 0, delivered = 0;

	for (i = 0; i < 50; i++) {
		struct mc_log *l = mc_new_log(test);
		struct rdma_cm_id *id = mc_new_id(test, l, IB_QPT_UD);
		int n;

		rdma_lock_handler(id);
		KUNIT_ASSERT_EQ(test,
				rdma_join_multicast(id, mc_addr4(&g, MC_GROUP),
						    BIT(FULLMEMBER_JOIN), l),
				0);
		if (i & 1)
			rdma_leave_multicast(id, mc_addr4(&g, MC_GROUP));
		if (i & 2)
			usleep_range(100, 200);
		rdma_unlock_handler(id);
		rdma_destroy_id(id);
		n = mc_count(l, RDMA_CM_EVENT_MULTICAST_JOIN);
		if (i & 1)
			after_leave += n;
		else
			delivered += n;
		msleep(20);
		late += mc_count(l, RDMA_CM_EVENT_MULTICAST_JOIN) - n;
		KUNIT_EXPECT_EQ(test, igmp_users(MC_GROUP), 0);
	}
	KUNIT_EXPECT_EQ(test, late, 0);
	KUNIT_EXPECT_EQ(test, after_leave, 0);
	mc_expect_no_groups(test);
	kunit_info(test, "%d of 25 joins not left delivered before destroy",
		   delivered);
}

struct removal_arg {
	struct kunit *test;
	struct completion done;
	int ret;
};

static int delete_rxe0(void *p)
{
	struct removal_arg *a = p;

	a->ret = cm_rxe_delete(a->test);
	complete(&a->done);
	return 0;
}

static struct removal_arg *mc_start_delete(struct kunit *test)
{
	struct removal_arg *a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	struct task_struct *t;

	KUNIT_ASSERT_NOT_NULL(test, a);
	a->test = test;
	init_completion(&a->done);
	t = kthread_run(delete_rxe0, a, "mc_delete");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	return a;
}

static void mc_end_delete(struct kunit *test, struct removal_arg *a)
{
	KUNIT_ASSERT_TRUE(test,
			  wait_for_completion_timeout(&a->done,
						      msecs_to_jiffies(30000)));
	KUNIT_EXPECT_EQ(test, a->ret, 0);
	KUNIT_EXPECT_EQ(test, igmp_users(MC_GROUP), 0);
	mc_expect_no_groups(test);
	KUNIT_EXPECT_EQ(test, cm_rxe_add(test), 0);
	cm_expect_rxe0_idle(test);
}

/* rxe0 goes away with groups joined: the id goes by its callback's return */
static void removal_with_groups_joined(struct kunit *test)
{
	struct mc_log *l = mc_new_log(test);
	struct rdma_cm_id *id = mc_new_id(test, l, IB_QPT_UD);
	struct sockaddr_storage g;
	struct removal_arg *a;

	l->destroy_on_removal = true;
	KUNIT_ASSERT_EQ(test, rdma_join_multicast(id, mc_addr4(&g, MC_GROUP),
						  BIT(FULLMEMBER_JOIN), l),
			0);
	KUNIT_ASSERT_EQ(test, rdma_join_multicast(id, mc_addr4(&g, MC_GROUP2),
						  BIT(FULLMEMBER_JOIN), l),
			0);
	KUNIT_ASSERT_TRUE(test, mc_wait(l, RDMA_CM_EVENT_MULTICAST_JOIN));
	KUNIT_EXPECT_EQ(test, igmp_users(MC_GROUP), 1);
	a = mc_start_delete(test);
	mc_end_delete(test, a);
	KUNIT_EXPECT_EQ(test, igmp_users(MC_GROUP2), 0);
	KUNIT_EXPECT_EQ(test, mc_count(l, RDMA_CM_EVENT_DEVICE_REMOVAL), 1);
	KUNIT_EXPECT_EQ(test, l->ev[l->n - 1], RDMA_CM_EVENT_DEVICE_REMOVAL);
}

/* the join's work item, held back by the test */
static struct work_struct *held_join;

static bool hold_join(struct work_struct *work)
{
	held_join = work;
	return true;
}

/*
 * A MULTICAST_JOIN still queued when rxe0 goes: the test holds the join's
 * work item until the removal waits for the id's handler lock (held by
 * the test), so DEVICE_REMOVAL is delivered first. The user leaves and
 * destroys the id later (its callback returns 0): no MULTICAST_JOIN
 * follows DEVICE_REMOVAL meanwhile.
 */
static void removal_with_a_join_in_flight(struct kunit *test)
{
	struct mc_log *l = mc_new_log(test);
	struct rdma_cm_id *id = mc_new_id(test, l, IB_QPT_UD);
	struct xcma_ops fake = xcma_kernel_ops;
	const struct xcma_ops *old;
	struct sockaddr_storage g;
	struct removal_arg *a;
	unsigned int holders;
	int i, state = -1;

	fake.queue_mc = hold_join;
	held_join = NULL;
	old = xcma_ops_set(&fake);
	KUNIT_EXPECT_EQ(test, rdma_join_multicast(id, mc_addr4(&g, MC_GROUP),
						  BIT(FULLMEMBER_JOIN), l),
			0);
	xcma_ops_set(old);
	KUNIT_ASSERT_NOT_NULL(test, held_join);

	rdma_lock_handler(id);
	a = mc_start_delete(test);
	/* removal started: REMOVING, or no longer listed */
	for (i = 0; i < 500 && state != XCMA_DEV_REMOVING; i++) {
		msleep(20);
		if (xcma_device_query("rxe0", &state, &holders))
			state = XCMA_DEV_REMOVING;
	}
	KUNIT_EXPECT_EQ(test, state, XCMA_DEV_REMOVING);
	msleep(200); /* the remover now waits for the handler lock */
	queue_work(system_unbound_wq, held_join);
	msleep(50); /* and the join's work behind it */
	rdma_unlock_handler(id);

	KUNIT_ASSERT_TRUE(test, mc_wait(l, RDMA_CM_EVENT_DEVICE_REMOVAL));
	msleep(200); /* a MULTICAST_JOIN would come now */
	KUNIT_EXPECT_EQ(test, l->n, 1);
	KUNIT_EXPECT_EQ(test, mc_count(l, RDMA_CM_EVENT_MULTICAST_JOIN), 0);
	KUNIT_EXPECT_EQ(test, igmp_users(MC_GROUP), 1);
	/* a leave after DEVICE_REMOVAL, before the destroy, still leaves */
	rdma_leave_multicast(id, mc_addr4(&g, MC_GROUP));
	KUNIT_EXPECT_EQ(test, igmp_users(MC_GROUP), 0);
	rdma_leave_multicast(id, mc_addr4(&g, MC_GROUP));
	rdma_destroy_id(id);
	mc_end_delete(test, a);
	KUNIT_EXPECT_EQ(test, l->n, 1);
}

static struct kunit_case mcast_cases[] = {
	KUNIT_CASE_PARAM(group_gid_of_address, mgid_gen_params),
	KUNIT_CASE(join_ipv4_event_fields),
	KUNIT_CASE(join_ipv6_over_roce_v2_is_enotsupp),
	KUNIT_CASE(send_only_takes_no_igmp_membership),
	KUNIT_CASE(leave_twice_and_unknown_address_do_nothing),
	KUNIT_CASE(join_refused_with_the_in_tree_errno),
	KUNIT_CASE(join_without_address_handle_is_multicast_error),
	KUNIT_CASE(datagram_to_the_group_reaches_the_joined_qp),
	KUNIT_CASE(destroy_leaves_every_group),
	KUNIT_CASE(leave_from_the_join_callback),
	KUNIT_CASE(leave_waits_for_the_join_callback),
	KUNIT_CASE(leave_of_a_group_joined_twice_takes_the_newest),
	KUNIT_CASE(join_callback_return_destroys_the_id),
	KUNIT_CASE(join_racing_destroy),
	KUNIT_CASE_SLOW(removal_with_groups_joined),
	KUNIT_CASE_SLOW(removal_with_a_join_in_flight),
	{}
};

static struct kunit_suite mcast_suite = {
	.name = "xcma_mcast",
	.init = xcma_kunit_sweep_init,
	.test_cases = mcast_cases,
};

kunit_test_suite(mcast_suite);
