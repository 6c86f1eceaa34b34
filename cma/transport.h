/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The transport interface: what each transport does with an id's
 * connection. The API calls (conn.c, qp.c) check the id and its state,
 * then dispatch to the transport of the id's port: RC over ib_cm (ib.c),
 * UD over ib_cm's SIDR (ud.c) or iWARP over iw_cm (iw.c). A port is one
 * transport for as long as it exists.
 */
#ifndef XCMA_TRANSPORT_H
#define XCMA_TRANSPORT_H

#include <linux/types.h>
#include <rdma/ib_verbs.h>

#include "id.h"
#include "ops.h"

struct ib_qp_attr;
struct rdma_conn_param;
struct xcma_id;

/**
 * struct xcma_transport_ops - a transport's side of the API calls
 * @connect: send the request; the id is CONNECT, @param not NULL, its
 *	handler mutex held. The transport checks the private data and
 *	takes the QP number (xcma_qp_take_num()).
 * @accept: answer a request (or, with a NULL @param, a response on the
 *	active side of a user-managed QP: RC); the id is CONNECT, holds its
 *	CM's id and its QP number is taken
 * @reject: refuse a request or response; the id holds its CM's id; the
 *	transport moves the state (XCMA_EV_REJECT)
 * @disconnect: start or answer a disconnection; the transport moves the
 *	state (XCMA_EV_DISCONNECT)
 * @release: let go of the CM's id (destroy, device removal)
 * @listen: listen on the id's device for requests to its address (or
 *	service ID), keeping the CM's listen in the id (xcma_listen_lock);
 *	the id is LISTEN and holds the device
 * @unlisten: let go of that listen, if the id holds one; once it returns
 *	no request can find the id
 * @init_qp_attr: the attributes for moving the id's QP to a state, before
 *	the caller's overrides (rdma_init_qp_attr())
 * @flush: wait for the CM ids @release handed to a worker (NULL: it hands
 *	none over); a device's removal calls it once its ids let go
 * @notify: pass a QP event to the CM (NULL: the CM needs none)
 * @reject_msg: the CM's text for a REJECTED event's status
 * @consumer_reject: the status of a REJECTED event that the peer's
 *	consumer sent (with its private data)
 */
struct xcma_transport_ops {
	int (*connect)(struct xcma_id *xid, struct rdma_conn_param *param);
	int (*accept)(struct xcma_id *xid, struct rdma_conn_param *param);
	int (*reject)(struct xcma_id *xid, const void *data, u8 len,
		      u8 reason);
	int (*disconnect)(struct xcma_id *xid);
	void (*release)(struct xcma_id *xid);
	int (*listen)(struct xcma_id *xid);
	void (*unlisten)(struct xcma_id *xid);
	int (*init_qp_attr)(struct xcma_id *xid, struct ib_qp_attr *attr,
			    int *mask);
	void (*flush)(void);
	int (*notify)(struct xcma_id *xid, enum ib_event_type event);
	const char *(*reject_msg)(int reason);
	int consumer_reject;
};

extern const struct xcma_transport_ops xcma_rc_transport;
extern const struct xcma_transport_ops xcma_ud_transport;
extern const struct xcma_transport_ops xcma_iw_transport;

/**
 * xcma_id_transport - the transport of an id's port
 * @xid: the id
 *
 * Return: its operations; NULL for an id without a device, or on a port
 * that has neither ib_cm nor iw_cm.
 */
static inline const struct xcma_transport_ops *
xcma_id_transport(struct xcma_id *xid)
{
	struct rdma_cm_id *id = &xid->id;

	if (xcma_transport_iw(id->device, id->port_num))
		return &xcma_iw_transport;
	if (!xcma_transport_ib_cm(id->device, id->port_num))
		return NULL;
	return id->qp_type == IB_QPT_UD ? &xcma_ud_transport :
					  &xcma_rc_transport;
}

#endif /* XCMA_TRANSPORT_H */
