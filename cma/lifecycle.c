// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Kernel platform of the id lifecycle library: the xcma_plat_*()
 * functions that include/xcma/fsm.h declares, on spinlock_t, struct mutex,
 * refcount_t and struct completion. No decision is made here: state, delivery,
 * cancel, release and free are decided by the library (cma/fsm/).
 */
#include <linux/bug.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/lockdep.h>
#include <linux/moduleparam.h>
#include <linux/printk.h>
#include <linux/sched.h>
#include <linux/wait_bit.h>

#include "export.h"
#include "lifecycle.h"

/*
 * The in-tree CM blocks in device removal without a word while consumers
 * hold ids; xcma names them. Waking up for the report also keeps the
 * remover from looking hung as long as this is below hung_task_timeout.
 */
static unsigned int removal_report_secs = 10;
module_param(removal_report_secs, uint, 0644);
MODULE_PARM_DESC(removal_report_secs,
		 "while device removal waits for ids, name them every N seconds (default 10)");

static struct xcma_life_ctx *ctx_of(struct xcma_fsm_ctx *fsm)
{
	return xcma_life_ctx_of(fsm);
}

static struct xcma_life_ctx *id_ctx(struct xcma_life_id *id)
{
	return ctx_of(id->fsm.ctx);
}

#ifdef XCMA_TEST_BUILD
/**
 * xcma_life_ctx_init - initialise a test's own lifecycle context
 * @ctx: the context
 * @test_ops: what the owner of each of its ids does
 *
 * Its devices get no wildcard listener's child (-ENOMEM) and its late
 * removals a generic report.
 */
void xcma_life_ctx_init(struct xcma_life_ctx *ctx,
			const struct xcma_life_id_ops *test_ops)
{
	mutex_init(&ctx->lock);
	ctx->test_ops = test_ops;
	xcma_fsm_ctx_init(&ctx->fsm);
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_life_ctx_init);

/* the owner of a test's context's ids; NULL: owner.c's (the module's) */
static const struct xcma_life_id_ops *test_ops(struct xcma_life_ctx *ctx)
{
	return ctx->test_ops;
}
#else
static inline const struct xcma_life_id_ops *
test_ops(struct xcma_life_ctx *ctx)
{
	return NULL;
}
#endif

/**
 * xcma_life_id_init - initialise an id (state IDLE, one reference)
 * @id: the id, embedded in its owner's structure
 * @ctx: the context it lives in, whose id_ops its owner provides
 */
void xcma_life_id_init(struct xcma_life_id *id, struct xcma_life_ctx *ctx)
{
	spin_lock_init(&id->lock);
	mutex_init(&id->handler_mutex);
	refcount_set(&id->refcount, 1);
	xcma_fsm_id_init(&id->fsm, &ctx->fsm);
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_life_id_init);

/*
 * The module's context. Statically initialised, so that ib_client.add may
 * run as soon as the client is registered.
 */
struct xcma_life_ctx xcma_life = {
	.lock = __MUTEX_INITIALIZER(xcma_life.lock),
	.fsm = {
		.devs = { &xcma_life.fsm.devs, &xcma_life.fsm.devs },
		.listeners = { &xcma_life.fsm.listeners,
			       &xcma_life.fsm.listeners },
	},
};
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_life);

/**
 * xcma_life_dev_init_in - initialise a device and add it to a context
 * @dev: the device, embedded in its owner's structure
 * @ctx: the context
 *
 * Every wildcard listener of @ctx gets a child on the device.
 *
 * Return: 0, or -ENOMEM if a child could not be created; the device is
 * then already removed again and may only be destroyed and freed.
 */
int xcma_life_dev_init_in(struct xcma_life_dev *dev,
			  struct xcma_life_ctx *ctx)
{
	refcount_set(&dev->refcount, 1);
	init_completion(&dev->released);
	xcma_fsm_dev_init(&dev->fsm, &ctx->fsm);
	return xcma_fsm_dev_add(&dev->fsm);
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_life_dev_init_in);

/**
 * xcma_life_dev_init - initialise a device of the module's context
 * @dev: the device (ib_client.add)
 *
 * Return: as xcma_life_dev_init_in().
 */
