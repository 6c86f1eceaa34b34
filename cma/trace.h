/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * xcma's trace events. In drop-in mode they carry the names, the system
 * (rdma_cma) and the field names of the in-tree CM's events, so that
 * existing trace scripts keep working when xcma replaces it; side by side
 * the system is xcma, so that both CMs can be traced in one boot.
 *
 * The id number (cm.id) is xcma's own sequence number of the id, assigned
 * at create time; the in-tree CM prints its restrack id there.
 */
#undef TRACE_SYSTEM
#ifdef XCMA_SIDE_BY_SIDE
#define TRACE_SYSTEM xcma
#else
#define TRACE_SYSTEM rdma_cma
#endif

#if !defined(XCMA_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define XCMA_TRACE_H

#include <linux/tracepoint.h>
#include <rdma/ib_cm.h>
#include <rdma/rdma_cm.h>
#include <trace/misc/rdma.h>

#include "id.h"

#define XCMA_TRACE_ADDR_LEN sizeof(struct sockaddr_in6)

/*
 * What every id event records first: the id, its type of service and its
 * two addresses (the in-tree CM's field names).
 */
#define XCMA_TRACE_ID_ENTRY						\
	__field(u32, cm_id)						\
	__field(u32, tos)						\
	__array(unsigned char, srcaddr, XCMA_TRACE_ADDR_LEN)		\
	__array(unsigned char, dstaddr, XCMA_TRACE_ADDR_LEN)

/* and prints first */
#define XCMA_TRACE_ID_FMT "cm.id=%u src=%pISpc dst=%pISpc tos=%u"
#define XCMA_TRACE_ID_ARGS						\
	__entry->cm_id, __entry->srcaddr, __entry->dstaddr, __entry->tos

#define XCMA_TRACE_ID_ASSIGN(xid)					\
	do {								\
		const struct xcma_id *__x = (xid);			\
		const struct rdma_addr *__a = &__x->id.route.addr;	\
									\
		__entry->cm_id = __x->num;				\
		__entry->tos = READ_ONCE(__x->tos);			\
		memcpy(__entry->srcaddr, &__a->src_addr,		\
		       XCMA_TRACE_ADDR_LEN);				\
		memcpy(__entry->dstaddr, &__a->dst_addr,		\
		       XCMA_TRACE_ADDR_LEN);				\
	} while (0)

/* the id and its two addresses: what every id event records */
DECLARE_EVENT_CLASS(xcma_id_class,
	TP_PROTO(const struct xcma_id *xid),
	TP_ARGS(xid),
	TP_STRUCT__entry(
		XCMA_TRACE_ID_ENTRY
	),
	TP_fast_assign(
		XCMA_TRACE_ID_ASSIGN(xid);
	),
	TP_printk(XCMA_TRACE_ID_FMT, XCMA_TRACE_ID_ARGS)
);

#define XCMA_ID_EVENT(name)						\
	DEFINE_EVENT(xcma_id_class, cm_##name,				\
		     TP_PROTO(const struct xcma_id *xid), TP_ARGS(xid))

XCMA_ID_EVENT(send_rtu);
XCMA_ID_EVENT(send_rej);
XCMA_ID_EVENT(send_mra);
XCMA_ID_EVENT(disconnect);
XCMA_ID_EVENT(sent_dreq);
XCMA_ID_EVENT(sent_drep);
XCMA_ID_EVENT(id_destroy);
XCMA_ID_EVENT(send_sidr_req);
XCMA_ID_EVENT(send_sidr_rep);

/* REQ and REP also name the QP they connect */
DECLARE_EVENT_CLASS(xcma_qp_class,
	TP_PROTO(const struct xcma_id *xid),
	TP_ARGS(xid),
	TP_STRUCT__entry(
		XCMA_TRACE_ID_ENTRY
		__field(u32, qp_num)
	),
	TP_fast_assign(
		XCMA_TRACE_ID_ASSIGN(xid);
		__entry->qp_num = READ_ONCE(xid->qp_num);
	),
	TP_printk(XCMA_TRACE_ID_FMT " qp_num=%u", XCMA_TRACE_ID_ARGS,
		  __entry->qp_num)
);

#define XCMA_QP_EVENT(name)						\
	DEFINE_EVENT(xcma_qp_class, cm_##name,				\
		     TP_PROTO(const struct xcma_id *xid), TP_ARGS(xid))

XCMA_QP_EVENT(send_req);
XCMA_QP_EVENT(send_rep);
XCMA_QP_EVENT(qp_destroy);

