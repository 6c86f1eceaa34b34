// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * xcma_ibmc: multicast on InfiniBand, MCMember joins against an emulated
 * subnet administrator. As in xcma_ib, port 1 of rxe0 is declared
 * InfiniBand through the ops layer (port_transport) once the id is bound
 * over Soft-RoCE, and the id's hardware broadcast address is set to an
 * IPoIB one (scope 2, pkey 0x8001), as rdma_copy_src_l2_addr() leaves it
 * on an IPoIB netdev. ib_sa's multicast calls are emulated behind
 * sa_get_mcmember_rec, sa_join_multicast and sa_free_multicast, with
 * ib_sa's rules: a free waits for a callback in progress and no callback
 * comes after it; an answer still held when the membership is freed is
 * given from inside the free (a late answer, which must be dropped).
 *
 * Each expectation is what the in-tree CM of 6.12 computes for the same
 * input; the function of drivers/infiniband/core/cma.c (or multicast.c)
 * it comes from is named at each check.
 */
#include <kunit/static_stub.h>
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/if_arp.h>
#include <linux/if_infiniband.h>
#include <linux/inet.h>
#include <linux/kthread.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <net/net_namespace.h>
#include <rdma/ib.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_sa.h>
#include <rdma/rdma_cm.h>
#include <rdma/rdma_cm_ib.h>

#include "../../cma/id.h"
#include "../../cma/mcast.h"
#include "../../cma/ops.h"
#include "../../cma/device.h"
#include "cm_util.h"
#include "xcma_kunit.h"

#define IBMC_SRC "10.99.0.1"
#define IBMC_WAIT_MS 10000
#define IBMC_MAX_EV 8
#define EMC_MAX 8

/* the SA's MLID, SL, rate... of the group it answers with */
#define EMC_MLID 0xc012
#define EMC_SL 6
#define EMC_RATE IB_RATE_40_GBPS
#define EMC_FLOW 0x54321
#define EMC_HOPS 3
#define EMC_TCLASS 0x48
#define EMC_MTU IB_MTU_4096
/* the IPoIB broadcast group's QKEY, as an SM sets it */
#define EMC_BCAST_QKEY 0x0000b1b0

/* 00ffffff ff12401b 80010000 00000000 ffffffff: IPoIB, scope 2, 0x8001 */
static const u8 ipoib_bcast[INFINIBAND_ALEN] = {
	0x00, 0xff, 0xff, 0xff, 0xff, 0x12, 0x40, 0x1b, 0x80, 0x01,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff,
};

enum emc_mode {
	EMC_ANSWER,	/* the record, soon */
	EMC_ERROR,	/* the status below, soon */
	EMC_HOLD,	/* nothing until freed (then a late record) or told */
	EMC_JOIN_FAILS,	/* sa_join_multicast() itself: -ENOMEM */
	EMC_NO_BCAST,	/* ib_sa knows no broadcast group: -EADDRNOTAVAIL */
};

/**
 * struct emc_member - one membership, as ib_sa's struct mcast_member
 * @mc: what ib_sa hands back and to the callback
 * @cb_lock: held over a callback; the free waits for it
 * @answer: gives the answer
 * @used: handed out
 * @held: its answer not given yet (EMC_HOLD)
 * @freed: ib_sa_free_multicast() returned for it
 * @frees: how often it was freed
 */
struct emc_member {
	struct ib_sa_multicast mc;
	struct mutex cb_lock; /* see above */
	struct delayed_work answer;
	bool used, held, freed;
	int frees;
};

/**
 * struct emc - the emulated SA's multicast side
 * @lock: protects the counters and the members' flags
 * @mode: how the next join is answered
 * @status: of EMC_ERROR's answer
 * @bcast: the broadcast group's record (ib_sa_get_mcmember_rec())
 * @ans: the record of an answer (its MGID, port GID, join state: the
 *	request's)
 * @asked_mgid: the MGID ib_sa_get_mcmember_rec() was asked for
 * @get_recs: its calls
 * @req: the last join's record
 * @mask: its component mask
 * @client: its SA client
 * @dev: its device
 * @port: its port
 * @joins: memberships handed out
 * @failed_joins: joins refused
 * @frees: first frees
 * @double_frees: further frees of a member
 * @callbacks: answers given
 * @late: answers given from inside a free
 * @after_free: answers wanted after the free (never given)
 * @ah_rec: the record init_mc_ah was handed last
 * @ah_calls: its calls
 * @m: the members
 */
struct emc {
	spinlock_t lock; /* see above */
	enum emc_mode mode;
	int status;
	struct ib_sa_mcmember_rec bcast, ans;
	union ib_gid asked_mgid;
	int get_recs;
	struct ib_sa_mcmember_rec req;
	ib_sa_comp_mask mask;
	struct ib_sa_client *client;
	struct ib_device *dev;
	u32 port;
	int joins, failed_joins, frees, double_frees;
	int callbacks, late, after_free;
	struct ib_sa_mcmember_rec ah_rec;
	int ah_calls;
	struct emc_member m[EMC_MAX];
};

static struct emc emc;

/* one callback, as ib_sa makes it: never after the free returned */
static void emc_call(struct emc_member *m, int status, bool late)
{
	mutex_lock(&m->cb_lock);
	spin_lock(&emc.lock);
	if (m->freed) {
		emc.after_free++;
		spin_unlock(&emc.lock);
		mutex_unlock(&m->cb_lock);
		return;
	}
	m->held = false;
	emc.callbacks++;
	emc.late += late;
	spin_unlock(&emc.lock);
	if (!status) {
		union ib_gid mgid = m->mc.rec.mgid;
		union ib_gid port_gid = m->mc.rec.port_gid;
		u8 join_state = m->mc.rec.join_state;

		/* the group's record; the SA gives the wildcard an MGID */
		m->mc.rec = emc.ans;
		if (!ib_addr_any((struct ib_addr *)&mgid))
			m->mc.rec.mgid = mgid;
		m->mc.rec.port_gid = port_gid;
		m->mc.rec.join_state = join_state;
	}
	m->mc.callback(status, &m->mc);
	mutex_unlock(&m->cb_lock);
}

static void emc_answer(struct work_struct *work)
{
	struct emc_member *m = container_of(to_delayed_work(work),
					    struct emc_member, answer);

	emc_call(m, emc.mode == EMC_ERROR ? emc.status : 0, false);
}

static int emc_get_rec(struct ib_device *dev, u32 port, union ib_gid *mgid,
		       struct ib_sa_mcmember_rec *rec)
{
	spin_lock(&emc.lock);
	emc.get_recs++;
	emc.asked_mgid = *mgid;
	spin_unlock(&emc.lock);
	if (emc.mode == EMC_NO_BCAST)
		return -EADDRNOTAVAIL;
	*rec = emc.bcast;
	return 0;
}

