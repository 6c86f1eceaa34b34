// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * xcma_iw: iWARP through iw_cm, on Soft-iWARP (siw0).
 *
 * The suite puts siw0 on a netdev of its own (a dummy, xiw0, with
 * 10.98.0.1 and fd00:98::1): rxe0 already holds eth0, and a CM takes the
 * first device whose port has an address's netdev, as in-tree, so siw0 on
 * eth0 would never be picked while rxe0 is there. Both ends run on this
 * host, over TCP through the loopback.
 *
 * Cases: connections over IPv4 and IPv6 with SEND/RECV and RDMA WRITE and
 * READ both ways and a disconnect; a reject with private data; a connect
 * to a port nobody listens on; destroy in every state; each iw_cm call of
 * the ops layer failing once; and device removal (siw0 deleted) with a
 * connected pair, a listener on siw0 and a wildcard listener, checked per
 * id as xcma_removal does for rxe0 (G1-G5, G7, G8).
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/in.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <rdma/iw_cm.h>
#include <rdma/rdma_cm.h>

#include "../../cma/id.h"
#include "../../cma/iw.h"
#include "../../cma/neigh.h"
#include "../../cma/ops.h"
#include "../../cma/device.h"
#include "cm_util.h"
#include "xcma/fsm.h"
#include "xcma_kunit.h"

#define IW_IP4 "10.98.0.1"
#define IW_IP6 "fd00:98::1"
#define IW_PORT 18900
#define IW_DEV "siw0"

#define SIW_ADD "/usr/sbin/rdma link add " IW_DEV " type siw netdev xiw0"
#define SIW_DEL "/usr/sbin/rdma link delete " IW_DEV

static const char *const iw_setup[] = {
	"/sbin/modprobe siw",
	"/usr/sbin/ip link add xiw0 type dummy",
	"/usr/sbin/ip addr add " IW_IP4 "/24 dev xiw0",
	"/usr/sbin/ip -6 addr add " IW_IP6 "/64 dev xiw0 nodad",
	"/usr/sbin/ip link set xiw0 up",
	SIW_ADD,
};

/* siw0 exists, is active and no id holds it */
static void expect_siw0_idle(struct kunit *test)
{
	unsigned int holders = 0;
	int state = -1;

	KUNIT_EXPECT_EQ(test, xcma_device_query(IW_DEV, &state, &holders), 0);
	KUNIT_EXPECT_EQ(test, state, XCMA_DEV_ACTIVE);
	KUNIT_EXPECT_EQ_MSG(test, holders, 0U, IW_DEV " still held");
}

static int iw_suite_init(struct kunit_suite *suite)
{
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(iw_setup); i++) {
		ret = xcma_kunit_run(NULL, iw_setup[i]);
		if (ret) {
			pr_err("xcma_iw: '%s' -> %d\n", iw_setup[i], ret);
			return -ENODEV;
		}
	}
	return 0;
}

static void iw_suite_exit(struct kunit_suite *suite)
{
	xcma_kunit_run(NULL, SIW_DEL);
	xcma_kunit_run(NULL, "/usr/sbin/ip link del xiw0");
}

static void addr_of(struct sockaddr_storage *ss, bool v6, u16 port)
{
	if (v6)
		cm_addr6(ss, IW_IP6, port);
	else
		cm_addr4(ss, IW_IP4, port);
}

/*
 * RDMA WRITE from @a into a buffer @b registered for remote access, made
 * visible by a SEND that follows it (iWARP has no WRITE with immediate:
 * DDP places in order, so the SEND's arrival means the WRITE's bytes are
 * there); then @b changes the bytes and @a reads them back.
 */
#define RLEN 64
static int iw_write_read(struct rdma_cm_id *a, struct ib_pd *apd,
			 struct ib_cq *acq, struct rdma_cm_id *b,
			 struct ib_pd *bpd, struct ib_cq *bcq)
{
	u8 *target = kzalloc(RLEN, GFP_KERNEL), *local = kzalloc(RLEN, GFP_KERNEL);
	struct ib_reg_wr reg = {
		.wr = { .opcode = IB_WR_REG_MR, .send_flags = IB_SEND_SIGNALED },
		.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
			  IB_ACCESS_REMOTE_READ,
	};
	struct ib_sge sge = {}, rsge = {};
	struct ib_rdma_wr wr = { .wr = { .opcode = IB_WR_RDMA_WRITE,
					 .send_flags = IB_SEND_SIGNALED,
					 .sg_list = &sge, .num_sge = 1 } };
	struct ib_send_wr snd = { .opcode = IB_WR_SEND,
				  .send_flags = IB_SEND_SIGNALED };
	struct ib_recv_wr rwr = { .sg_list = &rsge, .num_sge = 1 };
	struct scatterlist sg;
	struct ib_mr *mr = NULL;
	struct ib_wc wc;
	u64 ldma = 0;
	int ret = -ENOMEM, i, got;

	if (!target || !local)
		goto out;
	sg_init_one(&sg, target, RLEN);
	if (ib_dma_map_sg(b->device, &sg, 1, DMA_BIDIRECTIONAL) != 1)
		goto out;
	ldma = ib_dma_map_single(a->device, local, RLEN, DMA_BIDIRECTIONAL);
	mr = ib_alloc_mr(bpd, IB_MR_TYPE_MEM_REG, 1);
	if (IS_ERR(mr)) {
		ret = PTR_ERR(mr);
		mr = NULL;
		goto unmap;
	}
	ret = ib_map_mr_sg(mr, &sg, 1, NULL, PAGE_SIZE) == 1 ? 0 : -EINVAL;
	if (ret)
		goto unmap;
	ib_update_fast_reg_key(mr, ib_inc_rkey(mr->rkey));
	reg.mr = mr;
	reg.key = mr->rkey;
	ret = ib_post_send(b->qp, &reg.wr, NULL);
	/* a receive with no buffer for the zero-byte SEND that follows */
	if (!ret)
		ret = ib_post_recv(b->qp, &rwr, NULL);
	for (i = 0, got = 0; !ret && i < 500 && !got; i++) {
		got = ib_poll_cq(bcq, 1, &wc);
		if (!got)
			usleep_range(5000, 10000);
		else if (wc.status != IB_WC_SUCCESS || wc.opcode != IB_WC_REG_MR)
			ret = -EPROTO;
	}
	if (!ret && !got)
		ret = -ETIMEDOUT;
	if (ret)
		goto unmap;

	memset(local, 0x5a, RLEN);
	sge = (struct ib_sge){ .addr = ldma, .length = RLEN,
			       .lkey = apd->local_dma_lkey };
	wr.remote_addr = mr->iova;
	wr.rkey = mr->rkey;
	ret = ib_post_send(a->qp, &wr.wr, NULL);
	if (!ret)
		ret = ib_post_send(a->qp, &snd, NULL);
	/* two send completions on @a, one receive on @b */
	for (i = 0, got = 0; !ret && i < 500 && got < 3; i++) {
		if (ib_poll_cq(acq, 1, &wc) == 1 || ib_poll_cq(bcq, 1, &wc) == 1) {
			got++;
			if (wc.status != IB_WC_SUCCESS)
				ret = -EIO;
		} else {
			usleep_range(5000, 10000);
		}
	}
	if (!ret && got < 3)
		ret = -ETIMEDOUT;
	if (ret)
		goto unmap;
	ib_dma_sync_single_for_cpu(b->device, sg_dma_address(&sg), RLEN,
				   DMA_BIDIRECTIONAL);
	if (memchr_inv(target, 0x5a, RLEN)) {
		ret = -EBADMSG;
		goto unmap;
	}

	memset(target, 0xa5, RLEN);
	ib_dma_sync_single_for_device(b->device, sg_dma_address(&sg), RLEN,
				      DMA_BIDIRECTIONAL);
	wr.wr.opcode = IB_WR_RDMA_READ;
	ret = ib_post_send(a->qp, &wr.wr, NULL);
	for (i = 0, got = 0; !ret && i < 500 && !got; i++) {
		got = ib_poll_cq(acq, 1, &wc);
		if (!got)
			usleep_range(5000, 10000);
		else if (wc.status != IB_WC_SUCCESS)
			ret = -EIO;
	}
	if (!ret && !got)
		ret = -ETIMEDOUT;
	if (!ret) {
		ib_dma_sync_single_for_cpu(a->device, ldma, RLEN,
					   DMA_BIDIRECTIONAL);
		ret = memchr_inv(local, 0xa5, RLEN) ? -EBADMSG : 0;
	}
unmap:
	if (mr)
		ib_dereg_mr(mr);
	if (ldma)
		ib_dma_unmap_single(a->device, ldma, RLEN, DMA_BIDIRECTIONAL);
	ib_dma_unmap_sg(b->device, &sg, 1, DMA_BIDIRECTIONAL);
out:
	kfree(target);
	kfree(local);
	return ret;
}

