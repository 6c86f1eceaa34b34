// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * xcma_ud: UD ids end to end over Soft-RoCE (rxe0 on eth0, 10.99.0.1 and
 * fd00:99::1, both ends on the one device as in xcma_cm). Every
 * expectation is what the in-tree CM of 6.12 does over ib_cm's SIDR:
 * a SIDR REQ from rdma_connect(), CONNECT_REQUEST on the listener's new
 * UD id, ESTABLISHED with rdma_ud_param (remote QPN, QKEY, AH attributes)
 * on the active side, data both ways through AHs built from them;
 * UNREACHABLE with the SIDR status on a reject or without a listener,
 * ADDR_ERROR for a QKEY the id cannot take; destroy in each UD state; and
 * removal of rxe0 under UD ids (G1, G4, G5, G8).
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/slab.h>
#include <net/net_namespace.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>
#include <rdma/rdma_cm_ib.h>

#include "../../cma/id.h"
#include "../../cma/ops.h"
#include "../../cma/wire.h"
#include "../../cma/device.h"
#include "cm_util.h"
#include "xcma/fsm.h"
#include "xcma_kunit.h"

#define UD_MAX_EV 8
#define UD_GRH 40
#define UD_BUF 256
#define UD_MSG "datagram over xcma"
#define UD_REPLY "and back"
#define UD_OTHER_QKEY 0x00c0ffee

enum ud_action {
	UD_ACCEPT,	/* a QP, then rdma_accept() with the default QKEY */
	UD_ACCEPT_BAD,	/* a QP, then rdma_accept() naming another QKEY */
	UD_ACCEPT_NOQP,	/* no QP: rdma_accept() naming another QKEY */
	UD_REJECT,	/* rdma_reject() with private data, destroy by return */
	UD_KEEP,	/* answer later */
};

struct ud_pair;

/**
 * struct ud_end - one id of a case and what it saw
 * @p: the case
 * @id: the id
 * @ev: its events, in order
 * @st: their status
 * @n: how many (@p->lock)
 * @in_cb: callbacks running now (G1)
 * @overlaps: callbacks that started while another one ran
 * @removals: DEVICE_REMOVAL callbacks
 * @pd: PD of its QP
 * @cq: CQ of its QP
 * @ah: AH to the peer, if one was made
 * @ah_attr: ESTABLISHED's AH attributes, copied
 * @have_ah_attr: @ah_attr holds a copy
 * @remote_qpn: ESTABLISHED's remote QPN
 * @qkey: ESTABLISHED's QKEY
 * @pdata: private data of CONNECT_REQUEST, ESTABLISHED or UNREACHABLE
 * @pdata_full: its length as the event reported it
 * @err: first failure inside a callback
 * @ret_on: 1 + the event whose callback returns non-zero (after freeing
 *	the QP), 0 for none
 */
struct ud_end {
	struct ud_pair *p;
	struct rdma_cm_id *id;
	int ev[UD_MAX_EV];
	int st[UD_MAX_EV];
	int n;
	atomic_t in_cb;
	atomic_t overlaps;
	atomic_t removals;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_ah *ah;
	struct rdma_ah_attr ah_attr;
	bool have_ah_attr;
	u32 remote_qpn;
	u32 qkey;
	u8 pdata[16];
	u8 pdata_full;
	int err;
	int ret_on;
};

/**
 * struct ud_pair - a client, a listener and the listener's conn id
 * @test: the case
 * @lock: protects the event logs
 * @wq: woken on every event
 * @ps: the port space of all three
 * @action: what the conn id does with its CONNECT_REQUEST
 * @accept_ret: what rdma_accept() (or rdma_reject()) returned there
 * @cli: the active side
 * @lis: the listener
 * @conn: the listener's conn id (one at most)
 * @extra: CONNECT_REQUESTs beyond the first
 */
struct ud_pair {
	struct kunit *test;
	spinlock_t lock; /* see above */
	wait_queue_head_t wq;
	enum rdma_ucm_port_space ps;
	enum ud_action action;
	int accept_ret;
	struct ud_end cli, lis, conn;
	atomic_t extra;
};

static void ud_free_qp(struct ud_end *e)
{
	if (e->ah)
		rdma_destroy_ah(e->ah, RDMA_DESTROY_AH_SLEEPABLE);
	e->ah = NULL;
	if (e->id && e->id->qp)
		rdma_destroy_qp(e->id);
	if (e->cq)
		ib_free_cq(e->cq);
	e->cq = NULL;
	if (e->pd)
		ib_dealloc_pd(e->pd);
	e->pd = NULL;
	/* its GID attribute reference too: it would hold up a removal */
	if (e->have_ah_attr)
		rdma_destroy_ah_attr(&e->ah_attr);
	e->have_ah_attr = false;
}

static int ud_make_qp(struct ud_end *e)
{
	struct ib_qp_init_attr attr = {
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.sq_sig_type = IB_SIGNAL_ALL_WR,
		.qp_type = IB_QPT_UD,
	};
	int ret;

	e->pd = ib_alloc_pd(e->id->device, 0);
	if (IS_ERR(e->pd)) {
		ret = PTR_ERR(e->pd);
		e->pd = NULL;
		return ret;
	}
	e->cq = ib_alloc_cq(e->id->device, NULL, 16, 0, IB_POLL_DIRECT);
	if (IS_ERR(e->cq)) {
		ret = PTR_ERR(e->cq);
		e->cq = NULL;
		ud_free_qp(e);
		return ret;
	}
	attr.send_cq = e->cq;
	attr.recv_cq = e->cq;
	ret = rdma_create_qp(e->id, e->pd, &attr);
	if (ret)
		ud_free_qp(e);
	return ret;
}

