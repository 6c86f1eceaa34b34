// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Every (state, event) pair, allowed or refused, one named case each
 * (e.g. "CONNECT__established"). The expectation below is written from
 * the in-tree CM (cma.c: its cma_comp_exch() calls and the state checks of
 * its handlers), independently of the library's table; each case then
 * drives the real library entry point for the event's kind.
 */
#include <gtest/gtest.h>

#include <string>
#include <tuple>

#include "test_platform.hpp"

namespace
{

enum : unsigned {
	IDLE = 0,
	ADDR_QUERY = 1,
	ADDR_RESOLVED = 2,
	ROUTE_QUERY = 3,
	ROUTE_RESOLVED = 4,
	CONNECT = 5,
	DISCONNECT = 6,
	ADDR_BOUND = 7,
	LISTEN = 8,
	DEVICE_REMOVAL = 9,
	DESTROYING = 10,
	NSTATES = 11,
	SAME = 99,
};

constexpr int kEINVAL = -22;
constexpr int kECONNABORTED = -103;

struct Expect {
	bool allowed;
	unsigned next;
	int refusal;
	int cm_event; /* -1: none */
};

bool live(unsigned s)
{
	return s != DEVICE_REMOVAL && s != DESTROYING;
}

/* from cma.c, one comment per rule */
Expect expected(unsigned s, unsigned ev)
{
	auto only = [&](unsigned from, unsigned next, int cm = -1) {
		return Expect{ s == from, next == SAME ? s : next, kEINVAL,
			       cm };
	};
	switch (ev) {
	case XCMA_EV_BIND: /* rdma_bind_addr_dst */
		return only(IDLE, ADDR_BOUND);
	case XCMA_EV_BIND_UNDO:
		return only(ADDR_BOUND, IDLE);
	case XCMA_EV_RESOLVE_ADDR: /* resolve_prepare_src */
		return only(ADDR_BOUND, ADDR_QUERY);
	case XCMA_EV_RESOLVE_ADDR_UNDO:
		return only(ADDR_QUERY, ADDR_BOUND);
	case XCMA_EV_RESOLVE_ROUTE: /* rdma_resolve_route */
		return only(ADDR_RESOLVED, ROUTE_QUERY);
	case XCMA_EV_RESOLVE_ROUTE_UNDO:
		return only(ROUTE_QUERY, ADDR_RESOLVED);
	case XCMA_EV_SET_IB_PATH: /* rdma_set_ib_path */
		return only(ADDR_RESOLVED, ROUTE_RESOLVED);
	case XCMA_EV_SET_IB_PATH_UNDO:
		return only(ROUTE_RESOLVED, ADDR_RESOLVED);
	case XCMA_EV_CONNECT: /* rdma_connect_locked */
		return only(ROUTE_RESOLVED, CONNECT);
	case XCMA_EV_CONNECT_UNDO:
		return only(CONNECT, ROUTE_RESOLVED);
	case XCMA_EV_LISTEN: /* rdma_listen */
		return only(ADDR_BOUND, LISTEN);
	case XCMA_EV_LISTEN_UNDO:
		return only(LISTEN, ADDR_BOUND);
	case XCMA_EV_ACCEPT: /* rdma_accept: state != CONNECT -> -EINVAL */
		return only(CONNECT, SAME);
	case XCMA_EV_REJECT: /* rdma_reject: only the cm_id is checked */
		return { s == CONNECT || s == DEVICE_REMOVAL, s, kEINVAL, -1 };
	case XCMA_EV_DISCONNECT: /* initiate, answer a DREQ, or after removal */
		return { s == CONNECT || s == DISCONNECT || s == DEVICE_REMOVAL,
			 s, kEINVAL, -1 };
	case XCMA_EV_REQ_ON_LISTENER: /* cma_ib_req_handler */
		return { s == LISTEN, s, kECONNABORTED, -1 };
	case XCMA_EV_SEND_MRA: /* cma_ib_req_handler, after the callback */
		return only(CONNECT, SAME);
	case XCMA_EV_SET_REUSEADDR: /* rdma_set_reuseaddr(id, 1) */
		return { s != LISTEN && s != DESTROYING, s, kEINVAL, -1 };
	case XCMA_EV_CLEAR_REUSEADDR: /* rdma_set_reuseaddr(id, 0) */
		return only(IDLE, SAME);
	case XCMA_EV_SET_AFONLY: /* rdma_set_afonly */
		return { s == IDLE || s == ADDR_BOUND, s, kEINVAL, -1 };
	case XCMA_EV_JOIN_MULTICAST: /* rdma_join_multicast */
		return { s == ADDR_BOUND || s == ADDR_RESOLVED, s, kEINVAL,
			 -1 };
	case XCMA_EV_ADDR_RESOLVED: /* addr_handler */
		return only(ADDR_QUERY, ADDR_RESOLVED, 0);
	case XCMA_EV_ADDR_ERROR:
		return only(ADDR_QUERY, ADDR_BOUND, 1);
	case XCMA_EV_ROUTE_RESOLVED: /* cma_work_handler */
		return only(ROUTE_QUERY, ROUTE_RESOLVED, 2);
	case XCMA_EV_ROUTE_ERROR:
		return only(ROUTE_QUERY, ADDR_RESOLVED, 3);
	case XCMA_EV_REP_RECEIVED: /* cma_ib_handler: nothing for the user */
		return only(CONNECT, SAME);
	case XCMA_EV_CONNECT_RESPONSE: /* cma_ib_handler: CONNECT only */
		return only(CONNECT, SAME, 5);
	case XCMA_EV_CONNECT_ERROR:
		return only(CONNECT, SAME, 6);
	case XCMA_EV_UNREACHABLE:
		return only(CONNECT, SAME, 7);
	case XCMA_EV_REJECTED:
		return only(CONNECT, SAME, 8);
	case XCMA_EV_ESTABLISHED:
		return only(CONNECT, SAME, 9);
	case XCMA_EV_DISCONNECTED: /* DREQ: CONNECT -> DISCONNECT */
		return only(CONNECT, DISCONNECT, 10);
	case XCMA_EV_TIMEWAIT_EXIT:
		return only(DISCONNECT, SAME, 15);
	case XCMA_EV_ADDR_CHANGE: /* work handler: not when going away */
		return { live(s), s, kEINVAL, 14 };
	case XCMA_EV_MULTICAST_JOIN:
		return { live(s), s, kEINVAL, 12 };
	case XCMA_EV_MULTICAST_ERROR:
		return { live(s), s, kEINVAL, 13 };
	case XCMA_EV_UD_ADDR_ERROR: /* cma_sidr_rep_handler: bad QKEY */
		return only(CONNECT, SAME, 1);
	case XCMA_EV_NEIGH_UNREACHABLE: /* cma_netevent_work_handler */
		return { s == ADDR_RESOLVED || s == ROUTE_QUERY ||
				 s == ROUTE_RESOLVED || s == CONNECT ||
				 s == DISCONNECT,
			 s, kEINVAL, 7 };
	case XCMA_EV_IW_CLOSE: /* cma_iw_handler: DISCONNECTED, no move */
		return only(CONNECT, SAME, 10);
	case XCMA_EV_CONNECT_REQUEST: /* new conn ids start in CONNECT */
		return only(IDLE, CONNECT, 4);
	case XCMA_EV_DEVICE_REMOVAL: /* cma_send_device_removal_put */
		return { live(s), DEVICE_REMOVAL, kEINVAL, 11 };
	case XCMA_EV_DESTROY: /* destroy_id_handler_unlock */
		return { s != DESTROYING, DESTROYING, kEINVAL, -1 };
	}
	ADD_FAILURE() << "event " << ev << " has no expectation";
	return {};
}

using Pair = std::tuple<unsigned, unsigned>;

class Table : public ::testing::TestWithParam<Pair>
{
protected:
	TestWorld world;

