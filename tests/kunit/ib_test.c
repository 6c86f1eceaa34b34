// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * xcma_ib: InfiniBand route resolution against an emulated subnet
 * administrator. No soft IB device exists, so these cases declare port 1
 * of rxe0 to be InfiniBand through the ops layer (port_transport) once the
 * id's address is resolved over Soft-RoCE, and answer the SA path record
 * query from an emulation behind sa_path_rec_get / sa_cancel_query:
 * records (one, several), a timeout, an SA error, destroy and device
 * removal while the query is in flight. The emulation, like ib_sa, calls
 * back exactly once per query, and after a cancel it answers late on
 * purpose, with records, to check that the answer is dropped.
 *
 * Every expectation is what the in-tree CM of 6.12 computes for the same
 * input; the function of drivers/infiniband/core/cma.c (or cm.c) it comes
 * from is named at each check. What is tested on a real transport and what
 * only here: see docs/transports.md, the matrix.
 */
#include <kunit/static_stub.h>
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/if_arp.h>
#include <linux/if_infiniband.h>
#include <linux/kthread.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <rdma/ib.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_sa.h>
#include <rdma/ib_user_sa.h>
#include <net/net_namespace.h>
#include <rdma/rdma_cm.h>
#include <rdma/rdma_cm_ib.h>

#include "../../cma/ib.h"
#include "../../cma/id.h"
#include "../../cma/ops.h"
#include "../../cma/wire.h"
#include "cm_util.h"
#include "esa_util.h"
#include "xcma/fsm.h"
#include "xcma_kunit.h"

#define IB_PORT 18701
#define IB_TIMEOUT_MS 1500
#define ESA_MAX_REC 4

enum esa_mode {
	ESA_ANSWER,	/* the records, soon */
	ESA_TIMEOUT,	/* -ETIMEDOUT, as ib_sa after its retries */
	ESA_SA_ERROR,	/* -EINVAL, as ib_sa for an SA status error */
	ESA_HOLD,	/* nothing until cancelled, then the records anyway */
	ESA_FAIL,	/* sa_path_rec_get() itself fails with -ENOMEM */
	ESA_STALL,	/* sa_path_rec_get() returns only once let go (@go);
			 * the records at the query's timeout, or late
			 * after a cancel
			 */
};

/**
 * struct esa - the emulated SA (one query at a time)
 * @lock: protects the counters and @in_flight
 * @mode: how the next query is answered
 * @ans: the records of an answer
 * @nans: how many
 * @req: the last request
 * @mask: its component mask
 * @timeout_ms: its timeout
 * @client: its SA client
 * @dev: its device
 * @port: its port
 * @cb: its callback
 * @ctx: its context
 * @id: its query id
 * @in_flight: not answered yet
 * @queries: queries issued
 * @cancels: cancels of the query in flight
 * @stale_cancels: cancels of a query already answered, or unknown
 * @callbacks: answers given (callbacks made)
 * @answer: gives the answer
 * @token: stands for ib_sa's query
 * @issuing: ESA_STALL: the query is recorded, sa_path_rec_get() waits
 * @go: ESA_STALL: let it return
 */
struct esa {
	spinlock_t lock; /* see above */
	enum esa_mode mode;
	struct sa_path_rec ans[ESA_MAX_REC];
	int nans;
	struct sa_path_rec req;
	ib_sa_comp_mask mask;
	unsigned long timeout_ms;
	struct ib_sa_client *client;
	struct ib_device *dev;
	u32 port;
	xcma_sa_path_cb cb;
	void *ctx;
	int id;
	bool in_flight;
	int queries, cancels, stale_cancels, callbacks;
	struct delayed_work answer;
	int token;
	struct completion issuing;
	struct completion go;
};

static struct esa esa;

static void esa_answer(struct work_struct *work)
{
	int status = 0;

	switch (esa.mode) {
	case ESA_TIMEOUT:
		status = -ETIMEDOUT;
		break;
	case ESA_SA_ERROR:
		status = -EINVAL;
		break;
	default:
		break;
	}
	spin_lock(&esa.lock);
	esa.in_flight = false;
	esa.callbacks++;
	spin_unlock(&esa.lock);
	esa_call_back(esa.cb, status, esa.ans, esa.nans, esa.ctx);
}

static int esa_get(struct ib_sa_client *client, struct ib_device *dev,
		   u32 port, struct sa_path_rec *rec, ib_sa_comp_mask mask,
		   unsigned long timeout_ms, gfp_t gfp, xcma_sa_path_cb cb,
		   void *ctx, struct ib_sa_query **query)
{
	int id;

	spin_lock(&esa.lock);
	esa.queries++;
	esa.req = *rec;
	esa.mask = mask;
	esa.timeout_ms = timeout_ms;
	esa.client = client;
	esa.dev = dev;
	esa.port = port;
	if (esa.mode == ESA_FAIL) {
		spin_unlock(&esa.lock);
		return -ENOMEM;
	}
	esa.cb = cb;
	esa.ctx = ctx;
	id = ++esa.id;
	esa.in_flight = true;
	*query = (struct ib_sa_query *)&esa.token;
	spin_unlock(&esa.lock);
	if (esa.mode == ESA_STALL) {
		/* as ib_sa: the MAD is out before the query's id is returned */
		schedule_delayed_work(&esa.answer,
				      msecs_to_jiffies(timeout_ms));
		complete(&esa.issuing);
		wait_for_completion_timeout(&esa.go, msecs_to_jiffies(10000));
	} else if (esa.mode != ESA_HOLD) {
		schedule_delayed_work(&esa.answer, msecs_to_jiffies(20));
	}
	return id;
}

static void esa_cancel(int id, struct ib_sa_query *query)
{
	spin_lock(&esa.lock);
	if (esa.in_flight && id == esa.id &&
	    query == (struct ib_sa_query *)&esa.token) {
		esa.cancels++;
		/* ib_sa would say -EINTR: the records instead, and late */
		mod_delayed_work(system_wq, &esa.answer, msecs_to_jiffies(30));
	} else {
		esa.stale_cancels++;
	}
	spin_unlock(&esa.lock);
}

/* ib_cm's side, where a case needs it */
static struct ib_cm_req_param esa_req;
static struct sa_path_rec esa_req_path[3];
static bool esa_req_has[3];
static int esa_req_calls;
static u16 esa_pkey_asked;
/* the REQ's private data, as it was when sent */
static u8 esa_req_pdata[IB_CM_REQ_PRIVATE_DATA_SIZE];
static bool esa_req_has_pdata;

#define ESA_PKEY_INDEX 3
#define ESA_CM_RQ_PSN 0x00abcdef

static int esa_send_req(struct ib_cm_id *cm_id, struct ib_cm_req_param *p)
{
	struct sa_path_rec *paths[3] = { p->primary_path,
					 p->primary_path_inbound,
					 p->primary_path_outbound };
	int i;

	esa_req = *p;
	esa_req_has_pdata = p->private_data;
	if (p->private_data)
		memcpy(esa_req_pdata, p->private_data,
		       min_t(u8, p->private_data_len, sizeof(esa_req_pdata)));
	for (i = 0; i < 3; i++) {
		esa_req_has[i] = paths[i];
		if (paths[i])
			esa_req_path[i] = *paths[i];
	}
	esa_req_calls++;
	return 0;
}

/* a partition the emulated IB port is not a member of */
#define ESA_NO_PKEY 0x7777

static int esa_find_pkey(struct ib_device *dev, u32 port, u16 pkey,
			 u16 *index)
{
	if (pkey == ESA_NO_PKEY)
		return -ENOENT;
	esa_pkey_asked = pkey;
	*index = ESA_PKEY_INDEX;
	return 0;
}

/*
 * ib_cm's attributes for an RC QP on an IB port, from the primary path
 * it was handed in the REQ (cm.c: cm_init_av_by_path() builds the AV with
 * ib_init_ah_attr_from_path(): DLID, SL, static rate, and the timeout
 * packet_life_time + 1; cm_init_qp_rtr_attr() adds the path MTU and the
 * peer's PSN). ib_cm is not xcma's: only what xcma hands it and what it
 * does with the answer are under test.
 */
static int esa_cm_init_qp_attr(struct ib_cm_id *cm_id, struct ib_qp_attr *a,
			       int *mask)
{
	struct sa_path_rec *p = &esa_req_path[0];

	switch (a->qp_state) {
	case IB_QPS_RTR:
		*mask = IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU |
			IB_QP_DEST_QPN | IB_QP_RQ_PSN |
			IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER;
		a->ah_attr.type = RDMA_AH_ATTR_TYPE_IB;
		rdma_ah_set_dlid(&a->ah_attr, be32_to_cpu(sa_path_get_dlid(p)));
		rdma_ah_set_sl(&a->ah_attr, p->sl);
		rdma_ah_set_static_rate(&a->ah_attr, p->rate);
		a->path_mtu = p->mtu;
		a->rq_psn = ESA_CM_RQ_PSN;
		a->min_rnr_timer = 0;
		return 0;
	case IB_QPS_RTS:
		*mask = IB_QP_STATE | IB_QP_SQ_PSN | IB_QP_TIMEOUT |
			IB_QP_RETRY_CNT | IB_QP_RNR_RETRY | IB_QP_MAX_QP_RD_ATOMIC;
		a->timeout = p->packet_life_time + 1;
		return 0;
	default:
		return -EINVAL;
	}
}

static struct xcma_ops esa_ops;
static void esa_install(struct kunit *test, enum esa_mode mode);

/* rxe0's first GID, in xib0's hardware address; xib0, IPoIB's stand-in */
static union ib_gid esa_port_gid;
static struct net_device *esa_ipoib_ndev;

/*
 * At the end of a case (or when it stops at an assertion): a query still
 * held is answered now, so that the destroy of its id (a deferred action
 * of the case, run after this one) does not wait for it forever.
 */
static void esa_ops_restore(void *unused)
{
	spin_lock(&esa.lock);
	if (esa.in_flight)
		mod_delayed_work(system_wq, &esa.answer, 0);
	spin_unlock(&esa.lock);
	flush_delayed_work(&esa.answer);
	xcma_ops_set(NULL);
}

KUNIT_DEFINE_ACTION_WRAPPER(ib_destroy_id, rdma_destroy_id,
			    struct rdma_cm_id *);

/* destroyed by the case, or at its end if it stops at an assertion */
static void ib_destroy(struct kunit *test, struct rdma_cm_id *id)
{
	kunit_release_action(test, ib_destroy_id, id);
}

/*
 * the emulation, fresh, with rxe0 declared InfiniBand: its GIDs have no
 * netdev, and a request's netdev is xib0 (esa_ipoib_install())
 */
static void esa_install(struct kunit *test, enum esa_mode mode)
{
	struct ib_device *dev;

	memset(&esa_port_gid, 0, sizeof(esa_port_gid));
	dev = ib_device_get_by_name(ESA_IB_DEV, RDMA_DRIVER_UNKNOWN);
	if (dev) {
		xcma_kernel_ops.query_gid(dev, 1, 0, &esa_port_gid);
		ib_device_put(dev);
	}
	esa_ops = xcma_kernel_ops;
	esa_ops.port_transport = esa_ib_transport;
	esa_ops.sa_path_rec_get = esa_get;
	esa_ops.sa_cancel_query = esa_cancel;
	esa_ops.send_req = esa_send_req;
	esa_ops.find_cached_pkey = esa_find_pkey;
	esa_ops.cm_init_qp_attr = esa_cm_init_qp_attr;
	spin_lock(&esa.lock);
	esa.mode = mode;
	esa.in_flight = false;
	esa.queries = 0;
	esa.cancels = 0;
	esa.stale_cancels = 0;
	esa.callbacks = 0;
	spin_unlock(&esa.lock);
	esa_req_calls = 0;
	esa_ipoib_ndev = esa_ipoib_install(test, &esa_ops, &esa_port_gid);
	xcma_ops_set(&esa_ops);
	KUNIT_ASSERT_EQ(test,
			kunit_add_action_or_reset(test, esa_ops_restore, NULL),
			0);
}

/* a path record with every field a route or an AV reads set apart */
static void esa_rec(struct sa_path_rec *r, u32 flags, u16 dlid, u8 sl)
{
	memset(r, 0, sizeof(*r));
	r->rec_type = SA_PATH_REC_TYPE_IB;
	r->service_id = cpu_to_be64(0x0106000000000000ULL | IB_PORT);
	r->dgid.global.subnet_prefix = cpu_to_be64(0xfe80000000000000ULL);
	r->dgid.global.interface_id = cpu_to_be64(0x0002c9030000beefULL);
	r->sgid.global.subnet_prefix = cpu_to_be64(0xfe80000000000000ULL);
	r->sgid.global.interface_id = cpu_to_be64(0x0002c9030000f00dULL);
	r->ib.dlid = cpu_to_be16(dlid);
	r->ib.slid = cpu_to_be16(0x0011);
	r->ib.raw_traffic = 0;
	r->flow_label = cpu_to_be32(0x12345);
	r->hop_limit = 1;
	r->traffic_class = 0x20;
	r->reversible = 1;
	r->numb_path = 1;
	r->pkey = cpu_to_be16(0x8001);
	r->qos_class = cpu_to_be16(0);
	r->sl = sl;
	r->mtu_selector = IB_SA_EQ;
	r->mtu = IB_MTU_2048;
	r->rate_selector = IB_SA_EQ;
	r->rate = IB_RATE_56_GBPS;
	r->packet_life_time_selector = IB_SA_EQ;
	r->packet_life_time = 14;
	r->preference = 0;
	r->flags = flags;
}

/* an RC id of @s with its address resolved over rxe0 (RoCE, really) */
static struct rdma_cm_id *ib_resolved_id(struct kunit *test, struct side *s,
					 bool v6)
{
	struct sockaddr_storage src, dst;
	struct rdma_cm_id *id = cm_new_id(test, s, IB_QPT_RC);

	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, ib_destroy_id, id),
			0);
	if (v6) {
		cm_addr6(&src, "fd00:99::1", 0);
		/* traffic class 0xab in the flow information */
		((struct sockaddr_in6 *)&src)->sin6_flowinfo =
			cpu_to_be32(0xab << 20 | 0x777);
		cm_addr6(&dst, "fd00:99::1", IB_PORT);
	} else {
		cm_addr4(&src, "10.99.0.1", 0);
		cm_addr4(&dst, "10.99.0.1", IB_PORT);
	}
	KUNIT_ASSERT_EQ(test, rdma_resolve_addr(id, (struct sockaddr *)&src,
						(struct sockaddr *)&dst, 2000),
			0);
	KUNIT_ASSERT_TRUE(test, cm_wait_events(s, false, 1));
	KUNIT_ASSERT_EQ(test, s->ev[0], RDMA_CM_EVENT_ADDR_RESOLVED);
	return id;
}

/*
 * The request, as cma_query_ib_route() builds it: GIDs and pkey from the
 * resolved address, one reversible path, the service id of the port space
 * and destination port (rdma_get_service_id()), the TOS as QoS class for
 * IPv4 or the flow information's traffic class for IPv6; the user's
 * timeout, through xcma's own registered client, on the id's port.
 */