/* a listener on siw0's address (or the wildcard), its side logging */
static struct rdma_cm_id *new_listener(struct kunit *test, struct side *ss,
				       bool v6, bool wildcard, u16 port)
{
	struct sockaddr_storage l;
	struct rdma_cm_id *lis;

	lis = cm_new_id(test, ss, IB_QPT_RC);
	ss->listener = lis;
	if (wildcard) {
		if (v6)
			cm_addr6(&l, NULL, port);
		else
			cm_addr4(&l, NULL, port);
	} else {
		addr_of(&l, v6, port);
	}
	KUNIT_ASSERT_EQ(test, rdma_bind_addr(lis, (struct sockaddr *)&l), 0);
	KUNIT_ASSERT_EQ(test, rdma_listen(lis, 8), 0);
	return lis;
}

static const struct rdma_conn_param conn_param = {
	.private_data = "iw", .private_data_len = 3,
	.responder_resources = 1, .initiator_depth = 1,
	.retry_count = 7, .rnr_retry_count = 7,
};

/* a client with a QP, resolved to siw0's address and connected */
static struct rdma_cm_id *connect_client(struct kunit *test, struct side *cs,
					 bool v6, u16 port, struct ib_pd **pd,
					 struct ib_cq **cq)
{
	struct rdma_conn_param param = conn_param;
	struct sockaddr_storage d;
	struct rdma_cm_id *cli;

	addr_of(&d, v6, port);
	cli = cm_new_id(test, cs, IB_QPT_RC);
	KUNIT_ASSERT_EQ(test, cm_resolve(test, cs, cli, NULL, &d), 0);
	KUNIT_ASSERT_STREQ(test, dev_name(&cli->device->dev), IW_DEV);
	KUNIT_ASSERT_EQ(test, cm_make_qp(cli, pd, cq), 0);
	KUNIT_ASSERT_EQ(test, rdma_connect(cli, &param), 0);
	return cli;
}

static void connect_exchange(struct kunit *test, bool v6)
{
	static const int want_cli[] = {
		RDMA_CM_EVENT_ADDR_RESOLVED, RDMA_CM_EVENT_ROUTE_RESOLVED,
		RDMA_CM_EVENT_ESTABLISHED, RDMA_CM_EVENT_DISCONNECTED,
	};
	static const int want_srv[] = {
		RDMA_CM_EVENT_CONNECT_REQUEST, RDMA_CM_EVENT_ESTABLISHED,
		RDMA_CM_EVENT_DISCONNECTED,
	};
	struct side *cs = cm_new_side(test), *ss = cm_new_side(test);
	unsigned int base = xcma_id_live();
	u16 port = IW_PORT + v6;
	struct rdma_cm_id *lis, *cli;
	struct ib_qp_attr attr;
	struct ib_pd *pd;
	struct ib_cq *cq;
	int mask = 0;

	lis = new_listener(test, ss, v6, false, port);
	KUNIT_EXPECT_STREQ(test, dev_name(&lis->device->dev), IW_DEV);
	KUNIT_EXPECT_NOT_NULL(test, rdma_iw_cm_id(lis));
	cli = connect_client(test, cs, v6, port, &pd, &cq);
	KUNIT_ASSERT_TRUE(test, cm_wait_events(cs, false, 3));
	KUNIT_ASSERT_TRUE(test, cm_wait_events(ss, true, 2));
	KUNIT_EXPECT_EQ(test, ss->err, 0);
	KUNIT_EXPECT_EQ(test, cs->ev[2], RDMA_CM_EVENT_ESTABLISHED);
	KUNIT_EXPECT_EQ(test, ss->cev[1], RDMA_CM_EVENT_ESTABLISHED);
	/* MPA carries the private data as it was sent, no header, no padding */
	KUNIT_EXPECT_EQ(test, ss->pdata_full, 3);
	KUNIT_EXPECT_STREQ(test, (char *)ss->pdata, "iw");
	KUNIT_ASSERT_NOT_NULL(test, ss->conn);
	KUNIT_EXPECT_NOT_NULL(test, rdma_iw_cm_id(cli));
	KUNIT_EXPECT_PTR_EQ(test, rdma_iw_cm_id(cli), xcma_id_of(cli)->iw_id);
	KUNIT_EXPECT_NOT_NULL(test, rdma_iw_cm_id(ss->conn));
	KUNIT_EXPECT_STREQ(test, rdma_reject_msg(cli, -ECONNREFUSED),
			   "refused by remote application");
	/* no neighbour watch for iWARP, as in-tree: TCP keeps the peer */
	KUNIT_EXPECT_FALSE(test, xcma_neigh_watched(xcma_id_of(cli)));

	/* iw_cm's attributes once connected, with the id's port */
	attr.qp_state = IB_QPS_RTS;
	KUNIT_EXPECT_EQ(test, rdma_init_qp_attr(cli, &attr, &mask), 0);
	KUNIT_EXPECT_TRUE(test, mask & IB_QP_PORT);
	KUNIT_EXPECT_EQ(test, attr.port_num, cli->port_num);

	KUNIT_EXPECT_EQ(test, cm_exchange(test, cli, pd, cq, ss->conn, ss->pd,
					  ss->cq), 0);
	KUNIT_EXPECT_EQ(test, cm_exchange(test, ss->conn, ss->pd, ss->cq, cli,
					  pd, cq), 0);
	KUNIT_EXPECT_EQ(test, iw_write_read(cli, pd, cq, ss->conn, ss->pd,
					    ss->cq), 0);
	KUNIT_EXPECT_EQ(test, iw_write_read(ss->conn, ss->pd, ss->cq, cli, pd,
					    cq), 0);

	KUNIT_EXPECT_EQ(test, rdma_disconnect(cli), 0);
	KUNIT_EXPECT_TRUE(test, cm_wait_events(cs, false, 4));
	KUNIT_EXPECT_TRUE(test, cm_wait_events(ss, true, 3));
	cm_expect_events(test, cs, false, want_cli, ARRAY_SIZE(want_cli));
	cm_expect_events(test, ss, true, want_srv, ARRAY_SIZE(want_srv));
	KUNIT_EXPECT_EQ(test, ss->n, 0);
	/* a listener has no connection to close */
	KUNIT_EXPECT_EQ(test, rdma_disconnect(lis), -EINVAL);

	cm_free_qp(cli, pd, cq);
	rdma_destroy_id(cli);
	cm_free_qp(ss->conn, ss->pd, ss->cq);
	rdma_destroy_id(ss->conn);
	rdma_destroy_id(lis);
	KUNIT_EXPECT_EQ(test, xcma_id_live(), base);
	expect_siw0_idle(test);
}

static void connect_ipv4(struct kunit *test)
{
	connect_exchange(test, false);
}

static void connect_ipv6(struct kunit *test)
{
	connect_exchange(test, true);
}

/* the private data of the last REJECTED event, as the event had it */
static struct {
	u8 data[16];
	u8 len;
} rej;

static int rej_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	if (ev->event == RDMA_CM_EVENT_REJECTED) {
		rej.len = ev->param.conn.private_data_len;
		memcpy(rej.data, ev->param.conn.private_data,
		       min_t(u8, rej.len, sizeof(rej.data)));
	}
	return cm_handler(id, ev);
}

/*
 * One client to @d, whose listener rejects: REJECTED with -ECONNRESET, as
 * siw reports both a peer's MPA reject (siw_proc_mpareply, with the
 * reply's private data) and a peer's close before its MPA reply was read
 * (SIW_CM_WORK_PEER_CLOSE in AWAIT_MPAREP, with none); the in-tree CM,
 * too, passes either on as REJECTED. Return: the private data's length.
 */
static u8 reject_once(struct kunit *test, struct sockaddr_storage *d)
{
	static const int want_cli[] = {
		RDMA_CM_EVENT_ADDR_RESOLVED, RDMA_CM_EVENT_ROUTE_RESOLVED,
		RDMA_CM_EVENT_REJECTED,
	};
	struct rdma_conn_param param = conn_param;
	struct side *cs = cm_new_side(test);
	struct rdma_cm_id *cli;
	struct ib_pd *pd;
	struct ib_cq *cq;

	memset(&rej, 0, sizeof(rej));
	cli = rdma_create_id(&init_net, rej_handler, cs, RDMA_PS_TCP,
			     IB_QPT_RC);
	KUNIT_ASSERT_FALSE(test, IS_ERR(cli));
	KUNIT_ASSERT_EQ(test, cm_resolve(test, cs, cli, NULL, d), 0);
	KUNIT_ASSERT_EQ(test, cm_make_qp(cli, &pd, &cq), 0);
	KUNIT_ASSERT_EQ(test, rdma_connect(cli, &param), 0);
	KUNIT_ASSERT_TRUE(test, cm_wait_events(cs, false, 3));
	cm_expect_events(test, cs, false, want_cli, ARRAY_SIZE(want_cli));
	KUNIT_EXPECT_EQ(test, cs->st[2], -ECONNRESET);
	KUNIT_EXPECT_EQ(test, cs->pdata_full, 0);
	KUNIT_EXPECT_EQ(test, cm_state(cli), (unsigned int)XCMA_FSM_CONNECT);
	/* the reply's data whole, or (siw's close first) none */
	if (rej.len)
		KUNIT_EXPECT_EQ(test, rej.len, 4);
	if (rej.len == 4)
		KUNIT_EXPECT_EQ(test, memcmp(rej.data, "nope", 4), 0);
	cm_free_qp(cli, pd, cq);
	rdma_destroy_id(cli);
	return rej.len;
}