static void ud_copy_pdata(struct ud_end *e, const void *data, u8 len)
{
	e->pdata_full = len;
	if (data)
		memcpy(e->pdata, data, min_t(u8, len, sizeof(e->pdata)));
}

static int ud_on_request(struct ud_end *e, struct rdma_cm_event *ev)
{
	struct ud_pair *p = e->p;
	struct rdma_conn_param param = {
		.private_data = "ok!", .private_data_len = 4,
	};
	int ret = 0;

	ud_copy_pdata(e, ev->param.ud.private_data,
		      ev->param.ud.private_data_len);
	switch (p->action) {
	case UD_KEEP:
		return 0;
	case UD_REJECT:
		p->accept_ret = rdma_reject(e->id, "no!", 4, 0);
		return 1;
	case UD_ACCEPT_NOQP:
		param.qkey = UD_OTHER_QKEY;
		param.qp_num = 0x42;
		break;
	case UD_ACCEPT_BAD:
		param.qkey = UD_OTHER_QKEY;
		fallthrough;
	case UD_ACCEPT:
		ret = ud_make_qp(e);
		break;
	}
	p->accept_ret = ret ?: rdma_accept(e->id, &param);
	return 0;
}

static int ud_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct ud_end *e = id->context;
	struct ud_pair *p = e->p;
	int ret = 0;

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
		if (p->conn.id) {
			atomic_inc(&p->extra);
			return 1;
		}
		e = &p->conn;
		e->id = id;
		id->context = e;
	}
	if (atomic_inc_return(&e->in_cb) != 1)
		atomic_inc(&e->overlaps);
	switch (ev->event) {
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		ret = ud_on_request(e, ev);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		e->remote_qpn = ev->param.ud.qp_num;
		e->qkey = ev->param.ud.qkey;
		rdma_copy_ah_attr(&e->ah_attr, &ev->param.ud.ah_attr);
		e->have_ah_attr = true;
		fallthrough;
	case RDMA_CM_EVENT_UNREACHABLE:
		ud_copy_pdata(e, ev->param.ud.private_data,
			      ev->param.ud.private_data_len);
		break;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		atomic_inc(&e->removals);
		break;
	default:
		break;
	}
	if (e->ret_on == ev->event + 1) {
		ud_free_qp(e);
		ret = 1;
	}
	spin_lock(&p->lock);
	if (e->n < UD_MAX_EV) {
		e->ev[e->n] = ev->event;
		e->st[e->n] = ev->status;
	}
	e->n++;
	spin_unlock(&p->lock);
	atomic_dec(&e->in_cb);
	wake_up_all(&p->wq);
	return ret;
}

static bool ud_wait(struct ud_end *e, int count)
{
	return wait_event_timeout(e->p->wq, READ_ONCE(e->n) >= count,
				  msecs_to_jiffies(WAIT_MS)) > 0;
}

static void ud_expect(struct kunit *test, struct ud_end *e, const char *who,
		      const int *want, int count)
{
	int i;

	KUNIT_EXPECT_EQ_MSG(test, e->n, count, "%s saw %d events", who, e->n);
	for (i = 0; i < min3(e->n, count, UD_MAX_EV); i++)
		KUNIT_EXPECT_EQ_MSG(test, e->ev[i], want[i], "%s event %d: %s",
				    who, i, rdma_event_msg(e->ev[i]));
}

static void ud_end_destroy(struct ud_end *e)
{
	ud_free_qp(e);
	if (e->id)
		rdma_destroy_id(e->id);
	e->id = NULL;
}

static void ud_pair_cleanup(void *data)
{
	struct ud_pair *p = data;

	ud_end_destroy(&p->cli);
	ud_end_destroy(&p->conn);
	ud_end_destroy(&p->lis);
}

static struct ud_pair *ud_new_pair(struct kunit *test,
				   enum rdma_ucm_port_space ps,
				   enum ud_action action)
{
	struct ud_pair *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	p->test = test;
	spin_lock_init(&p->lock);
	init_waitqueue_head(&p->wq);
	p->ps = ps;
	p->action = action;
	p->cli.p = p;
	p->lis.p = p;
	p->conn.p = p;
	KUNIT_ASSERT_EQ(test,
			kunit_add_action_or_reset(test, ud_pair_cleanup, p), 0);
	return p;
}

static void ud_new_id(struct ud_end *e)
{
	struct rdma_cm_id *id;

	id = rdma_create_id(&init_net, ud_handler, e, e->p->ps, IB_QPT_UD);
	KUNIT_ASSERT_FALSE(e->p->test, IS_ERR(id));
	e->id = id;
}

static void ud_addr(struct sockaddr_storage *ss, bool v6, u16 port)
{
	if (v6)
		cm_addr6(ss, "fd00:99::1", port);
	else
		cm_addr4(ss, "10.99.0.1", port);
}

static void ud_listen(struct ud_pair *p, bool v6, u16 port)
{
	struct sockaddr_storage l;

	ud_addr(&l, v6, port);
	ud_new_id(&p->lis);
	KUNIT_ASSERT_EQ(p->test,
			rdma_bind_addr(p->lis.id, (struct sockaddr *)&l), 0);
	KUNIT_ASSERT_EQ(p->test, rdma_listen(p->lis.id, 4), 0);
}