static void expect_request(struct kunit *test, struct rdma_cm_id *id, bool v6,
			   u8 tos, u8 tclass)
{
	struct rdma_dev_addr *da = &id->route.addr.dev_addr;
	ib_sa_comp_mask mask = IB_SA_PATH_REC_DGID | IB_SA_PATH_REC_SGID |
			       IB_SA_PATH_REC_PKEY | IB_SA_PATH_REC_NUMB_PATH |
			       IB_SA_PATH_REC_REVERSIBLE |
			       IB_SA_PATH_REC_SERVICE_ID;
	union ib_gid sgid, dgid;

	rdma_addr_get_sgid(da, &sgid);
	rdma_addr_get_dgid(da, &dgid);
	mask |= v6 ? IB_SA_PATH_REC_TRAFFIC_CLASS : IB_SA_PATH_REC_QOS_CLASS;
	KUNIT_EXPECT_EQ(test, (__force u64)esa.mask, (__force u64)mask);
	KUNIT_EXPECT_EQ(test, esa.req.rec_type, SA_PATH_REC_TYPE_IB);
	KUNIT_EXPECT_EQ(test, memcmp(&esa.req.sgid, &sgid, sizeof(sgid)), 0);
	KUNIT_EXPECT_EQ(test, memcmp(&esa.req.dgid, &dgid, sizeof(dgid)), 0);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(esa.req.pkey), ib_addr_get_pkey(da));
	KUNIT_EXPECT_EQ(test, esa.req.numb_path, 1);
	KUNIT_EXPECT_EQ(test, esa.req.reversible, 1);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(esa.req.service_id),
			((u64)RDMA_PS_TCP << 16) + IB_PORT);
	if (v6) {
		KUNIT_EXPECT_EQ(test, esa.req.traffic_class, tclass);
		KUNIT_EXPECT_EQ(test, be16_to_cpu(esa.req.qos_class), 0);
	} else {
		KUNIT_EXPECT_EQ(test, be16_to_cpu(esa.req.qos_class), tos);
		KUNIT_EXPECT_EQ(test, esa.req.traffic_class, 0);
	}
	KUNIT_EXPECT_EQ(test, esa.timeout_ms, IB_TIMEOUT_MS);
	KUNIT_EXPECT_NOT_NULL(test, esa.client);
	KUNIT_EXPECT_PTR_EQ(test, esa.dev, id->device);
	KUNIT_EXPECT_EQ(test, esa.port, id->port_num);
}

static void expect_rec(struct kunit *test, const struct sa_path_rec *got,
		       const struct sa_path_rec *want, const char *which)
{
	KUNIT_ASSERT_NOT_NULL_MSG(test, got, "%s", which);
	KUNIT_EXPECT_EQ_MSG(test, memcmp(got, want, sizeof(*want)), 0,
			    "%s differs", which);
	KUNIT_EXPECT_EQ_MSG(test, be16_to_cpu(got->ib.dlid),
			    be16_to_cpu(want->ib.dlid), "%s DLID", which);
	KUNIT_EXPECT_EQ_MSG(test, got->sl, want->sl, "%s SL", which);
	KUNIT_EXPECT_EQ_MSG(test, got->mtu, want->mtu, "%s MTU", which);
	KUNIT_EXPECT_EQ_MSG(test, got->rate, want->rate, "%s rate", which);
	KUNIT_EXPECT_EQ_MSG(test, got->packet_life_time,
			    want->packet_life_time, "%s lifetime", which);
}

/* the query's end: resolved or not, one callback, no cancel */
static void resolve_route_ib(struct kunit *test, struct side *s,
			     struct rdma_cm_id *id, int want_ev)
{
	int n = s->n;

	KUNIT_ASSERT_EQ(test, rdma_resolve_route(id, IB_TIMEOUT_MS), 0);
	KUNIT_ASSERT_TRUE(test, cm_wait_events(s, false, n + 1));
	KUNIT_EXPECT_EQ(test, s->ev[n], want_ev);
	KUNIT_EXPECT_EQ(test, esa.callbacks, esa.queries);
	KUNIT_EXPECT_EQ(test, esa.cancels, 0);
	KUNIT_EXPECT_EQ(test, esa.stale_cancels, 0);
}

/* ---- records returned ---- */

/* one record: it is the route (cma_query_handler()), one path */
static void ib_route_one_record(struct kunit *test)
{
	struct side *s = cm_new_side(test);
	unsigned int live = xcma_id_live();
	struct rdma_cm_id *id;

	esa_rec(&esa.ans[0], 0, 0x1234, 5);
	esa.nans = 1;
	id = ib_resolved_id(test, s, false);
	rdma_set_service_type(id, 0x28);
	esa_install(test, ESA_ANSWER);
	resolve_route_ib(test, s, id, RDMA_CM_EVENT_ROUTE_RESOLVED);
	KUNIT_EXPECT_EQ(test, s->st[1], 0);
	KUNIT_EXPECT_EQ(test, cm_state(id), XCMA_FSM_ROUTE_RESOLVED);
	expect_request(test, id, false, 0x28, 0);
	expect_rec(test, id->route.path_rec, &esa.ans[0], "path_rec");
	KUNIT_EXPECT_EQ(test, id->route.num_pri_alt_paths, 1);
	KUNIT_EXPECT_NULL(test, id->route.path_rec_inbound);
	KUNIT_EXPECT_NULL(test, id->route.path_rec_outbound);
	ib_destroy(test, id);
	KUNIT_EXPECT_EQ(test, xcma_id_live(), live);
}

/* IPv6: the traffic class of the source's flow information is asked for */
static void ib_route_ipv6(struct kunit *test)
{
	struct side *s = cm_new_side(test);
	struct rdma_cm_id *id;

	esa_rec(&esa.ans[0], IB_PATH_GMP | IB_PATH_PRIMARY |
			     IB_PATH_BIDIRECTIONAL, 0x0042, 3);
	esa.nans = 1;
	id = ib_resolved_id(test, s, true);
	esa_install(test, ESA_ANSWER);
	resolve_route_ib(test, s, id, RDMA_CM_EVENT_ROUTE_RESOLVED);
	expect_request(test, id, true, 0, 0xab);
	expect_rec(test, id->route.path_rec, &esa.ans[0], "path_rec");
	ib_destroy(test, id);
}

/*
 * Several records, as cma_query_handler() sorts them: a GMP (or flagless)
 * record is the primary path, the last such one wins; an inbound and an
 * outbound one are the primary path's one-way records.
 */
static void ib_route_several_records(struct kunit *test)
{
	struct side *s = cm_new_side(test);
	struct rdma_cm_id *id;

	esa_rec(&esa.ans[0], IB_PATH_PRIMARY | IB_PATH_INBOUND, 0x0101, 1);
	esa_rec(&esa.ans[1], 0, 0x0202, 2);
	esa_rec(&esa.ans[2], IB_PATH_PRIMARY | IB_PATH_OUTBOUND, 0x0303, 3);
	esa_rec(&esa.ans[3], IB_PATH_GMP | IB_PATH_PRIMARY, 0x0404, 4);
	esa.nans = 4;
	id = ib_resolved_id(test, s, false);
	esa_install(test, ESA_ANSWER);
	resolve_route_ib(test, s, id, RDMA_CM_EVENT_ROUTE_RESOLVED);
	expect_rec(test, id->route.path_rec, &esa.ans[3], "primary");
	expect_rec(test, id->route.path_rec_inbound, &esa.ans[0], "inbound");
	expect_rec(test, id->route.path_rec_outbound, &esa.ans[2], "outbound");
	KUNIT_EXPECT_EQ(test, id->route.num_pri_alt_paths, 1);
	ib_destroy(test, id);
}

/* ---- the query fails ---- */

struct ib_fail_case {
	const char *name;
	enum esa_mode mode;
	u32 flags;	/* of the one record answered */
	int status;	/* of ROUTE_ERROR */
};

/*
 * ROUTE_ERROR with ib_sa's status (cma_query_handler()), or -EINVAL for a
 * record of no known kind; the id is ADDR_RESOLVED again and a second
 * query resolves the route.
 */
static const struct ib_fail_case ib_fail_cases[] = {
	{ "timeout", ESA_TIMEOUT, 0, -ETIMEDOUT },
	{ "sa_error", ESA_SA_ERROR, 0, -EINVAL },
	{ "record_of_no_kind", ESA_ANSWER, IB_PATH_PRIMARY, -EINVAL },
	{ "no_primary", ESA_ANSWER, IB_PATH_PRIMARY | IB_PATH_INBOUND, -EINVAL },
};

static void ib_fail_desc(const struct ib_fail_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ib_fail, ib_fail_cases, ib_fail_desc);

static void ib_route_error(struct kunit *test)
{
	const struct ib_fail_case *c = test->param_value;
	struct side *s = cm_new_side(test);
	struct rdma_cm_id *id;

	esa_rec(&esa.ans[0], c->flags, 0x0505, 5);
	esa.nans = 1;
	id = ib_resolved_id(test, s, false);
	esa_install(test, c->mode);
	resolve_route_ib(test, s, id, RDMA_CM_EVENT_ROUTE_ERROR);
	KUNIT_EXPECT_EQ(test, s->st[1], c->status);
	KUNIT_EXPECT_EQ(test, cm_state(id), XCMA_FSM_ADDR_RESOLVED);
	KUNIT_EXPECT_NULL(test, id->route.path_rec);
	KUNIT_EXPECT_EQ(test, id->route.num_pri_alt_paths, 0);

	esa_rec(&esa.ans[0], 0, 0x0606, 6);
	esa.mode = ESA_ANSWER;
	resolve_route_ib(test, s, id, RDMA_CM_EVENT_ROUTE_RESOLVED);
	KUNIT_EXPECT_EQ(test, esa.queries, 2);
	expect_rec(test, id->route.path_rec, &esa.ans[0], "path_rec");
	ib_destroy(test, id);
}

/* ib_sa refuses the query: its errno, no event, ADDR_RESOLVED, no leak */
static void ib_route_query_refused(struct kunit *test)
{
	struct side *s = cm_new_side(test);
	unsigned int live = xcma_id_live();
	struct rdma_cm_id *id;

	id = ib_resolved_id(test, s, false);
	esa_install(test, ESA_FAIL);
	KUNIT_EXPECT_EQ(test, rdma_resolve_route(id, IB_TIMEOUT_MS), -ENOMEM);
	KUNIT_EXPECT_EQ(test, cm_state(id), XCMA_FSM_ADDR_RESOLVED);
	msleep(100);
	KUNIT_EXPECT_EQ(test, s->n, 1);
	KUNIT_EXPECT_EQ(test, esa.queries, 1);
	KUNIT_EXPECT_EQ(test, esa.callbacks, 0);
	ib_destroy(test, id);
	KUNIT_EXPECT_EQ(test, esa.cancels + esa.stale_cancels, 0);
	KUNIT_EXPECT_EQ(test, xcma_id_live(), live);
}

/* ---- the query in flight ---- */

/* wait for the late answer the emulation gives after a cancel */
static void expect_late_answer_dropped(struct kunit *test, struct side *s,
				       int events)
{
	int i;

	for (i = 0; i < 100 && READ_ONCE(esa.callbacks) < 1; i++)
		msleep(20);
	/* and a little more, for a work item it might have queued */
	msleep(100);
	KUNIT_EXPECT_EQ(test, esa.queries, 1);
	KUNIT_EXPECT_EQ(test, esa.cancels, 1);
	KUNIT_EXPECT_EQ(test, esa.stale_cancels, 0);
	KUNIT_EXPECT_EQ(test, esa.callbacks, 1);
	KUNIT_EXPECT_EQ(test, s->n, events);
	for (i = 0; i < s->n; i++) {
		KUNIT_EXPECT_NE(test, s->ev[i], RDMA_CM_EVENT_ROUTE_RESOLVED);
		KUNIT_EXPECT_NE(test, s->ev[i], RDMA_CM_EVENT_ROUTE_ERROR);
	}
}

/*
 * rdma_destroy_id() while the query is in flight: cancelled once, waited
 * for, and the answer that comes after the cancel reaches nobody (G2).
 */
static void ib_route_destroy_in_flight(struct kunit *test)
{
	struct side *s = cm_new_side(test);
	unsigned int live = xcma_id_live();
	struct rdma_cm_id *id;

	esa_rec(&esa.ans[0], 0, 0x0707, 7);
	esa.nans = 1;
	id = ib_resolved_id(test, s, false);
	esa_install(test, ESA_HOLD);
	KUNIT_ASSERT_EQ(test, rdma_resolve_route(id, IB_TIMEOUT_MS), 0);
	msleep(50);
	KUNIT_EXPECT_EQ(test, cm_state(id), XCMA_FSM_ROUTE_QUERY);
	ib_destroy(test, id);
	/* destroy waited for the answer: it has come, and was dropped */
	KUNIT_EXPECT_EQ(test, esa.callbacks, 1);
	expect_late_answer_dropped(test, s, 1);
	KUNIT_EXPECT_EQ(test, xcma_id_live(), live);
}

struct ib_removal {
	struct kunit *test;
	struct completion done;
	int ret;
};

static int ib_delete_rxe0(void *p)
{
	struct ib_removal *a = p;

	a->ret = cm_rxe_delete(a->test);
	complete(&a->done);
	return 0;
}

/*
 * rxe0 is deleted while the query is in flight; the user keeps the id
 * past DEVICE_REMOVAL, so that the late answer finds it alive: one
 * DEVICE_REMOVAL (G4), the query cancelled once, the answer dropped, no
 * other event, and the removal completes once the id is destroyed (G5,
 * G8).
 */
static void ib_route_removal_in_flight(struct kunit *test)
{
	static const int want[] = { RDMA_CM_EVENT_ADDR_RESOLVED,
				    RDMA_CM_EVENT_DEVICE_REMOVAL };
	struct side *s = cm_new_side(test);
	unsigned int live = xcma_id_live();
	struct ib_removal *a;
	struct rdma_cm_id *id;
	struct task_struct *t;

	esa_rec(&esa.ans[0], 0, 0x0808, 8);
	esa.nans = 1;
	id = ib_resolved_id(test, s, false);
	esa_install(test, ESA_HOLD);
	KUNIT_ASSERT_EQ(test, rdma_resolve_route(id, IB_TIMEOUT_MS), 0);
	msleep(50);

	a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	a->test = test;
	init_completion(&a->done);
	t = kthread_run(ib_delete_rxe0, a, "ib_delete");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	KUNIT_EXPECT_TRUE(test, cm_wait_events(s, false, 2));
	expect_late_answer_dropped(test, s, 2);
	cm_expect_events(test, s, false, want, ARRAY_SIZE(want));
	/* nor was the route of the late answer installed */
	KUNIT_EXPECT_NULL(test, id->route.path_rec);
	/* the removal waits for this id */
	KUNIT_EXPECT_FALSE(test, completion_done(&a->done));
	ib_destroy(test, id);
	KUNIT_ASSERT_TRUE(test, wait_for_completion_timeout(&a->done,
							    msecs_to_jiffies(30000)));
	KUNIT_EXPECT_EQ(test, a->ret, 0);
	KUNIT_EXPECT_EQ(test, s->n, 2);
	KUNIT_EXPECT_EQ(test, xcma_id_live(), live);
	esa_ops_restore(NULL);
	KUNIT_EXPECT_EQ(test, cm_rxe_add(test), 0);
	cm_expect_rxe0_idle(test);
}

struct ib_issue {
	struct rdma_cm_id *id;
	struct completion done;
	int ret;
};

static int ib_resolve_route_thread(void *p)
{
	struct ib_issue *is = p;

	is->ret = rdma_resolve_route(is->id, IB_TIMEOUT_MS);
	complete(&is->done);
	return 0;
}

/*
 * rxe0 is deleted while rdma_resolve_route() is still inside
 * sa_path_rec_get(): the query is out (ib_sa may answer before it
 * returns) but its id not yet returned. The removal's cancel must cancel
 * that query once it has its id, not the id of the query before, and not
 * wait out the query's timeout instead (sa.c: the query's lock).
 */
static void ib_route_removal_mid_issue(struct kunit *test)
{
	struct side *s = cm_new_side(test);
	unsigned int live = xcma_id_live();
	struct task_struct *issuer, *t;
	struct ib_removal *a;
	struct ib_issue *is;
	struct rdma_cm_id *id;

	esa_rec(&esa.ans[0], 0, 0x0b0b, 9);
	esa.nans = 1;
	id = ib_resolved_id(test, s, false);
	esa_install(test, ESA_STALL);
	init_completion(&esa.issuing);
	init_completion(&esa.go);
	/* a query before, so that a stale id is not 0 */
	esa.id += 7;
	is = kunit_kzalloc(test, sizeof(*is), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, is);
	is->id = id;
	init_completion(&is->done);
	issuer = kthread_run(ib_resolve_route_thread, is, "ib_issue");
	KUNIT_ASSERT_FALSE(test, IS_ERR(issuer));
	KUNIT_ASSERT_TRUE(test, wait_for_completion_timeout(&esa.issuing,
							    msecs_to_jiffies(10000)));

	a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	a->test = test;
	init_completion(&a->done);
	t = kthread_run(ib_delete_rxe0, a, "ib_delete");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	/* DEVICE_REMOVAL is out, the removal's cancel comes right after it */
	KUNIT_EXPECT_TRUE(test, cm_wait_events(s, false, 2));
	msleep(200);
	KUNIT_EXPECT_EQ(test, esa.cancels + esa.stale_cancels, 0);
	complete(&esa.go);
	KUNIT_ASSERT_TRUE(test, wait_for_completion_timeout(&is->done,
							    msecs_to_jiffies(10000)));
	KUNIT_EXPECT_EQ(test, is->ret, 0);

	expect_late_answer_dropped(test, s, 2);
	KUNIT_EXPECT_EQ(test, s->ev[1], RDMA_CM_EVENT_DEVICE_REMOVAL);
	KUNIT_EXPECT_NULL(test, id->route.path_rec);
	ib_destroy(test, id);
	KUNIT_ASSERT_TRUE(test, wait_for_completion_timeout(&a->done,
							    msecs_to_jiffies(30000)));
	KUNIT_EXPECT_EQ(test, a->ret, 0);
	KUNIT_EXPECT_EQ(test, xcma_id_live(), live);
	esa_ops_restore(NULL);
	KUNIT_EXPECT_EQ(test, cm_rxe_add(test), 0);
	cm_expect_rxe0_idle(test);
}

