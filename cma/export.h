/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The exports that exist only for xcma's own tests.
 *
 * The production module (make install, DKMS, make demo) exports the 35
 * symbols of <rdma/rdma_cm.h> and nothing else. The test builds
 * (XCMA_KUNIT=1: the KUnit kernel's and the KCSAN kernel's) also export
 * the internals that tests/kunit/ calls, in the XCMA_INTERNAL namespace,
 * in the way the kernel's EXPORT_SYMBOL_IF_KUNIT() does for CONFIG_KUNIT.
 * It is keyed to xcma's test build, not to CONFIG_KUNIT, since the
 * distribution kernels xcma is installed on build KUnit as a module.
 */
#ifndef XCMA_EXPORT_H
#define XCMA_EXPORT_H

#include <linux/compiler.h>
#include <linux/export.h>

#ifdef XCMA_TEST_BUILD
#define EXPORT_SYMBOL_IF_XCMA_TEST(sym) EXPORT_SYMBOL_NS_GPL(sym, XCMA_INTERNAL)
#else
/* nothing exported: the symbol must exist, its address is discarded */
#define EXPORT_SYMBOL_IF_XCMA_TEST(sym) __ADDRESSABLE(sym)
#endif

#endif /* XCMA_EXPORT_H */
