// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* The InfiniBand emulation's shared parts: see esa_util.h. */
#include <linux/if_arp.h>
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
	memset(da->broadcast, 0, MAX_ADDR_LEN);
	da->broadcast[1] = 0xff;
	da->broadcast[2] = 0xff;
	da->broadcast[3] = 0xff;
	da->broadcast[4] = 0xff;
	da->broadcast[5] = 0x12;
	/* ib_addr_set_pkey(), spelled out: sparse frowns at its constant cast */
	da->broadcast[8] = pkey >> 8;
	da->broadcast[9] = pkey & 0xff;
}