/* ---- a path the user found ---- */

/*
 * rdma_set_ib_path() on an IB port (in-tree rdma_set_ib_path()): the
 * record, copied as it is (the layer 2 fields are RoCE's only), is the
 * route, one path, ROUTE_RESOLVED at once, no event and no SA query;
 * -EINVAL in any state but ADDR_RESOLVED, the route unchanged.
 */
static void ib_set_ib_path(struct kunit *test)
{
	struct side *s = cm_new_side(test);
	struct sa_path_rec rec, other;
	struct rdma_cm_id *id, *idle;

	esa_rec(&rec, IB_PATH_GMP | IB_PATH_PRIMARY, 0x0909, 12);
	esa_rec(&other, 0, 0x0a0a, 13);
	id = ib_resolved_id(test, s, false);
	idle = cm_new_id(test, s, IB_QPT_RC);
	KUNIT_ASSERT_EQ(test,
			kunit_add_action_or_reset(test, ib_destroy_id, idle), 0);
	esa_install(test, ESA_ANSWER);
	KUNIT_EXPECT_EQ(test, rdma_set_ib_path(idle, &rec), -EINVAL);
	KUNIT_EXPECT_EQ(test, cm_state(idle), XCMA_FSM_IDLE);
	KUNIT_EXPECT_NULL(test, idle->route.path_rec);

	KUNIT_ASSERT_EQ(test, rdma_set_ib_path(id, &rec), 0);
	KUNIT_EXPECT_EQ(test, cm_state(id), XCMA_FSM_ROUTE_RESOLVED);
	expect_rec(test, id->route.path_rec, &rec, "path_rec");
	KUNIT_EXPECT_EQ(test, id->route.num_pri_alt_paths, 1);
	KUNIT_EXPECT_EQ(test, rdma_set_ib_path(id, &other), -EINVAL);
	expect_rec(test, id->route.path_rec, &rec, "path_rec kept");
	msleep(100);
	KUNIT_EXPECT_EQ(test, s->n, 1);
	KUNIT_EXPECT_EQ(test, esa.queries, 0);
	ib_destroy(test, id);
}

/* ---- IPoIB addresses ---- */

/*
 * rdma_resolve_ip() over an IPoIB netdev gives a 20-byte hardware
 * address, the QPN and then the port's GID, and the pkey in the
 * broadcast address. The emulation resolves over eth0 for real and
 * rewrites the result into that form in the callback; the device is
 * found by that GID, of type IB, without a netdev (in-tree
 * cma_acquire_dev_by_src_ip() and cma_validate_port()), and the SA is
 * asked for the path between the two GIDs with that pkey.
 */
#define IPOIB_PKEY 0x8012

static const union ib_gid ipoib_sgid = { .raw = {
	0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x00, 0x02, 0xc9, 0x03, 0, 0, 0x10, 0x01 } };
static const union ib_gid ipoib_dgid = { .raw = {
	0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x00, 0x02, 0xc9, 0x03, 0, 0, 0x20, 0x02 } };

static struct {
	xcma_resolve_cb cb;
	void *ctx;
	bool ethernet;	/* leave the address as Ethernet's */
	int gid_asks;
} ipoib;

static void ipoib_dev_addr(struct rdma_dev_addr *da)
{
	if (!ipoib.ethernet)
		esa_ipoib_dev_addr(da, &ipoib_sgid, &ipoib_dgid, IPOIB_PKEY);
}

static void ipoib_resolved(int status, struct sockaddr *src,
			   struct rdma_dev_addr *da, void *unused)
{
	if (!status)
		ipoib_dev_addr(da);
	ipoib.cb(status, src, da, ipoib.ctx);
}

static int ipoib_resolve_ip(struct sockaddr *src, const struct sockaddr *dst,
			    struct rdma_dev_addr *da, unsigned long timeout_ms,
			    xcma_resolve_cb cb, bool by_gid_attr, void *ctx)
{
	ipoib.cb = cb;
	ipoib.ctx = ctx;
	return xcma_kernel_ops.resolve_ip(src, dst, da, timeout_ms,
					  ipoib_resolved, by_gid_attr, NULL);
}

static const struct ib_gid_attr *
ipoib_find_gid(struct ib_device *dev, const union ib_gid *gid,
	       enum ib_gid_type type, u32 port, struct net_device *ndev)
{
	/* rxe0's first GID stands for the IB port's GID */
	if (type == IB_GID_TYPE_IB && !ndev &&
	    !memcmp(gid, &ipoib_sgid, sizeof(*gid)) &&
	    esa_ib_transport(dev, port) == XCMA_TRANSPORT_IB) {
		ipoib.gid_asks++;
		return xcma_kernel_ops.get_gid_attr(dev, port, 0);
	}
	return xcma_kernel_ops.find_gid_by_port(dev, gid, type, port, ndev);
}

static void ib_ipoib_resolve(struct kunit *test)
{
	struct side *s = cm_new_side(test);
	bool v6 = *(const bool *)test->param_value;
	struct sockaddr_storage dst;
	union ib_gid sgid, dgid;
	struct rdma_cm_id *id;

	if (v6)
		cm_addr6(&dst, "fd00:99::1", IB_PORT);
	else
		cm_addr4(&dst, "10.99.0.1", IB_PORT);
	esa_rec(&esa.ans[0], 0, 0x0b0b, 2);
	esa.nans = 1;
	memset(&ipoib, 0, sizeof(ipoib));
	id = cm_new_id(test, s, IB_QPT_RC);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, ib_destroy_id, id),
			0);
	esa_install(test, ESA_ANSWER);
	esa_ops.resolve_ip = ipoib_resolve_ip;
	esa_ops.find_gid_by_port = ipoib_find_gid;

	KUNIT_ASSERT_EQ(test, rdma_resolve_addr(id, NULL,
						(struct sockaddr *)&dst, 2000),
			0);
	KUNIT_ASSERT_TRUE(test, cm_wait_events(s, false, 1));
	KUNIT_ASSERT_EQ(test, s->ev[0], RDMA_CM_EVENT_ADDR_RESOLVED);
	KUNIT_EXPECT_STREQ(test, dev_name(&id->device->dev), "rxe0");
	KUNIT_EXPECT_EQ(test, id->port_num, 1);
	KUNIT_EXPECT_EQ(test, ipoib.gid_asks, 1);
	KUNIT_EXPECT_NOT_NULL(test, id->route.addr.dev_addr.sgid_attr);

	resolve_route_ib(test, s, id, RDMA_CM_EVENT_ROUTE_RESOLVED);
	KUNIT_EXPECT_EQ(test, memcmp(&esa.req.sgid, &ipoib_sgid, 16), 0);
	KUNIT_EXPECT_EQ(test, memcmp(&esa.req.dgid, &ipoib_dgid, 16), 0);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(esa.req.pkey), IPOIB_PKEY);
	expect_request(test, id, v6, 0, 0);
	/* what rdma_read_gids() reads on IB: the address's GIDs */
	rdma_read_gids(id, &sgid, &dgid);
	KUNIT_EXPECT_EQ(test, memcmp(&sgid, &ipoib_sgid, 16), 0);
	KUNIT_EXPECT_EQ(test, memcmp(&dgid, &ipoib_dgid, 16), 0);
	ib_destroy(test, id);
}

static const bool ipoib_v6[] = { false, true };

static void ipoib_desc(const bool *v6, char *desc)
{
	strscpy(desc, *v6 ? "ipv6" : "ipv4", KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ipoib, ipoib_v6, ipoib_desc);

/* an Ethernet address is no IB port's: ADDR_ERROR, -ENODEV, as in-tree */
static void ib_ipoib_ethernet_address(struct kunit *test)
{
	struct side *s = cm_new_side(test);
	struct sockaddr_storage dst;
	struct rdma_cm_id *id;

	cm_addr4(&dst, "10.99.0.1", IB_PORT);
	memset(&ipoib, 0, sizeof(ipoib));
	ipoib.ethernet = true;
	id = cm_new_id(test, s, IB_QPT_RC);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, ib_destroy_id, id),
			0);
	esa_install(test, ESA_ANSWER);
	esa_ops.resolve_ip = ipoib_resolve_ip;
	esa_ops.find_gid_by_port = ipoib_find_gid;
	KUNIT_ASSERT_EQ(test, rdma_resolve_addr(id, NULL,
						(struct sockaddr *)&dst, 2000),
			0);
	KUNIT_ASSERT_TRUE(test, cm_wait_events(s, false, 1));
	KUNIT_EXPECT_EQ(test, s->ev[0], RDMA_CM_EVENT_ADDR_ERROR);
	KUNIT_EXPECT_EQ(test, s->st[0], -ENODEV);
	KUNIT_EXPECT_NULL(test, id->device);
	KUNIT_EXPECT_EQ(test, ipoib.gid_asks, 0);
	ib_destroy(test, id);
}

/* ---- what the route becomes: the QP's attributes and the REQ ---- */

/*
 * A route of three records, then rdma_init_qp_attr() and rdma_connect().
 * INIT (cma_ib_init_qp_attr()): the pkey index of the address's pkey (not
 * RoCE's default one), the port, no access flags. The REQ
 * (cma_connect_ib()): the route's primary, inbound and outbound records,
 * the service id, the CM timeouts and retries of the in-tree CM. RTR and
 * RTS (rdma_init_qp_attr() over ib_cm): ib_cm's AV and MTU as it computed
 * them from the primary path, the id's own starting PSN as rq_psn, the
 * user's ACK timeout over ib_cm's.
 */
static void ib_route_to_qp_attr(struct kunit *test)
{
	struct rdma_conn_param param = { .qp_num = 0x77, .retry_count = 9,
					 .rnr_retry_count = 3,
					 .responder_resources = 2,
					 .initiator_depth = 2 };
	struct side *s = cm_new_side(test);
	struct rdma_dev_addr *da;
	struct ib_qp_attr attr;
	struct rdma_cm_id *id;
	int mask;

	esa_rec(&esa.ans[0], IB_PATH_GMP | IB_PATH_PRIMARY, 0x0c0d, 9);
	esa_rec(&esa.ans[1], IB_PATH_PRIMARY | IB_PATH_INBOUND, 0x0e0f, 10);
	esa_rec(&esa.ans[2], IB_PATH_PRIMARY | IB_PATH_OUTBOUND, 0x1011, 11);
	esa.ans[0].mtu = IB_MTU_4096;
	esa.ans[0].rate = IB_RATE_100_GBPS;
	esa.ans[0].packet_life_time = 17;
	esa.nans = 3;
	id = ib_resolved_id(test, s, false);
	da = &id->route.addr.dev_addr;
	esa_install(test, ESA_ANSWER);
	resolve_route_ib(test, s, id, RDMA_CM_EVENT_ROUTE_RESOLVED);

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_INIT;
	esa_pkey_asked = 0xbeef;
	KUNIT_ASSERT_EQ(test, rdma_init_qp_attr(id, &attr, &mask), 0);
	KUNIT_EXPECT_EQ(test, mask, IB_QP_STATE | IB_QP_PKEY_INDEX |
					    IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	KUNIT_EXPECT_EQ(test, esa_pkey_asked, ib_addr_get_pkey(da));
	KUNIT_EXPECT_EQ(test, attr.pkey_index, ESA_PKEY_INDEX);
	KUNIT_EXPECT_EQ(test, attr.port_num, id->port_num);
	KUNIT_EXPECT_EQ(test, attr.qp_access_flags, 0);

	KUNIT_ASSERT_EQ(test, rdma_connect(id, &param), 0);
	KUNIT_ASSERT_EQ(test, esa_req_calls, 1);
	KUNIT_ASSERT_TRUE(test, esa_req_has[0]);
	expect_rec(test, &esa_req_path[0], &esa.ans[0], "REQ primary");
	KUNIT_ASSERT_TRUE(test, esa_req_has[1]);
	expect_rec(test, &esa_req_path[1], &esa.ans[1], "REQ inbound");
	KUNIT_ASSERT_TRUE(test, esa_req_has[2]);
	expect_rec(test, &esa_req_path[2], &esa.ans[2], "REQ outbound");
	KUNIT_EXPECT_PTR_EQ(test, esa_req.ppath_sgid_attr, da->sgid_attr);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(esa_req.service_id),
			((u64)RDMA_PS_TCP << 16) + IB_PORT);
	KUNIT_EXPECT_EQ(test, esa_req.qp_num, 0x77);
	KUNIT_EXPECT_EQ(test, esa_req.qp_type, IB_QPT_RC);
	KUNIT_EXPECT_EQ(test, esa_req.starting_psn, xcma_id_of(id)->seq_num);
	KUNIT_EXPECT_EQ(test, esa_req.retry_count, 7);
	KUNIT_EXPECT_EQ(test, esa_req.rnr_retry_count, 3);
	KUNIT_EXPECT_EQ(test, esa_req.remote_cm_response_timeout, 20);
	KUNIT_EXPECT_EQ(test, esa_req.local_cm_response_timeout, 20);
	KUNIT_EXPECT_EQ(test, esa_req.max_cm_retries, 15);

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTR;
	KUNIT_ASSERT_EQ(test, rdma_init_qp_attr(id, &attr, &mask), 0);
	KUNIT_EXPECT_EQ(test, rdma_ah_get_dlid(&attr.ah_attr), 0x0c0d);
	KUNIT_EXPECT_EQ(test, rdma_ah_get_sl(&attr.ah_attr), 9);
	KUNIT_EXPECT_EQ(test, rdma_ah_get_static_rate(&attr.ah_attr),
			IB_RATE_100_GBPS);
	KUNIT_EXPECT_EQ(test, attr.path_mtu, IB_MTU_4096);
	KUNIT_EXPECT_EQ(test, attr.rq_psn, xcma_id_of(id)->seq_num);

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTS;
	KUNIT_ASSERT_EQ(test, rdma_init_qp_attr(id, &attr, &mask), 0);
	KUNIT_EXPECT_EQ(test, attr.timeout, 18);
	KUNIT_ASSERT_EQ(test, rdma_set_ack_timeout(id, 21), 0);
	KUNIT_ASSERT_EQ(test, rdma_init_qp_attr(id, &attr, &mask), 0);
	KUNIT_EXPECT_EQ(test, attr.timeout, 21);
	ib_destroy(test, id);
}

/* ---- AF_IB addresses ---- */

/*
 * rxe0's first GID (port 1) stands for the emulated IB port's GID: the
 * emulation finds it as a GID of type IB without a netdev, as ib_core
 * would on an IB port (in-tree cma_validate_port() asks for just that).
 */
#define AFIB_PORT 18702
#define AFIB_PKEY 0xffff

static union ib_gid afib_gid;
static int afib_gid_asks;

static const struct ib_gid_attr *
afib_find_gid(struct ib_device *dev, const union ib_gid *gid,
	      enum ib_gid_type type, u32 port, struct net_device *ndev)
{
	if (type == IB_GID_TYPE_IB && !ndev &&
	    !memcmp(gid, &afib_gid, sizeof(*gid)) &&
	    esa_ib_transport(dev, port) == XCMA_TRANSPORT_IB) {
		afib_gid_asks++;
		return xcma_kernel_ops.get_gid_attr(dev, port, 0);
	}
	return xcma_kernel_ops.find_gid_by_port(dev, gid, type, port, ndev);
}

