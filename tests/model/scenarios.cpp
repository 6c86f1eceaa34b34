// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The scenarios. Each builds ids and devices (setup runs alone, before any
 * thread) and starts the threads whose interleavings are explored. The
 * user contract is part of each: destroy at most once and never after a
 * non-zero return (user_destroy_once), and an id that got DEVICE_REMOVAL
 * is destroyed eventually (reap).
 */
#include <cstdio>
#include <cstring>

#include "model.hpp"

namespace model
{
namespace
{

void op(int i, unsigned ev)
{
	expect_ok(xcma_fsm_id_transition(&id(i).fsm, ev),
		  xcma_fsm_event_name(ev));
}

void note_ok(int i, unsigned ev)
{
	int r = xcma_fsm_id_deliver(&id(i).fsm, ev, 0, 0);
	if (r != XCMA_FSM_DELIVERED)
		fail(Rule::Model, "setup: %s not delivered to %s (%d)",
		     xcma_fsm_event_name(ev), id(i).name, r);
}

int added_dev(const char *name)
{
	int d = new_dev(name);
	expect_ok(xcma_fsm_dev_add(&dev(d).fsm), "dev_add");
	return d;
}

/* an id bound to device d, driven through the table to @state */
int id_on(const char *name, int d, unsigned state)
{
	int i = new_id(name);

	op(i, XCMA_EV_BIND);
	expect_ok(xcma_fsm_id_attach(&id(i).fsm, &dev(d).fsm), "attach");
	if (state == XCMA_FSM_ADDR_BOUND)
		return i;
	op(i, XCMA_EV_RESOLVE_ADDR);
	if (state == XCMA_FSM_ADDR_QUERY)
		return i;
	note_ok(i, XCMA_EV_ADDR_RESOLVED);
	op(i, XCMA_EV_RESOLVE_ROUTE);
	note_ok(i, XCMA_EV_ROUTE_RESOLVED);
	if (state == XCMA_FSM_ROUTE_RESOLVED)
		return i;
	xcma_plat_id_handler_lock(&id(i).fsm, 0);
	op(i, XCMA_EV_CONNECT);
	xcma_plat_id_handler_unlock(&id(i).fsm);
	return i;
}

/* a wildcard listener; its children come from reserved slots */
int wildcard_listener(const char *name)
{
	int i = new_id(name);

	op(i, XCMA_EV_BIND);
	expect_ok(xcma_fsm_id_listen(&id(i).fsm), "listen");
	id(i).wildcard = true;
	return i;
}

/* an event source with a reference on its id, like a queued work item */
struct Source {
	int id;
	unsigned ev;
};
Source sources[4];
int nsources;

int source(int i, unsigned ev)
{
	xcma_fsm_id_get(&id(i).fsm);
	sources[nsources] = { i, ev };
	return nsources++;
}

void run_source(int s)
{
	int r = xcma_fsm_id_deliver(&id(sources[s].id).fsm, sources[s].ev, 0,
				    XCMA_FSM_PUT_REF);
	if (r < 0)
		fail(Rule::Api, "deliver returned %d", r);
}

void run_destroy(int i)
{
	user_destroy_once(i);
}

void run_reap(int i)
{
	reap(i);
}

void run_remove(int d)
{
	ModelDev &md = dev(d);

	md.remove_started = true;
	xcma_fsm_dev_remove(&md.fsm);
	for (int i = 0; i < W.nids; i++) {
		ModelId &m = id(i);
		if (m.used && !m.child && (m.dev_mask & (1u << d)) &&
		    !m.notices && !m.destroy_started && !m.detached)
			fail(Rule::G4, "%s held %s but got no DEVICE_REMOVAL",
			     m.name, md.name);
	}
	md.remove_returned = true;
}

/* S1 */
void s1()
{
	nsources = 0;
	int d = added_dev("dev0");
	int idle = new_id("idle");
	int bound = id_on("bound", d, XCMA_FSM_ADDR_BOUND);
	spawn("destroy0", run_destroy, idle);
	spawn("destroy1", run_destroy, bound);
	spawn("remover", run_remove, d);
}

/* S2 */
void s2()
{
	nsources = 0;
	int d = added_dev("dev0");
	int a = id_on("id0", d, XCMA_FSM_ADDR_QUERY);
	spawn("addr_work", run_source, source(a, XCMA_EV_ADDR_RESOLVED));
	spawn("destroy", run_destroy, a);
	spawn("remover", run_remove, d);
}

/* S3 */
void s3()
{
	nsources = 0;
	int d = added_dev("dev0");
	int a = id_on("id0", d, XCMA_FSM_CONNECT);
	id(a).ret_on[XCMA_CM_EVENT_ESTABLISHED] = 1;
	spawn("ib_cm", run_source, source(a, XCMA_EV_ESTABLISHED));
	spawn("remover", run_remove, d);
	spawn("reaper", run_reap, a);
}

/* S4 */
void s4()
{
	nsources = 0;
	int d = added_dev("dev0");
	int a = id_on("id0", d, XCMA_FSM_CONNECT);
	id(a).ret_on[XCMA_CM_EVENT_DEVICE_REMOVAL] = 1;
	spawn("ib_cm", run_source, source(a, XCMA_EV_ESTABLISHED));
	spawn("remover", run_remove, d);
	spawn("reaper", run_reap, a);
}

/* S5 */
void s5()
{
	nsources = 0;
	int d = added_dev("dev0");
	int a = id_on("id0", d, XCMA_FSM_CONNECT);
	spawn("ib_cm", run_source, source(a, XCMA_EV_ESTABLISHED));
	spawn("netdev", run_source, source(a, XCMA_EV_ADDR_CHANGE));
	spawn("destroy", run_destroy, a);
	spawn("remover", run_remove, d);
}

/* S6 */
int s6_child, s6_conn2;

void run_req(int)
{
	init_reserved(s6_conn2);
	int r = xcma_fsm_id_deliver_req(&id(s6_child).fsm, &id(s6_conn2).fsm,
					0);
	if (r != XCMA_FSM_DELIVERED && r != -XCMA_ECONNABORTED &&
	    r != -XCMA_ENODEV)
		fail(Rule::Api, "deliver_req returned %d", r);
	/* ib_cm's callback on the child listener's cm_id returns */
	xcma_fsm_id_put(&id(s6_child).fsm);
}

void s6()
{
	nsources = 0;
	int d = added_dev("dev0");
	s6_child = reserve_child("child");
	int l = wildcard_listener("L");
	int conn = new_id("conn");
	int r = xcma_fsm_id_deliver_req(&id(s6_child).fsm, &id(conn).fsm, 0);
	if (r != XCMA_FSM_DELIVERED)
		fail(Rule::Model, "setup: connect request refused: %d", r);
	s6_conn2 = reserve_id("conn2");
	/* a second REQ in flight inside ib_cm holds the child's cm_id */
	xcma_fsm_id_get(&id(s6_child).fsm);
	spawn("remover", run_remove, d);
	spawn("destroyL", run_destroy, l);
	spawn("ib_cm_req", run_req, 0);
	spawn("reap_conn", run_reap, conn);
	spawn("reap_conn2", run_reap, s6_conn2);
}

/* S7 */
void s7()
{
	nsources = 0;
	int d = added_dev("dev0");
	int a = id_on("A", d, XCMA_FSM_CONNECT);
	int b = id_on("B", d, XCMA_FSM_CONNECT);
	id(b).destroy_on = XCMA_CM_EVENT_ESTABLISHED;
	id(b).destroy_target = a;
	spawn("ib_cm(B)", run_source, source(b, XCMA_EV_ESTABLISHED));
	spawn("remover", run_remove, d);
	spawn("reap_A", run_reap, a);
	spawn("reap_B", run_reap, b);
}

/* S8 */
int s8_l, s8_d0, s8_d1;

void run_listener_user(int l)
{
	await([](int) {
		return dev(s8_d0).remove_returned && dev(s8_d1).remove_returned;
	}, 0, "removals");
	ModelId &m = id(l);
	xcma_plat_ctx_lock(&W.ctx);
	bool kept = m.fsm.children.next != &m.fsm.children;
	bool wildcard = m.fsm.flags & XCMA_FSM_F_WILDCARD;
	xcma_plat_ctx_unlock(&W.ctx);
	if (kept)
		fail(Rule::G7, "%s keeps children of removed devices", m.name);
	if (!wildcard || xcma_fsm_id_state(&m.fsm) != XCMA_FSM_LISTEN)
		fail(Rule::G7, "%s no longer a wildcard listener after the "
			       "removals", m.name);
	user_destroy_once(l);
}

void s8()
{
	nsources = 0;
	s8_d0 = added_dev("dev0");
	s8_d1 = added_dev("dev1");
	reserve_child("c0");
	reserve_child("c1");
	s8_l = wildcard_listener("L");
	int a = id_on("a", s8_d0, XCMA_FSM_CONNECT);
	int b = id_on("b", s8_d1, XCMA_FSM_CONNECT);
	spawn("remover0", run_remove, s8_d0);
	spawn("remover1", run_remove, s8_d1);
	spawn("reap_a", run_reap, a);
	spawn("reap_b", run_reap, b);
	spawn("listener", run_listener_user, s8_l);
}

/* S9 */
int s9_l, s9_d0, s9_d1, s9_c1, s9_conn;
Shared<bool> s9_req_done;

void run_add(int d)
{
	expect_ok(xcma_fsm_dev_add(&dev(d).fsm), "dev_add");
}

/* ib_cm: a connect request on the listener's child on the new device */
void run_req_new(int)
{
	await([](int) {
		return id(s9_c1).used && peek_state(s9_c1) == XCMA_FSM_LISTEN;
	}, 0, "child on dev1");
	xcma_fsm_id_get(&id(s9_c1).fsm);
	init_reserved(s9_conn);
	int r = xcma_fsm_id_deliver_req(&id(s9_c1).fsm, &id(s9_conn).fsm,
					0);
	if (r != XCMA_FSM_DELIVERED)
		fail(Rule::G7, "connect request on %s refused (%d) while %s "
			       "was removed",
		     id(s9_c1).name, r, dev(s9_d0).name);
	xcma_fsm_id_put(&id(s9_c1).fsm);
	s9_req_done = true;
}

/* the wildcard listener's owner, once dev0 is gone and dev1 is in */
void run_listener_owner(int l)
{
	await([](int) {
		return dev(s9_d0).remove_returned && s9_req_done;
	}, 0, "removal, request");
	ModelId &m = id(l);
	xcma_plat_ctx_lock(&W.ctx);
	xcma_fsm_link *first = m.fsm.children.next;
	bool alone = first != &m.fsm.children &&
		     first->next == &m.fsm.children &&
		     first == &id(s9_c1).fsm.child_item &&
		     id(s9_c1).fsm.dev == &dev(s9_d1).fsm;
	xcma_plat_ctx_unlock(&W.ctx);
	if (!alone)
		fail(Rule::G7, "%s does not listen on %s alone after the "
			       "removal of %s",
		     m.name, dev(s9_d1).name, dev(s9_d0).name);
	user_destroy_once(s9_conn);
	user_destroy_once(l);
}

/*
 * S10: the delivery path as the kernel's ib_cm callback takes it. A REP
 * enters as rep_received (nothing for the user), the QP's outcome fires
 * CONNECT_ERROR, the source calls the user itself and leaves; the user
 * returns non-zero. Meanwhile the device is removed, and another id on it
 * fails its bind after attaching and detaches, then is destroyed.
 */
int s10_a;

void run_rep(int)
{
	ModelId &m = id(s10_a);

	if (xcma_fsm_id_enter(&m.fsm, XCMA_EV_REP_RECEIVED, XCMA_FSM_PUT_REF))
		return; /* dropped: removal or destroy came first */
	expect_ok(xcma_fsm_id_fire(&m.fsm, XCMA_EV_CONNECT_ERROR),
		  "fire connect_error");
	int ret = xcma_plat_id_event(&m.fsm, XCMA_CM_EVENT_CONNECT_ERROR, 0);
	int r = xcma_fsm_id_leave(&m.fsm, ret, XCMA_FSM_PUT_REF);
	if (r != (ret ? XCMA_FSM_DESTROYED : XCMA_FSM_DELIVERED))
		fail(Rule::Api,
		     "leave returned %d after the callback returned %d", r,
		     ret);
}

void run_bind_fail(int i)
{
	id(i).detached = true;
	xcma_fsm_id_detach(&id(i).fsm);
	if (id(i).fsm.dev)
		fail(Rule::G8, "%s still holds a device after detach",
		     id(i).name);
	user_destroy_once(i);
}

void s9()
{
	nsources = 0;
	s9_req_done = false;
	s9_d0 = added_dev("dev0");
	s9_d1 = new_dev("dev1");
	reserve_child("c0");
	s9_c1 = reserve_child("c1");
	s9_l = wildcard_listener("L");
	s9_conn = reserve_id("conn");
	spawn("remover0", run_remove, s9_d0);
	spawn("add1", run_add, s9_d1);
	spawn("ib_cm_req", run_req_new, 0);
	spawn("owner", run_listener_owner, s9_l);
}

void s10()
{
	nsources = 0;
	int d = added_dev("dev0");
	s10_a = id_on("A", d, XCMA_FSM_CONNECT);
	int b = id_on("B", d, XCMA_FSM_ADDR_BOUND);
	id(s10_a).ret_on[XCMA_CM_EVENT_CONNECT_ERROR] = 1;
	xcma_fsm_id_get(&id(s10_a).fsm); /* the ib_cm callback's */
	spawn("ib_cm(REP)", run_rep, 0);
	spawn("bind_fail(B)", run_bind_fail, b);
	spawn("remover", run_remove, d);
	spawn("reap_A", run_reap, s10_a);
}

/*
 * S11: an id with two multicast groups joined. Its user joins a third,
 * leaves the first and destroys the id; a MULTICAST_JOIN work item is in
 * flight; the device is removed. Every joined group is released exactly
 * once (by its leave or by the library), before the removal returns.
 */
int s11_id, s11_g[3];

int match_group(xcma_fsm_link *l, const void *arg)
{
	return l == arg;
}

void join_group(int k)
{
	ModelGroup &g = W.groups[k];
	int err = xcma_fsm_id_group_add(&id(g.owner).fsm, &g.link);

	if (err && err != -XCMA_EINVAL)
		fail(Rule::Api, "join %s: %d", g.name, err);
	g.joined = !err;
}

void leave_group(int k)
{
	ModelGroup &g = W.groups[k];
	xcma_fsm_link *l =
		xcma_fsm_id_group_take(&id(g.owner).fsm, match_group, &g.link);

	if (l)
		release_group(g, "leave");
}

void run_mc_user(int i)
{
	join_group(s11_g[2]);
	leave_group(s11_g[0]);
	user_destroy_once(i);
}

void s11()
{
	nsources = 0;
	int d = added_dev("dev0");
	s11_id = id_on("A", d, XCMA_FSM_ADDR_BOUND);
	s11_g[0] = new_group("g0", s11_id, d);
	s11_g[1] = new_group("g1", s11_id, d);
	s11_g[2] = new_group("g2", s11_id, d);
	join_group(s11_g[0]);
	join_group(s11_g[1]);
	if (!W.groups[s11_g[0]].joined || !W.groups[s11_g[1]].joined)
		fail(Rule::Model, "setup: groups not joined");
	spawn("mc_join_work", run_source,
	      source(s11_id, XCMA_EV_MULTICAST_JOIN));
	spawn("user", run_mc_user, s11_id);
	spawn("remover", run_remove, d);
}

/*
 * S12: a UD id's SIDR REP, as ud.c takes it: entered as rep_received, the
 * outcome fired under the handler lock (here the QKEY the id cannot take:
 * ud_addr_error, the in-tree ADDR_ERROR that leaves the id CONNECT), the
 * user called, left. Meanwhile the user destroys the id and the device is
 * removed; a second UD id returns non-zero from its ESTABLISHED.
 */
int s12_a, s12_b;

void run_sidr_rep(int which)
{
	ModelId &m = id(which ? s12_b : s12_a);
	unsigned ev = which ? XCMA_EV_ESTABLISHED : XCMA_EV_UD_ADDR_ERROR;

	if (xcma_fsm_id_enter(&m.fsm, XCMA_EV_REP_RECEIVED, XCMA_FSM_PUT_REF))
		return; /* dropped: removal or destroy came first */
	expect_ok(xcma_fsm_id_fire(&m.fsm, ev), xcma_fsm_event_name(ev));
	/*
	 * Read under the handler lock and the source's reference: after
	 * leave the id may be destroyed and freed by another thread.
	 */
	unsigned st = xcma_fsm_id_state(&m.fsm);
	if (!which && st != XCMA_FSM_CONNECT)
		fail(Rule::Model, "ud_addr_error moved %s to %s", m.name,
		     xcma_fsm_state_name(st));
	int ret = xcma_plat_id_event(&m.fsm, xcma_fsm_event_cm_event(ev), 0);
	int r = xcma_fsm_id_leave(&m.fsm, ret, XCMA_FSM_PUT_REF);
	if (r != (ret ? XCMA_FSM_DESTROYED : XCMA_FSM_DELIVERED))
		fail(Rule::Api,
		     "leave returned %d after the callback returned %d", r,
		     ret);
}

void s12()
{
	nsources = 0;
	int d = added_dev("dev0");
	s12_a = id_on("A", d, XCMA_FSM_CONNECT);
	s12_b = id_on("B", d, XCMA_FSM_CONNECT);
	id(s12_b).ret_on[XCMA_CM_EVENT_ESTABLISHED] = 1;
	xcma_fsm_id_get(&id(s12_a).fsm); /* the ib_cm callbacks' */
	xcma_fsm_id_get(&id(s12_b).fsm);
	spawn("ib_cm(SIDR REP A)", run_sidr_rep, 0);
	spawn("ib_cm(SIDR REP B)", run_sidr_rep, 1);
	spawn("destroy_A", run_destroy, s12_a);
	spawn("remover", run_remove, d);
	spawn("reap_B", run_reap, s12_b);
}

/*
 * S13: neighbour updates (cma/neigh.c) on a routed id whose callback
 * destroys it by returning non-zero, and on a connected id its user
 * destroys, while the device is removed: UNREACHABLE never after
 * DEVICE_REMOVAL or destroy, the destroy by return final.
 */
void s13()
{
	nsources = 0;
	int d = added_dev("dev0");
	int a = id_on("A", d, XCMA_FSM_ROUTE_RESOLVED);
	int b = id_on("B", d, XCMA_FSM_CONNECT);
	id(a).ret_on[XCMA_CM_EVENT_UNREACHABLE] = 1;
	spawn("neigh(A)", run_source, source(a, XCMA_EV_NEIGH_UNREACHABLE));
	spawn("neigh(B)", run_source, source(b, XCMA_EV_NEIGH_UNREACHABLE));
	spawn("destroy_B", run_destroy, b);
	spawn("remover", run_remove, d);
	spawn("reap_A", run_reap, a);
}

const Scenario list[] = {
	{ "S1_destroy_vs_removal", "destroy vs removal, idle and bound id",
	  s1, 4 },
	{ "S2_destroy_removal_event",
	  "destroy vs removal vs an event whose handler returns 0", s2, 4 },
	{ "S3_removal_vs_nonzero_return",
	  "removal vs an event whose handler returns non-zero", s3, 4 },
	{ "S4_removal_handler_nonzero",
	  "DEVICE_REMOVAL handler returns non-zero, another event pending",
	  s4, 4 },
	{ "S5_serialization",
	  "two event sources, destroy and removal on one id", s5, 3 },
	{ "S6_wildcard_listener",
	  "wildcard listener, its child listener, a connected child and a "
	  "connect request vs removal vs destroy of the listener",
	  s6, 1 },
	{ "S7_destroy_from_other_callback",
	  "B's callback destroys A while B's device is removed", s7, 2 },
	{ "S8_two_devices",
	  "two devices removed concurrently, ids on each, one wildcard "
	  "listener",
	  s8, 1 },
	{ "S9_listener_across_replug",
	  "wildcard listener: one device removed while another is added and "
	  "a connect request arrives on the new one",
	  s9, 3 },
	{ "S10_enter_fire_leave_detach",
	  "a REP entered, fired and left by its source (destroy by return) "
	  "vs removal vs another id detaching",
	  s10, 2 },
	{ "S11_groups_leave_destroy_removal",
	  "an id's multicast groups: join, leave and destroy by the user vs "
	  "a MULTICAST_JOIN in flight vs removal",
	  s11, 3 },
	{ "S12_sidr_rep_ud",
	  "UD ids: SIDR REPs entered, fired (ud_addr_error, established with "
	  "destroy by return) and left vs destroy vs removal",
	  s12, 1 },
	{ "S13_neigh_unreachable",
	  "neighbour UNREACHABLE with destroy by return on a routed id, and "
	  "on a connected id its user destroys, vs removal",
	  s13, 1 },
};

} /* namespace */

const Scenario *scenarios(int *n)
{
	*n = sizeof(list) / sizeof(list[0]);
	return list;
}

const Scenario *find_scenario(const char *name)
{
	size_t len = strlen(name);

	for (const Scenario &s : list)
		if (!strcmp(s.name, name) ||
		    (!strncmp(s.name, name, len) && s.name[len] == '_'))
			return &s;
	return nullptr;
}

} /* namespace model */
