// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The checker's platform: xcma_plat_*() on top of the scheduler. Every
 * operation is a scheduling point and is checked against the lifecycle
 * contract where it happens (use after free, double cancel, callback
 * after the fence, touching a removed device, ...).
 */
#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "model.hpp"

namespace model
{

ModelId &id(int i)
{
	return W.ids[i];
}

ModelDev &dev(int i)
{
	return W.devs[i];
}

int index_of(const xcma_fsm_id *fsm)
{
	return reinterpret_cast<const ModelId *>(fsm) - W.ids;
}

namespace
{

const char *cm_event_name(unsigned ev)
{
	static const char *const names[] = {
		"ADDR_RESOLVED",    "ADDR_ERROR",	"ROUTE_RESOLVED",
		"ROUTE_ERROR",	    "CONNECT_REQUEST",	"CONNECT_RESPONSE",
		"CONNECT_ERROR",    "UNREACHABLE",	"REJECTED",
		"ESTABLISHED",	    "DISCONNECTED",	"DEVICE_REMOVAL",
		"MULTICAST_JOIN",   "MULTICAST_ERROR",	"ADDR_CHANGE",
		"TIMEWAIT_EXIT",
	};
	return ev < 16 ? names[ev] : "?";
}

ModelId &of(xcma_fsm_id *fsm)
{
	ModelId *m = reinterpret_cast<ModelId *>(fsm);

	if (m < W.ids || m >= W.ids + W.nids || !m->used)
		fail(Rule::Api, "platform called with a foreign id %p", (void *)fsm);
	if (m->freed)
		fail(Rule::G8, "%s used after it was freed", m->name);
	return *m;
}

ModelDev &of(xcma_fsm_dev *fsm)
{
	ModelDev *d = reinterpret_cast<ModelDev *>(fsm);

	if (d < W.devs || d >= W.devs + W.ndevs)
		fail(Rule::Api, "platform called with a foreign device");
	if (d->remove_returned)
		fail(Rule::G5, "%s touched after its removal returned", d->name);
	return *d;
}

void acquire(int *lock, const char *op, const char *obj)
{
	sched(Wait::Lock, op, obj, lock);
	*lock = self();
}

void release(int *lock, const char *op, const char *obj)
{
	if (*lock != self())
		fail(Rule::Api, "%s %s: not the owner", op, obj);
	*lock = -1;
	sched(Wait::None, op, obj, nullptr, nullptr, 0, false);
}

} /* namespace */

int new_id(const char *name)
{
	int i = W.nids++;
	ModelId &m = W.ids[i];

	m.name = name;
	m.used = true;
	m.refs = 1;
	xcma_fsm_id_init(&m.fsm, &W.ctx);
	return i;
}

int reserve_child(const char *name)
{
	int i = W.nids++;

	W.ids[i].name = name;
	W.child_slots[W.nchild_slots++] = i;
	return i;
}

int reserve_id(const char *name)
{
	int i = W.nids++;

	W.ids[i].name = name;
	return i;
}

/* the C side allocating an id at run time (e.g. a conn id for a REQ) */
void init_reserved(int i)
{
	ModelId &m = W.ids[i];

	m.used = true;
	m.refs = 1;
	xcma_fsm_id_init(&m.fsm, &W.ctx);
}

int new_dev(const char *name)
{
	int i = W.ndevs++;
	ModelDev &d = W.devs[i];

	d.name = name;
	d.used = true;
	d.refs = 1;
	xcma_fsm_dev_init(&d.fsm, &W.ctx);
	return i;
}

void expect_ok(int err, const char *what)
{
	if (err)
		fail(Rule::Api, "%s failed: %d", what, err);
}

/* rdma_destroy_id() as a user calls it; the contract says once */
void user_destroy(int i)
{
	ModelId &m = id(i);
	int outer = current_destroy_target();

	set_destroy_target(i);
	note("user destroys %s", m.name);
	int err = xcma_fsm_id_destroy(&m.fsm);
	set_destroy_target(outer);
	if (err)
		fail(Rule::Api, "destroy of %s returned %d", m.name, err);
	if (m.running)
		fail(Rule::G2, "destroy of %s returned while its callback runs",
		     m.name);
	if (!m.freed)
		fail(Rule::G2, "destroy of %s returned before the id was released",
		     m.name);
	m.destroy_returned = true;
}

void user_destroy_once(int i)
{
	if (id(i).destroy_started)
		return;
	id(i).destroy_started = true;
	user_destroy(i);
}

/* user contract: an id that got DEVICE_REMOVAL is destroyed eventually */
int new_group(const char *name, int i, int d)
{
	if (W.ngroups >= kMaxGroups)
		fail(Rule::Model, "too many groups");
	ModelGroup &g = W.groups[W.ngroups];
	g.name = name;
	g.owner = i;
	g.dev = d;
	return W.ngroups++;
}

/*
 * The C side frees a group when it gets it back, so a second release is
 * a use after free; and it leaves the group on the device, so the device
 * must still be there (G5).
 */
void release_group(ModelGroup &g, const char *by)
{
	if (!g.joined)
		fail(Rule::G8, "%s released by %s but never joined", g.name, by);
	if (++g.releases > 1)
		fail(Rule::G8, "%s released twice (again by %s): used after free",
		     g.name, by);
	if (g.dev >= 0 && dev(g.dev).remove_returned)
		fail(Rule::G5, "%s left after removal of %s returned", g.name,
		     dev(g.dev).name);
}

void reap(int i)
{
	await([](int k) {
		ModelId &m = W.ids[k];
		return m.freed || m.destroy_started ||
		       (m.used && m.removal_ack);
	}, i, id(i).name);
	if (!id(i).freed)
		user_destroy_once(i);
}

bool id_completed(int k)
{
	return W.ids[k].completed;
}

bool dev_completed(int k)
{
	return W.devs[k].completed;
}

/* the checker runs one thread at a time: nothing to lock */
unsigned peek_state(int i)
{
	return W.ids[i].fsm.state;
}

} /* namespace model */

