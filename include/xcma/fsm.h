/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The plain-C boundary of the id lifecycle library (cma/fsm/, C++).
 *
 * Included by the kernel C side (cma/lifecycle.c and its users) and by the
 * freestanding C++ library, so it includes nothing and uses only C types.
 *
 * Objects are owned by C: the C side embeds struct xcma_fsm_id and struct
 * xcma_fsm_dev in its own structures next to its kernel locks, wait queues
 * and refcounts, and implements the xcma_plat_*() functions below with
 * container_of(). The library makes every decision (state, who delivers an
 * event, who cancels an operation, who releases the device, when an id may
 * be freed); the platform only performs what it is asked.
 *
 * Locks, outermost first (the library never takes them in another order):
 *   handler lock of a listener   (mutex, per id)
 *   handler lock of an id        (mutex, per id; nested under a listener's)
 *   ctx lock                     (mutex, global: device and listener lists)
 *   id lock                      (spinlock, per id: state)
 * The id lock is a leaf.
 */
#ifndef XCMA_FSM_H
#define XCMA_FSM_H

#ifdef __cplusplus
extern "C" {
#endif

#define XCMA_MUST_CHECK __attribute__((__warn_unused_result__))

/* errno values, equal to Linux's; the library returns them negated */
#define XCMA_ENOMEM 12
#define XCMA_EBUSY 16
#define XCMA_ENODEV 19
#define XCMA_EINVAL 22
#define XCMA_ECONNABORTED 103

/* Id states; the values are those of the kernel's enum rdma_cm_state. */
enum xcma_fsm_state {
	XCMA_FSM_IDLE = 0,
	XCMA_FSM_ADDR_QUERY = 1,
	XCMA_FSM_ADDR_RESOLVED = 2,
	XCMA_FSM_ROUTE_QUERY = 3,
	XCMA_FSM_ROUTE_RESOLVED = 4,
	XCMA_FSM_CONNECT = 5,
	XCMA_FSM_DISCONNECT = 6,
	XCMA_FSM_ADDR_BOUND = 7,
	XCMA_FSM_LISTEN = 8,
	XCMA_FSM_DEVICE_REMOVAL = 9,
	XCMA_FSM_DESTROYING = 10,
	XCMA_FSM_NR_STATES = 11,
	/* "no state": e.g. no operation left to cancel */
	XCMA_FSM_NO_STATE = 0xff,
};

/*
 * User-visible event numbers, equal to the kernel's
 * enum rdma_cm_event_type; xcma_plat_id_event() receives these.
 */
enum xcma_cm_event {
	XCMA_CM_EVENT_ADDR_RESOLVED = 0,
	XCMA_CM_EVENT_ADDR_ERROR = 1,
	XCMA_CM_EVENT_ROUTE_RESOLVED = 2,
	XCMA_CM_EVENT_ROUTE_ERROR = 3,
	XCMA_CM_EVENT_CONNECT_REQUEST = 4,
	XCMA_CM_EVENT_CONNECT_RESPONSE = 5,
	XCMA_CM_EVENT_CONNECT_ERROR = 6,
	XCMA_CM_EVENT_UNREACHABLE = 7,
	XCMA_CM_EVENT_REJECTED = 8,
	XCMA_CM_EVENT_ESTABLISHED = 9,
	XCMA_CM_EVENT_DISCONNECTED = 10,
	XCMA_CM_EVENT_DEVICE_REMOVAL = 11,
	XCMA_CM_EVENT_MULTICAST_JOIN = 12,
	XCMA_CM_EVENT_MULTICAST_ERROR = 13,
	XCMA_CM_EVENT_ADDR_CHANGE = 14,
	XCMA_CM_EVENT_TIMEWAIT_EXIT = 15,
	XCMA_CM_EVENT_NONE = 0xff,
};

/*
 * Everything that moves an id. Three kinds (see the table in
 * cma/fsm/table.cpp):
 *  - operations, asked for by the C side with xcma_fsm_id_transition();
 *    a refusal is returned as the errno the in-tree CM returns;
 *  - notifications, delivered to the user with xcma_fsm_id_deliver();
 *    a refusal means the event is dropped, as the in-tree CM does;
 *  - lifecycle events (connect request on a new id, device removal,
 *    destroy), applied only by the library's own protocol functions.
 * The *_UNDO operations are the in-tree CM's cma_comp_exch() rollbacks
 * on error paths.
 */
enum xcma_fsm_event {
	/* operations */
	XCMA_EV_BIND,
	XCMA_EV_BIND_UNDO,
	XCMA_EV_RESOLVE_ADDR,
	XCMA_EV_RESOLVE_ADDR_UNDO,
	XCMA_EV_RESOLVE_ROUTE,
	XCMA_EV_RESOLVE_ROUTE_UNDO,
	XCMA_EV_SET_IB_PATH,
	XCMA_EV_SET_IB_PATH_UNDO,
	XCMA_EV_CONNECT,
	XCMA_EV_CONNECT_UNDO,
	XCMA_EV_LISTEN,
	XCMA_EV_LISTEN_UNDO,
	XCMA_EV_ACCEPT,
	XCMA_EV_REJECT,
	XCMA_EV_DISCONNECT,
	XCMA_EV_REQ_ON_LISTENER,
	XCMA_EV_SEND_MRA,
	XCMA_EV_SET_REUSEADDR,
	XCMA_EV_CLEAR_REUSEADDR,
	XCMA_EV_SET_AFONLY,
	XCMA_EV_JOIN_MULTICAST,
	/* notifications */
	XCMA_EV_ADDR_RESOLVED,
	XCMA_EV_ADDR_ERROR,
	XCMA_EV_ROUTE_RESOLVED,
	XCMA_EV_ROUTE_ERROR,
	XCMA_EV_REP_RECEIVED,
	XCMA_EV_CONNECT_RESPONSE,
	XCMA_EV_CONNECT_ERROR,
	XCMA_EV_UNREACHABLE,
	XCMA_EV_REJECTED,
	XCMA_EV_ESTABLISHED,
	XCMA_EV_DISCONNECTED,
	XCMA_EV_TIMEWAIT_EXIT,
	XCMA_EV_ADDR_CHANGE,
	XCMA_EV_MULTICAST_JOIN,
	XCMA_EV_MULTICAST_ERROR,
	XCMA_EV_UD_ADDR_ERROR,
	XCMA_EV_NEIGH_UNREACHABLE,
	XCMA_EV_IW_CLOSE,
	/* lifecycle */
	XCMA_EV_CONNECT_REQUEST,
	XCMA_EV_DEVICE_REMOVAL,
	XCMA_EV_DESTROY,
	XCMA_EV_NR_EVENTS,
};

enum xcma_fsm_event_kind {
	XCMA_EVK_OPERATION,
	XCMA_EVK_NOTIFICATION,
	XCMA_EVK_LIFECYCLE,
};

/* Device states, as xcma_fsm_dev_state() reports them. */
enum xcma_dev_state {
	XCMA_DEV_NEW = 0, /* initialised, not added */
	XCMA_DEV_ACTIVE = 1, /* added: ids may attach */
	XCMA_DEV_REMOVING = 2, /* removal started: no new id attaches */
	XCMA_DEV_REMOVED = 3, /* removal returned: no id holds it */
};

/* A doubly linked list node / head; empty when it points to itself. */
struct xcma_fsm_link {
	struct xcma_fsm_link *next;
	struct xcma_fsm_link *prev;
};

/**
 * struct xcma_fsm_ctx - the library's global lists (one per module)
 * @devs: devices added and not being removed (ctx lock)
 * @listeners: wildcard listeners, i.e. listening ids bound to no device
 *	(ctx lock)
 */
struct xcma_fsm_ctx {
	struct xcma_fsm_link devs;
	struct xcma_fsm_link listeners;
};

/**
 * struct xcma_fsm_dev - the library's part of a device
 * @ctx: the context, constant
 * @ctx_item: on @ctx->devs while added (ctx lock)
 * @ids: ids attached to this device that removal has not visited yet,
 *	until they release it (ctx lock)
 * @visited: ids removal has acted on (notified, claimed, or found being
 *	destroyed) that still hold the device: off @ids so that removal is
 *	linear, still listed so that the stuck-removal report names them
 *	(ctx lock)
 * @state: enum xcma_dev_state (ctx lock); no id attaches unless ACTIVE
 *
 * The C container also provides a refcount (initialised to 1 before
 * xcma_fsm_dev_init()) and what the remover waits on.
 */
struct xcma_fsm_dev {
	struct xcma_fsm_ctx *ctx;
	struct xcma_fsm_link ctx_item;
	struct xcma_fsm_link ids;
	struct xcma_fsm_link visited;
	unsigned int state;
};

/* struct xcma_fsm_id.flags */
#define XCMA_FSM_F_INTERNAL 0x1 /* per-device child of a wildcard listener */
#define XCMA_FSM_F_WILDCARD 0x2 /* registered on ctx->listeners */

/**
 * struct xcma_fsm_id - the library's part of an id
 * @flags: XCMA_FSM_F_* (ctx lock)
 * @state: enum xcma_fsm_state (id lock; and handler lock, except for the
 *	operations the table marks as not needing it); 4 bytes into the
 *	struct, where the kernel side needs it (cma/restrack.h)
 * @ctx: the context, constant
 * @dev: device the id holds, or NULL (ctx lock)
 * @dev_item: on @dev->ids or @dev->visited while @dev is set (ctx lock)
 * @parent: wildcard listener of an internal child, constant
 * @children: internal children of a wildcard listener (ctx lock)
 * @child_item: on @parent->children until claimed for destruction by the
 *	parent's destroy or by device removal (ctx lock)
 * @listen_item: on @ctx->listeners while XCMA_FSM_F_WILDCARD (ctx lock)
 * @groups: multicast groups joined and not left yet (id lock); linked only
 *	while @dev is set, emptied by the release of @dev, so each group is
 *	taken off exactly once, by its leave or by that release
 *
 * The C container also provides a refcount (initialised to 1 before
 * xcma_fsm_id_init()), the id lock, the handler lock and what the
 * destroyer waits on.
 */
struct xcma_fsm_id {
	unsigned int flags;
	unsigned int state;
	struct xcma_fsm_ctx *ctx;
	struct xcma_fsm_dev *dev;
	struct xcma_fsm_link dev_item;
	struct xcma_fsm_id *parent;
	struct xcma_fsm_link children;
	struct xcma_fsm_link child_item;
	struct xcma_fsm_link listen_item;
	struct xcma_fsm_link groups;
};

/* xcma_fsm_id_deliver() and xcma_fsm_id_leave() results (>= 0) */
#define XCMA_FSM_DELIVERED 0 /* the user's callback ran and returned 0 */
#define XCMA_FSM_DROPPED 1 /* refused in this state, nobody was called */
#define XCMA_FSM_DESTROYED 2 /* callback returned non-zero: id destroyed */

/* xcma_fsm_id_enter(), _leave() and _deliver() flags */
#define XCMA_FSM_PUT_REF 0x1 /* consume a reference the caller holds */

/* ---- library entry points, called by the C side ---- */

/* The table: 0 and *next if @event is allowed in @state, else -errno. */
XCMA_MUST_CHECK int xcma_fsm_rule(unsigned int state, unsigned int event,
				  unsigned int *next);
unsigned int xcma_fsm_event_kind(unsigned int event);
unsigned int xcma_fsm_event_cm_event(unsigned int event);
const char *xcma_fsm_state_name(unsigned int state);
const char *xcma_fsm_event_name(unsigned int event);

void xcma_fsm_ctx_init(struct xcma_fsm_ctx *ctx);
/* nonzero when no device and no wildcard listener is left */
XCMA_MUST_CHECK int xcma_fsm_ctx_idle(struct xcma_fsm_ctx *ctx);

void xcma_fsm_id_init(struct xcma_fsm_id *id, struct xcma_fsm_ctx *ctx);
unsigned int xcma_fsm_id_state(struct xcma_fsm_id *id);
XCMA_MUST_CHECK int xcma_fsm_id_transition(struct xcma_fsm_id *id,
					   unsigned int event);
XCMA_MUST_CHECK int xcma_fsm_id_attach(struct xcma_fsm_id *id,
				       struct xcma_fsm_dev *dev);
XCMA_MUST_CHECK int xcma_fsm_id_listen(struct xcma_fsm_id *id);
void xcma_fsm_id_get(struct xcma_fsm_id *id);
void xcma_fsm_id_put(struct xcma_fsm_id *id);
/* the id lets go of its device (an operation's error path) */
void xcma_fsm_id_detach(struct xcma_fsm_id *id);
/*
 * Event delivery, by the event source, which builds the event itself:
 *   xcma_fsm_id_enter()   handler lock taken, the notification applied;
 *                         refused: -errno, nothing held (dropped)
 *   xcma_fsm_id_fire()    (optional) a further notification, decided by
 *                         work done under the handler lock (a REP)
 *   ... the work before the user hears of it, the user's callback ...
 *   xcma_fsm_id_leave()   unlock; or destroy if the callback returned
 *                         non-zero
 * With XCMA_FSM_PUT_REF the source's reference on the id is dropped by a
 * refused enter or by leave (before a destroy, which waits for it).
 */
XCMA_MUST_CHECK int xcma_fsm_id_enter(struct xcma_fsm_id *id,
				      unsigned int event, unsigned int flags);
XCMA_MUST_CHECK int xcma_fsm_id_fire(struct xcma_fsm_id *id,
				     unsigned int event);
int xcma_fsm_id_leave(struct xcma_fsm_id *id, int user_ret,
		      unsigned int flags);
/*
 * The same for a connect request on @listener creating @conn (initialised,
 * known to nobody else): on success both handler locks are held and @conn
 * is attached to the listener's device in CONNECT; on failure @conn is
 * destroyed and freed through the platform.
 */
XCMA_MUST_CHECK int xcma_fsm_id_enter_req(struct xcma_fsm_id *listener,
					  struct xcma_fsm_id *conn);
int xcma_fsm_id_leave_req(struct xcma_fsm_id *listener,
			  struct xcma_fsm_id *conn, int user_ret);
/* enter, xcma_plat_id_event(), leave: an event without a payload */
XCMA_MUST_CHECK int xcma_fsm_id_deliver(struct xcma_fsm_id *id,
					unsigned int event, int status,
					unsigned int flags);
XCMA_MUST_CHECK int xcma_fsm_id_deliver_req(struct xcma_fsm_id *listener,
					    struct xcma_fsm_id *conn,
					    int status);
XCMA_MUST_CHECK int xcma_fsm_id_destroy(struct xcma_fsm_id *id);
/*
 * Multicast groups of an id (the C side owns their memory, the library
 * their membership of the id):
 *   xcma_fsm_id_group_add()   rdma_join_multicast(): links @group if the
 *                             table allows a join and the id holds a
 *                             device; else -errno, nothing linked
 *   xcma_fsm_id_group_take()  rdma_leave_multicast(): unlinks and returns
 *                             the newest group @match accepts, or NULL
 *                             (an address joined twice: the last join,
 *                             as in-tree)
 *   xcma_plat_id_group_drop() called for each group still linked when the
 *                             id lets go of its device (destroy, an error
 *                             path), before xcma_plat_id_release_dev()
 * A group reaches its owner exactly once: from take or from drop.
 */
XCMA_MUST_CHECK int xcma_fsm_id_group_add(struct xcma_fsm_id *id,
					  struct xcma_fsm_link *group);
struct xcma_fsm_link *
xcma_fsm_id_group_take(struct xcma_fsm_id *id,
		       int (*match)(struct xcma_fsm_link *group,
				    const void *arg),
		       const void *arg);

void xcma_fsm_dev_init(struct xcma_fsm_dev *dev, struct xcma_fsm_ctx *ctx);
XCMA_MUST_CHECK int xcma_fsm_dev_add(struct xcma_fsm_dev *dev);
void xcma_fsm_dev_remove(struct xcma_fsm_dev *dev);
unsigned int xcma_fsm_dev_state(struct xcma_fsm_dev *dev);
const char *xcma_fsm_dev_state_name(unsigned int state);
/* @fn for each id on a device not being removed (ctx lock held) */
typedef int (*xcma_fsm_id_visit)(struct xcma_fsm_id *id, void *arg);
int xcma_fsm_ctx_for_each_id(struct xcma_fsm_ctx *ctx, xcma_fsm_id_visit fn,
			     void *arg);
/*
 * The device list. @fn runs for each device ids may attach to (added, its
 * removal not started), oldest first, with the ctx lock held: it may read
 * the device (xcma_fsm_dev_query_locked()) and attach an id to it
 * (xcma_fsm_id_attach_locked()). A non-zero return stops the walk.
 */
typedef int (*xcma_fsm_dev_visit)(struct xcma_fsm_dev *dev, void *arg);
int xcma_fsm_ctx_for_each_dev(struct xcma_fsm_ctx *ctx, xcma_fsm_dev_visit fn,
			      void *arg);
XCMA_MUST_CHECK int xcma_fsm_id_attach_locked(struct xcma_fsm_id *id,
					      struct xcma_fsm_dev *dev);
void xcma_fsm_dev_query_locked(struct xcma_fsm_dev *dev, unsigned int *state,
			       unsigned int *holders);
/* ids attached to @dev, i.e. that removal would wait for */
unsigned int xcma_fsm_dev_holders(struct xcma_fsm_dev *dev);
/* xcma_plat_dev_report_holder() for each of them (removal is late) */
void xcma_fsm_dev_report_holders(struct xcma_fsm_dev *dev);

/* ---- platform, implemented by the C side (or a test harness) ---- */

void xcma_plat_ctx_lock(struct xcma_fsm_ctx *ctx);
void xcma_plat_ctx_unlock(struct xcma_fsm_ctx *ctx);

void xcma_plat_id_lock(struct xcma_fsm_id *id);
void xcma_plat_id_unlock(struct xcma_fsm_id *id);
/*
 * @nested: 0; 1 for a conn id's handler lock taken under its listener's;
 * XCMA_FSM_LOCK_DESTROY to destroy the id, where the caller may hold the
 * handler lock of another id (a consumer destroying an id from the
 * callback of another one). Only lock validation tells them apart.
 */
#define XCMA_FSM_LOCK_DESTROY 2
void xcma_plat_id_handler_lock(struct xcma_fsm_id *id, int nested);
void xcma_plat_id_handler_unlock(struct xcma_fsm_id *id);
/*
 * The caller must hold the handler lock (a needs-handler operation, a
 * delivery in progress): assert it where the platform can (lockdep); the
 * result never depends on it, as in-tree.
 */
void xcma_plat_id_assert_handler_held(struct xcma_fsm_id *id);

/*
 * References. The platform counts them (refcount_t in the kernel) and
 * lets the waiter go once the last one is dropped (a struct completion):
 * the waiter may free the object as soon as its wait returns.
 */
void xcma_plat_id_get(struct xcma_fsm_id *id);
void xcma_plat_id_put(struct xcma_fsm_id *id);
/* the destroyer sleeps until every reference is dropped; no lock held */
void xcma_plat_id_wait_unreferenced(struct xcma_fsm_id *id);

void xcma_plat_dev_get(struct xcma_fsm_dev *dev);
void xcma_plat_dev_put(struct xcma_fsm_dev *dev);
/*
 * The remover sleeps until every reference is dropped, calling
 * xcma_fsm_dev_report_holders() every report period meanwhile; no lock
 * held.
 */
void xcma_plat_dev_wait_released(struct xcma_fsm_dev *dev);

/*
 * Run the user's callback for an event the library itself delivers
 * (DEVICE_REMOVAL, xcma_fsm_id_deliver()); handler lock held. Returns the
 * user's value.
 */
int xcma_plat_id_event(struct xcma_fsm_id *id, unsigned int cm_event,
		       int status);
/* Cancel the operation pending in @state; once per id, no lock held. */
void xcma_plat_id_cancel(struct xcma_fsm_id *id, unsigned int state);
/* @group, unlinked from @id, is left and released; no lock held. */
void xcma_plat_id_group_drop(struct xcma_fsm_id *id,
			     struct xcma_fsm_link *group);
/* The id lets go of @dev (gid attrs etc.); no lock held. */
void xcma_plat_id_release_dev(struct xcma_fsm_id *id,
			      struct xcma_fsm_dev *dev);
/* The library is done with @id: free it. Once per id, no lock held. */
void xcma_plat_id_free(struct xcma_fsm_id *id);
/*
 * Create the per-device child of a wildcard listener: allocate it, have
 * xcma_fsm_id_init() run on it, start listening on @dev, set *@child;
 * or leave *@child NULL: @dev gets no child (a device the listener's
 * address family cannot listen on). Ctx lock held. Returns 0 or -errno
 * (rdma_listen() returns it).
 */
XCMA_MUST_CHECK int xcma_plat_listen_child(struct xcma_fsm_id *parent,
					   struct xcma_fsm_dev *dev,
					   struct xcma_fsm_id **child);
/* Removal of @dev is still waiting for @id; ctx lock held. */
void xcma_plat_dev_report_holder(struct xcma_fsm_dev *dev,
				 struct xcma_fsm_id *id);
/* A broken caller contract (e.g. destroy twice): WARN in the kernel. */
void xcma_plat_bug(const char *what);

#ifdef __cplusplus
}
#endif

#endif /* XCMA_FSM_H */
