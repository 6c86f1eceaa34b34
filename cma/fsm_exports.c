// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The lifecycle library's entry points, exported for the KUnit module in
 * the test build only (export.h). They are defined in C++ (cma/fsm/),
 * where EXPORT_SYMBOL cannot be used, so the exports stand here, apart
 * from their definitions; checkpatch's EXPORT_SYMBOL placement rule is
 * waived for this file alone.
 */
#include <linux/build_bug.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <rdma/rdma_cm.h>

#include "export.h"
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

EXPORT_SYMBOL_IF_XCMA_TEST(xcma_fsm_rule);
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_fsm_state_name);
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_fsm_event_name);
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_fsm_ctx_idle);
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_fsm_id_state);
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_fsm_id_transition);
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_fsm_id_attach);
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_fsm_id_listen);
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_fsm_id_get);
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_fsm_id_put);
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_fsm_id_deliver);
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_fsm_id_deliver_req);
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_fsm_id_enter);
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_fsm_id_fire);
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_fsm_id_leave);
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_fsm_id_destroy);
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_fsm_dev_add);
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_fsm_dev_remove);

