/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The two connection managers of xcma_interop, behind one table each:
 * interop_intree calls the in-tree rdma_cm, interop_xcma calls xcma (the
 * same source compiled with sbs.h force-included, see Kbuild). The test
 * itself calls only these, so that which CM drives an id is a parameter.
 */
#ifndef XCMA_INTEROP_H
#define XCMA_INTEROP_H

#include <rdma/rdma_cm.h>

/**
 * struct interop_cm - one CM's rdma_cm API
 * @name: which CM, for messages and the bench's figures
 * @create_id: rdma_create_id (a macro, hence a function here)
 * @destroy_id: rdma_destroy_id
 * @bind_addr: rdma_bind_addr
 * @resolve_addr: rdma_resolve_addr
 * @resolve_route: rdma_resolve_route
 * @create_qp: rdma_create_qp
 * @destroy_qp: rdma_destroy_qp
 * @listen: rdma_listen
 * @connect: rdma_connect
 * @accept: rdma_accept
 * @reject: rdma_reject
 * @consumer_reject_data: rdma_consumer_reject_data
 * @disconnect: rdma_disconnect
 * @event_msg: rdma_event_msg
 * @live_ids: how many ids of this CM hold @ibdev (the in-tree CM's
 *	restrack entries, xcma's device holders), or a negative errno; NULL
 *	in the bench
 */
struct interop_cm {
	const char *name;
	struct rdma_cm_id *(*create_id)(struct net *net,
					rdma_cm_event_handler handler,
					void *context,
					enum rdma_ucm_port_space ps,
					enum ib_qp_type qp_type);
	void (*destroy_id)(struct rdma_cm_id *id);
	int (*bind_addr)(struct rdma_cm_id *id, struct sockaddr *addr);
	int (*resolve_addr)(struct rdma_cm_id *id, struct sockaddr *src,
			    const struct sockaddr *dst, unsigned long ms);
	int (*resolve_route)(struct rdma_cm_id *id, unsigned long ms);
	int (*create_qp)(struct rdma_cm_id *id, struct ib_pd *pd,
			 struct ib_qp_init_attr *attr);
	void (*destroy_qp)(struct rdma_cm_id *id);
	int (*listen)(struct rdma_cm_id *id, int backlog);
	int (*connect)(struct rdma_cm_id *id, struct rdma_conn_param *param);
	int (*accept)(struct rdma_cm_id *id, struct rdma_conn_param *param);
	int (*reject)(struct rdma_cm_id *id, const void *private_data,
		      u8 private_data_len, u8 reason);
	const void *(*consumer_reject_data)(struct rdma_cm_id *id,
					    struct rdma_cm_event *ev,
					    u8 *data_len);
	int (*disconnect)(struct rdma_cm_id *id);
	const char *(*event_msg)(enum rdma_cm_event_type event);
	int (*live_ids)(struct ib_device *ibdev);
};

extern const struct interop_cm interop_intree;
extern const struct interop_cm interop_xcma;

#endif /* XCMA_INTEROP_H */
