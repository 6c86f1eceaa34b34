// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Ids: creation, destroy, the per-id options, and the one way the user's
 * callback is called (xcma_id_call_user()).
 *
 * An event source builds the rdma_cm_event on its stack and delivers it
 * through the lifecycle library: xcma_fsm_id_enter() (handler mutex, the
 * table), its own work before the user hears of it, xcma_id_call_user(),
 * xcma_fsm_id_leave() (unlock, or destroy on a non-zero return). Events
 * the library delivers by itself (DEVICE_REMOVAL) come through id_event().
 */
#include <linux/atomic.h>
#include <linux/export.h>
#include <linux/hash.h>
#include <linux/jump_label.h>
#include <linux/module.h>
#include <linux/nsproxy.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/list_bl.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <net/net_namespace.h>

#include "export.h"
#include "addr.h"
#include "id.h"
#include "ops.h"
#include "trace.h"
#include "wire.h"

/* numbers the ids for trace events */
static atomic_t id_nums = ATOMIC_INIT(0);

/*
 * The tasks inside a user's callback, hashed by task (a mark on the
 * callback's stack): iw.c must not destroy an iw_cm id there. Kept only
 * once an iWARP device was added (cb_marks_on, never turned off): before
 * it no iw_cm id exists, and no id on a RoCE or IB port pays for them.
 * A callback that began before the key went on is not marked; it is not
 * an iWARP id's (the device did not exist), so no iw_cm callback waits
 * for its handler mutex, which is what the deferral guards against.
 */
static DEFINE_STATIC_KEY_FALSE(cb_marks_on);
struct cb_mark {
	struct hlist_bl_node node;
	struct task_struct *task;
};

#define CB_HASH_BITS 6
static struct hlist_bl_head cb_marks[1 << CB_HASH_BITS];

static struct hlist_bl_head *cb_head(struct task_struct *task)
{
	return &cb_marks[hash_ptr(task, CB_HASH_BITS)];
}

/**
 * xcma_id_mark_callbacks - mark every user's callback from now on
 *
 * Called before the first iWARP device is visible to any id (its .add):
 * from then on xcma_id_in_callback() sees every callback.
 */
void xcma_id_mark_callbacks(void)
{
	static_branch_enable(&cb_marks_on);
}

/**
 * xcma_id_in_callback - whether the caller is inside a user's callback
 *
 * Return: true from a user's callback (of any id) and what it calls.
 */
bool xcma_id_in_callback(void)
{
	struct hlist_bl_head *head = cb_head(current);
	struct hlist_bl_node *pos;
	struct cb_mark *mark;
	bool found = false;

	hlist_bl_lock(head);
	hlist_bl_for_each_entry(mark, pos, head, node) {
		if (mark->task == current) {
			found = true;
			break;
		}
	}
	hlist_bl_unlock(head);
	return found;
}

#ifdef XCMA_PLANT_LOSE_EVENT
/*
 * The wire layer's self-test (Kbuild XCMA_PLANT_LOSE_EVENT): one
 * DISCONNECTED in 25 never reaches its owner, as if the CM had lost
 * track of that end of a connection.
 */
static atomic_t plant_disconnects = ATOMIC_INIT(0);

static bool plant_lose(const struct rdma_cm_event *ev)
{
	return ev->event == RDMA_CM_EVENT_DISCONNECTED &&
	       atomic_inc_return(&plant_disconnects) % 25 == 0;
}
#else
static bool plant_lose(const struct rdma_cm_event *ev)
{
	return false;
}
#endif

/**
 * xcma_id_call_user - run the user's callback for an event
 * @xid: the id, entered (its handler mutex held)
 * @ev: the event, as the table let it through
 *
 * Return: the user's value; non-zero asks for the id's destroy, which the
 * caller's xcma_fsm_id_leave() does.
 */
