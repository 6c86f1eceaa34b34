// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Helpers of the CM suites: see cm_util.h.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/inet.h>
#include <linux/slab.h>
#include <linux/netdevice.h>
#include <linux/scatterlist.h>
#include <net/addrconf.h>
#include <net/net_namespace.h>
#include <rdma/ib_cm.h>

#include "../../cma/id.h"
#include "../../cma/ops.h"
#include "../../cma/device.h"
#include "cm_util.h"
#include "xcma/fsm.h"
#include "xcma_kunit.h"

#define MSG "hello over xcma"

struct sweep {
	struct kunit *test;
	unsigned int first;
};

/* what the case left: destroyed, and the case fails */
static void sweep(void *arg)
{
	struct sweep *sw = arg;
	int n = xcma_id_sweep(sw->first);

	if (n)
		KUNIT_FAIL(sw->test, "the case left %d ids; destroyed them", n);
}

/**
 * xcma_kunit_sweep_init - every suite's per-case init
 * @test: the case
 *
 * A case that fails before its own destroys leaves no id to the next
 * case: an exit action destroys every id a consumer created during the
 * case and still alive (xcma_id_sweep()), and says so. Registered first,
 * it runs after the case's own exit actions.
 *
 * Return: 0, or -ENOMEM.
 */
int xcma_kunit_sweep_init(struct kunit *test)
{
	struct sweep *sw = kunit_kzalloc(test, sizeof(*sw), GFP_KERNEL);

	if (!sw)
		return -ENOMEM;
	sw->test = test;
	sw->first = xcma_id_last_num();
	return kunit_add_action_or_reset(test, sweep, sw);
}

static void side_init(struct side *s)
{
	memset(s, 0, sizeof(*s));
	spin_lock_init(&s->lock);
	init_waitqueue_head(&s->wq);
	init_completion(&s->entered);
	init_completion(&s->release);
}

/* a fresh event log, freed with the test; the case stops if none */
struct side *cm_new_side(struct kunit *test)
{
	struct side *s = kunit_kmalloc(test, sizeof(*s), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, s);
	side_init(s);
	return s;
}

int cm_make_qp(struct rdma_cm_id *id, struct ib_pd **pd, struct ib_cq **cq)
{
	struct ib_qp_init_attr attr = {
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.sq_sig_type = IB_SIGNAL_ALL_WR,
		.qp_type = IB_QPT_RC,
	};
	int ret;

	*pd = ib_alloc_pd(id->device, 0);
	if (IS_ERR(*pd))
		return PTR_ERR(*pd);
	*cq = ib_alloc_cq(id->device, NULL, 16, 0, IB_POLL_DIRECT);
	if (IS_ERR(*cq)) {
		ib_dealloc_pd(*pd);
		return PTR_ERR(*cq);
	}
	attr.send_cq = *cq;
	attr.recv_cq = *cq;
	ret = rdma_create_qp(id, *pd, &attr);
	if (ret) {
		ib_free_cq(*cq);
		ib_dealloc_pd(*pd);
	}
	return ret;
}

void cm_free_qp(struct rdma_cm_id *id, struct ib_pd *pd, struct ib_cq *cq)
{
	rdma_destroy_qp(id);
	ib_free_cq(cq);
	ib_dealloc_pd(pd);
}

static int on_request(struct side *s, struct rdma_cm_id *id,
		      struct rdma_cm_event *ev)
{
	struct rdma_conn_param param = {
		.responder_resources = 1, .initiator_depth = 1,
		.rnr_retry_count = 7,
	};
	int ret;

	s->conn = id;
	if (s->nconns < MAX_CONNS)
		s->conns[s->nconns++] = id;
	s->pdata_full = ev->param.conn.private_data_len;
	s->pdata_len = min_t(u8, ev->param.conn.private_data_len,
			     sizeof(s->pdata));
	memcpy(s->pdata, ev->param.conn.private_data, s->pdata_len);
	switch (s->action) {
	case REQ_REJECT:
		ret = rdma_reject(id, "nope", 4, IB_CM_REJ_CONSUMER_DEFINED);
		if (ret)
			s->err = ret;
		s->conn = NULL;
		return 1; /* destroy the conn id */
	case REQ_KEEP:
		return 0;
	case REQ_ACCEPT:
		break;
	}
	ret = cm_make_qp(id, &s->pd, &s->cq);
	if (!ret)
		ret = rdma_accept(id, &param);
	if (ret)
		s->err = ret;
	return 0;
}

