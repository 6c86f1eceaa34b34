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

/*
 * The default GID of @mac is in one of port 1's default slots, for @ndev,
 * as RoCE v2. ib_core reserves the first slots of a RoCE port's table for
 * the default GIDs, one per GID type (0 and 1 on rxe: v1 and v2). Its
 * work item for a new MAC deletes the netdev's GIDs one at a time in slot
 * order, so the old default GIDs first, and sets the new default GIDs
 * only once every old GID is gone: the new MAC's default GID in a default
 * slot is the one sign that the delete is over. Its value alone is not:
 * the boot MAC's default GID is also the GID of eth0's IPv6 link-local
 * address, which stays in a later slot until the delete reaches it.
 */
static inline bool gid_util_default_is(struct ib_device *ibdev,
				       struct net_device *ndev, const u8 *mac)
{
	const struct ib_gid_attr *attr;
	union ib_gid gid;
	bool found = false;
	u32 ix;

	gid_util_ll(&gid, mac);
	for (ix = 0; ix < 2 && !found; ix++) {
		attr = rdma_get_gid_attr(ibdev, 1, ix);
		if (IS_ERR(attr))
			continue;
		rcu_read_lock();
		found = attr->gid_type == IB_GID_TYPE_ROCE_UDP_ENCAP &&
			!memcmp(&attr->gid, &gid, sizeof(gid)) &&
			rdma_read_gid_attr_ndev_rcu(attr) == ndev;
		rcu_read_unlock();
		rdma_put_gid_attr(attr);
	}
	return found;
}

#endif