int xcma_id_call_user(struct xcma_id *xid, struct rdma_cm_event *ev)
{
	struct cb_mark mark = { .task = current };
	struct hlist_bl_head *head = NULL;
	int ret;

	lockdep_assert_held(&xid->life.handler_mutex);
	if (plant_lose(ev))
		return 0;
	trace_cm_event_handler(xid, ev);
	if (static_branch_unlikely(&cb_marks_on)) {
		head = cb_head(current);
		hlist_bl_lock(head);
		hlist_bl_add_head(&mark.node, head);
		hlist_bl_unlock(head);
	}
	ret = xid->id.event_handler(&xid->id, ev);
	if (head) {
		hlist_bl_lock(head);
		hlist_bl_del(&mark.node);
		hlist_bl_unlock(head);
	}
	trace_cm_event_done(xid, ev, ret);
	if (ret)
		trace_cm_id_destroy(xid);
	return ret;
}

/*
 * An event an id's owner found at once and reports from a work item
 * (resolve.c: a RoCE route, a loopback or wildcard address): @work_event,
 * with the reference its queuer took.
 */
static void id_work(struct work_struct *work)
{
	struct xcma_id *xid = container_of(work, struct xcma_id, work);
	struct rdma_cm_event ev = {};

	xcma_id_deliver(xid, READ_ONCE(xid->work_event), &ev);
}

/* ids allocated and not freed yet, internal ones included (KUnit) */
static atomic_t live_ids = ATOMIC_INIT(0);

/* ids cost their size, not the next kmalloc size class */
static struct kmem_cache *id_cache;

/**
 * xcma_id_cache_init - create the ids' slab cache (module init)
 *
 * Return: 0 or -ENOMEM.
 */
int xcma_id_cache_init(void)
{
	id_cache = KMEM_CACHE(xcma_id, 0);
	return id_cache ? 0 : -ENOMEM;
}

/**
 * xcma_id_cache_exit - destroy it (module exit: every id is freed, each
 *	held the module)
 */
void xcma_id_cache_exit(void)
{
	kmem_cache_destroy(id_cache);
}

#if IS_ENABLED(CONFIG_KUNIT)
/*
 * Test kernels only: the ids consumers created or were handed (conn ids),
 * so that a KUnit case that fails half-way does not leave its ids to the
 * next one (xcma_id_sweep()).
 */
static LIST_HEAD(kunit_ids);
static DEFINE_SPINLOCK(kunit_ids_lock);

static void kunit_track(struct xcma_id *xid, bool consumer)
{
	INIT_LIST_HEAD(&xid->kunit_node);
	if (!consumer)
		return;
	spin_lock(&kunit_ids_lock);
	list_add_tail(&xid->kunit_node, &kunit_ids);
	spin_unlock(&kunit_ids_lock);
}

static void kunit_untrack(struct xcma_id *xid)
{
	spin_lock(&kunit_ids_lock);
	list_del_init(&xid->kunit_node);
	spin_unlock(&kunit_ids_lock);
}

/**
 * xcma_id_sweep - destroy the consumer-created ids newer than @after
 * @after: an xcma_id_last_num() taken when a KUnit case began
 *
 * For a KUnit exit action: what a case left behind (it failed before its
 * own destroys) is destroyed here, so one failure stays one failure: the
 * ids it created and the conn ids its listeners handed to it. The case's
 * threads have ended; an id the user destroyed is no longer listed, and
 * one that a callback's return destroyed is gone by then.
 *
 * Return: how many ids were destroyed.
 */
int xcma_id_sweep(unsigned int after)
{
	struct xcma_id *xid;
	int n = 0;

	for (;;) {
		spin_lock(&kunit_ids_lock);
		list_for_each_entry_reverse(xid, &kunit_ids, kunit_node)
			if ((int)(xid->num - after) > 0)
				break;
		if (list_entry_is_head(xid, &kunit_ids, kunit_node)) {
			spin_unlock(&kunit_ids_lock);
			return n;
		}
		list_del_init(&xid->kunit_node);
		spin_unlock(&kunit_ids_lock);
		rdma_destroy_id(&xid->id);
		n++;
	}
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_id_sweep);
#else
static void kunit_track(struct xcma_id *xid, bool consumer) { }
static void kunit_untrack(struct xcma_id *xid) { }
#endif