/**
 * cm_pair_destroy - destroy a client, its listener's conn id and the listener
 * @cli: the client, with the QP of @pd and @cq
 * @pd: its PD
 * @cq: its CQ
 * @ss: the listener's side: its conn id, if it got one, goes with its QP
 * @lis: the listener
 */
void cm_pair_destroy(struct rdma_cm_id *cli, struct ib_pd *pd,
		     struct ib_cq *cq, struct side *ss, struct rdma_cm_id *lis)
{
	cm_free_qp(cli, pd, cq);
	rdma_destroy_id(cli);
	if (ss->conn) {
		cm_free_qp(ss->conn, ss->pd, ss->cq);
		rdma_destroy_id(ss->conn);
	}
	rdma_destroy_id(lis);
}

int cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct side *s = id->context;
	bool conn = s->listener && id != s->listener;
	int ret = 0;

	if (conn && ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		ret = on_request(s, id, ev);
	if (ev->event == RDMA_CM_EVENT_REJECTED) {
		const void *d;
		u8 len;

		d = rdma_consumer_reject_data(id, ev, &len);
		s->pdata_full = len;
		s->pdata_len = min_t(u8, len, sizeof(s->pdata));
		if (d)
			memcpy(s->pdata, d, s->pdata_len);
	}
	spin_lock(&s->lock);
	if (conn && s->cn < MAX_EVENTS) {
		s->cev[s->cn] = ev->event;
		s->cst[s->cn++] = ev->status;
	} else if (!conn && s->n < MAX_EVENTS) {
		s->ev[s->n] = ev->event;
		s->st[s->n++] = ev->status;
	}
	spin_unlock(&s->lock);
	if (!conn && s->destroy_on == ev->event + 1) {
		rdma_destroy_qp(id);
		ret = 1;
	}
	wake_up(&s->wq);
	if (s->block_on == ev->event + 1) {
		complete(&s->entered);
		if (!wait_for_completion_timeout(&s->release,
						 msecs_to_jiffies(WAIT_MS)))
			s->err = -ETIMEDOUT;
		WRITE_ONCE(s->left, true);
	}
	return ret;
}

/* wait until the id (conn: the conn id) has seen @count events */
bool cm_wait_events(struct side *s, bool conn, int count)
{
	return wait_event_timeout(s->wq, (conn ? READ_ONCE(s->cn) :
						 READ_ONCE(s->n)) >= count,
				  msecs_to_jiffies(WAIT_MS)) > 0;
}

void cm_expect_events(struct kunit *test, struct side *s, bool conn,
		      const int *want, int count)
{
	int *got = conn ? s->cev : s->ev;
	int n = conn ? s->cn : s->n;
	int i;

	KUNIT_EXPECT_EQ_MSG(test, n, count, "%s saw %d events",
			    conn ? "conn" : "id", n);
	for (i = 0; i < min(n, count); i++)
		KUNIT_EXPECT_EQ_MSG(test, got[i], want[i], "%s event %d: %s",
				    conn ? "conn" : "id", i,
				    rdma_event_msg(got[i]));
}

unsigned int cm_state(struct rdma_cm_id *id)
{
	return xcma_fsm_id_state(&xcma_id_of(id)->life.fsm);
}

static int cm_quiet(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	return 0;
}

/**
 * cm_bind_probe - whether an id of @ps and @qpt binds to @a now
 * @a: the address
 * @ps: port space
 * @qpt: QP type
 *
 * A device's GIDs come back a little after it is added again, or after
 * its netdev's address changed: a suite or case waits with this until
 * its addresses bind.
 *
 * Return: rdma_bind_addr()'s result, or rdma_create_id()'s error.
 */
int cm_bind_probe(struct sockaddr_storage *a, enum rdma_ucm_port_space ps,
		  enum ib_qp_type qpt)
{
	struct rdma_cm_id *id;
	int ret;

	id = rdma_create_id(&init_net, cm_quiet, NULL, ps, qpt);
	if (IS_ERR(id))
		return PTR_ERR(id);
	ret = rdma_bind_addr(id, (struct sockaddr *)a);
	rdma_destroy_id(id);
	return ret;
}

void cm_addr4(struct sockaddr_storage *ss, const char *ip, u16 port)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	sin->sin_family = AF_INET;
	sin->sin_port = htons(port);
	if (ip)
		sin->sin_addr.s_addr = in_aton(ip);
}

