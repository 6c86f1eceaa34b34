/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * ib_core's resource tracking of CM ids (rdma res show cm_id).
 *
 * ib_core reads a CM id through the in-tree CM's private struct: from a
 * restrack entry it goes back to the enclosing struct with container_of()
 * and reads, at the in-tree offsets, the rdma_cm_id at the start (its
 * device, port, QP type, port space and addresses: restrack.c res_to_dev,
 * nldev.c fill_res_cm_id_entry), the state and the QP number. struct
 * xcma_id keeps those three at the same offsets; struct xcma_intree_id
 * below describes where they are, from the public types of the target's
 * headers (so debug kernels' larger locks move them as they move the
 * in-tree ones). id.h asserts each offset.
 */
#ifndef XCMA_RESTRACK_H
#define XCMA_RESTRACK_H

#include <linux/completion.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <rdma/rdma_cm.h>
#include <rdma/restrack.h>

/*
 * Exported by ib_core, declared in its private restrack.h, which the
 * headers packages do not ship.
 */
void rdma_restrack_new(struct rdma_restrack_entry *res,
		       enum rdma_restrack_type type);
void rdma_restrack_set_name(struct rdma_restrack_entry *res,
			    const char *caller);
void rdma_restrack_parent_name(struct rdma_restrack_entry *dst,
			       const struct rdma_restrack_entry *parent);
void rdma_restrack_add(struct rdma_restrack_entry *res);
void rdma_restrack_del(struct rdma_restrack_entry *res);

/*
 * The in-tree CM's private id (struct rdma_id_private of cma_priv.h), by
 * type and order only: what lies between the fields ib_core reads
 * matters for their offsets, not its meaning. Never allocated.
 */
struct xcma_intree_id {
	struct rdma_cm_id id;
	void *bind_list;
	struct hlist_node node;
	struct list_head device_item;
	struct list_head listen_item;
	struct list_head id_list_entry;
	void *cma_dev;
	struct list_head mc_list;
	int internal_id;
	unsigned int state; /* enum rdma_cm_state, read by nldev */
	spinlock_t lock;
	struct mutex qp_mutex; /* its size moves what follows */
	struct completion comp;
	refcount_t refcount;
	struct mutex handler_mutex; /* as qp_mutex */
	int backlog;
	int timeout_ms;
	void *query;
	int query_id;
	void *cm_id;
	u32 seq_num;
	u32 qkey;
	u32 qp_num; /* read by nldev */
	u32 options;
	u8 srq;
	u8 tos;
	u8 bits; /* tos_set, timeout_set, min_rnr_timer_set */
	u8 reuseaddr;
	u8 afonly;
	u8 timeout;
	u8 min_rnr_timer;
	u8 used_resolve_ip;
	unsigned int gid_type;
	struct rdma_restrack_entry res; /* container_of() by ib_core */
	struct rdma_ucm_ece ece;
};

#define XCMA_INTREE_OFF(field) offsetof(struct xcma_intree_id, field)

#endif /* XCMA_RESTRACK_H */
