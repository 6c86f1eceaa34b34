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
 * The default GID of @mac is in port 1's default slot. ib_core reserves
 * the first slots of a RoCE port's table for the default GIDs, one per
 * GID type the port supports: rxe has RoCE v2 only, so one, slot 0 (a
 * dump of its table: the default GID, then one GID per address). Its
 * work item for a new MAC deletes the netdev's GIDs one at a time in slot
 * order, so the old default GID first, and sets the new default GID only
 * once every old GID is gone: the new MAC's default GID in slot 0 is the
 * one sign that the delete is over. Its value in another slot is not: the
 * boot MAC's default GID is also the GID of eth0's IPv6 link-local
 * address, which stays in a later slot until the delete reaches it. The
 * value, made of a MAC no other netdev here has, says whose it is (@ndev
 * only documents it).
 *
 * No reference is taken on a GID entry (rdma_query_gid() copies under the
 * table's lock): a deleted entry that someone still holds keeps its slot
 * until ib_wq frees it, and the default slot held so while the work item
 * deletes makes the new default GID's add fail with -ENOSPC, for good
 * (seen when this wait used rdma_get_gid_attr(): "__ib_cache_gid_add:
 * unable to add gid fe80::... error=-28", then a wait that never ends).
 */
static inline bool gid_util_default_is(struct ib_device *ibdev,
				       struct net_device *ndev, const u8 *mac)
{
	union ib_gid want, gid;

	gid_util_ll(&want, mac);
	return !rdma_query_gid(ibdev, 1, 0, &gid) &&
	       !memcmp(&gid, &want, sizeof(gid));
}

/* port 1's first @n GIDs, to the console: what a failed case saw */
static inline void gid_util_dump(struct ib_device *ibdev, int n)
{
	union ib_gid gid;
	int ix, ret;

	for (ix = 0; ix < n; ix++) {
		ret = rdma_query_gid(ibdev, 1, ix, &gid);
		if (ret)
			pr_info("gid_util: %s port 1 [%d]: %d\n",
				dev_name(&ibdev->dev), ix, ret);
		else
			pr_info("gid_util: %s port 1 [%d]: %pI6\n",
				dev_name(&ibdev->dev), ix, gid.raw);
	}
}

#endif
