// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The seam of the ops layer, in KUnit builds only: the table in use
 * behind a pointer a test may swap. A production build calls the kernel's
 * functions directly (ops.h) and has nothing here.
 */
#include <linux/export.h>
#include <linux/workqueue.h>

#include "export.h"
#include "ops.h"

#ifdef XCMA_OPS_SEAM
const struct xcma_ops xcma_kernel_ops = XCMA_KERNEL_OPS_INIT;
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_kernel_ops);

const struct xcma_ops *xcma_ops = &xcma_kernel_ops;

/**
 * xcma_ops_set - substitute the ops (KUnit)
 * @ops: the new table, or NULL for the kernel's functions
 *
 * Only while no other thread is inside xcma (a test between its own
 * calls): callers in flight read the pointer unlocked.
 *
 * Return: the previous table.
 */
const struct xcma_ops *xcma_ops_set(const struct xcma_ops *ops)
{
	const struct xcma_ops *old = xcma_ops;

	WRITE_ONCE(xcma_ops, ops ? ops : &xcma_kernel_ops);
	return old;
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_ops_set);
#endif
