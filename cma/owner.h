/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* xcma as the owner of its ids and devices, for the lifecycle library. See owner.c. */
#ifndef XCMA_OWNER_H
#define XCMA_OWNER_H

void xcma_owner_init(void);

#endif /* XCMA_OWNER_H */