/* the client resolved to @port, with a QP (checked: RTS, the QKEY) */
static void ud_client(struct ud_pair *p, bool v6, u16 port, bool qp)
{
	struct kunit *test = p->test;
	struct ib_qp_init_attr init;
	struct sockaddr_storage d;
	struct ib_qp_attr attr;

	ud_addr(&d, v6, port);
	ud_new_id(&p->cli);
	KUNIT_ASSERT_EQ(test, rdma_resolve_addr(p->cli.id, NULL,
						(struct sockaddr *)&d, 2000),
			0);
	KUNIT_ASSERT_TRUE(test, ud_wait(&p->cli, 1));
	KUNIT_ASSERT_EQ(test, p->cli.ev[0], RDMA_CM_EVENT_ADDR_RESOLVED);
	KUNIT_ASSERT_EQ(test, rdma_resolve_route(p->cli.id, 2000), 0);
	KUNIT_ASSERT_TRUE(test, ud_wait(&p->cli, 2));
	KUNIT_ASSERT_EQ(test, p->cli.ev[1], RDMA_CM_EVENT_ROUTE_RESOLVED);
	if (!qp)
		return;
	KUNIT_ASSERT_EQ(test, ud_make_qp(&p->cli), 0);
	/* in-tree: a UD QP is ready at once, with the port space's QKEY */
	KUNIT_ASSERT_EQ(test, ib_query_qp(p->cli.id->qp, &attr,
					  IB_QP_STATE | IB_QP_QKEY, &init), 0);
	KUNIT_EXPECT_EQ(test, attr.qp_state, IB_QPS_RTS);
	KUNIT_EXPECT_EQ(test, attr.qkey, (u32)RDMA_UDP_QKEY);
}

static int ud_connect(struct ud_pair *p)
{
	struct rdma_conn_param param = {
		.private_data = "hi ud", .private_data_len = 6,
	};

	return rdma_connect(p->cli.id, &param);
}

/* a listener on @port, a client (@qp: with a QP), its request answered */
static void ud_ask(struct ud_pair *p, u16 port, bool qp)
{
	ud_listen(p, false, port);
	ud_client(p, false, port, qp);
	KUNIT_ASSERT_EQ(p->test, ud_connect(p), 0);
	KUNIT_ASSERT_TRUE(p->test, ud_wait(&p->cli, 3));
}

/* one completion, waited for up to about five seconds */
static int ud_poll(struct ib_cq *cq, struct ib_wc *wc)
{
	int i;

	for (i = 0; i < 2500; i++) {
		if (ib_poll_cq(cq, 1, wc) == 1)
			return wc->status == IB_WC_SUCCESS ? 0 : -EIO;
		usleep_range(1000, 2000);
	}
	return -ETIMEDOUT;
}

static int ud_post_recv(struct ud_end *e, u64 dma)
{
	struct ib_sge sge = { .addr = dma, .length = UD_BUF,
			      .lkey = e->pd->local_dma_lkey };
	struct ib_recv_wr wr = { .sg_list = &sge, .num_sge = 1 };

	return ib_post_recv(e->id->qp, &wr, NULL);
}

static int ud_send(struct ud_end *e, struct ib_ah *ah, u32 qpn, u32 qkey,
		   u64 dma, u32 len)
{
	struct ib_sge sge = { .addr = dma, .length = len,
			      .lkey = e->pd->local_dma_lkey };
	struct ib_ud_wr wr = {
		.wr = { .opcode = IB_WR_SEND, .send_flags = IB_SEND_SIGNALED,
			.sg_list = &sge, .num_sge = 1 },
		.ah = ah, .remote_qpn = qpn, .remote_qkey = qkey,
	};
	struct ib_wc wc;
	int ret;

	ret = ib_post_send(e->id->qp, &wr.wr, NULL);
	if (!ret)
		ret = ud_poll(e->cq, &wc);
	if (!ret && wc.opcode != IB_WC_SEND)
		ret = -EPROTO;
	return ret;
}

/*
 * The client sends to the conn id's QP through an AH made from the
 * ESTABLISHED event's attributes; the conn id answers through an AH made
 * from the completion, as a UD server does.
 */
static void ud_data(struct kunit *test, struct ud_pair *p)
{
	struct ud_end *c = &p->cli, *s = &p->conn;
	struct ib_device *dev = c->id->device;
	u8 *cbuf = kunit_kzalloc(test, UD_BUF, GFP_KERNEL);
	u8 *sbuf = kunit_kzalloc(test, UD_BUF, GFP_KERNEL);
	struct ib_ah *sah;
	struct ib_wc wc;
	u64 cdma, sdma;

	KUNIT_ASSERT_NOT_NULL(test, cbuf);
	KUNIT_ASSERT_NOT_NULL(test, sbuf);
	cdma = ib_dma_map_single(dev, cbuf, UD_BUF, DMA_BIDIRECTIONAL);
	sdma = ib_dma_map_single(dev, sbuf, UD_BUF, DMA_BIDIRECTIONAL);

	c->ah = rdma_create_ah(c->pd, &c->ah_attr, RDMA_CREATE_AH_SLEEPABLE);
	if (IS_ERR(c->ah)) {
		KUNIT_FAIL(test, "rdma_create_ah: %ld", PTR_ERR(c->ah));
		c->ah = NULL;
		goto out;
	}
	KUNIT_ASSERT_EQ(test, ud_post_recv(s, sdma), 0);
	strscpy(cbuf, UD_MSG, UD_BUF);
	KUNIT_ASSERT_EQ(test, ud_send(c, c->ah, c->remote_qpn, c->qkey, cdma,
				      sizeof(UD_MSG)), 0);
	KUNIT_ASSERT_EQ(test, ud_poll(s->cq, &wc), 0);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RECV);
	KUNIT_EXPECT_EQ(test, wc.src_qp, c->id->qp->qp_num);
	KUNIT_EXPECT_EQ(test, wc.byte_len, (u32)(UD_GRH + sizeof(UD_MSG)));
	KUNIT_EXPECT_STREQ(test, (char *)sbuf + UD_GRH, UD_MSG);

	sah = ib_create_ah_from_wc(s->pd, &wc, (struct ib_grh *)sbuf,
				   s->id->port_num);
	if (IS_ERR(sah)) {
		KUNIT_FAIL(test, "ib_create_ah_from_wc: %ld", PTR_ERR(sah));
		goto out;
	}
	s->ah = sah;
	KUNIT_ASSERT_EQ(test, ud_post_recv(c, cdma), 0);
	strscpy(sbuf, UD_REPLY, UD_BUF);
	KUNIT_ASSERT_EQ(test, ud_send(s, sah, wc.src_qp, RDMA_UDP_QKEY, sdma,
				      sizeof(UD_REPLY)), 0);
	KUNIT_ASSERT_EQ(test, ud_poll(c->cq, &wc), 0);
	KUNIT_EXPECT_EQ(test, wc.src_qp, s->id->qp->qp_num);
	KUNIT_EXPECT_STREQ(test, (char *)cbuf + UD_GRH, UD_REPLY);
