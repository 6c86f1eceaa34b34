/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Listeners and the lookup of a connect request's listener. See
 * listen.c.
 */
#ifndef XCMA_LISTEN_H
#define XCMA_LISTEN_H

#include <linux/types.h>

struct ib_device;
struct net;
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

struct xcma_id *xcma_listen_find_ib(struct ib_device *ibdev, u32 port,
				    __be64 service_id);
int xcma_listen_conn_visible(struct xcma_id *conn);
void xcma_listen_settle(struct xcma_id *xid);

#endif /* XCMA_LISTEN_H */
