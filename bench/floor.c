// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The floor of the connection figure: the RC handshake of an rdma_cm
 * connection (REQ, REP, RTU, then DREQ, DREP) and its QP transitions,
 * driven directly on ib_cm and the verbs, with no CM layer.
 *
 * The path record is built once, as a CM builds it for RoCE after address
 * resolution: the source GID is the address's entry in the device's GID
 * table (its type, RoCE v2 on rxe, gives the record type), the netdev of
 * that entry gives the destination MAC (the address is local: the same
 * host), the MTU and, with the default TTL, the hop limit; pkey, life
 * time, rate and flow label as the in-tree CM sets them. The service ID
 * is the one a CM would use for a TCP port space listener on that port.
 *
 * Each connection, as the CM figure does it: the client creates its cm_id
 * and QP (to INIT with the cached pkey index), sends the REQ; the server's
 * REQ callback creates its QP, moves it through INIT, RTR and RTS with
 * ib_cm's attributes and sends the REP; the client's REP callback moves
 * its QP to RTR and RTS and sends the RTU; the server sees RTU. Then the
 * client moves its QP to ERR and sends the DREQ, the server's DREQ
 * callback moves its QP to ERR and sends the DREP, the client sees DREP;
 * both cm_ids and QPs are destroyed. What the CMs do on top (rdma_cm
 * header, MRA on REP, INIT again before RTR, events to the user) is what
 * the figure prices.
 */
#include <linux/etherdevice.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ktime.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_sa.h>

#include "bench.h"

/* the in-tree CM's ib_cm settings (cma.c) */
#define FLOOR_CM_RESPONSE_TIMEOUT 20
#define FLOOR_MAX_CM_RETRIES 15
#define FLOOR_PACKET_LIFETIME 16
/* what the CM figure's REQ carries: the rdma_cm header and 3 bytes */
#define FLOOR_REQ_PDATA_LEN (36 + 3)
#define FLOOR_WAIT_MS 10000

enum { FLOOR_ESTABLISHED, FLOOR_DISCONNECTED };

/**
 * struct floor_end - one end of the connection
 * @cm_id: its ib_cm id
 * @qp: its QP
 * @events: FLOOR_* bits seen
 */
struct floor_end {
	struct ib_cm_id *cm_id;
	struct ib_qp *qp;
	unsigned long events;
};

/**
 * struct bench_floor - the floor's listener, path and current connection
 * @res: verbs resources
 * @path: the RoCE path record, built once
 * @sgid_attr: the GID table entry of the address (a reference)
 * @pkey_index: index of the default pkey on its port
 * @service_id: what the server listens on
 * @listen: the server's listening cm_id
 * @lock: protects @cli, @srv, @err and @mark while a connection runs
 * @wq: woken on each change of @cli, @srv or @err
 * @cli: the client end; its cm_id and QP are set before the REQ is sent
 * @srv: the server end; set by the REQ callback
 * @err: first failure of the current connection
 * @mark: moments of the current connection, enum bench_mark
 * @pdata: the REQ's private data
 */
struct bench_floor {
	struct bench_res *res;
	struct sa_path_rec path;
	const struct ib_gid_attr *sgid_attr;
	u16 pkey_index;
	__be64 service_id;
	struct ib_cm_id *listen;
	spinlock_t lock; /* see above */
	wait_queue_head_t wq;
	struct floor_end cli, srv;
	int err;
	u64 mark[BENCH_MARKS];
	u8 pdata[FLOOR_REQ_PDATA_LEN];
};

static void stamp(struct bench_floor *f, int mark)
{
	u64 now = ktime_get_ns();

	spin_lock(&f->lock);
	f->mark[mark] = now;
	spin_unlock(&f->lock);
}

static void note(struct bench_floor *f, struct floor_end *end, int bit,
		 int err)
{
	spin_lock(&f->lock);
	if (err && !f->err)
		f->err = err;
	else if (!err && end)
		__set_bit(bit, &end->events);
	spin_unlock(&f->lock);
	wake_up(&f->wq);
}

static bool seen(struct bench_floor *f, int bit)
{
	bool done;

	spin_lock(&f->lock);
	done = f->err || (test_bit(bit, &f->cli.events) &&
			  test_bit(bit, &f->srv.events));
	spin_unlock(&f->lock);
	return done;
}