out:
	ib_dma_unmap_single(dev, cdma, UD_BUF, DMA_BIDIRECTIONAL);
	ib_dma_unmap_single(dev, sdma, UD_BUF, DMA_BIDIRECTIONAL);
}

struct ud_variant {
	const char *name;
	enum rdma_ucm_port_space ps;
	bool v6;
};

static const struct ud_variant ud_variants[] = {
	{ "udp_ipv4", RDMA_PS_UDP, false },
	{ "udp_ipv6", RDMA_PS_UDP, true },
	{ "ib_ipv4", RDMA_PS_IB, false },
	{ "ib_ipv6", RDMA_PS_IB, true },
};

static void ud_variant_desc(const struct ud_variant *v, char *desc)
{
	strscpy(desc, v->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ud_variant, ud_variants, ud_variant_desc);

static u16 ud_port(const struct ud_variant *v, u16 base)
{
	return base + (v - ud_variants);
}

static const int ev_est[] = { RDMA_CM_EVENT_ADDR_RESOLVED,
			      RDMA_CM_EVENT_ROUTE_RESOLVED,
			      RDMA_CM_EVENT_ESTABLISHED };
static const int ev_unreach[] = { RDMA_CM_EVENT_ADDR_RESOLVED,
				  RDMA_CM_EVENT_ROUTE_RESOLVED,
				  RDMA_CM_EVENT_UNREACHABLE };
static const int ev_cr[] = { RDMA_CM_EVENT_CONNECT_REQUEST };

/* resolve, SIDR, rdma_ud_param, data both ways */
static void ud_exchange(struct kunit *test)
{
	const struct ud_variant *v = test->param_value;
	struct ud_pair *p = ud_new_pair(test, v->ps, UD_ACCEPT);
	u16 port = ud_port(v, 18700);
	size_t hdr = xcma_wire_hdr_len(v->v6 ? AF_INET6 : AF_INET);
	const struct ib_global_route *grh;
	union ib_gid sgid;

	ud_listen(p, v->v6, port);
	ud_client(p, v->v6, port, true);
	KUNIT_ASSERT_EQ(test, ud_connect(p), 0);
	KUNIT_ASSERT_TRUE(test, ud_wait(&p->cli, 3));
	ud_expect(test, &p->cli, "client", ev_est, ARRAY_SIZE(ev_est));
	KUNIT_EXPECT_EQ(test, p->cli.st[2], 0);
	/* recorded after the SIDR REP is sent: the ESTABLISHED can be first */
	KUNIT_ASSERT_TRUE(test, ud_wait(&p->conn, 1));
	ud_expect(test, &p->conn, "conn", ev_cr, ARRAY_SIZE(ev_cr));
	KUNIT_EXPECT_EQ(test, p->lis.n, 0);
	KUNIT_ASSERT_EQ(test, p->accept_ret, 0);
	KUNIT_ASSERT_NOT_NULL(test, p->conn.id->qp);

	/* CONNECT_REQUEST: the SIDR REQ's private data after the header */
	KUNIT_EXPECT_EQ(test, p->conn.pdata_full,
			(u8)(IB_CM_SIDR_REQ_PRIVATE_DATA_SIZE - hdr));
	KUNIT_EXPECT_STREQ(test, (char *)p->conn.pdata, "hi ud");
	KUNIT_EXPECT_EQ(test, p->conn.id->qp_type, IB_QPT_UD);
	KUNIT_EXPECT_EQ(test, p->conn.id->ps, v->ps);
	/*
	 * listed in restrack (rdma res show cm_id) as every id with a
	 * device, the SIDR REQ's as the RC REQ's (in-tree: the attach of
	 * both adds the entry)
	 */
	KUNIT_EXPECT_TRUE(test, xcma_id_of(p->conn.id)->res.valid);
	KUNIT_EXPECT_PTR_EQ(test, rdma_res_to_id(&xcma_id_of(p->conn.id)->res),
			    p->conn.id);

	/* ESTABLISHED: rdma_ud_param of the conn id's QP */
	KUNIT_EXPECT_EQ(test, p->cli.remote_qpn, p->conn.id->qp->qp_num);
	KUNIT_EXPECT_EQ(test, p->cli.qkey, (u32)RDMA_UDP_QKEY);
	KUNIT_EXPECT_EQ(test, p->cli.pdata_full,
			(u8)IB_CM_SIDR_REP_PRIVATE_DATA_SIZE);
	KUNIT_EXPECT_STREQ(test, (char *)p->cli.pdata, "ok!");
	KUNIT_EXPECT_EQ(test, p->cli.ah_attr.type, RDMA_AH_ATTR_TYPE_ROCE);
	KUNIT_EXPECT_EQ(test, rdma_ah_get_port_num(&p->cli.ah_attr),
			p->cli.id->port_num);
	grh = rdma_ah_read_grh(&p->cli.ah_attr);
	KUNIT_EXPECT_NOT_NULL(test, grh->sgid_attr);
	/*
	 * the AH leads to the GID the SIDR REQ came in on, the conn id's
	 * (on RoCE its hardware address is the netdev's MAC, as in-tree:
	 * the GID is read from its GID attribute, or its IP address)
	 */
	KUNIT_ASSERT_NOT_NULL(test, p->conn.id->route.addr.dev_addr.sgid_attr);
	sgid = p->conn.id->route.addr.dev_addr.sgid_attr->gid;
	KUNIT_EXPECT_EQ(test, memcmp(&grh->dgid, &sgid, sizeof(sgid)), 0);
	rdma_read_gids(p->conn.id, &sgid, NULL);
	KUNIT_EXPECT_EQ(test, memcmp(&grh->dgid, &sgid, sizeof(sgid)), 0);

	/* UD ids stay CONNECT, as in-tree */
	KUNIT_EXPECT_EQ(test, cm_state(p->cli.id), (unsigned int)XCMA_FSM_CONNECT);
	KUNIT_EXPECT_EQ(test, cm_state(p->conn.id), (unsigned int)XCMA_FSM_CONNECT);

	ud_data(test, p);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->extra), 0);
}

