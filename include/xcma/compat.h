/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Kernel API differences between the supported targets (Debian 6.1 and
 * 6.12). The XCMA_HAVE_* macros come from probes of the target's headers
 * in Kbuild; logic files use only the helpers below, never the macros.
 * Force-included into every C file of the module.
 */
#ifndef XCMA_COMPAT_H
#define XCMA_COMPAT_H

/* 6.12 dropped RDMA_PRIMARY_PATH_MAX_REC_NUM along with alternate paths. */
#ifdef XCMA_HAVE_PATH_MAX_REC_NUM
#define XCMA_PATH_REC_NUM RDMA_PRIMARY_PATH_MAX_REC_NUM
#else
#define XCMA_PATH_REC_NUM 1
#endif

/* ib_sa's path record callback counts records in an int before 6.12 */
#ifdef XCMA_HAVE_SA_PATH_UINT_COUNT
#define XCMA_SA_COUNT unsigned int
#else
#define XCMA_SA_COUNT int
#endif

#endif /* XCMA_COMPAT_H */
