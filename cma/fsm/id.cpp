// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The id side of the lifecycle protocol: transitions, event delivery under
 * the handler lock, destroy (by the user and by a callback's return),
 * reference counting and the destroyer's wait.
 */
#include "protocol.hpp"

namespace xcma::fsm
{

Step apply(xcma_fsm_id *id, u32 event)
{
	xcma_plat_id_lock(id);
	Step s = lookup(id->state, event);
	if (s.ok())
		id->state = s.next;
	xcma_plat_id_unlock(id);
	return s;
}

u32 read_state(xcma_fsm_id *id)
{
	xcma_plat_id_lock(id);
	u32 state = id->state;
	xcma_plat_id_unlock(id);
	return state;
}

void id_put(xcma_fsm_id *id)
{
	xcma_plat_id_put(id);
}

namespace
{

/*
 * After the fence: cancel what was pending (once, with the state the id
 * had), let go of the device, drop the creation reference, wait for every
 * other holder (event sources, the remover, children), then hand the id
 * back to its owner.
 */
void finish_destroy(xcma_fsm_id *id, u32 cancel_state)
{
	cancel_listens(id);
	if (cancel_state != XCMA_FSM_NO_STATE)
		xcma_plat_id_cancel(id, cancel_state);
	release_dev(id);
	id_put(id);
	xcma_plat_id_wait_unreferenced(id);

	xcma_fsm_id *parent = id->parent;
	xcma_plat_id_free(id);
	if (parent)
		id_put(parent);
}

} /* namespace */

/*
 * Setting DESTROYING under the handler lock is the fence against every
 * later callback: each delivery path re-checks the state under that lock.
 * A callback running now holds the lock, so this waits for it.
 *
 * Destroy racing removal: if the remover got here first the id is in
 * DEVICE_REMOVAL and the remover cancels the operation itself after its
 * callback (it holds a reference, so the id outlives that); if the destroy
 * got here first the remover sees DESTROYING and does nothing.
 */
Status destroy_handler_unlock(xcma_fsm_id *id, u32 removal_prev)
{
	Step s = apply(id, XCMA_EV_DESTROY);

	xcma_plat_id_handler_unlock(id);
	if (!s.ok()) {
		xcma_plat_bug("xcma: id destroyed twice");
		return { s.err };
	}
	finish_destroy(id, s.prev == XCMA_FSM_DEVICE_REMOVAL ? removal_prev :
							       s.prev);
	return { 0 };
}

void destroy_live_handler_unlock(xcma_fsm_id *id, u32 removal_prev)
{
	Status st = destroy_handler_unlock(id, removal_prev);

	if (!st.ok())
		xcma_plat_bug("xcma: live id was already destroyed");
}

} /* namespace xcma::fsm */

using namespace xcma::fsm;

extern "C" void xcma_fsm_ctx_init(xcma_fsm_ctx *ctx)
{
	list_init(&ctx->devs);
	list_init(&ctx->listeners);
}

extern "C" int xcma_fsm_ctx_idle(xcma_fsm_ctx *ctx)
{
	xcma_plat_ctx_lock(ctx);
	bool idle = list_empty(&ctx->devs) && list_empty(&ctx->listeners);
	xcma_plat_ctx_unlock(ctx);
	return idle;
}

extern "C" void xcma_fsm_id_init(xcma_fsm_id *id, xcma_fsm_ctx *ctx)
{
	id->ctx = ctx;
	id->state = XCMA_FSM_IDLE;
	id->flags = 0;
	id->dev = nullptr;
	list_init(&id->dev_item);
	id->parent = nullptr;
	list_init(&id->children);
	list_init(&id->child_item);
	list_init(&id->listen_item);
	list_init(&id->groups);
}

extern "C" unsigned int xcma_fsm_id_state(xcma_fsm_id *id)
{
	return read_state(id);
}

extern "C" int xcma_fsm_id_transition(xcma_fsm_id *id, unsigned int event)
{
	const Rule *r = rule_of(event);

	if (!r || r->kind != XCMA_EVK_OPERATION)
		return -XCMA_EINVAL;
	/* a consumer's missing rdma_lock_handler(): asserted, as in-tree */
	if (r->needs_handler)
		xcma_plat_id_assert_handler_held(id);
	return apply(id, event).err;
}

extern "C" void xcma_fsm_id_get(xcma_fsm_id *id)
{
	xcma_plat_id_get(id);
}

extern "C" void xcma_fsm_id_put(xcma_fsm_id *id)
{
	id_put(id);
}

namespace
{

bool is_notification(const Rule *r)
{
	return r && r->kind == XCMA_EVK_NOTIFICATION;
}

void put_if(xcma_fsm_id *id, unsigned int flags)
{
	if (flags & XCMA_FSM_PUT_REF)
		id_put(id);
}

} /* namespace */

/*
 * Callbacks of one id are serialized by its handler lock; the state is
 * checked under it, so nothing is delivered once the id is DESTROYING or
 * DEVICE_REMOVAL, whatever the event source.
 */
extern "C" int xcma_fsm_id_enter(xcma_fsm_id *id, unsigned int event,
				 unsigned int flags)
{
	if (!is_notification(rule_of(event))) {
		put_if(id, flags);
		return -XCMA_EINVAL;
	}
	xcma_plat_id_handler_lock(id, 0);
	Step s = apply(id, event);
	if (!s.ok()) {
		xcma_plat_id_handler_unlock(id);
		put_if(id, flags);
	}
	return s.err;
}

extern "C" int xcma_fsm_id_fire(xcma_fsm_id *id, unsigned int event)
{
	if (!is_notification(rule_of(event)))
		return -XCMA_EINVAL;
	xcma_plat_id_assert_handler_held(id);
	return apply(id, event).err;
}

/*
 * Destroy by return: a non-zero return destroys the id before the handler
 * lock is dropped (the fence is set under it), so no other callback,
 * DEVICE_REMOVAL included, can slip in. The source's reference goes first:
 * the destroy waits for all references.
 */
extern "C" int xcma_fsm_id_leave(xcma_fsm_id *id, int user_ret,
				 unsigned int flags)
{
	xcma_plat_id_assert_handler_held(id);
	if (user_ret) {
		put_if(id, flags);
		destroy_live_handler_unlock(id, XCMA_FSM_NO_STATE);
		return XCMA_FSM_DESTROYED;
	}
	xcma_plat_id_handler_unlock(id);
	put_if(id, flags);
	return XCMA_FSM_DELIVERED;
}

extern "C" int xcma_fsm_id_deliver(xcma_fsm_id *id, unsigned int event,
				   int status, unsigned int flags)
{
	const Rule *r = rule_of(event);

	if (!is_notification(r)) {
		put_if(id, flags);
		return -XCMA_EINVAL;
	}
	if (xcma_fsm_id_enter(id, event, flags))
		return XCMA_FSM_DROPPED;
	int ret = 0;
	if (r->cm_event != XCMA_CM_EVENT_NONE)
		ret = xcma_plat_id_event(id, r->cm_event, status);
	return xcma_fsm_id_leave(id, ret, flags);
}

/*
 * A connect request holds the listener's handler lock while @conn is
 * attached to the listener's device and gets CONNECT_REQUEST, so the
 * listener cannot be destroyed meanwhile.
 */
extern "C" int xcma_fsm_id_enter_req(xcma_fsm_id *listener, xcma_fsm_id *conn)
{
	xcma_plat_id_handler_lock(listener, 0);
	Step s = apply(listener, XCMA_EV_REQ_ON_LISTENER);
	if (!s.ok()) {
		xcma_plat_id_handler_unlock(listener);
		xcma_plat_id_handler_lock(conn, 0);
		destroy_live_handler_unlock(conn, XCMA_FSM_NO_STATE);
		return s.err;
	}

	xcma_plat_id_handler_lock(conn, 1);
	xcma_plat_ctx_lock(conn->ctx);
	Status st = listener->dev ? attach_locked(conn, listener->dev) :
				    Status{ -XCMA_EINVAL };
	xcma_plat_ctx_unlock(conn->ctx);
	if (st.ok())
		st = { apply(conn, XCMA_EV_CONNECT_REQUEST).err };
	if (!st.ok()) {
		xcma_plat_id_handler_unlock(listener);
		destroy_live_handler_unlock(conn, XCMA_FSM_NO_STATE);
	}
	return st.err;
}

extern "C" int xcma_fsm_id_leave_req(xcma_fsm_id *listener, xcma_fsm_id *conn,
				     int user_ret)
{
	xcma_plat_id_assert_handler_held(listener);
	xcma_plat_id_assert_handler_held(conn);
	if (user_ret) {
		xcma_plat_id_handler_unlock(listener);
		destroy_live_handler_unlock(conn, XCMA_FSM_NO_STATE);
		return XCMA_FSM_DESTROYED;
	}
	xcma_plat_id_handler_unlock(conn);
	xcma_plat_id_handler_unlock(listener);
	return XCMA_FSM_DELIVERED;
}

extern "C" int xcma_fsm_id_deliver_req(xcma_fsm_id *listener,
				       xcma_fsm_id *conn, int status)
{
	int err = xcma_fsm_id_enter_req(listener, conn);

	if (err)
		return err;
	return xcma_fsm_id_leave_req(
		listener, conn,
		xcma_plat_id_event(conn, XCMA_CM_EVENT_CONNECT_REQUEST,
				   status));
}

/*
 * rdma_destroy_id(). When it returns no callback of @id runs or will run,
 * the pending operation is cancelled, the device released and the id freed
 * through xcma_plat_id_free(). Must not be called from @id's own callback.
 */
extern "C" int xcma_fsm_id_destroy(xcma_fsm_id *id)
{
	xcma_plat_id_handler_lock(id, XCMA_FSM_LOCK_DESTROY);
	return destroy_handler_unlock(id, XCMA_FSM_NO_STATE).err;
}

/*
 * The ctx lock orders a join against release_dev(), which clears @dev
 * under it before draining: a group is linked either before the drain
 * (and dropped by it) or not at all.
 */
extern "C" int xcma_fsm_id_group_add(xcma_fsm_id *id, xcma_fsm_link *group)
{
	xcma_plat_ctx_lock(id->ctx);
	if (!id->dev) {
		xcma_plat_ctx_unlock(id->ctx);
		return -XCMA_EINVAL;
	}
	xcma_plat_id_lock(id);
	Step s = lookup(id->state, XCMA_EV_JOIN_MULTICAST);
	/*
	 * the newest first, as the in-tree mc_list: a leave of an address
	 * joined twice takes the last join (rdma_ucm frees the context of
	 * the join librdmacm leaves, its newest)
	 */
	if (s.ok())
		list_add(group, &id->groups);
	xcma_plat_id_unlock(id);
	xcma_plat_ctx_unlock(id->ctx);
	return s.err;
}

extern "C" xcma_fsm_link *
xcma_fsm_id_group_take(xcma_fsm_id *id,
		       int (*match)(xcma_fsm_link *group, const void *arg),
		       const void *arg)
{
	xcma_fsm_link *found = nullptr;

	xcma_plat_id_lock(id);
	for (xcma_fsm_link *l = id->groups.next; l != &id->groups;
	     l = l->next) {
		if (match(l, arg)) {
			list_del_init(l);
			found = l;
			break;
		}
	}
	xcma_plat_id_unlock(id);
	return found;
}

namespace xcma::fsm
{

/* Each group still linked goes to its owner, once; no lock held. */
void drop_groups(xcma_fsm_id *id)
{
	for (;;) {
		xcma_plat_id_lock(id);
		xcma_fsm_link *l = list_empty(&id->groups) ? nullptr :
							     id->groups.next;
		if (l)
			list_del_init(l);
		xcma_plat_id_unlock(id);
		if (!l)
			return;
		xcma_plat_id_group_drop(id, l);
	}
}

} /* namespace xcma::fsm */