int xcma_life_dev_init(struct xcma_life_dev *dev)
{
	return xcma_life_dev_init_in(dev, &xcma_life);
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_life_dev_init);

/**
 * xcma_life_dev_remove - ib_client.remove
 * @dev: the device
 *
 * Delivers DEVICE_REMOVAL to every id bound to it (per-device children of
 * wildcard listeners go quietly) and returns once none holds it, naming
 * the late ones every removal_report_secs, and the context's dev_removed
 * has run. Sleeps; no lock held.
 */
void xcma_life_dev_remove(struct xcma_life_dev *dev)
{
	struct xcma_life_ctx *ctx = xcma_life_ctx_of(dev->fsm.ctx);

	might_sleep();
	xcma_fsm_dev_remove(&dev->fsm);
	if (ctx == &xcma_life)
		xcma_owner_dev_removed(dev);
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_life_dev_remove);

/**
 * xcma_life_dev_destroy - last step before freeing a removed device
 * @dev: the device
 */
void xcma_life_dev_destroy(struct xcma_life_dev *dev)
{
	WARN_ON(xcma_fsm_dev_state(&dev->fsm) != XCMA_DEV_REMOVED);
	WARN_ON(refcount_read(&dev->refcount) != 0);
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_life_dev_destroy);

/**
 * xcma_life_dev_state - enum xcma_dev_state of a device
 * @dev: the device
 */
int xcma_life_dev_state(struct xcma_life_dev *dev)
{
	return xcma_fsm_dev_state(&dev->fsm);
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_life_dev_state);

struct dev_walk {
	xcma_life_dev_visit fn;
	void *arg;
};

static int dev_walk_one(struct xcma_fsm_dev *fsm, void *arg)
{
	struct dev_walk *w = arg;

	return w->fn(xcma_life_dev_of(fsm), w->arg);
}

/**
 * xcma_life_walk_devs - walk the module's devices
 * @fn: called for each device ids may attach to, oldest first, with the
 *	ctx mutex held (the device stays until it returns); a non-zero
 *	return stops the walk
 * @arg: for @fn
 *
 * The module's one device list is the library's: a device is on it from
 * xcma_life_dev_init() until its removal starts.
 *
 * Return: the non-zero value that stopped the walk, or 0.
 */
int xcma_life_walk_devs(xcma_life_dev_visit fn, void *arg)
{
	struct dev_walk w = { .fn = fn, .arg = arg };

	return xcma_fsm_ctx_for_each_dev(&xcma_life.fsm, dev_walk_one, &w);
}

/**
 * xcma_life_dev_query_locked - a device's state and holders, in a walk
 * @dev: the device @fn of xcma_life_walk_devs() was given
 * @state: set to its enum xcma_dev_state
 * @holders: set to how many ids hold it
 */
void xcma_life_dev_query_locked(struct xcma_life_dev *dev, unsigned int *state,
				unsigned int *holders)
{
	lockdep_assert_held(&xcma_life_ctx_of(dev->fsm.ctx)->lock);
	xcma_fsm_dev_query_locked(&dev->fsm, state, holders);
}

/* ---- the platform ---- */

void xcma_plat_ctx_lock(struct xcma_fsm_ctx *fsm)
{
	mutex_lock(&ctx_of(fsm)->lock);
}

void xcma_plat_ctx_unlock(struct xcma_fsm_ctx *fsm)
{
	mutex_unlock(&ctx_of(fsm)->lock);
}

/*
 * Only process context takes the id lock (callers, work items, ib_cm's
 * and address resolution's callbacks, all of which may sleep): no irqsave,
 * and no flags to keep in every id.
 */
void xcma_plat_id_lock(struct xcma_fsm_id *fsm)
	__acquires(&xcma_life_id_of(fsm)->lock)
{
	spin_lock(&xcma_life_id_of(fsm)->lock);
}

void xcma_plat_id_unlock(struct xcma_fsm_id *fsm)
	__releases(&xcma_life_id_of(fsm)->lock)
{
	struct xcma_life_id *id = xcma_life_id_of(fsm);

	lockdep_assert_held(&id->lock);
	spin_unlock(&id->lock);
}

