// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * xcma_kunit.ko: the KUnit suites of xcma. They run when the module is
 * inserted into the test kernel (scripts/vm.sh -k kunit).
 */
#include <linux/module.h>

MODULE_DESCRIPTION("KUnit tests for xcma");
MODULE_LICENSE("Dual BSD/GPL");
MODULE_IMPORT_NS(XCMA_INTERNAL);