static struct ib_sa_multicast *
emc_join(struct ib_sa_client *client, struct ib_device *dev, u32 port,
	 struct ib_sa_mcmember_rec *rec, ib_sa_comp_mask mask, gfp_t gfp,
	 xcma_sa_mc_cb cb, void *context)
{
	struct emc_member *m = NULL;
	int i;

	spin_lock(&emc.lock);
	emc.req = *rec;
	emc.mask = mask;
	emc.client = client;
	emc.dev = dev;
	emc.port = port;
	for (i = 0; i < EMC_MAX && !m; i++)
		if (!emc.m[i].used)
			m = &emc.m[i];
	if (emc.mode == EMC_JOIN_FAILS || !m) {
		emc.failed_joins++;
		spin_unlock(&emc.lock);
		return ERR_PTR(-ENOMEM);
	}
	emc.joins++;
	m->used = true;
	m->held = true;
	m->mc.rec = *rec;
	m->mc.comp_mask = mask;
	m->mc.callback = cb;
	m->mc.context = context;
	spin_unlock(&emc.lock);
	if (emc.mode != EMC_HOLD)
		schedule_delayed_work(&m->answer, msecs_to_jiffies(20));
	return &m->mc;
}

/*
 * ib_sa_free_multicast(): an answer still held is given now, from inside
 * the free (it raced the leave); then the free waits for the callback.
 */
static void emc_free(struct ib_sa_multicast *mc)
{
	struct emc_member *m = container_of(mc, struct emc_member, mc);
	bool held;

	spin_lock(&emc.lock);
	if (m->frees++) {
		emc.double_frees++;
		spin_unlock(&emc.lock);
		return;
	}
	emc.frees++;
	held = m->held && emc.mode == EMC_HOLD;
	spin_unlock(&emc.lock);
	if (held)
		emc_call(m, 0, true);
	cancel_delayed_work_sync(&m->answer);
	mutex_lock(&m->cb_lock);
	spin_lock(&emc.lock);
	m->freed = true;
	spin_unlock(&emc.lock);
	mutex_unlock(&m->cb_lock);
}

/* ib_init_ah_from_mcmember() on an IB port: the kernel's, typed IB */
static int emc_init_mc_ah(struct ib_device *dev, u32 port,
			  struct ib_sa_mcmember_rec *rec,
			  struct net_device *ndev, enum ib_gid_type type,
			  struct rdma_ah_attr *ah)
{
	int ret;

	spin_lock(&emc.lock);
	emc.ah_rec = *rec;
	emc.ah_calls++;
	spin_unlock(&emc.lock);
	ret = xcma_kernel_ops.init_mc_ah(dev, port, rec, ndev, type, ah);
	if (ret)
		return ret;
	/* rdma_ah_find_type() says IB on an IB port: the DLID is the MLID */
	ah->type = RDMA_AH_ATTR_TYPE_IB;
	rdma_ah_set_dlid(ah, be16_to_cpu(rec->mlid));
	return 0;
}

static enum xcma_transport emc_transport(struct ib_device *dev, u32 port)
{
	if (!strcmp(dev_name(&dev->dev), "rxe0"))
		return XCMA_TRANSPORT_IB;
	return xcma_kernel_ops.port_transport(dev, port);
}

static struct xcma_ops emc_ops;

static void emc_restore(void *unused)
{
	int i;

	for (i = 0; i < EMC_MAX; i++)
		cancel_delayed_work_sync(&emc.m[i].answer);
	xcma_ops_set(NULL);
}

/* a group's record as an SM answers it, every field set apart */
static void emc_rec(struct ib_sa_mcmember_rec *r, u32 qkey)
{
	memset(r, 0, sizeof(*r));
	r->mgid.raw[0] = 0xff;
	r->mgid.raw[1] = 0x12;
	r->mgid.raw[2] = 0xa0;
	r->mgid.raw[3] = 0x1b;
	r->mgid.raw[15] = 0x77; /* what the SA gives a wildcard join */
	r->qkey = cpu_to_be32(qkey);
	r->mlid = cpu_to_be16(EMC_MLID);
	r->mtu_selector = IB_SA_EQ;
	r->mtu = EMC_MTU;
	r->traffic_class = EMC_TCLASS;
	r->pkey = cpu_to_be16(0x8001);
	r->rate_selector = IB_SA_EQ;
	r->rate = EMC_RATE;
	r->packet_life_time_selector = IB_SA_EQ;
	r->packet_life_time = 16;
	r->sl = EMC_SL;
	r->flow_label = cpu_to_be32(EMC_FLOW);
	r->hop_limit = EMC_HOPS;
	r->scope = 2;
}

static void emc_install(struct kunit *test, enum emc_mode mode)
{
	int i;

	spin_lock(&emc.lock);
	for (i = 0; i < EMC_MAX; i++) {
		memset(&emc.m[i].mc, 0, sizeof(emc.m[i].mc));
		emc.m[i].used = false;
		emc.m[i].held = false;
		emc.m[i].freed = false;
		emc.m[i].frees = 0;
	}
	emc.mode = mode;
	emc.status = 0;
	emc.get_recs = 0;
	emc.joins = 0;
	emc.failed_joins = 0;
	emc.frees = 0;
	emc.double_frees = 0;
	emc.callbacks = 0;
	emc.late = 0;
	emc.after_free = 0;
	emc.ah_calls = 0;
	emc.client = NULL;
	memset(&emc.req, 0, sizeof(emc.req));
	spin_unlock(&emc.lock);
	emc_rec(&emc.bcast, EMC_BCAST_QKEY);
	emc_rec(&emc.ans, RDMA_UDP_QKEY);
	emc_ops = xcma_kernel_ops;
	emc_ops.port_transport = emc_transport;
	emc_ops.sa_get_mcmember_rec = emc_get_rec;
	emc_ops.sa_join_multicast = emc_join;
	emc_ops.sa_free_multicast = emc_free;
	emc_ops.init_mc_ah = emc_init_mc_ah;
	xcma_ops_set(&emc_ops);
	KUNIT_ASSERT_EQ(test,
			kunit_add_action_or_reset(test, emc_restore, NULL), 0);
}

/* ---- the consumer ---- */

/* what one id saw, in order */
struct ibmc_log {
	spinlock_t lock; /* protects everything below */
	wait_queue_head_t wq;
	int ev[IBMC_MAX_EV];
	int status[IBMC_MAX_EV];
	void *ctx[IBMC_MAX_EV];
	int n;
	/* the first MULTICAST_JOIN's fields, copied in the callback */
	struct rdma_ah_attr ah;
	union ib_gid sgid;
	bool have_join;
	u32 qp_num, qkey;
	/* MULTICAST_JOIN: say so on @in_cb, stay @hold_ms, then @cb_done */
	struct completion in_cb;
	unsigned int hold_ms;
	bool cb_done;
	/* MULTICAST_JOIN: the SM resets the group now, and the user returns 1 */
	bool reset_then_destroy;
};

static int ibmc_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct ibmc_log *l = id->context;
	int ret = 0;

	if (ev->event == RDMA_CM_EVENT_MULTICAST_JOIN && l->hold_ms) {
		complete(&l->in_cb);
		msleep(l->hold_ms);
		WRITE_ONCE(l->cb_done, true);
	}
	if (ev->event == RDMA_CM_EVENT_MULTICAST_JOIN &&
	    l->reset_then_destroy) {
		/* ib_sa's second answer comes during the user's callback */
		emc_call(&emc.m[0], -ENETRESET, false);
		ret = 1;
	}
	spin_lock(&l->lock);
	if (l->n < IBMC_MAX_EV) {
		l->ev[l->n] = ev->event;
		l->status[l->n] = ev->status;
		l->ctx[l->n] = (void *)ev->param.ud.private_data;
		l->n++;
	}
	if (ev->event == RDMA_CM_EVENT_MULTICAST_JOIN && !l->have_join) {
		l->have_join = true;
		l->ah = ev->param.ud.ah_attr;
		l->ah.grh.sgid_attr = NULL; /* not ours to keep */
		if (ev->param.ud.ah_attr.grh.sgid_attr)
			l->sgid = ev->param.ud.ah_attr.grh.sgid_attr->gid;
		l->qp_num = ev->param.ud.qp_num;
		l->qkey = ev->param.ud.qkey;
	}
	spin_unlock(&l->lock);
	wake_up(&l->wq);
	return ret;
}

