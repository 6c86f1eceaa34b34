/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Listeners and the lookup of a connect request's listener. See
 * listen.c.
 */
#ifndef XCMA_LISTEN_H
#define XCMA_LISTEN_H

#include <linux/types.h>
#include <rdma/ib_verbs.h>

struct ib_device;
struct net;
struct sockaddr_storage;
struct rdma_cm_event;
struct xcma_id;
struct xcma_life_dev;
struct xcma_life_id;
struct xcma_wire_hdr;

int xcma_listen_start(struct xcma_id *xid);
void xcma_listen_stop(struct xcma_id *xid);
struct xcma_id *xcma_listen_find(struct net *net, struct ib_device *ibdev,
				 __be64 service_id,
				 const struct xcma_wire_hdr *hdr, int ll_ifindex);
int xcma_listen_child(struct xcma_life_id *parent, struct xcma_life_dev *dev,
		      struct xcma_life_id **child);

struct xcma_id *xcma_listen_conn_alloc(struct xcma_id *listener,
				       enum ib_qp_type qp_type,
				       const struct sockaddr_storage *local,
				       const struct sockaddr_storage *remote);
struct xcma_id *xcma_listen_find_ib(struct ib_device *ibdev, u32 port,
				    __be64 service_id);

/**
 * struct xcma_req_ops - how a transport's CM hands a request's id over
 * @adopt: the new id takes @cm: its events are the id's from now on
 * @drop: @cm stays its CM's, which destroys it (@adopted: after @adopt);
 *	whatever the transport made for the hand-over is freed
 * @pending: the user took the request and answers later (NULL: nothing
 *	to tell the peer)
 *
 * See xcma_listen_deliver().
 */
struct xcma_req_ops {
	void (*adopt)(struct xcma_id *conn, void *cm);
	void (*drop)(struct xcma_id *conn, void *cm, bool adopted);
	void (*pending)(struct xcma_id *conn, void *cm);
};

int xcma_listen_deliver(struct xcma_id *listener, struct xcma_id *conn,
			struct rdma_cm_event *ev,
			const struct xcma_req_ops *ops, void *cm);
void xcma_listen_settle(struct xcma_id *xid);

#endif /* XCMA_LISTEN_H */