/*
 * The listener's user rejects with private data: the MPA reply carries
 * it. siw may see the server's close before it reads that reply (then
 * the REJECTED has no data: reject_once()), once in about twenty boots
 * here, so up to three clients are rejected and one of them must get
 * "nope": a CM that drops the data fails all three. Only -ECONNREFUSED
 * counts as a consumer's reject for rdma_consumer_reject_data(), as
 * in-tree.
 */
static void reject_private_data(struct kunit *test)
{
	struct side *ss = cm_new_side(test), *cs;
	unsigned int base = xcma_id_live();
	struct rdma_cm_event ev = {};
	struct rdma_cm_id *lis, *cli;
	struct sockaddr_storage d;
	int attempt, got = 0;
	const void *data;
	u8 len = 0xff;

	lis = new_listener(test, ss, false, false, IW_PORT + 2);
	ss->action = REQ_REJECT;
	addr_of(&d, false, IW_PORT + 2);
	for (attempt = 0; attempt < 3 && got != 4; attempt++)
		got = reject_once(test, &d);
	KUNIT_EXPECT_EQ_MSG(test, got, 4, "no reject data in %d attempts",
			    attempt);
	if (got == 4 && attempt > 1)
		kunit_info(test, "reject data on attempt %d (siw's close first)",
			   attempt);
	KUNIT_EXPECT_EQ(test, ss->err, 0);

	/* a consumer's reject over iw_cm: -ECONNREFUSED with its data */
	cs = cm_new_side(test);
	cli = rdma_create_id(&init_net, rej_handler, cs, RDMA_PS_TCP,
			     IB_QPT_RC);
	KUNIT_ASSERT_FALSE(test, IS_ERR(cli));
	KUNIT_ASSERT_EQ(test, cm_resolve(test, cs, cli, NULL, &d), 0);
	ev.event = RDMA_CM_EVENT_REJECTED;
	ev.status = -ECONNREFUSED;
	ev.param.conn.private_data = "nope";
	ev.param.conn.private_data_len = 4;
	data = rdma_consumer_reject_data(cli, &ev, &len);
	KUNIT_EXPECT_PTR_EQ(test, data, (const void *)"nope");
	KUNIT_EXPECT_EQ(test, len, 4);
	ev.status = -ECONNRESET;
	KUNIT_EXPECT_NULL(test, rdma_consumer_reject_data(cli, &ev, &len));
	KUNIT_EXPECT_EQ(test, len, 0);

	rdma_destroy_id(cli);
	rdma_destroy_id(lis);
	KUNIT_EXPECT_EQ(test, xcma_id_live(), base);
	expect_siw0_idle(test);
}

/* nobody listens: the TCP connect is refused, inside rdma_connect() */
static void no_listener(struct kunit *test)
{
	struct side *cs = cm_new_side(test);
	unsigned int base = xcma_id_live();
	struct rdma_conn_param param = conn_param;
	struct sockaddr_storage d;
	struct rdma_cm_id *cli;
	struct ib_pd *pd;
	struct ib_cq *cq;

	addr_of(&d, false, IW_PORT + 3);
	cli = cm_new_id(test, cs, IB_QPT_RC);
	KUNIT_ASSERT_EQ(test, cm_resolve(test, cs, cli, NULL, &d), 0);
	KUNIT_ASSERT_EQ(test, cm_make_qp(cli, &pd, &cq), 0);
	KUNIT_EXPECT_EQ(test, rdma_connect(cli, &param), -ECONNREFUSED);
	KUNIT_EXPECT_EQ(test, cm_state(cli),
			(unsigned int)XCMA_FSM_ROUTE_RESOLVED);
	KUNIT_EXPECT_NULL(test, rdma_iw_cm_id(cli));
	msleep(300);
	KUNIT_EXPECT_EQ(test, cs->n, 2);

	cm_free_qp(cli, pd, cq);
	rdma_destroy_id(cli);
	KUNIT_EXPECT_EQ(test, xcma_id_live(), base);
	expect_siw0_idle(test);
}

/*
 * Nobody answers the request: siw gives up on the MPA reply after its 10 s
 * (MPAREQ_TIMEOUT) with -ETIMEDOUT, which is UNREACHABLE, as in-tree.
 */
static void unreachable_mpa_timeout(struct kunit *test)
{
	static const int want_cli[] = {
		RDMA_CM_EVENT_ADDR_RESOLVED, RDMA_CM_EVENT_ROUTE_RESOLVED,
		RDMA_CM_EVENT_UNREACHABLE,
	};
	struct side *cs = cm_new_side(test), *ss = cm_new_side(test);
	unsigned int base = xcma_id_live();
	struct rdma_cm_id *lis, *cli;
	struct ib_pd *pd;
	struct ib_cq *cq;

	lis = new_listener(test, ss, false, false, IW_PORT + 4);
	ss->action = REQ_KEEP;
	cli = connect_client(test, cs, false, IW_PORT + 4, &pd, &cq);
	KUNIT_ASSERT_TRUE(test, cm_wait_events(ss, true, 1));
	KUNIT_ASSERT_TRUE(test, cm_wait_events(cs, false, 3));
	cm_expect_events(test, cs, false, want_cli, ARRAY_SIZE(want_cli));
	KUNIT_EXPECT_EQ(test, cs->st[2], -ETIMEDOUT);

	cm_free_qp(cli, pd, cq);
	rdma_destroy_id(cli);
	rdma_destroy_id(ss->conn);
	rdma_destroy_id(lis);
	KUNIT_EXPECT_EQ(test, xcma_id_live(), base);
	expect_siw0_idle(test);
}

/* ---- destroy in every state ---- */

enum dstate {
	D_IDLE, D_BOUND, D_ADDR, D_ROUTE, D_LISTEN, D_LISTEN_ANY,
	D_CONNECT_SRV, D_CONNECT_CLI, D_ESTABLISHED, D_DISCONNECT,
};

struct dcase {
	const char *name;
	enum dstate st;
};

static const struct dcase dcases[] = {
	{ "idle", D_IDLE }, { "addr_bound", D_BOUND },
	{ "addr_resolved", D_ADDR }, { "route_resolved", D_ROUTE },
	{ "listen", D_LISTEN }, { "listen_wildcard", D_LISTEN_ANY },
	{ "conn_id_connect_unanswered", D_CONNECT_SRV },
	{ "client_connect_rejected", D_CONNECT_CLI },
	{ "established", D_ESTABLISHED }, { "disconnect", D_DISCONNECT },
};

