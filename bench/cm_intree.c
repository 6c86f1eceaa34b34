// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * One CM's table for xcma_bench, the table of xcma_interop
 * (tests/kunit/interop/cm_table.h). Compiled twice: as cm_intree.o, with
 * nothing force-included, its rdma_* names are the in-tree rdma_cm's; as
 * cm_xcma.o (which includes this file), with sbs.h force-included, they
 * are xcma's xcma_* exports. Only the table's name differs.
 */
#include "bench.h"

#ifdef XCMA_SIDE_BY_SIDE
#define INTEROP_CM bench_xcma
#define INTEROP_CM_NAME "xcma"
#else
#define INTEROP_CM bench_intree
#define INTEROP_CM_NAME "intree"
#endif
#define INTEROP_LIVE_IDS NULL

#include "../tests/kunit/interop/cm_table.h"
