/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The transition table: the single source of truth for which event may
 * move an id out of which state, into which state, and what a refusal
 * returns. Everything else (the protocol, the C module, the tests, the
 * diagram) asks it.
 */
#ifndef XCMA_FSM_TABLE_HPP
#define XCMA_FSM_TABLE_HPP

#include "types.hpp"

namespace xcma::fsm
{

/* next == kSame: the event is allowed but leaves the state as it is */
inline constexpr u8 kSame = 0xfe;

/**
 * struct Rule - one row of the table, i.e. one event
 * @event: enum xcma_fsm_event, equal to the row's index
 * @name: for logs, tests and the diagram
 * @kind: enum xcma_fsm_event_kind
 * @from: mask of the states in which the event is allowed
 * @next: state after the event, or kSame
 * @cm_event: what the user's callback receives (notifications, lifecycle)
 * @needs_handler: applied only with the id's handler lock held
 * @refusal: -errno returned in every other state
 */
struct Rule {
	u8 event;
	const char *name;
	u8 kind;
	u16 from;
	u8 next;
	u8 cm_event;
	bool needs_handler;
	int refusal;
};

const Rule *rule_of(u32 event);
Step lookup(u32 state, u32 event);

} /* namespace xcma::fsm */

#endif /* XCMA_FSM_TABLE_HPP */