using namespace model;

extern "C" {

void xcma_plat_ctx_lock(xcma_fsm_ctx *)
{
	acquire(&W.ctx_lock, "ctx_lock", "ctx");
}

void xcma_plat_ctx_unlock(xcma_fsm_ctx *)
{
	release(&W.ctx_lock, "ctx_unlock", "ctx");
}

void xcma_plat_id_lock(xcma_fsm_id *fsm)
{
	ModelId &m = of(fsm);
	acquire(&m.lock, "id_lock", m.name);
}

void xcma_plat_id_unlock(xcma_fsm_id *fsm)
{
	ModelId &m = of(fsm);
	release(&m.lock, "id_unlock", m.name);
}

void xcma_plat_id_handler_lock(xcma_fsm_id *fsm, int)
{
	ModelId &m = of(fsm);
	acquire(&m.handler, "handler_lock", m.name);
	if (current_destroy_target() == index_of(fsm))
		m.fence_passed = true;
}

void xcma_plat_id_handler_unlock(xcma_fsm_id *fsm)
{
	ModelId &m = of(fsm);
	release(&m.handler, "handler_unlock", m.name);
}

void xcma_plat_id_assert_handler_held(xcma_fsm_id *fsm)
{
	ModelId &m = of(fsm);
	if (m.handler != self())
		fail(Rule::Api,
		     "%s: handler lock not held where the library needs it",
		     m.name);
}

void xcma_plat_id_get(xcma_fsm_id *fsm)
{
	ModelId &m = of(fsm);
	sched(Wait::None, "id_get", m.name);
	if (!m.refs)
		fail(Rule::G8, "%s referenced again after its last put", m.name);
	m.refs++;
}

/*
 * refcount_dec_and_test() then complete(): the count and the completion
 * are two steps, the checker may run anybody between them.
 */
void xcma_plat_id_put(xcma_fsm_id *fsm)
{
	ModelId &m = of(fsm);
	sched(Wait::None, "id_put", m.name);
	if (!m.refs)
		fail(Rule::G8, "%s put below zero", m.name);
	if (--m.refs)
		return;
	sched(Wait::None, "complete", m.name);
	m.completed = true;
}

/* wait_for_completion(): returns only once the last put completed */
void xcma_plat_id_wait_unreferenced(xcma_fsm_id *fsm)
{
	ModelId &m = of(fsm);
	await(id_completed, index_of(fsm), m.name);
}

void xcma_plat_dev_get(xcma_fsm_dev *fsm)
{
	ModelDev &d = of(fsm);
	sched(Wait::None, "dev_get", d.name);
	if (!d.refs)
		fail(Rule::G8, "%s referenced after its last put", d.name);
	d.refs++;
}

void xcma_plat_dev_put(xcma_fsm_dev *fsm)
{
	ModelDev &d = of(fsm);
	sched(Wait::None, "dev_put", d.name);
	if (!d.refs)
		fail(Rule::G8, "%s put below zero", d.name);
	if (--d.refs)
		return;
	sched(Wait::None, "complete", d.name);
	d.completed = true;
}

/* the checker never times out: a missed completion must show as a hang */
void xcma_plat_dev_wait_released(xcma_fsm_dev *fsm)
{
	ModelDev &d = of(fsm);
	await(dev_completed, int(&d - W.devs), d.name);
}

/*
 * The user's callback. G1: never two at once for one id. G2/G4: never
 * after the destroyer passed the fence. G3: never after a non-zero return.
 * G4: DEVICE_REMOVAL at most once and nothing after it. G7: never on a
 * per-device child of a wildcard listener.
 */
int xcma_plat_id_event(xcma_fsm_id *fsm, unsigned int ev, int)
{
	ModelId &m = of(fsm);
	const char *what = ev == XCMA_CM_EVENT_DEVICE_REMOVAL ?
				   "cb DEVICE_REMOVAL" :
				   "callback";

	sched(Wait::None, what, m.name);
	const char *evn = cm_event_name(ev);
	note("callback of %s: %s", m.name, evn);
	if (m.fsm.flags & XCMA_FSM_F_INTERNAL)
		fail(Rule::G7, "the user saw %s of internal listener %s", evn,
		     m.name);
	if (m.running)
		fail(Rule::G1, "callback of %s (%s) while another runs", m.name,
		     evn);
	if (m.destroy_returned || m.fence_passed)
		fail(Rule::G2, "callback of %s (%s) after destroy fenced it", m.name,
		     evn);
	if (m.nonzero_returned)
		fail(Rule::G3, "callback of %s (%s) after it returned non-zero",
		     m.name, evn);
	if (m.notices)
		fail(Rule::G4, "%s delivered to %s after DEVICE_REMOVAL", evn,
		     m.name);
	if (ev == XCMA_CM_EVENT_DEVICE_REMOVAL)
		m.notices++;
	m.running++;

	sched(Wait::None, "in callback", m.name);
	if (m.destroy_on == int(ev) && m.destroy_target >= 0)
		user_destroy_once(m.destroy_target);
	int ret = m.ret_on[ev & 15];
	/* contract: no non-zero return once the user decided to destroy */
	if (ret && m.destroy_started)
		ret = 0;
	if (ret)
		m.destroy_started = true;
	else if (ev == XCMA_CM_EVENT_DEVICE_REMOVAL)
		m.removal_ack = true;
	m.running--;
	sched(Wait::None, ret ? "cb returns 1" : "cb returns 0", m.name);
	if (ret)
		m.nonzero_returned = true;
	return ret;
}

/* exactly once per id, with the last state before the final two */
void xcma_plat_id_cancel(xcma_fsm_id *fsm, unsigned int state)
{
	ModelId &m = of(fsm);
	sched(Wait::None, "cancel", m.name);
	if (++m.cancels > 1)
		fail(Rule::G8, "%s: operation cancelled twice", m.name);
	if (state != m.last_live)
		fail(Rule::G8, "%s: cancel with state %s, the id was %s", m.name,
		     xcma_fsm_state_name(state),
		     xcma_fsm_state_name(m.last_live));
	m.cancel_state = state;
}

void xcma_plat_id_group_drop(xcma_fsm_id *fsm, xcma_fsm_link *l)
{
	ModelId &m = of(fsm);
	ModelGroup *g = reinterpret_cast<ModelGroup *>(l);

	if (g < W.groups || g >= W.groups + W.ngroups)
		fail(Rule::Api, "group_drop with a foreign group");
	sched(Wait::None, "group_drop", g->name);
	if (&id(g->owner) != &m)
		fail(Rule::Api, "%s dropped by %s", g->name, m.name);
	release_group(*g, "drop");
}

void xcma_plat_id_release_dev(xcma_fsm_id *fsm, xcma_fsm_dev *dfsm)
{
	ModelId &m = of(fsm);
	ModelDev &d = of(dfsm);
	sched(Wait::None, "release_dev", m.name);
	if (d.refs < 2 && !d.remove_started)
		fail(Rule::G8, "%s released %s below its own reference", m.name,
		     d.name);
}

void xcma_plat_id_free(xcma_fsm_id *fsm)
{
	ModelId &m = of(fsm);
	sched(Wait::None, "free", m.name);
	if (m.refs)
		fail(Rule::G8, "%s freed with %u references", m.name, m.refs);
	if (m.running)
		fail(Rule::G2, "%s freed while its callback runs", m.name);
	if (m.cancels != 1)
		fail(Rule::G8, "%s freed after %d cancels", m.name, m.cancels);
	if (m.fsm.dev)
		fail(Rule::G8, "%s freed while holding a device", m.name);
	if (m.lock != -1 || m.handler != -1)
		fail(Rule::G8, "%s freed with a lock held", m.name);
	if (m.fsm.state != XCMA_FSM_DESTROYING)
		fail(Rule::G2, "%s freed in state %s", m.name,
		     xcma_fsm_state_name(m.fsm.state));
	m.freed = true;
	memset(&m.fsm, 0x6b, sizeof(m.fsm));
}

int xcma_plat_listen_child(xcma_fsm_id *pfsm, xcma_fsm_dev *dfsm,
			   xcma_fsm_id **child)
{
	ModelId &p = of(pfsm);
	ModelDev &d = of(dfsm);
	if (W.ctx_lock != self())
		fail(Rule::Api, "listen_child without the ctx lock");
	for (int k = 0; k < W.nchild_slots; k++) {
		ModelId &c = W.ids[W.child_slots[k]];
		if (c.used)
			continue;
		c.used = true;
		c.child = true;
		c.refs = 1;
		xcma_fsm_id_init(&c.fsm, &W.ctx);
		note("child %s of %s on %s", c.name, p.name, d.name);
		*child = &c.fsm;
		return 0;
	}
	fail(Rule::Model, "scenario reserved too few children for %s",
	     p.name);
	return -12; /* -ENOMEM */
}

void xcma_plat_dev_report_holder(xcma_fsm_dev *dfsm, xcma_fsm_id *fsm)
{
	fail(Rule::Model, "%s reported as holding %s: the checker never times out",
	     of(fsm).name, of(dfsm).name);
}

void xcma_plat_bug(const char *what)
{
	fail(Rule::Api, "library bug check: %s", what);
}

} /* extern "C" */
