/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * eth0's MAC and rxe0's GID table, for the cases that change the one and
 * wait for ib_core's GID work item to follow in the other (xcma_netdev,
 * xcma_interop_gid). Header-only: the two live in different modules.
 */
#ifndef XCMA_KUNIT_GID_UTIL_H
#define XCMA_KUNIT_GID_UTIL_H

#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <rdma/ib_cache.h>

static inline int gid_util_set_mac(struct net_device *ndev, const u8 *mac)
{
	struct sockaddr sa = { .sa_family = ndev->type };
	int ret;

	memcpy(sa.sa_data, mac, ETH_ALEN);
	rtnl_lock();
	ret = dev_set_mac_address(ndev, &sa, NULL);
	rtnl_unlock();
	return ret;
}

/* the link-local GID @mac makes: ib_core's default GID (addrconf's EUI-64) */
static inline void gid_util_ll(union ib_gid *gid, const u8 *mac)
{
	memset(gid, 0, sizeof(*gid));
	gid->raw[0] = 0xfe;
	gid->raw[1] = 0x80;
	memcpy(&gid->raw[8], mac, 3);
	gid->raw[8] ^= 2;
	gid->raw[11] = 0xff;
	gid->raw[12] = 0xfe;
	memcpy(&gid->raw[13], mac + 3, 3);
}

/* @gid is in port 1's table for @ndev (rxe is RoCE v2: UDP-encapsulated) */
static inline bool gid_util_present(struct ib_device *ibdev,
				    struct net_device *ndev,
				    const union ib_gid *gid)
{
	const struct ib_gid_attr *attr;

	attr = rdma_find_gid_by_port(ibdev, gid, IB_GID_TYPE_ROCE_UDP_ENCAP,
				     1, ndev);
	if (IS_ERR(attr))
		return false;
	rdma_put_gid_attr(attr);
	return true;
}

#endif
