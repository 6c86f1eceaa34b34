/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Connections over iw_cm. See iw.c.
 */
#ifndef XCMA_IW_H
#define XCMA_IW_H

#include <linux/types.h>

struct iw_cm_id;
struct xcma_id;

int xcma_iw_init(void);
void xcma_iw_exit(void);
void xcma_iw_flush(void);
void xcma_iw_release(struct xcma_id *xid);

#endif /* XCMA_IW_H */
