/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The connection calls of the API (rdma_connect() and friends) and what
 * the core asks of every transport (see transport.h). See conn.c.
 */
#ifndef XCMA_CONN_H
#define XCMA_CONN_H

struct xcma_id;

void xcma_conn_release(struct xcma_id *xid);
void xcma_conn_flush(void);

#endif /* XCMA_CONN_H */