/*
 * Lockdep subclasses of the handler mutexes, which are all of one class.
 * xcma nests two itself: a new conn id's under its listener's. A consumer
 * may nest one more: it may destroy an id from the callback of another
 * (the in-tree CM allows it as well), possibly a conn id's CONNECT_REQUEST
 * callback, which runs under the listener's mutex too; the victim's mutex,
 * and those of its wildcard children, are then taken under those. xcma
 * never takes a handler mutex under a victim's, so this adds no order
 * that xcma could invert. Two ids whose callbacks destroy each other can
 * still deadlock, and lockdep no longer says so: that is an ABBA between
 * two locks of the consumer's own choosing (it holds one callback while
 * waiting for the other to end), as with any two mutexes of its own, and
 * the in-tree CM has the same contract.
 */
#define HANDLER_DESTROY_SUBCLASS (SINGLE_DEPTH_NESTING + 1)

/* the lockdep subclass of a handler mutex taken the way @nested says */
static inline int handler_subclass(struct xcma_life_id *id, int nested)
{
	/*
	 * Destroying an id from its own callback deadlocks here: leave it
	 * at subclass 0, so that lockdep still reports it.
	 */
	if (nested == XCMA_FSM_LOCK_DESTROY &&
	    !(IS_ENABLED(CONFIG_LOCKDEP) && lockdep_is_held(&id->handler_mutex)))
		return HANDLER_DESTROY_SUBCLASS;
	return nested ? SINGLE_DEPTH_NESTING : 0;
}

#ifdef XCMA_PLANT_RACE
/*
 * The KCSAN lane's self-test (Kbuild XCMA_PLANT_RACE): a flag every take
 * of a handler lock writes and reads, with no lock and no marking, often
 * enough per take (KCSAN samples one access in thousands) to be caught.
 */
static unsigned long plant_flag;
#define plant_race()					\
	do {						\
		int i;					\
		for (i = 0; i < 256; i++) {		\
			plant_flag = !plant_flag;	\
			barrier();			\
		}					\
	} while (0)
#else
#define plant_race() do { } while (0)
#endif

void xcma_plat_id_handler_lock(struct xcma_fsm_id *fsm, int nested)
{
	struct xcma_life_id *id = xcma_life_id_of(fsm);

	plant_race();
	/* without lockdep the subclass is not even evaluated */
	mutex_lock_nested(&id->handler_mutex, handler_subclass(id, nested));
}

void xcma_plat_id_handler_unlock(struct xcma_fsm_id *fsm)
{
	mutex_unlock(&xcma_life_id_of(fsm)->handler_mutex);
}

void xcma_plat_id_assert_handler_held(struct xcma_fsm_id *fsm)
{
	lockdep_assert_held(&xcma_life_id_of(fsm)->handler_mutex);
}

void xcma_plat_id_get(struct xcma_fsm_id *fsm)
{
	refcount_inc(&xcma_life_id_of(fsm)->refcount);
}

/*
 * wait_var_event() rather than a completion in every id: the wait queue
 * is a shared hashed one, and wake_up_var() uses the count's address only
 * as a key, so the destroyer may free the id as soon as it sees zero,
 * even before the last putter's wake-up.
 */
void xcma_plat_id_put(struct xcma_fsm_id *fsm)
{
	struct xcma_life_id *id = xcma_life_id_of(fsm);

	if (refcount_dec_and_test(&id->refcount)) {
		/* the zero before the waiter's queue is looked at */
		smp_mb__after_atomic();
		wake_up_var(&id->refcount);
	}
}

void xcma_plat_id_wait_unreferenced(struct xcma_fsm_id *fsm)
{
	struct xcma_life_id *id = xcma_life_id_of(fsm);

	might_sleep();
	wait_var_event(&id->refcount, !refcount_read(&id->refcount));
}

void xcma_plat_dev_get(struct xcma_fsm_dev *fsm)
{
	refcount_inc(&xcma_life_dev_of(fsm)->refcount);
}