static void dcase_desc(const struct dcase *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(dcase, dcases, dcase_desc);

static void destroy_in_state(struct kunit *test)
{
	const struct dcase *c = test->param_value;
	struct side *cs = cm_new_side(test), *ss = cm_new_side(test);
	unsigned int base = xcma_id_live();
	u16 port = IW_PORT + 10 + c->st;
	struct rdma_cm_id *id = NULL, *lis = NULL;
	struct sockaddr_storage a, d;
	struct ib_pd *pd = NULL;
	struct ib_cq *cq = NULL;
	int n;

	switch (c->st) {
	case D_IDLE:
		id = cm_new_id(test, cs, IB_QPT_RC);
		break;
	case D_BOUND:
		id = cm_new_id(test, cs, IB_QPT_RC);
		addr_of(&a, false, port);
		KUNIT_ASSERT_EQ(test, rdma_bind_addr(id, (struct sockaddr *)&a), 0);
		KUNIT_EXPECT_STREQ(test, dev_name(&id->device->dev), IW_DEV);
		break;
	case D_ADDR:
	case D_ROUTE:
		id = cm_new_id(test, cs, IB_QPT_RC);
		addr_of(&d, false, port);
		KUNIT_ASSERT_EQ(test, rdma_resolve_addr(id, NULL,
							(struct sockaddr *)&d,
							2000), 0);
		KUNIT_ASSERT_TRUE(test, cm_wait_events(cs, false, 1));
		KUNIT_ASSERT_EQ(test, cs->ev[0], RDMA_CM_EVENT_ADDR_RESOLVED);
		if (c->st == D_ADDR)
			break;
		KUNIT_ASSERT_EQ(test, rdma_resolve_route(id, 2000), 0);
		KUNIT_ASSERT_TRUE(test, cm_wait_events(cs, false, 2));
		KUNIT_ASSERT_EQ(test, cs->ev[1], RDMA_CM_EVENT_ROUTE_RESOLVED);
		break;
	case D_LISTEN:
	case D_LISTEN_ANY:
		id = new_listener(test, ss, false, c->st == D_LISTEN_ANY, port);
		break;
	default:
		lis = new_listener(test, ss, false, false, port);
		ss->action = c->st == D_ESTABLISHED || c->st == D_DISCONNECT ?
				     REQ_ACCEPT : REQ_KEEP;
		id = connect_client(test, cs, false, port, &pd, &cq);
		KUNIT_ASSERT_TRUE(test, cm_wait_events(ss, true, 1));
		break;
	}

	switch (c->st) {
	case D_CONNECT_SRV:
		/* the unanswered conn id goes first: the client is refused */
		rdma_destroy_id(ss->conn);
		KUNIT_EXPECT_TRUE(test, cm_wait_events(cs, false, 3));
		KUNIT_EXPECT_EQ(test, cs->ev[2], RDMA_CM_EVENT_REJECTED);
		break;
	case D_CONNECT_CLI:
		/* the server's user refuses by destroying its conn id */
		KUNIT_EXPECT_EQ(test, rdma_reject(ss->conn, NULL, 0, 0), 0);
		KUNIT_EXPECT_TRUE(test, cm_wait_events(cs, false, 3));
		KUNIT_EXPECT_EQ(test, cs->ev[2], RDMA_CM_EVENT_REJECTED);
		rdma_destroy_id(ss->conn);
		break;
	case D_ESTABLISHED:
	case D_DISCONNECT:
		KUNIT_ASSERT_TRUE(test, cm_wait_events(cs, false, 3));
		KUNIT_ASSERT_TRUE(test, cm_wait_events(ss, true, 2));
		if (c->st == D_DISCONNECT) {
			KUNIT_EXPECT_EQ(test, rdma_disconnect(id), 0);
			KUNIT_EXPECT_TRUE(test, cm_wait_events(ss, true, 3));
			KUNIT_EXPECT_TRUE(test, cm_wait_events(cs, false, 4));
			/* CLOSE moves no state, as in-tree */
			KUNIT_EXPECT_EQ(test, cm_state(id),
					(unsigned int)XCMA_FSM_CONNECT);
		}
		/* the client first, the server's conn id still connected */
		break;
	default:
		break;
	}

	if (pd)
		cm_free_qp(id, pd, cq);
	rdma_destroy_id(id);
	n = cs->n;
	if ((c->st == D_ESTABLISHED || c->st == D_DISCONNECT) && ss->conn) {
		if (c->st == D_ESTABLISHED)
			KUNIT_EXPECT_TRUE(test, cm_wait_events(ss, true, 3));
		cm_free_qp(ss->conn, ss->pd, ss->cq);
		rdma_destroy_id(ss->conn);
	}
	if (lis)
		rdma_destroy_id(lis);
	msleep(100);
	/* G2: nothing after the destroy returned */
	KUNIT_EXPECT_EQ(test, cs->n, n);
	KUNIT_EXPECT_EQ(test, xcma_id_live(), base);
	expect_siw0_idle(test);
}

/* ---- each iw_cm call of the ops layer failing once ---- */

enum iwop {
	IW_CREATE, IW_LISTEN, IW_CONNECT, IW_ACCEPT, IW_REJECT,
	IW_DISCONNECT, IW_INIT_QP_ATTR, IW_GID, IW_NR,
};

static struct {
	struct xcma_ops ops;
	int op;		/* the op that fails */
	int nth;	/* on its nth call from now */
	int err;
	atomic_t calls[IW_NR];
	spinlock_t lock; /* protects mine, twice */
	struct iw_cm_id *mine[8];
	bool hit;
	/* what xcma passed to iw_cm, last call of each */
	struct iw_cm_conn_param cp, ap;
	u8 ctos, ltos;
	bool ctos_set, ltos_set;
	int backlog;
	/* iw_cm ids destroyed on a work item, each after a pause */
	bool slow_deferred;
	atomic_t deferred;
	/*
	 * the next iw_cm id created gets its CONNECT_REPLY with these ports
	 * (0: none), as a port mapper's; @handler is xcma's for it
	 */
	u16 map_lport, map_rport;
	iw_cm_handler handler;
} iwf;

static void iwf_set_port(struct sockaddr_storage *ss, u16 port)
{
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = htons(port);
	else
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
}

/* iw_cm's CONNECT_REPLY, with the addresses a port mapper would give */
static int iwf_mapped_handler(struct iw_cm_id *iw, struct iw_cm_event *ev)
{
	struct iw_cm_event mapped = *ev;

	if (ev->event == IW_CM_EVENT_CONNECT_REPLY) {
		iwf_set_port(&mapped.local_addr, iwf.map_lport);
		iwf_set_port(&mapped.remote_addr, iwf.map_rport);
	}
	return iwf.handler(iw, &mapped);
}

/* the iw_cm ids xcma created and has not destroyed */
static int iwf_mine(struct iw_cm_id *iw, bool add)
{
	int i, n = 0;

	spin_lock(&iwf.lock);
	for (i = 0; i < ARRAY_SIZE(iwf.mine); i++) {
		if (add && !iwf.mine[i]) {
			iwf.mine[i] = iw;
			add = false;
		} else if (!add && iw && iwf.mine[i] == iw) {
			iwf.mine[i] = NULL;
			iw = NULL;
		}
		n += !!iwf.mine[i];
	}
	spin_unlock(&iwf.lock);
	return n;
}

static int iwf_fail(int op)
{
	if (op != iwf.op || atomic_inc_return(&iwf.calls[op]) != iwf.nth)
		return 0;
	iwf.hit = true;
	return iwf.err;
}

static struct iw_cm_id *f_iw_create(struct ib_device *dev,
				    iw_cm_handler handler, void *context)
{
	struct iw_cm_id *iw;
	int err = iwf_fail(IW_CREATE);

	if (err)
		return ERR_PTR(err);
	if (iwf.map_lport && !iwf.handler) {
		iwf.handler = handler;
		handler = iwf_mapped_handler;
	}
	iw = xcma_kernel_ops.iw_create_id(dev, handler, context);
	if (!IS_ERR(iw))
		iwf_mine(iw, true);
	return iw;
}

/* a conn id's iw_cm id is iw_cm's own, made for the request: not counted */
static void f_iw_destroy(struct iw_cm_id *iw)
{
	if (current_work()) {
		atomic_inc(&iwf.deferred);
		if (iwf.slow_deferred)
			msleep(300);
	}
	iwf_mine(iw, false);
	xcma_kernel_ops.iw_destroy_id(iw);
}

static int f_iw_listen(struct iw_cm_id *iw, int backlog)
{
	iwf.ltos = iw->tos;
	iwf.ltos_set = iw->tos_set;
	iwf.backlog = backlog;
	return iwf_fail(IW_LISTEN) ?: xcma_kernel_ops.iw_listen(iw, backlog);
}

static int f_iw_connect(struct iw_cm_id *iw, struct iw_cm_conn_param *p)
{
	iwf.cp = *p;
	iwf.ctos = iw->tos;
	iwf.ctos_set = iw->tos_set;
	return iwf_fail(IW_CONNECT) ?: xcma_kernel_ops.iw_connect(iw, p);
}

static int f_iw_accept(struct iw_cm_id *iw, struct iw_cm_conn_param *p)
{
	iwf.ap = *p;
	return iwf_fail(IW_ACCEPT) ?: xcma_kernel_ops.iw_accept(iw, p);
}

static int f_iw_reject(struct iw_cm_id *iw, const void *data, u8 len)
{
	return iwf_fail(IW_REJECT) ?: xcma_kernel_ops.iw_reject(iw, data, len);
}

static int f_iw_disconnect(struct iw_cm_id *iw, int abrupt)
{
	return iwf_fail(IW_DISCONNECT) ?: xcma_kernel_ops.iw_disconnect(iw, abrupt);
}

static int f_iw_init_qp_attr(struct iw_cm_id *iw, struct ib_qp_attr *attr,
			     int *mask)
{
	return iwf_fail(IW_INIT_QP_ATTR) ?: xcma_kernel_ops.iw_init_qp_attr(iw, attr, mask);
}

/* the one GID of an iWARP port, looked up when an id takes siw0 */
static const struct ib_gid_attr *f_get_gid_attr(struct ib_device *dev,
						u32 port, int index)
{
	int err = iwf_fail(IW_GID);

	return err ? ERR_PTR(err) : xcma_kernel_ops.get_gid_attr(dev, port,
								 index);
}

struct fcase {
	const char *name;
	int op;
	int nth;
	int err;
};

/*
 * The iw_cm calls along one connection: the listener's create and listen;
 * the client's create, its QP's INIT and RTR attributes (its QP was made
 * before it had an iw_cm id) and connect; the conn id's QP creation (the
 * 3rd attributes), its INIT and RTR attributes and accept; the reject of
 * a request; the disconnect.
 */
static const struct fcase fcases[] = {
	{ "bind_get_gid_attr", IW_GID, 1, -ENOENT },
	{ "request_get_gid_attr", IW_GID, 3, -ENOENT },
	{ "listen_create", IW_CREATE, 1, -ENOMEM },
	{ "listen_listen", IW_LISTEN, 1, -EADDRINUSE },
	{ "connect_create", IW_CREATE, 2, -ENOMEM },
	{ "connect_init_qp_attr_init", IW_INIT_QP_ATTR, 1, -EIO },
	{ "connect_init_qp_attr_rtr", IW_INIT_QP_ATTR, 2, -EIO },
	{ "connect_connect", IW_CONNECT, 1, -EIO },
	{ "accept_init_qp_attr_init", IW_INIT_QP_ATTR, 4, -EIO },
	{ "accept_init_qp_attr_rtr", IW_INIT_QP_ATTR, 5, -EIO },
	{ "accept_accept", IW_ACCEPT, 1, -EIO },
	{ "reject_reject", IW_REJECT, 1, -EIO },
	{ "disconnect_disconnect", IW_DISCONNECT, 1, -EIO },
};

static void fcase_desc(const struct fcase *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(fcase, fcases, fcase_desc);

static void restore_ops(void *unused)
{
	xcma_ops_set(NULL);
}

/* iw_cm through the counting ops, failing the @nth call of @op (or none) */
static void iwf_arm(struct kunit *test, int op, int nth, int err)
{
	int i;

	memset(&iwf, 0, sizeof(iwf));
	spin_lock_init(&iwf.lock);
	iwf.ops = xcma_kernel_ops;
	iwf.ops.iw_create_id = f_iw_create;
	iwf.ops.iw_destroy_id = f_iw_destroy;
	iwf.ops.iw_listen = f_iw_listen;
	iwf.ops.iw_connect = f_iw_connect;
	iwf.ops.iw_accept = f_iw_accept;
	iwf.ops.iw_reject = f_iw_reject;
	iwf.ops.iw_disconnect = f_iw_disconnect;
	iwf.ops.iw_init_qp_attr = f_iw_init_qp_attr;
	iwf.ops.get_gid_attr = f_get_gid_attr;
	iwf.op = op;
	iwf.nth = nth;
	iwf.err = err;
	for (i = 0; i < IW_NR; i++)
		atomic_set(&iwf.calls[i], 0);
	xcma_ops_set(&iwf.ops);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, restore_ops,
							NULL), 0);
}