/* the emulation, with rxe0's GID found as an IB port's (@ib: else RoCE) */
static void afib_install(struct kunit *test, bool ib)
{
	struct ib_device *dev;

	dev = ib_device_get_by_name("rxe0", RDMA_DRIVER_UNKNOWN);
	KUNIT_ASSERT_NOT_NULL(test, dev);
	KUNIT_ASSERT_EQ(test, xcma_kernel_ops.query_gid(dev, 1, 0, &afib_gid),
			0);
	ib_device_put(dev);
	afib_gid_asks = 0;
	esa_install(test, ESA_ANSWER);
	esa_ops.find_gid_by_port = afib_find_gid;
	if (!ib)
		esa_ops.port_transport = xcma_kernel_ops.port_transport;
}

static void afib_addr(struct sockaddr_storage *ss, const union ib_gid *gid,
		      u16 pkey, u64 sid, u64 mask)
{
	struct sockaddr_ib *sib = (struct sockaddr_ib *)ss;

	memset(ss, 0, sizeof(*ss));
	sib->sib_family = AF_IB;
	sib->sib_pkey = htons(pkey);
	if (gid)
		memcpy(&sib->sib_addr, gid, sizeof(*gid));
	sib->sib_sid = cpu_to_be64(sid);
	sib->sib_sid_mask = cpu_to_be64(mask);
}

static struct rdma_cm_id *afib_new_id(struct kunit *test, struct side *s,
				      enum rdma_ucm_port_space ps)
{
	struct rdma_cm_id *id;

	id = rdma_create_id(&init_net, cm_handler, s, ps, IB_QPT_RC);
	KUNIT_ASSERT_FALSE(test, IS_ERR(id));
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, ib_destroy_id, id),
			0);
	return id;
}

static struct sockaddr_ib *afib_src(struct rdma_cm_id *id)
{
	return (struct sockaddr_ib *)&id->route.addr.src_addr;
}

/*
 * rdma_bind_addr() of rxe0's GID, service id given or left to the CM:
 * the id is on the emulated IB port (cma_acquire_dev_by_src_ip() over
 * cma_translate_ib(): device, port, the address's GID and pkey as its
 * hardware address), holds the port of the IB port space, and its
 * service id is the space's prefix and the port under a full mask
 * (cma_select_ib_ps(), cma_bind_port()), which rdma_get_service_id()
 * returns.
 */
static void ib_afib_bind(struct kunit *test)
{
	bool given = *(const bool *)test->param_value;
	struct rdma_dev_addr *da;
	struct sockaddr_storage a;
	struct rdma_cm_id *id;
	union ib_gid sgid;
	u64 sid;
	u16 port;
	int low, high;

	afib_install(test, true);
	id = afib_new_id(test, cm_new_side(test), RDMA_PS_IB);
	da = &id->route.addr.dev_addr;
	if (given)
		afib_addr(&a, &afib_gid, AFIB_PKEY,
			  RDMA_IB_IP_PS_IB | AFIB_PORT, ~0ULL);
	else
		afib_addr(&a, &afib_gid, AFIB_PKEY, 0, 0);
	KUNIT_ASSERT_EQ(test, rdma_bind_addr(id, (struct sockaddr *)&a), 0);
	KUNIT_EXPECT_EQ(test, cm_state(id), XCMA_FSM_ADDR_BOUND);
	KUNIT_ASSERT_NOT_NULL(test, id->device);
	KUNIT_EXPECT_STREQ(test, dev_name(&id->device->dev), "rxe0");
	KUNIT_EXPECT_EQ(test, id->port_num, 1);
	KUNIT_EXPECT_EQ(test, afib_gid_asks, 1);
	KUNIT_EXPECT_EQ(test, da->dev_type, ARPHRD_INFINIBAND);
	rdma_addr_get_sgid(da, &sgid);
	KUNIT_EXPECT_EQ(test, memcmp(&sgid, &afib_gid, sizeof(sgid)), 0);
	KUNIT_EXPECT_EQ(test, ib_addr_get_pkey(da), AFIB_PKEY);
	KUNIT_EXPECT_EQ(test, afib_src(id)->sib_family, AF_IB);
	KUNIT_EXPECT_EQ(test, memcmp(&afib_src(id)->sib_addr, &afib_gid,
				     sizeof(afib_gid)), 0);

	sid = be64_to_cpu(afib_src(id)->sib_sid);
	port = sid & 0xffff;
	KUNIT_EXPECT_EQ(test, sid & RDMA_IB_IP_PS_MASK, RDMA_IB_IP_PS_IB);
	if (given) {
		KUNIT_EXPECT_EQ(test, port, AFIB_PORT);
	} else {
		inet_get_local_port_range(&init_net, &low, &high);
		KUNIT_EXPECT_GE(test, port, low);
		KUNIT_EXPECT_LE(test, port, high);
	}
	KUNIT_EXPECT_EQ(test, be64_to_cpu(afib_src(id)->sib_sid_mask), ~0ULL);
	a = id->route.addr.src_addr;
	KUNIT_EXPECT_EQ(test,
			be64_to_cpu(rdma_get_service_id(id, (struct sockaddr *)&a)),
			sid);
	KUNIT_EXPECT_EQ(test, xcma_port_owners(&init_net, RDMA_PS_IB, port), 1U);
	KUNIT_EXPECT_EQ(test, xcma_port_owners(&init_net, RDMA_PS_TCP, port),
			0U);
	ib_destroy(test, id);
	KUNIT_EXPECT_EQ(test, xcma_port_owners(&init_net, RDMA_PS_IB, port), 0U);
}

static const bool afib_given[] = { true, false };

static void afib_given_desc(const bool *given, char *desc)
{
	strscpy(desc, *given ? "sid_given" : "sid_assigned",
		KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(afib_given, afib_given, afib_given_desc);

enum afib_op {
	AFIB_BIND,		/* rdma_bind_addr() */
	AFIB_RESOLVE,		/* rdma_resolve_addr(), no source */
	AFIB_RESOLVE_INET_SRC,	/* rdma_resolve_addr() from 10.99.0.1 */
};

enum afib_gid_kind {
	AFIB_GID_RXE0,		/* the emulated IB port's GID */
	AFIB_GID_NONE,		/* in its subnet, on no port */
	AFIB_GID_FAR,		/* 2001:db8::/64: no port's (fec0::/64 is */
				/* eth0's from QEMU, hence rxe0's) */
};

struct afib_bad_case {
	const char *name;
	bool ib;		/* rxe0's port 1 is IB (else RoCE, as it is) */
	enum rdma_ucm_port_space ps;
	enum afib_op op;
	enum afib_gid_kind gid;
	u16 pkey;
	u64 sid;
	u64 mask;
	int ret;
	unsigned int state;	/* the id's after the refusal */
};

#define AFIB_SID_IB (RDMA_IB_IP_PS_IB | AFIB_PORT)
#define AFIB_SID_TCP (RDMA_IB_IP_PS_TCP | AFIB_PORT)

/*
 * Bad AF_IB input: the in-tree errno, where cma.c (6.12) returns it, and
 * nothing held: no device, no port, the id IDLE (ADDR_BOUND for a
 * resolve that got past the bind, as rdma_resolve_addr()'s err label).
 */
static const struct afib_bad_case afib_bad_cases[] = {
	/*
	 * cma_acquire_dev_by_src_ip(): cma_validate_port() skips a RoCE port
	 * for an ARPHRD_INFINIBAND address (from cma_translate_ib())
	 */
	{ "bind_on_roce_port", false, RDMA_PS_IB, AFIB_BIND, AFIB_GID_RXE0,
	  AFIB_PKEY, AFIB_SID_IB, ~0ULL, -ENODEV, XCMA_FSM_IDLE },
	/* the same, no IB port has the GID */
	{ "bind_gid_of_no_port", true, RDMA_PS_IB, AFIB_BIND, AFIB_GID_NONE,
	  AFIB_PKEY, AFIB_SID_IB, ~0ULL, -ENODEV, XCMA_FSM_IDLE },
	/* cma_get_port(): cma_select_ib_ps() finds no space, the rest below */
	{ "bind_tcp_id_sid_ib", true, RDMA_PS_TCP, AFIB_BIND, AFIB_GID_RXE0,
	  AFIB_PKEY, AFIB_SID_IB, ~0ULL, -EPROTONOSUPPORT, XCMA_FSM_IDLE },
	{ "bind_udp_id_sid_tcp", true, RDMA_PS_UDP, AFIB_BIND, AFIB_GID_RXE0,
	  AFIB_PKEY, AFIB_SID_TCP, ~0ULL, -EPROTONOSUPPORT, XCMA_FSM_IDLE },
	{ "bind_ipoib_id", true, RDMA_PS_IPOIB, AFIB_BIND, AFIB_GID_RXE0,
	  AFIB_PKEY, AFIB_SID_IB, ~0ULL, -EPROTONOSUPPORT, XCMA_FSM_IDLE },
	{ "bind_zero_sid", true, RDMA_PS_IB, AFIB_BIND, AFIB_GID_RXE0,
	  AFIB_PKEY, 0, ~0ULL, -EPROTONOSUPPORT, XCMA_FSM_IDLE },
	/* the wildcard source binds; cma_resolve_ib_dev() finds no port */
	{ "resolve_far_gid", true, RDMA_PS_IB, AFIB_RESOLVE, AFIB_GID_FAR,
	  AFIB_PKEY, AFIB_SID_IB, ~0ULL, -ENODEV, XCMA_FSM_ADDR_BOUND },
	{ "resolve_pkey_of_no_port", true, RDMA_PS_IB, AFIB_RESOLVE,
	  AFIB_GID_RXE0, ESA_NO_PKEY, AFIB_SID_IB, ~0ULL, -ENODEV,
	  XCMA_FSM_ADDR_BOUND },
	{ "resolve_on_roce_port", false, RDMA_PS_IB, AFIB_RESOLVE,
	  AFIB_GID_RXE0, AFIB_PKEY, AFIB_SID_IB, ~0ULL, -ENODEV,
	  XCMA_FSM_ADDR_BOUND },
	/* resolve_prepare_src(): the source's family is not the destination's */
	{ "resolve_inet_src", false, RDMA_PS_TCP, AFIB_RESOLVE_INET_SRC,
	  AFIB_GID_RXE0, AFIB_PKEY, AFIB_SID_TCP, ~0ULL, -EINVAL,
	  XCMA_FSM_ADDR_BOUND },
};

KUNIT_ARRAY_PARAM_DESC(afib_bad, afib_bad_cases, name);

static void ib_afib_bad_input(struct kunit *test)
{
	const struct afib_bad_case *c = test->param_value;
	struct side *s = cm_new_side(test);
	struct sockaddr_storage a, src;
	struct rdma_cm_id *id;
	union ib_gid gid;
	int ret;

	afib_install(test, c->ib);
	gid = afib_gid;
	if (c->gid == AFIB_GID_NONE)
		gid.global.interface_id = cpu_to_be64(0x0002c9030000dead);
	else if (c->gid == AFIB_GID_FAR)
		gid.global.subnet_prefix = cpu_to_be64(0x20010db800000000);
	afib_addr(&a, &gid, c->pkey, c->sid, c->mask);
	id = afib_new_id(test, s, c->ps);
	switch (c->op) {
	case AFIB_BIND:
		ret = rdma_bind_addr(id, (struct sockaddr *)&a);
		break;
	case AFIB_RESOLVE:
		ret = rdma_resolve_addr(id, NULL, (struct sockaddr *)&a, 2000);
		break;
	default:
		cm_addr4(&src, "10.99.0.1", 0);
		ret = rdma_resolve_addr(id, (struct sockaddr *)&src,
					(struct sockaddr *)&a, 2000);
		break;
	}
	KUNIT_EXPECT_EQ(test, ret, c->ret);
	KUNIT_EXPECT_EQ(test, cm_state(id), c->state);
	if (c->op != AFIB_RESOLVE_INET_SRC)
		KUNIT_EXPECT_NULL(test, id->device);
	if (c->op == AFIB_BIND) {
		KUNIT_EXPECT_EQ(test, id->route.addr.src_addr.ss_family, 0);
		KUNIT_EXPECT_NE(test, id->route.addr.dev_addr.dev_type,
				ARPHRD_INFINIBAND);
	}
	KUNIT_EXPECT_EQ(test, xcma_port_owners(&init_net, RDMA_PS_IB, AFIB_PORT),
			0U);
	KUNIT_EXPECT_EQ(test, xcma_port_owners(&init_net, RDMA_PS_TCP,
					       AFIB_PORT), 0U);
	msleep(50);
	KUNIT_EXPECT_EQ(test, s->n, 0);
	ib_destroy(test, id);
}

/*
 * rdma_resolve_addr() to rxe0's own GID (AF_IB), from no source or from
 * a bound AF_IB one, then rdma_resolve_route(): the id takes the IB port
 * (cma_resolve_ib_dev(): the port with the destination's pkey whose
 * table holds its GID), its source GID is that port's, ADDR_RESOLVED
 * follows with no neighbour resolution (cma_resolve_ib_addr()); the path
 * record request (cma_query_ib_route()) asks for the two GIDs, the
 * destination's pkey and its service id as given (rdma_get_service_id()),
 * and the traffic class of the source's flow information.
 */
static void ib_afib_resolve_route(struct kunit *test)
{
	bool bound = *(const bool *)test->param_value;
	ib_sa_comp_mask mask = IB_SA_PATH_REC_DGID | IB_SA_PATH_REC_SGID |
			       IB_SA_PATH_REC_PKEY | IB_SA_PATH_REC_NUMB_PATH |
			       IB_SA_PATH_REC_REVERSIBLE |
			       IB_SA_PATH_REC_SERVICE_ID |
			       IB_SA_PATH_REC_TRAFFIC_CLASS;
	struct side *s = cm_new_side(test);
	struct sockaddr_storage src, dst;
	struct rdma_dev_addr *da;
	struct rdma_cm_id *id;
	union ib_gid sgid, dgid;
	u8 tclass = 0;

	esa_rec(&esa.ans[0], 0, 0x0d0e, 4);
	esa.nans = 1;
	afib_install(test, true);
	id = afib_new_id(test, s, RDMA_PS_IB);
	da = &id->route.addr.dev_addr;
	if (bound) {
		afib_addr(&src, &afib_gid, AFIB_PKEY, 0, 0);
		tclass = 0x5c;
		((struct sockaddr_ib *)&src)->sib_flowinfo =
			cpu_to_be32(tclass << 20 | 0x321);
		KUNIT_ASSERT_EQ(test, rdma_bind_addr(id, (struct sockaddr *)&src),
				0);
	}
	afib_addr(&dst, &afib_gid, AFIB_PKEY, RDMA_IB_IP_PS_TCP | AFIB_PORT,
		  ~0ULL);
	KUNIT_ASSERT_EQ(test, rdma_resolve_addr(id, NULL,
						(struct sockaddr *)&dst, 2000),
			0);
	KUNIT_ASSERT_TRUE(test, cm_wait_events(s, false, 1));
	KUNIT_ASSERT_EQ(test, s->ev[0], RDMA_CM_EVENT_ADDR_RESOLVED);
	KUNIT_ASSERT_NOT_NULL(test, id->device);
	KUNIT_EXPECT_STREQ(test, dev_name(&id->device->dev), "rxe0");
	KUNIT_EXPECT_EQ(test, id->port_num, 1);
	KUNIT_EXPECT_EQ(test, da->dev_type, ARPHRD_INFINIBAND);
	KUNIT_EXPECT_EQ(test, afib_src(id)->sib_family, AF_IB);
	KUNIT_EXPECT_EQ(test, memcmp(&afib_src(id)->sib_addr, &afib_gid,
				     sizeof(afib_gid)), 0);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(afib_src(id)->sib_sid) &
			RDMA_IB_IP_PS_MASK, RDMA_IB_IP_PS_IB);
	rdma_addr_get_sgid(da, &sgid);
	rdma_addr_get_dgid(da, &dgid);
	KUNIT_EXPECT_EQ(test, memcmp(&sgid, &afib_gid, sizeof(sgid)), 0);
	KUNIT_EXPECT_EQ(test, memcmp(&dgid, &afib_gid, sizeof(dgid)), 0);

	resolve_route_ib(test, s, id, RDMA_CM_EVENT_ROUTE_RESOLVED);
	KUNIT_EXPECT_EQ(test, (__force u64)esa.mask, (__force u64)mask);
	KUNIT_EXPECT_EQ(test, memcmp(&esa.req.sgid, &afib_gid, 16), 0);
	KUNIT_EXPECT_EQ(test, memcmp(&esa.req.dgid, &afib_gid, 16), 0);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(esa.req.pkey), AFIB_PKEY);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(esa.req.service_id),
			RDMA_IB_IP_PS_TCP | AFIB_PORT);
	KUNIT_EXPECT_EQ(test, esa.req.traffic_class, tclass);
	KUNIT_EXPECT_EQ(test, esa.req.numb_path, 1);
	KUNIT_EXPECT_EQ(test, esa.req.reversible, 1);
	KUNIT_EXPECT_PTR_EQ(test, esa.dev, id->device);
	KUNIT_EXPECT_EQ(test, esa.port, id->port_num);
	expect_rec(test, id->route.path_rec, &esa.ans[0], "path_rec");
	ib_destroy(test, id);
}

