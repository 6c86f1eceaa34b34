/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Connections over iw_cm. See iw.c.
 */
#ifndef XCMA_IW_H
#define XCMA_IW_H

#include <linux/types.h>

struct ib_qp_attr;
struct iw_cm_id;
struct rdma_conn_param;
struct xcma_id;

int xcma_iw_init(void);
void xcma_iw_exit(void);
void xcma_iw_destroy(struct iw_cm_id *iw);
void xcma_iw_flush(void);
void xcma_iw_release(struct xcma_id *xid);
struct iw_cm_id *xcma_iw_listen(struct xcma_id *xid);
int xcma_iw_connect(struct xcma_id *xid, struct rdma_conn_param *param);
int xcma_iw_accept(struct xcma_id *xid, struct rdma_conn_param *param);
int xcma_iw_reject(struct xcma_id *xid, const void *data, u8 len);
int xcma_iw_disconnect(struct xcma_id *xid);
int xcma_iw_init_qp_attr(struct xcma_id *xid, struct ib_qp_attr *attr,
			 int *mask);

#endif /* XCMA_IW_H */
