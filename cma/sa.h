/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* Route resolution over InfiniBand: SA path record queries. See sa.c. */
#ifndef XCMA_SA_H
#define XCMA_SA_H

#include <linux/types.h>

struct xcma_id;

int xcma_sa_resolve_route(struct xcma_id *xid, unsigned long timeout_ms);
void xcma_sa_cancel_route(struct xcma_id *xid);
void xcma_sa_free(struct xcma_id *xid);
void xcma_sa_init(void);
void xcma_sa_exit(void);
struct ib_sa_client *xcma_sa_client(void);

#endif /* XCMA_SA_H */