/* both ends have seen @bit, or the connection failed */
static int wait_both(struct bench_floor *f, int bit)
{
	if (!wait_event_timeout(f->wq, seen(f, bit),
				msecs_to_jiffies(FLOOR_WAIT_MS)))
		return -ETIMEDOUT;
	return READ_ONCE(f->err);
}

static int move_qp(struct ib_cm_id *cm_id, struct ib_qp *qp,
		   enum ib_qp_state state)
{
	struct ib_qp_attr attr = { .qp_state = state };
	int mask, ret;

	ret = ib_cm_init_qp_attr(cm_id, &attr, &mask);
	if (!ret)
		ret = ib_modify_qp(qp, &attr, mask);
	return ret;
}

static int qp_to_err(struct ib_qp *qp)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };

	return ib_modify_qp(qp, &attr, IB_QP_STATE);
}

static struct ib_qp *create_qp(struct bench_floor *f)
{
	struct ib_qp_init_attr attr;

	bench_qp_init_attr(f->res, &attr);
	attr.port_num = f->sgid_attr->port_num;
	return ib_create_qp(f->res->pd, &attr);
}

/* the server's new cm_id: QP through INIT, RTR, RTS, then the REP */
static int req_received(struct bench_floor *f, struct ib_cm_id *cm_id)
{
	struct ib_cm_rep_param rep = {
		.starting_psn = get_random_u32() & 0xffffff,
		.responder_resources = 1,
		.initiator_depth = 1,
		.rnr_retry_count = 7,
		.private_data = "ok",
		.private_data_len = 3,
	};
	struct ib_qp *qp;
	int ret;

	qp = create_qp(f);
	if (IS_ERR(qp)) {
		note(f, NULL, 0, PTR_ERR(qp));
		return PTR_ERR(qp);
	}
	ret = move_qp(cm_id, qp, IB_QPS_INIT);
	if (!ret)
		ret = move_qp(cm_id, qp, IB_QPS_RTR);
	if (!ret)
		ret = move_qp(cm_id, qp, IB_QPS_RTS);
	if (ret)
		goto err;
	spin_lock(&f->lock);
	f->srv.cm_id = cm_id;
	f->srv.qp = qp;
	spin_unlock(&f->lock);
	rep.qp_num = qp->qp_num;
	ret = ib_send_cm_rep(cm_id, &rep);
	if (!ret)
		return 0;
	spin_lock(&f->lock);
	f->srv.cm_id = NULL;
	f->srv.qp = NULL;
	spin_unlock(&f->lock);
err:
	ib_destroy_qp(qp);
	note(f, NULL, 0, ret);
	return ret; /* ib_cm rejects and destroys cm_id */
}

/*
 * ib_cm serializes the callbacks of one cm_id, and the REQ callback runs
 * before any other of the server's: the ends' cm_id and qp are stable.
 */
static int floor_handler(struct ib_cm_id *cm_id,
			 const struct ib_cm_event *ev)
{
	struct bench_floor *f = cm_id->context;
	int ret;

	switch (ev->event) {
	case IB_CM_REQ_RECEIVED:
		stamp(f, MK_REQ_IN);
		ret = req_received(f, cm_id);
		stamp(f, MK_REQ_OUT);
		return ret;
	case IB_CM_REP_RECEIVED:
		ret = move_qp(cm_id, f->cli.qp, IB_QPS_RTR);
		if (!ret)
			ret = move_qp(cm_id, f->cli.qp, IB_QPS_RTS);
		if (!ret)
			ret = ib_send_cm_rtu(cm_id, NULL, 0);
		stamp(f, MK_CLI_EST);
		note(f, &f->cli, FLOOR_ESTABLISHED, ret);
		break;
	case IB_CM_RTU_RECEIVED:
	case IB_CM_USER_ESTABLISHED:
		stamp(f, MK_SRV_EST);
		note(f, &f->srv, FLOOR_ESTABLISHED, 0);
		break;
	case IB_CM_DREQ_RECEIVED:
		stamp(f, MK_DREQ_IN);
		ret = qp_to_err(f->srv.qp);
		if (!ret)
			ret = ib_send_cm_drep(cm_id, NULL, 0);
		stamp(f, MK_DREQ_OUT);
		note(f, &f->srv, FLOOR_DISCONNECTED, ret);
		break;
	case IB_CM_DREP_RECEIVED:
		stamp(f, MK_CLI_DISC);
		note(f, &f->cli, FLOOR_DISCONNECTED, 0);
		break;
	case IB_CM_MRA_RECEIVED:
	case IB_CM_TIMEWAIT_EXIT:
		break;
	default:
		/* REQ, REP or DREQ error, REJ: the connection failed */
		note(f, NULL, 0, -ECONNABORTED);
		break;
	}
	return 0;
}