/* rdma_reject() on a UD conn id: UNREACHABLE, IB_SIDR_REJECT, its data */
static void ud_reject(struct kunit *test)
{
	const struct ud_variant *v = test->param_value;
	struct ud_pair *p = ud_new_pair(test, v->ps, UD_REJECT);
	u16 port = ud_port(v, 18710);

	ud_listen(p, v->v6, port);
	ud_client(p, v->v6, port, true);
	KUNIT_ASSERT_EQ(test, ud_connect(p), 0);
	KUNIT_ASSERT_TRUE(test, ud_wait(&p->cli, 3));
	ud_expect(test, &p->cli, "client", ev_unreach, ARRAY_SIZE(ev_unreach));
	KUNIT_EXPECT_EQ(test, p->cli.st[2], IB_SIDR_REJECT);
	KUNIT_EXPECT_EQ(test, p->cli.pdata_full,
			(u8)IB_CM_SIDR_REP_PRIVATE_DATA_SIZE);
	KUNIT_EXPECT_STREQ(test, (char *)p->cli.pdata, "no!");
	KUNIT_EXPECT_EQ(test, p->accept_ret, 0);
	KUNIT_EXPECT_EQ(test, cm_state(p->cli.id), (unsigned int)XCMA_FSM_CONNECT);
	/* the conn id was destroyed by return */
	p->conn.id = NULL;
}

/* nobody listens on the port: ib_cm answers IB_SIDR_UNSUPPORTED */
static void ud_no_listener(struct kunit *test)
{
	const struct ud_variant *v = test->param_value;
	struct ud_pair *p = ud_new_pair(test, v->ps, UD_ACCEPT);

	ud_client(p, v->v6, ud_port(v, 18720), true);
	KUNIT_ASSERT_EQ(test, ud_connect(p), 0);
	KUNIT_ASSERT_TRUE(test, ud_wait(&p->cli, 3));
	ud_expect(test, &p->cli, "client", ev_unreach, ARRAY_SIZE(ev_unreach));
	KUNIT_EXPECT_EQ(test, p->cli.st[2], IB_SIDR_UNSUPPORTED);
}

/* the in-tree SIDR timeout (4 s, 15 retries) cut to 50 ms, one retry */
static int short_sidr_req(struct ib_cm_id *cm_id,
			  struct ib_cm_sidr_req_param *param)
{
	struct ib_cm_sidr_req_param p = *param;

	p.timeout_ms = 50;
	p.max_cm_retries = 1;
	return ib_send_cm_sidr_req(cm_id, &p);
}

/*
 * The listener's consumer keeps the request and never answers: ib_cm
 * gives up on the SIDR REQ (IB_CM_SIDR_REQ_ERROR), and the client gets
 * UNREACHABLE with -ETIMEDOUT, as from the in-tree CM.
 */
static void ud_sidr_timeout(struct kunit *test)
{
	struct ud_pair *p = ud_new_pair(test, RDMA_PS_UDP, UD_KEEP);
	static struct xcma_ops fake;
	const struct xcma_ops *old;
	int ret;

	ud_listen(p, false, 18735);
	ud_client(p, false, 18735, true);
	fake = xcma_kernel_ops;
	fake.send_sidr_req = short_sidr_req;
	old = xcma_ops_set(&fake);
	ret = ud_connect(p);
	xcma_ops_set(old);
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_ASSERT_TRUE(test, ud_wait(&p->conn, 1));
	KUNIT_ASSERT_TRUE(test, ud_wait(&p->cli, 3));
	ud_expect(test, &p->cli, "client", ev_unreach, ARRAY_SIZE(ev_unreach));
	KUNIT_EXPECT_EQ(test, p->cli.st[2], -ETIMEDOUT);
	/* one event: no REP, no second UNREACHABLE */
	msleep(200);
	KUNIT_EXPECT_EQ(test, p->cli.n, 3);
}

/*
 * The REP names a QKEY the client's id cannot take (its QP has
 * RDMA_UDP_QKEY): ADDR_ERROR, -EINVAL, and the id stays CONNECT
 * (cma_sidr_rep_handler).
 */
