// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * One case per protocol path of the library, on the single-threaded test
 * platform. Races are the model checker's job; these pin down each path's
 * effects: who is called, in which order, how often, with which state.
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "test_platform.hpp"

namespace
{

constexpr int kEINVAL = -22;
constexpr int kENODEV = -19;
constexpr int kENOMEM = -12;
constexpr int kECONNABORTED = -103;

class Protocol : public ::testing::Test
{
protected:
	TestWorld world;
	bool expect_unheld = false;

	void SetUp() override
	{
		tw = &world;
		xcma_fsm_ctx_init(&world.ctx);
	}
	void TearDown() override
	{
		EXPECT_FALSE(world.ctx_lock);
		if (!expect_unheld) {
			EXPECT_TRUE(world.unheld.empty())
				<< world.unheld.front();
		}
		tw = nullptr;
	}

	static void op(TId &t, unsigned ev)
	{
		ASSERT_EQ(xcma_fsm_id_transition(&t.fsm, ev), 0)
			<< xcma_fsm_event_name(ev);
	}

	static TId &bound(const char *name, TDev &d)
	{
		TId &t = new_tid(name);
		op(t, XCMA_EV_BIND);
		EXPECT_EQ(xcma_fsm_id_attach(&t.fsm, &d.fsm), 0);
		return t;
	}

	static TId &connected(const char *name, TDev &d)
	{
		TId &t = bound(name, d);
		op(t, XCMA_EV_RESOLVE_ADDR);
		EXPECT_EQ(xcma_fsm_id_deliver(&t.fsm, XCMA_EV_ADDR_RESOLVED, 0,
					      0),
			  XCMA_FSM_DELIVERED);
		op(t, XCMA_EV_SET_IB_PATH);
		t.handler = true;
		op(t, XCMA_EV_CONNECT);
		t.handler = false;
		t.events.clear();
		return t;
	}