/**
 * xcma_id_last_num - the number the newest id got (see xcma_id_sweep())
 *
 * Return: it, 0 before the first id.
 */
unsigned int xcma_id_last_num(void)
{
	return atomic_read(&id_nums);
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_id_last_num);

/**
 * xcma_id_free - free an id and what it holds of the core (owner.c's free,
 *	once the concerns have freed theirs)
 * @xid: the id, with no reference left
 */
void xcma_id_free(struct xcma_id *xid)
{
	/* an id never attached still holds its process (no-op otherwise) */
	rdma_restrack_del(&xid->res);
	kunit_untrack(xid);
	xcma_port_unbind(&xid->bind);
	kfree(xid->id.route.path_rec);
	kfree(xid->id.route.path_rec_inbound);
	kfree(xid->id.route.path_rec_outbound);
	put_net(xid->id.route.addr.dev_addr.net);
	kmem_cache_free(id_cache, xid);
	atomic_dec(&live_ids);
	/* last: the id's hold on the module (see xcma_id_alloc()) */
	module_put(THIS_MODULE);
}

/**
 * xcma_id_alloc - allocate and initialise an id (IDLE, one reference)
 * @net: its namespace (a reference is taken)
 * @handler: the user's callback
 * @context: the user's context
 * @ps: port space
 * @qp_type: QP type
 * @parent: the listener a conn id or per-device child comes from, or NULL;
 *	the caller then names the id after it (its owner) once that
 *	listener's owner cannot go away meanwhile
 * @caller: module name of the creator (KBUILD_MODNAME), or NULL for an id
 *	owned by the current process (rdma_create_user_id()); ignored with
 *	@parent
 *
 * Every id (a user's, a conn id, a wildcard listener's per-device child)
 * holds a reference on xcma.ko until it is freed: the module cannot be
 * unloaded while an id exists (G8), rmmod fails with EAGAIN. When a
 * callback's non-zero return frees the id in an event source's thread
 * (ib_cm, address resolution, route work), that thread still returns
 * through a few instructions of xcma after the put, the usual limit of a
 * module that holds references on itself.
 *
 * Return: the id, or NULL.
 */
struct xcma_id *xcma_id_alloc(struct net *net, rdma_cm_event_handler handler,
			      void *context, enum rdma_ucm_port_space ps,
			      enum ib_qp_type qp_type, struct xcma_id *parent,
			      const char *caller)
{
	struct xcma_id *xid;

	xid = kmem_cache_zalloc(id_cache, GFP_KERNEL);
	if (!xid)
		return NULL;
	atomic_inc(&live_ids);
	/* callers run in xcma with an id, or a consumer, holding the module */
	__module_get(THIS_MODULE);
	xid->id.context = context;
	xid->id.event_handler = handler;
	xid->id.ps = ps;
	xid->id.qp_type = qp_type;
	xid->id.route.addr.dev_addr.net = get_net(net);
	xcma_port_binding_init(&xid->bind, &xid->id.route.addr);
	mutex_init(&xid->qp_mutex);
	INIT_WORK(&xid->work, id_work);
	xid->num = atomic_inc_return(&id_nums);
	xid->seq_num = get_random_u32() & 0x00ffffff;
	rdma_restrack_new(&xid->res, RDMA_RESTRACK_CM_ID);
	/*
	 * with a parent the caller names it: xcma_id_track_conn() for a
	 * conn id, xcma_listen_child() for a child
	 */
	if (!parent)
		rdma_restrack_set_name(&xid->res, caller);
	xcma_life_id_init(&xid->life, &xcma_life);
	kunit_track(xid, !parent);
	return xid;
}

/**
 * xcma_id_live - how many ids are allocated
 *
 * For KUnit's leak checks: every id a test created, and every internal
 * one xcma made for it (conn ids, wildcard children), is freed again.
 *
 * Return: ids allocated by xcma_id_alloc() and not freed yet.
 */
