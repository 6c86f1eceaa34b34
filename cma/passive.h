/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The passive side: a connection request's listener, its new id and its
 * CONNECT_REQUEST, for every transport. See passive.c.
 */
#ifndef XCMA_PASSIVE_H
#define XCMA_PASSIVE_H

#include <linux/mutex.h>
#include <linux/types.h>
#include <rdma/ib_verbs.h>

struct ib_device;
struct net;
struct sockaddr_storage;
struct rdma_cm_event;
struct xcma_id;
struct xcma_wire_hdr;

extern struct mutex xcma_listen_lock;

struct xcma_id *xcma_passive_find(struct net *net, struct ib_device *ibdev,
				  __be64 service_id,
				  const struct xcma_wire_hdr *hdr, int ll_ifindex);
struct xcma_id *xcma_passive_find_ib(struct ib_device *ibdev, u32 port,
				     __be64 service_id);
struct xcma_id *xcma_passive_conn_alloc(struct xcma_id *listener,
					enum ib_qp_type qp_type,
					const struct sockaddr_storage *local,
					const struct sockaddr_storage *remote);

/**
 * struct xcma_req_ops - how a transport's CM hands a request's id over
 * @adopt: the new id takes @cm: its events are the id's from now on
 * @drop: @cm stays its CM's, which destroys it (@adopted: after @adopt);
 *	whatever the transport made for the hand-over is freed
 * @pending: the user took the request and answers later (NULL: nothing
 *	to tell the peer)
 *
 * See xcma_passive_deliver().
 */
struct xcma_req_ops {
	void (*adopt)(struct xcma_id *conn, void *cm);
	void (*drop)(struct xcma_id *conn, void *cm, bool adopted);
	void (*pending)(struct xcma_id *conn, void *cm);
};

int xcma_passive_deliver(struct xcma_id *listener, struct xcma_id *conn,
			 struct rdma_cm_event *ev,
			 const struct xcma_req_ops *ops, void *cm);
void xcma_passive_settle(struct xcma_id *xid);

#endif /* XCMA_PASSIVE_H */
