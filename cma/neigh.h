/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* UNREACHABLE when a resolved neighbour changes its hardware address. See neigh.c. */
#ifndef XCMA_NEIGH_H
#define XCMA_NEIGH_H

#include <linux/rbtree.h>
#include <linux/types.h>

struct neighbour;
struct xcma_id;

/**
 * struct xcma_neigh_entry - an id's place in the index of ids by neighbour
 * @node: in the index while RB_EMPTY_NODE() is false (protected by
 *	neigh.c's index lock)
 * @xid: the id, constant
 *
 * Allocated by the id's first RoCE route resolution
 * (xcma_neigh_prepare()), freed with the id: an id that never resolves a
 * RoCE route carries only the pointer.
 */
struct xcma_neigh_entry {
	struct rb_node node;
	struct xcma_id *xid;
};

int xcma_neigh_prepare(struct xcma_id *xid);
void xcma_neigh_id_free(struct xcma_id *xid);
void xcma_neigh_watch(struct xcma_id *xid);
void xcma_neigh_unwatch(struct xcma_id *xid);
bool xcma_neigh_watched(struct xcma_id *xid);
unsigned int xcma_neigh_update(struct neighbour *n);
void xcma_neigh_flush(void);
int xcma_neigh_init(void);
void xcma_neigh_exit(void);

#endif /* XCMA_NEIGH_H */
