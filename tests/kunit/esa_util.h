/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * What the suites that emulate InfiniBand share (ib_test.c, the IB run of
 * removal_test.c): rxe0's port declared IB, an SA answer given as ib_sa
 * gives it, and an address in IPoIB's form.
 */
#ifndef XCMA_KUNIT_ESA_UTIL_H
#define XCMA_KUNIT_ESA_UTIL_H

#include <kunit/test.h>
#include <linux/netdevice.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_sa.h>

#include "../../cma/ops.h"

/* the device whose port 1 the emulation declares InfiniBand */
#define ESA_IB_DEV "rxe0"

enum xcma_transport esa_ib_transport(struct ib_device *dev, u32 port);
void esa_call_back(xcma_sa_path_cb cb, int status,
		   const struct sa_path_rec *recs, int n, void *ctx);
void esa_ipoib_dev_addr(struct rdma_dev_addr *da, const union ib_gid *sgid,
			const union ib_gid *dgid, u16 pkey);
struct net_device *esa_ipoib_install(struct kunit *test,
				     struct xcma_ops *ops,
				     const union ib_gid *gid);
int esa_ipoib_asked(u32 *port, u16 *pkey, bool *has_gid, union ib_gid *gid,
		    struct sockaddr_storage *addr);

#endif