static int ibmc_count(struct ibmc_log *l, int event)
{
	int i, c = 0;

	spin_lock(&l->lock);
	for (i = 0; i < l->n; i++)
		c += l->ev[i] == event;
	spin_unlock(&l->lock);
	return c;
}

static bool ibmc_wait(struct ibmc_log *l, int event, int count)
{
	return wait_event_timeout(l->wq, ibmc_count(l, event) >= count,
				  msecs_to_jiffies(IBMC_WAIT_MS)) > 0;
}

static struct ibmc_log *ibmc_new_log(struct kunit *test)
{
	struct ibmc_log *l = kunit_kzalloc(test, sizeof(*l), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, l);
	spin_lock_init(&l->lock);
	init_waitqueue_head(&l->wq);
	init_completion(&l->in_cb);
	return l;
}

KUNIT_DEFINE_ACTION_WRAPPER(ibmc_destroy_id, rdma_destroy_id,
			    struct rdma_cm_id *);

/*
 * The id's hardware addresses as an IPoIB netdev gives them
 * (rdma_copy_src_l2_addr()): its own, a QPN then the port's GID (the
 * source GID, rdma_addr_get_sgid()); the broadcast, whose prefix, scope
 * and pkey the MGIDs are made of.
 */
static void ibmc_ipoib_addr(struct kunit *test, struct rdma_cm_id *id)
{
	struct rdma_dev_addr *da = &id->route.addr.dev_addr;
	union ib_gid gid;

	KUNIT_ASSERT_NOT_NULL(test, da->sgid_attr);
	gid = da->sgid_attr->gid;
	da->dev_type = ARPHRD_INFINIBAND;
	memset(da->src_dev_addr, 0, sizeof(da->src_dev_addr));
	da->src_dev_addr[1] = 0xff; /* the QPN, as an HCA reports one */
	da->src_dev_addr[3] = 0x48;
	rdma_addr_set_sgid(da, &gid);
	memcpy(da->broadcast, ipoib_bcast, sizeof(ipoib_bcast));
}

/*
 * A UD id of @ps bound to 10.99.0.1 on rxe0, then the emulation in @mode
 * with rxe0 declared IB, and IPoIB hardware addresses. Destroyed by
 * the case, or at its end before the emulation goes.
 */
static struct rdma_cm_id *ibmc_id(struct kunit *test, struct ibmc_log *l,
				  enum rdma_ucm_port_space ps,
				  enum ib_qp_type qpt, enum emc_mode mode)
{
	struct sockaddr_storage src;
	struct rdma_cm_id *id;

	id = rdma_create_id(&init_net, ibmc_handler, l, ps, qpt);
	KUNIT_ASSERT_FALSE(test, IS_ERR(id));
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, ibmc_destroy_id,
							id), 0);
	cm_addr4(&src, IBMC_SRC, 0);
	KUNIT_ASSERT_EQ(test, rdma_bind_addr(id, (struct sockaddr *)&src), 0);
	KUNIT_ASSERT_NOT_NULL(test, id->device);
	ibmc_ipoib_addr(test, id);
	emc_install(test, mode);
	/* the id goes before the emulation (actions run last first) */
	kunit_remove_action(test, ibmc_destroy_id, id);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, ibmc_destroy_id,
							id), 0);
	return id;
}

static void ibmc_destroy(struct kunit *test, struct rdma_cm_id *id)
{
	kunit_release_action(test, ibmc_destroy_id, id);
}

static struct sockaddr *ibmc_addr(struct sockaddr_storage *ss, int family,
				  const char *a)
{
	struct sockaddr_ib *sib = (struct sockaddr_ib *)ss;

	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET) {
		cm_addr4(ss, a, 0);
	} else if (family == AF_INET6) {
		cm_addr6(ss, a, 0);
	} else if (family == AF_IB) {
		sib->sib_family = AF_IB;
		if (a)
			in6_pton(a, -1, (u8 *)&sib->sib_addr, -1, NULL);
	} else {
		ss->ss_family = family;
	}
	return (struct sockaddr *)ss;
}

/* a join of @addr (IPv6 if it has a colon) in @state, into @g */
static int ibmc_join(struct rdma_cm_id *id, struct sockaddr_storage *g,
		     const char *addr, u8 state, void *ctx)
{
	int family = strchr(addr, ':') ? AF_INET6 : AF_INET;

	return rdma_join_multicast(id, ibmc_addr(g, family, addr), BIT(state),
				   ctx);
}

/*
 * Every membership freed exactly once, no answer after a free, no group
 * left allocated: the end of every case, after its ids are gone.
 */
static void ibmc_expect_all_left(struct kunit *test)
{
	int i;

	for (i = 0; i < 100 && xcma_mcast_live(); i++)
		msleep(20);
	KUNIT_EXPECT_EQ(test, xcma_mcast_live(), 0U);
	KUNIT_EXPECT_EQ(test, emc.frees, emc.joins);
	KUNIT_EXPECT_EQ(test, emc.double_frees, 0);
	KUNIT_EXPECT_EQ(test, emc.after_free, 0);
}

/* ---- the MGID, as cma_set_mgid() computes it ---- */

struct mgid_case {
	const char *name;
	int family;
	const char *addr;
	enum rdma_ucm_port_space ps;
	const char *mgid;
};

static const struct mgid_case mgid_cases[] = {
	/* ip_ib_mc_map() under the broadcast's prefix; PS_UDP's signature */
	{ "ipv4 udp", AF_INET, "239.1.2.3", RDMA_PS_UDP,
	  "ff12:4001:8001::f01:203" },
	{ "ipv4 ipoib", AF_INET, "224.5.6.7", RDMA_PS_IPOIB,
	  "ff12:401b:8001::5:607" },
	{ "ipv4 ps_ib", AF_INET, "239.1.2.3", RDMA_PS_IB,
	  "ff12:401b:8001::f01:203" },
	/* ipv6_ib_mc_map(): the low 80 bits of the group */
	{ "ipv6 udp", AF_INET6, "ff0e::1:2:3", RDMA_PS_UDP,
	  "ff12:6001:8001::1:2:3" },
	{ "ipv6 ipoib", AF_INET6, "ff05:1111:2222:3333:4444:5555:6666:7777",
	  RDMA_PS_IPOIB, "ff12:601b:8001:3333:4444:5555:6666:7777" },
	/* an SA MGID (ff1x:a01b::/32), as it is */
	{ "ipv6 sa mgid", AF_INET6, "ff15:a01b::1:2", RDMA_PS_UDP,
	  "ff15:a01b::1:2" },
	/* AF_IB: sib_addr as it is */
	{ "af_ib", AF_IB, "ff12:601b:ffff::abcd", RDMA_PS_UDP,
	  "ff12:601b:ffff::abcd" },
	/* the wildcard: MGID zero, the SA assigns one */
	{ "ipv4 zero", AF_INET, "0.0.0.0", RDMA_PS_UDP, "::" },
	{ "ipv6 zero", AF_INET6, "::", RDMA_PS_UDP, "::" },
	{ "af_ib zero", AF_IB, NULL, RDMA_PS_UDP, "::" },
};