/* the client's QP to INIT, as a CM does before it has a connection */
static int client_qp(struct bench_floor *f, struct ib_qp **qpp)
{
	struct ib_qp_attr attr = {
		.qp_state = IB_QPS_INIT,
		.pkey_index = f->pkey_index,
		.port_num = f->sgid_attr->port_num,
	};
	struct ib_qp *qp;
	int ret;

	qp = create_qp(f);
	if (IS_ERR(qp))
		return PTR_ERR(qp);
	ret = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	if (ret) {
		ib_destroy_qp(qp);
		return ret;
	}
	*qpp = qp;
	return 0;
}

/**
 * bench_floor_connect - one connection, established and torn down
 * @f: the floor
 * @phase: nanoseconds are added to [0] cm_id and QP, [1] until both ends
 *	are established, [2] until both are disconnected, [3] destroy
 * @mark: set to the moments of the connection, enum bench_mark
 *
 * Return: 0, or the first failure (everything is released either way).
 */
int bench_floor_connect(struct bench_floor *f, u64 *phase, u64 *mark)
{
	struct ib_cm_req_param req = {
		.primary_path = &f->path,
		.ppath_sgid_attr = f->sgid_attr,
		.service_id = f->service_id,
		.qp_type = IB_QPT_RC,
		.starting_psn = get_random_u32() & 0xffffff,
		.private_data = f->pdata,
		.private_data_len = sizeof(f->pdata),
		.responder_resources = 1,
		.initiator_depth = 1,
		.remote_cm_response_timeout = FLOOR_CM_RESPONSE_TIMEOUT,
		.local_cm_response_timeout = FLOOR_CM_RESPONSE_TIMEOUT,
		.retry_count = 7,
		.rnr_retry_count = 7,
		.max_cm_retries = FLOOR_MAX_CM_RETRIES,
	};
	struct ib_cm_id *cm_id;
	struct ib_qp *qp = NULL;
	struct floor_end srv;
	u64 t = ktime_get_ns();
	int ret;

	spin_lock(&f->lock);
	memset(&f->cli, 0, sizeof(f->cli));
	memset(&f->srv, 0, sizeof(f->srv));
	memset(f->mark, 0, sizeof(f->mark));
	f->err = 0;
	spin_unlock(&f->lock);

	cm_id = ib_create_cm_id(f->res->dev, floor_handler, f);
	if (IS_ERR(cm_id))
		return PTR_ERR(cm_id);
	ret = client_qp(f, &qp);
	if (ret)
		goto out;
	spin_lock(&f->lock);
	f->cli.cm_id = cm_id;
	f->cli.qp = qp;
	spin_unlock(&f->lock);
	req.qp_num = qp->qp_num;
	t = bench_phase(phase, 0, t);
	stamp(f, MK_CONNECT);
	ret = ib_send_cm_req(cm_id, &req);
	if (!ret)
		ret = wait_both(f, FLOOR_ESTABLISHED);
	if (ret)
		goto out;
	t = bench_phase(phase, 1, t);
	stamp(f, MK_EST);
	stamp(f, MK_DISCONNECT);
	ret = qp_to_err(qp);
	if (!ret)
		ret = ib_send_cm_dreq(cm_id, NULL, 0);
	if (!ret)
		ret = wait_both(f, FLOOR_DISCONNECTED);
	t = bench_phase(phase, 2, t);
	stamp(f, MK_DISC);
out:
	/* the cm_ids first: then no callback can touch a QP any more */
	ib_destroy_cm_id(cm_id);
	spin_lock(&f->lock);
	srv = f->srv;
	spin_unlock(&f->lock);
	if (srv.cm_id)
		ib_destroy_cm_id(srv.cm_id);
	if (qp)
		ib_destroy_qp(qp);
	if (srv.qp)
		ib_destroy_qp(srv.qp);
	bench_phase(phase, 3, t);
	stamp(f, MK_FREED);
	spin_lock(&f->lock);
	memcpy(mark, f->mark, sizeof(f->mark));
	spin_unlock(&f->lock);
	return ret;
}

