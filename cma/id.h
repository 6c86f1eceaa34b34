/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * An rdma_cm id as xcma keeps it: the user's struct rdma_cm_id, its
 * lifecycle (cma/lifecycle.h), its port binding (cma/port.h) and what the
 * CM needs to drive ib_cm. See id.c.
 */
#ifndef XCMA_ID_H
#define XCMA_ID_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <rdma/ib_cm.h>
#include <rdma/iw_cm.h>
#include <rdma/rdma_cm.h>

#include "lifecycle.h"
#include "neigh.h"
#include "port.h"
#include "restrack.h"

struct xcma_device;
struct xcma_sa_route;

/*
 * What the in-tree CM returns for a transport it cannot drive (an id on
 * a port with neither ib_cm nor iw_cm): errno 38, the "no such system
 * call" value, which checkpatch rightly keeps out of new code; xcma keeps
 * the number because consumers see it.
 */
#define XCMA_ENOTRANSPORT 38

/* the in-tree CM's ib_cm settings, kept so that timeouts behave the same */
#define XCMA_CM_RESPONSE_TIMEOUT 20
#define XCMA_MAX_CM_RETRIES 15
#define XCMA_CM_MRA_SETTING (IB_CM_MRA_FLAG_DELAY | 24)
#define XCMA_IBOE_PACKET_LIFETIME 16

/**
 * struct xcma_id - an id
 * @id: what the user sees; @id.route and @id.device are written by the
 *	operation the state machine let through (one at a time: the table
 *	refuses a second operation until the first one's notification), so
 *	they need no lock of their own
 * @life: lifecycle (see lifecycle.h for its locks)
 * @bind: port binding (see port.h for its lock)
 * @cm_id: the ib_cm connection; written under @life.handler_mutex by
 *	connect, by a REQ's CONNECT_REQUEST and by a destroy-by-return from an
 *	ib_cm callback, and cleared without it by the release of the device,
 *	when no callback of the id can run any more; read by the ib_cm
 *	callbacks, which ib_cm serializes
 * @listen_cm_id: the ib_cm listen of a listener on a device (listen_lock)
 * @work: the completion of a resolution that needs no query: a route over
 *	RoCE, or an address for a loopback or wildcard destination; the two
 *	never wait at once (a route needs the address resolved first)
 * @qp_mutex: protects @id.qp and the QP options below
 * @num: sequence number of the id since load, for trace events
 * @seq_num: starting PSN, random, constant
 * @qp_num: the QP number to connect with (@qp_mutex)
 * @srq: the QP uses an SRQ (@qp_mutex)
 * @tos: type of service (@qp_mutex)
 * @tos_set: @tos was set (@qp_mutex)
 * @timeout: ack timeout (@qp_mutex)
 * @timeout_set: @timeout was set (@qp_mutex)
 * @min_rnr_timer: RNR NAK timer (@qp_mutex)
 * @min_rnr_timer_set: @min_rnr_timer was set (@qp_mutex)
 * @afonly_set: the user called rdma_set_afonly (constant once bound)
 * @used_resolve_ip: an address resolution was started once, so a new one
 *	must cancel it first (written by resolve_addr only)
 * @work_event: what @work delivers (XCMA_EV_ADDR_RESOLVED or
 *	XCMA_EV_ROUTE_RESOLVED), written before it is queued
 * @ece: ECE values for REQ/REP (written before connect/accept)
 * @res: the id's entry in ib_core's resource tracking (rdma res show
 *	cm_id): the owning process (user ids) or the creating module's
 *	KBUILD_MODNAME (kernel ids), set at creation and constant; tracked
 *	from the attach to a device until the device is released (see
 *	id.c)
 * @qkey: the QKEY of a UD id, 0 until known: the user's (rdma_accept())
 *	or the peer's (its SIDR REP), taken only while 0 or equal (cmpxchg);
 *	rdma_init_qp_attr() writes the port space's default over it, as
 *	in-tree (see ud.c)
 * @neigh: the id's entry in the index of ids by neighbour (see neigh.h),
 *	allocated by its first RoCE route resolution and freed with the id;
 *	its UNREACHABLE work item is @id.net_work, the field the in-tree CM
 *	keeps for it
 * @neigh_closed: the id left that index for good (destroy or device
 *	removal) and never enters it again (neigh.c's index lock)
 * @iw_id: the iw_cm connection of an id on an iWARP port, kept as @cm_id
 *	is (see iw.c)
 * @iw_listen_id: the iw_cm listen of a listener on an iWARP device
 *	(listen_lock, as @listen_cm_id)
 * @backlog: rdma_listen()'s backlog, for iw_cm (written before the id
 *	listens, constant while it does)
 * @sa: the SA path record query of an id on an IB port, allocated by its
 *	first rdma_resolve_route() and kept until the id is freed (see sa.c)
 */