unsigned int xcma_id_live(void)
{
	return atomic_read(&live_ids);
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_id_live);

/**
 * xcma_id_deliver - deliver an event that needs no work before the user's
 *	callback
 * @xid: the id; the caller holds a reference, which this consumes
 * @fsm_event: the notification (XCMA_EV_*); @ev's type follows from it
 * @ev: the event, built by the caller
 *
 * Return: as xcma_fsm_id_leave(), or XCMA_FSM_DROPPED if the table
 * refused it; after XCMA_FSM_DESTROYED the id is gone.
 */
int xcma_id_deliver(struct xcma_id *xid, unsigned int fsm_event,
		    struct rdma_cm_event *ev)
{
	if (xcma_fsm_id_enter(&xid->life.fsm, fsm_event, XCMA_FSM_PUT_REF))
		return XCMA_FSM_DROPPED;
	ev->event = xcma_fsm_event_cm_event(fsm_event);
	return xcma_fsm_id_leave(&xid->life.fsm, xcma_id_call_user(xid, ev),
				 XCMA_FSM_PUT_REF);
}

/**
 * xcma_id_leave_cb - leave an id entered from a CM's callback (ib_cm,
 *	iw_cm), with the user's value
 * @xid: the id, entered; the reference the callback took is put
 * @ret: the user's value; non-zero destroys the id
 *
 * The caller has already let go of the CM's id on a non-zero @ret: a CM
 * id cannot be destroyed from inside its own callback, and the CM
 * destroys it when the callback returns non-zero.
 *
 * Return: -ECONNABORTED if the id was destroyed (for the CM), else 0.
 */
int xcma_id_leave_cb(struct xcma_id *xid, int ret)
{
	lockdep_assert_held(&xid->life.handler_mutex);
	if (xcma_fsm_id_leave(&xid->life.fsm, ret, XCMA_FSM_PUT_REF) ==
	    XCMA_FSM_DESTROYED)
		return -ECONNABORTED;
	return 0;
}

/**
 * xcma_id_transition - apply an operation to an id
 * @xid: the id
 * @fsm_event: XCMA_EV_*
 *
 * Return: 0, or the in-tree CM's errno for the state (-EINVAL).
 */
int xcma_id_transition(struct xcma_id *xid, unsigned int fsm_event)
{
	return xcma_fsm_id_transition(&xid->life.fsm, fsm_event);
}

/**
 * xcma_id_detach - the id lets go of the device an operation attached it to
 * @xid: the id; the operation that attached it failed later
 *
 * The device's resources go with it (owner.c's release_dev); the consumer's
 * view of the id names no device again, as before the operation. A device
 * removal that got there first has already released them.
 */
void xcma_id_detach(struct xcma_id *xid)
{
	xcma_fsm_id_detach(&xid->life.fsm);
	xid->id.device = NULL;
	xid->id.port_num = 0;
	/*
	 * The release untracked the id (rdma_restrack_del() spent the
	 * entry's reference and, for a user id, its task): re-arm it, so
	 * that the id's next attach lists it afresh. A kernel id keeps its
	 * module's name; a user id is its caller's, as at creation.
	 */
	rdma_restrack_new(&xid->res, RDMA_RESTRACK_CM_ID);
	if (!xid->res.kern_name)
		rdma_restrack_set_name(&xid->res, NULL);
}

/**
 * xcma_id_track - list an id that got its device in ib_core's restrack
 * @xid: the id, id.device set
 *
 * As in-tree, ids appear once they have a device. The device's release
 * (destroy or removal, owner.c's release_dev) unlists it; it first clears the
 * library's device under the ctx lock, so checking that here under the
 * same lock lists an id only if its release is still to come: never an
 * entry left behind by a destroy or removal that raced the attach.
 */
void xcma_id_track(struct xcma_id *xid)
{
	mutex_lock(&xcma_life.lock);
	if (xid->life.fsm.dev)
		rdma_restrack_add(&xid->res);
	mutex_unlock(&xcma_life.lock);
}