	void SetUp() override
	{
		tw = &world;
		xcma_fsm_ctx_init(&world.ctx);
	}
	void TearDown() override
	{
		EXPECT_TRUE(world.bugs.empty()) << world.bugs.front();
		tw = nullptr;
	}
};

TEST_P(Table, Pair)
{
	auto [s, ev] = GetParam();
	Expect e = expected(s, ev);
	unsigned next = 1234;

	/* the table itself */
	int err = xcma_fsm_rule(s, ev, &next);
	if (e.allowed) {
		EXPECT_EQ(err, 0);
		EXPECT_EQ(next, e.next);
	} else {
		EXPECT_EQ(err, e.refusal);
	}
	EXPECT_EQ(int(xcma_fsm_event_cm_event(ev)),
		  e.cm_event < 0 ? int(XCMA_CM_EVENT_NONE) : e.cm_event);

	/* and the entry point that applies it */
	TId &t = new_tid("id");
	t.fsm.state = s; /* testing policy: set the state directly */
	switch (xcma_fsm_event_kind(ev)) {
	case XCMA_EVK_OPERATION:
		t.handler = true;
		EXPECT_EQ(xcma_fsm_id_transition(&t.fsm, ev),
			  e.allowed ? 0 : e.refusal);
		t.handler = false;
		EXPECT_EQ(t.fsm.state, e.allowed ? e.next : s);
		EXPECT_TRUE(t.events.empty());
		break;
	case XCMA_EVK_NOTIFICATION:
		EXPECT_EQ(xcma_fsm_id_deliver(&t.fsm, ev, 0, 0),
			  e.allowed ? XCMA_FSM_DELIVERED : XCMA_FSM_DROPPED);
		EXPECT_EQ(t.fsm.state, e.allowed ? e.next : s);
		if (e.allowed && e.cm_event >= 0) {
			EXPECT_EQ(t.events,
				  std::vector<unsigned>{ unsigned(e.cm_event) });
		} else {
			EXPECT_TRUE(t.events.empty());
		}
		break;
	default:
		/* lifecycle events: protocol_test.cpp drives each path */
		EXPECT_EQ(xcma_fsm_id_transition(&t.fsm, ev), kEINVAL)
			<< "lifecycle events are not operations";
		EXPECT_EQ(t.fsm.state, s);
		break;
	}
}

std::string pair_name(const ::testing::TestParamInfo<Pair> &info)
{
	auto [s, ev] = info.param;
	return std::string(xcma_fsm_state_name(s)) + "__" +
	       xcma_fsm_event_name(ev);
}

INSTANTIATE_TEST_SUITE_P(
	StateXEvent, Table,
	::testing::Combine(::testing::Range(0u, unsigned(NSTATES)),
			   ::testing::Range(0u, unsigned(XCMA_EV_NR_EVENTS))),
	pair_name);

TEST(TableNames, StatesMatchTheKernelEnum)
{
	const char *kernel[] = { "IDLE",	   "ADDR_QUERY", "ADDR_RESOLVED",
				 "ROUTE_QUERY",	   "ROUTE_RESOLVED", "CONNECT",
				 "DISCONNECT",	   "ADDR_BOUND", "LISTEN",
				 "DEVICE_REMOVAL", "DESTROYING" };
	for (unsigned s = 0; s < NSTATES; s++)
		EXPECT_STREQ(xcma_fsm_state_name(s), kernel[s]);
	EXPECT_STREQ(xcma_fsm_state_name(NSTATES), "INVALID");
	EXPECT_STREQ(xcma_fsm_event_name(XCMA_EV_NR_EVENTS), "invalid");
}

TEST(TableNames, OutOfRangeIsRefused)
{
	unsigned next = 7;
	EXPECT_EQ(xcma_fsm_rule(NSTATES, XCMA_EV_BIND, &next), kEINVAL);
	EXPECT_EQ(xcma_fsm_rule(IDLE, XCMA_EV_NR_EVENTS, &next), kEINVAL);
	EXPECT_EQ(next, 7u);
}

} /* namespace */
