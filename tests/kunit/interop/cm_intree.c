// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * One CM's table for xcma_interop. Compiled twice: as cm_intree.o, with
 * nothing force-included, the rdma_* names below are the in-tree rdma_cm's;
 * as cm_xcma.o (which includes this file), with sbs.h force-included, they
 * are xcma's xcma_* exports. Only the table's name and live_ids differ; the table itself is
 * cm_table.h, which xcma_bench shares.
 */
#include <linux/module.h>
#include <rdma/rdma_cm.h>
#include <rdma/restrack.h>

#include "interop.h"
#include "../../../cma/device.h"

#ifdef XCMA_SIDE_BY_SIDE

#define INTEROP_CM interop_xcma
#define INTEROP_CM_NAME "xcma"

static int live_ids(struct ib_device *ibdev)
{
	unsigned int holders;
	int state, ret;

	ret = xcma_device_query(dev_name(&ibdev->dev), &state, &holders);
	return ret ? ret : holders;
}
#else
#define INTEROP_CM interop_intree
#define INTEROP_CM_NAME "in-tree"

/*
 * restrack lists xcma's ids too (ib_core reads them through the in-tree
 * layout): the in-tree CM's are the rest
 */
static int live_ids(struct ib_device *ibdev)
{
	unsigned int xcma_ids = 0;
	int state;

	if (xcma_device_query(dev_name(&ibdev->dev), &state, &xcma_ids))
		xcma_ids = 0;
	return rdma_restrack_count(ibdev, RDMA_RESTRACK_CM_ID, false) -
	       xcma_ids;
}
#endif

#define INTEROP_LIVE_IDS live_ids
#include "cm_table.h"
