// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The device side of the lifecycle protocol: attaching ids, wildcard
 * listeners and their per-device children, device add, and device removal
 * with its DEVICE_REMOVAL notices and its wait for every holder.
 */
#include "protocol.hpp"

namespace xcma::fsm
{
namespace
{

void dev_put(xcma_fsm_dev *dev)
{
	xcma_plat_dev_put(dev);
}

void report_list(xcma_fsm_dev *dev, xcma_fsm_link *head)
{
	for (xcma_fsm_link *l = head->next; l != head; l = l->next)
		xcma_plat_dev_report_holder(dev, id_of_dev_item(l));
}

unsigned int count_list(xcma_fsm_link *head)
{
	unsigned int n = 0;

	for (xcma_fsm_link *l = head->next; l != head; l = l->next)
		n++;
	return n;
}

/* G5: return only once no id holds the device; say who is late. */
void wait_released(xcma_fsm_dev *dev)
{
	xcma_plat_dev_wait_released(dev);
}

/*
 * Next id the remover must act on, ctx lock held. A per-device child of a
 * wildcard listener is claimed by unlinking it from its parent (whoever
 * unlinks it, parent's destroy or removal, destroys it); any other id is
 * taken while it is neither notified (DEVICE_REMOVAL) nor being destroyed.
 * Every id looked at moves to dev->visited, acted on or not: one visit is
 * all it needs (nothing attaches once removal started, and an id that is
 * DEVICE_REMOVAL or DESTROYING never needs the remover again), so removal
 * is linear in the number of ids. Ids stay listed until they release the
 * device, so that removal can name the ones it waits for.
 */
xcma_fsm_id *pick(xcma_fsm_dev *dev, bool *quiet)
{
	while (!list_empty(&dev->ids)) {
		xcma_fsm_id *id = id_of_dev_item(dev->ids.next);

		list_del_init(&id->dev_item);
		list_add_tail(&id->dev_item, &dev->visited);
		if (id->flags & XCMA_FSM_F_INTERNAL) {
			if (list_empty(&id->child_item))
				continue;
			list_del_init(&id->child_item);
			*quiet = true;
			return id;
		}
		u32 state = read_state(id);
		if (state != XCMA_FSM_DEVICE_REMOVAL &&
		    state != XCMA_FSM_DESTROYING) {
			*quiet = false;
			return id;
		}
	}
	return nullptr;
}

/*
 * G4, consuming the caller's reference. The state is set to
 * DEVICE_REMOVAL under the handler lock, after any running callback and
 * only if the id is not already being destroyed: so the notice goes out at
 * most once, never after destroy (by the user or by a callback's return),
 * and no other callback follows it.
 *
 * Removal callback returning non-zero: destroy right here, still under the
 * handler lock, cancelling with the state from before DEVICE_REMOVAL.
 * Otherwise the user destroys the id later; its destroy sees
 * DEVICE_REMOVAL and leaves the cancel to us.
 */
void notify_removal_put(xcma_fsm_id *id)
{
	xcma_plat_id_handler_lock(id, 0);
	Step s = apply(id, XCMA_EV_DEVICE_REMOVAL);
	if (!s.ok()) {
		xcma_plat_id_handler_unlock(id);
		id_put(id);
		return;
	}
	if (xcma_plat_id_event(id, XCMA_CM_EVENT_DEVICE_REMOVAL, 0)) {
		id_put(id);
		destroy_live_handler_unlock(id, s.prev);
		return;
	}
	xcma_plat_id_handler_unlock(id);
	xcma_plat_id_cancel(id, s.prev);
	id_put(id);
}

/* A per-device listener goes quietly: its user is the wildcard parent. */
void destroy_quiet_put(xcma_fsm_id *id)
{
	id_put(id);
	xcma_plat_id_handler_lock(id, 0);
	destroy_live_handler_unlock(id, XCMA_FSM_NO_STATE);
}

} /* namespace */

Status attach_locked(xcma_fsm_id *id, xcma_fsm_dev *dev)
{
	if (dev->state != XCMA_DEV_ACTIVE)
		return { -XCMA_ENODEV };
	if (id->dev)
		return { -XCMA_EINVAL };
	u32 state = read_state(id);
	if (state == XCMA_FSM_DESTROYING || state == XCMA_FSM_DEVICE_REMOVAL)
		return { -XCMA_EINVAL };
	xcma_plat_dev_get(dev);
	id->dev = dev;
	list_add_tail(&id->dev_item, &dev->ids);
	return { 0 };
}

void release_dev(xcma_fsm_id *id)
{
	xcma_fsm_ctx *ctx = id->ctx;

	xcma_plat_ctx_lock(ctx);
	xcma_fsm_dev *dev = id->dev;
	if (!dev) {
		xcma_plat_ctx_unlock(ctx);
		return;
	}
	list_del_init(&id->dev_item);
	id->dev = nullptr;
	xcma_plat_ctx_unlock(ctx);

	/* no group joins from here on (the device is gone from the id) */
	drop_groups(id);
	xcma_plat_id_release_dev(id, dev);
	dev_put(dev);
}

Status listen_on_dev_locked(xcma_fsm_id *parent, xcma_fsm_dev *dev)
{
	xcma_fsm_id *child = nullptr;
	Status made = { xcma_plat_listen_child(parent, dev, &child) };

	if (!made.ok())
		return made;
	/* the platform makes no child on this device (it cannot listen) */
	if (!child)
		return {};
	child->parent = parent;
	child->flags |= XCMA_FSM_F_INTERNAL;
	xcma_plat_id_get(parent);
	Status st = { apply(child, XCMA_EV_BIND).err };
	if (st.ok())
		st = attach_locked(child, dev);
	if (st.ok())
		st = { apply(child, XCMA_EV_LISTEN).err };
	/* a fresh id on a device not being removed: none of this fails */
	if (!st.ok())
		xcma_plat_bug("xcma: fresh listener child refused");
	list_add_tail(&child->child_item, &parent->children);
	return { 0 };
}

/*
 * Destroy the per-device children of a wildcard listener. Each child is
 * claimed by unlinking it under the ctx lock, so that device removal,
 * which claims the same way, never destroys it a second time.
 */
void cancel_listens(xcma_fsm_id *id)
{
	xcma_fsm_ctx *ctx = id->ctx;

	xcma_plat_ctx_lock(ctx);
	if (!(id->flags & XCMA_FSM_F_WILDCARD)) {
		xcma_plat_ctx_unlock(ctx);
		return;
	}
	id->flags &= ~XCMA_FSM_F_WILDCARD;
	list_del_init(&id->listen_item);
	while (!list_empty(&id->children)) {
		xcma_fsm_id *child = id_of_child_item(id->children.next);

		list_del_init(&child->child_item);
		xcma_plat_ctx_unlock(ctx);
		/* the parent's destroyer may hold another id's handler lock */
		xcma_plat_id_handler_lock(child, XCMA_FSM_LOCK_DESTROY);
		destroy_live_handler_unlock(child, XCMA_FSM_NO_STATE);
		xcma_plat_ctx_lock(ctx);
	}
	xcma_plat_ctx_unlock(ctx);
}

} /* namespace xcma::fsm */