void xcma_plat_dev_put(struct xcma_fsm_dev *fsm)
{
	struct xcma_life_dev *dev = xcma_life_dev_of(fsm);

	if (refcount_dec_and_test(&dev->refcount))
		complete(&dev->released);
}

/*
 * A completion rather than wait_event_timeout() on the count: the remover
 * frees the device once its wait returns, which a waker still inside
 * wake_up() would outlive.
 */
void xcma_plat_dev_wait_released(struct xcma_fsm_dev *fsm)
{
	struct xcma_life_dev *dev = xcma_life_dev_of(fsm);

	might_sleep();
	while (!wait_for_completion_timeout(&dev->released,
					    max(READ_ONCE(removal_report_secs),
						1U) * HZ))
		xcma_fsm_dev_report_holders(fsm);
}

int xcma_plat_id_event(struct xcma_fsm_id *fsm, unsigned int cm_event,
		       int status)
{
	struct xcma_life_id *id = xcma_life_id_of(fsm);
	const struct xcma_life_id_ops *t = test_ops(id_ctx(id));

	lockdep_assert_held(&id->handler_mutex);
	if (t)
		return t->event(id, cm_event, status);
	return xcma_owner_event(id, cm_event, status);
}

void xcma_plat_id_cancel(struct xcma_fsm_id *fsm, unsigned int state)
{
	struct xcma_life_id *id = xcma_life_id_of(fsm);
	const struct xcma_life_id_ops *t = test_ops(id_ctx(id));

	if (t)
		t->cancel(id, state);
	else
		xcma_owner_cancel(id, state);
}

void xcma_plat_id_group_drop(struct xcma_fsm_id *fsm,
			     struct xcma_fsm_link *group)
{
	struct xcma_life_id *id = xcma_life_id_of(fsm);
	const struct xcma_life_id_ops *t = test_ops(id_ctx(id));

	if (!t)
		xcma_owner_group_drop(id, group);
	else if (!WARN_ON_ONCE(!t->group_drop))
		t->group_drop(id, group);
}

void xcma_plat_id_release_dev(struct xcma_fsm_id *fsm,
			      struct xcma_fsm_dev *dev)
{
	struct xcma_life_id *id = xcma_life_id_of(fsm);
	const struct xcma_life_id_ops *t = test_ops(id_ctx(id));

	if (!t)
		xcma_owner_release_dev(id, xcma_life_dev_of(dev));
	else if (t->release_dev)
		t->release_dev(id, xcma_life_dev_of(dev));
}

void xcma_plat_id_free(struct xcma_fsm_id *fsm)
{
	struct xcma_life_id *id = xcma_life_id_of(fsm);
	const struct xcma_life_id_ops *t = test_ops(id_ctx(id));

	if (t)
		t->free(id);
	else
		xcma_owner_free(id);
}

int xcma_plat_listen_child(struct xcma_fsm_id *parent,
			   struct xcma_fsm_dev *dev, struct xcma_fsm_id **out)
{
	struct xcma_life_ctx *ctx = ctx_of(parent->ctx);
	struct xcma_life_id *child = NULL;
	int ret;

	lockdep_assert_held(&ctx->lock);
	/* a test's context has no wildcard listener's child */
	if (ctx != &xcma_life)
		return -ENOMEM;
	ret = xcma_owner_listen_child(xcma_life_id_of(parent),
				      xcma_life_dev_of(dev), &child);
	if (!ret && child)
		*out = &child->fsm;
	return ret;
}

void xcma_plat_dev_report_holder(struct xcma_fsm_dev *dev,
				 struct xcma_fsm_id *fsm)
{
	struct xcma_life_ctx *ctx = ctx_of(dev->ctx);
	struct xcma_life_dev *d = xcma_life_dev_of(dev);
	struct xcma_life_id *id = xcma_life_id_of(fsm);

	lockdep_assert_held(&ctx->lock);
	if (ctx == &xcma_life)
		xcma_owner_report_holder(d, id);
	else
		pr_warn("xcma: device removal waits for id %p in state %s\n",
			id, xcma_fsm_state_name(xcma_fsm_id_state(fsm)));
}

void xcma_plat_bug(const char *what)
{
	WARN(1, "%s\n", what);
}
