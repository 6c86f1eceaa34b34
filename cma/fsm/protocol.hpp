/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Internal steps of the lifecycle protocol shared by id.cpp and device.cpp.
 * Lock order (outermost first): listener handler lock, id handler lock,
 * ctx lock, id lock / dev lock. See docs/lifecycle.md.
 */
#ifndef XCMA_FSM_PROTOCOL_HPP
#define XCMA_FSM_PROTOCOL_HPP

#include "table.hpp"

namespace xcma::fsm
{

/* Apply @event under the id lock: the only place an id's state changes. */
Step apply(xcma_fsm_id *id, u32 event);
u32 read_state(xcma_fsm_id *id);

void id_put(xcma_fsm_id *id);

/*
 * Destroy @id whose handler lock the caller holds; drops it. @removal_prev
 * is the state the id had before DEVICE_REMOVAL when the caller is the
 * remover (destroy by return from the DEVICE_REMOVAL callback), else
 * XCMA_FSM_NO_STATE.
 */
Status destroy_handler_unlock(xcma_fsm_id *id, u32 removal_prev);
/* Same, where the caller knows the id is live (it holds the handler lock
 * and just moved the id in a live state). */
void destroy_live_handler_unlock(xcma_fsm_id *id, u32 removal_prev);

/* ctx lock held */
Status attach_locked(xcma_fsm_id *id, xcma_fsm_dev *dev);
Status listen_on_dev_locked(xcma_fsm_id *parent, xcma_fsm_dev *dev);
void release_dev(xcma_fsm_id *id);
void drop_groups(xcma_fsm_id *id);
void cancel_listens(xcma_fsm_id *id);

} /* namespace xcma::fsm */

#endif /* XCMA_FSM_PROTOCOL_HPP */