using namespace xcma::fsm;

extern "C" int xcma_fsm_id_attach(xcma_fsm_id *id, xcma_fsm_dev *dev)
{
	xcma_plat_ctx_lock(id->ctx);
	Status st = attach_locked(id, dev);
	xcma_plat_ctx_unlock(id->ctx);
	return st.err;
}

/*
 * An operation that attached the id fails later: the id lets go of the
 * device as its destroy would (the device may be being removed; then the
 * remover no longer waits for it).
 */
extern "C" void xcma_fsm_id_detach(xcma_fsm_id *id)
{
	release_dev(id);
}

/*
 * rdma_listen() after the bind: a listener bound to no device becomes a
 * wildcard listener with one internal child per device.
 */
extern "C" int xcma_fsm_id_listen(xcma_fsm_id *id)
{
	xcma_fsm_ctx *ctx = id->ctx;
	Status st = { apply(id, XCMA_EV_LISTEN).err };

	if (!st.ok())
		return st.err;

	xcma_plat_ctx_lock(ctx);
	if (id->dev) {
		xcma_plat_ctx_unlock(ctx);
		return 0;
	}
	id->flags |= XCMA_FSM_F_WILDCARD;
	list_add_tail(&id->listen_item, &ctx->listeners);
	for (xcma_fsm_link *l = ctx->devs.next; l != &ctx->devs && st.ok();
	     l = l->next)
		st = listen_on_dev_locked(id, dev_of_ctx_item(l));
	xcma_plat_ctx_unlock(ctx);
	if (st.ok())
		return 0;

	cancel_listens(id);
	Step undo = apply(id, XCMA_EV_LISTEN_UNDO);
	if (!undo.ok())
		xcma_plat_bug("xcma: listener changed state during listen");
	return st.err;
}

extern "C" void xcma_fsm_dev_init(xcma_fsm_dev *dev, xcma_fsm_ctx *ctx)
{
	dev->ctx = ctx;
	list_init(&dev->ctx_item);
	list_init(&dev->ids);
	list_init(&dev->visited);
	dev->state = XCMA_DEV_NEW;
}

extern "C" unsigned int xcma_fsm_dev_state(xcma_fsm_dev *dev)
{
	xcma_plat_ctx_lock(dev->ctx);
	unsigned int state = dev->state;
	xcma_plat_ctx_unlock(dev->ctx);
	return state;
}

extern "C" const char *xcma_fsm_dev_state_name(unsigned int state)
{
	switch (state) {
	case XCMA_DEV_NEW:
		return "NEW";
	case XCMA_DEV_ACTIVE:
		return "ACTIVE";
	case XCMA_DEV_REMOVING:
		return "REMOVING";
	case XCMA_DEV_REMOVED:
		return "REMOVED";
	}
	return "INVALID";
}