/**
 * xcma_id_track_locked - xcma_id_track() from a device walk
 * @xid: the id, attached to a device in this hold of the ctx lock
 */
void xcma_id_track_locked(struct xcma_id *xid)
{
	lockdep_assert_held(&xcma_life.lock);
	rdma_restrack_add(&xid->res);
}

/**
 * xcma_id_track_conn - name a new conn id after its listener, and list it
 * @conn: attached by xcma_fsm_id_enter_req()
 * @listener: LISTEN, its handler lock held (by that same call)
 *
 * The conn id's owner is the listener's (its module, or its process's
 * task), read only now: a destroy or removal of the listener untracks it
 * (rdma_restrack_del() puts and clears its task) after it has taken that
 * handler lock, so the task is still there. The in-tree CM names its conn
 * id under the listener's handler mutex, after the LISTEN check, too.
 */
void xcma_id_track_conn(struct xcma_id *conn, struct xcma_id *listener)
{
	rdma_restrack_parent_name(&conn->res, &listener->res);
	xcma_id_track(conn);
	/* the user's to destroy from its CONNECT_REQUEST on */
	kunit_track(conn, true);
}

/**
 * __rdma_create_kernel_id - create an id
 * @net: network namespace
 * @event_handler: the user's callback, not NULL
 * @context: the user's context
 * @ps: port space
 * @qp_type: QP type (RC or UD)
 * @caller: the creating module's name
 *
 * Return: the id, ERR_PTR(-EINVAL) for a NULL handler or another QP type,
 * ERR_PTR(-ENOMEM).
 */
struct rdma_cm_id *
__rdma_create_kernel_id(struct net *net, rdma_cm_event_handler event_handler,
			void *context, enum rdma_ucm_port_space ps,
			enum ib_qp_type qp_type, const char *caller)
{
	struct xcma_id *xid;

	/* the in-tree CM would oops on the first event instead */
	if (!event_handler || !net)
		return ERR_PTR(-EINVAL);
	if (qp_type != IB_QPT_RC && qp_type != IB_QPT_UD)
		return ERR_PTR(-EINVAL);
	xid = xcma_id_alloc(net, event_handler, context, ps, qp_type, NULL,
			    caller);
	if (!xid)
		return ERR_PTR(-ENOMEM);
	return &xid->id;
}
EXPORT_SYMBOL(__rdma_create_kernel_id);

/**
 * rdma_create_user_id - create an id owned by the current process
 * @event_handler: the callback, not NULL
 * @context: the user's context
 * @ps: port space
 * @qp_type: QP type (RC or UD)
 *
 * For rdma_ucm: the id lives in the process's network namespace and
 * restrack names the process as its owner.
 *
 * Return: as __rdma_create_kernel_id().
 */
struct rdma_cm_id *rdma_create_user_id(rdma_cm_event_handler event_handler,
				       void *context,
				       enum rdma_ucm_port_space ps,
				       enum ib_qp_type qp_type)
{
	struct xcma_id *xid;

	if (!event_handler)
		return ERR_PTR(-EINVAL);
	if (qp_type != IB_QPT_RC && qp_type != IB_QPT_UD)
		return ERR_PTR(-EINVAL);
	xid = xcma_id_alloc(current->nsproxy->net_ns, event_handler, context,
			    ps, qp_type, NULL, NULL);
	if (!xid)
		return ERR_PTR(-ENOMEM);
	return &xid->id;
}
EXPORT_SYMBOL(rdma_create_user_id);

/**
 * rdma_res_to_id - the id of a restrack entry
 * @res: an entry of type RDMA_RESTRACK_CM_ID
 *
 * Return: the id that embeds it.
 */
struct rdma_cm_id *rdma_res_to_id(struct rdma_restrack_entry *res)
{
	return &container_of(res, struct xcma_id, res)->id;
}
EXPORT_SYMBOL(rdma_res_to_id);

/**
 * rdma_iw_cm_id - the iw_cm id of an iWARP id
 * @id: the id
 *
 * Return: the connection's iw_cm id, or a listener's; NULL on another
 * transport (an RNIC is the only node type with one) or without either.
 */