static void mgid_desc(const struct mgid_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(mgid, mgid_cases, mgid_desc);

static void ibmc_mgid_of_address(struct kunit *test)
{
	const struct mgid_case *c = test->param_value;
	struct ibmc_log *l = ibmc_new_log(test);
	struct rdma_cm_id *id = ibmc_id(test, l, c->ps, IB_QPT_UD, EMC_ANSWER);
	struct sockaddr_storage g;
	union ib_gid want;

	if (c->ps == RDMA_PS_IPOIB)
		emc_rec(&emc.ans, EMC_BCAST_QKEY);
	KUNIT_ASSERT_EQ(test, in6_pton(c->mgid, -1, want.raw, -1, NULL), 1);
	KUNIT_ASSERT_EQ(test,
			rdma_join_multicast(id, ibmc_addr(&g, c->family, c->addr),
					    BIT(FULLMEMBER_JOIN), l), 0);
	KUNIT_EXPECT_EQ(test, emc.joins, 1);
	KUNIT_EXPECT_EQ_MSG(test, memcmp(&emc.req.mgid, &want, sizeof(want)), 0,
			    "MGID %pI6 want %pI6", emc.req.mgid.raw, want.raw);
	KUNIT_ASSERT_TRUE(test, ibmc_wait(l, RDMA_CM_EVENT_MULTICAST_JOIN, 1));
	/* the leave finds the group by the address as joined */
	rdma_leave_multicast(id, (struct sockaddr *)&g);
	KUNIT_EXPECT_EQ(test, emc.frees, 1);
	ibmc_destroy(test, id);
	ibmc_expect_all_left(test);
}

/* ---- the MCMember record, as cma_join_ib_multicast() fills it ---- */

static void expect_record(struct kunit *test, struct rdma_cm_id *id, u32 qkey,
			  u8 join_state, ib_sa_comp_mask mask)
{
	struct rdma_dev_addr *da = &id->route.addr.dev_addr;
	union ib_gid sgid, bcast_mgid;

	rdma_addr_get_sgid(da, &sgid);
	memcpy(&bcast_mgid, &ipoib_bcast[4], sizeof(bcast_mgid));
	/* ib_sa_get_mcmember_rec() of the broadcast group, first */
	KUNIT_EXPECT_EQ(test, memcmp(&emc.asked_mgid, &bcast_mgid,
				     sizeof(bcast_mgid)), 0);
	KUNIT_EXPECT_EQ(test, memcmp(&emc.req.port_gid, &sgid, sizeof(sgid)),
			0);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(emc.req.pkey), 0x8001);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(emc.req.qkey), qkey);
	KUNIT_EXPECT_EQ(test, emc.req.join_state, join_state);
	KUNIT_EXPECT_EQ(test, (__force u64)emc.mask, (__force u64)mask);
	/* what the broadcast group's record brought, left as it was */
	KUNIT_EXPECT_EQ(test, emc.req.mtu, EMC_MTU);
	KUNIT_EXPECT_EQ(test, emc.req.rate, EMC_RATE);
	KUNIT_EXPECT_EQ(test, emc.req.sl, EMC_SL);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(emc.req.flow_label), EMC_FLOW);
	KUNIT_EXPECT_EQ(test, emc.req.traffic_class, EMC_TCLASS);
	KUNIT_EXPECT_EQ(test, emc.req.hop_limit, EMC_HOPS);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(emc.req.mlid), EMC_MLID);
	/* xcma's own registered client, the id's port */
	KUNIT_EXPECT_NOT_NULL(test, emc.client);
	KUNIT_EXPECT_PTR_EQ(test, emc.dev, id->device);
	KUNIT_EXPECT_EQ(test, emc.port, id->port_num);
}

#define MASK_ALL (IB_SA_MCMEMBER_REC_MGID | IB_SA_MCMEMBER_REC_PORT_GID | \
		  IB_SA_MCMEMBER_REC_PKEY | IB_SA_MCMEMBER_REC_JOIN_STATE | \
		  IB_SA_MCMEMBER_REC_QKEY | IB_SA_MCMEMBER_REC_SL |	     \
		  IB_SA_MCMEMBER_REC_FLOW_LABEL |			     \
		  IB_SA_MCMEMBER_REC_TRAFFIC_CLASS)
#define MASK_IPOIB (IB_SA_MCMEMBER_REC_RATE |				\
		    IB_SA_MCMEMBER_REC_RATE_SELECTOR |			\
		    IB_SA_MCMEMBER_REC_MTU_SELECTOR |			\
		    IB_SA_MCMEMBER_REC_MTU | IB_SA_MCMEMBER_REC_HOP_LIMIT)

/*
 * PS_UDP: QKEY RDMA_UDP_QKEY (cma_set_default_qkey()), the join state as
 * given, full member and send-only full member alike (6.12 refuses
 * neither on IB), the component mask without the IPoIB extras.
 */
static void ibmc_record_fields(struct kunit *test)
{
	struct ibmc_log *l = ibmc_new_log(test);
	struct rdma_cm_id *id;
	struct sockaddr_storage g;

	id = ibmc_id(test, l, RDMA_PS_UDP, IB_QPT_UD, EMC_HOLD);
	KUNIT_ASSERT_EQ(test,
			ibmc_join(id, &g, "239.1.2.3", FULLMEMBER_JOIN, l), 0);
	expect_record(test, id, RDMA_UDP_QKEY, BIT(FULLMEMBER_JOIN), MASK_ALL);
	KUNIT_ASSERT_EQ(test,
			ibmc_join(id, &g, "239.1.2.4", SENDONLY_FULLMEMBER_JOIN,
				  l), 0);
	expect_record(test, id, RDMA_UDP_QKEY, BIT(SENDONLY_FULLMEMBER_JOIN),
		      MASK_ALL);
	KUNIT_EXPECT_EQ(test, emc.joins, 2);
	ibmc_destroy(test, id);
	/* the held answers came from inside the frees, and were dropped */
	KUNIT_EXPECT_EQ(test, emc.late, 2);
	KUNIT_EXPECT_EQ(test, l->n, 0);
	ibmc_expect_all_left(test);
}

/*
 * PS_IPOIB: the id's QKEY is the broadcast group's (cma_set_default_qkey()
 * asks ib_sa_get_mcmember_rec()), the mask adds rate, MTU and hop limit;
 * the event's QKEY is that QKEY.
 */
static void ibmc_record_ipoib(struct kunit *test)
{
	struct ibmc_log *l = ibmc_new_log(test);
	struct rdma_cm_id *id;
	struct sockaddr_storage g;

	id = ibmc_id(test, l, RDMA_PS_IPOIB, IB_QPT_UD, EMC_ANSWER);
	emc_rec(&emc.ans, EMC_BCAST_QKEY);
	KUNIT_ASSERT_EQ(test,
			ibmc_join(id, &g, "239.1.2.3", FULLMEMBER_JOIN, l), 0);
	expect_record(test, id, EMC_BCAST_QKEY, BIT(FULLMEMBER_JOIN),
		      MASK_ALL | MASK_IPOIB);
	KUNIT_ASSERT_TRUE(test, ibmc_wait(l, RDMA_CM_EVENT_MULTICAST_JOIN, 1));
	KUNIT_EXPECT_EQ(test, l->qkey, EMC_BCAST_QKEY);
	ibmc_destroy(test, id);
	ibmc_expect_all_left(test);
}