struct xcma_id {
	/*
	 * The in-tree private id's layout where ib_core reads it (see
	 * restrack.h): four overlapping views of the same bytes, each
	 * asserted below not to reach into the next one's field.
	 */
	union {
		struct {
			struct rdma_cm_id id;
			/* no lock up to the in-tree state: same size everywhere */
			struct xcma_port_binding bind;
			struct xcma_neigh_entry *neigh;
			struct xcma_sa_route *sa;
			struct ib_cm_id *cm_id;
			struct ib_cm_id *listen_cm_id;
			u32 num;
			u32 seq_num;
			bool srq;
			u8 tos;
			bool tos_set;
			u8 timeout;
			bool timeout_set;
			u8 min_rnr_timer;
			bool min_rnr_timer_set;
			bool afonly_set;
			bool used_resolve_ip;
			u8 work_event;
			bool neigh_closed;
			int backlog;
			/* its fsm.state is the in-tree state */
			struct xcma_life_id life;
			struct rdma_ucm_ece ece;
		};
		struct {
			u8 before_qp_num[XCMA_INTREE_OFF(qp_num)];
			u32 qp_num;
		};
		struct {
			/* in-tree private fields ib_core never reads */
			u8 before_qkey[XCMA_INTREE_OFF(qp_num) + sizeof(u32)];
			u32 qkey;
			struct iw_cm_id *iw_id;
			struct iw_cm_id *iw_listen_id;
		};
		struct {
			u8 before_res[XCMA_INTREE_OFF(res)];
			struct rdma_restrack_entry res;
		};
	};
	struct work_struct work;
	struct mutex qp_mutex; /* see above */
#if IS_ENABLED(CONFIG_KUNIT)
	/* on kunit_ids if a consumer created it (protected by kunit_ids_lock) */
	struct list_head kunit_node;
#endif
};

/* every offset ib_core depends on, on the target being built for */
static_assert(offsetof(struct xcma_id, id) == XCMA_INTREE_OFF(id));
static_assert(offsetof(struct xcma_id, life.fsm.state) ==
	      XCMA_INTREE_OFF(state));
static_assert(sizeof(((struct xcma_id *)0)->life.fsm.state) ==
	      sizeof(((struct xcma_intree_id *)0)->state));
static_assert(offsetof(struct xcma_id, qp_num) == XCMA_INTREE_OFF(qp_num));
static_assert(offsetof(struct xcma_id, res) == XCMA_INTREE_OFF(res));
/*
 * the views do not overlap: the first ends before qp_num, qp_num before
 * qkey, the iw_cm ids before res
 */
static_assert(offsetofend(struct xcma_id, ece) <= XCMA_INTREE_OFF(qp_num));
static_assert(XCMA_INTREE_OFF(qp_num) + sizeof(u32) <= XCMA_INTREE_OFF(res));
static_assert(offsetof(struct xcma_id, qkey) >= XCMA_INTREE_OFF(qp_num) +
	      sizeof(u32));
static_assert(offsetofend(struct xcma_id, iw_listen_id) <=
	      XCMA_INTREE_OFF(res));

static inline struct xcma_id *xcma_id_of(struct rdma_cm_id *id)
{
	return container_of(id, struct xcma_id, id);
}

static inline struct xcma_id *xcma_id_of_life(struct xcma_life_id *life)
{
	return container_of(life, struct xcma_id, life);
}

static inline struct sockaddr *xcma_id_src(struct xcma_id *xid)
{
	return (struct sockaddr *)&xid->id.route.addr.src_addr;
}

static inline struct sockaddr *xcma_id_dst(struct xcma_id *xid)
{
	return (struct sockaddr *)&xid->id.route.addr.dst_addr;
}

/* who owns the id, for reports: its process or its module */
static inline const char *xcma_id_owner(struct xcma_id *xid)
{
	if (xid->res.task)
		return xid->res.task->comm;
	return xid->res.kern_name ?: "?";
}

static inline unsigned int xcma_id_state(struct xcma_id *xid)
{
	return xcma_fsm_id_state(&xid->life.fsm);
}

void xcma_id_free(struct xcma_id *xid);
struct xcma_id *xcma_id_alloc(struct net *net, rdma_cm_event_handler handler,
			      void *context, enum rdma_ucm_port_space ps,
			      enum ib_qp_type qp_type, struct xcma_id *parent,
			      const char *caller);
void xcma_id_mark_callbacks(void);
bool xcma_id_in_callback(void);
int xcma_id_call_user(struct xcma_id *xid, struct rdma_cm_event *ev);
int xcma_id_leave_cb(struct xcma_id *xid, int ret);
int xcma_id_deliver(struct xcma_id *xid, unsigned int fsm_event,
		    struct rdma_cm_event *ev);
int xcma_id_transition(struct xcma_id *xid, unsigned int fsm_event);
void xcma_id_detach(struct xcma_id *xid);
void xcma_id_track(struct xcma_id *xid);
void xcma_id_track_locked(struct xcma_id *xid);
void xcma_id_track_conn(struct xcma_id *conn, struct xcma_id *listener);
void xcma_id_free_unused(struct xcma_id *xid);
unsigned int xcma_id_live(void);
unsigned int xcma_id_last_num(void);
int xcma_id_sweep(unsigned int after);
int xcma_id_cache_init(void);
void xcma_id_cache_exit(void);
int xcma_id_module_refs(void);

#endif /* XCMA_ID_H */