struct iw_cm_id *rdma_iw_cm_id(struct rdma_cm_id *id)
{
	struct xcma_id *xid = xcma_id_of(id);

	if (!id->device || id->device->node_type != RDMA_NODE_RNIC)
		return NULL;
	return READ_ONCE(xid->iw_id) ?: READ_ONCE(xid->iw_listen_id);
}
EXPORT_SYMBOL(rdma_iw_cm_id);

/**
 * rdma_destroy_id - destroy an id
 * @id: the id; not from its own callback (return non-zero there instead)
 *
 * When this returns, no callback of @id runs or will run.
 */
void rdma_destroy_id(struct rdma_cm_id *id)
{
	struct xcma_id *xid = xcma_id_of(id);

	trace_cm_id_destroy(xid);
	/* destroyed: no sweep of a KUnit case's leftovers destroys it again */
	kunit_untrack(xid);
	/* a second destroy is a caller bug, which the library reports */
	if (xcma_fsm_id_destroy(&xid->life.fsm))
		pr_debug("xcma: id %p destroyed twice\n", id);
}
EXPORT_SYMBOL(rdma_destroy_id);

/**
 * rdma_set_service_type - type of service of the id's traffic
 * @id: the id
 * @tos: the value
 */
void rdma_set_service_type(struct rdma_cm_id *id, int tos)
{
	struct xcma_id *xid = xcma_id_of(id);

	mutex_lock(&xid->qp_mutex);
	xid->tos = (u8)tos;
	xid->tos_set = true;
	mutex_unlock(&xid->qp_mutex);
}
EXPORT_SYMBOL(rdma_set_service_type);

/**
 * rdma_set_reuseaddr - share the port with other reuseaddr ids
 * @id: the id
 * @reuse: the value
 *
 * Return: 0; -EINVAL where the table refuses it: clearing it once bound,
 * setting it on a listener.
 */
int rdma_set_reuseaddr(struct rdma_cm_id *id, int reuse)
{
	struct xcma_id *xid = xcma_id_of(id);
	int ret;

	ret = xcma_id_transition(xid, reuse ? XCMA_EV_SET_REUSEADDR :
					      XCMA_EV_CLEAR_REUSEADDR);
	if (ret)
		return ret;
	if (xcma_port_is_bound(&xid->bind))
		xcma_port_set_reuseaddr(&xid->bind, reuse);
	else
		xid->bind.reuseaddr = reuse;
	return 0;
}
EXPORT_SYMBOL(rdma_set_reuseaddr);

/**
 * rdma_set_afonly - listen to one address family only
 * @id: the id
 * @afonly: the value
 *
 * Return: 0; -EINVAL unless IDLE or ADDR_BOUND.
 */
int rdma_set_afonly(struct rdma_cm_id *id, int afonly)
{
	struct xcma_id *xid = xcma_id_of(id);
	int ret;

	ret = xcma_id_transition(xid, XCMA_EV_SET_AFONLY);
	if (ret)
		return ret;
	xid->afonly_set = true;
	if (xcma_port_is_bound(&xid->bind))
		xcma_port_set_afonly(&xid->bind, afonly);
	else
		xid->bind.afonly = afonly;
	return 0;
}
EXPORT_SYMBOL(rdma_set_afonly);

/**
 * rdma_set_ack_timeout - local ACK timeout of the QP
 * @id: the id
 * @timeout: 4.096 us * 2^@timeout; not range checked, as in-tree
 *
 * Return: 0, or -EINVAL unless the id is RC or XRC_INI.
 */
int rdma_set_ack_timeout(struct rdma_cm_id *id, u8 timeout)
{
	struct xcma_id *xid = xcma_id_of(id);

	if (id->qp_type != IB_QPT_RC && id->qp_type != IB_QPT_XRC_INI)
		return -EINVAL;
	mutex_lock(&xid->qp_mutex);
	xid->timeout = timeout;
	xid->timeout_set = true;
	mutex_unlock(&xid->qp_mutex);
	return 0;
}
EXPORT_SYMBOL(rdma_set_ack_timeout);