void cm_addr6(struct sockaddr_storage *ss, const char *ip, u16 port)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	sin6->sin6_family = AF_INET6;
	sin6->sin6_port = htons(port);
	if (ip)
		in6_pton(ip, -1, sin6->sin6_addr.s6_addr, -1, NULL);
}

struct rdma_cm_id *cm_new_id(struct kunit *test, struct side *s,
			     enum ib_qp_type qpt)
{
	struct rdma_cm_id *id;

	id = rdma_create_id(&init_net, cm_handler, s, RDMA_PS_TCP, qpt);
	KUNIT_ASSERT_FALSE(test, IS_ERR(id));
	return id;
}

/* an RC listener of @s on @a (backlog 8), LISTEN */
struct rdma_cm_id *cm_listen(struct kunit *test, struct side *s,
			     struct sockaddr_storage *a)
{
	struct rdma_cm_id *lis = cm_new_id(test, s, IB_QPT_RC);

	s->listener = lis;
	KUNIT_ASSERT_EQ(test, rdma_bind_addr(lis, (struct sockaddr *)a), 0);
	KUNIT_ASSERT_EQ(test, rdma_listen(lis, 8), 0);
	return lis;
}

/* resolve address and route, waiting for both events */
int cm_resolve(struct kunit *test, struct side *s, struct rdma_cm_id *id,
	       struct sockaddr_storage *src, struct sockaddr_storage *dst)
{
	int n = s->n, ret;

	ret = rdma_resolve_addr(id, (struct sockaddr *)src,
				(struct sockaddr *)dst, 2000);
	if (ret)
		return ret;
	if (!cm_wait_events(s, false, n + 1))
		return -ETIMEDOUT;
	if (s->ev[n] != RDMA_CM_EVENT_ADDR_RESOLVED)
		return -EHOSTUNREACH;
	ret = rdma_resolve_route(id, 2000);
	if (ret)
		return ret;
	if (!cm_wait_events(s, false, n + 2))
		return -ETIMEDOUT;
	return s->ev[n + 1] == RDMA_CM_EVENT_ROUTE_RESOLVED ? 0 : -ENETUNREACH;
}

int cm_exchange(struct kunit *test, struct rdma_cm_id *cli, struct ib_pd *cpd,
		struct ib_cq *ccq, struct rdma_cm_id *srv, struct ib_pd *spd,
		struct ib_cq *scq)
{
	char *sbuf = kzalloc(64, GFP_KERNEL), *rbuf = kzalloc(64, GFP_KERNEL);
	struct ib_device *dev = cli->device;
	struct ib_sge ssge, rsge;
	struct ib_recv_wr rwr = { .sg_list = &rsge, .num_sge = 1 };
	struct ib_send_wr swr = { .sg_list = &ssge, .num_sge = 1,
				  .opcode = IB_WR_SEND,
				  .send_flags = IB_SEND_SIGNALED };
	struct ib_wc wc;
	u64 sdma, rdma;
	int got_s = 0, got_r = 0, i, ret = -ENOMEM;

	if (!sbuf || !rbuf)
		goto out;
	strscpy(sbuf, MSG, 64);
	sdma = ib_dma_map_single(dev, sbuf, 64, DMA_TO_DEVICE);
	rdma = ib_dma_map_single(dev, rbuf, 64, DMA_FROM_DEVICE);
	rsge = (struct ib_sge){ .addr = rdma, .length = 64,
				.lkey = spd->local_dma_lkey };
	ssge = (struct ib_sge){ .addr = sdma, .length = sizeof(MSG),
				.lkey = cpd->local_dma_lkey };
	ret = ib_post_recv(srv->qp, &rwr, NULL);
	if (!ret)
		ret = ib_post_send(cli->qp, &swr, NULL);
	for (i = 0; !ret && i < 500 && !(got_s && got_r); i++) {
		if (ib_poll_cq(ccq, 1, &wc) == 1)
			got_s = wc.status == IB_WC_SUCCESS ? 1 : -1;
		if (ib_poll_cq(scq, 1, &wc) == 1)
			got_r = wc.status == IB_WC_SUCCESS ? 1 : -1;
		usleep_range(10000, 20000);
	}
	ib_dma_unmap_single(dev, sdma, 64, DMA_TO_DEVICE);
	ib_dma_unmap_single(dev, rdma, 64, DMA_FROM_DEVICE);
	if (!ret && (got_s != 1 || got_r != 1))
		ret = -EIO;
	if (!ret && strcmp(rbuf, MSG))
		ret = -EBADMSG;
out:
	kfree(sbuf);
	kfree(rbuf);
	return ret;
}