static void ud_rep_other_qkey(struct kunit *test)
{
	struct ud_pair *p = ud_new_pair(test, RDMA_PS_UDP, UD_ACCEPT_NOQP);
	static const int want[] = { RDMA_CM_EVENT_ADDR_RESOLVED,
				    RDMA_CM_EVENT_ROUTE_RESOLVED,
				    RDMA_CM_EVENT_ADDR_ERROR };

	ud_ask(p, 18730, true);
	KUNIT_EXPECT_EQ(test, p->accept_ret, 0);
	ud_expect(test, &p->cli, "client", want, ARRAY_SIZE(want));
	KUNIT_EXPECT_EQ(test, p->cli.st[2], -EINVAL);
	KUNIT_EXPECT_EQ(test, cm_state(p->cli.id), (unsigned int)XCMA_FSM_CONNECT);
}

/*
 * Without a QP of its own the client takes the REP's QKEY (and its QPN:
 * the one the server named in its conn_param).
 */
static void ud_rep_qkey_taken(struct kunit *test)
{
	struct ud_pair *p = ud_new_pair(test, RDMA_PS_UDP, UD_ACCEPT_NOQP);

	ud_ask(p, 18731, false);
	ud_expect(test, &p->cli, "client", ev_est, ARRAY_SIZE(ev_est));
	KUNIT_EXPECT_EQ(test, p->cli.qkey, (u32)UD_OTHER_QKEY);
	KUNIT_EXPECT_EQ(test, p->cli.remote_qpn, 0x42U);
}

/*
 * rdma_accept() naming a QKEY other than the one its QP got: -EINVAL,
 * and the peer hears a SIDR reject, as in-tree.
 */
static void ud_accept_other_qkey(struct kunit *test)
{
	struct ud_pair *p = ud_new_pair(test, RDMA_PS_UDP, UD_ACCEPT_BAD);

	ud_ask(p, 18732, true);
	/*
	 * accept_ret is set after rdma_accept() has sent the SIDR reject:
	 * wait for the conn id's record, the UNREACHABLE can be first
	 */
	KUNIT_ASSERT_TRUE(test, ud_wait(&p->conn, 1));
	KUNIT_EXPECT_EQ(test, p->accept_ret, -EINVAL);
	ud_expect(test, &p->cli, "client", ev_unreach, ARRAY_SIZE(ev_unreach));
	KUNIT_EXPECT_EQ(test, p->cli.st[2], IB_SIDR_REJECT);
}

/* rdma_init_qp_attr() of a UD id: its own attributes, with the QKEY */
static void ud_init_qp_attr(struct kunit *test)
{
	struct ud_pair *p = ud_new_pair(test, RDMA_PS_IB, UD_ACCEPT);
	struct ib_qp_attr attr = { .qp_state = IB_QPS_INIT };
	int mask = 0;

	ud_client(p, false, 18733, false);
	KUNIT_ASSERT_EQ(test, rdma_init_qp_attr(p->cli.id, &attr, &mask), 0);
	KUNIT_EXPECT_EQ(test, mask, IB_QP_STATE | IB_QP_PKEY_INDEX |
				    IB_QP_PORT | IB_QP_QKEY);
	KUNIT_EXPECT_EQ(test, attr.qkey, (u32)RDMA_UDP_QKEY);
	KUNIT_EXPECT_EQ(test, attr.port_num, p->cli.id->port_num);
}

/* private data beyond the SIDR REQ's room: -EINVAL, still resolved */
static void ud_connect_data_too_long(struct kunit *test)
{
	static u8 big[IB_CM_SIDR_REQ_PRIVATE_DATA_SIZE];
	struct ud_pair *p = ud_new_pair(test, RDMA_PS_UDP, UD_ACCEPT);
	struct rdma_conn_param param = { .private_data = big };
	size_t room = sizeof(big) - xcma_wire_hdr_len(AF_INET);

	ud_listen(p, false, 18734);
	ud_client(p, false, 18734, true);
	param.private_data_len = room + 1;
	KUNIT_EXPECT_EQ(test, rdma_connect(p->cli.id, &param), -EINVAL);
	KUNIT_EXPECT_EQ(test, cm_state(p->cli.id),
			(unsigned int)XCMA_FSM_ROUTE_RESOLVED);
	/* the most that fits goes through */
	param.private_data_len = room;
	KUNIT_EXPECT_EQ(test, rdma_connect(p->cli.id, &param), 0);
	KUNIT_ASSERT_TRUE(test, ud_wait(&p->cli, 3));
	ud_expect(test, &p->cli, "client", ev_est, ARRAY_SIZE(ev_est));
	KUNIT_EXPECT_EQ(test, p->conn.pdata_full, (u8)room);
}

/* ---- destroy in each UD state ---- */

enum ud_destroy_at {
	UD_D_REQ_SENT,		/* client destroyed, its SIDR REQ unanswered */
	UD_D_CONN_PENDING,	/* conn id destroyed before it answered */
	UD_D_ESTABLISHED,	/* both ends after the exchange */
	UD_D_BY_RETURN,		/* client returns non-zero from ESTABLISHED */
	UD_D_LISTENER,		/* listener destroyed, its conn id lives on */
};

static const char *const ud_destroy_names[] = {
	"req_sent", "conn_pending", "established", "by_return", "listener",
};

static const enum ud_destroy_at ud_destroy_rows[] = {
	UD_D_REQ_SENT, UD_D_CONN_PENDING, UD_D_ESTABLISHED, UD_D_BY_RETURN,
	UD_D_LISTENER,
};

