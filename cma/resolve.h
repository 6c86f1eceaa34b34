/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Address and route resolution of an id. See resolve.c.
 */
#ifndef XCMA_RESOLVE_H
#define XCMA_RESOLVE_H

struct rdma_dev_addr;
struct sockaddr_ib;
struct xcma_id;

void xcma_resolve_cancel_addr(struct xcma_id *xid);
void xcma_resolve_cancel_route(struct xcma_id *xid);
void xcma_translate_ib(const struct sockaddr_ib *sib, struct rdma_dev_addr *da);

#endif /* XCMA_RESOLVE_H */
