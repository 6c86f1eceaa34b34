// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The transition table. Rows follow the in-tree CM's cma_comp_exch() calls
 * and the state checks of its event handlers (drivers/infiniband/core/
 * cma.c): a refused operation returns what the in-tree function returns
 * when its cma_comp_exch() fails, a refused notification is dropped as the
 * in-tree handlers drop it.
 */
#include "table.hpp"

namespace xcma::fsm
{
namespace
{

constexpr u16 bit(u32 state)
{
	return static_cast<u16>(1u << state);
}

/* every state in which an id still belongs to its user */
constexpr u16 kLive = bit(XCMA_FSM_IDLE) | bit(XCMA_FSM_ADDR_QUERY) |
		      bit(XCMA_FSM_ADDR_RESOLVED) | bit(XCMA_FSM_ROUTE_QUERY) |
		      bit(XCMA_FSM_ROUTE_RESOLVED) | bit(XCMA_FSM_CONNECT) |
		      bit(XCMA_FSM_DISCONNECT) | bit(XCMA_FSM_ADDR_BOUND) |
		      bit(XCMA_FSM_LISTEN);

constexpr u8 kOp = XCMA_EVK_OPERATION;
constexpr u8 kNote = XCMA_EVK_NOTIFICATION;
constexpr u8 kLife = XCMA_EVK_LIFECYCLE;
constexpr u8 kNone = XCMA_CM_EVENT_NONE;
constexpr int kInval = -XCMA_EINVAL;

constexpr Rule rules[] = {
	/* rdma_bind_addr(): IDLE -> ADDR_BOUND, else -EINVAL */
	{ XCMA_EV_BIND, "bind", kOp, bit(XCMA_FSM_IDLE), XCMA_FSM_ADDR_BOUND,
	  kNone, false, kInval },
	{ XCMA_EV_BIND_UNDO, "bind_undo", kOp, bit(XCMA_FSM_ADDR_BOUND),
	  XCMA_FSM_IDLE, kNone, false, kInval },
	/* rdma_resolve_addr() on a bound id */
	{ XCMA_EV_RESOLVE_ADDR, "resolve_addr", kOp, bit(XCMA_FSM_ADDR_BOUND),
	  XCMA_FSM_ADDR_QUERY, kNone, false, kInval },
	{ XCMA_EV_RESOLVE_ADDR_UNDO, "resolve_addr_undo", kOp,
	  bit(XCMA_FSM_ADDR_QUERY), XCMA_FSM_ADDR_BOUND, kNone, false, kInval },
	/* rdma_resolve_route() */
	{ XCMA_EV_RESOLVE_ROUTE, "resolve_route", kOp,
	  bit(XCMA_FSM_ADDR_RESOLVED), XCMA_FSM_ROUTE_QUERY, kNone, false,
	  kInval },
	{ XCMA_EV_RESOLVE_ROUTE_UNDO, "resolve_route_undo", kOp,
	  bit(XCMA_FSM_ROUTE_QUERY), XCMA_FSM_ADDR_RESOLVED, kNone, false,
	  kInval },
	/* rdma_set_ib_path() */
	{ XCMA_EV_SET_IB_PATH, "set_ib_path", kOp, bit(XCMA_FSM_ADDR_RESOLVED),
	  XCMA_FSM_ROUTE_RESOLVED, kNone, false, kInval },
	{ XCMA_EV_SET_IB_PATH_UNDO, "set_ib_path_undo", kOp,
	  bit(XCMA_FSM_ROUTE_RESOLVED), XCMA_FSM_ADDR_RESOLVED, kNone, false,
	  kInval },
	/* rdma_connect_locked(): CONNECT is a handler-lock protected state */
	{ XCMA_EV_CONNECT, "connect", kOp, bit(XCMA_FSM_ROUTE_RESOLVED),
	  XCMA_FSM_CONNECT, kNone, true, kInval },
	{ XCMA_EV_CONNECT_UNDO, "connect_undo", kOp, bit(XCMA_FSM_CONNECT),
	  XCMA_FSM_ROUTE_RESOLVED, kNone, true, kInval },
	/* rdma_listen() */
	{ XCMA_EV_LISTEN, "listen", kOp, bit(XCMA_FSM_ADDR_BOUND),
	  XCMA_FSM_LISTEN, kNone, false, kInval },
	{ XCMA_EV_LISTEN_UNDO, "listen_undo", kOp, bit(XCMA_FSM_LISTEN),
	  XCMA_FSM_ADDR_BOUND, kNone, false, kInval },
	/* rdma_accept(): state must be CONNECT, handler lock held */
	{ XCMA_EV_ACCEPT, "accept", kOp, bit(XCMA_FSM_CONNECT), kSame, kNone,
	  true, kInval },
	/*
	 * rdma_reject(), rdma_disconnect(): need a connection (cm_id). The
	 * in-tree ones check nothing else: after DEVICE_REMOVAL an id that
	 * still has its connection moves its QP to ERR and sends the DREQ
	 * (RDS disconnects, then waits for its QP to flush, then destroys)
	 */
	{ XCMA_EV_REJECT, "reject", kOp,
	  bit(XCMA_FSM_CONNECT) | bit(XCMA_FSM_DEVICE_REMOVAL), kSame, kNone,
	  false, kInval },
	{ XCMA_EV_DISCONNECT, "disconnect", kOp,
	  bit(XCMA_FSM_CONNECT) | bit(XCMA_FSM_DISCONNECT) |
		  bit(XCMA_FSM_DEVICE_REMOVAL),
	  kSame, kNone, false, kInval },
	/* cma_ib_req_handler(): the listener must still listen */
	{ XCMA_EV_REQ_ON_LISTENER, "req_on_listener", kOp, bit(XCMA_FSM_LISTEN),
	  kSame, kNone, true, -XCMA_ECONNABORTED },
	/*
	 * After the listener's callback, a request its user has not answered
	 * yet: the conn id still in CONNECT gets an MRA sent for it
	 */
	{ XCMA_EV_SEND_MRA, "send_mra", kOp, bit(XCMA_FSM_CONNECT), kSame, kNone,
	  true, kInval },
	/*
	 * rdma_set_reuseaddr(): setting it, in any state but LISTEN (and
	 * DESTROYING, where the id is no longer its caller's); clearing it,
	 * only before the bind
	 */
	{ XCMA_EV_SET_REUSEADDR, "set_reuseaddr", kOp,
	  static_cast<u16>((kLive & ~bit(XCMA_FSM_LISTEN)) |
			   bit(XCMA_FSM_DEVICE_REMOVAL)),
	  kSame, kNone, false, kInval },
	{ XCMA_EV_CLEAR_REUSEADDR, "clear_reuseaddr", kOp, bit(XCMA_FSM_IDLE),
	  kSame, kNone, false, kInval },
	/* rdma_set_afonly(): before the id listens or resolves */
	{ XCMA_EV_SET_AFONLY, "set_afonly", kOp,
	  bit(XCMA_FSM_IDLE) | bit(XCMA_FSM_ADDR_BOUND), kSame, kNone, false,
	  kInval },
	/*
	 * rdma_join_multicast(): on a bound or resolved id only (the device
	 * is checked by xcma_fsm_id_group_add())
	 */
	{ XCMA_EV_JOIN_MULTICAST, "join_multicast", kOp,
	  bit(XCMA_FSM_ADDR_BOUND) | bit(XCMA_FSM_ADDR_RESOLVED), kSame, kNone,
	  false, kInval },

	/* addr_handler(), cma_work_handler() */
	{ XCMA_EV_ADDR_RESOLVED, "addr_resolved", kNote,
	  bit(XCMA_FSM_ADDR_QUERY), XCMA_FSM_ADDR_RESOLVED,
	  XCMA_CM_EVENT_ADDR_RESOLVED, true, kInval },
	{ XCMA_EV_ADDR_ERROR, "addr_error", kNote, bit(XCMA_FSM_ADDR_QUERY),
	  XCMA_FSM_ADDR_BOUND, XCMA_CM_EVENT_ADDR_ERROR, true, kInval },
	/* cma_query_handler() via cma_work_handler() */
	{ XCMA_EV_ROUTE_RESOLVED, "route_resolved", kNote,
	  bit(XCMA_FSM_ROUTE_QUERY), XCMA_FSM_ROUTE_RESOLVED,
	  XCMA_CM_EVENT_ROUTE_RESOLVED, true, kInval },
	{ XCMA_EV_ROUTE_ERROR, "route_error", kNote, bit(XCMA_FSM_ROUTE_QUERY),
	  XCMA_FSM_ADDR_RESOLVED, XCMA_CM_EVENT_ROUTE_ERROR, true, kInval },
	/*
	 * cma_ib_handler(): a REP on an id still connecting. Nothing for the
	 * user yet: the QP moves first, whose outcome fires one of the next
	 * three (xcma_fsm_id_fire()).
	 */
	{ XCMA_EV_REP_RECEIVED, "rep_received", kNote, bit(XCMA_FSM_CONNECT),
	  kSame, kNone, true, kInval },
	/* cma_ib_handler(), cma_iw_handler(): only in CONNECT */
	{ XCMA_EV_CONNECT_RESPONSE, "connect_response", kNote,
	  bit(XCMA_FSM_CONNECT), kSame, XCMA_CM_EVENT_CONNECT_RESPONSE, true,
	  kInval },
	{ XCMA_EV_CONNECT_ERROR, "connect_error", kNote, bit(XCMA_FSM_CONNECT),
	  kSame, XCMA_CM_EVENT_CONNECT_ERROR, true, kInval },
	{ XCMA_EV_UNREACHABLE, "unreachable", kNote, bit(XCMA_FSM_CONNECT),
	  kSame, XCMA_CM_EVENT_UNREACHABLE, true, kInval },
	{ XCMA_EV_REJECTED, "rejected", kNote, bit(XCMA_FSM_CONNECT), kSame,
	  XCMA_CM_EVENT_REJECTED, true, kInval },
	{ XCMA_EV_ESTABLISHED, "established", kNote, bit(XCMA_FSM_CONNECT),
	  kSame, XCMA_CM_EVENT_ESTABLISHED, true, kInval },
	/* DREQ/DREP received: CONNECT -> DISCONNECT */
	{ XCMA_EV_DISCONNECTED, "disconnected", kNote, bit(XCMA_FSM_CONNECT),
	  XCMA_FSM_DISCONNECT, XCMA_CM_EVENT_DISCONNECTED, true, kInval },
	{ XCMA_EV_TIMEWAIT_EXIT, "timewait_exit", kNote,
	  bit(XCMA_FSM_DISCONNECT), kSame, XCMA_CM_EVENT_TIMEWAIT_EXIT, true,
	  kInval },
	/* netdev and multicast work: any state but the two final ones */
	{ XCMA_EV_ADDR_CHANGE, "addr_change", kNote, kLive, kSame,
	  XCMA_CM_EVENT_ADDR_CHANGE, true, kInval },
	{ XCMA_EV_MULTICAST_JOIN, "multicast_join", kNote, kLive, kSame,
	  XCMA_CM_EVENT_MULTICAST_JOIN, true, kInval },
	{ XCMA_EV_MULTICAST_ERROR, "multicast_error", kNote, kLive, kSame,
	  XCMA_CM_EVENT_MULTICAST_ERROR, true, kInval },
	/*
	 * cma_sidr_rep_handler(): a SIDR REP whose QKEY the id cannot take
	 * is an ADDR_ERROR, and the UD id stays CONNECT (fired after
	 * rep_received, as the outcome of a REP is)
	 */
	{ XCMA_EV_UD_ADDR_ERROR, "ud_addr_error", kNote, bit(XCMA_FSM_CONNECT),
	  kSame, XCMA_CM_EVENT_ADDR_ERROR, true, kInval },
	/*
	 * cma_netevent_work_handler(): a neighbour's new hardware address
	 * (cma/neigh.c). The in-tree handler drops it only when the id is
	 * going away; the ids it concerns resolved a RoCE route, so they are
	 * in one of these states (ADDR_RESOLVED again after a failed route).
	 */
	{ XCMA_EV_NEIGH_UNREACHABLE, "neigh_unreachable", kNote,
	  bit(XCMA_FSM_ADDR_RESOLVED) | bit(XCMA_FSM_ROUTE_QUERY) |
		  bit(XCMA_FSM_ROUTE_RESOLVED) | bit(XCMA_FSM_CONNECT) |
		  bit(XCMA_FSM_DISCONNECT),
	  kSame, XCMA_CM_EVENT_UNREACHABLE, true, kInval },
	/*
	 * cma_iw_handler(): iw_cm's CLOSE is DISCONNECTED for the user, and
	 * the id stays CONNECT (the in-tree iWARP handler changes no state)
	 */
	{ XCMA_EV_IW_CLOSE, "iw_close", kNote, bit(XCMA_FSM_CONNECT), kSame,
	  XCMA_CM_EVENT_DISCONNECTED, true, kInval },

	/* a new conn id created by a listener starts in CONNECT */
	{ XCMA_EV_CONNECT_REQUEST, "connect_request", kLife,
	  bit(XCMA_FSM_IDLE), XCMA_FSM_CONNECT, XCMA_CM_EVENT_CONNECT_REQUEST,
	  true, kInval },
	/*
	 * cma_send_device_removal_put(): at most once, and never once the id
	 * is being destroyed.
	 */
	{ XCMA_EV_DEVICE_REMOVAL, "device_removal", kLife, kLive,
	  XCMA_FSM_DEVICE_REMOVAL, XCMA_CM_EVENT_DEVICE_REMOVAL, true, kInval },
	/* destroy_id_handler_unlock(): the fence, once */
	{ XCMA_EV_DESTROY, "destroy", kLife,
	  kLive | bit(XCMA_FSM_DEVICE_REMOVAL), XCMA_FSM_DESTROYING, kNone,
	  true, kInval },
};

static_assert(sizeof(rules) / sizeof(rules[0]) == XCMA_EV_NR_EVENTS,
	      "one row per event");

constexpr bool rows_in_order()
{
	for (u32 i = 0; i < XCMA_EV_NR_EVENTS; i++)
		if (rules[i].event != i)
			return false;
	return true;
}
static_assert(rows_in_order(), "row i describes event i");

constexpr bool nothing_leaves_destroying()
{
	for (const Rule &r : rules)
		if (r.from & bit(XCMA_FSM_DESTROYING))
			return false;
	return true;
}
static_assert(nothing_leaves_destroying(), "DESTROYING is final");

constexpr const char *state_names[XCMA_FSM_NR_STATES] = {
	"IDLE",		  "ADDR_QUERY", "ADDR_RESOLVED", "ROUTE_QUERY",
	"ROUTE_RESOLVED", "CONNECT",	"DISCONNECT",	 "ADDR_BOUND",
	"LISTEN",	  "DEVICE_REMOVAL", "DESTROYING",
};

} /* namespace */

const Rule *rule_of(u32 event)
{
	return event < XCMA_EV_NR_EVENTS ? &rules[event] : nullptr;
}

Step lookup(u32 state, u32 event)
{
	const Rule *r = rule_of(event);

	if (!r || state >= XCMA_FSM_NR_STATES)
		return { -XCMA_EINVAL, state, state };
	if (!(r->from & bit(state)))
		return { r->refusal, state, state };
	return { 0, state, r->next == kSame ? state : r->next };
}

} /* namespace xcma::fsm */

using namespace xcma::fsm;

extern "C" int xcma_fsm_rule(unsigned int state, unsigned int event,
			     unsigned int *next)
{
	Step s = lookup(state, event);

	if (s.ok() && next)
		*next = s.next;
	return s.err;
}

extern "C" unsigned int xcma_fsm_event_kind(unsigned int event)
{
	const Rule *r = rule_of(event);

	return r ? r->kind : u32{ XCMA_EVK_LIFECYCLE };
}

extern "C" unsigned int xcma_fsm_event_cm_event(unsigned int event)
{
	const Rule *r = rule_of(event);

	return r ? r->cm_event : u32{ XCMA_CM_EVENT_NONE };
}

extern "C" const char *xcma_fsm_state_name(unsigned int state)
{
	return state < XCMA_FSM_NR_STATES ? state_names[state] : "INVALID";
}

extern "C" const char *xcma_fsm_event_name(unsigned int event)
{
	const Rule *r = rule_of(event);

	return r ? r->name : "invalid";
}