static void iw_fault(struct kunit *test)
{
	const struct fcase *c = test->param_value;
	struct side *cs = cm_new_side(test), *ss = cm_new_side(test);
	unsigned int base = xcma_id_live();
	struct rdma_conn_param param = conn_param;
	u16 port = IW_PORT + 30 + (c - fcases);
	struct rdma_cm_id *lis, *cli;
	struct sockaddr_storage l, d;
	struct ib_pd *pd;
	struct ib_cq *cq;
	int ret;

	iwf_arm(test, c->op, c->nth, c->err);

	lis = cm_new_id(test, ss, IB_QPT_RC);
	ss->listener = lis;
	addr_of(&l, false, port);
	ret = rdma_bind_addr(lis, (struct sockaddr *)&l);
	if (c->op == IW_GID && c->nth == 1) {
		/* no other device has the address: as if none had it */
		KUNIT_EXPECT_EQ(test, ret, -ENODEV);
		KUNIT_EXPECT_EQ(test, cm_state(lis), (unsigned int)XCMA_FSM_IDLE);
		KUNIT_EXPECT_NULL(test, lis->device);
		goto out_lis;
	}
	KUNIT_ASSERT_EQ(test, ret, 0);
	ret = rdma_listen(lis, 8);
	if (c->op == IW_LISTEN || (c->op == IW_CREATE && c->nth == 1)) {
		KUNIT_EXPECT_EQ(test, ret, c->err);
		KUNIT_EXPECT_EQ(test, cm_state(lis),
				(unsigned int)XCMA_FSM_ADDR_BOUND);
		KUNIT_EXPECT_NULL(test, rdma_iw_cm_id(lis));
		goto out_lis;
	}
	KUNIT_ASSERT_EQ(test, ret, 0);
	if (c->op == IW_REJECT)
		ss->action = REQ_REJECT;

	addr_of(&d, false, port);
	cli = cm_new_id(test, cs, IB_QPT_RC);
	KUNIT_ASSERT_EQ(test, cm_resolve(test, cs, cli, NULL, &d), 0);
	KUNIT_ASSERT_EQ(test, cm_make_qp(cli, &pd, &cq), 0);
	ret = rdma_connect(cli, &param);
	if (c->op == IW_CONNECT || c->op == IW_CREATE ||
	    (c->op == IW_INIT_QP_ATTR && c->nth <= 2)) {
		KUNIT_EXPECT_EQ(test, ret, c->err);
		KUNIT_EXPECT_EQ(test, cm_state(cli),
				(unsigned int)XCMA_FSM_ROUTE_RESOLVED);
		/* and again, once iw_cm lets it */
		KUNIT_EXPECT_EQ(test, rdma_connect(cli, &param), 0);
	} else {
		KUNIT_EXPECT_EQ(test, ret, 0);
	}
	KUNIT_ASSERT_TRUE(test, cm_wait_events(cs, false, 3));
	if (c->op != IW_GID)
		KUNIT_ASSERT_TRUE(test, cm_wait_events(ss, true, 1));
	switch (c->op == IW_INIT_QP_ATTR && c->nth > 2 ? IW_ACCEPT : c->op) {
	case IW_GID:
		/*
		 * the request's id finds no GID of its address: refused
		 * before the listener hears of it, as in-tree
		 * (cma_iw_acquire_dev()); iw_cm rejects, siw sends the MPA
		 * reject
		 */
		KUNIT_EXPECT_EQ(test, cs->ev[2], RDMA_CM_EVENT_REJECTED);
		KUNIT_EXPECT_EQ(test, cs->st[2], -ECONNRESET);
		KUNIT_EXPECT_EQ(test, READ_ONCE(ss->cn), 0);
		break;
	case IW_ACCEPT:
		/*
		 * the accept fails, the QP goes to ERR, the peer gets an MPA
		 * reject (-ECONNRESET from siw)
		 */
		KUNIT_EXPECT_EQ(test, ss->err, c->err);
		KUNIT_EXPECT_EQ(test, cs->ev[2], RDMA_CM_EVENT_REJECTED);
		KUNIT_EXPECT_EQ(test, cs->st[2], -ECONNRESET);
		break;
	case IW_REJECT:
		/* the reject fails; the conn id's destroy refuses the peer */
		KUNIT_EXPECT_EQ(test, ss->err, c->err);
		KUNIT_EXPECT_EQ(test, cs->ev[2], RDMA_CM_EVENT_REJECTED);
		break;
	default:
		KUNIT_EXPECT_EQ(test, ss->err, 0);
		KUNIT_EXPECT_EQ(test, cs->ev[2], RDMA_CM_EVENT_ESTABLISHED);
		KUNIT_ASSERT_TRUE(test, cm_wait_events(ss, true, 2));
		break;
	}
	if (c->op == IW_DISCONNECT) {
		KUNIT_EXPECT_EQ(test, rdma_disconnect(cli), c->err);
		KUNIT_EXPECT_EQ(test, rdma_disconnect(cli), 0);
		KUNIT_EXPECT_TRUE(test, cm_wait_events(cs, false, 4));
		KUNIT_EXPECT_EQ(test, cs->ev[3], RDMA_CM_EVENT_DISCONNECTED);
	}
	cm_free_qp(cli, pd, cq);
	rdma_destroy_id(cli);
	if (ss->conn) {
		if (ss->pd)
			cm_free_qp(ss->conn, ss->pd, ss->cq);
		rdma_destroy_id(ss->conn);
	}
out_lis:
	rdma_destroy_id(lis);
	KUNIT_EXPECT_TRUE(test, iwf.hit);
	/* every iw_cm id xcma made, it destroyed */
	KUNIT_EXPECT_EQ(test, iwf_mine(NULL, false), 0);
	KUNIT_EXPECT_EQ(test, xcma_id_live(), base);
	expect_siw0_idle(test);
}

