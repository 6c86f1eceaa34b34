/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * QP state transitions of an id. See qp.c.
 */
#ifndef XCMA_QP_H
#define XCMA_QP_H

struct rdma_conn_param;
struct xcma_id;

int xcma_qp_modify_err(struct xcma_id *xid);
int xcma_qp_modify_rtr(struct xcma_id *xid, struct rdma_conn_param *param);
int xcma_qp_modify_rts(struct xcma_id *xid, struct rdma_conn_param *param);

#endif /* XCMA_QP_H */
