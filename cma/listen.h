/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* Listeners: rdma_listen() and each listener's listen on its device. See listen.c. */
#ifndef XCMA_LISTEN_H
#define XCMA_LISTEN_H

struct xcma_id;
struct xcma_life_dev;
struct xcma_life_id;

int xcma_listen_start(struct xcma_id *xid);
void xcma_listen_stop(struct xcma_id *xid);
int xcma_listen_child(struct xcma_life_id *parent, struct xcma_life_dev *dev,
		      struct xcma_life_id **child);

#endif /* XCMA_LISTEN_H */