void cm_connect_and_get(struct kunit *test, struct side *cs,
			struct rdma_cm_id **cli, struct sockaddr_storage *d,
			int events)
{
	struct rdma_conn_param param = {
		.private_data = "rq", .private_data_len = 3,
		.responder_resources = 1, .initiator_depth = 1,
		.retry_count = 7, .rnr_retry_count = 7,
	};

	*cli = cm_new_id(test, cs, IB_QPT_RC);
	KUNIT_ASSERT_EQ(test, cm_resolve(test, cs, *cli, NULL, d), 0);
	KUNIT_ASSERT_EQ(test, rdma_connect(*cli, &param), 0);
	KUNIT_ASSERT_TRUE(test, cm_wait_events(cs, false, events));
}

/* one completion of @cq, waited for up to about five seconds */
static int poll_one(struct ib_cq *cq, struct ib_wc *wc)
{
	int i;

	for (i = 0; i < 5000; i++) {
		if (ib_poll_cq(cq, 1, wc) == 1)
			return wc->status == IB_WC_SUCCESS ? 0 : -EIO;
		usleep_range(1000, 2000);
	}
	return -ETIMEDOUT;
}

#define RDMA_LEN 64
#define RDMA_IMM 0x00c0ffee

/*
 * The server registers a buffer for remote access (a fast-registration MR,
 * as a ULP does), the client writes into it with immediate data, and the
 * server checks the bytes once the immediate arrived; then the server
 * changes them and the client reads them back.
 */
static int write_read(struct rdma_cm_id *cli, struct ib_pd *cpd,
		      struct ib_cq *ccq, struct rdma_cm_id *srv, struct ib_cq *scq,
		      struct ib_mr *mr, u8 *target, u64 tdma, u8 *local, u64 ldma)
{
	struct ib_device *sdev = srv->device, *cdev = cli->device;
	struct ib_reg_wr reg = {
		.wr = { .opcode = IB_WR_REG_MR,
			.send_flags = IB_SEND_SIGNALED },
		.mr = mr,
		.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
			  IB_ACCESS_REMOTE_READ,
	};
	struct ib_sge sge = { .addr = ldma, .length = RDMA_LEN,
			      .lkey = cpd->local_dma_lkey };
	struct ib_rdma_wr wr = {
		.wr = { .opcode = IB_WR_RDMA_WRITE_WITH_IMM,
			.send_flags = IB_SEND_SIGNALED,
			.sg_list = &sge, .num_sge = 1,
			.ex.imm_data = cpu_to_be32(RDMA_IMM) },
	};
	struct ib_recv_wr rwr = {};
	struct ib_wc wc;
	int ret;

	ib_update_fast_reg_key(mr, ib_inc_rkey(mr->rkey));
	reg.key = mr->rkey;
	ret = ib_post_send(srv->qp, &reg.wr, NULL);
	if (!ret)
		ret = poll_one(scq, &wc);
	if (!ret && wc.opcode != IB_WC_REG_MR)
		ret = -EPROTO;
	if (!ret)
		ret = ib_post_recv(srv->qp, &rwr, NULL);
	if (ret)
		return ret;

	memset(local, 0x5a, RDMA_LEN);
	ib_dma_sync_single_for_device(cdev, ldma, RDMA_LEN, DMA_BIDIRECTIONAL);
	wr.remote_addr = mr->iova;
	wr.rkey = mr->rkey;
	ret = ib_post_send(cli->qp, &wr.wr, NULL);
	if (!ret)
		ret = poll_one(ccq, &wc);
	if (!ret)
		ret = poll_one(scq, &wc);
	if (ret)
		return ret;
	if (wc.opcode != IB_WC_RECV_RDMA_WITH_IMM || !(wc.wc_flags & IB_WC_WITH_IMM) ||
	    be32_to_cpu(wc.ex.imm_data) != RDMA_IMM)
		return -EPROTO;
	ib_dma_sync_single_for_cpu(sdev, tdma, RDMA_LEN, DMA_BIDIRECTIONAL);
	if (memchr_inv(target, 0x5a, RDMA_LEN))
		return -EBADMSG;