/**
 * rdma_set_min_rnr_timer - RNR NAK timer of the QP
 * @id: the id
 * @min_rnr_timer: a 5-bit value
 *
 * Return: 0, or -EINVAL for a value above 31 or an id that is neither RC
 * nor XRC_TGT (the in-tree CM also WARNs there; a consumer's mistake is
 * not a kernel bug, so xcma only returns the errno).
 */
int rdma_set_min_rnr_timer(struct rdma_cm_id *id, u8 min_rnr_timer)
{
	struct xcma_id *xid = xcma_id_of(id);

	if (min_rnr_timer & 0xe0)
		return -EINVAL;
	if (id->qp_type != IB_QPT_RC && id->qp_type != IB_QPT_XRC_TGT)
		return -EINVAL;
	mutex_lock(&xid->qp_mutex);
	xid->min_rnr_timer = min_rnr_timer;
	xid->min_rnr_timer_set = true;
	mutex_unlock(&xid->qp_mutex);
	return 0;
}
EXPORT_SYMBOL(rdma_set_min_rnr_timer);

/**
 * rdma_lock_handler - hold off the id's callbacks
 * @id: the id
 */
void rdma_lock_handler(struct rdma_cm_id *id)
{
	mutex_lock(&xcma_id_of(id)->life.handler_mutex);
}
EXPORT_SYMBOL(rdma_lock_handler);

/**
 * rdma_unlock_handler - let the id's callbacks run again
 * @id: the id
 */
void rdma_unlock_handler(struct rdma_cm_id *id)
{
	mutex_unlock(&xcma_id_of(id)->life.handler_mutex);
}
EXPORT_SYMBOL(rdma_unlock_handler);

/**
 * rdma_get_service_id - the IB service ID of an address
 * @id: the id (its port space)
 * @addr: the address
 *
 * Return: the service ID, big endian.
 */
__be64 rdma_get_service_id(struct rdma_cm_id *id, struct sockaddr *addr)
{
	return xcma_wire_addr_service_id(id->ps, addr);
}
EXPORT_SYMBOL(rdma_get_service_id);

/**
 * rdma_read_gids - source and destination GIDs of the id
 * @cm_id: the id
 * @sgid: set to the source GID, if not NULL
 * @dgid: set to the destination GID, if not NULL
 */
void rdma_read_gids(struct rdma_cm_id *cm_id, union ib_gid *sgid,
		    union ib_gid *dgid)
{
	struct rdma_addr *addr = &cm_id->route.addr;

	if (!cm_id->device) {
		if (sgid)
			memset(sgid, 0, sizeof(*sgid));
		if (dgid)
			memset(dgid, 0, sizeof(*dgid));
		return;
	}
	if (xcma_transport(cm_id->device, cm_id->port_num) ==
	    XCMA_TRANSPORT_ROCE) {
		if (sgid)
			rdma_ip2gid((struct sockaddr *)&addr->src_addr, sgid);
		if (dgid)
			rdma_ip2gid((struct sockaddr *)&addr->dst_addr, dgid);
	} else {
		if (sgid)
			rdma_addr_get_sgid(&addr->dev_addr, sgid);
		if (dgid)
			rdma_addr_get_dgid(&addr->dev_addr, dgid);
	}
}
EXPORT_SYMBOL(rdma_read_gids);

/**
 * xcma_id_module_refs - references held on xcma.ko, for tests
 *
 * One per id that exists (xcma_id_alloc()) and one per loaded module that
 * links against xcma.
 */
int xcma_id_module_refs(void)
{
	return module_refcount(THIS_MODULE);
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_id_module_refs);

/**
 * xcma_id_free_unused - free an id the library never saw
 * @xid: from xcma_id_alloc(), unbound, not attached, unreferenced: it
 *	holds nothing of any concern's yet (no route was resolved)
 */
void xcma_id_free_unused(struct xcma_id *xid)
{
	xcma_id_free(xid);
}
