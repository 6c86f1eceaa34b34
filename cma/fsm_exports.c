// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Exports of the lifecycle library's entry points, for the KUnit module.
 * They are defined in C++ (cma/fsm/), where EXPORT_SYMBOL cannot be used,
 * so the exports stand here, apart from their definitions; checkpatch's
 * EXPORT_SYMBOL placement rule is waived for this file alone.
 */
#include <linux/build_bug.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <rdma/rdma_cm.h>

#include "xcma/fsm.h"

/*
 * The library cannot include kernel headers, so it carries its own copies
 * of the numbers consumers see: each must equal the kernel's. (The states
 * mirror enum rdma_cm_state, which is private to the in-tree CM; the unit
 * test TableNames.StatesMatchTheKernelEnum checks them by name.)
 */
static_assert(XCMA_ENOMEM == ENOMEM);
static_assert(XCMA_EBUSY == EBUSY);
static_assert(XCMA_ENODEV == ENODEV);
static_assert(XCMA_EINVAL == EINVAL);
static_assert(XCMA_ECONNABORTED == ECONNABORTED);
#define SAME_CM_EVENT(e) \
	static_assert((int)XCMA_CM_EVENT_##e == (int)RDMA_CM_EVENT_##e)
SAME_CM_EVENT(ADDR_RESOLVED);
SAME_CM_EVENT(ADDR_ERROR);
SAME_CM_EVENT(ROUTE_RESOLVED);
SAME_CM_EVENT(ROUTE_ERROR);
SAME_CM_EVENT(CONNECT_REQUEST);
SAME_CM_EVENT(CONNECT_RESPONSE);
SAME_CM_EVENT(CONNECT_ERROR);
SAME_CM_EVENT(UNREACHABLE);
SAME_CM_EVENT(REJECTED);
SAME_CM_EVENT(ESTABLISHED);
SAME_CM_EVENT(DISCONNECTED);
SAME_CM_EVENT(DEVICE_REMOVAL);
SAME_CM_EVENT(MULTICAST_JOIN);
SAME_CM_EVENT(MULTICAST_ERROR);
SAME_CM_EVENT(ADDR_CHANGE);
SAME_CM_EVENT(TIMEWAIT_EXIT);

EXPORT_SYMBOL_NS_GPL(xcma_fsm_rule, XCMA_INTERNAL);
EXPORT_SYMBOL_NS_GPL(xcma_fsm_state_name, XCMA_INTERNAL);
EXPORT_SYMBOL_NS_GPL(xcma_fsm_event_name, XCMA_INTERNAL);
EXPORT_SYMBOL_NS_GPL(xcma_fsm_ctx_idle, XCMA_INTERNAL);
EXPORT_SYMBOL_NS_GPL(xcma_fsm_id_state, XCMA_INTERNAL);
EXPORT_SYMBOL_NS_GPL(xcma_fsm_id_transition, XCMA_INTERNAL);
EXPORT_SYMBOL_NS_GPL(xcma_fsm_id_attach, XCMA_INTERNAL);
EXPORT_SYMBOL_NS_GPL(xcma_fsm_id_listen, XCMA_INTERNAL);
EXPORT_SYMBOL_NS_GPL(xcma_fsm_id_get, XCMA_INTERNAL);
EXPORT_SYMBOL_NS_GPL(xcma_fsm_id_put, XCMA_INTERNAL);
EXPORT_SYMBOL_NS_GPL(xcma_fsm_id_deliver, XCMA_INTERNAL);
EXPORT_SYMBOL_NS_GPL(xcma_fsm_id_deliver_req, XCMA_INTERNAL);
EXPORT_SYMBOL_NS_GPL(xcma_fsm_id_enter, XCMA_INTERNAL);
EXPORT_SYMBOL_NS_GPL(xcma_fsm_id_fire, XCMA_INTERNAL);
EXPORT_SYMBOL_NS_GPL(xcma_fsm_id_leave, XCMA_INTERNAL);
EXPORT_SYMBOL_NS_GPL(xcma_fsm_id_destroy, XCMA_INTERNAL);
EXPORT_SYMBOL_NS_GPL(xcma_fsm_dev_add, XCMA_INTERNAL);
EXPORT_SYMBOL_NS_GPL(xcma_fsm_dev_remove, XCMA_INTERNAL);

