// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* The InfiniBand emulation's shared parts: see esa_util.h. */
#include <linux/if_arp.h>
#include <linux/if_infiniband.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>

#include "esa_util.h"

/**
 * esa_ib_transport - port_transport with rxe0 declared InfiniBand
 * @dev: the device
 * @port: its port
 *
 * Return: XCMA_TRANSPORT_IB for rxe0, the kernel's answer for the rest.
 */
enum xcma_transport esa_ib_transport(struct ib_device *dev, u32 port)
{
	if (!strcmp(dev_name(&dev->dev), ESA_IB_DEV))
		return XCMA_TRANSPORT_IB;
	return xcma_kernel_ops.port_transport(dev, port);
}

/**
 * esa_call_back - answer a path record query as ib_sa does
 * @cb: the query's callback
 * @status: 0 or -errno
 * @recs: the records, if @status is 0
 * @n: how many
 * @ctx: the query's context
 *
 * ib_sa's buffer lives for the callback only: it is poisoned after, so
 * that a CM that keeps a pointer into it reads garbage.
 */
void esa_call_back(xcma_sa_path_cb cb, int status,
		   const struct sa_path_rec *recs, int n, void *ctx)
{
	struct sa_path_rec *buf = NULL;

	if (!status && n) {
		buf = kmemdup(recs, n * sizeof(*recs), GFP_KERNEL);
		if (!buf)
			status = -ENOMEM;
	}
	if (status)
		n = 0;
	cb(status, buf, n, ctx);
	if (buf)
		memset(buf, 0x6b, n * sizeof(*buf));
	kfree(buf);
}

static void ipoib_hw(u8 *hw, const union ib_gid *gid)
{
	memset(hw, 0, MAX_ADDR_LEN);
	hw[3] = 0x48;	/* the QPN */
	memcpy(hw + 4, gid->raw, sizeof(gid->raw));
}

/* an IPoIB broadcast address's first bytes: QPN 0xffffff, then ff12 */
static void ipoib_bcast_qpn(u8 *b)
{
	memset(b, 0, MAX_ADDR_LEN);
	b[1] = 0xff;
	b[2] = 0xff;
	b[3] = 0xff;
	b[4] = 0xff;
	b[5] = 0x12;
}

/**
 * esa_ipoib_dev_addr - make a resolved address look as IPoIB's
 * @da: the address
 * @sgid: the GID of the source's hardware address
 * @dgid: the destination's, or NULL to leave it (a translated source)
 * @pkey: the partition in the broadcast address
 *
 * rdma_resolve_ip() over an IPoIB netdev gives a 20-byte hardware
 * address, the QPN and then the port's GID, and the pkey in the
 * broadcast address.
 */
void esa_ipoib_dev_addr(struct rdma_dev_addr *da, const union ib_gid *sgid,
			const union ib_gid *dgid, u16 pkey)
{
	da->dev_type = ARPHRD_INFINIBAND;
	ipoib_hw(da->src_dev_addr, sgid);
	if (dgid)
		ipoib_hw(da->dst_dev_addr, dgid);
	ipoib_bcast_qpn(da->broadcast);
	/* ib_addr_set_pkey(), spelled out: sparse frowns at its constant cast */
	da->broadcast[8] = pkey >> 8;
	da->broadcast[9] = pkey & 0xff;
}

/*
 * IPoIB, as far as a CM sees it: an InfiniBand port's GIDs have no netdev
 * (ib_core gives their attributes none), and a request's netdev is the
 * IPoIB netdev that ib_get_net_dev_by_params() asks IPoIB for. The
 * emulation registers a netdev of IPoIB's type and hardware address
 * (xib0, up, sending nothing) and answers for rxe0 with it.
 */
static struct esa_ipoib {
	spinlock_t lock; /* protects everything below */
	const struct xcma_ops *ops;
	struct net_device *ndev;
	int asks;
	u32 port;
	u16 pkey;
	bool has_gid;
	union ib_gid gid;
	struct sockaddr_storage addr;
} ipoib = { .lock = __SPIN_LOCK_UNLOCKED(ipoib.lock) };

/* up, so that requests may use it; what it would send goes nowhere */
static netdev_tx_t esa_ipoib_xmit(struct sk_buff *skb, struct net_device *dev)
{
	dev_kfree_skb_any(skb);
	return NETDEV_TX_OK;
}

static const struct net_device_ops esa_ipoib_ops = {
	.ndo_start_xmit = esa_ipoib_xmit,
};

static void esa_ipoib_setup(struct net_device *dev)
{
	dev->netdev_ops = &esa_ipoib_ops;
	dev->type = ARPHRD_INFINIBAND;
	dev->addr_len = INFINIBAND_ALEN;
	dev->hard_header_len = 4;
	dev->mtu = 2044;
	dev->flags = IFF_BROADCAST | IFF_MULTICAST | IFF_NOARP;
	memset(dev->broadcast, 0xff, INFINIBAND_ALEN);
}

/* what the emulation in use says of the port (not the kernel) */
static bool esa_ib_port(struct ib_device *dev, u32 port)
{
	return READ_ONCE(ipoib.ops)->port_transport(dev, port) ==
	       XCMA_TRANSPORT_IB;
}

