/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Kernel platform of the id lifecycle library (cma/fsm/, include/xcma/
 * fsm.h): the locks, refcounts and wait queues the library asks for, and
 * the callbacks through which it asks the owner of an id to deliver an
 * event, cancel an operation, release a device or free the id.
 *
 * Usage, in order (locks in brackets are taken by the library itself):
 *   (the module's context xcma_life is statically initialised; its
 *   ids' and devices' owner is owner.c, the xcma_owner_*() below)
 *   xcma_life_dev_init(dev)                  ib_client.add [ctx lock]; on
 *                                            error dev is already removed
 *   xcma_life_id_init(id, &xcma_life)        rdma_create_id
 *   xcma_fsm_id_transition(&id->fsm, ev)     each rdma_* operation; CONNECT,
 *                                            CONNECT_UNDO and ACCEPT with
 *                                            id->handler_mutex held
 *   xcma_fsm_id_attach / _listen             when the id gets a device /
 *                                            listens [ctx lock]
 *   xcma_fsm_id_get, xcma_fsm_id_enter(.., XCMA_FSM_PUT_REF), the
 *   source's work and callback, xcma_fsm_id_leave(.., XCMA_FSM_PUT_REF)
 *                                            each event source (work item,
 *                                            ib_cm callback) [handler]
 *   xcma_fsm_id_enter_req / _leave_req       ib_cm REQ: conn freshly
 *                                            initialised
 *   xcma_fsm_id_destroy(&id->fsm)            rdma_destroy_id; ops->free
 *                                            runs before it returns
 *   xcma_life_dev_remove(dev)                ib_client.remove: notifies
 *                                            and waits; then
 *   xcma_life_dev_destroy(dev)               and free
 * No caller holds any xcma lock when calling these, except the handler
 * mutex where noted; the library never calls back with the ctx lock held
 * except xcma_owner_listen_child(), xcma_owner_report_holder() and the
 * @fn of a device walk (xcma_life_walk_devs(): device.c's only list).
 */
#ifndef XCMA_LIFECYCLE_H
#define XCMA_LIFECYCLE_H

#include <linux/completion.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>

#include "xcma/fsm.h"

struct xcma_life_id;
struct xcma_life_dev;

/*
 * What the owner of the module's ids and devices (owner.c) does when the
 * library asks; the platform calls these directly, no table between:
 *   xcma_owner_event()         run the user's callback for @cm_event (enum
 *                              rdma_cm_event_type) of an event the library
 *                              delivers itself (DEVICE_REMOVAL); handler
 *                              mutex held; returns the user's value
 *   xcma_owner_cancel()        cancel the operation pending in @state (enum
 *                              rdma_cm_state); once per id, no xcma lock
 *   xcma_owner_group_drop()    leave and release a multicast group the
 *                              library took off the id as it lets go of
 *                              its device; no xcma lock held
 *   xcma_owner_release_dev()   drop what the id holds of @dev (GID
 *                              attributes, CM ids); no xcma lock held
 *   xcma_owner_free()          the library is done with the id: free it;
 *                              no xcma lock held
 *   xcma_owner_listen_child()  allocate the per-device child of wildcard
 *                              listener @parent, xcma_life_id_init() it,
 *                              start listening on @dev, set *@child (NULL
 *                              for a device that takes no child); 0 or
 *                              -errno; ctx mutex held
 *   xcma_owner_report_holder() removal of @dev has waited a report period
 *                              for @id; ctx mutex held
 *   xcma_owner_dev_removed()   no id holds @dev any more (the last step of
 *                              xcma_life_dev_remove()): finish what the
 *                              ids deferred; no xcma lock held
 */
int xcma_owner_event(struct xcma_life_id *id, unsigned int cm_event,
		     int status);
void xcma_owner_cancel(struct xcma_life_id *id, unsigned int state);
void xcma_owner_group_drop(struct xcma_life_id *id,
			   struct xcma_fsm_link *group);
void xcma_owner_release_dev(struct xcma_life_id *id, struct xcma_life_dev *dev);
void xcma_owner_free(struct xcma_life_id *id);
int xcma_owner_listen_child(struct xcma_life_id *parent,
			    struct xcma_life_dev *dev,
			    struct xcma_life_id **child);
void xcma_owner_report_holder(struct xcma_life_dev *dev,
			      struct xcma_life_id *id);
void xcma_owner_dev_removed(struct xcma_life_dev *dev);

/**
 * struct xcma_life_id_ops - the owner of the ids of a test's own context
 *	(xcma_life_ctx_init(), the KUnit build): as the xcma_owner_*() above
 * @event: run the user's callback for @cm_event (enum rdma_cm_event_type)
 *	of an event the library delivers itself (DEVICE_REMOVAL); handler
 *	mutex held; return the user's value
 * @cancel: cancel the operation pending in @state (enum rdma_cm_state);
 *	called once per id, no xcma lock held
 * @group_drop: leave and release a multicast group the library took off
 *	the id as it lets go of its device (see xcma_fsm_id_group_add());
 *	may be NULL for owners that join none; no xcma lock held
 * @release_dev: drop what the id holds of @dev (gid attrs, cm_id); may be
 *	NULL; no xcma lock held
 * @free: the library is done with the id; free it. No xcma lock held.
 */
struct xcma_life_id_ops {
	int (*event)(struct xcma_life_id *id, unsigned int cm_event, int status);
	void (*cancel)(struct xcma_life_id *id, unsigned int state);
	void (*group_drop)(struct xcma_life_id *id, struct xcma_fsm_link *group);
	void (*release_dev)(struct xcma_life_id *id, struct xcma_life_dev *dev);
	void (*free)(struct xcma_life_id *id);
};

/**
 * struct xcma_life_ctx - one lifecycle context (the module has one; tests
 *	make their own)
 * @lock: the ctx mutex: protects @fsm's lists and every xcma_fsm_dev and
 *	xcma_fsm_id field documented as "ctx lock" in xcma/fsm.h
 * @test_ops: (the KUnit build) the owner of a test's context's ids;
 *	the module's context has none: owner.c owns its ids
 * @fsm: the library's part
 */
struct xcma_life_ctx {
	struct mutex lock; /* the ctx mutex, see above */
#ifdef XCMA_TEST_BUILD
	const struct xcma_life_id_ops *test_ops;
#endif
	struct xcma_fsm_ctx fsm;
};

/**
 * struct xcma_life_id - the kernel part of an id's lifecycle
 * @lock: the id lock: protects @fsm.state (state changes also hold
 *	@handler_mutex where the table says so)
 * @refcount: one reference from creation, dropped by destroy; one per
 *	event source in flight, per remover visit, per child listener; the
 *	destroyer waits for zero with wait_var_event()
 * @handler_mutex: serializes the user's callbacks of this id; the library
 *	sets DESTROYING and DEVICE_REMOVAL only while holding it
 * @fsm: the library's part (see xcma/fsm.h for its locking); its @ctx is
 *	the context's
 */
struct xcma_life_id {
	struct xcma_fsm_id fsm; /* first: see cma/restrack.h */
	spinlock_t lock; /* the id lock, see above */
	refcount_t refcount;
	struct mutex handler_mutex; /* serializes callbacks */
};

/**
 * struct xcma_life_dev - the kernel part of a device's lifecycle
 * @refcount: one reference for the device itself, one per attached id
 * @released: completed by the last put; the remover waits for it
 * @fsm: the library's part; its @ctx is the context's
 */
struct xcma_life_dev {
	refcount_t refcount;
	struct completion released;
	struct xcma_fsm_dev fsm;
};

/* the module's context */
extern struct xcma_life_ctx xcma_life;

#ifdef XCMA_TEST_BUILD
void xcma_life_ctx_init(struct xcma_life_ctx *ctx,
			const struct xcma_life_id_ops *test_ops);
#endif
void xcma_life_id_init(struct xcma_life_id *id, struct xcma_life_ctx *ctx);
int xcma_life_dev_init_in(struct xcma_life_dev *dev,
			  struct xcma_life_ctx *ctx);
int xcma_life_dev_init(struct xcma_life_dev *dev);
void xcma_life_dev_remove(struct xcma_life_dev *dev);
void xcma_life_dev_destroy(struct xcma_life_dev *dev);
typedef int (*xcma_life_dev_visit)(struct xcma_life_dev *dev, void *arg);
int xcma_life_walk_devs(xcma_life_dev_visit fn, void *arg);
void xcma_life_dev_query_locked(struct xcma_life_dev *dev, unsigned int *state,
				unsigned int *holders);
int xcma_life_dev_state(struct xcma_life_dev *dev);

static inline struct xcma_life_ctx *xcma_life_ctx_of(struct xcma_fsm_ctx *fsm)
{
	return container_of(fsm, struct xcma_life_ctx, fsm);
}

static inline struct xcma_life_id *xcma_life_id_of(struct xcma_fsm_id *fsm)
{
	return container_of(fsm, struct xcma_life_id, fsm);
}

static inline struct xcma_life_dev *xcma_life_dev_of(struct xcma_fsm_dev *fsm)
{
	return container_of(fsm, struct xcma_life_dev, fsm);
}

#endif /* XCMA_LIFECYCLE_H */
