/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Internal interfaces of xcma.ko, shared by its C files and, through the
 * XCMA_INTERNAL symbol namespace, by its KUnit module.
 */
#ifndef XCMA_H
#define XCMA_H

#include <linux/types.h>

#ifdef XCMA_SIDE_BY_SIDE
#define XCMA_MODE_NAME "side-by-side"
#else
#define XCMA_MODE_NAME "drop-in"
#endif

/* device.c: the ib_client */
int xcma_device_init(void);
void xcma_device_exit(void);

/**
 * struct xcma_device_counters - what the ib_client has seen since load
 * @added: devices .add accepted
 * @removed: devices whose .remove ran to completion
 * @live: device records currently allocated
 */
struct xcma_device_counters {
	unsigned int added;
	unsigned int removed;
	unsigned int live;
};

void xcma_device_get_counters(struct xcma_device_counters *c);
int xcma_device_query(const char *name, int *state, unsigned int *holders);

#endif /* XCMA_H */
