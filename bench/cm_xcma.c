// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * xcma's table for xcma_bench: cm_intree.c compiled with sbs.h
 * force-included (see Kbuild), so that its rdma_* calls are xcma_*.
 */
#ifndef XCMA_SIDE_BY_SIDE
#error "cm_xcma.c must be compiled with include/xcma/sbs.h force-included"
#endif
#include "cm_intree.c"
