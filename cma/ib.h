/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Connections over ib_cm. See ib.c.
 */
#ifndef XCMA_IB_H
#define XCMA_IB_H

#include <linux/socket.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_verbs.h>

#include "wire.h"

struct ib_cm_event;
struct ib_cm_id;
struct ib_gid_attr;
struct net;
struct rdma_conn_param;
struct xcma_id;

int xcma_ib_listen(struct xcma_id *xid);
void xcma_ib_unlisten(struct xcma_id *xid);
void xcma_ib_release(struct xcma_id *xid);
int xcma_ib_disconnect(struct xcma_id *xid);
int xcma_ib_connect_prep(struct xcma_id *xid, struct rdma_conn_param *param,
			 enum xcma_wire_msg msg);
int xcma_ib_reject_prep(struct xcma_id *xid, enum xcma_wire_msg msg,
			const void *data, u8 len);
int xcma_ib_notify(struct xcma_id *xid, enum ib_event_type event);
const char *xcma_ib_reject_msg(int reason);
int xcma_ib_leave(struct xcma_id *xid, struct ib_cm_id *cm_id, int ret);
struct net_device *xcma_ib_req_netdev(struct ib_device *dev, u32 port,
				      const struct ib_gid_attr *attr, u16 pkey,
				      const union ib_gid *gid,
				      const struct sockaddr *local);
void xcma_ib_sib_set(struct sockaddr_storage *ss, __be16 pkey,
		     __be32 flowinfo, const union ib_gid *gid, __be64 sid,
		     __be64 sid_mask);
struct rdma_dev_addr;
struct ib_gid_attr;

void xcma_ib_req_drop(struct xcma_id *conn, void *cm, bool adopted);
struct rdma_conn_param;
void *xcma_ib_req_begin(struct xcma_id *xid,
			const struct rdma_conn_param *param,
			ib_cm_handler handler, u8 *len);
int xcma_ib_req_end(struct xcma_id *xid, void *buf, int ret);
void xcma_ib_conn_copy_l2(struct rdma_dev_addr *da,
			  const struct net_device *ndev);
/**
 * struct xcma_ib_req - what a REQ or SIDR REQ says, to find its listener
 * @pdata: its private data: the rdma_cm header, then the user's
 * @pdata_len: the size of that data (IB_CM_*_PRIVATE_DATA_SIZE)
 * @sid: its service ID
 * @port: the port it came in on
 * @sgid_attr: the GID attribute it came in on, or NULL
 * @pkey: its partition
 * @sgid: the GID it names as ours; NULL for a SIDR REQ, which names none
 */
struct xcma_ib_req {
	const void *pdata;
	u8 pdata_len;
	__be64 sid;
	u32 port;
	const struct ib_gid_attr *sgid_attr;
	u16 pkey;
	const union ib_gid *sgid;
};

struct xcma_id *xcma_ib_req_listener(struct ib_device *ibdev,
				     const struct xcma_ib_req *req,
				     struct sockaddr_storage *local,
				     struct sockaddr_storage *remote,
				     struct net_device **ndev);
#if IS_ENABLED(CONFIG_KUNIT)
void xcma_ib_req_found(struct rdma_cm_id *listener);
#else
static inline void xcma_ib_req_found(struct rdma_cm_id *listener)
{
}
#endif

#endif /* XCMA_IB_H */
