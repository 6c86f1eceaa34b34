/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
#ifndef XCMA_KUNIT_H
#define XCMA_KUNIT_H

#include <kunit/test.h>

int xcma_kunit_run(struct kunit *test, const char *cmdline);
int xcma_kunit_sweep_init(struct kunit *test);

#endif