static const bool afib_bound[] = { false, true };

static void afib_bound_desc(const bool *bound, char *desc)
{
	strscpy(desc, *bound ? "bound_src" : "no_src", KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(afib_bound, afib_bound, afib_bound_desc);

/* ib_cm's listen, as the listener asked for it, and its answers to REQs */
static struct {
	__be64 sid;
	struct ib_device *dev;
	ib_cm_handler handler;
	int mras, rejs;
} afib_cm;

static struct ib_cm_id *afib_insert_listen(struct ib_device *dev,
					   ib_cm_handler handler, __be64 sid)
{
	afib_cm.sid = sid;
	afib_cm.dev = dev;
	afib_cm.handler = handler;
	return xcma_kernel_ops.insert_listen(dev, handler, sid);
}

static int afib_send_mra(struct ib_cm_id *cm_id, u8 timeout, const void *data,
			 u8 len)
{
	afib_cm.mras++;
	return 0;
}

static int afib_send_rej(struct ib_cm_id *cm_id, enum ib_cm_rej_reason reason,
			 void *ari, u8 ari_len, const void *data, u8 len)
{
	afib_cm.rejs++;
	return 0;
}

static int afib_cm_handler(struct ib_cm_id *cm_id,
			   const struct ib_cm_event *ev)
{
	return 0;
}

/*
 * A REQ as ib_cm hands it to the listen callback, with the path turned
 * for the passive side and private data without an IP header (what
 * cma_get_net_dev() takes for AF_IB).
 */
static int afib_req(struct kunit *test, u64 sid, const union ib_gid *peer,
		    struct ib_cm_id **cm_id)
{
	static u8 pdata[IB_CM_REQ_PRIVATE_DATA_SIZE];
	struct sa_path_rec path;
	struct ib_cm_event ev = {};

	*cm_id = ib_create_cm_id(afib_cm.dev, afib_cm_handler, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(*cm_id));
	esa_rec(&path, 0, 0x0f0f, 0);
	path.sgid = afib_gid;
	path.dgid = *peer;
	path.service_id = cpu_to_be64(sid);
	path.pkey = htons(AFIB_PKEY);
	path.flow_label = cpu_to_be32(0x4242);
	ev.event = IB_CM_REQ_RECEIVED;
	ev.param.req_rcvd.primary_path = &path;
	ev.param.req_rcvd.port = 1;
	ev.param.req_rcvd.qp_type = IB_QPT_RC;
	ev.param.req_rcvd.remote_qpn = 0x99;
	ev.param.req_rcvd.starting_psn = 0x1234;
	ev.private_data = pdata;
	return afib_cm.handler(*cm_id, &ev);
}

/*
 * rdma_listen() on an AF_IB address (bound to the emulated IB port):
 * ib_cm listens on its service id (cma_ib_listen() with
 * rdma_get_service_id()). A REQ without IP header to that service id
 * reaches it (cma_ib_id_from_event(): no netdev, so AF_IB, init_net's
 * ids of the service id's port space and port; cma_match_net_dev()); the
 * new id's addresses are the REQ path's GIDs, its service id the REQ's
 * (cma_save_ib_info()), its hardware address is ARPHRD_INFINIBAND with
 * the address's pkey. A REQ to the next service id finds no listener:
 * ib_cm is told to reject it, no event.
 */
static void ib_afib_listen_req(struct kunit *test)
{
	static const union ib_gid peer = { .raw = {
		0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x00, 0x02, 0xc9, 0x03, 0, 0,
		0x30, 0x03 } };
	struct side *s = cm_new_side(test);
	struct sockaddr_ib *lsib, *rsib;
	struct sockaddr_storage a;
	struct ib_cm_id *cm_id;
	struct rdma_cm_id *id, *conn;
	u64 sid = RDMA_IB_IP_PS_IB | 18704;

	memset(&afib_cm, 0, sizeof(afib_cm));
	afib_install(test, true);
	esa_ops.insert_listen = afib_insert_listen;
	esa_ops.send_mra = afib_send_mra;
	esa_ops.send_rej = afib_send_rej;
	id = afib_new_id(test, s, RDMA_PS_IB);
	s->listener = id;
	s->action = REQ_KEEP;
	afib_addr(&a, &afib_gid, AFIB_PKEY, sid, ~0ULL);
	KUNIT_ASSERT_EQ(test, rdma_bind_addr(id, (struct sockaddr *)&a), 0);
	KUNIT_ASSERT_EQ(test, rdma_listen(id, 4), 0);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(afib_cm.sid), sid);
	KUNIT_ASSERT_PTR_EQ(test, afib_cm.dev, id->device);
	KUNIT_ASSERT_NOT_NULL(test, afib_cm.handler);

	/* the next service id: nobody's */
	KUNIT_EXPECT_NE(test, afib_req(test, sid + 1, &peer, &cm_id), 0);
	ib_destroy_cm_id(cm_id);
	KUNIT_EXPECT_EQ(test, s->cn, 0);
	KUNIT_EXPECT_NULL(test, s->conn);

	KUNIT_ASSERT_EQ(test, afib_req(test, sid, &peer, &cm_id), 0);
	KUNIT_ASSERT_EQ(test, s->cn, 1);
	KUNIT_EXPECT_EQ(test, s->cev[0], RDMA_CM_EVENT_CONNECT_REQUEST);
	KUNIT_EXPECT_EQ(test, afib_cm.mras, 1);
	conn = s->conn;
	KUNIT_ASSERT_NOT_NULL(test, conn);
	KUNIT_EXPECT_EQ(test, conn->ps, RDMA_PS_IB);
	KUNIT_EXPECT_PTR_EQ(test, conn->device, id->device);
	KUNIT_EXPECT_EQ(test, conn->port_num, 1);
	lsib = (struct sockaddr_ib *)&conn->route.addr.src_addr;
	rsib = (struct sockaddr_ib *)&conn->route.addr.dst_addr;
	KUNIT_EXPECT_EQ(test, lsib->sib_family, AF_IB);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(lsib->sib_sid), sid);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(lsib->sib_sid_mask), ~0ULL);
	KUNIT_EXPECT_EQ(test, memcmp(&lsib->sib_addr, &afib_gid, 16), 0);
	KUNIT_EXPECT_EQ(test, ntohs(lsib->sib_pkey), AFIB_PKEY);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(lsib->sib_flowinfo), 0x4242);
	KUNIT_EXPECT_EQ(test, rsib->sib_family, AF_IB);
	KUNIT_EXPECT_EQ(test, memcmp(&rsib->sib_addr, &peer, 16), 0);
	KUNIT_EXPECT_EQ(test,
			be64_to_cpu(rdma_get_service_id(conn, (struct sockaddr *)lsib)),
			sid);
	/* its hardware address is its own address's (cma_translate_ib()) */
	KUNIT_EXPECT_EQ(test, conn->route.addr.dev_addr.dev_type,
			ARPHRD_INFINIBAND);
	KUNIT_EXPECT_EQ(test, ib_addr_get_pkey(&conn->route.addr.dev_addr),
			AFIB_PKEY);
	/*
	 * The REQ came without a GRH (no GID attribute): the id's GID is its
	 * address's, found as an IB GID (in-tree cma_ib_acquire_dev())
	 */
	KUNIT_EXPECT_NOT_NULL_MSG(test, conn->route.addr.dev_addr.sgid_attr,
				  "the passive id has no GID");
	if (conn->route.addr.dev_addr.sgid_attr)
		KUNIT_EXPECT_EQ(test,
				memcmp(&conn->route.addr.dev_addr.sgid_attr->gid,
				       &afib_gid, sizeof(afib_gid)), 0);
	/*
	 * The conn id owns cm_id now and destroys it; the REJ for a REQ
	 * not answered is ib_cm's to send then (cm_destroy_id()), not the
	 * CM's.
	 */
	rdma_destroy_id(conn);
	KUNIT_EXPECT_EQ(test, afib_cm.rejs, 0);
	ib_destroy(test, id);
}

/* ---- a REQ whose listener is destroyed meanwhile ---- */

struct req_race {
	struct rdma_cm_id *listener;
	struct completion destroyed;
	bool taken;		/* the stub's thread destroys the listener */
	bool untracked;		/* its restrack entry lost its task first */
};

static struct req_race *req_race;

static int req_race_destroy(void *arg)
{
	struct req_race *r = arg;

	rdma_destroy_id(r->listener);
	complete(&r->destroyed);
	return 0;
}

/*
 * The stub of xcma_ib_req_found(): the REQ holds its listener, nothing
 * is built yet. Another task destroys the listener; its destroy untracks
 * it (rdma_restrack_del() puts and clears the owner's task) and then
 * waits for this REQ's reference: wait for the first, then go on.
 */
static void destroy_while_found(struct rdma_cm_id *listener)
{
	struct req_race *r = req_race;
	struct xcma_id *xid = xcma_id_of(listener);
	struct task_struct *t;
	int i;

	if (listener != r->listener || r->taken)
		return;
	r->taken = true;
	t = kthread_run(req_race_destroy, r, "ib_req_race");
	if (IS_ERR(t)) {
		r->taken = false;
		return;
	}
	for (i = 0; i < 150 && READ_ONCE(xid->res.task); i++)
		msleep(20);
	r->untracked = !READ_ONCE(xid->res.task);
}

static void req_race_cleanup(void *arg)
{
	struct req_race *r = arg;

	if (!r->taken)
		rdma_destroy_id(r->listener);
	else
		wait_for_completion_timeout(&r->destroyed,
					    msecs_to_jiffies(5000));
}

/*
 * A conn id belongs to its listener's owner: for a process's listener
 * (rdma_ucm's), that process's task. xcma reads the task once the REQ
 * holds the listener's handler lock in LISTEN, as in-tree
 * cma_ib_req_handler() names its conn id under the listener's handler
 * mutex after the LISTEN check. Before (issue 26, "connection ids built
 * before the listener's lock"), the conn id was named right after the
 * lookup: a destroy of the listener in that window had cleared the
 * task, and rdma_restrack_attach_task() WARNed (a WARN reachable from a
 * process's close of its listener). Now the REQ finds the listener
 * destroyed, builds nothing for it, and ib_cm is told to reject.
 */
static void ib_req_listener_destroyed_meanwhile(struct kunit *test)
{
	static const union ib_gid peer = { .raw = {
		0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x00, 0x02, 0xc9, 0x03, 0, 0,
		0x30, 0x05 } };
	struct req_race *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	struct side *s = cm_new_side(test);
	struct sockaddr_storage a;
	struct ib_cm_id *cm_id;
	struct rdma_cm_id *id;
	unsigned int live;
	u64 sid = RDMA_IB_IP_PS_IB | 18706;

	KUNIT_ASSERT_NOT_NULL(test, r);
	init_completion(&r->destroyed);
	memset(&afib_cm, 0, sizeof(afib_cm));
	afib_install(test, true);
	esa_ops.insert_listen = afib_insert_listen;
	esa_ops.send_mra = afib_send_mra;
	esa_ops.send_rej = afib_send_rej;
	id = rdma_create_user_id(cm_handler, s, RDMA_PS_IB, IB_QPT_RC);
	KUNIT_ASSERT_FALSE(test, IS_ERR(id));
	r->listener = id;
	KUNIT_ASSERT_EQ(test,
			kunit_add_action_or_reset(test, req_race_cleanup, r), 0);
	s->listener = id;
	s->action = REQ_KEEP;
	afib_addr(&a, &afib_gid, AFIB_PKEY, sid, ~0ULL);
	KUNIT_ASSERT_EQ(test, rdma_bind_addr(id, (struct sockaddr *)&a), 0);
	KUNIT_ASSERT_EQ(test, rdma_listen(id, 4), 0);
	KUNIT_ASSERT_NOT_NULL(test, afib_cm.handler);
	KUNIT_EXPECT_PTR_EQ(test, xcma_id_of(id)->res.task, current);

	/* a REQ while it listens: the conn id is this process's */
	KUNIT_ASSERT_EQ(test, afib_req(test, sid, &peer, &cm_id), 0);
	KUNIT_ASSERT_NOT_NULL(test, s->conn);
	KUNIT_EXPECT_PTR_EQ(test, xcma_id_of(s->conn)->res.task, current);
	KUNIT_EXPECT_NULL(test, xcma_id_of(s->conn)->res.kern_name);
	rdma_destroy_id(s->conn);
	s->conn = NULL;

	/* a REQ during the listener's destroy */
	live = xcma_id_live();
	req_race = r;
	kunit_activate_static_stub(test, xcma_ib_req_found,
				   destroy_while_found);
	KUNIT_EXPECT_NE(test, afib_req(test, sid, &peer, &cm_id), 0);
	kunit_deactivate_static_stub(test, xcma_ib_req_found);
	ib_destroy_cm_id(cm_id);
	KUNIT_ASSERT_TRUE(test, r->taken);
	KUNIT_EXPECT_TRUE_MSG(test, r->untracked,
			      "the destroy did not untrack the listener");
	KUNIT_EXPECT_TRUE(test,
			  wait_for_completion_timeout(&r->destroyed,
						      msecs_to_jiffies(5000)));
	KUNIT_EXPECT_EQ(test, s->cn, 1);
	KUNIT_EXPECT_NULL(test, s->conn);
	KUNIT_EXPECT_EQ(test, xcma_id_live(), live - 1);
}

/* ---- rdma_connect() from an AF_IB id ---- */

/*
 * An AF_IB id resolved to rxe0's GID (the emulated IB port), its route
 * from the SA, then rdma_connect(), with private data or without. The REQ
 * (in-tree cma_connect_ib()): no IP header, the user's data at offset 0
 * and no buffer at all without data (cma_user_data_offset() is 0 for
 * AF_IB, cma_format_hdr() writes nothing); the destination's service id
 * as given (rdma_get_service_id()); the route's one record; no GID
 * attribute (an AF_IB id holds none); the QP and CM fields as for IP.
 */
