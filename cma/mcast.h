/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Multicast on RoCE and IB: rdma_join_multicast(),
 * rdma_leave_multicast() and the groups' part of an id's lifecycle. See
 * mcast.c.
 */
#ifndef XCMA_MCAST_H
#define XCMA_MCAST_H

#include <linux/socket.h>
#include <rdma/ib_verbs.h>

struct xcma_life_id;
struct xcma_fsm_link;
struct rdma_cm_id;

void xcma_mcast_drop(struct xcma_life_id *life, struct xcma_fsm_link *group);
void xcma_mcast_mgid(const struct sockaddr *addr, enum ib_gid_type type,
		     union ib_gid *mgid);
unsigned int xcma_mcast_live(void);
#if IS_ENABLED(CONFIG_KUNIT)
void xcma_mcast_published(struct rdma_cm_id *id, const struct sockaddr *addr);
#else
static inline void xcma_mcast_published(struct rdma_cm_id *id,
					const struct sockaddr *addr)
{
}
#endif

#endif /* XCMA_MCAST_H */