	int count(const std::string &line)
	{
		return std::count(world.log.begin(), world.log.end(), line);
	}
};

TEST_F(Protocol, DestroyIdleCancelsOnceAndFrees)
{
	TId &t = new_tid("a");
	EXPECT_EQ(xcma_fsm_id_destroy(&t.fsm), 0);
	EXPECT_TRUE(t.freed);
	EXPECT_EQ(t.cancels, 1);
	EXPECT_EQ(t.cancel_state, unsigned(XCMA_FSM_IDLE));
	EXPECT_EQ(t.releases, 0);
	EXPECT_TRUE(t.events.empty());
}

TEST_F(Protocol, DestroyBoundReleasesTheDevice)
{
	TDev &d = new_tdev("d");
	TId &t = bound("a", d);
	EXPECT_EQ(d.refs, 2u);
	EXPECT_EQ(xcma_fsm_id_destroy(&t.fsm), 0);
	EXPECT_EQ(t.releases, 1);
	EXPECT_EQ(d.refs, 1u);
	EXPECT_EQ(t.cancel_state, unsigned(XCMA_FSM_ADDR_BOUND));
	EXPECT_EQ(world.log, (std::vector<std::string>{
				     "cancel a ADDR_BOUND", "release a d",
				     "free a" }));
}

TEST_F(Protocol, DestroyOfADestroyingIdIsRefused)
{
	TId &t = new_tid("a");
	t.fsm.state = XCMA_FSM_DESTROYING;
	EXPECT_EQ(xcma_fsm_id_destroy(&t.fsm), kEINVAL);
	EXPECT_FALSE(t.freed);
	EXPECT_EQ(world.bugs.size(), 1u);
	EXPECT_FALSE(t.handler);
}

TEST_F(Protocol, DestroyWaitsForAnEventSourceReference)
{
	TId &t = new_tid("a");
	xcma_fsm_id_get(&t.fsm);
	int sleeps = 0;
	world.on_id_sleep = [&](TId &w) {
		sleeps++;
		EXPECT_FALSE(w.freed);
		xcma_fsm_id_put(&w.fsm); /* the source finishes */
	};
	EXPECT_EQ(xcma_fsm_id_destroy(&t.fsm), 0);
	EXPECT_EQ(sleeps, 1);
	EXPECT_TRUE(t.freed);
}

TEST_F(Protocol, DeliverRunsTheCallbackUnderTheHandlerLock)
{
	TDev &d = new_tdev("d");
	TId &t = connected("a", d);
	bool held = false;
	t.on_event = [&](TId &w, unsigned) { held = w.handler; };
	EXPECT_EQ(xcma_fsm_id_deliver(&t.fsm, XCMA_EV_DISCONNECTED, 0, 0),
		  XCMA_FSM_DELIVERED);
	EXPECT_TRUE(held);
	EXPECT_FALSE(t.handler);
	EXPECT_EQ(t.fsm.state, unsigned(XCMA_FSM_DISCONNECT));
	EXPECT_EQ(t.events, std::vector<unsigned>{ XCMA_CM_EVENT_DISCONNECTED });
}

TEST_F(Protocol, DeliverInTheWrongStateDrops)
{
	TId &t = new_tid("a");
	xcma_fsm_id_get(&t.fsm);
	EXPECT_EQ(xcma_fsm_id_deliver(&t.fsm, XCMA_EV_ESTABLISHED, 0,
				      XCMA_FSM_PUT_REF),
		  XCMA_FSM_DROPPED);
	EXPECT_TRUE(t.events.empty());
	EXPECT_EQ(t.refs, 1u);
}

TEST_F(Protocol, DeliverOfANonNotificationIsRefused)
{
	TId &t = new_tid("a");
	xcma_fsm_id_get(&t.fsm);
	EXPECT_EQ(xcma_fsm_id_deliver(&t.fsm, XCMA_EV_DESTROY, 0,
				      XCMA_FSM_PUT_REF),
		  kEINVAL);
	EXPECT_EQ(t.refs, 1u);
	EXPECT_EQ(t.fsm.state, unsigned(XCMA_FSM_IDLE));
}

TEST_F(Protocol, NonZeroReturnDestroysWithTheStateItHad)
{
	TDev &d = new_tdev("d");
	TId &t = connected("a", d);
	t.ret[XCMA_CM_EVENT_ESTABLISHED] = 1;
	xcma_fsm_id_get(&t.fsm); /* the source's reference */
	EXPECT_EQ(xcma_fsm_id_deliver(&t.fsm, XCMA_EV_ESTABLISHED, 0,
				      XCMA_FSM_PUT_REF),
		  XCMA_FSM_DESTROYED);
	EXPECT_TRUE(t.freed);
	EXPECT_EQ(t.cancels, 1);
	EXPECT_EQ(t.cancel_state, unsigned(XCMA_FSM_CONNECT));
	EXPECT_EQ(d.refs, 1u);
}

/*
 * One delivery path: the source enters (lock, table), works, calls the
 * user itself, leaves. A REP enters as rep_received and fires the event
 * the user gets, which the table checks as well.
 */
TEST_F(Protocol, EnterFireLeaveDeliversTheFiredEvent)
{
	TDev &d = new_tdev("d");
	TId &t = connected("a", d);
	xcma_fsm_id_get(&t.fsm); /* the source's reference */
	ASSERT_EQ(xcma_fsm_id_enter(&t.fsm, XCMA_EV_REP_RECEIVED,
				    XCMA_FSM_PUT_REF),
		  0);
	EXPECT_TRUE(t.handler);
	EXPECT_EQ(xcma_fsm_id_fire(&t.fsm, XCMA_EV_CONNECT_ERROR), 0);
	/* not a notification: refused, nothing changes */
	EXPECT_EQ(xcma_fsm_id_fire(&t.fsm, XCMA_EV_DESTROY), kEINVAL);
	EXPECT_EQ(xcma_fsm_id_leave(&t.fsm, 0, XCMA_FSM_PUT_REF),
		  XCMA_FSM_DELIVERED);
	EXPECT_FALSE(t.handler);
	EXPECT_EQ(t.refs, 1u);
	EXPECT_EQ(t.fsm.state, unsigned(XCMA_FSM_CONNECT));
	EXPECT_TRUE(t.events.empty()); /* the source called the user */
}

TEST_F(Protocol, EnterRefusedDropsTheSourceReference)
{
	TDev &d = new_tdev("d");
	TId &t = bound("a", d);
	xcma_fsm_id_get(&t.fsm);
	EXPECT_EQ(xcma_fsm_id_enter(&t.fsm, XCMA_EV_ESTABLISHED,
				    XCMA_FSM_PUT_REF),
		  kEINVAL);
	EXPECT_FALSE(t.handler);
	EXPECT_EQ(t.refs, 1u);
	xcma_fsm_id_get(&t.fsm);
	EXPECT_EQ(xcma_fsm_id_enter(&t.fsm, XCMA_EV_BIND, XCMA_FSM_PUT_REF),
		  kEINVAL);
	EXPECT_EQ(t.refs, 1u);
}

TEST_F(Protocol, LeaveWithNonZeroDestroys)
{
	TDev &d = new_tdev("d");
	TId &t = connected("a", d);
	xcma_fsm_id_get(&t.fsm);
	ASSERT_EQ(xcma_fsm_id_enter(&t.fsm, XCMA_EV_ESTABLISHED,
				    XCMA_FSM_PUT_REF),
		  0);
	EXPECT_EQ(xcma_fsm_id_leave(&t.fsm, 1, XCMA_FSM_PUT_REF),
		  XCMA_FSM_DESTROYED);
	EXPECT_TRUE(t.freed);
	EXPECT_EQ(t.cancels, 1);
	EXPECT_EQ(d.refs, 1u);
}

TEST_F(Protocol, GroupJoinNeedsABoundOrResolvedIdWithADevice)
{
	TDev &d = new_tdev("d");
	TId &idle = new_tid("idle");
	TId &t = bound("a", d);
	TGroup g0, g1;
	g0.addr = 1;
	EXPECT_EQ(xcma_fsm_id_group_add(&idle.fsm, &g0.link), kEINVAL);
	EXPECT_EQ(idle.fsm.groups.next, &idle.fsm.groups);
	t.fsm.state = XCMA_FSM_ROUTE_RESOLVED;
	EXPECT_EQ(xcma_fsm_id_group_add(&t.fsm, &g0.link), kEINVAL);
	t.fsm.state = XCMA_FSM_ADDR_RESOLVED;
	EXPECT_EQ(xcma_fsm_id_group_add(&t.fsm, &g0.link), 0);
	t.fsm.state = XCMA_FSM_ADDR_BOUND;
	EXPECT_EQ(xcma_fsm_id_group_add(&t.fsm, &g1.link), 0);
	EXPECT_FALSE(t.lock);
	EXPECT_EQ(xcma_fsm_id_destroy(&t.fsm), 0);
	EXPECT_EQ(xcma_fsm_id_destroy(&idle.fsm), 0);
	EXPECT_EQ(g0.drops + g1.drops, 2);
}

TEST_F(Protocol, GroupTakenByLeaveIsNotDroppedByDestroy)
{
	TDev &d = new_tdev("d");
	TId &t = bound("a", d);
	TGroup g0, g1;
	g0.addr = 1;
	g1.addr = 2;
	ASSERT_EQ(xcma_fsm_id_group_add(&t.fsm, &g0.link), 0);
	ASSERT_EQ(xcma_fsm_id_group_add(&t.fsm, &g1.link), 0);
	int addr = 1, unknown = 3;
	EXPECT_EQ(xcma_fsm_id_group_take(&t.fsm, tgroup_match, &unknown),
		  nullptr);
	EXPECT_EQ(xcma_fsm_id_group_take(&t.fsm, tgroup_match, &addr),
		  &g0.link);
	/* leaving twice finds nothing the second time */
	EXPECT_EQ(xcma_fsm_id_group_take(&t.fsm, tgroup_match, &addr),
		  nullptr);
	EXPECT_EQ(xcma_fsm_id_destroy(&t.fsm), 0);
	EXPECT_EQ(g0.drops, 0);
	EXPECT_EQ(g1.drops, 1);
	/* dropped before the device is let go */
	EXPECT_EQ(world.log, (std::vector<std::string>{
				     "cancel a ADDR_BOUND", "drop a 2",
				     "release a d", "free a" }));
}

/*
 * An address joined twice: a leave takes the newest join, as the in-tree
 * mc_list (list_add, first match), so that rdma_ucm, which frees the
 * context of the join librdmacm leaves (its newest), frees the one whose
 * delivery the leave waited for
 */
TEST_F(Protocol, LeaveOfAnAddressJoinedTwiceTakesTheNewestJoin)
{
	TDev &d = new_tdev("d");
	TId &t = bound("a", d);
	TGroup first, second;
	int addr = 7;

	first.addr = addr;
	second.addr = addr;
	ASSERT_EQ(xcma_fsm_id_group_add(&t.fsm, &first.link), 0);
	ASSERT_EQ(xcma_fsm_id_group_add(&t.fsm, &second.link), 0);
	EXPECT_EQ(xcma_fsm_id_group_take(&t.fsm, tgroup_match, &addr),
		  &second.link);
	EXPECT_EQ(xcma_fsm_id_group_take(&t.fsm, tgroup_match, &addr),
		  &first.link);
	EXPECT_EQ(xcma_fsm_id_destroy(&t.fsm), 0);
}

TEST_F(Protocol, GroupsAreDroppedByDetachAndNoneJoinAfter)
{
	TDev &d = new_tdev("d");
	TId &t = bound("a", d);
	TGroup g0, g1;
	ASSERT_EQ(xcma_fsm_id_group_add(&t.fsm, &g0.link), 0);
	xcma_fsm_id_detach(&t.fsm);
	EXPECT_EQ(g0.drops, 1);
	EXPECT_EQ(xcma_fsm_id_group_add(&t.fsm, &g1.link), kEINVAL);
	EXPECT_EQ(xcma_fsm_id_destroy(&t.fsm), 0);
	EXPECT_EQ(g0.drops, 1);
	EXPECT_EQ(g1.drops, 0);
}

TEST_F(Protocol, GroupsOfARemovedDeviceGoWithTheUsersDestroy)
{
	TDev &d = new_tdev("d");
	TId &t = bound("a", d);
	TGroup g0, g1;
	ASSERT_EQ(xcma_fsm_id_group_add(&t.fsm, &g0.link), 0);
	world.on_dev_sleep = [&](TDev &) {
		/* after DEVICE_REMOVAL: no join, the user destroys */
		EXPECT_EQ(g0.drops, 0);
		EXPECT_EQ(xcma_fsm_id_group_add(&t.fsm, &g1.link), kEINVAL);
		EXPECT_EQ(xcma_fsm_id_destroy(&t.fsm), 0);
		return 0;
	};
	xcma_fsm_dev_remove(&d.fsm);
	EXPECT_EQ(g0.drops, 1);
	EXPECT_EQ(g1.drops, 0);
	EXPECT_EQ(d.refs, 0u);
}

TEST_F(Protocol, DetachReleasesTheDevice)
{
	TDev &d = new_tdev("d");
	TId &t = bound("a", d);
	EXPECT_EQ(d.refs, 2u);
	xcma_fsm_id_detach(&t.fsm);
	EXPECT_EQ(t.fsm.dev, nullptr);
	EXPECT_EQ(t.releases, 1);
	EXPECT_EQ(d.refs, 1u);
	EXPECT_EQ(xcma_fsm_dev_holders(&d.fsm), 0u);
	/* and may attach again */
	EXPECT_EQ(xcma_fsm_id_attach(&t.fsm, &d.fsm), 0);
	EXPECT_EQ(d.refs, 2u);
}

/*
 * A consumer's missing rdma_lock_handler(): the in-tree CM asserts it
 * (lockdep) and goes on, so the result must not depend on the platform's
 * debug options: asserted through the platform, applied all the same.
 */
TEST_F(Protocol, OperationNeedingTheHandlerLockIsAssertedNotRefused)
{
	TDev &d = new_tdev("d");
	TId &t = bound("a", d);
	t.fsm.state = XCMA_FSM_ROUTE_RESOLVED;
	expect_unheld = true;
	EXPECT_EQ(xcma_fsm_id_transition(&t.fsm, XCMA_EV_CONNECT), 0);
	EXPECT_EQ(world.unheld, std::vector<std::string>{ "a" });
	EXPECT_EQ(world.bugs.size(), 0u);
	EXPECT_EQ(t.fsm.state, unsigned(XCMA_FSM_CONNECT));
}

TEST_F(Protocol, RemovalNotifiesOnceThenWaitsForTheUser)
{
	TDev &d = new_tdev("d");
	TId &t = connected("a", d);
	TId &idle = new_tid("idle");
	world.on_dev_sleep = [&](TDev &) {
		/* the user reacts to DEVICE_REMOVAL by destroying */
		EXPECT_EQ(t.fsm.state, unsigned(XCMA_FSM_DEVICE_REMOVAL));
		EXPECT_EQ(t.cancels, 1); /* the remover cancelled */
		EXPECT_EQ(xcma_fsm_id_destroy(&t.fsm), 0);
		return 0;
	};
	xcma_fsm_dev_remove(&d.fsm);
	EXPECT_EQ(t.events,
		  std::vector<unsigned>{ XCMA_CM_EVENT_DEVICE_REMOVAL });
	EXPECT_EQ(t.cancels, 1);
	EXPECT_EQ(t.cancel_state, unsigned(XCMA_FSM_CONNECT));
	EXPECT_TRUE(t.freed);
	EXPECT_EQ(d.refs, 0u);
	EXPECT_TRUE(idle.events.empty()); /* not attached: untouched */
	EXPECT_EQ(xcma_fsm_id_destroy(&idle.fsm), 0);
	EXPECT_TRUE(xcma_fsm_ctx_idle(&world.ctx));
}

TEST_F(Protocol, RemovalCallbackReturningNonZeroDestroys)
{
	TDev &d = new_tdev("d");
	TId &t = connected("a", d);
	t.ret[XCMA_CM_EVENT_DEVICE_REMOVAL] = 1;
	xcma_fsm_dev_remove(&d.fsm);
	EXPECT_TRUE(t.freed);
	EXPECT_EQ(t.cancels, 1);
	EXPECT_EQ(t.cancel_state, unsigned(XCMA_FSM_CONNECT));
	EXPECT_EQ(d.refs, 0u);
}

TEST_F(Protocol, DestroyFromTheRemovalCallbackOfAnotherId)
{
	TDev &d = new_tdev("d");
	TId &a = connected("a", d);
	TId &b = connected("b", d);
	a.on_event = [&](TId &, unsigned ev) {
		if (ev == XCMA_CM_EVENT_DEVICE_REMOVAL) {
			EXPECT_EQ(xcma_fsm_id_destroy(&b.fsm), 0);
		}
	};
	a.ret[XCMA_CM_EVENT_DEVICE_REMOVAL] = 1;
	xcma_fsm_dev_remove(&d.fsm);
	EXPECT_TRUE(a.freed);
	EXPECT_TRUE(b.freed);
	EXPECT_TRUE(b.events.empty()); /* destroyed before its turn */
	EXPECT_EQ(b.cancels, 1);
}

TEST_F(Protocol, RemovalNamesTheIdsItWaitsFor)
{
	TDev &d = new_tdev("d");
	TId &t = connected("slow", d);
	int sleeps = 0;
	world.on_dev_sleep = [&](TDev &) {
		if (++sleeps == 1)
			return 1; /* timed out */
		EXPECT_EQ(xcma_fsm_id_destroy(&t.fsm), 0);
		return 0;
	};
	xcma_fsm_dev_remove(&d.fsm);
	EXPECT_EQ(d.reported, std::vector<std::string>{ "slow" });
	EXPECT_TRUE(t.freed);
}

TEST_F(Protocol, AttachIsRefusedOnceRemovalStarted)
{
	TDev &d = new_tdev("d");
	TId &t = connected("a", d);
	TId &late = new_tid("late");
	t.ret[XCMA_CM_EVENT_DEVICE_REMOVAL] = 1;
	t.on_event = [&](TId &, unsigned) {
		EXPECT_EQ(xcma_fsm_id_attach(&late.fsm, &d.fsm), kENODEV);
	};
	xcma_fsm_dev_remove(&d.fsm);
	EXPECT_EQ(late.releases, 0);
	EXPECT_EQ(xcma_fsm_id_destroy(&late.fsm), 0);
}

TEST_F(Protocol, AttachTwiceIsRefused)
{
	TDev &d = new_tdev("d");
	TDev &e = new_tdev("e");
	TId &t = bound("a", d);
	EXPECT_EQ(xcma_fsm_id_attach(&t.fsm, &e.fsm), kEINVAL);
	EXPECT_EQ(xcma_fsm_id_destroy(&t.fsm), 0);
	EXPECT_EQ(e.refs, 1u);
}

TEST_F(Protocol, WildcardListenerGetsAChildPerDevice)
{
	TDev &d = new_tdev("d");
	TId &c0 = new_child_slot("c0");
	TId &c1 = new_child_slot("c1");
	TId &l = new_tid("L");
	op(l, XCMA_EV_BIND);
	EXPECT_EQ(xcma_fsm_id_listen(&l.fsm), 0);
	EXPECT_EQ(c0.fsm.state, unsigned(XCMA_FSM_LISTEN));
	EXPECT_EQ(c0.fsm.dev, &d.fsm);
	EXPECT_EQ(c0.fsm.parent, &l.fsm);
	EXPECT_EQ(l.refs, 2u); /* the child holds its parent */

	TDev &e = new_tdev("e"); /* ib_client.add gives it a child too */
	EXPECT_EQ(c1.fsm.dev, &e.fsm);
	EXPECT_EQ(l.refs, 3u);

	EXPECT_EQ(xcma_fsm_id_destroy(&l.fsm), 0);
	EXPECT_TRUE(c0.freed);
	EXPECT_TRUE(c1.freed);
	EXPECT_TRUE(l.freed);
	EXPECT_EQ(c0.cancel_state, unsigned(XCMA_FSM_LISTEN));
	EXPECT_TRUE(c0.events.empty() && l.events.empty());
	EXPECT_EQ(d.refs, 1u);
	EXPECT_EQ(e.refs, 1u);
}

TEST_F(Protocol, RemovalDestroysTheChildQuietlyAndTheListenerSurvives)
{
	TDev &d = new_tdev("d");
	TId &c0 = new_child_slot("c0");
	TId &l = new_tid("L");
	op(l, XCMA_EV_BIND);
	EXPECT_EQ(xcma_fsm_id_listen(&l.fsm), 0);
	xcma_fsm_dev_remove(&d.fsm);
	EXPECT_TRUE(c0.freed);
	EXPECT_TRUE(c0.events.empty());
	EXPECT_TRUE(l.events.empty());
	EXPECT_EQ(l.fsm.state, unsigned(XCMA_FSM_LISTEN));
	EXPECT_EQ(l.refs, 1u);
	EXPECT_FALSE(xcma_fsm_ctx_idle(&world.ctx)); /* still listening */
	EXPECT_EQ(xcma_fsm_id_destroy(&l.fsm), 0);
	EXPECT_TRUE(xcma_fsm_ctx_idle(&world.ctx));
}

TEST_F(Protocol, ListenFailureUndoesEverything)
{
	new_tdev("d");
	new_tdev("e");
	TId &c0 = new_child_slot("c0"); /* one child for two devices */
	TId &l = new_tid("L");
	op(l, XCMA_EV_BIND);
	EXPECT_EQ(xcma_fsm_id_listen(&l.fsm), kENOMEM);
	EXPECT_EQ(l.fsm.state, unsigned(XCMA_FSM_ADDR_BOUND));
	EXPECT_TRUE(c0.freed);
	EXPECT_EQ(l.refs, 1u);
	EXPECT_TRUE(xcma_fsm_ctx_idle(&world.ctx) == 0); /* devices remain */
	EXPECT_EQ(xcma_fsm_id_destroy(&l.fsm), 0);
}

/*
 * The platform makes no child on a device (an AF_IB listener on iWARP):
 * the listen succeeds with a child on the other device only, and a device
 * added later that gets none is added all the same.
 */
TEST_F(Protocol, ListenSkipsADeviceWithoutChild)
{
	new_tdev("d");
	new_tdev("e");
	new_no_child_slot();
	TId &c1 = new_child_slot("c1");
	TId &l = new_tid("L");
	op(l, XCMA_EV_BIND);
	EXPECT_EQ(xcma_fsm_id_listen(&l.fsm), 0);
	EXPECT_EQ(l.fsm.state, unsigned(XCMA_FSM_LISTEN));
	EXPECT_FALSE(c1.freed);
	EXPECT_EQ(c1.fsm.state, unsigned(XCMA_FSM_LISTEN));
	new_no_child_slot();
	TDev &f = new_tdev("f", false);
	EXPECT_EQ(xcma_fsm_dev_add(&f.fsm), 0);
	EXPECT_EQ(xcma_fsm_id_destroy(&l.fsm), 0);
	EXPECT_TRUE(c1.freed);
	xcma_fsm_dev_remove(&f.fsm);
}

TEST_F(Protocol, DeviceAddFailureRemovesTheDeviceAgain)
{
	TId &l = new_tid("L");
	op(l, XCMA_EV_BIND);
	EXPECT_EQ(xcma_fsm_id_listen(&l.fsm), 0); /* no device yet */
	TDev &d = new_tdev("d", false);
	EXPECT_EQ(xcma_fsm_dev_add(&d.fsm), kENOMEM); /* no child slot */
	EXPECT_EQ(d.refs, 0u);
	EXPECT_EQ(xcma_fsm_id_destroy(&l.fsm), 0);
	EXPECT_TRUE(xcma_fsm_ctx_idle(&world.ctx));
}

TEST_F(Protocol, ConnectRequestCreatesAConnectedChild)
{
	TDev &d = new_tdev("d");
	TId &c0 = new_child_slot("c0");
	TId &l = new_tid("L");
	op(l, XCMA_EV_BIND);
	EXPECT_EQ(xcma_fsm_id_listen(&l.fsm), 0);
	TId &conn = new_tid("conn");
	bool listener_held = false;
	conn.on_event = [&](TId &, unsigned) { listener_held = c0.handler; };
	EXPECT_EQ(xcma_fsm_id_deliver_req(&c0.fsm, &conn.fsm, 0),
		  XCMA_FSM_DELIVERED);
	EXPECT_TRUE(listener_held);
	EXPECT_EQ(conn.fsm.state, unsigned(XCMA_FSM_CONNECT));
	EXPECT_EQ(conn.fsm.dev, &d.fsm);
	EXPECT_EQ(conn.events,
		  std::vector<unsigned>{ XCMA_CM_EVENT_CONNECT_REQUEST });
	EXPECT_TRUE(c0.events.empty());
	EXPECT_EQ(xcma_fsm_id_destroy(&conn.fsm), 0);
	EXPECT_EQ(xcma_fsm_id_destroy(&l.fsm), 0);
}

TEST_F(Protocol, ConnectRequestOnANonListenerIsAborted)
{
	TDev &d = new_tdev("d");
	TId &notl = bound("x", d);
	TId &conn = new_tid("conn");
	EXPECT_EQ(xcma_fsm_id_deliver_req(&notl.fsm, &conn.fsm, 0),
		  kECONNABORTED);
	EXPECT_TRUE(conn.freed);
	EXPECT_TRUE(conn.events.empty());
	EXPECT_EQ(xcma_fsm_id_destroy(&notl.fsm), 0);
}

TEST_F(Protocol, ConnectRequestReturningNonZeroDestroysTheConn)
{
	TDev &d = new_tdev("d");
	TId &l = bound("l", d);
	EXPECT_EQ(xcma_fsm_id_listen(&l.fsm), 0); /* bound: no children */
	TId &conn = new_tid("conn");
	conn.ret[XCMA_CM_EVENT_CONNECT_REQUEST] = 1;
	EXPECT_EQ(xcma_fsm_id_deliver_req(&l.fsm, &conn.fsm, 0),
		  XCMA_FSM_DESTROYED);
	EXPECT_TRUE(conn.freed);
	EXPECT_EQ(conn.cancel_state, unsigned(XCMA_FSM_CONNECT));
	EXPECT_EQ(d.refs, 2u); /* only the listener holds it now */
	EXPECT_EQ(xcma_fsm_id_destroy(&l.fsm), 0);
}

TEST_F(Protocol, DeviceBoundListenerGetsDeviceRemoval)
{
	TDev &d = new_tdev("d");
	TId &l = bound("l", d);
	EXPECT_EQ(xcma_fsm_id_listen(&l.fsm), 0);
	l.ret[XCMA_CM_EVENT_DEVICE_REMOVAL] = 1;
	xcma_fsm_dev_remove(&d.fsm);
	EXPECT_EQ(l.events,
		  std::vector<unsigned>{ XCMA_CM_EVENT_DEVICE_REMOVAL });
	EXPECT_TRUE(l.freed);
	EXPECT_EQ(l.cancel_state, unsigned(XCMA_FSM_LISTEN));
}

} /* namespace */