	memset(target, 0xa5, RDMA_LEN);
	ib_dma_sync_single_for_device(sdev, tdma, RDMA_LEN, DMA_BIDIRECTIONAL);
	wr.wr.opcode = IB_WR_RDMA_READ;
	ret = ib_post_send(cli->qp, &wr.wr, NULL);
	if (!ret)
		ret = poll_one(ccq, &wc);
	if (ret)
		return ret;
	ib_dma_sync_single_for_cpu(cdev, ldma, RDMA_LEN, DMA_BIDIRECTIONAL);
	return memchr_inv(local, 0xa5, RDMA_LEN) ? -EBADMSG : 0;
}

/**
 * cm_rdma_write_read - RDMA WRITE and READ over a connected pair
 * @cli: the client (active side), with its QP
 * @cpd: its PD
 * @ccq: its CQ (send and receive)
 * @srv: the server's conn id, with its QP
 * @spd: its PD
 * @scq: its CQ
 *
 * Both CQs must be empty. The QPs need the remote access and the RDMA
 * READ depth that rdma_accept() and rdma_connect() set up.
 *
 * Return: 0, or why it failed (-EBADMSG: wrong bytes).
 */
int cm_rdma_write_read(struct rdma_cm_id *cli, struct ib_pd *cpd,
		       struct ib_cq *ccq, struct rdma_cm_id *srv,
		       struct ib_pd *spd, struct ib_cq *scq)
{
	struct ib_device *sdev = srv->device, *cdev = cli->device;
	u8 *target = kzalloc(RDMA_LEN, GFP_KERNEL);
	u8 *local = kzalloc(RDMA_LEN, GFP_KERNEL);
	struct scatterlist sg;
	struct ib_mr *mr;
	u64 ldma;
	int ret = -ENOMEM;

	if (!target || !local)
		goto out_free;
	sg_init_one(&sg, target, RDMA_LEN);
	if (ib_dma_map_sg(sdev, &sg, 1, DMA_BIDIRECTIONAL) != 1)
		goto out_free;
	ldma = ib_dma_map_single(cdev, local, RDMA_LEN, DMA_BIDIRECTIONAL);
	mr = ib_alloc_mr(spd, IB_MR_TYPE_MEM_REG, 1);
	if (IS_ERR(mr)) {
		ret = PTR_ERR(mr);
		goto out_unmap;
	}
	ret = ib_map_mr_sg(mr, &sg, 1, NULL, PAGE_SIZE) == 1 ? 0 : -EINVAL;
	if (!ret)
		ret = write_read(cli, cpd, ccq, srv, scq, mr, target,
				 sg_dma_address(&sg), local, ldma);
	ib_dereg_mr(mr);
out_unmap:
	ib_dma_unmap_single(cdev, ldma, RDMA_LEN, DMA_BIDIRECTIONAL);
	ib_dma_unmap_sg(sdev, &sg, 1, DMA_BIDIRECTIONAL);
out_free:
	kfree(target);
	kfree(local);
	return ret;
}

/**
 * cm_addr6_linklocal - eth0's IPv6 link-local address, scoped to eth0
 * @ss: set to it
 * @port: its port
 *
 * Return: eth0's ifindex (the scope id), or -ENODEV without eth0,
 * -ENOKEY if it has no link-local address.
 */
int cm_addr6_linklocal(struct sockaddr_storage *ss, u16 port)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	const struct in6_addr all_nodes = IN6ADDR_LINKLOCAL_ALLNODES_INIT;
	struct net_device *dev;
	int ret;

	dev = dev_get_by_name(&init_net, "eth0");
	if (!dev)
		return -ENODEV;
	cm_addr6(ss, NULL, port);
	/* the source for a link-scope destination is the link-local one */
	ret = ipv6_dev_get_saddr(&init_net, dev, &all_nodes, 0,
				 &sin6->sin6_addr);
	if (!ret && !(ipv6_addr_type(&sin6->sin6_addr) & IPV6_ADDR_LINKLOCAL))
		ret = -ENOKEY;
	sin6->sin6_scope_id = dev->ifindex;
	ret = ret ? -ENOKEY : dev->ifindex;
	dev_put(dev);
	return ret;
}

/**
 * cm_rxe_delete - delete rxe0 (device hot-removal) and check the counters
 * @test: the case
 *
 * Return: the exit status of rdma link delete.
 */