static void ib_afib_connect(struct kunit *test)
{
	bool data = *(const bool *)test->param_value;
	static const u8 udata[10] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
	struct rdma_conn_param param = { .qp_num = 0x55, .retry_count = 5,
					 .rnr_retry_count = 6,
					 .responder_resources = 1,
					 .initiator_depth = 1 };
	struct side *s = cm_new_side(test);
	struct sockaddr_storage dst;
	struct rdma_cm_id *id;

	if (data) {
		param.private_data = udata;
		param.private_data_len = sizeof(udata);
	}
	esa_rec(&esa.ans[0], 0, 0x1d1e, 6);
	esa.nans = 1;
	afib_install(test, true);
	id = afib_new_id(test, s, RDMA_PS_IB);
	afib_addr(&dst, &afib_gid, AFIB_PKEY, RDMA_IB_IP_PS_IB | AFIB_PORT,
		  ~0ULL);
	KUNIT_ASSERT_EQ(test, rdma_resolve_addr(id, NULL,
						(struct sockaddr *)&dst, 2000),
			0);
	KUNIT_ASSERT_TRUE(test, cm_wait_events(s, false, 1));
	KUNIT_ASSERT_EQ(test, s->ev[0], RDMA_CM_EVENT_ADDR_RESOLVED);
	resolve_route_ib(test, s, id, RDMA_CM_EVENT_ROUTE_RESOLVED);
	memset(esa_req_pdata, 0xee, sizeof(esa_req_pdata));

	KUNIT_ASSERT_EQ(test, rdma_connect(id, &param), 0);
	KUNIT_EXPECT_EQ(test, cm_state(id), XCMA_FSM_CONNECT);
	KUNIT_ASSERT_EQ(test, esa_req_calls, 1);
	KUNIT_EXPECT_EQ(test, esa_req.private_data_len,
			(u8)(data ? sizeof(udata) : 0));
	KUNIT_EXPECT_EQ(test, esa_req_has_pdata, data);
	if (data)
		KUNIT_EXPECT_EQ(test, memcmp(esa_req_pdata, udata,
					     sizeof(udata)), 0);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(esa_req.service_id),
			RDMA_IB_IP_PS_IB | AFIB_PORT);
	KUNIT_ASSERT_TRUE(test, esa_req_has[0]);
	expect_rec(test, &esa_req_path[0], &esa.ans[0], "REQ primary");
	KUNIT_EXPECT_FALSE(test, esa_req_has[1]);
	KUNIT_EXPECT_FALSE(test, esa_req_has[2]);
	KUNIT_EXPECT_NULL(test, esa_req.ppath_sgid_attr);
	KUNIT_EXPECT_EQ(test, esa_req.qp_num, 0x55);
	KUNIT_EXPECT_EQ(test, esa_req.qp_type, IB_QPT_RC);
	KUNIT_EXPECT_EQ(test, esa_req.starting_psn, xcma_id_of(id)->seq_num);
	KUNIT_EXPECT_EQ(test, esa_req.responder_resources, 1);
	KUNIT_EXPECT_EQ(test, esa_req.initiator_depth, 1);
	KUNIT_EXPECT_EQ(test, esa_req.retry_count, 5);
	KUNIT_EXPECT_EQ(test, esa_req.rnr_retry_count, 6);
	KUNIT_EXPECT_EQ(test, esa_req.remote_cm_response_timeout, 20);
	KUNIT_EXPECT_EQ(test, esa_req.local_cm_response_timeout, 20);
	KUNIT_EXPECT_EQ(test, esa_req.max_cm_retries, 15);
	ib_destroy(test, id);
}

static const bool afib_data[] = { true, false };

static void afib_data_desc(const bool *data, char *desc)
{
	strscpy(desc, *data ? "private_data" : "no_private_data",
		KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(afib_data, afib_data, afib_data_desc);

/* ib_cm's side of a SIDR REQ: what it was handed */
static struct {
	struct ib_cm_sidr_req_param p;
	struct sa_path_rec path;
	u8 pdata[IB_CM_SIDR_REQ_PRIVATE_DATA_SIZE];
	bool has_pdata;
	int calls;
} esa_sidr;

static int esa_send_sidr_req(struct ib_cm_id *cm_id,
			     struct ib_cm_sidr_req_param *p)
{
	esa_sidr.p = *p;
	esa_sidr.has_pdata = p->private_data;
	if (p->private_data)
		memcpy(esa_sidr.pdata, p->private_data,
		       min_t(u8, p->private_data_len, sizeof(esa_sidr.pdata)));
	if (p->path)
		esa_sidr.path = *p->path;
	esa_sidr.calls++;
	return 0;
}

/*
 * The same for a UD id: its SIDR REQ (in-tree cma_resolve_ib_udp())
 * carries the user's data alone, at offset 0, the destination's service
 * id and the route's record.
 */
static void ib_afib_sidr_connect(struct kunit *test)
{
	static const u8 udata[7] = { 7, 6, 5, 4, 3, 2, 1 };
	struct rdma_conn_param param = { .private_data = udata,
					 .private_data_len = sizeof(udata) };
	struct side *s = cm_new_side(test);
	struct sockaddr_storage dst;
	struct rdma_cm_id *id;

	esa_rec(&esa.ans[0], 0, 0x1f20, 2);
	esa.nans = 1;
	afib_install(test, true);
	esa_ops.send_sidr_req = esa_send_sidr_req;
	memset(&esa_sidr, 0, sizeof(esa_sidr));
	id = rdma_create_id(&init_net, cm_handler, s, RDMA_PS_IB, IB_QPT_UD);
	KUNIT_ASSERT_FALSE(test, IS_ERR(id));
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, ib_destroy_id, id),
			0);
	afib_addr(&dst, &afib_gid, AFIB_PKEY, RDMA_IB_IP_PS_IB | AFIB_PORT,
		  ~0ULL);
	KUNIT_ASSERT_EQ(test, rdma_resolve_addr(id, NULL,
						(struct sockaddr *)&dst, 2000),
			0);
	KUNIT_ASSERT_TRUE(test, cm_wait_events(s, false, 1));
	KUNIT_ASSERT_EQ(test, s->ev[0], RDMA_CM_EVENT_ADDR_RESOLVED);
	resolve_route_ib(test, s, id, RDMA_CM_EVENT_ROUTE_RESOLVED);
	KUNIT_ASSERT_EQ(test, rdma_connect(id, &param), 0);
	KUNIT_ASSERT_EQ(test, esa_sidr.calls, 1);
	KUNIT_EXPECT_EQ(test, esa_sidr.p.private_data_len, (u8)sizeof(udata));
	KUNIT_EXPECT_TRUE(test, esa_sidr.has_pdata);
	KUNIT_EXPECT_EQ(test, memcmp(esa_sidr.pdata, udata, sizeof(udata)), 0);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(esa_sidr.p.service_id),
			RDMA_IB_IP_PS_IB | AFIB_PORT);
	KUNIT_ASSERT_NOT_NULL(test, esa_sidr.p.path);
	expect_rec(test, &esa_sidr.path, &esa.ans[0], "SIDR path");
	KUNIT_EXPECT_NULL(test, esa_sidr.p.sgid_attr);
	ib_destroy(test, id);
}

/* ---- a SIDR REQ without an IP header ---- */

static struct {
	int n;
	int event;
	struct rdma_cm_id *conn;
	const void *pdata;
	u8 pdata_len;
} sidr_seen;

static int sidr_listen_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	sidr_seen.n++;
	sidr_seen.event = ev->event;
	sidr_seen.conn = id;
	sidr_seen.pdata = ev->param.ud.private_data;
	sidr_seen.pdata_len = ev->param.ud.private_data_len;
	return 0;
}

/* a SIDR REQ as ib_cm hands it to the listen callback, no IP header */
static int afib_sidr_req(struct kunit *test, u64 sid, const u8 *pdata,
			 struct ib_cm_id **cm_id)
{
	struct ib_cm_event ev = {};

	*cm_id = ib_create_cm_id(afib_cm.dev, afib_cm_handler, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(*cm_id));
	ev.event = IB_CM_SIDR_REQ_RECEIVED;
	ev.param.sidr_req_rcvd.service_id = cpu_to_be64(sid);
	ev.param.sidr_req_rcvd.pkey = AFIB_PKEY;
	ev.param.sidr_req_rcvd.port = 1;
	ev.private_data = (void *)pdata;
	return afib_cm.handler(*cm_id, &ev);
}

struct sidr_case {
	const char *name;
	enum rdma_ucm_port_space ps;
	enum ib_qp_type qpt;
	u64 prefix;
	bool taken;
};

/*
 * cma_ib_req_handler() for a SIDR REQ: a UD listener of RDMA_PS_IB or
 * RDMA_PS_UDP takes it; an RC one does not (cma_ib_check_req_qp_type()).
 */
static const struct sidr_case sidr_cases[] = {
	{ "ps_ib_ud", RDMA_PS_IB, IB_QPT_UD, RDMA_IB_IP_PS_IB, true },
	{ "ps_udp_ud", RDMA_PS_UDP, IB_QPT_UD, RDMA_IB_IP_PS_UDP, true },
	{ "ps_ib_rc", RDMA_PS_IB, IB_QPT_RC, RDMA_IB_IP_PS_IB, false },
};

KUNIT_ARRAY_PARAM_DESC(sidr, sidr_cases, name);

/*
 * A SIDR REQ without an IP header (an AF_IB peer's) to the service id of
 * an AF_IB listener reaches it (cma_ib_id_from_event(): no netdev, so
 * AF_IB, init_net's ids of the service id's port space and port,
 * cma_match_net_dev()). The new UD id's own address is the listener's
 * under a full mask and the peer's is AF_IB with nothing more: a SIDR
 * REQ has no path (cma_save_ib_info() without one); its hardware address
 * is the listener's GID and pkey, ARPHRD_INFINIBAND; CONNECT_REQUEST
 * hands over all the private data, there is no header to skip
 * (cma_user_data_offset()). A SIDR REQ to the next service id finds
 * nobody.
 */
static void ib_afib_sidr_req(struct kunit *test)
{
	const struct sidr_case *c = test->param_value;
	static u8 pdata[IB_CM_SIDR_REQ_PRIVATE_DATA_SIZE];
	u64 sid = c->prefix | 18706;
	struct sockaddr_ib *lsib, *rsib;
	struct sockaddr_storage a;
	struct ib_cm_id *cm_id;
	struct rdma_cm_id *id, *conn;
	union ib_gid zero = {}, gid;
	struct rdma_dev_addr *da;

	memset(&afib_cm, 0, sizeof(afib_cm));
	memset(&sidr_seen, 0, sizeof(sidr_seen));
	memset(pdata, 0, sizeof(pdata));
	/* no IP header: version 0 and IP version 0, then the user's data */
	pdata[8] = 0x5a;
	afib_install(test, true);
	esa_ops.insert_listen = afib_insert_listen;
	id = rdma_create_id(&init_net, sidr_listen_handler, NULL, c->ps,
			    c->qpt);
	KUNIT_ASSERT_FALSE(test, IS_ERR(id));
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, ib_destroy_id, id),
			0);
	afib_addr(&a, &afib_gid, AFIB_PKEY, sid, ~0ULL);
	((struct sockaddr_ib *)&a)->sib_flowinfo = cpu_to_be32(0x4711);
	KUNIT_ASSERT_EQ(test, rdma_bind_addr(id, (struct sockaddr *)&a), 0);
	KUNIT_ASSERT_EQ(test, rdma_listen(id, 4), 0);
	KUNIT_ASSERT_NOT_NULL(test, afib_cm.handler);

	KUNIT_EXPECT_NE(test, afib_sidr_req(test, sid + 1, pdata, &cm_id), 0);
	ib_destroy_cm_id(cm_id);
	KUNIT_EXPECT_EQ(test, sidr_seen.n, 0);

	if (!c->taken) {
		KUNIT_EXPECT_EQ(test, afib_sidr_req(test, sid, pdata, &cm_id),
				-EINVAL);
		ib_destroy_cm_id(cm_id);
		KUNIT_EXPECT_EQ(test, sidr_seen.n, 0);
		ib_destroy(test, id);
		return;
	}
	KUNIT_ASSERT_EQ(test, afib_sidr_req(test, sid, pdata, &cm_id), 0);
	KUNIT_ASSERT_EQ(test, sidr_seen.n, 1);
	KUNIT_EXPECT_EQ(test, sidr_seen.event, RDMA_CM_EVENT_CONNECT_REQUEST);
	conn = sidr_seen.conn;
	KUNIT_ASSERT_NOT_NULL(test, conn);
	KUNIT_EXPECT_PTR_NE(test, conn, id);
	KUNIT_EXPECT_EQ(test, conn->ps, c->ps);
	KUNIT_EXPECT_EQ(test, conn->qp_type, IB_QPT_UD);
	KUNIT_EXPECT_PTR_EQ(test, conn->device, id->device);
	KUNIT_EXPECT_EQ(test, conn->port_num, 1);
	KUNIT_EXPECT_PTR_EQ(test, sidr_seen.pdata, (const void *)pdata);
	KUNIT_EXPECT_EQ(test, sidr_seen.pdata_len,
			(u8)IB_CM_SIDR_REQ_PRIVATE_DATA_SIZE);
	lsib = (struct sockaddr_ib *)&conn->route.addr.src_addr;
	rsib = (struct sockaddr_ib *)&conn->route.addr.dst_addr;
	KUNIT_EXPECT_EQ(test, lsib->sib_family, AF_IB);
	KUNIT_EXPECT_EQ(test, memcmp(&lsib->sib_addr, &afib_gid, 16), 0);
	KUNIT_EXPECT_EQ(test, ntohs(lsib->sib_pkey), AFIB_PKEY);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(lsib->sib_flowinfo), 0x4711);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(lsib->sib_sid), sid);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(lsib->sib_sid_mask), ~0ULL);
	KUNIT_EXPECT_EQ(test, rsib->sib_family, AF_IB);
	KUNIT_EXPECT_EQ(test, memcmp(&rsib->sib_addr, &zero, 16), 0);
	KUNIT_EXPECT_EQ(test, ntohs(rsib->sib_pkey), 0);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(rsib->sib_sid), 0ULL);
	KUNIT_EXPECT_EQ(test,
			be64_to_cpu(rdma_get_service_id(conn, (struct sockaddr *)lsib)),
			sid);
	/* its hardware address is its own address's (cma_translate_ib()) */
	da = &conn->route.addr.dev_addr;
	KUNIT_EXPECT_EQ(test, da->dev_type, ARPHRD_INFINIBAND);
	KUNIT_EXPECT_EQ(test, ib_addr_get_pkey(da), AFIB_PKEY);
	rdma_addr_get_sgid(da, &gid);
	KUNIT_EXPECT_EQ(test, memcmp(&gid, &afib_gid, 16), 0);
	/* a SIDR REQ names no GID: the id's is that one, of type IB, held */
	KUNIT_EXPECT_NOT_NULL_MSG(test, da->sgid_attr,
				  "the passive id has no GID");
	if (da->sgid_attr)
		KUNIT_EXPECT_EQ(test, memcmp(&da->sgid_attr->gid, &afib_gid,
					     16), 0);
	/* the conn id owns cm_id now */
	rdma_destroy_id(conn);
	ib_destroy(test, id);
}

static int bind_probe(struct sockaddr_storage *a)
{
	return cm_bind_probe(a, RDMA_PS_TCP, IB_QPT_RC);
}

/* after another suite's removal of rxe0, its GIDs come back a little later */
/*
 * A REQ with an rdma_cm IP header for an IPv4 listener on the emulated
 * IB port, whose GIDs have no netdev: as in-tree (cma_get_net_dev() on
 * IB), the request's netdev is the IPoIB one that
 * ib_get_net_dev_by_params() names for the port, the path's pkey, our GID
 * and the listener's address; the listener is looked up in its namespace,
 * and the new id takes its hardware address (rdma_copy_src_l2_addr()):
 * its ifindex, ARPHRD_INFINIBAND, the QPN-and-GID address, the IPoIB
 * broadcast. Before, xcma took the namespace from the GID's netdev, found
 * none, and every IP-addressed REQ on InfiniBand was rejected (issue 26,
 * bug 4).
 */
/* how ip_req_with() makes its REQ */
enum {
	IP_REQ_NO_GRH = 1 << 0,	/* as on an IB subnet: no GID attribute */
	IP_REQ_ALT_PATH = 1 << 1, /* an alternate path beside the primary */
};

/* the paths of the last REQ ip_req_with() made, as it made them */
static struct sa_path_rec ip_req_paths[2];

/*
 * A REQ with the rdma_cm IP header of @peer to @ours, as ib_cm hands it
 * to afib_cm's listen callback: on rxe0's port 1, in rxe0's first GID
 * unless @flags say no GRH, the path turned for us. ib_cm destroys the
 * REQ's id when the callback returns non-zero; here the case does.
 *
 * Return: the callback's value.
 */