extern "C" void xcma_fsm_dev_report_holders(xcma_fsm_dev *dev)
{
	xcma_plat_ctx_lock(dev->ctx);
	report_list(dev, &dev->ids);
	report_list(dev, &dev->visited);
	xcma_plat_ctx_unlock(dev->ctx);
}

extern "C" unsigned int xcma_fsm_dev_holders(xcma_fsm_dev *dev)
{
	xcma_plat_ctx_lock(dev->ctx);
	unsigned int n = count_list(&dev->ids) + count_list(&dev->visited);
	xcma_plat_ctx_unlock(dev->ctx);
	return n;
}

/*
 * Netdev events concern the ids attached to devices that removal has not
 * started on (an id removal reached gets DEVICE_REMOVAL, nothing else).
 * @fn runs with the ctx lock held and may take a reference
 * (xcma_fsm_id_get()): an id on a device's list still holds its creation
 * reference. Per-device children of wildcard listeners are not visited:
 * their user is the parent. A non-zero return of @fn stops the walk.
 */
extern "C" int xcma_fsm_ctx_for_each_id(xcma_fsm_ctx *ctx,
					xcma_fsm_id_visit fn, void *arg)
{
	int ret = 0;

	xcma_plat_ctx_lock(ctx);
	for (xcma_fsm_link *d = ctx->devs.next; d != &ctx->devs && !ret;
	     d = d->next) {
		xcma_fsm_dev *dev = dev_of_ctx_item(d);

		for (xcma_fsm_link *l = dev->ids.next; l != &dev->ids && !ret;
		     l = l->next) {
			xcma_fsm_id *id = id_of_dev_item(l);

			if (!(id->flags & XCMA_FSM_F_INTERNAL))
				ret = fn(id, arg);
		}
	}
	xcma_plat_ctx_unlock(ctx);
	return ret;
}

extern "C" int xcma_fsm_ctx_for_each_dev(xcma_fsm_ctx *ctx,
					 xcma_fsm_dev_visit fn, void *arg)
{
	int ret = 0;

	xcma_plat_ctx_lock(ctx);
	for (xcma_fsm_link *d = ctx->devs.next; d != &ctx->devs && !ret;
	     d = d->next)
		ret = fn(dev_of_ctx_item(d), arg);
	xcma_plat_ctx_unlock(ctx);
	return ret;
}

/* xcma_fsm_id_attach() from a device walk: the ctx lock is held */
extern "C" int xcma_fsm_id_attach_locked(xcma_fsm_id *id, xcma_fsm_dev *dev)
{
	return attach_locked(id, dev).err;
}

/* a device's state and holders, from a device walk (ctx lock held) */
extern "C" void xcma_fsm_dev_query_locked(xcma_fsm_dev *dev,
					  unsigned int *state,
					  unsigned int *holders)
{
	*state = dev->state;
	*holders = count_list(&dev->ids) + count_list(&dev->visited);
}

/*
 * ib_client.add: make the device visible and give every wildcard listener
 * a child on it. On failure the device has been removed again and may be
 * freed.
 */
extern "C" int xcma_fsm_dev_add(xcma_fsm_dev *dev)
{
	xcma_fsm_ctx *ctx = dev->ctx;
	Status st = { 0 };

	xcma_plat_ctx_lock(ctx);
	dev->state = XCMA_DEV_ACTIVE;
	list_add_tail(&dev->ctx_item, &ctx->devs);
	for (xcma_fsm_link *l = ctx->listeners.next;
	     l != &ctx->listeners && st.ok(); l = l->next)
		st = listen_on_dev_locked(id_of_listen_item(l), dev);
	xcma_plat_ctx_unlock(ctx);
	if (!st.ok())
		xcma_fsm_dev_remove(dev);
	return st.err;
}

/*
 * ib_client.remove. After it returns no id holds the device and the
 * library never touches it again: the C side may free it.
 */
extern "C" void xcma_fsm_dev_remove(xcma_fsm_dev *dev)
{
	xcma_fsm_ctx *ctx = dev->ctx;

	xcma_plat_ctx_lock(ctx);
	if (dev->state == XCMA_DEV_REMOVED) {
		/* already removed by a failed xcma_fsm_dev_add() */
		xcma_plat_ctx_unlock(ctx);
		return;
	}
	dev->state = XCMA_DEV_REMOVING;
	list_del_init(&dev->ctx_item);
	xcma_plat_ctx_unlock(ctx);

	for (;;) {
		bool quiet = false;

		xcma_plat_ctx_lock(ctx);
		xcma_fsm_id *id = pick(dev, &quiet);
		if (id)
			xcma_plat_id_get(id);
		xcma_plat_ctx_unlock(ctx);
		if (!id)
			break;
		if (quiet)
			destroy_quiet_put(id);
		else
			notify_removal_put(id);
	}

	dev_put(dev);
	wait_released(dev);

	xcma_plat_ctx_lock(ctx);
	dev->state = XCMA_DEV_REMOVED;
	xcma_plat_ctx_unlock(ctx);
}