int cm_rxe_delete(struct kunit *test)
{
	struct xcma_device_counters before, gone;
	unsigned int holders;
	int state, ret;

	xcma_device_get_counters(&before);
	ret = xcma_kunit_run(test, CM_RXE_DELETE);
	KUNIT_EXPECT_EQ(test, ret, 0);
	xcma_device_get_counters(&gone);
	KUNIT_EXPECT_EQ(test, xcma_device_query("rxe0", &state, &holders), -ENODEV);
	KUNIT_EXPECT_EQ(test, gone.removed, before.removed + 1);
	KUNIT_EXPECT_EQ(test, gone.added, before.added);
	KUNIT_EXPECT_EQ(test, gone.live, gone.added - gone.removed);
	return ret;
}

/**
 * cm_rxe_add - add rxe0 again and check the counters
 * @test: the case
 *
 * Return: the exit status of rdma link add.
 */
int cm_rxe_add(struct kunit *test)
{
	struct xcma_device_counters before, back;
	unsigned int holders;
	int state, ret;

	xcma_device_get_counters(&before);
	ret = xcma_kunit_run(test, CM_RXE_ADD);
	KUNIT_EXPECT_EQ(test, ret, 0);
	xcma_device_get_counters(&back);
	KUNIT_EXPECT_EQ(test, xcma_device_query("rxe0", &state, &holders), 0);
	KUNIT_EXPECT_EQ(test, back.added, before.added + 1);
	KUNIT_EXPECT_EQ(test, back.live, back.added - back.removed);
	return ret;
}

/**
 * cm_module_refs_settle - wait up to about 5 s for xcma.ko's references
 * @want: the count to wait for (ids freed late drop theirs late)
 *
 * Return: the last count read.
 */
int cm_module_refs_settle(int want)
{
	int i, refs = xcma_id_module_refs();

	for (i = 0; i < 300 && refs != want; i++) {
		usleep_range(10000, 20000);
		refs = xcma_id_module_refs();
	}
	return refs;
}

/* rxe0 is there, active, held by no id, and the device counters add up */
void cm_expect_rxe0_idle(struct kunit *test)
{
	struct xcma_device_counters c;
	unsigned int holders = 0;
	int state = -1;

	KUNIT_EXPECT_EQ(test, xcma_device_query("rxe0", &state, &holders), 0);
	KUNIT_EXPECT_EQ(test, state, XCMA_DEV_ACTIVE);
	KUNIT_EXPECT_EQ_MSG(test, holders, 0U, "rxe0 still held");
	xcma_device_get_counters(&c);
	KUNIT_EXPECT_EQ(test, c.live, c.added - c.removed);
	KUNIT_EXPECT_EQ(test, c.live, 1U);
}

/* ---- a device of another namespace ---- */

/*
 * In ib_core's exclusive netns mode a device is one namespace's. 6.12's
 * rxe and siw cannot change namespace (no disassociate_ucontext), so the
 * cases that need a device of another namespace put this fake of
 * rdma_dev_access_netns() in the ops layer: the device named by
 * cm_netns_hide() is not init_net's until the next call, or the case's
 * end. Cases run one at a time: one name will do.
 */
static char cm_netns_hidden[IB_DEVICE_NAME_MAX];
static DEFINE_SPINLOCK(cm_netns_lock);
static struct xcma_ops cm_netns_ops;

static bool cm_netns_access(const struct ib_device *dev, const struct net *net)
{
	bool hidden;

	spin_lock(&cm_netns_lock);
	hidden = net_eq(net, &init_net) &&
		 !strcmp(dev_name(&dev->dev), cm_netns_hidden);
	spin_unlock(&cm_netns_lock);
	return !hidden && xcma_kernel_ops.dev_access_netns(dev, net);
}

void cm_netns_hide(const char *ibdev)
{
	spin_lock(&cm_netns_lock);
	strscpy(cm_netns_hidden, ibdev ?: "", sizeof(cm_netns_hidden));
	spin_unlock(&cm_netns_lock);
}

static void cm_netns_restore(void *unused)
{
	cm_netns_hide(NULL);
	xcma_ops_set(NULL);
}

/* the fake in place, hiding nothing yet; the ops restored at the end */
void cm_netns_fake(struct kunit *test)
{
	cm_netns_hide(NULL);
	cm_netns_ops = xcma_kernel_ops;
	cm_netns_ops.dev_access_netns = cm_netns_access;
	xcma_ops_set(&cm_netns_ops);
	KUNIT_ASSERT_EQ(test,
			kunit_add_action_or_reset(test, cm_netns_restore, NULL),
			0);
}