static void ud_destroy_desc(const enum ud_destroy_at *at, char *desc)
{
	strscpy(desc, ud_destroy_names[*at], KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ud_destroy, ud_destroy_rows, ud_destroy_desc);

static void ud_destroy_in_state(struct kunit *test)
{
	enum ud_destroy_at at = *(const enum ud_destroy_at *)test->param_value;
	bool keep = at == UD_D_REQ_SENT || at == UD_D_CONN_PENDING ||
		    at == UD_D_LISTENER;
	struct ud_pair *p = ud_new_pair(test, RDMA_PS_UDP,
					keep ? UD_KEEP : UD_ACCEPT);
	u16 port = 18740 + at;
	int refs = xcma_id_module_refs(), n;

	ud_listen(p, false, port);
	ud_client(p, false, port, true);
	if (at == UD_D_BY_RETURN)
		p->cli.ret_on = RDMA_CM_EVENT_ESTABLISHED + 1;
	KUNIT_ASSERT_EQ(test, ud_connect(p), 0);
	KUNIT_ASSERT_TRUE(test, ud_wait(&p->conn, 1));
	KUNIT_EXPECT_EQ(test, cm_state(p->conn.id), (unsigned int)XCMA_FSM_CONNECT);

	switch (at) {
	case UD_D_REQ_SENT:
		ud_end_destroy(&p->cli);
		/* the late answer goes to an ib_cm id that is gone */
		rdma_lock_handler(p->conn.id);
		KUNIT_EXPECT_EQ(test, rdma_accept(p->conn.id, NULL), 0);
		rdma_unlock_handler(p->conn.id);
		msleep(200);
		KUNIT_EXPECT_EQ(test, p->cli.n, 2);
		break;
	case UD_D_CONN_PENDING:
		/* ib_cm's destroy of an unanswered SIDR REQ rejects it */
		ud_end_destroy(&p->conn);
		KUNIT_ASSERT_TRUE(test, ud_wait(&p->cli, 3));
		ud_expect(test, &p->cli, "client", ev_unreach,
			  ARRAY_SIZE(ev_unreach));
		KUNIT_EXPECT_EQ(test, p->cli.st[2], IB_SIDR_REJECT);
		break;
	case UD_D_ESTABLISHED:
		KUNIT_ASSERT_TRUE(test, ud_wait(&p->cli, 3));
		ud_expect(test, &p->cli, "client", ev_est, ARRAY_SIZE(ev_est));
		ud_end_destroy(&p->cli);
		ud_end_destroy(&p->conn);
		break;
	case UD_D_BY_RETURN:
		KUNIT_ASSERT_TRUE(test, ud_wait(&p->cli, 3));
		ud_expect(test, &p->cli, "client", ev_est, ARRAY_SIZE(ev_est));
		p->cli.id = NULL; /* the CM destroyed it */
		break;
	case UD_D_LISTENER:
		n = p->conn.n;
		ud_end_destroy(&p->lis);
		KUNIT_EXPECT_EQ(test, cm_state(p->conn.id),
				(unsigned int)XCMA_FSM_CONNECT);
		rdma_lock_handler(p->conn.id);
		KUNIT_EXPECT_EQ(test, ud_make_qp(&p->conn), 0);
		KUNIT_EXPECT_EQ(test, rdma_accept(p->conn.id, NULL), 0);
		rdma_unlock_handler(p->conn.id);
		KUNIT_ASSERT_TRUE(test, ud_wait(&p->cli, 3));
		ud_expect(test, &p->cli, "client", ev_est, ARRAY_SIZE(ev_est));
		KUNIT_EXPECT_EQ(test, p->cli.remote_qpn,
				p->conn.id->qp->qp_num);
		KUNIT_EXPECT_EQ(test, p->conn.n, n);
		break;
	}
	ud_pair_cleanup(p);
	KUNIT_EXPECT_EQ(test, cm_module_refs_settle(refs), refs);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->cli.overlaps), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->conn.overlaps), 0);
}

/*
 * rxe0 goes while a client, a listener and its conn id (all UD, both
 * ends with a QP) are bound to it: each gets one DEVICE_REMOVAL (G4),
 * frees its QP and returns non-zero; no callback overlaps another (G1);
 * the removal returns (G5); every id is freed and the re-added rxe0 is
 * held by nothing (G8).
 */
static void ud_device_removal(struct kunit *test)
{
	struct ud_pair *p = ud_new_pair(test, RDMA_PS_UDP, UD_ACCEPT);
	struct ud_end *ends[] = { &p->cli, &p->lis, &p->conn };
	static const char *const names[] = { "client", "listener", "conn" };
	int refs = xcma_id_module_refs(), i, n[3];

	ud_ask(p, 18750, true);
	KUNIT_ASSERT_EQ(test, p->cli.ev[2], RDMA_CM_EVENT_ESTABLISHED);
	/* recorded after the SIDR REP is sent: the ESTABLISHED can be first */
	KUNIT_ASSERT_TRUE(test, ud_wait(&p->conn, 1));
	KUNIT_ASSERT_EQ(test, p->accept_ret, 0);
	for (i = 0; i < 3; i++) {
		n[i] = ends[i]->n;
		ends[i]->ret_on = RDMA_CM_EVENT_DEVICE_REMOVAL + 1;
	}

	KUNIT_ASSERT_EQ(test, cm_rxe_delete(test), 0);
	for (i = 0; i < 3; i++) {
		struct ud_end *e = ends[i];

		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&e->removals), 1,
				    "%s: DEVICE_REMOVAL", names[i]);
		KUNIT_EXPECT_EQ_MSG(test, e->n, n[i] + 1, "%s: events",
				    names[i]);
		if (e->n == n[i] + 1 && e->n <= UD_MAX_EV)
			KUNIT_EXPECT_EQ(test, e->ev[e->n - 1],
					RDMA_CM_EVENT_DEVICE_REMOVAL);
		KUNIT_EXPECT_EQ(test, atomic_read(&e->overlaps), 0);
		/* destroyed by return */
		if (atomic_read(&e->removals))
			e->id = NULL;
	}
	KUNIT_EXPECT_EQ(test, cm_module_refs_settle(refs), refs);
	KUNIT_ASSERT_EQ(test, cm_rxe_add(test), 0);
	cm_expect_rxe0_idle(test);
}