/*
 * What iw_cm gets, as in-tree: ORD from initiator_depth, IRD from
 * responder_resources, the QP number, the private data, the id's TOS
 * (connect and listen, a wildcard listener's child's too), the backlog.
 */
static void params_to_iw_cm(struct kunit *test)
{
	struct side *cs = cm_new_side(test), *ss = cm_new_side(test);
	struct rdma_conn_param param = conn_param;
	u16 port = IW_PORT + 5;
	struct sockaddr_storage l, d;
	struct rdma_cm_id *lis, *cli;
	struct ib_pd *pd;
	struct ib_cq *cq;

	iwf_arm(test, IW_NR, 0, 0);
	lis = cm_new_id(test, ss, IB_QPT_RC);
	ss->listener = lis;
	rdma_set_service_type(lis, 0x20);
	addr_of(&l, false, port);
	KUNIT_ASSERT_EQ(test, rdma_bind_addr(lis, (struct sockaddr *)&l), 0);
	KUNIT_ASSERT_EQ(test, rdma_listen(lis, 7), 0);
	KUNIT_EXPECT_EQ(test, iwf.backlog, 7);
	KUNIT_EXPECT_EQ(test, iwf.ltos, 0x20);
	KUNIT_EXPECT_TRUE(test, iwf.ltos_set);

	cli = cm_new_id(test, cs, IB_QPT_RC);
	rdma_set_service_type(cli, 0x40);
	addr_of(&d, false, port);
	KUNIT_ASSERT_EQ(test, cm_resolve(test, cs, cli, NULL, &d), 0);
	KUNIT_ASSERT_EQ(test, cm_make_qp(cli, &pd, &cq), 0);
	param.initiator_depth = 1;
	param.responder_resources = 2;
	KUNIT_ASSERT_EQ(test, rdma_connect(cli, &param), 0);
	KUNIT_EXPECT_EQ(test, iwf.cp.ord, 1);
	KUNIT_EXPECT_EQ(test, iwf.cp.ird, 2);
	KUNIT_EXPECT_EQ(test, iwf.cp.qpn, cli->qp->qp_num);
	KUNIT_EXPECT_EQ(test, iwf.cp.private_data_len, 3);
	KUNIT_EXPECT_EQ(test, iwf.ctos, 0x40);
	KUNIT_EXPECT_TRUE(test, iwf.ctos_set);
	KUNIT_ASSERT_TRUE(test, cm_wait_events(cs, false, 3));
	KUNIT_ASSERT_TRUE(test, cm_wait_events(ss, true, 2));
	KUNIT_EXPECT_EQ(test, cs->ev[2], RDMA_CM_EVENT_ESTABLISHED);
	KUNIT_ASSERT_NOT_NULL(test, ss->conn);
	/* the listener's user accepted with 1 and 1 (cm_util.c) */
	KUNIT_EXPECT_EQ(test, iwf.ap.ord, 1);
	KUNIT_EXPECT_EQ(test, iwf.ap.ird, 1);
	KUNIT_EXPECT_EQ(test, iwf.ap.qpn, ss->conn->qp->qp_num);

	cm_free_qp(cli, pd, cq);
	rdma_destroy_id(cli);
	cm_free_qp(ss->conn, ss->pd, ss->cq);
	rdma_destroy_id(ss->conn);
	rdma_destroy_id(lis);
	KUNIT_EXPECT_EQ(test, iwf_mine(NULL, false), 0);

	/*
	 * a wildcard listener's TOS goes to its siw0 child's listen too, as
	 * in-tree cma_listen_on_dev() copies it
	 */
	iwf.ltos = 0;
	iwf.ltos_set = false;
	lis = cm_new_id(test, ss, IB_QPT_RC);
	rdma_set_service_type(lis, 0x28);
	cm_addr4(&l, NULL, port);
	KUNIT_ASSERT_EQ(test, rdma_bind_addr(lis, (struct sockaddr *)&l), 0);
	KUNIT_ASSERT_EQ(test, rdma_listen(lis, 7), 0);
	KUNIT_EXPECT_EQ(test, iwf.ltos, 0x28);
	KUNIT_EXPECT_TRUE(test, iwf.ltos_set);
	rdma_destroy_id(lis);
	KUNIT_EXPECT_EQ(test, iwf_mine(NULL, false), 0);
}

/* ---- device removal: siw0 deleted under a pair and two listeners ---- */

/*
 * What one id saw: G1 (no two callbacks at once), G2 (nothing after its
 * destroy returned), G3/G4 (DEVICE_REMOVAL once, nothing after it).
 */
struct rid {
	struct rdma_cm_id *id;
	struct ib_pd *pd;
	struct ib_cq *cq;
	atomic_t inside;
	int overlap;
	int removals;
	int after_removal;
	int after_destroy;
	bool destroyed;
};

struct rlog {
	struct rid ids[6];
	int n;
	spinlock_t lock; /* protects n */
	struct rdma_cm_id *lis;
	struct rdma_cm_id *extra;
};

static struct rlog rlog;

static struct rid *rid_of(struct rdma_cm_id *id)
{
	int i;

	spin_lock(&rlog.lock);
	for (i = 0; i < rlog.n; i++)
		if (rlog.ids[i].id == id)
			break;
	if (i == rlog.n && i < ARRAY_SIZE(rlog.ids))
		rlog.ids[rlog.n++].id = id;
	spin_unlock(&rlog.lock);
	return i < ARRAY_SIZE(rlog.ids) ? &rlog.ids[i] : NULL;
}

static int rm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct rid *r = rid_of(id);
	int ret;

	if (!r)
		return cm_handler(id, ev);
	if (atomic_inc_return(&r->inside) > 1)
		r->overlap++;
	if (READ_ONCE(r->destroyed))
		r->after_destroy++;
	if (r->removals)
		r->after_removal++;
	ret = cm_handler(id, ev);
	if (ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL) {
		r->removals++;
		/* another listener on siw0, from this callback: deferred */
		if (id == rlog.lis && rlog.extra) {
			rdma_destroy_id(rlog.extra);
			rlog.extra = NULL;
		}
		/* slow, so that a second delivery would overlap the first */
		msleep(20);
		/* the owner lets go of the device: QP, then the id (G3) */
		if (r->pd)
			cm_free_qp(id, r->pd, r->cq);
		ret = 1;
	}
	atomic_dec(&r->inside);
	if (ret)
		WRITE_ONCE(r->destroyed, true);
	return ret;
}

