/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * QP state transitions of an id. See qp.c.
 */
#ifndef XCMA_QP_H
#define XCMA_QP_H

struct ib_qp_attr;
struct rdma_conn_param;
struct xcma_id;

int xcma_qp_attr_noconn(struct xcma_id *xid, struct ib_qp_attr *attr,
			int *mask);
int xcma_qp_modify_err(struct xcma_id *xid);
void xcma_qp_take_num(struct xcma_id *xid, struct rdma_conn_param *param);
int xcma_qp_modify_rtr(struct xcma_id *xid, struct rdma_conn_param *param);
int xcma_qp_modify_rts(struct xcma_id *xid, struct rdma_conn_param *param);

#endif /* XCMA_QP_H */