static int ip_req_with(struct kunit *test,
		       const struct sockaddr_storage *peer,
		       const struct sockaddr_storage *ours, unsigned int flags)
{
	static const union ib_gid peer_gid = { .raw = {
		0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x00, 0x02, 0xc9, 0x03, 0, 0,
		0x30, 0x04 } };
	static u8 pdata[IB_CM_REQ_PRIVATE_DATA_SIZE];
	struct sa_path_rec *path = &ip_req_paths[0], *alt = &ip_req_paths[1];
	const struct ib_gid_attr *attr;
	struct ib_cm_event ev = {};
	struct ib_cm_id *cm_id;
	int ret;

	KUNIT_ASSERT_EQ(test,
			xcma_wire_hdr_encode(pdata, sizeof(pdata),
					     (struct sockaddr *)peer,
					     (struct sockaddr *)ours), 0);
	attr = rdma_get_gid_attr(afib_cm.dev, 1, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(attr));
	cm_id = ib_create_cm_id(afib_cm.dev, afib_cm_handler, NULL);
	if (IS_ERR(cm_id))
		rdma_put_gid_attr(attr);
	KUNIT_ASSERT_FALSE(test, IS_ERR(cm_id));
	esa_rec(path, 0, 0x0f0f, 0);
	path->sgid = attr->gid;
	path->dgid = peer_gid;
	path->service_id = afib_cm.sid;
	path->pkey = htons(0xffff);
	/* another port pair: its own LIDs, service level and flow */
	esa_rec(alt, 0, 0x0f1f, 3);
	alt->sgid = attr->gid;
	alt->dgid = peer_gid;
	alt->service_id = afib_cm.sid;
	alt->pkey = htons(0xffff);
	alt->flow_label = cpu_to_be32(0x5a5a5);
	ev.event = IB_CM_REQ_RECEIVED;
	ev.param.req_rcvd.primary_path = path;
	if (flags & IP_REQ_ALT_PATH)
		ev.param.req_rcvd.alternate_path = alt;
	if (!(flags & IP_REQ_NO_GRH))
		ev.param.req_rcvd.ppath_sgid_attr = attr;
	ev.param.req_rcvd.port = 1;
	ev.param.req_rcvd.qp_type = IB_QPT_RC;
	ev.param.req_rcvd.remote_qpn = 0x99;
	ev.param.req_rcvd.starting_psn = 0x1234;
	ev.private_data = pdata;
	ret = afib_cm.handler(cm_id, &ev);
	rdma_put_gid_attr(attr);
	if (ret)
		ib_destroy_cm_id(cm_id);
	return ret;
}

/* a REQ with a GRH and one path */
static int ip_req(struct kunit *test, const struct sockaddr_storage *peer,
		  const struct sockaddr_storage *ours)
{
	return ip_req_with(test, peer, ours, 0);
}

/* a listener on @ours over rxe0, its ib_cm listen afib_cm's (@ib: IB) */
static struct rdma_cm_id *ip_listener(struct kunit *test, struct side *s,
				      const struct sockaddr_storage *ours,
				      bool ib)
{
	struct rdma_cm_id *id;

	memset(&afib_cm, 0, sizeof(afib_cm));
	/* bound over Soft-RoCE, then the port declared IB, as in xcma_ib */
	id = afib_new_id(test, s, RDMA_PS_TCP);
	s->listener = id;
	s->action = REQ_KEEP;
	KUNIT_ASSERT_EQ(test, rdma_bind_addr(id, (struct sockaddr *)ours), 0);
	esa_install(test, ESA_ANSWER);
	KUNIT_ASSERT_NOT_NULL(test, esa_ipoib_ndev);
	if (!ib)
		esa_ops.port_transport = xcma_kernel_ops.port_transport;
	/* the IB port's GID: rxe0's first, of type IB and without netdev */
	afib_gid = esa_port_gid;
	afib_gid_asks = 0;
	esa_ops.find_gid_by_port = afib_find_gid;
	esa_ops.insert_listen = afib_insert_listen;
	esa_ops.send_mra = afib_send_mra;
	esa_ops.send_rej = afib_send_rej;
	/* the id goes before the emulation (actions run last first) */
	kunit_remove_action(test, ib_destroy_id, id);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, ib_destroy_id, id),
			0);
	KUNIT_ASSERT_EQ(test, rdma_listen(id, 4), 0);
	KUNIT_ASSERT_NOT_NULL(test, afib_cm.handler);
	return id;
}

static void ib_ip_listen_req_takes_the_ipoib_netdev(struct kunit *test)
{
	struct sockaddr_storage a, client, asked;
	struct side *s = cm_new_side(test);
	struct rdma_dev_addr *da;
	struct rdma_cm_id *id, *conn;
	union ib_gid gid;
	bool has_gid;
	u32 port;
	u16 pkey;

	cm_addr4(&a, "10.99.0.1", 18720);
	id = ip_listener(test, s, &a, true);
	/* the REQ: the client's header, the path turned for us */
	cm_addr4(&client, "10.99.0.2", 18721);
	KUNIT_ASSERT_EQ_MSG(test, ip_req(test, &client, &a), 0,
			    "the REQ was refused");
	KUNIT_ASSERT_EQ(test, s->cn, 1);
	KUNIT_EXPECT_EQ(test, s->cev[0], RDMA_CM_EVENT_CONNECT_REQUEST);
	conn = s->conn;
	KUNIT_ASSERT_NOT_NULL(test, conn);

	/* what ib_get_net_dev_by_params() was asked */
	KUNIT_EXPECT_EQ(test, esa_ipoib_asked(&port, &pkey, &has_gid, &gid,
					      &asked), 1);
	KUNIT_EXPECT_EQ(test, port, 1U);
	KUNIT_EXPECT_EQ(test, pkey, 0xffff);
	KUNIT_EXPECT_TRUE(test, has_gid);
	KUNIT_EXPECT_EQ(test, memcmp(&gid, &esa_port_gid, sizeof(gid)), 0);
	KUNIT_EXPECT_EQ(test, memcmp(&asked, &a, sizeof(struct sockaddr_in)),
			0);

	/* the new id: the request's addresses, IPoIB's hardware address */
	KUNIT_EXPECT_EQ(test, memcmp(&conn->route.addr.src_addr, &a,
				     sizeof(struct sockaddr_in)), 0);
	KUNIT_EXPECT_EQ(test, memcmp(&conn->route.addr.dst_addr, &client,
				     sizeof(struct sockaddr_in)), 0);
	da = &conn->route.addr.dev_addr;
	KUNIT_EXPECT_EQ(test, da->bound_dev_if, esa_ipoib_ndev->ifindex);
	KUNIT_EXPECT_EQ(test, da->dev_type, ARPHRD_INFINIBAND);
	KUNIT_EXPECT_EQ(test, memcmp(da->broadcast, esa_ipoib_ndev->broadcast,
				     INFINIBAND_ALEN), 0);
	KUNIT_EXPECT_EQ(test, memcmp(da->src_dev_addr,
				     esa_ipoib_ndev->dev_addr, 4), 0);
	rdma_addr_get_sgid(da, &gid);
	KUNIT_EXPECT_EQ(test, memcmp(&gid, &esa_port_gid, sizeof(gid)), 0);
	KUNIT_EXPECT_PTR_EQ(test, da->net, &init_net);
	rdma_destroy_id(conn);
	KUNIT_EXPECT_EQ(test, afib_cm.rejs, 0);
	ib_destroy(test, id);
}

struct gid_case {
	const char *name;
	bool ib;		/* the port declared IB, else RoCE */
	unsigned int flags;	/* ip_req_with()'s */
};

static const struct gid_case gid_cases[] = {
	{ "roce", false, 0 },
	{ "ib", true, 0 },
	{ "ib_without_grh", true, IP_REQ_NO_GRH },
};

KUNIT_ARRAY_PARAM_DESC(gid, gid_cases, name);

/*
 * The GID a passive id takes is its own address's on the port the REQ
 * came in on, found as in-tree cma_ib_acquire_dev() finds it: on RoCE
 * the GID of its IPv4 address on the REQ's netdev (::ffff:10.99.0.1 on
 * eth0), not the GID the REQ came in on (rxe0's first: eth0's link-local
 * one); on IB the GID in IPoIB's hardware address, asked for as an IB
 * GID without netdev, also when the REQ came without a GRH. Before,
 * xcma took the REQ's own GID attribute: on RoCE the link-local one, on
 * IB without a GRH none (issue 26's sweep: a field the in-tree CM sets
 * on an id it creates).
 */
static void passive_id_takes_its_address_gid(struct kunit *test)
{
	const struct gid_case *c = test->param_value;
	struct sockaddr_storage a, client;
	struct side *s = cm_new_side(test);
	const struct ib_gid_attr *attr;
	struct net_device *ndev;
	struct rdma_cm_id *id;
	union ib_gid want;
	bool eth0;

	cm_addr4(&a, "10.99.0.1", 18726);
	id = ip_listener(test, s, &a, c->ib);
	cm_addr4(&client, "10.99.0.2", 18727);
	KUNIT_ASSERT_EQ(test, ip_req_with(test, &client, &a, c->flags), 0);
	KUNIT_ASSERT_EQ(test, s->cn, 1);
	KUNIT_ASSERT_NOT_NULL(test, s->conn);
	attr = s->conn->route.addr.dev_addr.sgid_attr;
	KUNIT_EXPECT_NOT_NULL_MSG(test, attr, "the passive id has no GID");
	if (!attr)
		goto out;
	if (c->ib) {
		want = esa_port_gid;
		KUNIT_EXPECT_EQ(test, afib_gid_asks, 1);
	} else {
		rdma_ip2gid((struct sockaddr *)&a, &want);
		rcu_read_lock();
		ndev = rdma_read_gid_attr_ndev_rcu(attr);
		eth0 = !IS_ERR(ndev) && !strcmp(ndev->name, "eth0");
		rcu_read_unlock();
		KUNIT_EXPECT_TRUE_MSG(test, eth0, "the GID is not eth0's");
	}
	KUNIT_EXPECT_EQ_MSG(test, memcmp(&attr->gid, &want, sizeof(want)), 0,
			    "the id's GID is %pI6, not %pI6", attr->gid.raw,
			    want.raw);
	KUNIT_EXPECT_EQ(test, attr->port_num, 1U);
out:
	rdma_destroy_id(s->conn);
	KUNIT_EXPECT_EQ(test, afib_cm.rejs, 0);
	ib_destroy(test, id);
}

/*
 * A REQ with an alternate path: the passive id keeps both, the primary
 * first, as in-tree cma_ib_new_conn_id() (route.num_pri_alt_paths 2,
 * which rdma_ucm's route query hands to userspace); one without keeps
 * one. ib_cm on RoCE refuses an alternate path itself (its
 * cm_init_av_by_path() without a GID attribute), so only an IB port
 * hands one over: the emulated one here. Before, xcma kept the primary
 * path alone (issue 26's sweep).
 */
static void passive_id_keeps_the_alternate_path(struct kunit *test)
{
	static const unsigned int flags[] = { 0, IP_REQ_ALT_PATH };
	struct sockaddr_storage a, client;
	struct side *s = cm_new_side(test);
	struct rdma_route *rt;
	struct rdma_cm_id *id;
	int i;

	cm_addr4(&a, "10.99.0.1", 18728);
	id = ip_listener(test, s, &a, true);
	cm_addr4(&client, "10.99.0.2", 18729);
	for (i = 0; i < ARRAY_SIZE(flags); i++) {
		KUNIT_ASSERT_EQ(test, ip_req_with(test, &client, &a, flags[i]),
				0);
		KUNIT_ASSERT_EQ(test, s->cn, i + 1);
		KUNIT_ASSERT_NOT_NULL(test, s->conn);
		rt = &s->conn->route;
		KUNIT_EXPECT_EQ(test, rt->num_pri_alt_paths, i + 1);
		KUNIT_EXPECT_EQ(test, memcmp(&rt->path_rec[0], &ip_req_paths[0],
					     sizeof(rt->path_rec[0])), 0);
		if (rt->num_pri_alt_paths == 2)
			KUNIT_EXPECT_EQ(test,
					memcmp(&rt->path_rec[1],
					       &ip_req_paths[1],
					       sizeof(rt->path_rec[1])), 0);
		rdma_destroy_id(s->conn);
		s->conn = NULL;
	}
	KUNIT_EXPECT_EQ(test, afib_cm.rejs, 0);
	ib_destroy(test, id);
}

/* rtnl held around a netdev's state change, as ip link set does */
static int set_up(struct net_device *ndev, bool up)
{
	int err = 0;

	rtnl_lock();
	if (up)
		err = dev_open(ndev, NULL);
	else
		dev_close(ndev);
	rtnl_unlock();
	return err;
}

/*
 * A REQ whose netdev is down is refused before a listener is looked for,
 * as in-tree (cma_ib_id_from_event(): the netdev may be on its way to
 * another namespace, -EHOSTUNREACH, which ib_cm answers with a REJ): here
 * xib0, the IPoIB netdev of the emulated IB port, closed. The listener
 * hears nothing and keeps listening; with xib0 up again the same REQ is
 * taken. Before, xcma took it while xib0 was down (issue 26, "no netdev
 * checks on incoming REQs").
 */
static void ib_req_on_a_down_netdev_is_refused(struct kunit *test)
{
	struct sockaddr_storage a, client;
	struct side *s = cm_new_side(test);
	struct rdma_cm_id *id;

	cm_addr4(&a, "10.99.0.1", 18722);
	id = ip_listener(test, s, &a, true);
	set_up(esa_ipoib_ndev, false);
	cm_addr4(&client, "10.99.0.2", 18723);
	KUNIT_EXPECT_EQ(test, ip_req(test, &client, &a), -EHOSTUNREACH);
	KUNIT_EXPECT_EQ(test, s->cn, 0);
	KUNIT_EXPECT_NULL(test, s->conn);
	KUNIT_EXPECT_EQ(test, cm_state(id), XCMA_FSM_LISTEN);
	if (s->conn) {
		/* taken after all: not left behind for the next case */
		rdma_destroy_id(s->conn);
		s->conn = NULL;
		s->cn = 0;
	}

	KUNIT_ASSERT_EQ(test, set_up(esa_ipoib_ndev, true), 0);
	KUNIT_EXPECT_EQ(test, ip_req(test, &client, &a), 0);
	KUNIT_EXPECT_EQ(test, s->cn, 1);
	if (s->conn)
		rdma_destroy_id(s->conn);
	ib_destroy(test, id);
}

struct rcase {
	const char *name;
	const char *ours;
	const char *peer;
	int ret;
};

/*
 * The test VM's routes: 10.99.0.0/24 and fd00:99::/64 on eth0 (rxe0's
 * netdev), no IPv4 default route; ::1 on lo. Every IPv6 peer but ::1 has
 * a route by eth0: QEMU's user network, isolated as it is, advertises an
 * IPv6 default router (fe80::2) shortly after boot.
 */
static const struct rcase route_cases[] = {
	{ "v4_on_link", "10.99.0.1", "10.99.0.2", 0 },
	{ "v4_no_route", "10.99.0.1", "192.0.2.2", -EHOSTUNREACH },
	{ "v4_peer_loopback", "10.99.0.1", "127.0.0.1", -EHOSTUNREACH },
	{ "v6_on_link", "fd00:99::1", "fd00:99::2", 0 },
	{ "v6_peer_by_lo", "fd00:99::1", "::1", -EHOSTUNREACH },
};

KUNIT_ARRAY_PARAM_DESC(route, route_cases, name);

static void ip_addr(struct sockaddr_storage *ss, const char *ip, u16 port)
{
	if (strchr(ip, ':'))
		cm_addr6(ss, ip, port);
	else
		cm_addr4(ss, ip, port);
}

/*
 * A REQ over RoCE (rxe0's GID, netdev eth0) is taken only if the answer
 * to its peer would leave by eth0, as in-tree validate_net_dev(): the
 * route from our address to the peer's, for eth0's ifindex, goes by eth0
 * (for IPv6, by its inet6 device), and the peer's address is none of
 * loopback, zero or broadcast; else -EHOSTUNREACH and the listener hears
 * nothing. Before, xcma took every one of them (issue 26, "no netdev
 * checks on incoming REQs").
 */