static struct net_device *esa_gid_ndev_rcu(const struct ib_gid_attr *attr)
{
	if (esa_ib_port(attr->device, attr->port_num))
		return ERR_PTR(-ENODEV);
	return xcma_kernel_ops.gid_attr_ndev_rcu(attr);
}

static struct net_device *esa_net_dev_by_params(struct ib_device *dev,
						u32 port, u16 pkey,
						const union ib_gid *gid,
						const struct sockaddr *addr)
{
	struct net_device *ndev = NULL;

	if (!esa_ib_port(dev, port))
		return xcma_kernel_ops.get_net_dev_by_params(dev, port, pkey,
							     gid, addr);
	spin_lock(&ipoib.lock);
	ipoib.asks++;
	ipoib.port = port;
	ipoib.pkey = pkey;
	ipoib.has_gid = gid;
	if (gid)
		ipoib.gid = *gid;
	memset(&ipoib.addr, 0, sizeof(ipoib.addr));
	memcpy(&ipoib.addr, addr, rdma_addr_size(addr));
	ndev = ipoib.ndev;
	dev_hold(ndev);
	spin_unlock(&ipoib.lock);
	return ndev;
}

/*
 * On the fabric IPoIB stands for, the request's IPoIB netdev owns the
 * address it was sent to and reaches the peer; xib0 owns no address here
 * (the test's are on eth0), so the routes are not asked for it.
 */
static bool esa_route_leaves_by(struct net_device *ndev,
				const struct sockaddr *remote,
				const struct sockaddr *local)
{
	if (ndev == READ_ONCE(ipoib.ndev))
		return true;
	return xcma_kernel_ops.route_leaves_by(ndev, remote, local);
}

static void esa_ipoib_remove(void *unused)
{
	struct net_device *ndev;

	spin_lock(&ipoib.lock);
	ndev = ipoib.ndev;
	ipoib.ndev = NULL;
	spin_unlock(&ipoib.lock);
	unregister_netdev(ndev);
	free_netdev(ndev);
}

/**
 * esa_ipoib_install - IPoIB as the IB port's netdev, until the case ends
 * @test: the case
 * @ops: the emulation's ops: a GID of an IB port gets no netdev, and
 *	get_net_dev_by_params answers with xib0 for it
 * @gid: the port's GID, in xib0's hardware address
 *
 * Return: xib0 (registered, up, in init_net).
 */
struct net_device *esa_ipoib_install(struct kunit *test,
				     struct xcma_ops *ops,
				     const union ib_gid *gid)
{
	struct net_device *ndev;
	u8 hw[MAX_ADDR_LEN];
	int err;

	ndev = alloc_netdev(0, "xib%d", NET_NAME_ENUM, esa_ipoib_setup);
	KUNIT_ASSERT_NOT_NULL(test, ndev);
	ipoib_hw(hw, gid);
	dev_addr_set(ndev, hw);
	/* IPoIB's broadcast: QPN 0xffffff, ff12:401b:ffff::ffff:ffff */
	ipoib_bcast_qpn(ndev->broadcast);
	ndev->broadcast[6] = 0x40;
	ndev->broadcast[7] = 0x1b;
	ndev->broadcast[8] = 0xff;
	ndev->broadcast[9] = 0xff;
	memset(ndev->broadcast + 16, 0xff, 4);
	if (register_netdev(ndev)) {
		free_netdev(ndev);
		KUNIT_FAIL(test, "xib0 not registered");
		return NULL;
	}
	rtnl_lock();
	err = dev_open(ndev, NULL);
	rtnl_unlock();
	if (err) {
		unregister_netdev(ndev);
		free_netdev(ndev);
		KUNIT_FAIL(test, "xib0 not up: %d", err);
		return NULL;
	}
	spin_lock(&ipoib.lock);
	ipoib.ndev = ndev;
	ipoib.asks = 0;
	WRITE_ONCE(ipoib.ops, ops);
	spin_unlock(&ipoib.lock);
	KUNIT_ASSERT_EQ(test,
			kunit_add_action_or_reset(test, esa_ipoib_remove, NULL),
			0);
	ops->gid_attr_ndev_rcu = esa_gid_ndev_rcu;
	ops->get_net_dev_by_params = esa_net_dev_by_params;
	ops->route_leaves_by = esa_route_leaves_by;
	return ndev;
}

/**
 * esa_ipoib_asked - what get_net_dev_by_params was asked last, for rxe0
 * @port: its port
 * @pkey: its partition
 * @has_gid: whether it had a GID
 * @gid: its GID, if it had one
 * @addr: its address
 *
 * Return: how often it was asked since esa_ipoib_install(); false in
 * *@has_gid for a request without a GID (SIDR).
 */
int esa_ipoib_asked(u32 *port, u16 *pkey, bool *has_gid, union ib_gid *gid,
		    struct sockaddr_storage *addr)
{
	int asks;

	spin_lock(&ipoib.lock);
	asks = ipoib.asks;
	*port = ipoib.port;
	*pkey = ipoib.pkey;
	*has_gid = ipoib.has_gid;
	*gid = ipoib.gid;
	*addr = ipoib.addr;
	spin_unlock(&ipoib.lock);
	return asks;
}