/* netdev events: attached ids of live devices, no children, no removed dev */
TEST_F(Protocol, ForEachIdVisitsAttachedIdsOfLiveDevicesOnly)
{
	TDev &d1 = new_tdev("d1");
	TDev &d2 = new_tdev("d2");
	TId &a = bound("a", d1);
	TId &b = bound("b", d2);
	TId &u = new_tid("unbound");
	TId &l = new_tid("wild");
	op(l, XCMA_EV_BIND);
	new_child_slot("wild.d1");
	new_child_slot("wild.d2");
	ASSERT_EQ(xcma_fsm_id_listen(&l.fsm), 0);

	std::vector<std::string> seen;
	auto visit = [](xcma_fsm_id *id, void *arg) -> int {
		EXPECT_TRUE(tw->ctx_lock);
		static_cast<std::vector<std::string> *>(arg)->push_back(
			tid(id).name);
		return 0;
	};
	EXPECT_EQ(xcma_fsm_ctx_for_each_id(&world.ctx, visit, &seen), 0);
	EXPECT_EQ(seen, (std::vector<std::string>{ "a", "b" }));
	EXPECT_FALSE(world.ctx_lock);

	/* while d2 is being removed it is not walked */
	world.on_dev_sleep = [&](TDev &) {
		seen.clear();
		EXPECT_EQ(xcma_fsm_ctx_for_each_id(&world.ctx, visit, &seen),
			  0);
		EXPECT_EQ(seen, (std::vector<std::string>{ "a" }));
		EXPECT_EQ(xcma_fsm_id_destroy(&b.fsm), 0);
		return 0;
	};
	xcma_fsm_dev_remove(&d2.fsm);

	/* a non-zero return stops the walk */
	TId &c = bound("c", d1);
	seen.clear();
	auto stop = [](xcma_fsm_id *id, void *arg) -> int {
		static_cast<std::vector<std::string> *>(arg)->push_back(
			tid(id).name);
		return kENOMEM;
	};
	EXPECT_EQ(xcma_fsm_ctx_for_each_id(&world.ctx, stop, &seen), kENOMEM);
	EXPECT_EQ(seen, (std::vector<std::string>{ "a" }));
	EXPECT_FALSE(world.ctx_lock);
	EXPECT_EQ(xcma_fsm_id_destroy(&a.fsm), 0);
	EXPECT_EQ(xcma_fsm_id_destroy(&c.fsm), 0);
	EXPECT_EQ(xcma_fsm_id_destroy(&l.fsm), 0);
	EXPECT_EQ(xcma_fsm_id_destroy(&u.fsm), 0);
}

/* ADDR_CHANGE: in any live state, never after DEVICE_REMOVAL or destroy */
TEST_F(Protocol, AddrChangeIsDeliveredThenDroppedAfterRemoval)
{
	TDev &d = new_tdev("d");
	TId &a = connected("a", d);
	EXPECT_EQ(xcma_fsm_id_deliver(&a.fsm, XCMA_EV_ADDR_CHANGE, 0, 0),
		  XCMA_FSM_DELIVERED);
	EXPECT_EQ(a.fsm.state, unsigned(XCMA_FSM_CONNECT));
	world.on_dev_sleep = [&](TDev &) {
		EXPECT_EQ(xcma_fsm_id_deliver(&a.fsm, XCMA_EV_ADDR_CHANGE, 0,
					      0),
			  XCMA_FSM_DROPPED);
		EXPECT_EQ(xcma_fsm_id_destroy(&a.fsm), 0);
		return 0;
	};
	xcma_fsm_dev_remove(&d.fsm);
	EXPECT_EQ(a.events, (std::vector<unsigned>{
				    XCMA_CM_EVENT_ADDR_CHANGE,
				    XCMA_CM_EVENT_DEVICE_REMOVAL }));
	EXPECT_TRUE(a.freed);
}