/* The RoCE path record to the address itself, from the GID table. */
static int build_path(struct bench_floor *f, const struct sockaddr *addr,
		      u16 port)
{
	struct ib_device *dev = f->res->dev;
	struct sa_path_rec *path = &f->path;
	const struct ib_gid_attr *attr;
	struct net_device *ndev;
	u8 mac[ETH_ALEN];
	union ib_gid gid;
	unsigned int mtu;
	int ret;

	rdma_ip2gid((struct sockaddr *)addr, &gid);
	attr = rdma_find_gid(dev, &gid, IB_GID_TYPE_ROCE_UDP_ENCAP, NULL);
	if (IS_ERR(attr))
		attr = rdma_find_gid(dev, &gid, IB_GID_TYPE_ROCE, NULL);
	if (IS_ERR(attr))
		return PTR_ERR(attr);
	f->sgid_attr = attr;

	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(attr);
	if (IS_ERR(ndev)) {
		rcu_read_unlock();
		return PTR_ERR(ndev);
	}
	ether_addr_copy(mac, ndev->dev_addr);
	mtu = ndev->mtu;
	rcu_read_unlock();

	ret = ib_find_cached_pkey(dev, attr->port_num, 0xffff, &f->pkey_index);
	if (ret)
		return ret;

	path->rec_type = sa_conv_gid_to_pathrec_type(attr->gid_type);
	path->roce.route_resolved = true;
	sa_path_set_dmac(path, mac);
	path->sgid = gid;
	path->dgid = gid;
	path->hop_limit = IPDEFTTL;
	path->reversible = 1;
	path->pkey = cpu_to_be16(0xffff);
	path->mtu_selector = IB_SA_EQ;
	path->mtu = iboe_get_mtu(mtu);
	path->rate_selector = IB_SA_EQ;
	path->rate = IB_RATE_PORT_CURRENT;
	path->packet_life_time_selector = IB_SA_EQ;
	path->packet_life_time = FLOOR_PACKET_LIFETIME;
	if (rdma_protocol_roce_udp_encap(dev, attr->port_num))
		path->flow_label = cpu_to_be32(port & IB_GRH_FLOWLABEL_MASK);
	return path->mtu ? 0 : -EINVAL;
}

/**
 * bench_floor_create - listen on @addr's device, ready to connect to it
 * @res: verbs resources
 * @addr: a local address of the device (its GID table has it)
 * @port: the port whose TCP port space service ID the server listens on
 *
 * Return: the floor, or an ERR_PTR().
 */
struct bench_floor *bench_floor_create(struct bench_res *res,
				       const struct sockaddr *addr, u16 port)
{
	struct bench_floor *f;
	int ret;

	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return ERR_PTR(-ENOMEM);
	f->res = res;
	spin_lock_init(&f->lock);
	init_waitqueue_head(&f->wq);
	ret = build_path(f, addr, port);
	if (ret)
		goto err;
	f->service_id = cpu_to_be64(((u64)RDMA_PS_TCP << 16) + port);
	f->listen = ib_create_cm_id(res->dev, floor_handler, f);
	if (IS_ERR(f->listen)) {
		ret = PTR_ERR(f->listen);
		goto err;
	}
	ret = ib_cm_listen(f->listen, f->service_id);
	if (ret)
		goto err_listen;
	return f;

err_listen:
	ib_destroy_cm_id(f->listen);
err:
	if (f->sgid_attr && !IS_ERR(f->sgid_attr))
		rdma_put_gid_attr(f->sgid_attr);
	kfree(f);
	return ERR_PTR(ret);
}

/**
 * bench_floor_destroy - stop listening and free the floor
 * @f: from bench_floor_create(), no connection running
 */
void bench_floor_destroy(struct bench_floor *f)
{
	ib_destroy_cm_id(f->listen);
	rdma_put_gid_attr(f->sgid_attr);
	kfree(f);
}