static void roce_req_route_back(struct kunit *test)
{
	const struct rcase *c = test->param_value;
	struct sockaddr_storage a, client;
	struct side *s = cm_new_side(test);
	struct rdma_cm_id *id;

	ip_addr(&a, c->ours, 18724);
	id = ip_listener(test, s, &a, false);
	ip_addr(&client, c->peer, 18725);
	KUNIT_EXPECT_EQ(test, ip_req(test, &client, &a), c->ret);
	KUNIT_EXPECT_EQ(test, s->cn, c->ret ? 0 : 1);
	KUNIT_EXPECT_EQ(test, cm_state(id), XCMA_FSM_LISTEN);
	if (s->conn) {
		/* the conn id took eth0's address: its netdev was eth0 */
		KUNIT_EXPECT_EQ(test, s->conn->route.addr.dev_addr.dev_type,
				ARPHRD_ETHER);
		rdma_destroy_id(s->conn);
	}
	ib_destroy(test, id);
}

/* rxe0's first GID (eth0's link-local address) on @port, scoped to eth0 */
static void eth0_ll(struct kunit *test, struct sockaddr_storage *ss, u16 port)
{
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
	const struct ib_gid_attr *attr;
	struct ib_device *dev;
	struct net_device *ndev;

	dev = ib_device_get_by_name("rxe0", RDMA_DRIVER_UNKNOWN);
	KUNIT_ASSERT_NOT_NULL(test, dev);
	attr = rdma_get_gid_attr(dev, 1, 0);
	ib_device_put(dev);
	KUNIT_ASSERT_FALSE(test, IS_ERR(attr));
	memset(ss, 0, sizeof(*ss));
	s6->sin6_family = AF_INET6;
	s6->sin6_port = htons(port);
	memcpy(&s6->sin6_addr, &attr->gid, sizeof(s6->sin6_addr));
	rdma_put_gid_attr(attr);
	KUNIT_ASSERT_TRUE(test, ipv6_addr_type(&s6->sin6_addr) &
				IPV6_ADDR_LINKLOCAL);
	ndev = dev_get_by_name(&init_net, "eth0");
	KUNIT_ASSERT_NOT_NULL(test, ndev);
	s6->sin6_scope_id = ndev->ifindex;
	dev_put(ndev);
}

struct llcase {
	const char *name;
	bool ib;	/* the request comes in on xib0, else on eth0 */
	bool bound;	/* the listener is bound to eth0's address, else :: */
	int ret;
};

static const struct llcase ll_cases[] = {
	{ "bound_on_its_netdev", false, true, 0 },
	{ "bound_on_another_netdev", true, true, -EINVAL },
	{ "wildcard_on_another_netdev", true, false, 0 },
};

KUNIT_ARRAY_PARAM_DESC(ll, ll_cases, name);

/*
 * A request to an IPv6 link-local address is for a listener bound to no
 * netdev or to the one it came in on, as in-tree (cma_match_net_dev():
 * the listener's bound_dev_if, from the scope of its address): here a
 * listener bound to eth0's link-local address takes a REQ that came in on
 * eth0 (RoCE), not one that came in on xib0 (the emulated IB port's
 * IPoIB netdev), which a wildcard listener takes. Before, xcma matched
 * the address alone (issue 26, sweep: "every lookup that assumes a
 * netdev").
 */
static void ll_req_on_the_listeners_netdev(struct kunit *test)
{
	const struct llcase *c = test->param_value;
	struct sockaddr_storage a, l, client;
	struct side *s = cm_new_side(test);
	struct rdma_cm_id *id;

	eth0_ll(test, &a, 18726);
	if (c->bound)
		l = a;
	else
		cm_addr6(&l, "::", 18726);
	id = ip_listener(test, s, &l, c->ib);
	cm_addr6(&client, "fe80::2", 18727);
	((struct sockaddr_in6 *)&a)->sin6_scope_id = 0;
	KUNIT_EXPECT_EQ(test, ip_req(test, &client, &a), c->ret);
	KUNIT_EXPECT_EQ(test, s->cn, c->ret ? 0 : 1);
	if (s->conn)
		rdma_destroy_id(s->conn);
	ib_destroy(test, id);
}

static int ib_suite_init(struct kunit_suite *suite)
{
	struct sockaddr_storage a4, a6;
	int i, ret = -ETIMEDOUT;

	spin_lock_init(&esa.lock);
	INIT_DELAYED_WORK(&esa.answer, esa_answer);
	cm_addr4(&a4, "10.99.0.1", 0);
	cm_addr6(&a6, "fd00:99::1", 0);
	for (i = 0; i < 100 && ret; i++) {
		ret = bind_probe(&a4) ?: bind_probe(&a6);
		if (ret)
			msleep(100);
	}
	return ret;
}

static struct kunit_case ib_cases[] = {
	KUNIT_CASE(ib_route_one_record),
	KUNIT_CASE(ib_route_ipv6),
	KUNIT_CASE(ib_route_several_records),
	KUNIT_CASE_PARAM(ib_route_error, ib_fail_gen_params),
	KUNIT_CASE(ib_route_query_refused),
	KUNIT_CASE(ib_route_destroy_in_flight),
	KUNIT_CASE(ib_route_to_qp_attr),
	KUNIT_CASE(ib_set_ib_path),
	KUNIT_CASE_PARAM(ib_ipoib_resolve, ipoib_gen_params),
	KUNIT_CASE(ib_ipoib_ethernet_address),
	KUNIT_CASE_PARAM(ib_afib_bind, afib_given_gen_params),
	KUNIT_CASE_PARAM(ib_afib_bad_input, afib_bad_gen_params),
	KUNIT_CASE_PARAM(ib_afib_resolve_route, afib_bound_gen_params),
	KUNIT_CASE(ib_afib_listen_req),
	KUNIT_CASE(ib_req_listener_destroyed_meanwhile),
	KUNIT_CASE(ib_ip_listen_req_takes_the_ipoib_netdev),
	KUNIT_CASE_PARAM(passive_id_takes_its_address_gid, gid_gen_params),
	KUNIT_CASE(passive_id_keeps_the_alternate_path),
	KUNIT_CASE(ib_req_on_a_down_netdev_is_refused),
	KUNIT_CASE_PARAM(roce_req_route_back, route_gen_params),
	KUNIT_CASE_PARAM(ll_req_on_the_listeners_netdev, ll_gen_params),
	KUNIT_CASE_PARAM(ib_afib_sidr_req, sidr_gen_params),
	KUNIT_CASE_PARAM(ib_afib_connect, afib_data_gen_params),
	KUNIT_CASE(ib_afib_sidr_connect),
	KUNIT_CASE_SLOW(ib_route_removal_in_flight),
	KUNIT_CASE_SLOW(ib_route_removal_mid_issue),
	{}
};

static struct kunit_suite ib_suite = {
	.name = "xcma_ib",
	.init = xcma_kunit_sweep_init,
	.suite_init = ib_suite_init,
	.test_cases = ib_cases,
};

/* ---- an AF_IB wildcard listener on a host with an iWARP device ---- */

/* siw on a dummy netdev of this suite's own */
#define IBSIW_DEV "siwib0"

static const char *const ibsiw_setup[] = {
	"/sbin/modprobe siw",
	"/usr/sbin/ip link add xib0 type dummy",
	"/usr/sbin/ip addr add 10.96.0.1/24 dev xib0",
	"/usr/sbin/ip link set xib0 up",
	"/usr/sbin/rdma link add " IBSIW_DEV " type siw netdev xib0",
};

/* the listens made, per device */
static struct {
	int ib_rxe, ib_siw, iw_rxe, iw_siw;
} ibsiw;

static void ibsiw_count(struct ib_device *dev, bool iw)
{
	bool siw = !strcmp(dev_name(&dev->dev), IBSIW_DEV);

	if (iw)
		siw ? ibsiw.iw_siw++ : ibsiw.iw_rxe++;
	else
		siw ? ibsiw.ib_siw++ : ibsiw.ib_rxe++;
}

static struct ib_cm_id *ibsiw_insert_listen(struct ib_device *dev,
					    ib_cm_handler handler, __be64 sid)
{
	ibsiw_count(dev, false);
	return xcma_kernel_ops.insert_listen(dev, handler, sid);
}

static int ibsiw_iw_listen(struct iw_cm_id *iw, int backlog)
{
	ibsiw_count(iw->device, true);
	return xcma_kernel_ops.iw_listen(iw, backlog);
}

struct ibsiw_case {
	const char *name;
	bool ib;	/* rxe0's port declared IB (else RoCE, as it is) */
	bool af_ib;	/* an AF_IB wildcard (else 0.0.0.0) */
};

static const struct ibsiw_case ibsiw_cases[] = {
	{ "af_ib_rxe0_ib", true, true },
	{ "af_ib_rxe0_roce", false, true },
	{ "ipv4_rxe0_ib", true, false },
};

KUNIT_ARRAY_PARAM_DESC(ibsiw, ibsiw_cases, name);

/*
 * rdma_listen() on a wildcard address with rxe0 and an iWARP device
 * present: an AF_IB listener listens through ib_cm on rxe0, whether IB
 * or RoCE, and makes no listen on the iWARP device, which has no ib_cm
 * (in-tree cma_listen_on_dev() skips a device without rdma_cap_ib_cm()
 * for AF_IB); an IPv4 one listens on both, through iw_cm on the iWARP
 * device, so the count below can see an iw_cm listen when one is made.
 */
static void ib_afib_wildcard_skips_iwarp(struct kunit *test)
{
	const struct ibsiw_case *c = test->param_value;
	struct side *s = cm_new_side(test);
	struct sockaddr_storage a;
	struct rdma_cm_id *id;

	afib_install(test, c->ib);
	esa_ops.insert_listen = ibsiw_insert_listen;
	esa_ops.iw_listen = ibsiw_iw_listen;
	memset(&ibsiw, 0, sizeof(ibsiw));
	if (c->af_ib) {
		id = afib_new_id(test, s, RDMA_PS_IB);
		afib_addr(&a, NULL, AFIB_PKEY, RDMA_IB_IP_PS_IB | 18705, ~0ULL);
	} else {
		id = afib_new_id(test, s, RDMA_PS_TCP);
		cm_addr4(&a, "0.0.0.0", 18705);
	}
	KUNIT_ASSERT_EQ(test, rdma_bind_addr(id, (struct sockaddr *)&a), 0);
	KUNIT_EXPECT_NULL(test, id->device);
	KUNIT_ASSERT_EQ(test, rdma_listen(id, 4), 0);
	KUNIT_EXPECT_EQ(test, cm_state(id), XCMA_FSM_LISTEN);
	KUNIT_EXPECT_EQ(test, ibsiw.ib_rxe, 1);
	KUNIT_EXPECT_EQ(test, ibsiw.ib_siw, 0);
	KUNIT_EXPECT_EQ(test, ibsiw.iw_rxe, 0);
	KUNIT_EXPECT_EQ(test, ibsiw.iw_siw, c->af_ib ? 0 : 1);
	ib_destroy(test, id);
}

/* rxe0's port reported down: a loopback id takes the first device then */
static int ibsiw_port_state(struct ib_device *dev, u32 port,
			    enum ib_port_state *state)
{
	int ret = xcma_kernel_ops.get_port_state(dev, port, state);

	if (!ret && !strcmp(dev_name(&dev->dev), "rxe0"))
		*state = IB_PORT_DOWN;
	return ret;
}

/* the loopback GID, ::1 */
static const union ib_gid afib_loop_gid = { .raw = { [15] = 1 } };

/* the AF_IB part of ib_loopback_skips_iwarp(), to @dgid */
static void afib_loopback(struct kunit *test, const struct ibsiw_case *c,
			  const union ib_gid *dgid)
{
	struct side *s = cm_new_side(test);
	struct sockaddr_storage dst;
	struct rdma_dev_addr *da;
	struct rdma_cm_id *id;
	union ib_gid gid, sgid, rgid;

	id = afib_new_id(test, s, RDMA_PS_IB);
	da = &id->route.addr.dev_addr;
	afib_addr(&dst, dgid, AFIB_PKEY, RDMA_IB_IP_PS_IB | 18707, ~0ULL);
	KUNIT_ASSERT_EQ(test, rdma_resolve_addr(id, NULL,
						(struct sockaddr *)&dst, 2000),
			0);
	KUNIT_ASSERT_TRUE(test, cm_wait_events(s, false, 1));
	KUNIT_ASSERT_EQ(test, s->ev[0], RDMA_CM_EVENT_ADDR_RESOLVED);
	KUNIT_ASSERT_NOT_NULL(test, id->device);
	KUNIT_EXPECT_STREQ(test, dev_name(&id->device->dev), "rxe0");
	KUNIT_EXPECT_EQ(test, id->port_num, 1);
	KUNIT_ASSERT_EQ(test, xcma_kernel_ops.query_gid(id->device, 1, 0, &gid),
			0);
	rdma_addr_get_sgid(da, &sgid);
	rdma_addr_get_dgid(da, &rgid);
	KUNIT_EXPECT_EQ(test, memcmp(&sgid, &gid, sizeof(gid)), 0);
	KUNIT_EXPECT_EQ(test, memcmp(&rgid, &gid, sizeof(gid)), 0);
	KUNIT_EXPECT_EQ(test, afib_src(id)->sib_family, AF_IB);
	KUNIT_EXPECT_EQ(test, memcmp(&afib_src(id)->sib_addr, &afib_loop_gid,
				     sizeof(afib_loop_gid)), 0);
	KUNIT_EXPECT_EQ(test, da->dev_type,
			c->ib ? ARPHRD_INFINIBAND : ARPHRD_ETHER);
	KUNIT_EXPECT_EQ(test, ib_addr_get_pkey(da), 0xffff);
	ib_destroy(test, id);
}

/*
 * rdma_resolve_addr() to a wildcard destination with rxe0's port down and
 * the iWARP device up: an IPv4 id takes the iWARP device, the first with
 * an active port, and fails there with -EINVAL as in-tree
 * (cma_bind_loopback(): iWARP has no pkey table for
 * ib_get_cached_pkey()); an AF_IB id takes port 1 of rxe0, the first
 * device with ib_cm (cma_bind_loopback() skips the others for AF_IB): the
 * source is the loopback address, its GID and pkey the port's first, the
 * destination GID the source GID (cma_resolve_loopback()). The same for
 * an AF_IB id to the loopback GID ::1, which in-tree is a wildcard too
 * (cma_any_addr()).
 */
static void ib_loopback_skips_iwarp(struct kunit *test)
{
	const struct ibsiw_case *c = test->param_value;
	struct sockaddr_storage dst;
	struct rdma_cm_id *id;

	afib_install(test, c->ib);
	esa_ops.get_port_state = ibsiw_port_state;
	if (c->af_ib) {
		afib_loopback(test, c, NULL);
		afib_loopback(test, c, &afib_loop_gid);
		return;
	}
	id = afib_new_id(test, cm_new_side(test), RDMA_PS_TCP);
	cm_addr4(&dst, "0.0.0.0", 18707);
	KUNIT_EXPECT_EQ(test, rdma_resolve_addr(id, NULL,
						(struct sockaddr *)&dst, 2000),
			-EINVAL);
	KUNIT_EXPECT_NULL(test, id->device);
	ib_destroy(test, id);
}

static int ibsiw_init(struct kunit_suite *suite)
{
	int i, ret = ib_suite_init(suite);

	for (i = 0; !ret && i < ARRAY_SIZE(ibsiw_setup); i++) {
		ret = xcma_kunit_run(NULL, ibsiw_setup[i]);
		if (ret)
			pr_err("xcma_ib_siw: '%s' -> %d\n", ibsiw_setup[i], ret);
	}
	return ret ? -ENODEV : 0;
}

static void ibsiw_exit(struct kunit_suite *suite)
{
	xcma_kunit_run(NULL, "/usr/sbin/rdma link delete " IBSIW_DEV);
	xcma_kunit_run(NULL, "/usr/sbin/ip link del xib0");
}

static struct kunit_case ibsiw_test_cases[] = {
	KUNIT_CASE_PARAM(ib_afib_wildcard_skips_iwarp, ibsiw_gen_params),
	KUNIT_CASE_PARAM(ib_loopback_skips_iwarp, ibsiw_gen_params),
	{}
};

static struct kunit_suite ibsiw_suite = {
	.name = "xcma_ib_siw",
	.init = xcma_kunit_sweep_init,
	.suite_init = ibsiw_init,
	.suite_exit = ibsiw_exit,
	.test_cases = ibsiw_test_cases,
};

kunit_test_suites(&ib_suite, &ibsiw_suite);