static void device_removal(struct kunit *test)
{
	struct side *cs = cm_new_side(test), *ss = cm_new_side(test);
	struct side *ws = cm_new_side(test);
	struct rdma_conn_param param = conn_param;
	struct xcma_device_counters before, after;
	unsigned int base = xcma_id_live();
	struct rdma_cm_id *lis, *wild, *cli;
	struct sockaddr_storage l, d;
	struct ib_pd *pd;
	struct ib_cq *cq;
	unsigned int holders;
	struct rid *r;
	int i, state;

	memset(&rlog, 0, sizeof(rlog));
	spin_lock_init(&rlog.lock);
	iwf_arm(test, IW_NR, 0, 0);
	lis = rdma_create_id(&init_net, rm_handler, ss, RDMA_PS_TCP, IB_QPT_RC);
	KUNIT_ASSERT_FALSE(test, IS_ERR(lis));
	ss->listener = lis;
	rid_of(lis);
	addr_of(&l, false, IW_PORT + 50);
	KUNIT_ASSERT_EQ(test, rdma_bind_addr(lis, (struct sockaddr *)&l), 0);
	KUNIT_ASSERT_EQ(test, rdma_listen(lis, 8), 0);
	wild = rdma_create_id(&init_net, rm_handler, ws, RDMA_PS_TCP,
			      IB_QPT_RC);
	KUNIT_ASSERT_FALSE(test, IS_ERR(wild));
	ws->listener = wild;
	rid_of(wild);
	cm_addr4(&l, NULL, IW_PORT + 51);
	KUNIT_ASSERT_EQ(test, rdma_bind_addr(wild, (struct sockaddr *)&l), 0);
	KUNIT_ASSERT_EQ(test, rdma_listen(wild, 8), 0);
	/*
	 * one more listener on siw0, after @lis on the device's list: @lis's
	 * DEVICE_REMOVAL destroys it, so its iw_cm id goes to xcma's work
	 * item, slowed down here: .remove must wait for it
	 */
	rlog.lis = lis;
	rlog.extra = new_listener(test, cm_new_side(test), false, false,
				  IW_PORT + 52);
	iwf.slow_deferred = true;

	cli = rdma_create_id(&init_net, rm_handler, cs, RDMA_PS_TCP, IB_QPT_RC);
	KUNIT_ASSERT_FALSE(test, IS_ERR(cli));
	rid_of(cli);
	addr_of(&d, false, IW_PORT + 50);
	KUNIT_ASSERT_EQ(test, cm_resolve(test, cs, cli, NULL, &d), 0);
	KUNIT_ASSERT_EQ(test, cm_make_qp(cli, &pd, &cq), 0);
	KUNIT_ASSERT_EQ(test, rdma_connect(cli, &param), 0);
	KUNIT_ASSERT_TRUE(test, cm_wait_events(cs, false, 3));
	KUNIT_ASSERT_TRUE(test, cm_wait_events(ss, true, 2));
	KUNIT_ASSERT_EQ(test, cs->ev[2], RDMA_CM_EVENT_ESTABLISHED);
	KUNIT_ASSERT_NOT_NULL(test, ss->conn);
	r = rid_of(cli);
	r->pd = pd;
	r->cq = cq;
	r = rid_of(ss->conn);
	r->pd = ss->pd;
	r->cq = ss->cq;

	xcma_device_get_counters(&before);
	KUNIT_EXPECT_EQ(test, xcma_kunit_run(test, SIW_DEL), 0);
	xcma_device_get_counters(&after);
	/* G5: the link delete returned, so xcma's .remove did */
	KUNIT_EXPECT_EQ(test, after.removed, before.removed + 1);
	KUNIT_EXPECT_EQ(test, xcma_device_query(IW_DEV, &state, &holders),
			-ENODEV);
	/*
	 * G3, G5: the three ids on siw0 destroyed by return, and the
	 * wildcard's child there, before .remove returned; the wildcard and
	 * its child on rxe0 remain
	 */
	KUNIT_EXPECT_EQ(test, xcma_id_live(), base + 2);
	/* G5: no iw_cm id xcma made on siw0 is left, the deferred one too */
	KUNIT_EXPECT_EQ(test, iwf_mine(NULL, false), 0);
	KUNIT_EXPECT_NULL(test, rlog.extra);
	KUNIT_EXPECT_EQ(test, atomic_read(&iwf.deferred), 1);

	/* G4: one DEVICE_REMOVAL for each id on siw0, the last event */
	KUNIT_EXPECT_EQ(test, cs->ev[cs->n - 1], RDMA_CM_EVENT_DEVICE_REMOVAL);
	KUNIT_EXPECT_EQ(test, ss->ev[ss->n - 1], RDMA_CM_EVENT_DEVICE_REMOVAL);
	KUNIT_EXPECT_EQ(test, ss->cev[ss->cn - 1], RDMA_CM_EVENT_DEVICE_REMOVAL);
	/* G7: the wildcard listener heard nothing and still listens */
	KUNIT_EXPECT_EQ(test, ws->n, 0);
	KUNIT_EXPECT_EQ(test, cm_state(wild), (unsigned int)XCMA_FSM_LISTEN);
	msleep(200);

	rdma_destroy_id(wild);
	rid_of(wild)->destroyed = true;
	msleep(100);
	for (i = 0; i < rlog.n; i++) {
		r = &rlog.ids[i];
		KUNIT_EXPECT_EQ_MSG(test, r->overlap, 0, "G1, id %d", i);
		KUNIT_EXPECT_EQ_MSG(test, r->after_destroy, 0, "G2, id %d", i);
		KUNIT_EXPECT_EQ_MSG(test, r->after_removal, 0, "G4, id %d", i);
		/* the wildcard listener is bound to no device */
		KUNIT_EXPECT_EQ_MSG(test, r->removals, r->id == wild ? 0 : 1,
				    "G4, id %d", i);
	}
	/* G8: no id left, siw0 back for what follows */
	KUNIT_EXPECT_EQ(test, xcma_id_live(), base);
	KUNIT_EXPECT_EQ(test, xcma_kunit_run(test, SIW_ADD), 0);
	expect_siw0_idle(test);
}

/*
 * A user's handler destroys other iWARP ids: a listener, and a connected
 * client. siw holds a reference on both iw_cm ids, so iw_destroy_cm_id()
 * would flush iw_cm_wq, the ordered workqueue that runs every iw_cm
 * callback: from an iw_cm callback (here the killer's ESTABLISHED) it
 * would never return; from another callback (the killer's ADDR_RESOLVED,
 * on xcma's resolve work) it would wait, under the killer's handler lock,
 * for iw_cm callbacks that take handler locks (lockdep's circular
 * dependency). xcma hands both to a work item of its own: the destroys
 * return, the victims' iw_cm ids are gone once xcma_iw_flush() returns,
 * the victim's peer sees the connection close, and the listener's port
 * takes a new listener at once, which connects (a listen outside a
 * callback waits for a destroyed listener's iw_cm id on that work, where
 * in-tree the destroy freed its port: issue 26, iWARP deviation
 * "a listener destroyed from a callback frees its port late"). The
 * victim's QP is destroyed after
 * the callback: siw's QP destroy waits for iw_cm's reference to the QP,
 * which iw_cm drops when the connection closes, on iw_cm_wq too.
 */
static struct {
	struct rdma_cm_id *lis, *cli;
	struct ib_qp *qp;
	struct ib_pd *pd;
	struct ib_cq *cq;
	int on;
	bool done;
} dfc;

static int dfc_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	if (ev->event == dfc.on && dfc.cli) {
		dfc.qp = dfc.cli->qp;
		rdma_destroy_id(dfc.cli);
		rdma_destroy_id(dfc.lis);
		dfc.cli = NULL;
		WRITE_ONCE(dfc.done, true);
	}
	return cm_handler(id, ev);
}

static void destroy_from_callback(struct kunit *test, int on, u16 port)
{
	static const int want_victim_srv[] = {
		RDMA_CM_EVENT_CONNECT_REQUEST, RDMA_CM_EVENT_ESTABLISHED,
		RDMA_CM_EVENT_DISCONNECTED,
	};
	struct side *vs = cm_new_side(test), *ss = cm_new_side(test);
	struct side *cs = cm_new_side(test), *vcs = cm_new_side(test);
	struct side *ns = cm_new_side(test), *ncs = cm_new_side(test);
	bool in_iw = on == RDMA_CM_EVENT_ESTABLISHED;
	struct rdma_conn_param param = conn_param;
	unsigned int base = xcma_id_live();
	struct rdma_cm_id *lis = NULL, *cli, *nlis, *ncli;
	struct sockaddr_storage d;
	struct ib_pd *pd, *npd;
	struct ib_cq *cq, *ncq;

	iwf_arm(test, IW_NR, 0, 0);
	iwf.slow_deferred = true;
	memset(&dfc, 0, sizeof(dfc));
	dfc.on = on;
	/* the victims: a listener, and a client connected to it */
	dfc.lis = new_listener(test, vs, false, false, port);
	dfc.cli = connect_client(test, vcs, false, port, &dfc.pd, &dfc.cq);
	KUNIT_ASSERT_TRUE(test, cm_wait_events(vcs, false, 3));
	KUNIT_ASSERT_EQ(test, vcs->ev[2], RDMA_CM_EVENT_ESTABLISHED);
	KUNIT_ASSERT_TRUE(test, cm_wait_events(vs, true, 2));
	KUNIT_ASSERT_NOT_NULL(test, vs->conn);
	/* ours: the victim listen and the victim client's connect */
	KUNIT_EXPECT_EQ(test, iwf_mine(NULL, false), 2);

	/* the killer: a client that destroys both on event @on */
	addr_of(&d, false, port + 1);
	if (in_iw)
		lis = new_listener(test, ss, false, false, port + 1);
	cli = rdma_create_id(&init_net, dfc_handler, cs, RDMA_PS_TCP,
			     IB_QPT_RC);
	KUNIT_ASSERT_FALSE(test, IS_ERR(cli));
	/* a destroy that flushes iw_cm_wq there never returns: time out */
	KUNIT_ASSERT_EQ_MSG(test, cm_resolve(test, cs, cli, NULL, &d), 0,
			    "the callback is stuck in a destroy");
	if (in_iw) {
		KUNIT_ASSERT_EQ(test, cm_make_qp(cli, &pd, &cq), 0);
		KUNIT_ASSERT_EQ(test, rdma_connect(cli, &param), 0);
		KUNIT_ASSERT_TRUE_MSG(test, cm_wait_events(cs, false, 3),
				      "the callback is stuck in a destroy");
		KUNIT_EXPECT_EQ(test, cs->ev[2], RDMA_CM_EVENT_ESTABLISHED);
	}
	KUNIT_EXPECT_TRUE(test, READ_ONCE(dfc.done));
	/*
	 * The victim listener's port listens again at once, as in-tree,
	 * where the destroy freed it: its iw_cm id still waits on
	 * iw_release_wq (300 ms, iwf.slow_deferred), and the listen waits
	 * for it instead of failing with siw's -EADDRINUSE
	 */
	nlis = new_listener(test, ns, false, false, port);

	/* the abrupt close reaches the victim client's peer */
	KUNIT_EXPECT_TRUE(test, cm_wait_events(vs, true, 3));
	cm_expect_events(test, vs, true, want_victim_srv,
			 ARRAY_SIZE(want_victim_srv));
	xcma_iw_flush();
	ib_destroy_qp(dfc.qp);
	ib_free_cq(dfc.cq);
	ib_dealloc_pd(dfc.pd);
	/*
	 * the victims' iw_cm ids are destroyed: the killer pair's remain,
	 * and the new listener's
	 */
	KUNIT_EXPECT_EQ(test, iwf_mine(NULL, false), (in_iw ? 2 : 0) + 1);
	KUNIT_EXPECT_EQ(test, vs->n, 0);

	/* the new listener connects */
	ncli = connect_client(test, ncs, false, port, &npd, &ncq);
	KUNIT_EXPECT_TRUE(test, cm_wait_events(ncs, false, 3));
	KUNIT_EXPECT_EQ(test, ncs->ev[2], RDMA_CM_EVENT_ESTABLISHED);
	KUNIT_EXPECT_TRUE(test, cm_wait_events(ns, true, 2));

	cm_pair_destroy(ncli, npd, ncq, ns, nlis);
	cm_free_qp(vs->conn, vs->pd, vs->cq);
	rdma_destroy_id(vs->conn);
	if (in_iw)
		cm_free_qp(cli, pd, cq);
	rdma_destroy_id(cli);
	if (ss->conn) {
		cm_free_qp(ss->conn, ss->pd, ss->cq);
		rdma_destroy_id(ss->conn);
	}
	if (lis)
		rdma_destroy_id(lis);
	xcma_iw_flush();
	KUNIT_EXPECT_EQ(test, iwf_mine(NULL, false), 0);
	KUNIT_EXPECT_EQ(test, xcma_id_live(), base);
	expect_siw0_idle(test);
}