static const enum emc_mode qkey_modes[] = { EMC_ANSWER, EMC_NO_BCAST };

static void qkey_mode_desc(const enum emc_mode *m, char *desc)
{
	strscpy(desc, *m == EMC_ANSWER ? "group_known" : "no_group",
		KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(qkey_mode, qkey_modes, qkey_mode_desc);

/*
 * A PS_IPOIB UD id's QP takes the QKEY of its IPoIB broadcast group, as
 * in-tree (cma_ib_init_qp_attr() -> cma_set_default_qkey() asks
 * ib_sa_get_mcmember_rec() for the group of the id's broadcast address);
 * if ib_sa knows no such group, rdma_init_qp_attr() fails with its errno
 * and the id keeps no QKEY. Before, xcma refused every PS_IPOIB QP with
 * -ENODEV without asking (issue 26, "RDMA_PS_IPOIB QKEY from the SA").
 */
static void ibmc_ipoib_qp_qkey_from_the_sa(struct kunit *test)
{
	enum emc_mode mode = *(const enum emc_mode *)test->param_value;
	struct ibmc_log *l = ibmc_new_log(test);
	struct ib_qp_attr attr = { .qp_state = IB_QPS_INIT };
	struct rdma_dev_addr *da;
	union ib_gid mgid;
	struct rdma_cm_id *id;
	int mask = 0;

	id = ibmc_id(test, l, RDMA_PS_IPOIB, IB_QPT_UD, mode);
	/* rxe0 has the default partition only: the QP's pkey lookup */
	da = &id->route.addr.dev_addr;
	ib_addr_set_pkey(da, 0xffff);
	ib_addr_get_mgid(da, &mgid);
	if (mode == EMC_ANSWER) {
		KUNIT_ASSERT_EQ(test, rdma_init_qp_attr(id, &attr, &mask), 0);
		KUNIT_EXPECT_TRUE(test, mask & IB_QP_QKEY);
		KUNIT_EXPECT_EQ(test, attr.qkey, EMC_BCAST_QKEY);
	} else {
		KUNIT_EXPECT_EQ(test, rdma_init_qp_attr(id, &attr, &mask),
				-EADDRNOTAVAIL);
		KUNIT_EXPECT_EQ(test, READ_ONCE(xcma_id_of(id)->qkey), 0U);
	}
	KUNIT_EXPECT_EQ(test, emc.get_recs, 1);
	KUNIT_EXPECT_EQ(test, memcmp(&emc.asked_mgid, &mgid, sizeof(mgid)), 0);
	ibmc_destroy(test, id);
}

/* ---- MULTICAST_JOIN, as cma_make_mc_event() builds it ---- */

/*
 * ib_init_ah_from_mcmember() of the SA's record: DLID the MLID, SL,
 * static rate, port, and a GRH to the group's MGID with the record's flow
 * label, hop limit and traffic class from the id's source GID; QP number
 * 0xFFFFFF and the record's QKEY (cma_ib_mc_handler(), cma_set_qkey()).
 */
static void ibmc_join_event_fields(struct kunit *test)
{
	struct ibmc_log *l = ibmc_new_log(test);
	struct rdma_cm_id *id;
	struct sockaddr_storage g;
	const struct ib_global_route *grh;
	union ib_gid sgid;
	int ctx;

	id = ibmc_id(test, l, RDMA_PS_UDP, IB_QPT_UD, EMC_ANSWER);
	KUNIT_ASSERT_EQ(test,
			ibmc_join(id, &g, "239.1.2.3", FULLMEMBER_JOIN,
				  &ctx), 0);
	KUNIT_ASSERT_TRUE(test, ibmc_wait(l, RDMA_CM_EVENT_MULTICAST_JOIN, 1));
	KUNIT_EXPECT_EQ(test, l->n, 1);
	KUNIT_EXPECT_EQ(test, l->status[0], 0);
	KUNIT_EXPECT_PTR_EQ(test, l->ctx[0], (void *)&ctx);
	/* the record handed to ib_init_ah_from_mcmember() is the SA's */
	KUNIT_EXPECT_EQ(test, emc.ah_calls, 1);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(emc.ah_rec.mlid), EMC_MLID);
	KUNIT_EXPECT_EQ(test, memcmp(&emc.ah_rec.mgid, &emc.req.mgid,
				     sizeof(emc.req.mgid)), 0);

	KUNIT_EXPECT_EQ(test, l->ah.type, RDMA_AH_ATTR_TYPE_IB);
	KUNIT_EXPECT_EQ(test, rdma_ah_get_dlid(&l->ah), EMC_MLID);
	KUNIT_EXPECT_EQ(test, rdma_ah_get_sl(&l->ah), EMC_SL);
	KUNIT_EXPECT_EQ(test, rdma_ah_get_static_rate(&l->ah), EMC_RATE);
	KUNIT_EXPECT_EQ(test, rdma_ah_get_port_num(&l->ah), id->port_num);
	KUNIT_EXPECT_TRUE(test, rdma_ah_get_ah_flags(&l->ah) & IB_AH_GRH);
	grh = rdma_ah_read_grh(&l->ah);
	KUNIT_EXPECT_EQ(test, memcmp(&grh->dgid, &emc.req.mgid,
				     sizeof(grh->dgid)), 0);
	KUNIT_EXPECT_EQ(test, grh->flow_label, EMC_FLOW);
	KUNIT_EXPECT_EQ(test, grh->hop_limit, EMC_HOPS);
	KUNIT_EXPECT_EQ(test, grh->traffic_class, EMC_TCLASS);
	rdma_addr_get_sgid(&id->route.addr.dev_addr, &sgid);
	KUNIT_EXPECT_EQ(test, memcmp(&l->sgid, &sgid, sizeof(sgid)), 0);
	KUNIT_EXPECT_EQ(test, l->qp_num, 0xFFFFFFU);
	KUNIT_EXPECT_EQ(test, l->qkey, RDMA_UDP_QKEY);

	rdma_leave_multicast(id, (struct sockaddr *)&g);
	KUNIT_EXPECT_EQ(test, emc.frees, 1);
	rdma_leave_multicast(id, (struct sockaddr *)&g);
	KUNIT_EXPECT_EQ(test, emc.frees, 1);
	ibmc_destroy(test, id);
	KUNIT_EXPECT_EQ(test, l->n, 1);
	ibmc_expect_all_left(test);
}

/* ---- errors ---- */

struct err_case {
	const char *name;
	int status;
};

/* ib_sa's statuses (ib_sa.h): MULTICAST_ERROR carries them as they are */
static const struct err_case err_cases[] = {
	{ "timeout", -ETIMEDOUT },
	{ "send error", -EIO },
	{ "record differs", -EINVAL },
	{ "group reset", -ENETRESET },
};

static void err_desc(const struct err_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(err, err_cases, err_desc);

/*
 * The SA's error: MULTICAST_ERROR with its status and the join's context
 * (cma_make_mc_event()); the membership is still freed once, by the leave
 * (ib_sa.h: even if the join failed).
 */
static void ibmc_sa_error_is_multicast_error(struct kunit *test)
{
	const struct err_case *c = test->param_value;
	struct ibmc_log *l = ibmc_new_log(test);
	struct rdma_cm_id *id;
	struct sockaddr_storage g;
	int ctx;

	id = ibmc_id(test, l, RDMA_PS_UDP, IB_QPT_UD, EMC_ERROR);
	emc.status = c->status;
	KUNIT_ASSERT_EQ(test,
			ibmc_join(id, &g, "239.1.2.3", FULLMEMBER_JOIN,
				  &ctx), 0);
	KUNIT_ASSERT_TRUE(test, ibmc_wait(l, RDMA_CM_EVENT_MULTICAST_ERROR, 1));
	KUNIT_EXPECT_EQ(test, l->n, 1);
	KUNIT_EXPECT_EQ(test, l->status[0], c->status);
	KUNIT_EXPECT_PTR_EQ(test, l->ctx[0], (void *)&ctx);
	KUNIT_EXPECT_EQ(test, emc.ah_calls, 0);
	KUNIT_EXPECT_EQ(test, emc.frees, 0);
	rdma_leave_multicast(id, (struct sockaddr *)&g);
	KUNIT_EXPECT_EQ(test, emc.frees, 1);
	ibmc_destroy(test, id);
	ibmc_expect_all_left(test);
}

/*
 * A group joined, then reset by the SM: ib_sa calls back again with
 * -ENETRESET (multicast.c, process_group_error()); the user hears
 * MULTICAST_ERROR, and nothing after its leave.
 */
static void ibmc_reset_after_join(struct kunit *test)
{
	struct ibmc_log *l = ibmc_new_log(test);
	struct rdma_cm_id *id;
	struct sockaddr_storage g;

	id = ibmc_id(test, l, RDMA_PS_UDP, IB_QPT_UD, EMC_ANSWER);
	KUNIT_ASSERT_EQ(test,
			ibmc_join(id, &g, "239.1.2.3", FULLMEMBER_JOIN, l), 0);
	KUNIT_ASSERT_TRUE(test, ibmc_wait(l, RDMA_CM_EVENT_MULTICAST_JOIN, 1));
	emc_call(&emc.m[0], -ENETRESET, false);
	KUNIT_ASSERT_TRUE(test, ibmc_wait(l, RDMA_CM_EVENT_MULTICAST_ERROR, 1));
	KUNIT_EXPECT_EQ(test, l->n, 2);
	KUNIT_EXPECT_EQ(test, l->status[1], -ENETRESET);
	rdma_leave_multicast(id, (struct sockaddr *)&g);
	/* after the free ib_sa calls back no more: the emulation refuses */
	emc_call(&emc.m[0], -ENETRESET, false);
	KUNIT_EXPECT_EQ(test, emc.after_free, 1);
	emc.after_free = 0;
	msleep(100);
	KUNIT_EXPECT_EQ(test, l->n, 2);
	ibmc_destroy(test, id);
	ibmc_expect_all_left(test);
}

/*
 * The SA's record names another QKEY than the id's: the in-tree CM's
 * cma_set_qkey() refuses it and drops the answer with a WARN; xcma, which
 * has no WARN a peer can reach, says MULTICAST_ERROR -EINVAL.
 */
static void ibmc_qkey_conflict(struct kunit *test)
{
	struct ibmc_log *l = ibmc_new_log(test);
	struct rdma_cm_id *id;
	struct sockaddr_storage g;

	id = ibmc_id(test, l, RDMA_PS_UDP, IB_QPT_UD, EMC_ANSWER);
	emc_rec(&emc.ans, 0x1234);
	KUNIT_ASSERT_EQ(test,
			ibmc_join(id, &g, "239.1.2.3", FULLMEMBER_JOIN, l), 0);
	KUNIT_ASSERT_TRUE(test, ibmc_wait(l, RDMA_CM_EVENT_MULTICAST_ERROR, 1));
	KUNIT_EXPECT_EQ(test, l->n, 1);
	KUNIT_EXPECT_EQ(test, l->status[0], -EINVAL);
	KUNIT_EXPECT_EQ(test, emc.ah_calls, 0);
	ibmc_destroy(test, id);
	ibmc_expect_all_left(test);
}

/* ---- bad input: the in-tree errno, nothing changed ---- */

struct bad_case {
	const char *name;
	enum ib_qp_type qpt;
	bool bind;		/* the id has a device */
	int family;
	enum emc_mode mode;
	int err;
	int joins;		/* sa_join_multicast() calls */
};

static const struct bad_case bad_cases[] = {
	/* rdma_join_multicast(): not UD, no device */
	{ "rc id", IB_QPT_RC, true, AF_INET, EMC_ANSWER, -EINVAL, 0 },
	{ "unbound id", IB_QPT_UD, false, AF_INET, EMC_ANSWER, -EINVAL, 0 },
	{ "af_unspec", IB_QPT_UD, true, AF_UNSPEC, EMC_ANSWER, -EINVAL, 0 },
	/* cma_join_ib_multicast(): ib_sa_get_mcmember_rec()'s errno */
	{ "no broadcast group", IB_QPT_UD, true, AF_INET, EMC_NO_BCAST,
	  -EADDRNOTAVAIL, 0 },
	/* ib_sa_join_multicast()'s */
	{ "join fails", IB_QPT_UD, true, AF_INET, EMC_JOIN_FAILS, -ENOMEM,
	  0 },
};

static void bad_desc(const struct bad_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(bad, bad_cases, bad_desc);

static void ibmc_bad_input(struct kunit *test)
{
	const struct bad_case *c = test->param_value;
	struct ibmc_log *l = ibmc_new_log(test);
	struct sockaddr_storage g;
	struct rdma_cm_id *id;
	unsigned int state;

	if (c->bind) {
		id = ibmc_id(test, l, c->qpt == IB_QPT_UD ? RDMA_PS_UDP :
							    RDMA_PS_TCP,
			     c->qpt, c->mode);
	} else {
		id = rdma_create_id(&init_net, ibmc_handler, l, RDMA_PS_UDP,
				    c->qpt);
		KUNIT_ASSERT_FALSE(test, IS_ERR(id));
		KUNIT_ASSERT_EQ(test,
				kunit_add_action_or_reset(test,
							  ibmc_destroy_id, id),
				0);
		emc_install(test, c->mode);
		kunit_remove_action(test, ibmc_destroy_id, id);
		KUNIT_ASSERT_EQ(test,
				kunit_add_action_or_reset(test,
							  ibmc_destroy_id, id),
				0);
	}
	state = cm_state(id);
	KUNIT_EXPECT_EQ(test,
			rdma_join_multicast(id, ibmc_addr(&g, c->family,
							  "239.1.2.3"),
					    BIT(FULLMEMBER_JOIN), l), c->err);
	KUNIT_EXPECT_EQ(test, cm_state(id), state);
	KUNIT_EXPECT_EQ(test, emc.joins, c->joins);
	KUNIT_EXPECT_EQ(test, xcma_mcast_live(), 0U);
	/* nothing to leave */
	rdma_leave_multicast(id, (struct sockaddr *)&g);
	msleep(50);
	KUNIT_EXPECT_EQ(test, l->n, 0);
	ibmc_destroy(test, id);
	KUNIT_EXPECT_EQ(test, emc.frees, 0);
	ibmc_expect_all_left(test);
}

/* ---- leave, destroy and removal with the join in flight ---- */

/*
 * Left before the SA answered: the membership is freed once, the answer
 * that comes while it is freed (from inside the free, as a callback in
 * progress would) is dropped, and nothing reaches the user.
 */
static void ibmc_leave_in_flight(struct kunit *test)
{
	struct ibmc_log *l = ibmc_new_log(test);
	struct rdma_cm_id *id;
	struct sockaddr_storage g;

	id = ibmc_id(test, l, RDMA_PS_UDP, IB_QPT_UD, EMC_HOLD);
	KUNIT_ASSERT_EQ(test,
			ibmc_join(id, &g, "239.1.2.3", FULLMEMBER_JOIN, l), 0);
	rdma_leave_multicast(id, (struct sockaddr *)&g);
	KUNIT_EXPECT_EQ(test, emc.frees, 1);
	KUNIT_EXPECT_EQ(test, emc.late, 1);
	msleep(100);
	KUNIT_EXPECT_EQ(test, l->n, 0);
	ibmc_destroy(test, id);
	KUNIT_EXPECT_EQ(test, emc.frees, 1);
	KUNIT_EXPECT_EQ(test, l->n, 0);
	ibmc_expect_all_left(test);
}

/* the answer's work item, held back by the test */
static struct work_struct *held_work;

static bool hold_work(struct work_struct *work)
{
	WRITE_ONCE(held_work, work);
	return true;
}

/*
 * The SA answered and its MULTICAST_JOIN is queued, not started, when the
 * group is left: it is not delivered (and the group is freed by it).
 */
static void ibmc_leave_with_answer_queued(struct kunit *test)
{
	struct ibmc_log *l = ibmc_new_log(test);
	struct rdma_cm_id *id;
	struct sockaddr_storage g;
	int i;

	id = ibmc_id(test, l, RDMA_PS_UDP, IB_QPT_UD, EMC_ANSWER);
	held_work = NULL;
	emc_ops.queue_mc = hold_work;
	KUNIT_ASSERT_EQ(test,
			ibmc_join(id, &g, "239.1.2.3", FULLMEMBER_JOIN, l), 0);
	for (i = 0; i < 250 && !READ_ONCE(held_work); i++)
		msleep(20);
	KUNIT_ASSERT_NOT_NULL(test, READ_ONCE(held_work));
	KUNIT_EXPECT_EQ(test, emc.callbacks, 1);
	rdma_leave_multicast(id, (struct sockaddr *)&g);
	KUNIT_EXPECT_EQ(test, emc.frees, 1);
	/* the group lives on in the queued work until it runs */
	KUNIT_EXPECT_EQ(test, xcma_mcast_live(), 1U);
	/* the work frees the group (and its own work_struct) as it ends */
	queue_work(system_unbound_wq, held_work);
	for (i = 0; i < 250 && xcma_mcast_live(); i++)
		msleep(20);
	KUNIT_EXPECT_EQ(test, xcma_mcast_live(), 0U);
	KUNIT_EXPECT_EQ(test, l->n, 0);
	ibmc_destroy(test, id);
	KUNIT_EXPECT_EQ(test, l->n, 0);
	ibmc_expect_all_left(test);
}

/* the same with rdma_destroy_id() */
static void ibmc_destroy_in_flight(struct kunit *test)
{
	struct ibmc_log *l = ibmc_new_log(test);
	struct rdma_cm_id *id;
	struct sockaddr_storage g;

	id = ibmc_id(test, l, RDMA_PS_UDP, IB_QPT_UD, EMC_HOLD);
	KUNIT_ASSERT_EQ(test,
			ibmc_join(id, &g, "239.1.2.3", FULLMEMBER_JOIN, l), 0);
	KUNIT_ASSERT_EQ(test,
			ibmc_join(id, &g, "ff0e::9", FULLMEMBER_JOIN, l), 0);
	ibmc_destroy(test, id);
	KUNIT_EXPECT_EQ(test, emc.joins, 2);
	KUNIT_EXPECT_EQ(test, emc.frees, 2);
	KUNIT_EXPECT_EQ(test, emc.late, 2);
	msleep(100);
	KUNIT_EXPECT_EQ(test, l->n, 0);
	ibmc_expect_all_left(test);
}

/*
 * rdma_leave_multicast() while the group's MULTICAST_JOIN is in the
 * user's callback in another task: it returns after the callback, as
 * in-tree (ib_sa_free_multicast() waits for cma_ib_mc_handler()). rdma_ucm
 * frees the group's context (its struct ucma_multicast) right after the
 * leave, and its callback reads it (issue 26, bug 1).
 */
static void ibmc_leave_waits_for_the_callback(struct kunit *test)
{
	struct ibmc_log *l = ibmc_new_log(test);
	struct rdma_cm_id *id;
	struct sockaddr_storage g;
	bool done;

	id = ibmc_id(test, l, RDMA_PS_UDP, IB_QPT_UD, EMC_ANSWER);
	l->hold_ms = 300;
	KUNIT_ASSERT_EQ(test,
			ibmc_join(id, &g, "239.1.2.3", FULLMEMBER_JOIN, l), 0);
	KUNIT_ASSERT_TRUE(test,
			  wait_for_completion_timeout(&l->in_cb,
						      msecs_to_jiffies(IBMC_WAIT_MS)));
	rdma_leave_multicast(id, (struct sockaddr *)&g);
	done = READ_ONCE(l->cb_done);
	KUNIT_EXPECT_TRUE_MSG(test, done,
			      "the leave returned during the group's callback");
	KUNIT_EXPECT_EQ(test, emc.frees, 1);
	ibmc_destroy(test, id);
	KUNIT_EXPECT_EQ(test, l->n, 1);
	ibmc_expect_all_left(test);
}

/*
 * The SM resets the group while its MULTICAST_JOIN is in the user's
 * callback, and the callback returns non-zero: the id is destroyed by the
 * return, the reset is never delivered, and the destroy ends. Before, the
 * answer queued the group's work item again with a reference on the id,
 * which the destroy, run from that same work item, waited for forever
 * (issue 26, bug 6). The in-tree CM WARNs on a non-zero return from a
 * multicast event and destroys nothing; xcma destroys by return
 * everywhere.
 */
static void ibmc_return_destroys_with_an_answer_pending(struct kunit *test)
{
	struct ibmc_log *l = ibmc_new_log(test);
	struct rdma_cm_id *id;
	struct sockaddr_storage g;
	int i, ret;

	id = ibmc_id(test, l, RDMA_PS_UDP, IB_QPT_UD, EMC_ANSWER);
	l->reset_then_destroy = true;
	/* the callback's return destroys it */
	kunit_remove_action(test, ibmc_destroy_id, id);
	ret = ibmc_join(id, &g, "239.1.2.3", FULLMEMBER_JOIN, l);
	if (ret)
		rdma_destroy_id(id);
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_ASSERT_TRUE(test, ibmc_wait(l, RDMA_CM_EVENT_MULTICAST_JOIN, 1));
	for (i = 0; i < 150 && xcma_mcast_live(); i++)
		msleep(20);
	KUNIT_EXPECT_EQ_MSG(test, xcma_mcast_live(), 0U,
			    "the destroy by return did not end in 3 s");
	KUNIT_EXPECT_EQ(test, emc.callbacks, 2);
	msleep(100);
	KUNIT_EXPECT_EQ(test, l->n, 1);
	ibmc_expect_all_left(test);
}

/* the leave of ibmc_leave_while_linking, from another task */
struct linking_leave {
	struct rdma_cm_id *id;
	struct sockaddr_storage g;
	struct completion done;
	bool stopped, left;
	unsigned int live_after;
};

static struct linking_leave *linking;

static int linking_leave_thread(void *p)
{
	struct linking_leave *ll = p;

	rdma_leave_multicast(ll->id, (struct sockaddr *)&ll->g);
	complete(&ll->done);
	return 0;
}

/* the stub of xcma_mcast_published(): the group is on the id, not linked */
static void leave_while_linking(struct rdma_cm_id *id,
				const struct sockaddr *addr)
{
	struct linking_leave *ll = linking;
	struct task_struct *t;

	ll->stopped = true;
	t = kthread_run(linking_leave_thread, ll, "ibmc_leave");
	if (IS_ERR(t))
		return;
	if (!wait_for_completion_timeout(&ll->done,
					 msecs_to_jiffies(IBMC_WAIT_MS)))
		return;
	ll->left = true;
	ll->live_after = xcma_mcast_live();
}

/*
 * A leave from another task takes the group between its publication on
 * the id and the end of rdma_join_multicast(): the join holds a reference
 * of its own until it is done with the group, so the leave does not free
 * it under the join (issue 26, bug 8; before, the group was freed here
 * and the join's ib_linked() wrote into it).
 */
static void ibmc_leave_while_linking(struct kunit *test)
{
	struct ibmc_log *l = ibmc_new_log(test);
	struct linking_leave *ll = kunit_kzalloc(test, sizeof(*ll), GFP_KERNEL);
	struct rdma_cm_id *id;
	struct sockaddr_storage g;

	KUNIT_ASSERT_NOT_NULL(test, ll);
	id = ibmc_id(test, l, RDMA_PS_UDP, IB_QPT_UD, EMC_HOLD);
	ll->id = id;
	init_completion(&ll->done);
	ibmc_addr(&ll->g, AF_INET, "239.1.2.3");
	linking = ll;
	kunit_activate_static_stub(test, xcma_mcast_published,
				   leave_while_linking);
	KUNIT_ASSERT_EQ(test,
			ibmc_join(id, &g, "239.1.2.3", FULLMEMBER_JOIN, l), 0);
	kunit_deactivate_static_stub(test, xcma_mcast_published);
	KUNIT_ASSERT_TRUE(test, ll->stopped);
	KUNIT_ASSERT_TRUE(test, ll->left);
	KUNIT_EXPECT_EQ_MSG(test, ll->live_after, 1U,
			    "the leave freed the group under its join");
	KUNIT_EXPECT_EQ(test, emc.frees, 1);
	KUNIT_EXPECT_EQ(test, xcma_mcast_live(), 0U);
	msleep(100);
	KUNIT_EXPECT_EQ(test, l->n, 0);
	ibmc_destroy(test, id);
	ibmc_expect_all_left(test);
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

/*
 * rxe0 goes while the SA has not answered: DEVICE_REMOVAL, then the SA's
 * answer (a record) comes and is dropped (cma_ib_mc_handler() drops it in
 * DEVICE_REMOVAL); the destroy frees the membership once, and the removal
 * ends.
 */
static void ibmc_removal_in_flight(struct kunit *test)
{
	struct ibmc_log *l = ibmc_new_log(test);
	struct removal_arg *a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	struct rdma_cm_id *id;
	struct sockaddr_storage g;
	struct task_struct *t;

	KUNIT_ASSERT_NOT_NULL(test, a);
	id = ibmc_id(test, l, RDMA_PS_UDP, IB_QPT_UD, EMC_HOLD);
	KUNIT_ASSERT_EQ(test,
			ibmc_join(id, &g, "239.1.2.3", FULLMEMBER_JOIN, l), 0);
	a->test = test;
	init_completion(&a->done);
	t = kthread_run(delete_rxe0, a, "ibmc_delete");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	KUNIT_ASSERT_TRUE(test, ibmc_wait(l, RDMA_CM_EVENT_DEVICE_REMOVAL, 1));
	/* the answer now, after DEVICE_REMOVAL */
	emc_call(&emc.m[0], 0, false);
	KUNIT_EXPECT_EQ(test, emc.callbacks, 1);
	msleep(200);
	KUNIT_EXPECT_EQ(test, l->n, 1);
	KUNIT_EXPECT_EQ(test, emc.frees, 0);
	ibmc_destroy(test, id);
	KUNIT_EXPECT_EQ(test, emc.frees, 1);
	KUNIT_ASSERT_TRUE(test,
			  wait_for_completion_timeout(&a->done,
						      msecs_to_jiffies(30000)));
	KUNIT_EXPECT_EQ(test, a->ret, 0);
	KUNIT_EXPECT_EQ(test, l->n, 1);
	KUNIT_EXPECT_EQ(test, l->ev[0], RDMA_CM_EVENT_DEVICE_REMOVAL);
	ibmc_expect_all_left(test);
	/* rxe0 comes back as what it is */
	kunit_release_action(test, emc_restore, NULL);
	KUNIT_EXPECT_EQ(test, cm_rxe_add(test), 0);
	cm_expect_rxe0_idle(test);
}

static int ibmc_suite_init(struct kunit_suite *suite)
{
	int i;

	spin_lock_init(&emc.lock);
	for (i = 0; i < EMC_MAX; i++) {
		mutex_init(&emc.m[i].cb_lock);
		INIT_DELAYED_WORK(&emc.m[i].answer, emc_answer);
	}
	return 0;
}

static struct kunit_case ibmc_cases[] = {
	KUNIT_CASE_PARAM(ibmc_mgid_of_address, mgid_gen_params),
	KUNIT_CASE(ibmc_record_fields),
	KUNIT_CASE(ibmc_record_ipoib),
	KUNIT_CASE_PARAM(ibmc_ipoib_qp_qkey_from_the_sa, qkey_mode_gen_params),
	KUNIT_CASE(ibmc_join_event_fields),
	KUNIT_CASE_PARAM(ibmc_sa_error_is_multicast_error, err_gen_params),
	KUNIT_CASE(ibmc_reset_after_join),
	KUNIT_CASE(ibmc_qkey_conflict),
	KUNIT_CASE_PARAM(ibmc_bad_input, bad_gen_params),
	KUNIT_CASE(ibmc_leave_in_flight),
	KUNIT_CASE(ibmc_leave_with_answer_queued),
	KUNIT_CASE(ibmc_destroy_in_flight),
	KUNIT_CASE(ibmc_leave_waits_for_the_callback),
	KUNIT_CASE(ibmc_return_destroys_with_an_answer_pending),
	KUNIT_CASE(ibmc_leave_while_linking),
	KUNIT_CASE_SLOW(ibmc_removal_in_flight),
	{}
};

static struct kunit_suite ibmc_suite = {
	.name = "xcma_ibmc",
	.init = xcma_kunit_sweep_init,
	.suite_init = ibmc_suite_init,
	.test_cases = ibmc_cases,
};

kunit_test_suite(ibmc_suite);