TRACE_EVENT(cm_id_attach,
	TP_PROTO(const struct xcma_id *xid, const struct ib_device *ibdev),
	TP_ARGS(xid, ibdev),
	TP_STRUCT__entry(
		__field(u32, cm_id)
		__array(unsigned char, srcaddr, XCMA_TRACE_ADDR_LEN)
		__array(unsigned char, dstaddr, XCMA_TRACE_ADDR_LEN)
		__array(char, devname, IB_DEVICE_NAME_MAX)
	),
	TP_fast_assign(
		__entry->cm_id = xid->num;
		memcpy(__entry->srcaddr, &xid->id.route.addr.src_addr,
		       XCMA_TRACE_ADDR_LEN);
		memcpy(__entry->dstaddr, &xid->id.route.addr.dst_addr,
		       XCMA_TRACE_ADDR_LEN);
		strscpy(__entry->devname, ibdev->name, IB_DEVICE_NAME_MAX);
	),
	TP_printk("cm.id=%u src=%pISpc dst=%pISpc device=%s", __entry->cm_id,
		  __entry->srcaddr, __entry->dstaddr, __entry->devname)
);

TRACE_EVENT(cm_qp_create,
	TP_PROTO(const struct xcma_id *xid,
		 const struct ib_qp_init_attr *attr, u32 qp_num, int rc),
	TP_ARGS(xid, attr, qp_num, rc),
	TP_STRUCT__entry(
		XCMA_TRACE_ID_ENTRY
		__field(u32, qp_num)
		__field(u32, send_wr)
		__field(u32, recv_wr)
		__field(int, rc)
		__field(unsigned long, qp_type)
	),
	TP_fast_assign(
		XCMA_TRACE_ID_ASSIGN(xid);
		__entry->qp_num = qp_num;
		__entry->send_wr = attr->cap.max_send_wr;
		__entry->recv_wr = attr->cap.max_recv_wr;
		__entry->rc = rc;
		__entry->qp_type = attr->qp_type;
	),
	TP_printk(XCMA_TRACE_ID_FMT " qp_type=%lu qp_num=%u send_wr=%u recv_wr=%u rc=%d",
		  XCMA_TRACE_ID_ARGS, __entry->qp_type, __entry->qp_num,
		  __entry->send_wr, __entry->recv_wr, __entry->rc)
);

/* an ib_cm event for a listener (a REQ) */
TRACE_EVENT(cm_req_handler,
	TP_PROTO(const struct xcma_id *xid, int event),
	TP_ARGS(xid, event),
	TP_STRUCT__entry(
		XCMA_TRACE_ID_ENTRY
		__field(unsigned long, event)
	),
	TP_fast_assign(
		XCMA_TRACE_ID_ASSIGN(xid);
		__entry->event = event;
	),
	TP_printk(XCMA_TRACE_ID_FMT " %s (%lu)", XCMA_TRACE_ID_ARGS,
		  rdma_show_ib_cm_event(__entry->event), __entry->event)
);

/* the user's callback is about to run with @ev */
TRACE_EVENT(cm_event_handler,
	TP_PROTO(const struct xcma_id *xid, const struct rdma_cm_event *ev),
	TP_ARGS(xid, ev),
	TP_STRUCT__entry(
		XCMA_TRACE_ID_ENTRY
		__field(unsigned long, event)
		__field(int, status)
	),
	TP_fast_assign(
		XCMA_TRACE_ID_ASSIGN(xid);
		__entry->event = ev->event;
		__entry->status = ev->status;
	),
	TP_printk(XCMA_TRACE_ID_FMT " %s (%lu/%d)", XCMA_TRACE_ID_ARGS,
		  rdma_show_cm_event(__entry->event), __entry->event,
		  __entry->status)
);

/* the user's callback returned @result for @ev */
TRACE_EVENT(cm_event_done,
	TP_PROTO(const struct xcma_id *xid, const struct rdma_cm_event *ev,
		 int result),
	TP_ARGS(xid, ev, result),
	TP_STRUCT__entry(
		XCMA_TRACE_ID_ENTRY
		__field(unsigned long, event)
		__field(int, result)
	),
	TP_fast_assign(
		XCMA_TRACE_ID_ASSIGN(xid);
		__entry->event = ev->event;
		__entry->result = result;
	),
	TP_printk(XCMA_TRACE_ID_FMT " %s consumer returns %d",
		  XCMA_TRACE_ID_ARGS, rdma_show_cm_event(__entry->event),
		  __entry->result)
);

/* the ib_client */
DECLARE_EVENT_CLASS(xcma_client_class,
	TP_PROTO(const struct ib_device *ibdev),
	TP_ARGS(ibdev),
	TP_STRUCT__entry(
		__array(char, name, IB_DEVICE_NAME_MAX)
	),
	TP_fast_assign(
		strscpy(__entry->name, ibdev->name, IB_DEVICE_NAME_MAX);
	),
	TP_printk("device name=%s", __entry->name)
);

DEFINE_EVENT(xcma_client_class, cm_add_one,
	     TP_PROTO(const struct ib_device *ibdev), TP_ARGS(ibdev));
DEFINE_EVENT(xcma_client_class, cm_remove_one,
	     TP_PROTO(const struct ib_device *ibdev), TP_ARGS(ibdev));

#endif /* XCMA_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace

#include <trace/define_trace.h>