static int ud_bind_probe(struct sockaddr_storage *a)
{
	return cm_bind_probe(a, RDMA_PS_UDP, IB_QPT_UD);
}

/* after another suite's removal of rxe0, its GIDs come back a little later */
static int ud_suite_init(struct kunit_suite *suite)
{
	struct sockaddr_storage a4, a6;
	int i, ret = -ETIMEDOUT;

	cm_addr4(&a4, "10.99.0.1", 0);
	cm_addr6(&a6, "fd00:99::1", 0);
	for (i = 0; i < 100 && ret; i++) {
		ret = ud_bind_probe(&a4) ?: ud_bind_probe(&a6);
		if (ret)
			msleep(100);
	}
	return ret;
}

/*
 * A SIDR REQ on rxe0 while rxe0 is not init_net's (ib_core's exclusive
 * netns mode, a fake: cm_netns_fake()) makes no id, as in-tree, where
 * cma_ib_acquire_dev() fails: ib_cm answers IB_SIDR_REJECT, and the
 * listener hears nothing. Control: rxe0 init_net's again, a second pair
 * gets ESTABLISHED.
 */
static void ud_request_on_a_device_of_another_namespace(struct kunit *test)
{
	struct ud_pair *p = ud_new_pair(test, RDMA_PS_UDP, UD_ACCEPT), *q;

	cm_netns_fake(test);
	ud_listen(p, false, 18760);
	ud_client(p, false, 18760, true);
	cm_netns_hide("rxe0");
	KUNIT_ASSERT_EQ(test, ud_connect(p), 0);
	KUNIT_ASSERT_TRUE(test, ud_wait(&p->cli, 3));
	ud_expect(test, &p->cli, "client", ev_unreach, ARRAY_SIZE(ev_unreach));
	KUNIT_EXPECT_EQ(test, p->cli.st[2], IB_SIDR_REJECT);
	KUNIT_EXPECT_EQ(test, p->lis.n, 0);
	KUNIT_EXPECT_EQ(test, p->conn.n, 0);
	KUNIT_EXPECT_NULL(test, p->conn.id);

	cm_netns_hide(NULL);
	q = ud_new_pair(test, RDMA_PS_UDP, UD_ACCEPT);
	ud_listen(q, false, 18761);
	ud_client(q, false, 18761, true);
	KUNIT_ASSERT_EQ(test, ud_connect(q), 0);
	KUNIT_ASSERT_TRUE(test, ud_wait(&q->cli, 3));
	ud_expect(test, &q->cli, "control client", ev_est, ARRAY_SIZE(ev_est));
}

/*
 * A SIDR REQ to a listener of the IPoIB port space over RoCE makes no
 * id, as in-tree, where cma_ib_acquire_dev() refuses an RDMA_PS_IPOIB id
 * whose hardware address is not InfiniBand's (-EINVAL): ib_cm answers
 * IB_SIDR_REJECT, and the listener hears nothing. Before, xcma handed it
 * the request. (The client has no QP: an IPoIB QKEY comes from an IB
 * SA.)
 */
static void ud_ipoib_request_on_roce(struct kunit *test)
{
	struct ud_pair *p = ud_new_pair(test, RDMA_PS_IPOIB, UD_ACCEPT);

	ud_ask(p, 18762, false);
	ud_expect(test, &p->cli, "client", ev_unreach, ARRAY_SIZE(ev_unreach));
	KUNIT_EXPECT_EQ(test, p->cli.st[2], IB_SIDR_REJECT);
	KUNIT_EXPECT_EQ(test, p->lis.n, 0);
	KUNIT_EXPECT_EQ(test, p->conn.n, 0);
	KUNIT_EXPECT_NULL(test, p->conn.id);
}

static struct kunit_case ud_cases[] = {
	KUNIT_CASE_PARAM(ud_exchange, ud_variant_gen_params),
	KUNIT_CASE_PARAM(ud_reject, ud_variant_gen_params),
	KUNIT_CASE_PARAM(ud_no_listener, ud_variant_gen_params),
	KUNIT_CASE(ud_sidr_timeout),
	KUNIT_CASE(ud_rep_other_qkey),
	KUNIT_CASE(ud_rep_qkey_taken),
	KUNIT_CASE(ud_accept_other_qkey),
	KUNIT_CASE(ud_init_qp_attr),
	KUNIT_CASE(ud_connect_data_too_long),
	KUNIT_CASE_PARAM(ud_destroy_in_state, ud_destroy_gen_params),
	KUNIT_CASE_SLOW(ud_device_removal),
	KUNIT_CASE(ud_request_on_a_device_of_another_namespace),
	KUNIT_CASE(ud_ipoib_request_on_roce),
	{}
};

static struct kunit_suite ud_suite = {
	.name = "xcma_ud",
	.init = xcma_kunit_sweep_init,
	.suite_init = ud_suite_init,
	.test_cases = ud_cases,
};

kunit_test_suite(ud_suite);