/*
 * The addresses iw_cm reports with its CONNECT_REPLY replace the id's,
 * as in-tree (cma_iw_handler() copies the event's local and remote
 * addresses): with a port mapper (iwpm) they are the mapped ones. Here
 * the client's iw_cm id gets its reply with other ports; its id shows
 * them once ESTABLISHED. Before, xcma kept the addresses it connected
 * with (issue 26, iWARP: "CONNECT_REPLY does not refresh the
 * addresses").
 */
static void connect_reply_addresses(struct kunit *test)
{
	struct side *cs = cm_new_side(test), *ss = cm_new_side(test);
	unsigned int base = xcma_id_live();
	u16 port = IW_PORT + 64;
	struct rdma_cm_id *lis, *cli;
	struct ib_pd *pd;
	struct ib_cq *cq;

	iwf_arm(test, IW_NR, 0, 0);
	lis = new_listener(test, ss, false, false, port);
	iwf.map_lport = 40001;
	iwf.map_rport = 40002;
	cli = connect_client(test, cs, false, port, &pd, &cq);
	KUNIT_ASSERT_TRUE(test, cm_wait_events(cs, false, 3));
	KUNIT_EXPECT_EQ(test, cs->ev[2], RDMA_CM_EVENT_ESTABLISHED);
	/* the reply went through the mapper */
	KUNIT_EXPECT_NOT_NULL(test, iwf.handler);
	KUNIT_EXPECT_EQ(test, ntohs(((struct sockaddr_in *)
				     &cli->route.addr.src_addr)->sin_port),
			40001);
	KUNIT_EXPECT_EQ(test, ntohs(((struct sockaddr_in *)
				     &cli->route.addr.dst_addr)->sin_port),
			40002);
	KUNIT_EXPECT_TRUE(test, cm_wait_events(ss, true, 2));

	cm_pair_destroy(cli, pd, cq, ss, lis);
	xcma_iw_flush();
	KUNIT_EXPECT_EQ(test, xcma_id_live(), base);
	expect_siw0_idle(test);
}

static void destroy_from_iw_callback(struct kunit *test)
{
	destroy_from_callback(test, RDMA_CM_EVENT_ESTABLISHED, IW_PORT + 60);
}

static void destroy_from_other_callback(struct kunit *test)
{
	destroy_from_callback(test, RDMA_CM_EVENT_ADDR_RESOLVED,
			      IW_PORT + 62);
}

/*
 * A request on siw0 while siw0 is not init_net's (ib_core's exclusive
 * netns mode, a fake: cm_netns_fake()) makes no id, as in-tree, where
 * cma_iw_acquire_dev() fails: iw_cm rejects it (an MPA reject, or siw's
 * reset when it sees the close first, as in reject_private_data()), and
 * the listener hears nothing. Control: siw0 init_net's again, the next
 * request reaches the listener.
 */
static void request_on_a_device_of_another_namespace(struct kunit *test)
{
	struct side *ss = cm_new_side(test), *cs = cm_new_side(test);
	struct rdma_conn_param param = conn_param;
	unsigned int base = xcma_id_live();
	struct rdma_cm_id *lis, *cli;
	struct sockaddr_storage d;
	struct ib_pd *pd;
	struct ib_cq *cq;

	cm_netns_fake(test);
	ss->action = REQ_REJECT;
	lis = new_listener(test, ss, false, false, IW_PORT + 66);
	addr_of(&d, false, IW_PORT + 66);
	cli = cm_new_id(test, cs, IB_QPT_RC);
	KUNIT_ASSERT_EQ(test, cm_resolve(test, cs, cli, NULL, &d), 0);
	KUNIT_ASSERT_EQ(test, cm_make_qp(cli, &pd, &cq), 0);
	cm_netns_hide(IW_DEV);
	KUNIT_ASSERT_EQ(test, rdma_connect(cli, &param), 0);
	KUNIT_ASSERT_TRUE(test, cm_wait_events(cs, false, 3));
	KUNIT_EXPECT_EQ(test, cs->ev[2], RDMA_CM_EVENT_REJECTED);
	KUNIT_EXPECT_TRUE_MSG(test, cs->st[2] == -ECONNREFUSED ||
			      cs->st[2] == -ECONNRESET,
			      "REJECTED status %d", cs->st[2]);
	KUNIT_EXPECT_EQ(test, ss->cn, 0);
	KUNIT_EXPECT_EQ(test, ss->n, 0);
	KUNIT_EXPECT_EQ(test, cm_state(lis), (unsigned int)XCMA_FSM_LISTEN);
	cm_free_qp(cli, pd, cq);
	rdma_destroy_id(cli);

	cm_netns_hide(NULL);
	cs = cm_new_side(test);
	cli = cm_new_id(test, cs, IB_QPT_RC);
	KUNIT_ASSERT_EQ(test, cm_resolve(test, cs, cli, NULL, &d), 0);
	KUNIT_ASSERT_EQ(test, cm_make_qp(cli, &pd, &cq), 0);
	KUNIT_ASSERT_EQ(test, rdma_connect(cli, &param), 0);
	KUNIT_ASSERT_TRUE(test, cm_wait_events(cs, false, 3));
	KUNIT_EXPECT_EQ(test, cs->ev[2], RDMA_CM_EVENT_REJECTED);
	KUNIT_EXPECT_TRUE(test, cm_wait_events(ss, true, 1));
	KUNIT_EXPECT_EQ(test, ss->cev[0], RDMA_CM_EVENT_CONNECT_REQUEST);
	cm_free_qp(cli, pd, cq);
	rdma_destroy_id(cli);
	rdma_destroy_id(lis);
	KUNIT_EXPECT_EQ(test, xcma_id_live(), base);
	expect_siw0_idle(test);
}

static struct kunit_case iw_cases[] = {
	KUNIT_CASE(connect_ipv4),
	KUNIT_CASE(connect_ipv6),
	KUNIT_CASE(reject_private_data),
	KUNIT_CASE(no_listener),
	KUNIT_CASE_SLOW(unreachable_mpa_timeout),
	KUNIT_CASE_PARAM(destroy_in_state, dcase_gen_params),
	KUNIT_CASE_PARAM(iw_fault, fcase_gen_params),
	KUNIT_CASE(params_to_iw_cm),
	KUNIT_CASE(device_removal),
	KUNIT_CASE(destroy_from_iw_callback),
	KUNIT_CASE(destroy_from_other_callback),
	KUNIT_CASE(connect_reply_addresses),
	KUNIT_CASE(request_on_a_device_of_another_namespace),
	{}
};

static struct kunit_suite iw_suite = {
	.name = "xcma_iw",
	.init = xcma_kunit_sweep_init,
	.suite_init = iw_suite_init,
	.suite_exit = iw_suite_exit,
	.test_cases = iw_cases,
};

kunit_test_suite(iw_suite);
